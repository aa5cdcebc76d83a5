"""A study naming several outcomes, on DEIS-format microdata (synthetic files with known true counts): the
report analyses every outcome the data have, each checked against the generator's truth."""
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from brecha.report.build import build_report
from brecha.study import read_study

YEARS = range(2010, 2015)


@pytest.fixture(scope="module")
def outcomes_report(tmp_path_factory):
    from brecha.ingest.synthetic import generate

    folder = tmp_path_factory.mktemp("outcomes")
    files = generate(folder / "deis", deaths_rows=8000, births_rows=40000, seed=7, years=(2010, 2014))
    truth = files.expected_panel(years=YEARS)
    # a grouped reference: the 40 communes with the most births (enough deaths for every outcome)
    reference = truth.groupby("unit")["births"].sum().sort_values(kind="stable").index[-40:].tolist()
    codes = ", ".join(f'"{c}"' for c in reference)
    (folder / "s.toml").write_text(
        'title = "DEIS <outcomes>"\nlanguage = "en"\ncountry = "CL"\nperiod = "2010-2014"\n'
        'outcomes = ["infant", "nmr", "postneonatal"]\n'
        '[data]\ndeis = { deaths = ["deis/deaths.csv"], births = ["deis/births.csv"] }\n'
        f"[reference]\ncodes = [{codes}]\n"
        "[analyses.rates]\n[analyses.disparity]\n[analyses.trends]\n", encoding="utf-8")
    report = build_report(read_study(folder / "s.toml"), folder / "out")
    return report, truth, reference, folder / "out"


@pytest.mark.parametrize("outcome, column", [("neonatal", "deaths_neonatal"),
                                             ("postneonatal", "deaths_postneonatal")])
def test_rates_of_each_further_outcome_match_the_truth(outcomes_report, outcome, column):
    report, truth, _, _ = outcomes_report
    # national series: ΣD_outcome / ΣLB × 1000 per year of the generator's truth
    by_year = truth.groupby("year")[[column, "births"]].sum()
    national = report.table(f"rates_national_{outcome}").set_index("year")
    np.testing.assert_array_equal(national["events"].astype(int), by_year[column])
    np.testing.assert_array_equal(national["births"].astype(int), by_year["births"])
    np.testing.assert_allclose(national["estimate"].astype(float),
                               by_year[column] / by_year["births"] * 1000, rtol=1e-12)
    assert set(national["outcome"]) == {outcome}
    # per-unit table over the period
    by_unit = truth.groupby("unit")[[column, "births"]].sum()
    pooled = report.table(f"rates_units_pooled_{outcome}").set_index("unit")
    pooled = pooled[pooled["births"].astype(float) > 0]
    expected = by_unit.loc[pooled.index]
    np.testing.assert_array_equal(pooled["events"].astype(int), expected[column])
    np.testing.assert_allclose(pooled["estimate"].astype(float), expected[column] / expected["births"] * 1000,
                               rtol=1e-12)


@pytest.mark.parametrize("outcome, column", [("neonatal", "deaths_neonatal"),
                                             ("postneonatal", "deaths_postneonatal")])
def test_disparity_of_each_further_outcome_matches_the_truth(outcomes_report, outcome, column):
    """PAR = rate(all) − rate(reference), PAR% = PAR / rate(all) × 100 (Last 2001), from the truth's counts."""
    report, truth, reference, _ = outcomes_report
    total = report.table(f"disparity_total_pooled_{outcome}").set_index("measure")
    everyone = truth[[column, "births"]].sum()
    ref = truth[truth["unit"].isin(reference)][[column, "births"]].sum()
    overall = everyone[column] / everyone["births"] * 1000
    ref_rate = ref[column] / ref["births"] * 1000
    assert total.loc["par", "estimate"] == pytest.approx(overall - ref_rate, rel=1e-9)
    assert total.loc["par_percent", "estimate"] == pytest.approx((overall - ref_rate) / overall * 100, rel=1e-9)
    # per unit: RR = unit's rate / reference rate
    wide = report.table(f"disparity_units_pooled_{outcome}").set_index("unit")
    unit = truth.groupby("unit")[[column, "births"]].sum()
    unit = unit[(unit[column] > 0) & ~unit.index.isin(reference)].index[0]
    row = truth[truth["unit"] == unit][[column, "births"]].sum()
    assert wide.loc[unit, "rr"] == pytest.approx(row[column] / row["births"] * 1000 / ref_rate, rel=1e-9)


def test_trends_of_a_further_outcome_equal_those_of_a_panel_holding_its_deaths(outcomes_report):
    """The neonatal national trend is the trend of a panel whose (infant) deaths are the truth's neonatal
    deaths: the outcome reaches the trend module, nothing else changes."""
    from brecha.panel import Panel
    from brecha.trends import trends

    report, truth, _, _ = outcomes_report
    by_year = truth.groupby("year")[["deaths_neonatal", "births"]].sum().reset_index()
    data = pd.DataFrame({"unit": "TOTAL", "year": by_year["year"].astype(int),
                         "births": by_year["births"].astype("Int64"),
                         "deaths": by_year["deaths_neonatal"].astype("Int64")})
    expected = trends(Panel(data), outcome="infant")
    got = report.table("trends_national_neonatal")
    for col in ("apc", "apc_lower", "apc_upper"):
        assert float(got[col].iloc[0]) == pytest.approx(float(expected[col].iloc[0]), rel=1e-9)
    assert str(got["trend"].iloc[0]) == str(expected["trend"].iloc[0])
    classes = report.table("trend_classes_neonatal")
    assert classes["n"].sum() == len(report.panel.unit_codes)


def test_first_screen_stays_on_the_first_outcome_and_names_the_others(outcomes_report):
    report, truth, _, out = outcomes_report
    # the headline is about infant mortality
    by_year = truth.groupby("year")[["deaths", "deaths_neonatal", "births"]].sum()
    assert report.headline["national"]["title"].startswith("Infant mortality rate")
    assert report.headline["national"]["value"] == f"{by_year['deaths'].iloc[-1] / by_year['births'].iloc[-1] * 1000:.1f}"
    others = report.headline["others"]
    assert [o["outcome"] for o in others] == ["neonatal", "postneonatal"]
    nmr = by_year["deaths_neonatal"].iloc[-1] / by_year["births"].iloc[-1] * 1000
    assert others[0]["value"] == pytest.approx(nmr, rel=1e-12)
    assert others[0]["text"].startswith(f"Neonatal mortality rate: {nmr:.1f} per 1,000 in 2014")
    assert not any("not included" in e for e in report.excluded)
    keys = [s.key for s in report.sections]
    assert keys.index("outcome_neonatal") < keys.index("outcome_postneonatal") < keys.index("data")
    html = (out / "index.html").read_text(encoding="utf-8")
    first_screen = html[html.index('<section id="headline"'):html.index("</section>", html.index('id="headline"'))]
    assert "The study&#x27;s other outcomes" in first_screen or "The study's other outcomes" in first_screen
    assert 'href="#outcome_neonatal"' in first_screen
    # the neonatal section labels its rate NMR, the infant sections IMR
    section = html[html.index('<section id="outcome_neonatal"'):html.index('<section id="outcome_postneonatal"')]
    assert "NMR" in section and "IMR" not in section
    rates = html[html.index('<section id="rates"'):html.index('<section id="disparity"')]
    assert "IMR" in rates and "NMR" not in rates
    # the tables and figures of each outcome are written under their own names
    assert (out / "tables" / "rates_national_postneonatal.csv").exists()
    assert (out / "figures" / "national_rate_neonatal.svg").exists()


def test_outcome_the_data_lack_is_listed_as_excluded(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text('language = "en"\noutcomes = ["infant", "neonatal"]\nperiod = "2010-2012"\n'
                    '[data]\nexample = "chile"\n[units]\nregion = "11"\n[analyses.rates]\n', encoding="utf-8")
    report = build_report(read_study(path), tmp_path / "out", write=False)
    assert any(e.startswith("outcome neonatal: the data have no such deaths (they have: infant)")
               for e in report.excluded)
    assert "others" not in report.headline
    assert not any(s.key.startswith("outcome_") for s in report.sections)


def test_terminal_headline_lists_the_other_outcomes(outcomes_report, capsys):
    from brecha.cli.report import print_headline

    report = outcomes_report[0]
    print_headline(report, "en")
    text = capsys.readouterr().out
    tail = text.split("other outcomes:")[1]
    assert [o["text"] in tail for o in report.headline["others"]] == [True, True]
    assert text.index("Infant mortality rate") < text.index("other outcomes:")
