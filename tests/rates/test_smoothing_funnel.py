"""Empirical-Bayes smoothing and funnel limits against independent computations.

- EB: a plain-Python loop of Marshall's (1991) method-of-moments estimator as written in his paper and in
  R ``spdep::EBest`` (m, s², A = s² − m/n̄, C_i = A/(A + m/n_i)), the gamma-posterior identity, and recovery
  of a known prior from simulated data.
- Funnel: Spiegelhalter's (2005) interpolated Poisson quantiles computed by summing the Poisson pmf with
  ``math`` (no scipy), and coverage of the limits under the null in a seeded simulation.
"""
from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

from brecha.errors import InputError
from brecha.panel import Panel
from brecha.smoothing import funnel, funnel_curve, poisson_limit, smooth


def marshall_loop(events, births):
    """Marshall (1991) global EB estimates, one unit at a time (independent of the vectorised code)."""
    k = len(events)
    m = sum(events) / sum(births)
    rates = [d / n for d, n in zip(events, births)]
    s2 = sum(n * (r - m) ** 2 for n, r in zip(births, rates)) / sum(births)
    a = s2 - m / (sum(births) / k)
    a = max(a, 0.0)
    out = []
    for r, n in zip(rates, births):
        c = a / (a + m / n) if a > 0 else 0.0
        out.append((m + c * (r - m), 1 - c))
    return m, a, out


def events(deaths, births, year=2012):
    return pd.DataFrame({"unit": [f"U{i:02d}" for i in range(len(deaths))], "year": year,
                         "events": deaths, "births": births})


DEATHS = [0, 9, 12, 45, 4, 1, 40, 20, 2, 8]
BIRTHS = [150, 420, 1500, 2600, 900, 300, 3000, 1000, 180, 1400]


def test_eb_matches_marshall_loop():
    m, a, expected = marshall_loop(DEATHS, BIRTHS)
    t = smooth(events(DEATHS, BIRTHS))
    np.testing.assert_allclose(t["estimate"], [e * 1000 for e, _ in expected], rtol=1e-12)
    np.testing.assert_allclose(t["shrinkage"], [s for _, s in expected], rtol=1e-12)
    assert t["prior_mean"].iloc[0] == pytest.approx(m * 1000)
    assert t["prior_sd"].iloc[0] == pytest.approx(math.sqrt(a) * 1000)


def test_eb_is_the_gamma_posterior_mean_and_interval_contains_it():
    from scipy import stats

    t = smooth(events(DEATHS, BIRTHS), conf_level=0.9)
    m, a, _ = marshall_loop(DEATHS, BIRTHS)
    alpha, beta = m * m / a, m / a
    for d, n, (_, row) in zip(DEATHS, BIRTHS, t.iterrows()):
        post = stats.gamma(alpha + d, scale=1 / (beta + n))
        assert row["estimate"] == pytest.approx(post.mean() * 1000, rel=1e-10)
        assert row["lower"] == pytest.approx(post.ppf(0.05) * 1000, rel=1e-8)
        assert row["upper"] == pytest.approx(post.ppf(0.95) * 1000, rel=1e-8)


def test_eb_shrinks_small_units_more_and_keeps_the_births_weighted_mean():
    t = smooth(events(DEATHS, BIRTHS))
    small, large = t["births"].astype(float).idxmin(), t["births"].astype(float).idxmax()
    assert t.loc[small, "shrinkage"] > t.loc[large, "shrinkage"]
    # the EB estimates' spread is smaller than the raw rates'
    assert t["estimate"].std() < t["raw_rate"].std()


def test_eb_recovers_a_known_gamma_prior():
    rng = np.random.default_rng(2024)
    k = 4000
    births = rng.integers(200, 3000, k)
    true_rate = rng.gamma(shape=16.0, scale=0.008 / 16.0, size=k)     # mean 8 per 1,000, sd 2 per 1,000
    deaths = rng.poisson(true_rate * births)
    t = smooth(events(deaths, births))
    assert t["prior_mean"].iloc[0] == pytest.approx(8.0, rel=0.03)
    assert t["prior_sd"].iloc[0] == pytest.approx(2.0, rel=0.1)
    # EB estimates are closer to the truth than raw rates (mean squared error)
    mse_raw = np.mean((t["raw_rate"] - true_rate * 1000) ** 2)
    mse_eb = np.mean((t["estimate"] - true_rate * 1000) ** 2)
    assert mse_eb < 0.7 * mse_raw


def test_eb_no_extra_variation_keeps_the_mean_with_an_interval_of_real_width():
    with pytest.warns(UserWarning, match="no_extra_variation"):
        t = smooth(events([10, 10, 10], [1000, 1000, 1000]))
    assert np.allclose(t["estimate"], 10.0) and (t["shrinkage"] == 1).all()
    assert (t["flag"] == "no_extra_variation").all() and (t["upper"] > t["lower"]).all()


def test_eb_zero_births_gets_the_prior_and_a_flag_without_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        t = smooth(events(DEATHS + [2], BIRTHS + [0]))
    last = t.iloc[-1]
    assert np.isnan(last["raw_rate"]) and last["flag"] == "zero_births"
    assert last["estimate"] == pytest.approx(last["prior_mean"])
    # the zero-birth unit does not change the others
    np.testing.assert_allclose(t["estimate"].iloc[:-1], smooth(events(DEATHS, BIRTHS))["estimate"])


def test_eb_regional_prior_is_the_global_method_within_each_region():
    regions = ["N"] * 5 + ["S"] * 5
    data = pd.DataFrame({"unit": [f"U{i:02d}" for i in range(10)], "year": 2012, "deaths": DEATHS,
                         "births": BIRTHS})
    units = pd.DataFrame({"unit": data["unit"], "name": data["unit"], "region": regions})
    p = Panel(data, units=units)
    t = smooth(p, prior="region")
    for region, part in t.groupby("prior_group"):
        idx = [i for i, r in enumerate(regions) if r == region]
        _, _, expected = marshall_loop([DEATHS[i] for i in idx], [BIRTHS[i] for i in idx])
        np.testing.assert_allclose(part["estimate"], [e * 1000 for e, _ in expected], rtol=1e-12)
    with pytest.raises(InputError, match="region"):
        smooth(events(DEATHS, BIRTHS), prior="region")


# ----------------------------------------------------------------------------- funnel
def spiegelhalter_quantile(lam, p):
    """Interpolated Poisson quantile by summing the pmf with math (independent of scipy)."""
    cdf_prev, cdf, r, pmf = 0.0, math.exp(-lam), 0, math.exp(-lam)
    while cdf < p:
        r += 1
        pmf *= lam / r
        cdf_prev, cdf = cdf, cdf + pmf
    alpha = (cdf - p) / (cdf - cdf_prev)
    return max(r - alpha, 0.0)


@pytest.mark.parametrize("lam", [0.3, 2.0, 7.5, 31.0, 240.0])
@pytest.mark.parametrize("p", [0.001, 0.025, 0.975, 0.999])
def test_poisson_limit_matches_a_direct_sum(lam, p):
    assert poisson_limit(np.array([lam]), p)[0] == pytest.approx(spiegelhalter_quantile(lam, p), abs=1e-9)


def test_funnel_limits_flags_and_target():
    deaths = [0, 3, 12, 25, 7, 1, 40, 9, 2, 60]
    births = [150, 420, 1500, 2600, 900, 300, 3000, 1000, 180, 2000]
    f = funnel(events(deaths, births))
    theta = sum(deaths) / sum(births)
    assert f["target"].iloc[0] == pytest.approx(theta * 1000)
    for _, row in f.iterrows():
        n = float(row["births"])
        assert row["upper_998"] == pytest.approx(spiegelhalter_quantile(theta * n, 0.999) / n * 1000, abs=1e-9)
        assert row["lower_95"] == pytest.approx(spiegelhalter_quantile(theta * n, 0.025) / n * 1000, abs=1e-9)
    last = f.iloc[-1]           # 60/2000 = 30 per 1,000 against a target near 15: far above
    assert last["flag"] == "above" and last["flag_95"] == "above"
    assert set(f["flag"]) <= {"above", "below", "within"}


def test_funnel_limits_cover_about_998_per_mille_under_the_null():
    rng = np.random.default_rng(5)
    births = rng.integers(300, 5000, 3000)
    deaths = rng.poisson(0.01 * births)
    f = funnel(events(deaths, births), target=10.0)
    outside_998 = (f["flag"] != "within").mean()
    outside_95 = (f["flag_95"] != "within").mean()
    assert outside_998 < 0.006
    assert 0.03 < outside_95 < 0.07


def test_funnel_overdispersion_widens_the_limits():
    rng = np.random.default_rng(9)
    births = rng.integers(300, 5000, 300)
    deaths = rng.poisson(rng.gamma(8, 0.01 / 8, 300) * births)
    ev = events(deaths, births)
    plain = funnel(ev)
    add = funnel(ev, overdispersion=True)
    mult = funnel(ev, overdispersion="multiplicative")
    assert add["tau2"].iloc[0] > 0 and mult["phi"].iloc[0] > 1
    assert (add["flag"] != "within").sum() < (plain["flag"] != "within").sum()
    # additive limits by hand: theta +/- 3.09 sqrt(theta/n + tau2)
    theta = add["target"].iloc[0] / 1000
    tau2 = add["tau2"].iloc[0] / 1e6
    n = add["births"].astype(float).to_numpy()
    np.testing.assert_allclose(add["upper_998"] / 1000, theta + 3.090232306167813 * np.sqrt(theta / n + tau2))
    with pytest.raises(InputError, match="overdispersion|sobredispersión"):
        funnel(ev, overdispersion="sideways")


def test_funnel_curve_from_table_and_from_target():
    f = funnel(events(DEATHS, BIRTHS))
    c = funnel_curve(f, points=50)
    assert list(c.columns) == ["period", "births", "target", "lower_95", "upper_95", "lower_998", "upper_998"]
    assert c["births"].min() == 150 and c["births"].max() == 3000
    assert (c["lower_998"] <= c["lower_95"]).all() and (c["upper_95"] <= c["upper_998"]).all()
    direct = funnel_curve(10.0, births=[1000, 10000])
    assert direct["upper_95"].iloc[1] < direct["upper_95"].iloc[0]


def test_funnel_zero_births_is_undefined_without_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        f = funnel(events(DEATHS + [1], BIRTHS + [0]))
    assert f["flag"].iloc[-1] == "undefined" and np.isnan(f["rate"].iloc[-1])


@pytest.mark.parametrize("func", [smooth, funnel, lambda ev: funnel(ev, overdispersion=True)])
def test_shuffling_units_changes_nothing(func):
    ev = pd.concat([events(DEATHS, BIRTHS, 2012), events(DEATHS[::-1], BIRTHS, 2013)], ignore_index=True)
    a = func(ev)
    b = func(ev.sample(frac=1.0, random_state=4))
    pd.testing.assert_frame_equal(a, b)


def spiegelhalter_overdispersion(deaths, births):
    """φ and τ² of Spiegelhalter (2005, QSHC 14:347) one unit at a time, with a sorted-list percentile."""
    theta = sum(deaths) / sum(births)
    z = [(d / n - theta) / math.sqrt(theta / n) for d, n in zip(deaths, births)]
    ordered = sorted(z)

    def percentile(q):                       # linear interpolation between order statistics
        pos = q * (len(ordered) - 1)
        lo = int(math.floor(pos))
        return ordered[lo] + (pos - lo) * (ordered[min(lo + 1, len(ordered) - 1)] - ordered[lo])

    low, high = percentile(0.1), percentile(0.9)
    count = len(z)
    phi = sum(min(max(v, low), high) ** 2 for v in z) / count
    w = [n / theta for n in births]
    tau2 = max(0.0, (count * phi - (count - 1)) / (sum(w) - sum(x * x for x in w) / sum(w)))
    return theta, phi, tau2


def test_funnel_overdispersion_matches_a_plain_python_spiegelhalter():
    rng = np.random.default_rng(21)
    births = [int(b) for b in rng.integers(200, 6000, 120)]
    deaths = [int(d) for d in rng.poisson(rng.gamma(6, 0.009 / 6, 120) * np.array(births))]
    theta, phi, tau2 = spiegelhalter_overdispersion(deaths, births)
    assert phi > 1 and tau2 > 0
    ev = events(deaths, births).assign(unit=[f"U{i:03d}" for i in range(len(births))])   # keeps the order
    add = funnel(ev, overdispersion="additive")
    mult = funnel(ev, overdispersion="multiplicative")
    assert add["phi"].iloc[0] == pytest.approx(phi, rel=1e-12)
    assert add["tau2"].iloc[0] == pytest.approx(tau2 * 1e6, rel=1e-12)
    n = np.array(births, dtype=float)
    r = np.array(deaths) / n
    sd_add = np.sqrt(theta / n + tau2)
    np.testing.assert_allclose(add["lower_95"] / 1000, np.maximum(theta - 1.959963984540054 * sd_add, 0))
    np.testing.assert_allclose(add["z_adjusted"], (r - theta) / sd_add)
    sd_mult = np.sqrt(phi * theta / n)
    np.testing.assert_allclose(mult["upper_998"] / 1000, theta + 3.090232306167813 * sd_mult)
    np.testing.assert_allclose(mult["z_adjusted"], (r - theta) / sd_mult)
    np.testing.assert_allclose(add["z"], (r - theta) / np.sqrt(theta / n))
    expected_flag = np.where(r > theta + 3.090232306167813 * sd_add, "above",
                             np.where(r < theta - 3.090232306167813 * sd_add, "below", "within"))
    assert add["flag"].tolist() == expected_flag.tolist()


def test_funnel_multiplicative_never_narrower_than_poisson_when_phi_below_one():
    # rates closer to the target than Poisson noise allows: phi < 1, tau2 = 0
    births = [1000, 2000, 3000, 4000, 5000, 6000]
    deaths = [10, 20, 30, 40, 50, 61]
    f = funnel(events(deaths, births), overdispersion="multiplicative")
    a = funnel(events(deaths, births), overdispersion="additive")
    assert f["phi"].iloc[0] < 1 and a["tau2"].iloc[0] == 0
    theta = sum(deaths) / sum(births)
    n = np.array(births, dtype=float)
    np.testing.assert_allclose(f["upper_95"] / 1000, theta + 1.959963984540054 * np.sqrt(theta / n))
    np.testing.assert_allclose(f["upper_95"], a["upper_95"])


def test_python_tables_start_with_the_command_line_contract_columns():
    t = smooth(events(DEATHS, BIRTHS))
    assert list(t.columns[:11]) == ["unit", "period", "outcome", "events", "births", "raw_rate", "estimate",
                                    "lower", "upper", "shrinkage", "method"]
    f = funnel(events(DEATHS, BIRTHS))
    assert list(f.columns[:13]) == ["unit", "period", "outcome", "events", "births", "rate", "target", "lower_95",
                                    "upper_95", "lower_998", "upper_998", "flag", "method"]
