"""brecha's summary measures against WHO healthequal's unit tests (REFERENCE.md C.1).

Inputs are the vectors healthequal's tests generate with set.seed(123) (regenerated in R 4.2.2).
Tolerances are those of each healthequal test (testthat relative tolerance). Where WHO's CI or SE is
on the wrong scale, the test asserts the correct value and says why; the WHO value is still checked
by converting it to the right scale.
"""
import numpy as np
import pytest
from scipy.stats import norm

from brecha.inequality import summary_measures
from brecha.inequality import ordered as O

Z = norm.ppf(0.975)

ORD_POP = np.array([78, 91, 162, 103, 105], dtype=float)
ORD_EST = np.array([20, 30, 40, 50, 60], dtype=float)
ORD_ORDER = [1, 2, 3, 4, 5]

NON_POP = np.array([832, 931, 1468, 1021, 1039, 1515, 1138, 620, 794, 866, 1367, 1108, 1120, 1033, 833, 1536,
                    1149, 410, 1210, 858, 680, 935, 692, 781, 812], dtype=float)
NON_EST = np.array([61, 74, 58, 59, 72, 75, 74, 68, 75, 67, 73, 63, 66, 62, 60, 66, 71, 73, 71, 61, 74, 84, 55,
                    69, 60], dtype=float)
NON_SE = np.array([5, 3, 3, 3, 4, 9, 2, 2, 2, 5, 5, 7, 5, 6, 4, 5, 6, 6, 9, 4, 3, 4, 1, 3, 7], dtype=float)
NON_REF = 13  # healthequal's subgroup 14 (1-based)


def ordered_table(**kw):
    out = summary_measures(ORD_EST, ORD_POP, order=ORD_ORDER, favourable=True, scale=100, **kw)
    return out.set_index("measure")


def nonordered_table(**kw):
    out = summary_measures(NON_EST, NON_POP, se=NON_SE, favourable=True, scale=100, **kw)
    return out.set_index("measure")


def close(actual, expected, rel):
    assert actual == pytest.approx(expected, rel=rel), (actual, expected)


def test_weighted_mean_matches_reference():
    close(ordered_table(measures="mean").loc["mean", "estimate"], 41.22449, 1e-6)
    close(nonordered_table(measures="mean").loc["mean", "estimate"], 67.706845, 1e-7)


def test_aci_estimate_and_se():  # test-aci.R, tol 1e-6
    row = ordered_table(measures="aci").loc["aci"]
    close(row.estimate, 7.3284202, 1e-6)
    close(row.se, 0.29368517, 1e-6)


def test_rci_estimate_se_and_ci():  # test-rci.R, tol 1e-3
    row = ordered_table(measures="rci").loc["rci"]
    close(row.estimate, 0.17776859, 1e-3)
    close(row.se, 0.0071240491, 1e-3)
    close(row.lower, 0.16380545, 1e-3)
    close(row.upper, 0.19173172, 1e-3)


def test_concentration_index_from_curve_equals_rci():
    t = ordered_table(measures="rci,concentration_index")
    close(t.loc["concentration_index", "estimate"], t.loc["rci", "estimate"], 1e-12)


def _who_sii_inputs():
    # healthequal sii(): counts y = round(est/scale * pop) and glm(cbind(y, ny) ~ rank, weights = pop)
    counts = np.round(ORD_EST / 100 * ORD_POP)
    rank = O.ridit(ORD_POP, ORD_ORDER)
    return counts / ORD_POP, rank


def test_sii_rii_reproduce_who_glm_with_population_squared_weights():
    # test-sii.R / test-rii.R, tol 1e-6. WHO's glm passes pop as prior weights on top of the binomial
    # totals, i.e. weights pop^2 (REFERENCE.md A.4.4). Our fitting machinery reproduces it exactly with
    # those weights, which validates the IRLS fit, the HC1 sandwich and the delta method.
    prop, rank = _who_sii_inputs()
    sii, rii, se_sii, se_log_rii = O.slope_and_relative_index(prop, ORD_POP ** 2, rank, 100, with_se=True)
    close(sii, 44.44502, 1e-6)
    # WHO reports the SE on the fraction scale (0.02190822) next to a x100 estimate (A.4.5): ours is x100.
    close(se_sii, 100 * 0.02190822, 1e-6)
    close(sii - Z * se_sii, 40.15109, 1e-6)
    close(sii + Z * se_sii, 48.73895, 1e-6)
    close(rii, 3.159506, 1e-6)
    close(se_log_rii, 0.07644001, 1e-6)
    close(rii * np.exp(-Z * se_log_rii), 2.719902, 1e-6)
    close(rii * np.exp(Z * se_log_rii), 3.67016, 1e-6)


def test_sii_correct_weighting_is_population_not_squared():
    # The binomial fit on the same counts with births as the trials gives 44.905 (REFERENCE.md A.4.4).
    prop, rank = _who_sii_inputs()
    sii, _ = O.slope_and_relative_index(prop, ORD_POP, rank, 100)
    close(float(sii), 44.905, 1e-4)
    # summary_measures uses est/scale exactly (no rounding of counts): the same fit on unrounded counts
    row = ordered_table(measures="sii").loc["sii"]
    close(row.estimate, 44.8905, 1e-4)


def test_sii_fit_and_hc1_agree_with_statsmodels_glm():
    sm = pytest.importorskip("statsmodels.api")
    prop, rank = _who_sii_inputs()
    X = sm.add_constant(rank)
    fit = sm.GLM(prop, X, family=sm.families.Binomial(), var_weights=ORD_POP).fit(cov_type="HC0")
    b0, b1, ok = O.logistic_rank_fit(prop, ORD_POP, rank)
    assert ok
    np.testing.assert_allclose([b0, b1], fit.params, rtol=1e-8)
    ours = O.logistic_rank_hc1(prop, ORD_POP, rank, float(b0), float(b1))
    n = len(prop)
    np.testing.assert_allclose(ours * (n - 2) / n, fit.cov_params(), rtol=1e-6)


def test_paf_estimate_and_correct_ci_scale():
    # test-paf.R: PAF 45.544548, se 0.10689361, CI 45.335037-45.75406. WHO adds an SE on the fraction
    # scale to a percentage (A.4.1); on the % scale the SE is 10.689361 and the CI is +/- 20.95 points.
    row = ordered_table(measures="paf").loc["paf"]
    close(row.estimate, 45.544548, 1e-6)
    close(row.se, 100 * 0.10689361, 1e-6)
    close(row.lower, 45.544548 - Z * 10.689361, 1e-6)
    close(row.upper, 45.544548 + Z * 10.689361, 1e-6)
    assert row.lower < 45.335037 - 20  # WHO's interval is 100 times too narrow


def test_par_ordered():  # test-parisk.R, tol 1e-2
    row = ordered_table(measures="par").loc["par"]
    close(row.estimate, 18.775509, 1e-2)
    close(row.se, 4.4066348, 1e-2)
    close(row.lower, 10.138505, 1e-2)
    close(row.upper, 27.412513, 1e-2)


def test_bgv_estimate_and_analytic_se():
    row = nonordered_table(measures="bgv").loc["bgv"]
    close(row.estimate, 46.198326, 1e-6)
    close(row.se, 17.134647, 1e-6)


@pytest.mark.parametrize("name, expected", [
    ("bgsd", 6.7969351), ("mdmu", 5.891726), ("mdmw", 5.8348689), ("mdbu", 16.360001), ("mdbw", 16.293156),
    ("mdru", 7.2399998), ("mdrw", 7.2228465), ("idisu", 8.7018175), ("idisw", 8.6178417), ("cov", 10.038771),
])
def test_nonordered_estimates(name, expected):
    # The CIs of these are Monte Carlo in healthequal (R's RNG, not portable); brecha gives delta-method
    # and bootstrap CIs instead.
    row = nonordered_table(measures=name, reference=NON_REF).loc[name]
    close(row.estimate, expected, 1e-6)


def test_theil_index_and_correct_se_scale():
    # test-ti.R, tol 1e-4: TI 5.0359201, se 0.0014201, CI 5.0331367-5.0387035. The estimate is x1000 but
    # WHO's SE is not (A.4.2): the correct SE is 1.4201 and the CI is 5.0359 +/- 2.78.
    row = nonordered_table(measures="ti").loc["ti"]
    close(row.estimate, 5.0359201, 1e-4)
    close(row.se, 1000 * 0.0014201, 1e-4)
    close(row.lower, 5.0359201 - Z * 1.4201, 1e-4)
    close(row.upper, 5.0359201 + Z * 1.4201, 1e-4)


def test_mean_log_deviation_and_correct_se_scale():
    # test-mld.R, tol 1e-3: MLD 5.0524006, se 0.0014242 (x1000 for the same reason as TI).
    row = nonordered_table(measures="mld").loc["mld"]
    close(row.estimate, 5.0524006, 1e-3)
    close(row.se, 1000 * 0.0014242, 1e-3)


def test_paf_and_par_nonordered():
    # test-paf-nonordered.R: 24.06426, se 0.01771526 (fraction scale; ours x100), CI +/- z*se on the % scale.
    # test-par-nonordered.R: 16.293152, se 1.1994447, CI 13.94224-18.644063.
    t = nonordered_table(measures="paf,par")
    close(t.loc["paf", "estimate"], 24.06426, 1e-6)
    close(t.loc["paf", "se"], 100 * 0.01771526, 1e-6)
    # test-par-nonordered.R uses tolerance 1e-4
    close(t.loc["par", "estimate"], 16.293152, 1e-4)
    close(t.loc["par", "se"], 1.1994447, 1e-4)
    close(t.loc["par", "lower"], 13.94224, 1e-4)
    close(t.loc["par", "upper"], 18.644063, 1e-4)


def test_difference_and_ratio_selection_and_se():
    # Ordered, favourable: D = most-advantaged - most-disadvantaged (healthequal d()); SE sqrt(se1^2+se2^2).
    se = np.array([5, 7, 10, 12, 14], dtype=float)
    t = summary_measures(ORD_EST, ORD_POP, se=se, order=ORD_ORDER, favourable=True, scale=100,
                         measures="d,r").set_index("measure")
    close(t.loc["d", "estimate"], 40.0, 1e-12)
    close(t.loc["d", "se"], np.sqrt(14 ** 2 + 5 ** 2), 1e-6)
    close(t.loc["r", "estimate"], 3.0, 1e-12)
    se_r = np.sqrt((14 ** 2 + 3.0 ** 2 * 5 ** 2) / 20 ** 2)  # healthequal r(): sqrt((se1^2 + R^2 se2^2)/y2^2)
    close(t.loc["r", "se"], se_r, 1e-6)
    close(t.loc["r", "lower"], 3.0 * np.exp(-Z * se_r / 3.0), 1e-6)
    # Adverse: the direction flips (least - most advantaged)
    t = summary_measures(ORD_EST, ORD_POP, order=ORD_ORDER, favourable=False, measures="d").set_index("measure")
    close(t.loc["d", "estimate"], -40.0, 1e-12)
    # Non-ordered with a reference, favourable: D = ref - min
    t = nonordered_table(measures="d", reference=NON_REF)
    close(t.loc["d", "estimate"], 62 - 55, 1e-12)
