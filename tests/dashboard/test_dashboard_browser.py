"""The dashboard of a study with two outcomes, read from a panel file on disk, in headless Chromium with the
network blocked (as tests/report/test_browser.py): the outcome switch, the region filter, the Compare and
Determinants views, exports. Skips without selenium, chromium and chromedriver."""
import shutil

import pytest

pytest.importorskip("selenium", reason="the 'browser' extra (selenium) is not installed")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
DRIVER = shutil.which("chromedriver")
pytestmark = pytest.mark.skipif(not (CHROMIUM and DRIVER), reason="chromium and chromedriver are not installed")


@pytest.fixture(scope="module")
def page(report_folder, offline_chromium):
    driver = offline_chromium()
    driver.get((report_folder / "dashboard.html").resolve().as_uri())
    yield driver
    assert [e for e in driver.get_log("browser") if e.get("level") in ("SEVERE", "ERROR")] == []
    driver.quit()


def choose(driver, name, value):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    Select(driver.find_element(By.CSS_SELECTOR, f"select[name={name}]")).select_by_value(str(value))


def shown(driver, testid):
    from selenium.webdriver.common.by import By

    return driver.find_element(By.CSS_SELECTOR, f"[data-testid={testid}]").text


def test_outcome_switch_shows_the_neonatal_rates(page, report_folder):
    import pandas as pd

    from brecha.report.formatting import fmt

    infant = pd.read_csv(report_folder / "tables" / "rates_national.csv").set_index("year")["estimate"]
    neonatal = pd.read_csv(report_folder / "tables" / "rates_national_neonatal.csv").set_index("year")["estimate"]
    choose(page, "year", 2009)
    assert shown(page, "national-rate") == fmt(infant[2009], 1, "en")
    choose(page, "outcome", "neonatal")
    assert shown(page, "national-rate") == fmt(neonatal[2009], 1, "en")
    assert neonatal[2009] < infant[2009]
    disabled = page.execute_script(
        "return Array.from(document.querySelectorAll('select[name=measure] option')).filter(o => o.disabled)"
        ".map(o => o.value);")
    assert disabled == ["smoothed"]  # the report smooths the first outcome only: said, not faked
    choose(page, "outcome", "infant")


def test_region_filter_search_and_sort(page):
    from selenium.webdriver.common.by import By

    choose(page, "region", "12")
    codes = page.execute_script(
        "return Array.from(document.querySelectorAll('#units-table tbody tr')).map(r => r.dataset.unit);")
    assert codes and all(c.startswith("12") for c in codes)
    box = page.find_element(By.CSS_SELECTOR, "input[name=search]")
    box.send_keys("natales")  # Puerto Natales, found without its capital or accent
    rows = page.find_elements(By.CSS_SELECTOR, "#units-table tbody tr")
    assert [r.get_attribute("data-unit") for r in rows] == ["12401"]
    rows[0].click()
    assert shown(page, "selected-unit") == "Natales (12401)"
    box.clear()
    box.send_keys(" ")
    box.clear()
    page.execute_script("document.querySelector('input[name=search]').dispatchEvent(new Event('input'));")
    page.find_element(By.CSS_SELECTOR, "#units-table th[data-col=births]").click()
    births = page.execute_script("return brechaDashboard.csv('table');").splitlines()[1:]
    values = [float(line.split(",")[-1]) for line in births if line.split(",")[-1]]
    assert values == sorted(values, reverse=True) and len(values) > 3
    choose(page, "region", "")


def test_compare_and_determinants_views_draw_the_reports_numbers(page, report_folder):
    import pandas as pd

    from selenium.webdriver.common.by import By

    page.find_element(By.CSS_SELECTOR, "nav [data-tab=compare]").click()
    choose(page, "inequality", "sii")
    rows = page.execute_script("return brechaDashboard.csv('inequality');").splitlines()
    table = pd.read_csv(report_folder / "tables" / "inequality_ordered_year.csv")
    sii = table[table["measure"] == "sii"]
    assert len(rows) == 1 + len(sii)
    assert [float(r.split(",")[2]) for r in rows[1:]] == pytest.approx(sii["estimate"].tolist(), rel=1e-12)
    assert page.execute_script("return document.querySelectorAll('#funnel circle').length;") > 10
    page.find_element(By.CSS_SELECTOR, "nav [data-tab=determinants]").click()
    note = page.find_element(By.ID, "scatter-note").text
    assert note.startswith("Least squares line weighted by live births")
    terms = page.execute_script("return Array.from(document.querySelectorAll('#models-table tbody tr'))"
                                ".map(r => r.children[1].textContent);")
    assert "income poverty (%)" in terms
    choose(page, "lang", "pt")
    assert page.find_element(By.CSS_SELECTOR, "nav [data-tab=determinants]").text == "Determinantes"
    assert page.find_element(By.ID, "scatter-note").text.startswith("Reta de mínimos quadrados")
    choose(page, "lang", "en")
    page.find_element(By.CSS_SELECTOR, "nav [data-tab=explore]").click()


def test_png_export_makes_an_image(page):
    """The PNG export draws the SVG on a canvas: the data: URL it would download is a PNG."""
    url = page.execute_async_script("""
        const done = arguments[arguments.length - 1];
        const original = HTMLAnchorElement.prototype.click;
        HTMLAnchorElement.prototype.click = function () { HTMLAnchorElement.prototype.click = original; done(this.href); };
        document.querySelector('[data-view=series][data-export=png]').click();""")
    assert url.startswith("data:image/png;base64,") and len(url) > 2000


def test_without_polygons_the_map_draws_symbols_at_the_seats(study_file, tmp_path, monkeypatch,
                                                             offline_chromium):
    """A country with unit seats (lat, lon) and no polygons (Argentina): one circle per unit with a seat,
    clickable; without seats, the report's tile grid (Brazil); without provinces either, the table only."""
    from brecha.registry import Registry
    from brecha.report.build import build_report
    from brecha.report.dashboard import render_dashboard
    from brecha.study import read_study

    monkeypatch.setattr(Registry, "polygons", lambda self: None)
    report = build_report(read_study(study_file), None, lang="en", write=False)
    with_seats = tmp_path / "seats.html"
    with_seats.write_text(render_dashboard(report), encoding="utf-8")
    n_seats = int(report.panel.units[["lat", "lon"]].notna().all(axis=1).sum())
    report.panel.units.loc[:, ["lat", "lon"]] = float("nan")
    n_provinces = report.panel.units["province"].nunique()  # 8: four in Aysén, four in Magallanes
    grid = tmp_path / "tiles.html"
    grid.write_text(render_dashboard(report), encoding="utf-8")
    report.panel.units.loc[:, "province"] = ""
    no_seats = tmp_path / "none.html"
    no_seats.write_text(render_dashboard(report), encoding="utf-8")

    driver = offline_chromium()
    try:
        driver.get(with_seats.resolve().as_uri())
        assert n_seats > 10
        assert driver.execute_script("return document.querySelectorAll('#map circle[fill]').length;") == n_seats
        driver.execute_script("document.querySelector('#map circle[data-unit=\"12101\"]')"
                              ".dispatchEvent(new MouseEvent('click', {bubbles: true}));")
        assert shown(driver, "selected-unit") == "Punta Arenas (12101)"
        assert "Symbols at each unit's seat" in driver.execute_script(
            "return document.getElementById('map-caption').textContent;")
        driver.get(grid.resolve().as_uri())  # no seats either: the report's schematic tile grid
        assert driver.execute_script("return document.querySelectorAll('#map path[fill]').length;") == \
            len(report.panel.unit_codes)
        assert driver.execute_script("return document.querySelectorAll('#map text.tile').length;") == n_provinces
        assert "Schematic grid" in driver.execute_script("return document.getElementById('map-caption').textContent;")
        driver.get(no_seats.resolve().as_uri())
        assert driver.execute_script("return document.getElementById('map-box').hidden;") is True
        assert "table only" in driver.execute_script("return document.getElementById('map-note').textContent;")
        assert [e for e in driver.get_log("browser") if e.get("level") in ("SEVERE", "ERROR")] == []
    finally:
        driver.quit()


def test_keyboard_selects_a_row(page):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    row = page.find_elements(By.CSS_SELECTOR, "#units-table tbody tr")[2]
    code = row.get_attribute("data-unit")
    row.send_keys(Keys.ENTER)
    assert shown(page, "selected-unit").endswith(f"({code})")
