"""The report's joinpoint parts (issue 13): the "is the gap closing?" card answered by the comparability test
of the extreme fifths by the study's rank covariate, the joinpoint figure and the AAPC table."""
import warnings

import pytest

STUDY = '''
title = "Araucanía"
language = "en"
period = "2000-2015"
[data]
example = "chile"
[units]
region = "09"
[covariates]
names = ["poverty"]
[analyses.rates]
[analyses.trends]
method = "joinpoint"
[analyses.inequality]
rank_by = "poverty"
'''


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    from brecha.report.build import build_report
    from brecha.study import read_study

    path = tmp_path_factory.mktemp("jp_study") / "araucania.toml"
    path.write_text(STUDY, encoding="utf-8")
    return build_report(read_study(path), tmp_path_factory.mktemp("jp_out"), write=False, lang="en")


def test_gap_card_uses_the_comparability_test(report):
    from brecha.datasets import chile
    from brecha.trends.compare_panel import compare_trends

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        panel = chile().subset(region="09")
    expected = compare_trends(panel, "q1", "q5", rank_by="poverty").set_index("test")
    table = report.table("gap_test").set_index("test")
    for test in ("coincidence", "parallelism"):
        assert table.loc[test, "statistic"] == pytest.approx(expected.loc[test, "statistic"], rel=1e-10)
        assert table.loc[test, "p_value"] == pytest.approx(expected.loc[test, "p_value"], abs=1e-12)
    card = report.headline["trend"]
    p = expected.loc["parallelism", "p_value"]
    gap = expected.loc["parallelism", "gap_apc"]
    direction = ("closing" if gap < 0 else "widening") if p < 0.05 else "flat"
    assert card["direction"] == direction
    assert card["text"].startswith("Formal test (joinpoint comparability, Kim et al. 2004)")
    assert "poverty" in card["text"]
    assert card["detail"] == (f"parallelism p = {p:.3f}" if p >= 0.001 else "parallelism p < 0.001")


def test_joinpoint_figure_and_aapc_table(report):
    names = [f.name for f in report.figures]
    assert "trends_joinpoint" in names
    aapc = report.table("trends_aapc")
    assert list(aapc.columns[:9]) == ["unit", "outcome", "start", "end", "aapc", "aapc_lower", "aapc_upper",
                                      "ci_method", "n_segments"]
    units = report.table("trends_units")
    assert len(aapc) == units["unit"].nunique()
    first = aapc.iloc[0]
    row = units[(units["unit"] == first["unit"]) & (units["row"] == "aapc")].iloc[0]
    assert first["aapc"] == pytest.approx(row["apc"], rel=1e-12)


def test_study_selection_option(tmp_path):
    from brecha.report.build import build_report
    from brecha.study import read_study

    path = tmp_path / "aysen.toml"
    path.write_text('title = "Aysén"\nperiod = "2000-2015"\n[data]\nexample = "chile"\n[units]\nregion = "11"\n'
                    '[analyses.rates]\n[analyses.trends]\nmethod = "joinpoint"\nselection = "bic3"\n', encoding="utf-8")
    report = build_report(read_study(path), tmp_path / "out", write=False, lang="en")
    assert set(report.table("trends_units")["selection"]) == {"bic3"}
    # no rank covariate in this study: the card's test compares the headline's fifths by rate
    assert "mortality" in report.headline["trend"]["text"]


def test_a_permutation_p_below_one_in_a_thousand_reads_p_below_0001():
    """4,499 permutations reach p = 0.0002: three decimals would print "p = 0.000"."""
    import importlib

    gap_test = importlib.import_module("brecha.report.sections.gap_test")

    def fmt(value, digits):
        return f"{value:.{digits}f}"

    assert gap_test._p(fmt, 0.0002222) == "< 0.001"
    assert gap_test._p(fmt, 0.001) == "= 0.001"
    assert gap_test._p(fmt, 0.0349) == "= 0.035"
