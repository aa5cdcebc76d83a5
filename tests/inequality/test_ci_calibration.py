"""Do the SEs measure the sampling error of the counts? Checked against a Monte Carlo truth.

Five quintile groups with known risks; 4,000 data sets of Poisson deaths give the true sampling SD of
each measure (vectorised, one call). The analytic SE (from the expected counts) and the bootstrap SE
(from one data set's counts) must match it. WHO's regression / HC1 SEs for ACI/RCI and SII/RII do not:
they measure the scatter of the five points around the fitted line, not the sampling error.
"""
import numpy as np
import pytest

from brecha.inequality import bootstrap as B
from brecha.inequality import measures as M
from brecha.inequality import summary_measures

BIRTHS = np.array([21000, 19000, 20000, 22000, 18000], dtype=float)
RISK = np.array([12, 10, 8, 7, 5], dtype=float)  # per 1,000, most deprived first
ORDER = [1, 2, 3, 4, 5]
NAMES = [n for n in M.ALL_MEASURES if n not in M.REFERENCE_MEASURES and not n.startswith("d_")
         and n != "ratio_p90p10"]
EXPECTED = BIRTHS * RISK / 1000
SUB = M.make_subgroups(BIRTHS, ORDER, noise="poisson")
TRUTH = {k: float(np.std(v)) for k, v in M.evaluate(
    np.random.default_rng(0).poisson(EXPECTED, (4000, 5)) / BIRTHS * 1000, SUB, NAMES).items()}
ANALYTIC = summary_measures(RISK, BIRTHS, se=np.sqrt(EXPECTED) / BIRTHS * 1000, order=ORDER,
                            measures=NAMES).set_index("measure")


@pytest.mark.parametrize("name", NAMES)
def test_analytic_se_matches_the_monte_carlo_sampling_sd(name):
    assert ANALYTIC.loc[name, "se"] == pytest.approx(TRUTH[name], rel=0.10)


def test_bootstrap_se_matches_the_monte_carlo_sampling_sd():
    boot = B.bootstrap_measures(EXPECTED, BIRTHS, SUB, NAMES, 2000, np.random.default_rng(1))
    for name in NAMES:
        assert boot[name][0] == pytest.approx(TRUTH[name], rel=0.12), name


def test_who_regression_and_hc1_ses_understate_the_sampling_error():
    who = summary_measures(RISK, BIRTHS, order=ORDER, measures="aci,rci,sii,rii").set_index("measure")
    for name in ("aci", "rci", "sii", "rii"):
        assert who.loc[name, "se"] < 0.75 * TRUTH[name], name
    from brecha.i18n import get_language, set_language

    before = get_language()
    try:
        for lang, word in (("en", "WHO"), ("es", "OMS")):
            set_language(lang)
            t = summary_measures(RISK, BIRTHS, order=ORDER, measures="aci,rci,sii,rii")
            assert t["ci_method"].str.contains(word).all()
    finally:
        set_language(before)
