"""The report's plumbing of the sibling modules, checked against independent computations: trend classes
in the trends module's words (with its ``sparse`` units apart), the headline gap's CI, the worst units'
intervals, the study's filling rule reaching the covariates and the models, national totals over the
units that have data, and ordered inequality by the yearly covariate."""
import math

import numpy as np
import pandas as pd
import pytest

from brecha.report.build import build_report
from brecha.study import read_study

Z975 = 1.959963984540054  # standard normal 97.5 % quantile


def test_trend_classes_count_sparse_units_apart(default_report):
    report, _ = default_report
    units = report.table("trends_units")
    classes = report.table("trend_classes").set_index("code")["n"]
    sparse = units["sparse"].astype(bool) & units["trend"].isna()
    assert classes["sparse"] == int(sparse.sum()) > 0
    assert classes["no_trend"] == int((units["trend"].isna() & ~sparse).sum())
    for code in ("increasing", "decreasing", "stationary"):
        assert classes[code] == int((units["trend"] == code).sum())
    assert classes.sum() == len(report.panel.unit_codes)


def test_trend_words_come_from_the_trends_module(tmp_path, tiny_study_path):
    from brecha.trends import trend_labels

    report = build_report(read_study(tiny_study_path), tmp_path, lang="es", write=False)
    words = report.table("trend_classes")["trend"].tolist()
    allowed = set(trend_labels("es").values()) | {"sin clasificar (demasiados años sin muertes)", "sin estimación"}
    assert set(words) <= allowed
    assert {"creciente", "decreciente", "estacionaria"} == set(trend_labels("es").values())


def test_headline_gap_has_a_poisson_ci(default_report):
    """Ratio of the extreme fifths over the period, with exp(ln RR ± z sqrt(1/D1 + 1/D0)), from the saved
    group membership and the yearly counts (plain pandas)."""
    report, _ = default_report
    groups = report.table("gap_groups").set_index("unit")["group"]
    per_year = report.table("rates_units_year")
    per_year = per_year.assign(group=per_year["unit"].map(groups))
    tot = per_year[per_year["group"].isin(["high", "low"])].groupby("group")[["events", "births"]].sum()
    tot = tot.astype(float)
    rr = (tot.loc["high", "events"] / tot.loc["high", "births"]) / (tot.loc["low", "events"] / tot.loc["low", "births"])
    se = math.sqrt(1 / tot.loc["high", "events"] + 1 / tot.loc["low", "events"])
    gap = report.headline["gap"]
    assert gap["ratio"] == pytest.approx(rr, rel=1e-12)
    assert gap["ratio_lower"] == pytest.approx(rr * math.exp(-Z975 * se), rel=1e-9)
    assert gap["ratio_upper"] == pytest.approx(rr * math.exp(Z975 * se), rel=1e-9)
    assert f"{gap['ratio_lower']:.2f}" in gap["detail"] and f"{gap['ratio_upper']:.2f}" in gap["detail"]


def test_worst_units_carry_the_smoothing_interval(default_report):
    report, _ = default_report
    smoothed = report.table("smoothed").set_index("unit")
    for row in report.headline["worst"] + report.headline["best"]:
        s = smoothed.loc[row["unit"]]
        assert row["smoothed"] == f"{s['estimate']:.1f}"
        assert row["interval"] == f"{s['lower']:.1f}–{s['upper']:.1f}"
    assert "95 %" in report.headline["rank_note"]


FILL_STUDY = '''
title = "fill"
language = "en"
period = "2006-2012"
[data]
example = "chile"
[units]
region = "11"
[covariates]
names = ["poverty"]
fill = "{fill}"
[analyses.rates]
[analyses.models]
models = ["pooled"]
'''


@pytest.mark.parametrize("fill", ["none", "interpolate"])
def test_the_study_fill_rule_reaches_covariates_and_models(tmp_path, fill):
    from brecha import covariates

    path = tmp_path / "s.toml"
    path.write_text(FILL_STUDY.replace("{fill}", fill), encoding="utf-8")
    report = build_report(read_study(path), tmp_path / "out", write=False)
    expected = covariates.chile_covariates(["poverty"], range(2006, 2013), fill=fill)
    got = report.panel.data[["unit", "year", "poverty"]].merge(expected[["unit", "year", "poverty"]],
                                                               on=["unit", "year"], suffixes=("", "_ref"))
    assert len(got) == len(report.panel.data)
    np.testing.assert_array_equal(got["poverty"].isna(), got["poverty_ref"].isna())
    np.testing.assert_allclose(got["poverty"].dropna(), got["poverty_ref"].dropna(), rtol=1e-12)
    observed_2007 = report.panel.data.loc[report.panel.data["year"] == 2007, "poverty"].notna().sum()
    assert (observed_2007 == 0) if fill == "none" else (observed_2007 > 0)
    # the models used the same rows: unit-years without poverty are excluded only under fill = "none"
    nobs = report.table("model_coefficients")
    assert "poverty" in set(nobs["term"])
    rule = "filling: none (observed years only)" if fill == "none" else "filling: interpolate (linear"
    assert any("poverty" in n and rule in n for n in report.notes), report.notes


def test_national_totals_sum_the_units_that_have_data(tmp_path):
    rows = []
    for unit, births, deaths in (("A1", 1000, 8), ("A2", 2000, 10), ("A3", 500, 6)):
        for year in (2010, 2011, 2012):
            rows.append({"unit": unit, "year": year, "births": births + year - 2010, "deaths": deaths})
    table = pd.DataFrame(rows)
    table.loc[(table["unit"] == "A3") & (table["year"] == 2011), "births"] = np.nan
    table.to_csv(tmp_path / "panel.csv", index=False)
    (tmp_path / "s.toml").write_text('language = "en"\n[data]\npanel = "panel.csv"\n[analyses.rates]\n',
                                     encoding="utf-8")
    report = build_report(read_study(tmp_path / "s.toml"), tmp_path / "out", write=False)
    national = report.table("rates_national").set_index("year")
    ok = table.dropna(subset=["births"])
    expected = ok.groupby("year")["deaths"].sum() / ok.groupby("year")["births"].sum() * 1000
    np.testing.assert_allclose(national["estimate"].to_numpy(), expected.to_numpy(), rtol=1e-12)
    assert national.loc[2011, "births"] == 1001 + 2001
    assert any("1" in n and "units_missing" in n for n in report.notes), report.notes


def test_ordered_inequality_ranks_each_year_by_that_years_covariate(default_report):
    """Difference between the poorest and least poor fifths of births in 2010, the units ranked by their
    2010 poverty (each unit's group by the births-midpoint of its cumulative share), by hand."""
    report, _ = default_report
    ordered = report.table("inequality_ordered_year")
    assert sorted(ordered["year"].dropna().astype(int).unique()) == list(range(2006, 2016))  # poverty from 2006
    d = report.panel.data
    d = d[(d["year"] == 2010) & (d["births"] > 0)].dropna(subset=["poverty"]).sort_values("poverty", kind="stable")
    w = d["births"].astype(float)
    mid = (w.cumsum() - w / 2) / w.sum()
    group = np.minimum((mid * 5).astype(int), 4)
    sums = d.assign(group=group).groupby("group")[["deaths", "births"]].sum().astype(float)
    rate = sums["deaths"] / sums["births"] * 1000
    got = ordered[(ordered["year"] == 2010) & (ordered["measure"] == "d")]["estimate"].iloc[0]
    assert got == pytest.approx(rate[4] - rate[0], rel=1e-9)
    note = next(b.text for s in report.sections if s.key == "inequality" for b in s.blocks
                if b.kind == "text" and "2000-2005" in b.text)
    assert "poverty" in note


def test_deis_neonatal_study_names_its_outcome_and_warns_about_chance(tmp_path):
    """DEIS-format microdata (synthetic, known truth), outcome neonatal: the headline counts neonatal deaths,
    the labels say NMR not IMR (but in the second outcome's own section), and with small counts the
    gap card warns that the spread is mostly chance (births-weighted shrinkage > 50 %)."""
    from brecha.ingest.synthetic import generate

    files = generate(tmp_path / "deis", deaths_rows=3000, births_rows=20000, seed=5, years=(2011, 2013))
    (tmp_path / "s.toml").write_text(
        'title = "DEIS <neonatal>"\nlanguage = "en"\ncountry = "CL"\nperiod = "2011-2013"\n'
        'outcomes = ["nmr", "infant"]\n'
        '[data]\ndeis = { deaths = ["deis/deaths.csv"], births = ["deis/births.csv"] }\n'
        "[analyses.rates]\n[analyses.smoothing]\n", encoding="utf-8")
    report = build_report(read_study(tmp_path / "s.toml"), tmp_path / "out")
    truth = files.expected_panel(years=range(2011, 2014))
    national = report.table("rates_national").set_index("year")
    by_year = truth.groupby("year")[["deaths_neonatal", "births"]].sum()
    np.testing.assert_array_equal(national["events"].astype(int), by_year["deaths_neonatal"])
    assert f"{int(truth['deaths_neonatal'].sum()):,} neonatal deaths" in report.headline["scope"]
    assert report.headline["national"]["title"].startswith("Neonatal mortality rate")
    assert [o["outcome"] for o in report.headline["others"]] == ["infant"]
    html = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
    # the methods keep the IMR formulas, with a note; the infant outcome has its own section
    body = html[: html.index('<section id="outcome_infant"')]
    assert "DEIS &lt;neonatal&gt;" in html and "IMR" not in body.replace("#outcome_infant", "") and ">NMR<" in body
    infant = html[html.index('<section id="outcome_infant"'):html.index('<section id="data"')]
    assert "IMR" in infant and "NMR" not in infant
    assert "where the formulas say IMR and D, read the neonatal rate" in html
    smoothed = report.table("smoothed")
    share = (smoothed["shrinkage"] * smoothed["births"]).sum() / smoothed["births"].sum()
    assert report.headline["gap"]["shrinkage"] == pytest.approx(share, rel=1e-12)
    assert share > 0.5 and "Caution: smoothing attributes" in report.headline["gap"]["text"]


def test_fill_rule_reaches_covariates_the_analyses_name(tmp_path):
    """fill = "none" and poverty named only by rank_by: the ordered measures exist only in the years poverty
    was observed (2006, 2009, 2011 of 2006-2012), not in the embedded panel's interpolated years."""
    path = tmp_path / "s.toml"
    path.write_text('language = "en"\nperiod = "2006-2012"\n[data]\nexample = "chile"\n[units]\nregion = "13"\n'
                    '[covariates]\nfill = "none"\n[analyses.rates]\n[analyses.inequality]\nrank_by = "poverty"\n',
                    encoding="utf-8")
    report = build_report(read_study(path), tmp_path / "out", write=False)
    ordered = report.table("inequality_ordered_year")
    assert sorted(ordered["year"].dropna().astype(int).unique()) == [2006, 2009, 2011]
