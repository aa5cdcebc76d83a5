"""Settings for the whole suite."""
import pytest


@pytest.fixture(autouse=True)
def _one_job(monkeypatch):
    """Every test runs serially unless it sets BRECHA_JOBS itself: the report works in forked children
    only when a core is idle (brecha.report.forked.pays), which would make a test's path depend on the
    machine's load. The threaded and forked paths have tests of their own (tests/inequality/test_threads.py,
    tests/inequality/test_decompose_speed.py, tests/report/test_ahead.py) that set BRECHA_JOBS."""
    monkeypatch.setenv("BRECHA_JOBS", "1")


@pytest.fixture(scope="session")
def offline_chromium(tmp_path_factory):
    """A factory of headless Chromium drivers (selenium) for the report's and the dashboard's pages: the
    network blocked three ways (no name resolves, a dead proxy, and DevTools' offline mode), the browser's
    console kept for the tests to read. Chromium's own temporary folders go under pytest's (``TMPDIR``), not
    the system's, where each start left two. Skips when selenium, chromium or chromedriver is missing or
    the browser cannot start. The caller quits each driver it starts."""
    import os
    import shutil

    pytest.importorskip("selenium", reason="the 'browser' extra (selenium) is not installed")
    chromium = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    driver_path = shutil.which("chromedriver")
    if not (chromium and driver_path):
        pytest.skip("chromium and chromedriver are not installed")
    folder = tmp_path_factory.mktemp("chromium")

    def start():
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service

        options = webdriver.ChromeOptions()
        options.binary_location = chromium
        for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=127.0.0.1:9",
                     "--disable-background-networking", "--disable-component-update", "--disable-default-apps",
                     "--disable-extensions", "--disable-sync", "--no-first-run", "--window-size=1280,1000"):
            options.add_argument(flag)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        service = Service(driver_path, env={**os.environ, "TMPDIR": str(folder)})
        try:
            driver = webdriver.Chrome(service=service, options=options)
        except Exception as exc:  # noqa: BLE001 - a broken local browser install is a skip, not a failure
            pytest.skip(f"chromium could not start: {exc}")
        driver.execute_cdp_cmd("Network.enable", {})
        driver.execute_cdp_cmd("Network.emulateNetworkConditions", {
            "offline": True, "latency": 0, "downloadThroughput": 0, "uploadThroughput": 0})
        return driver

    return start
