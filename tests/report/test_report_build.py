"""The report on real data: files written, numbers checked against independent computations, HTML
self-contained and escaped, Excel holding every table, graceful degradation when a module is missing."""
import re
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from brecha import datasets
from brecha.errors import InputError
from brecha.report.build import build_report, extreme_fifths, log_linear_apc
from brecha.study import read_study


def test_files_are_written(small_report):
    report, out = small_report
    assert (out / "index.html").stat().st_size > 10_000
    assert (out / "brecha.xlsx").exists()
    csvs = {p.stem for p in (out / "tables").glob("*.csv")}
    assert set(report.tables) == csvs
    figs = {p.name for p in (out / "figures").iterdir()}
    assert {f.filename for f in report.figures} == figs
    assert {"national_rate.svg", "map_rate.svg", "map_smoothed.svg", "map_trend.svg", "funnel.svg"} <= figs


def test_national_rate_matches_a_direct_count(small_report):
    """Headline IMR of the last year = 1000 ΣD/ΣLB over the region's communes (plain pandas on the panel)."""
    report, _ = small_report
    d = datasets.chile().data
    units = datasets.chile().units
    aysen = units.loc[units["region"] == "11", "unit"]
    d = d[d["unit"].isin(aysen) & d["year"].between(2006, 2012)]
    by_year = d.groupby("year")[["deaths", "births"]].sum().astype(float)
    expected = by_year["deaths"] / by_year["births"] * 1000
    national = report.table("rates_national").set_index("year")["estimate"]
    np.testing.assert_allclose(national.to_numpy(), expected.to_numpy(), rtol=1e-12)
    assert report.headline["national"]["value"] == f"{expected.loc[2012]:.1f}".replace(".", ",")
    assert report.headline["national"]["year"] == 2012


def test_headline_gap_matches_an_independent_grouping(small_report):
    """Recompute the fifths of births by smoothed rate with a plain loop and compare the gap series."""
    report, out = small_report
    smoothed = pd.read_csv(out / "tables" / "smoothed.csv", dtype={"unit": str})
    pooled = pd.read_csv(out / "tables" / "rates_units_pooled.csv", dtype={"unit": str})
    col = [c for c in ("smoothed", "smoothed_rate", "eb_rate", "estimate") if c in smoothed.columns][0]
    frame = pooled[["unit", "births"]].merge(smoothed[["unit", col]], on="unit")
    frame = frame[frame["births"] > 0].sort_values(col, kind="stable")
    total = frame["births"].sum()
    groups, before = {}, 0.0
    for unit, births in zip(frame["unit"], frame["births"]):
        after = total - before - births
        groups[unit] = "low" if before / total < 0.2 else ("high" if after / total < 0.2 else "middle")
        before += births
    per_year = pd.read_csv(out / "tables" / "rates_units_year.csv", dtype={"unit": str})
    per_year["group"] = per_year["unit"].map(groups)
    sums = per_year[per_year["group"].isin(["high", "low"])].groupby(["period", "group"])[["events", "births"]].sum()
    rate = (sums["events"] / sums["births"] * 1000).unstack()
    gap = report.table("gap_fifths").set_index("year")
    np.testing.assert_allclose(gap["ratio"].to_numpy(), (rate["high"] / rate["low"]).to_numpy(), rtol=1e-12)
    assert report.headline["trend"]["direction"] in ("closing", "widening", "flat")
    assert len(report.headline["worst"]) == 5 and len(report.headline["best"]) == 5


def test_log_linear_apc_against_scipy():
    from scipy import stats

    years = np.arange(2005, 2015, dtype=float)
    values = np.array([9.1, 8.8, 8.6, 8.9, 8.2, 7.9, 7.8, 7.6, 7.4, 7.2])
    fit = stats.linregress(years, np.log(values))
    t = stats.t.ppf(0.975, len(years) - 2)
    apc, lo, hi = log_linear_apc(years, values)
    assert apc == pytest.approx(np.expm1(fit.slope) * 100, rel=1e-10)
    assert lo == pytest.approx(np.expm1(fit.slope - t * fit.stderr) * 100, rel=1e-10)
    assert hi == pytest.approx(np.expm1(fit.slope + t * fit.stderr) * 100, rel=1e-10)


def test_extreme_fifths_by_births():
    births = pd.Series([100, 100, 100, 100, 100, 500], index=list("abcdef"))
    score = pd.Series([1, 2, 3, 4, 5, 6], index=list("abcdef"))
    # total 1000: a starts at 0 % and b at 10 % (low); e ends at 50 % (f starts at 50 %, after it 0 %)
    assert extreme_fifths(births, score).to_dict() == {"a": "low", "b": "low", "c": "middle", "d": "middle",
                                                        "e": "middle", "f": "high"}


def test_html_is_self_contained(small_report):
    _, out = small_report
    text = (out / "index.html").read_text(encoding="utf-8")
    assert not re.search(r'(src|href)\s*=\s*"(https?:)?//', text)
    assert "@import" not in text and "<script" not in text.lower()
    for src in re.findall(r'<img[^>]+src="([^"]+)"', text):
        assert src.startswith("data:image/")
    assert 'charset="utf-8"' in text


def test_text_from_the_study_is_escaped(small_report):
    _, out = small_report
    text = (out / "index.html").read_text(encoding="utf-8")
    assert "Aysén &lt;test&gt; &amp; co" in text
    assert "<test>" not in text


def test_workbook_has_every_table(small_report):
    report, out = small_report
    book = pd.read_excel(out / "brecha.xlsx", sheet_name=None, dtype={"unit": str})
    assert set(report.tables) <= set(book)
    back = book["rates_national"]
    np.testing.assert_allclose(back["estimate"], report.table("rates_national")["estimate"], rtol=1e-12)
    contents = book["contents"]
    assert "Aysén <test> & co" in contents.columns[0] or "Aysén <test> & co" in contents.iloc[:, 0].astype(str).tolist()


def test_caveat_travels_with_the_report(small_report):
    report, out = small_report
    text = (out / "index.html").read_text(encoding="utf-8")
    assert any("15 a 49" in n for n in report.notes)
    assert "15 a 49" in text


def test_focus_units_and_reference(small_report):
    report, _ = small_report
    focus = report.table("disparity_focus")
    assert set(focus["unit"]) == {"11101", "11201"}
    total = report.table("disparity_total_pooled")
    par = total.loc[total["measure"] == "par_percent", "estimate"].iloc[0]
    rate = total["rate"].dropna().iloc[0] if "rate" in total else None
    ref = total["reference_rate"].dropna().iloc[0]
    if rate is not None:
        assert par == pytest.approx((rate - ref) / rate * 100, rel=1e-9)  # PAR% = (IMR_T - IMR_r)/IMR_T x 100


def test_missing_module_degrades_to_a_note(tmp_path, tiny_study_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "brecha.trends", None)
    report = build_report(read_study(tiny_study_path), tmp_path, lang="en")
    trends = next(s for s in report.sections if s.key == "trends")
    assert [b.kind for b in trends.blocks] == ["unavailable"]
    assert "brecha.trends" in trends.blocks[0].text
    assert any("brecha.trends" in e for e in report.excluded)
    html = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert "Not available: the module brecha.trends is not present" in html


def test_panel_file_study_escapes_names_and_has_no_map(tmp_path):
    rows = []
    names = {"A1": "<script>alert(1)</script>", "A2": "O'Higgins & \"Sons\"", "A3": "Plain", "A4": "Four",
             "A5": "Five"}
    rng = np.random.default_rng(1)
    for i, (unit, name) in enumerate(names.items()):
        for year in range(2010, 2016):
            births = 2000 + 300 * i
            rows.append({"unit": unit, "name": name, "year": year, "births": births,
                         "deaths": int(rng.poisson(births * (0.006 + 0.001 * i)))})
    pd.DataFrame(rows).to_csv(tmp_path / "panel.csv", index=False)
    (tmp_path / "s.toml").write_text('title = "Synthetic"\nlanguage = "en"\n[data]\npanel = "panel.csv"\n'
                                     "[analyses.rates]\n[analyses.trends]\n[analyses.disparity]\n[analyses.maps]\n",
                                     encoding="utf-8")
    # a covariate the panel file lacks and brecha cannot build for its (unknown) country stops the study before
    # any work (issue 11: every problem of a study listed before any work), naming the field
    bad = tmp_path / "bad.toml"
    bad.write_text((tmp_path / "s.toml").read_text(encoding="utf-8")
                   + '[analyses.covariate_inequality]\ncovariate = "spending"\n', encoding="utf-8")
    with pytest.raises(InputError, match="analyses.covariate_inequality.covariate"):
        read_study(bad)
    report = build_report(read_study(tmp_path / "s.toml"), tmp_path / "out")
    html = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "O&#x27;Higgins &amp; &quot;Sons&quot;" in html
    maps = next(s for s in report.sections if s.key == "maps")
    assert maps.blocks[0].kind == "unavailable"


def test_deis_microdata_study_matches_the_generator_truth(tmp_path):
    """A study on DEIS-format microdata (synthetic files with known true counts): the report's national
    rates equal ΣD/ΣLB of the generator's truth, and the record ledger is in the report."""
    from brecha.ingest.synthetic import generate

    files = generate(tmp_path / "deis", deaths_rows=6000, births_rows=30000, seed=3, years=(2010, 2013))
    (tmp_path / "s.toml").write_text(
        'title = "DEIS"\nlanguage = "en"\ncountry = "CL"\nperiod = "2010-2013"\n'
        '[data]\ndeis = { deaths = ["deis/deaths.csv"], births = ["deis/births.csv"] }\n'
        "[analyses.rates]\n", encoding="utf-8")
    (tmp_path / "deis").mkdir(exist_ok=True)
    report = build_report(read_study(tmp_path / "s.toml"), tmp_path / "out")
    truth = files.expected_panel(years=range(2010, 2014)).groupby("year")[["deaths", "births"]].sum()
    national = report.table("rates_national").set_index("year")
    np.testing.assert_array_equal(national["events"].astype(int), truth["deaths"])
    np.testing.assert_array_equal(national["births"].astype(int), truth["births"])
    assert "ledger" in report.tables and len(report.table("ledger")) > 0


def test_units_unknown_to_the_data_name_the_study_field(tmp_path):
    from brecha.errors import InputError

    path = tmp_path / "s.toml"
    path.write_text('[data]\nexample = "chile"\n[units]\ncodes = ["13101", "99999"]\n', encoding="utf-8")
    with pytest.raises(InputError) as err:
        build_report(read_study(path), tmp_path / "out", write=False)
    assert "'units.codes'" in str(err.value) and str(path) in str(err.value) and "99999" in str(err.value)


def test_brazil_study_without_polygons(tmp_path):
    """Brazil (IBGE codes, macro-region 1 = Norte): the report runs; with no polygons or seats shipped, the
    maps are a tile grid (one square per municipality, by state) and the caption says so (issue 18)."""
    path = tmp_path / "br.toml"
    path.write_text('title = "Norte"\nlanguage = "en"\nperiod = "2015-2019"\n[data]\nexample = "brazil"\n'
                    '[units]\nregion = "1"\n[reference]\nrule = "best"\nmin_births = 20000\n'
                    "[analyses.rates]\n[analyses.smoothing]\n[analyses.disparity]\n[analyses.maps]\n",
                    encoding="utf-8")
    (tmp_path / "out" / "tables").mkdir(parents=True)
    (tmp_path / "out" / "tables" / "stale.csv").write_text("x\n1\n")  # an earlier report's (its manifest says so)
    (tmp_path / "out" / "tables" / "mine.csv").write_text("x\n1\n")  # the user's own: never removed
    (tmp_path / "out" / ".brecha-manifest.json").write_text('{"files": ["tables/stale.csv"]}')
    report = build_report(read_study(path), tmp_path / "out")
    d = datasets.brazil().data
    units = datasets.brazil().units
    d = d[d["unit"].isin(units.loc[units["region"].astype(str) == "1", "unit"]) & (d["year"] == 2019)]
    d = d.dropna(subset=["births", "deaths"])
    expected = d["deaths"].astype(float).sum() / d["births"].astype(float).sum() * 1000
    assert report.headline["national"]["value"] == f"{expected:.1f}"
    maps = next(s for s in report.sections if s.key == "maps")
    assert not any(b.kind == "unavailable" for b in maps.blocks)
    figures = {f.name: f for f in report.figures}
    assert "map_rate" in figures and "schematic grid" in figures["map_rate"].caption
    assert not (tmp_path / "out" / "tables" / "stale.csv").exists()
    assert (tmp_path / "out" / "tables" / "mine.csv").read_text() == "x\n1\n"
    # the registration caveat comes first (the first screen shows the first three caveats)
    assert report.notes[0].startswith("Direct SIM/SINASC rates: under-registration of deaths")


def test_outcome_missing_from_the_data_names_the_field(tmp_path):
    from brecha.errors import InputError

    path = tmp_path / "s.toml"
    path.write_text('outcomes = ["neonatal"]\n[data]\nexample = "chile"\n', encoding="utf-8")
    with pytest.raises(InputError) as err:
        build_report(read_study(path), tmp_path / "out", write=False)
    assert "'outcomes'" in str(err.value) and str(path) in str(err.value) and "infant" in str(err.value)


def test_joinpoint_trends_classify_each_unit_once(tmp_path, tiny_study_path):
    text = tiny_study_path.read_text(encoding="utf-8").replace("[analyses.trends]",
                                                                '[analyses.trends]\nmethod = "joinpoint"')
    path = tmp_path / "jp.toml"
    path.write_text(text, encoding="utf-8")
    report = build_report(read_study(path), tmp_path / "out", write=False)
    classes = report.table("trend_classes")
    assert classes["n"].sum() == 10  # the ten communes of Aysén, each counted once (its AAPC row)


def test_panel_file_made_by_ingest_deis_brings_its_ledger(tmp_path):
    """`brecha ingest deis -o panel.parquet` saves the ledger beside the panel; a study on that panel file
    shows it, with the same totals (rows read = counted + excluded, per file)."""
    from brecha.cli.main import main
    from brecha.ingest.synthetic import generate

    generate(tmp_path / "deis", deaths_rows=3000, births_rows=12000, seed=5, years=(2010, 2013))
    panel_file = tmp_path / "panel.parquet"
    assert main(["ingest", "deis", "--deaths", str(tmp_path / "deis" / "deaths.csv"),
                 "--births", str(tmp_path / "deis" / "births.csv"), "-o", str(panel_file), "--quiet"]) == 0
    (tmp_path / "s.toml").write_text('language = "en"\nperiod = "2010-2013"\n[data]\npanel = "panel.parquet"\n'
                                     "[analyses.rates]\n", encoding="utf-8")
    report = build_report(read_study(tmp_path / "s.toml"), tmp_path / "out", write=False)
    ledger = report.table("ledger")
    saved = pd.read_csv(tmp_path / "panel.ledger.csv")
    assert len(ledger) == len(saved) > 0
    # every generated row is in the ledger: counted or excluded, per file
    saved["file"] = saved["file"].map(lambda f: Path(f).name)
    rows = saved.groupby("file")["rows"].sum()
    assert rows["deaths.csv"] == 3000 and rows["births.csv"] == 12000
    counted = saved[(saved["file"] == "births.csv") & (saved["status"] == "counted")]["rows"].sum()
    assert counted == pd.read_parquet(panel_file)["births"].sum()
