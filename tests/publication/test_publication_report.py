"""A study's [publication] table: checked with the study, applied to every table of the report (CSV, Excel)
and to its maps, the same cells hidden everywhere."""
from __future__ import annotations

import warnings

import pandas as pd
import pytest

import brecha
from brecha.cli.main import main
from brecha.errors import InputError
from brecha.i18n import get_language, set_language
from brecha.study import parse_study

STUDY = """
title = "Aysén, 2013-2015"
period = "2013-2015"
[data]
panel = "{panel}"
[analyses.smoothing]
[analyses.maps]
[analyses.distribution]
[analyses.inequality]
measures = "d,r,cov"
[publication]
suppress = 5
round = 5
"""


@pytest.fixture(autouse=True)
def keep_language():
    before = get_language()
    yield
    set_language(before)


def test_publication_fields_are_checked_with_the_study():
    with pytest.raises(InputError) as err:
        parse_study({"data": {"example": "chile"}, "publication": {"suppress": 0, "zeros": "hidden", "rond": 5}})
    text = str(err.value)
    assert "publication.suppress" in text and "publication.zeros" in text and "publication.rond" in text
    study = parse_study({"data": {"example": "chile"}, "publication": {"suppress": 10, "zeros": "hide"}})
    assert study.publication == {"suppress": 10, "zeros": "hide"}


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    folder = tmp_path_factory.mktemp("rep")
    panel = folder / "aysen.csv"
    brecha.read_panel("example:chile").subset(region=["11", "12"], years=[2013, 2014, 2015]).to_file(panel)
    study = folder / "study.toml"
    study.write_text(STUDY.format(panel=panel.as_posix()), encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(["--lang", "en", "report", str(study), "-o", str(folder / "out")]) == 0
    return folder / "out", brecha.read_panel(str(panel))


def read(folder, name):
    return pd.read_csv(folder / "tables" / f"{name}.csv", dtype={"unit": str, "period": str, "flag": str})


def test_every_table_hides_the_same_cells(report):
    out, panel = report
    truth = panel.events(years=[2013, 2014, 2015])
    year = read(out, "rates_units_year")
    hidden = year["flag"].fillna("").str.contains("suppressed")
    small = truth["events"].between(1, 5).to_numpy()
    assert hidden[small].all() and year.loc[hidden, ["events", "estimate"]].isna().all().all()
    # a unit hidden in any year is hidden in the pooled tables: its pooled count minus its years would tell
    pooled_hidden = set(year.loc[hidden, "unit"])
    for name, columns in (("rates_units_pooled", ["events", "estimate"]), ("smoothed", ["events", "estimate"])):
        t = read(out, name)
        gone = t["flag"].fillna("").str.contains("suppressed")
        assert set(t.loc[gone, "unit"]) == pooled_hidden, name
        assert t.loc[gone, columns].isna().all().all(), name
    # rounding: published counts in multiples of 5, rates on the exact counts
    shown = year[~hidden & year["events"].notna()]
    assert (shown["events"] % 5 == 0).all()
    exact = truth.set_index(["unit", "period"]).loc[list(zip(shown["unit"], shown["period"]))]
    ok = exact["births"].to_numpy(dtype=float) > 0
    expected = 1000 * exact["events"].to_numpy(dtype=float)[ok] / exact["births"].to_numpy(dtype=float)[ok]
    assert shown["estimate"].to_numpy(dtype=float)[ok] == pytest.approx(expected)
    book = pd.read_excel(out / "brecha.xlsx", sheet_name=None)
    sheet = next(v for k, v in book.items() if k.startswith("rates_units_year"))
    assert sheet["flag"].fillna("").str.contains("suppressed").sum() == hidden.sum()


def test_maps_grey_out_hidden_units_with_a_legend_entry(report, monkeypatch):
    out, panel = report
    import xml.etree.ElementTree as ET

    from brecha.report.labels_publication import HIDDEN

    for name in ("map_rate", "map_smoothed"):
        root = ET.fromstring((out / "figures" / f"{name}.svg").read_bytes())
        fills = [p.get("fill") for p in root.iter("{http://www.w3.org/2000/svg}path")]
        swatches = [r.get("fill") for r in root.iter("{http://www.w3.org/2000/svg}rect")]
        assert fills.count(HIDDEN) >= 1 and HIDDEN in swatches, name  # hidden communes grey, and in the legend
    html = (out / "index.html").read_text(encoding="utf-8")
    assert "Protected publication: counts of 1 to 5 deaths are hidden" in html


def test_the_maps_legend_names_the_hidden_units(monkeypatch):
    """The colours and legend the maps section hands to the map canvas: hidden units grey, one legend entry."""
    from brecha.report.labels_publication import HIDDEN
    from brecha.report.polygon_map import PolygonMap
    from brecha.study import parse_study
    from brecha.report.build import build_report

    seen = []
    real = PolygonMap.render

    def spy(self, name, colours, legend, **kw):
        seen.append((name, colours, legend))
        return real(self, name, colours, legend, **kw)

    monkeypatch.setattr(PolygonMap, "render", spy)
    study = parse_study({"period": "2014-2015", "data": {"example": "chile"}, "units": {"region": "11"},
                         "analyses": {"smoothing": {}, "maps": {}}, "publication": {"suppress": 5}})
    import tempfile

    with tempfile.TemporaryDirectory() as folder, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        build_report(study, folder, lang="en")
    maps = {name: (colours, legend) for name, colours, legend in seen}
    colours, legend = maps["map_rate"]
    grey = {u for u, c in colours.items() if c == HIDDEN}
    truth = brecha.read_panel("example:chile").subset(region=["11"], years=[2014, 2015]).events()
    small = set(truth.loc[truth["events"].between(1, 5), "unit"])
    assert small and small <= grey
    assert (HIDDEN, "hidden (small count)") in legend


def test_distribution_and_inequality_hide_what_rests_on_a_hidden_unit(report):
    """Per year: a percentile of the unit rates is hidden when a unit it is interpolated from is hidden
    (checked here against the rates table and pandas' rule, (n - 1) p); D, R, PAF between units hidden."""
    out, panel = report
    year = read(out, "rates_units_year")
    dist = read(out, "distribution")
    truth = panel.events(years=[2013, 2014, 2015])
    truth = truth[truth["births"] > 0].assign(rate=lambda t: 1000 * t["events"] / t["births"])
    hidden = set(zip(year.loc[year["flag"].fillna("").str.contains("suppressed"), "unit"],
                     year.loc[year["flag"].fillna("").str.contains("suppressed"), "period"]))
    checked = 0
    for _, row in dist.iterrows():
        one = truth[truth["year"] == row["year"]].sort_values("rate")
        for col, p in (("min", 0), ("max", 1), ("50%", 0.5), ("95%", 0.95)):
            h = (len(one) - 1) * p
            rests = one.iloc[[int(h), int(-(-h // 1))]]
            ties = one[one["rate"].isin(rests["rate"])]
            on_hidden = any((u, str(int(row["year"]))) in hidden for u in ties["unit"])
            assert pd.isna(row[col]) == on_hidden, (row["year"], col)
            if not on_hidden:
                assert row[col] == pytest.approx(one["rate"].quantile(p))
            checked += 1
    assert checked == 12
    assert dist[["mean", "std"]].isna().all().all()  # every year has hidden units here
    ineq = read(out, "inequality_year")
    gone = ineq["measure"].isin(["d", "r"])
    assert gone.sum() == 6 and ineq.loc[gone, ["estimate", "lower", "upper"]].isna().all().all()
    assert ineq.loc[~gone, "estimate"].notna().all() and (ineq.loc[gone, "flag"] == "suppressed_secondary").all()


def test_the_distribution_chart_draws_only_published_rates(monkeypatch):
    from brecha.report import figures
    from brecha.report.build import build_report

    drawn = []
    real = figures.distribution_chart

    def spy(name, points, **kw):
        drawn.append(points)
        return real(name, points, **kw)

    monkeypatch.setattr(figures, "distribution_chart", spy)
    study = parse_study({"period": "2014-2015", "data": {"example": "chile"}, "units": {"region": "11"},
                         "analyses": {"distribution": {}}, "publication": {"suppress": 5}})
    import tempfile

    with tempfile.TemporaryDirectory() as folder, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        build_report(study, folder, lang="en")
    truth = brecha.read_panel("example:chile").subset(region=["11"], years=[2014, 2015]).events()
    shown = truth[truth["births"] > 0]
    assert len(drawn) == 1 and 0 < len(drawn[0]) < len(shown)
    assert not (drawn[0]["estimate"] * 0 + 1).isna().any()
    small = shown[shown["events"].between(1, 5)]
    rates = set(zip(small["year"], (1000 * small["events"] / small["births"]).round(9)))
    assert not rates & set(zip(drawn[0]["year"], drawn[0]["estimate"].round(9)))
