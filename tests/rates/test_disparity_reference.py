"""Disparity measures against REFERENCE.md C.5 (epitools/epiR, Rothman 1998 p.238) and C.6 (epiR 2x2),
plus the invariants every measure keeps (scikit-learn-style common tests)."""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from brecha.disparity import (MEASURES, attributable_fraction, attributable_risk, disparity,
                              population_attributable_risk, rate_ratio, resolve_reference)
from brecha.errors import BrechaWarning, InputError
from brecha.i18n import get_language, set_language
from brecha.panel import Panel


def val(res, i=0):
    return float(res["estimate"][i]), float(res["lower"][i]), float(res["upper"][i])


def approx(values, expected, rel=1e-6, abs_=0.0):
    assert list(values) == pytest.approx(list(expected), rel=rel, abs=abs_)


# ------------------------------------------------------------------- C.5 Rothman: 41/28010 vs 15/19017
ROTHMAN = ([41], [28010], [15], [19017])


def test_c5_rate_ratio_wald_and_p_value_match_epitools():
    r = rate_ratio(*ROTHMAN, method="poisson")
    approx(val(r), [1.855759, 1.027226, 3.352563])
    assert r["se"][0] == pytest.approx(0.301756, abs=1e-6)        # zepid SE(ln RR)
    assert r["p_value"][0] == pytest.approx(0.03736, abs=5e-6)


def test_c5_rate_ratio_midp_matches_epitools():
    # epitools solves with uniroot (default tol ~1.2e-4 on p), so its limits carry ~1e-4 relative error
    r = rate_ratio(*ROTHMAN, method="midp")
    approx(val(r), [1.842977, 1.041036, 3.449052], rel=2e-4)
    assert r["p_value"][0] == pytest.approx(0.03546, abs=5e-6)


def test_c5_rate_ratio_exact_matches_epir_irr():
    r = rate_ratio(*ROTHMAN, method="exact")
    approx(val(r), [1.855759, 1.005684, 3.6093], rel=2e-6)


def test_c5_attributable_rate_and_fraction_among_exposed_match_epir():
    approx(val(attributable_risk(*ROTHMAN, family="poisson")), [0.674995, 0.074927, 1.275063], abs_=1e-6)
    af = attributable_fraction(rate_ratio(*ROTHMAN, method="exact"))
    approx(val(af), [46.1137, 0.5652, 72.2938], abs_=1e-4)


def test_c5_par_rate_wald_and_paf_sullivan_match_epir():
    # total = 56/47027 (exposed + unexposed), reference = unexposed
    r = population_attributable_risk([41], [28010], [15], [19017], method="wald", family="poisson")
    approx(val(r["par"]), [0.402037, -0.104524, 0.908599], abs_=1e-6)
    r = population_attributable_risk([41], [28010], [15], [19017], method="sullivan", family="poisson")
    approx(val(r["par_percent"]), [33.7618, 15.8700, 50.9220], abs_=1e-4)


# ------------------------------------------------------------------- C.6 IMR 2x2: 2500/200000 vs 30/6000
C6 = ([2500], [200000], [30], [6000])


def test_c6_rate_ratio_and_attributable_risk_binomial():
    approx(val(rate_ratio(*C6, method="binomial")), [2.5, 1.745827, 3.579965])
    approx(val(attributable_risk(*C6, family="binomial")), [7.5, 5.650054, 9.349946])
    approx(val(attributable_fraction(rate_ratio(*C6, method="binomial"))), [60.0, 42.7206, 72.0668], abs_=1e-4)


def test_c6_par_and_par_percent_all_methods():
    res = {m: population_attributable_risk(*C6, method=m, family="binomial")
           for m in ("delta", "wald", "walter", "jewell")}
    for r in res.values():
        assert r["par"]["estimate"][0] == pytest.approx(7.281553, abs=1e-6)
        assert r["par_percent"]["estimate"][0] == pytest.approx(59.2885, abs=1e-4)
    approx(val(res["wald"]["par"])[1:], [5.434550, 9.128557], abs_=1e-6)
    # epiR Pirikahu: 5.485481-9.077626; the overlap-delta formula of REFERENCE.md B.5 gives 5.485489-9.077617
    # (variance ratio 1 + 9e-6), so the tolerance is 1e-5 per 1,000.
    approx(val(res["delta"]["par"])[1:], [5.485481, 9.077626], abs_=1e-5)
    approx(val(res["jewell"]["par_percent"])[1:], [41.949, 71.449], abs_=1e-3)
    approx(val(res["walter"]["par_percent"])[1:], [44.844, 73.733], abs_=1e-3)
    assert res["walter"]["par_percent"]["se"][0] == pytest.approx(7.3698, abs=1e-4)   # 0.073698 as a fraction
    assert res["walter"]["par"]["se"][0] == pytest.approx(0.9051, abs=1e-4)           # HEAT: mu * SE_Walter


def c6_table():
    """C.6 as a commune table: the non-reference deaths spread over three communes, reference R."""
    return pd.DataFrame({"unit": ["A", "B", "C", "R"], "year": 2015,
                         "events": [1200, 800, 500, 30], "births": [90000, 70000, 40000, 6000]})


def test_c6_through_disparity_table_total_rows():
    t = disparity(c6_table(), "R", rr_method="binomial", par_method="delta")
    total = t[t["unit"] == "TOTAL"].set_index("measure")
    assert total.loc["par", "estimate"] == pytest.approx(7.281553, abs=1e-6)
    assert total.loc["par", "lower"] == pytest.approx(5.485481, abs=1e-5)
    assert total.loc["par", "upper"] == pytest.approx(9.077626, abs=1e-5)
    assert total.loc["par_percent", "estimate"] == pytest.approx(59.2885, abs=1e-4)
    assert total.loc["par", "events"] == 2530 and total.loc["par", "births"] == 206000
    for method, lo, up in (("walter", 44.844, 73.733), ("jewell", 41.949, 71.449)):
        tt = disparity(c6_table(), "R", rr_method="binomial", par_method=method)
        row = tt[(tt["unit"] == "TOTAL") & (tt["measure"] == "par_percent")].iloc[0]
        assert (row["lower"], row["upper"]) == pytest.approx((lo, up), abs=1e-3)
        assert row["method"] == method


def test_c6_specific_rows_for_a_pooled_commune():
    ev = pd.DataFrame({"unit": ["A", "R"], "year": 2015, "events": [2500, 30], "births": [200000, 6000]})
    t = disparity(ev, "R", rr_method="binomial").set_index(["unit", "measure"])
    assert (t.loc[("A", "rate_ratio"), ["estimate", "lower", "upper"]].tolist()
            == pytest.approx([2.5, 1.745827, 3.579965], rel=1e-6))
    assert (t.loc[("A", "attributable_risk"), ["estimate", "lower", "upper"]].tolist()
            == pytest.approx([7.5, 5.650054, 9.349946], rel=1e-6))
    assert t.loc[("A", "rate_ratio"), "method"] == "binomial-katz"


# ------------------------------------------------------------------- table shape and contract
def panel_fixture():
    rng = np.random.default_rng(7)
    units = [f"{i:05d}" for i in range(1, 13)]
    rows = []
    for j, u in enumerate(units):
        for y in (2010, 2011, 2012):
            b = int(rng.integers(200, 5000))
            rows.append({"unit": u, "year": y, "births": b, "deaths": int(rng.poisson(b * (0.004 + 0.001 * j))),
                         "poverty": 5.0 + j + 0.1 * (y - 2010)})
    units_t = pd.DataFrame({"unit": units, "name": [f"Comuna {u}" for u in units],
                            "region": ["R1"] * 6 + ["R2"] * 6})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return Panel(pd.DataFrame(rows), units=units_t)


def test_disparity_columns_measures_and_total_rows():
    t = disparity(panel_fixture(), "00001", pool=True)
    assert list(t.columns[:8]) == ["unit", "period", "outcome", "measure", "estimate", "lower", "upper", "method"]
    assert set(t["measure"]) == set(MEASURES) | {"excess_deaths"}  # issue 14: excess deaths per unit and total
    assert set(t.loc[t["unit"] == "TOTAL", "measure"]) == {"rate_ratio", "par", "par_percent", "excess_deaths"}
    assert len(t) == 12 * 4 + 4
    assert t["period"].unique().tolist() == ["2010-2012"]
    assert t.loc[t["unit"] == "00002", "name"].iloc[0] == "Comuna 00002"


# ------------------------------------------------------------------- invariants over all measures
RR_METHODS = ["poisson", "binomial", "exact", "midp"]
PAR_METHODS = ["delta", "walter", "jewell", "wald", "sullivan"]


@pytest.mark.parametrize("rr_method", RR_METHODS)
def test_unit_against_itself_gives_rr_one_ar_zero(rr_method):
    t = disparity(panel_fixture(), "00004", rr_method=rr_method)
    own = t[t["unit"] == "00004"].set_index(["period", "measure"])["estimate"]
    assert np.allclose(own.xs("rate_ratio", level="measure"), 1.0)
    assert np.allclose(own.xs("attributable_risk", level="measure"), 0.0)
    assert np.allclose(own.xs("attributable_risk_percent", level="measure"), 0.0)
    lo_up = t[(t["unit"] == "00004") & (t["measure"] == "rate_ratio")][["lower", "upper"]].to_numpy()
    assert np.allclose(lo_up, 1.0)    # the unit is the whole reference: no uncertainty in the comparison
    assert (t.loc[t["unit"] == "00004", "flag"] == "in_reference").all()


@pytest.mark.parametrize("rr_method", RR_METHODS)
@pytest.mark.parametrize("par_method", PAR_METHODS)
def test_scaling_births_and_deaths_leaves_estimates_unchanged(rr_method, par_method):
    ev = panel_fixture().events()
    big = ev.assign(events=ev["events"] * 10, births=ev["births"] * 10)
    a = disparity(ev, "00003", rr_method=rr_method, par_method=par_method)
    b = disparity(big, "00003", rr_method=rr_method, par_method=par_method)
    # excess deaths are counts: ten times the births and deaths, ten times the excess deaths (issue 14)
    count = (a["measure"] == "excess_deaths").to_numpy()
    np.testing.assert_allclose(b["estimate"][count], 10 * a["estimate"][count], rtol=1e-9, atol=1e-9)
    a, b = a[~count], b[~count]
    if rr_method == "midp":   # the median-unbiased RR estimate depends on the counts, not only the rates
        keep = a["measure"] != "rate_ratio"
        keep |= a["unit"] == "TOTAL"
        a, b = a[keep], b[keep]
    np.testing.assert_allclose(a["estimate"], b["estimate"], rtol=1e-9, atol=1e-9)
    width_a = (a["upper"] - a["lower"]).to_numpy()
    width_b = (b["upper"] - b["lower"]).to_numpy()
    fine = np.isfinite(width_a) & (width_a > 1e-9)
    assert (width_b[fine] < width_a[fine]).all()   # more data, narrower intervals


@pytest.mark.parametrize("rr_method", RR_METHODS)
@pytest.mark.parametrize("par_method", PAR_METHODS)
def test_shuffling_units_changes_nothing(rr_method, par_method):
    ev = panel_fixture().events()
    a = disparity(ev, "00002,00005", rr_method=rr_method, par_method=par_method)
    b = disparity(ev.sample(frac=1.0, random_state=11), "00005,00002", rr_method=rr_method,
                  par_method=par_method)
    pd.testing.assert_frame_equal(a, b)


def test_par_is_zero_when_every_unit_has_the_reference_rate():
    ev = pd.DataFrame({"unit": list("ABCD"), "year": 2010, "events": [5, 10, 20, 40],
                       "births": [1000, 2000, 4000, 8000]})
    t = disparity(ev, "A")
    assert np.allclose(t["estimate"][t["measure"].isin(["attributable_risk", "par", "par_percent"])], 0.0)
    assert np.allclose(t["estimate"][t["measure"] == "rate_ratio"], 1.0)


def test_sign_convention_par_positive_when_reference_better():
    t = disparity(c6_table(), "R")
    par = t[(t["unit"] == "TOTAL") & (t["measure"] == "par")]["estimate"].iloc[0]
    assert par > 0
    worse = disparity(c6_table(), "A")  # A has the highest rate: the total does better than A
    assert worse[(worse["unit"] == "TOTAL") & (worse["measure"] == "par")]["estimate"].iloc[0] < 0


def test_zero_deaths_and_zero_births_are_flagged_without_warnings():
    ev = pd.DataFrame({"unit": ["A", "B", "R"], "year": 2010, "events": [0, 3, 10], "births": [500, 0, 4000]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        t = disparity(ev, "R").set_index(["unit", "measure"])
    assert t.loc[("A", "rate_ratio"), "estimate"] == 0.0 and t.loc[("A", "rate_ratio"), "lower"] == 0.0
    assert t.loc[("A", "rate_ratio"), "flag"] == "zero_events"
    assert np.isnan(t.loc[("B", "rate_ratio"), "estimate"]) and t.loc[("B", "rate_ratio"), "flag"] == "zero_births"
    t2 = disparity(ev, "R", rr_method="exact").set_index(["unit", "measure"])
    assert t2.loc[("A", "rate_ratio"), "lower"] == 0.0 and t2.loc[("A", "rate_ratio"), "upper"] > 0


def test_reference_with_no_deaths_warns_and_leaves_rr_undefined():
    ev = pd.DataFrame({"unit": ["A", "R"], "year": 2010, "events": [5, 0], "births": [1000, 800]})
    with pytest.warns(BrechaWarning, match="0"):
        t = disparity(ev, "R")
    rr = t[(t["unit"] == "A") & (t["measure"] == "rate_ratio")].iloc[0]
    assert np.isnan(rr["estimate"]) and "reference_zero_events" in rr["flag"]


def test_units_subset_with_reference_outside_uses_independent_reference():
    ev = c6_table()
    t = disparity(ev, "R", units=["A", "B", "C"], rr_method="binomial")
    total = t[t["unit"] == "TOTAL"].set_index("measure")
    assert total.loc["par", "events"] == 2500 and total.loc["par", "births"] == 200000
    assert total.loc["par", "estimate"] == pytest.approx(7.5, abs=1e-9)
    # reference outside the total: the delta variance is the independent AR variance of C.6
    assert total.loc["par", "lower"] == pytest.approx(5.650054, abs=1e-6)
    assert set(t["unit"]) == {"A", "B", "C", "TOTAL"}


# ------------------------------------------------------------------- reference resolution
def test_resolve_best_lowest_pooled_rate_skips_zero_births():
    ev = pd.DataFrame({"unit": ["A", "A", "B", "B", "C", "C"], "year": [2010, 2011] * 3,
                       "events": [1, 1, 3, 4, 0, 0], "births": [500, 500, 1000, 1000, 0, 0]})
    before = get_language()
    try:
        set_language("en")
        codes, label = resolve_reference(ev, "best:0")
        assert codes == ["A"] and "2.00 per 1,000" in label
        set_language("es")  # a label is prose: decimal comma in Spanish
        codes, label = resolve_reference(ev, "best:0")
        assert codes == ["A"] and "2,00 por 1.000" in label
    finally:
        set_language(before)
    # plain "best" asks for 20 expected deaths at the overall rate 9/3000: 6,667 births; none has them
    with pytest.raises(InputError, match="6667") as err:
        resolve_reference(ev, "best")
    assert "best:0" in err.value.hint


def test_resolve_best_ties_are_pooled_and_min_births_excludes_small_units():
    ev = pd.DataFrame({"unit": ["A", "B", "C", "D"], "year": 2010, "events": [0, 0, 30, 12],
                       "births": [80, 150, 6000, 3000]})
    codes, label = resolve_reference(ev, "best:0")
    assert codes == ["A", "B"] and "A, B" in label
    codes, label = resolve_reference(ev, "best:1000")
    assert codes == ["D"] and "2" in label   # 2 units excluded


def test_resolve_best_default_needs_20_expected_deaths_at_the_overall_rate():
    # overall rate 42/9230; 20 / (42/9230) = 4395.2 -> at least 4,396 births: only C and E qualify
    ev = pd.DataFrame({"unit": ["A", "B", "C", "D", "E"], "year": 2010, "events": [0, 0, 30, 12, 0],
                       "births": [80, 150, 6000, 3000, 0]})
    codes, label = resolve_reference(ev, "best", )
    assert codes == ["C"]
    assert "4396" in label and "20" in label and "NCHS" in label
    # the minimum depends on births only: a low rate in a small unit does not lower it
    ev2 = ev.assign(events=[0, 0, 30, 1, 0])
    assert resolve_reference(ev2, "best")[0] == ["C"]            # D (1/3000) is below 20/(31/9230) = 5955


def test_best_on_the_chile_example_is_a_large_commune_not_a_tie_of_empty_ones():
    datasets = pytest.importorskip("brecha.datasets")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        chile = datasets.chile()
    years = range(2005, 2015)
    codes, label = resolve_reference(chile, "best", years=years)
    ev = chile.events(years=years, pool=True)
    d, n = ev["events"].astype(float), ev["births"].astype(float)
    minimum = int(np.ceil(20 / (d.sum() / n.sum())))
    eligible = ev[n >= minimum]
    expected = eligible.loc[(eligible["events"].astype(float) / eligible["births"].astype(float)).idxmin(), "unit"]
    assert codes == [expected] == ["13114"]                        # Las Condes, 177/36,271
    assert str(minimum) in label
    # best:0 is the raw minimum: the 13 communes without a death in 2005-2014, pooled
    raw, _ = resolve_reference(chile, "best:0", years=years)
    assert len(raw) == 13 and (ev.set_index("unit").loc[raw, "events"] == 0).all()


def test_resolve_quintiles_by_covariate():
    p = panel_fixture()   # poverty rises with the unit number
    codes, label = resolve_reference(p, "lowest-quintile:poverty")
    assert codes == ["00001", "00002", "00003"]           # ceil(12/5) = 3 units
    assert "poverty" in label and "3" in label
    high, _ = resolve_reference(p, "highest-quintile:poverty")
    assert high == ["00010", "00011", "00012"]
    t = disparity(p, "lowest-quintile:poverty", pool=True)
    assert t["reference_events"].iloc[0] == int(p.events(pool=True).set_index("unit").loc[codes, "events"].sum())


def test_resolve_reference_errors_name_the_problem():
    p = panel_fixture()
    with pytest.raises(InputError, match="99999"):
        resolve_reference(p, "99999")
    with pytest.raises(InputError, match="pobreza"):
        resolve_reference(p, "lowest-quintile:pobreza")
    with pytest.raises(InputError):
        resolve_reference(p, "")
    with pytest.raises(InputError, match="best:x"):
        resolve_reference(p, "best:x")


@pytest.mark.parametrize("d1, n1, d0, n0", [(0, 1000, 15, 19017), (3, 1000, 15, 19017), (7, 500, 2, 4000),
                                            (120, 30000, 40, 15000), (5, 800, 0, 900)])
def test_midp_limits_match_an_independent_root_finder(d1, n1, d0, n0):
    """Mid-p limits solved one at a time with scipy.stats.binom and brentq (independent of our bisection)."""
    from scipy import optimize, stats

    m = d1 + d0
    upper_tail = lambda p: stats.binom.sf(d1, m, p) + 0.5 * stats.binom.pmf(d1, m, p)   # noqa: E731
    lower_tail = lambda p: stats.binom.cdf(d1 - 1, m, p) + 0.5 * stats.binom.pmf(d1, m, p)  # noqa: E731
    to_rr = lambda p: p / (1 - p) * n0 / n1  # noqa: E731
    r = rate_ratio([d1], [n1], [d0], [n0], method="midp")
    if d1 > 0:
        p_lo = optimize.brentq(lambda p: upper_tail(p) - 0.025, 1e-12, 1 - 1e-12, xtol=1e-15)
        assert r["lower"][0] == pytest.approx(to_rr(p_lo), rel=1e-8)
    else:
        assert r["lower"][0] == 0.0
    if d0 > 0:
        p_up = optimize.brentq(lambda p: lower_tail(p) - 0.025, 1e-12, 1 - 1e-12, xtol=1e-15)
        assert r["upper"][0] == pytest.approx(to_rr(p_up), rel=1e-8)
    else:
        assert np.isnan(r["upper"][0]) and np.isnan(r["estimate"][0])


def _numeric_delta_se(func, counts, variances, h=1e-4):
    """SE of func(counts) by the delta method with central finite differences (independent check)."""
    grad = []
    for i in range(len(counts)):
        up = list(counts)
        down = list(counts)
        up[i] += h
        down[i] -= h
        grad.append((func(up) - func(down)) / (2 * h))
    return float(np.sqrt(sum(g * g * v for g, v in zip(grad, variances))))


def test_overlap_variances_match_a_numerical_delta_method():
    # unit U (12/3000) is one of the two reference units (U + V = 12/3000 + 8/4000); other units O = 90/20000
    ev = pd.DataFrame({"unit": ["O", "U", "V"], "year": 2010, "events": [90, 12, 8], "births": [20000, 3000, 4000]})
    t = disparity(ev, ["U", "V"], rr_method="poisson").set_index(["unit", "measure"])
    z = 1.959963984540054
    # log RR of U against the pooled reference, counts (D_U, D_V) with Poisson variances
    log_rr = lambda c: np.log(c[0] / 3000) - np.log((c[0] + c[1]) / 7000)  # noqa: E731
    se = _numeric_delta_se(log_rr, [12.0, 8.0], [12.0, 8.0])
    assert t.loc[("U", "rate_ratio"), "se"] == pytest.approx(se, rel=1e-6)
    rr = t.loc[("U", "rate_ratio"), "estimate"]
    assert t.loc[("U", "rate_ratio"), "upper"] == pytest.approx(rr * np.exp(z * se), rel=1e-6)
    # the total's log RR and PAR against the reference, counts (D_O, D_U, D_V)
    log_rr_t = lambda c: np.log(sum(c) / 27000) - np.log((c[1] + c[2]) / 7000)  # noqa: E731
    par = lambda c: (sum(c) / 27000 - (c[1] + c[2]) / 7000) * 1000  # noqa: E731
    counts, variances = [90.0, 12.0, 8.0], [90.0, 12.0, 8.0]
    # the delta method treats the reference (U + V pooled) and the rest as the independent parts
    assert t.loc[("TOTAL", "rate_ratio"), "se"] == pytest.approx(_numeric_delta_se(log_rr_t, counts, variances),
                                                                 rel=1e-6)
    assert t.loc[("TOTAL", "par"), "se"] == pytest.approx(_numeric_delta_se(par, counts, variances), rel=1e-6)
