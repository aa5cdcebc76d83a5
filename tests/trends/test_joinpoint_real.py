"""Joinpoint on the embedded Chilean data: the change of default rule (BIC -> WBIC, issue 13) and the
formal q1-q5 comparison the report's headline uses."""
import warnings

import pytest

from brecha.trends import trends


@pytest.fixture(scope="module")
def chile():
    from brecha.datasets import chile

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return chile()


def test_regions_bic_finds_joinpoints_that_wbic_and_bic3_do_not(chile):
    """The issue's finding: on Chile's 16 regions, 2000-2015, plain BIC puts 2 joinpoints in Tarapacá (01),
    Atacama (03) and Valparaíso (05); WBIC (the new default), BIC3 and the permutation test (4,499
    permutations, checked when the default changed) put none anywhere."""
    chosen = {}
    for rule in ("bic", "bic3", "wbic"):
        t = trends(chile, method="joinpoint", level="region", selection=rule)
        a = t[t["row"] == "aapc"].set_index("unit")
        chosen[rule] = a["n_joinpoints"].astype(int).to_dict()
    assert {u for u, k in chosen["bic"].items() if k} == {"01", "03", "05"}
    assert all(k == 2 for u, k in chosen["bic"].items() if k)
    assert not any(chosen["wbic"].values()) and not any(chosen["bic3"].values())
    default = trends(chile, method="joinpoint", level="region")
    assert set(default["selection"]) == {"wbic"}


def test_country_straight_line_and_fifths_comparison(chile):
    from brecha.trends.compare_panel import compare_trends

    t = trends(chile, method="joinpoint", level="country")
    aapc = t[t["row"] == "aapc"].iloc[0]
    assert aapc["joinpoints"] == "" and aapc["apc"] == pytest.approx(-1.6966, abs=5e-4)
    c = compare_trends(chile, "q1", "q5", rank_by="poverty").set_index("test")
    # the least poor and the poorest fifths: different levels (coincidence rejected), parallel trends
    assert c.loc["coincidence", "p_value"] == pytest.approx(1 / 4500)
    assert c.loc["parallelism", "p_value"] == pytest.approx(0.128444, abs=1e-6)
    assert c.loc["parallelism", "k_a"] == 0 and c.loc["parallelism", "k_b"] == 0
