"""Closed-form delta-method gradients, noise-corrected dispersion, percentile CIs, HEAT thresholds.

References used here are independent computations: central differences for the gradients, and
Monte Carlo truths (Poisson deaths redrawn from known risks) for bias and coverage.
"""
import warnings

import numpy as np
import pandas as pd
import pytest

from brecha.errors import BrechaWarning
from brecha.inequality import ALL_MEASURES, inequality, summary_measures
from brecha.inequality import analytic as A
from brecha.inequality import bootstrap as B
from brecha.inequality import measures as M
from brecha.panel import Panel

RNG = np.random.default_rng(21)
N = 130
POP = RNG.integers(200, 5000, N).astype(float)
RATE = RNG.gamma(8, 1.2, N)
SE = np.sqrt(RATE * POP / 1000) / POP * 1000
ORDER = RNG.permutation(N) + 1
SMOOTH = [m for m in ALL_MEASURES if m not in M.PERCENTILE_MEASURES]


@pytest.mark.parametrize("ordered, reference, favourable", [
    (True, 4, False), (False, None, False), (False, 7, True), (True, None, True), ("tied", [2, 9], False)])
def test_closed_form_gradients_match_central_differences(ordered, reference, favourable):
    order = {True: ORDER, False: None, "tied": (ORDER + 9) // 10}[ordered]  # "tied": 14 blocks of units
    sub = M.make_subgroups(POP, order, reference, favourable, 1000.0, noise="poisson")
    # SII/RII (GLM score) and PAR/PAF (Walter) have their own SEs, checked elsewhere
    names, _ = M.applicable([m for m in SMOOTH if m not in A.LOGIT | A.WALTER], sub)
    closed = A.delta_se(RATE, SE, sub, names)
    numeric = A.numerical_delta_se(RATE, SE, sub, names)
    for name in names:
        assert closed[name] == pytest.approx(numeric[name], rel=1e-4), name


def test_delta_method_is_linear_in_n_not_quadratic():
    # 20,000 subgroups: the finite-difference batch would need 40,000 x 20,000 doubles (6.4 GB)
    n = 20_000
    rng = np.random.default_rng(2)
    pop = rng.integers(50, 5000, n).astype(float)
    rate = rng.gamma(8, 1.5, n)
    out = summary_measures(rate, pop, se=np.sqrt(rate * pop / 1000) / pop * 1000, measures="who,gini")
    assert out.set_index("measure").loc[["bgv", "ti", "gini", "mdmw"], "se"].notna().all()


def _poisson_units(n=300, seed=5, spread=0.25, low=40, high=600):
    """Small units (40-600 births) with known risks around 8 per 1,000."""
    rng = np.random.default_rng(seed)
    births = rng.integers(low, high, n).astype(float)
    risk = 8.0 * np.exp(rng.normal(0, spread, n) - spread ** 2 / 2)
    return births, risk


def test_noise_corrected_bgv_is_unbiased_for_the_variance_of_the_true_rates():
    births, risk = _poisson_units(spread=0.35, low=300, high=3000)
    sub = M.make_subgroups(births, noise="poisson")
    true_bgv = float(np.sum(sub.share * (risk - sub.share @ risk) ** 2))
    sims = np.random.default_rng(0).poisson(births * risk / 1000, (4000, len(births))) / births * 1000
    vals = M.evaluate(sims, sub, ["bgv", "bgv_true"])
    noise = float(np.sum(sub.share * (1 - sub.share) * 1000 * risk / births))
    # the raw BGV carries the noise on top of the true variance (here about twice the truth) ...
    assert vals["bgv"].mean() == pytest.approx(true_bgv + noise, rel=0.03)
    assert vals["bgv"].mean() > 1.5 * true_bgv
    # ... the corrected one does not (truncation at 0 never bites with this much true variation)
    assert (vals["bgv_true"] > 0).all()
    assert vals["bgv_true"].mean() == pytest.approx(true_bgv, rel=0.05)


def test_percentile_interval_of_bgv_true_covers_the_truth_while_bgv_misses_it():
    births, risk = _poisson_units(n=200, seed=8)
    sub = M.make_subgroups(births, noise="poisson")
    true_bgv = float(np.sum(sub.share * (risk - sub.share @ risk) ** 2))
    rng = np.random.default_rng(3)
    hits = {"bgv": 0, "bgv_true": 0}
    runs = 150
    for _ in range(runs):
        deaths = rng.poisson(births * risk / 1000).astype(float)
        boot = B.bootstrap_measures(deaths, births, sub, ["bgv", "bgv_true"], 300, rng)
        for name in hits:
            _, lo, hi, _ = boot[name]
            hits[name] += lo <= true_bgv <= hi
    assert hits["bgv_true"] / runs >= 0.85  # nominal 95 %; the Poisson SEs are estimated
    assert hits["bgv"] / runs <= 0.05  # the percentile interval of the raw BGV sits above the truth


def test_noise_corrected_measures_on_a_panel_and_pure_noise_gives_zero():
    rng = np.random.default_rng(4)
    births = rng.integers(40, 400, 250)
    frames = [pd.DataFrame({"unit": [f"U{i:03d}" for i in range(250)], "year": 2010, "births": births,
                            "deaths": rng.poisson(births * 0.008)})]
    panel = Panel(pd.concat(frames))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BrechaWarning)
        out = inequality(panel, measures="bgv,bgv_true,bgsd_true,cov_true", bootstrap=200, seed=1)
    t = out.set_index("measure")
    # every unit has the same risk: the raw BGV is all noise, the corrected one is (about) 0
    assert t.loc["bgv", "estimate"] > 5
    d = panel.data
    share = d.births / d.births.sum()
    rate = d.deaths / d.births * 1000
    expected = max(0.0, float(np.sum(share * (rate - np.sum(share * rate)) ** 2)
                              - np.sum(share * (1 - share) * 1000 * rate / d.births)))
    assert t.loc["bgv_true", "estimate"] == pytest.approx(expected, abs=1e-9)
    assert t.loc["bgv_true", "estimate"] < 0.1 * t.loc["bgv", "estimate"]
    assert t.loc["bgsd_true", "estimate"] == pytest.approx(np.sqrt(expected))
    assert t.loc["bgv_true", "lower"] <= t.loc["bgv_true", "estimate"] <= t.loc["bgv_true", "upper"]


def test_noise_measures_need_sampling_variances():
    out = summary_measures(RATE, POP, measures="bgv_true,bgv")
    assert out["measure"].tolist() == ["bgv"]
    assert "sampling variance" in out.attrs["skipped"]["bgv_true"]
    fixed = summary_measures(RATE, POP, se=SE, measures="bgv,bgv_true").set_index("measure")
    share = POP / POP.sum()
    assert fixed.loc["bgv_true", "estimate"] == pytest.approx(
        fixed.loc["bgv", "estimate"] - np.sum(share * (1 - share) * SE ** 2))


def test_percentile_measures_get_their_ci_from_the_bootstrap():
    # 200 units: the bootstrap SE of a percentile difference matches the Monte Carlo truth; the delta
    # method (charging the whole variance of the unit at the percentile) is not offered
    births, risk = _poisson_units(n=200, seed=11, low=500, high=5000)
    sub = M.make_subgroups(births)
    names = ["d_p90p10", "d_p80p20", "ratio_p90p10"]
    expected = births * risk / 1000
    truth = {k: float(np.std(v)) for k, v in M.evaluate(
        np.random.default_rng(0).poisson(expected, (3000, len(births))) / births * 1000, sub, names).items()}
    boot = B.bootstrap_measures(expected, births, sub, names, 2000, np.random.default_rng(1))
    for name in names:
        assert boot[name][0] == pytest.approx(truth[name], rel=0.15), name
    analytic = summary_measures(risk, births, se=np.sqrt(expected) / births * 1000, measures=names)
    assert analytic["se"].isna().all()
    assert analytic["ci_method"].str.contains("bootstrap").all()


@pytest.mark.parametrize("n, present", [
    (30, set()), (31, {"d_p80p20", "d_q5q1"}), (60, {"d_p80p20", "d_q5q1"}),
    (61, {"d_p80p20", "d_q5q1", "d_p90p10", "d_d10d1"}), (100, {"d_p80p20", "d_q5q1", "d_p90p10", "d_d10d1"}),
    (101, {"d_p80p20", "d_q5q1", "d_p90p10", "d_d10d1", "d_p95p5", "d_v20v1"})])
def test_heat_many_subgroup_thresholds(n, present):
    # HEAT v6 technical notes (REFERENCE.md B.8): more than 30, 60 and 100 subgroups
    out = summary_measures(RATE[:n], POP[:n], measures="d_p80p20,d_q5q1,d_p90p10,d_d10d1,d_p95p5,d_v20v1")
    assert set(out["measure"]) == present


def test_heat_differences_on_the_chilean_and_brazilian_communes():
    from brecha.datasets import brazil, chile

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BrechaWarning)
        for panel, year in ((chile(), 2015), (brazil(), 2019)):
            out = inequality(panel, years=[year], measures="d_p95p5,d_v20v1,d_q5q1").set_index("measure")
            d = panel.data[(panel.data.year == year) & (panel.data.births > 0)].dropna(subset=["deaths"])
            rate = np.sort((d.deaths.astype(float) / d.births.astype(float) * 1000).to_numpy())
            k = len(rate) // 20
            assert out.loc["d_p95p5", "estimate"] == pytest.approx(np.percentile(rate, 95) - np.percentile(rate, 5))
            assert out.loc["d_v20v1", "estimate"] == pytest.approx(rate[-k:].mean() - rate[:k].mean())
            assert (out["n_units"] == len(rate)).all() and len(rate) > 300


def test_paf_with_a_reference_without_deaths_has_no_walter_interval():
    rate = RATE.copy()
    rate[3] = 0.0
    out = summary_measures(rate, POP, se=SE, measures="paf,par").set_index("measure")
    assert out.loc["paf", "estimate"] == pytest.approx(100.0)
    assert out[["se", "lower", "upper"]].isna().all().all()


def test_who_difference_selection_for_the_remaining_cases():
    # healthequal d(): non-ordered, adverse, with a reference: y1 = max, y2 = reference
    rate = np.array([5.0, 9.0, 7.0, 12.0])
    pop = np.array([100.0, 200.0, 300.0, 400.0])
    out = summary_measures(rate, pop, reference=2, measures="d,r").set_index("measure")
    assert out.loc["d", "estimate"] == pytest.approx(12.0 - 7.0)
    assert out.loc["r", "estimate"] == pytest.approx(12.0 / 7.0)
    # non-ordered without a reference: max - min for either direction (HEAT; healthequal leaves y2
    # empty for a favourable indicator)
    for favourable in (False, True):
        out = summary_measures(rate, pop, favourable=favourable, measures="d").set_index("measure")
        assert out.loc["d", "estimate"] == pytest.approx(12.0 - 5.0)
    # ordered: the reference does not change D (the ends of the order do)
    out = summary_measures(rate, pop, order=[1, 2, 3, 4], reference=2, measures="d").set_index("measure")
    assert out.loc["d", "estimate"] == pytest.approx(5.0 - 12.0)  # adverse: least - most advantaged
