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
def browser(offline_chromium):
    driver = offline_chromium()
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


# ------------------------------------------------------------------ the dashboard beside the report (issue 16)

def _dashboard(browser, out):
    browser.get((out / "dashboard.html").resolve().as_uri())
    return browser


def _select(browser, name, value):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    Select(browser.find_element(By.CSS_SELECTOR, f"select[name={name}]")).select_by_value(str(value))


def _text(browser, testid):
    from selenium.webdriver.common.by import By

    return browser.find_element(By.CSS_SELECTOR, f"[data-testid={testid}]").text


def test_dashboard_opens_offline_without_errors_and_paints_fast(browser, default_report):
    report, out = default_report
    _dashboard(browser, out)
    assert [e for e in browser.get_log("browser") if e.get("level") in ("SEVERE", "ERROR")] == []
    remote = browser.execute_script(
        "return performance.getEntriesByType('resource').map(e => e.name).filter(n => !n.startsWith('data:'));")
    assert remote == []
    paint = browser.execute_script(
        "return performance.getEntriesByType('paint').filter(e => e.name === 'first-contentful-paint')"
        ".map(e => e.startTime)[0];")
    print(f"dashboard first contentful paint: {paint:.0f} ms")
    assert paint is not None
    n_shapes = browser.execute_script("return document.querySelectorAll('#map path[fill]').length;")
    assert n_shapes == 343  # 346 communes less the two islands and Antártica (no polygon), named below the map
    caption = browser.execute_script("return document.getElementById('map-caption').textContent;")
    assert "Juan Fernández" in caption and "Antártica" in caption


def test_dashboard_year_updates_the_national_rate(browser, default_report):
    from brecha.report.formatting import fmt

    report, out = default_report
    _dashboard(browser, out)
    national = report.tables["rates_national"][0].set_index("year")["estimate"]
    assert _text(browser, "national-rate") == report.headline["national"]["value"] == fmt(national[2015], 1, "en")
    for year in (2000, 2007, 2015):
        _select(browser, "year", year)
        assert _text(browser, "national-rate") == fmt(national[year], 1, "en")
    _select(browser, "year", "pooled")
    pooled = report.tables["rates_national_pooled"][0]["estimate"].iloc[0]
    assert _text(browser, "national-rate") == fmt(pooled, 1, "en")
    options = browser.execute_script(
        "return Array.from(document.querySelectorAll('select[name=outcome] option')).map(o => o.value);")
    assert options == ["infant"]


def test_dashboard_table_click_selects_the_unit_everywhere(browser, default_report):
    from selenium.webdriver.common.by import By

    report, out = default_report
    _dashboard(browser, out)
    assert "none" in _text(browser, "selected-unit")
    row = browser.find_elements(By.CSS_SELECTOR, "#units-table tbody tr")[5]
    code = row.get_attribute("data-unit")
    name = report.panel.units.set_index("unit").loc[code, "name"]
    row.click()
    assert _text(browser, "selected-unit") == f"{name} ({code})"
    assert browser.execute_script(f"return document.querySelector('#map path[data-unit=\"{code}\"]')"
                                  ".getAttribute('class');").startswith("sel")
    series = browser.execute_script("return brechaDashboard.csv('series');").splitlines()
    assert series[0] == "Series,Year,Value,Lower,Upper" and any(line.startswith(name) for line in series[1:])
    browser.execute_script("document.querySelector('#map path[data-unit=\"13101\"]')"
                           ".dispatchEvent(new MouseEvent('click', {bubbles: true}));")
    assert _text(browser, "selected-unit") == "Santiago (13101)"


def test_dashboard_language_switch_changes_labels_and_numbers(browser, default_report):
    from selenium.webdriver.common.by import By

    report, out = default_report
    _dashboard(browser, out)
    label = browser.find_element(By.CSS_SELECTOR, ".card [data-l=national_rate]")
    tab = browser.find_element(By.CSS_SELECTOR, "nav [data-tab=compare]")
    assert (label.text, tab.text) == ("National rate", "Compare")
    _select(browser, "year", 2000)
    english = _text(browser, "national-rate")
    _select(browser, "lang", "pt")
    assert (label.text, tab.text) == ("Taxa nacional", "Comparar")
    assert browser.execute_script("return document.documentElement.lang;") == "pt"
    assert _text(browser, "national-rate") == english.replace(".", ",")
    _select(browser, "lang", "es")
    assert label.text == "Tasa nacional"
    assert browser.find_element(By.CSS_SELECTOR, "#units-table th[data-col=births]").text.startswith("Nacidos")
    assert [e for e in browser.get_log("browser") if e.get("level") in ("SEVERE", "ERROR")] == []


def test_dashboard_rounds_numbers_as_the_report(browser, default_report):
    """Python rounds the exact binary value with ties to even; JavaScript's toFixed breaks ties upwards."""
    from brecha.report.formatting import fmt

    report, out = default_report
    _dashboard(browser, out)
    _select(browser, "lang", "en")
    values = [0.25, 0.35, 2.5, 0.125, 0.375, 1234.45, 1234.25, -0.25, 6.95, 10.05, 0.0, 1e6 + 0.5, 7.049999]
    for digits in (0, 1, 2):
        got = browser.execute_script(f"return arguments[0].map(v => brechaDashboard.fmt(v, {digits}));", values)
        assert got == [fmt(v, digits, "en") for v in values]
