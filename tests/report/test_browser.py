"""Open the default report in headless Chromium with the network blocked: no console errors, no broken
images, the headline numbers on screen.

Needs Debian's ``chromium`` and ``chromium-driver`` packages and the ``browser`` extra (selenium); skips
cleanly without them. Network blocking: ``--host-resolver-rules="MAP * ~NOTFOUND"`` (no host name
resolves), ``--proxy-server=127.0.0.1:9`` (a closed port), ``--disable-background-networking`` and
DevTools ``Network.emulateNetworkConditions(offline=True)``.
"""
import shutil

import pytest

selenium = pytest.importorskip("selenium", reason="the 'browser' extra (selenium) is not installed")

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
DRIVER = shutil.which("chromedriver")
pytestmark = pytest.mark.skipif(not (CHROMIUM and DRIVER), reason="chromium and chromedriver are not installed")


@pytest.fixture(scope="module")
def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=127.0.0.1:9",
                 "--disable-background-networking", "--disable-component-update", "--disable-default-apps",
                 "--disable-extensions", "--disable-sync", "--no-first-run", "--window-size=1280,1000"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    try:
        driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    except Exception as exc:  # noqa: BLE001 - a broken local browser install is a skip, not a failure
        pytest.skip(f"chromium could not start: {exc}")
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.emulateNetworkConditions", {
        "offline": True, "latency": 0, "downloadThroughput": 0, "uploadThroughput": 0})
    yield driver
    driver.quit()


def test_report_opens_offline_without_errors(browser, default_report):
    report, out = default_report
    browser.get((out / "index.html").resolve().as_uri())
    assert browser.title == report.title
    errors = [e for e in browser.get_log("browser") if e.get("level") in ("SEVERE", "ERROR")]
    assert errors == []
    broken = browser.execute_script(
        "return Array.from(document.images).filter(i => !i.complete || i.naturalWidth === 0)"
        ".map(i => i.alt || i.src.slice(0, 40));")
    assert broken == []
    n_images = browser.execute_script("return document.images.length;")
    assert n_images >= 8
    # resources the page asked for: only data: URIs, nothing over the network
    remote = browser.execute_script(
        "return performance.getEntriesByType('resource').map(e => e.name).filter(n => !n.startsWith('data:'));")
    assert remote == []


def test_headline_numbers_are_on_screen(browser, default_report):
    from selenium.webdriver.common.by import By

    report, out = default_report
    browser.get((out / "index.html").resolve().as_uri())
    h = report.headline
    assert browser.find_element(By.CSS_SELECTOR, "#card-national .big").text == h["national"]["value"]
    gap = browser.find_element(By.CSS_SELECTOR, "#card-gap .big").text
    assert gap.startswith(h["gap"]["value"]) and h["gap"]["detail"] in gap  # the ratio and its 95 % CI
    assert browser.find_element(By.CSS_SELECTOR, "#card-trend .big").text.startswith(h["trend"]["value"])
    worst = browser.find_element(By.ID, "worst").text
    for row in h["worst"]:
        assert row["name"] in worst and row["smoothed"] in worst and row["interval"] in worst
    # the cards and the map are in the first screen (1280 x 1000)
    top = browser.execute_script(
        "return document.getElementById('fig-map_smoothed').getBoundingClientRect().top;")
    assert top < 1000


def test_spanish_report_opens_offline_with_its_numbers(browser, small_report):
    """The Spanish report (Aysén study, decimal comma): no console errors, no broken image, headline numbers."""
    from selenium.webdriver.common.by import By

    report, out = small_report
    browser.get((out / "index.html").resolve().as_uri())
    assert browser.execute_script("return document.documentElement.lang;") == "es"
    errors = [e for e in browser.get_log("browser") if e.get("level") in ("SEVERE", "ERROR")]
    assert errors == []
    broken = browser.execute_script(
        "return Array.from(document.images).filter(i => !i.complete || i.naturalWidth === 0).length;")
    assert broken == 0
    h = report.headline
    national = browser.find_element(By.CSS_SELECTOR, "#card-national .big").text
    assert national == h["national"]["value"] and "," in national  # 1.234,5 in Spanish
    assert browser.find_element(By.CSS_SELECTOR, "#card-gap .big").text.startswith(h["gap"]["value"])
    assert "IC 95 %" in browser.find_element(By.CSS_SELECTOR, "#card-gap").text
