"""Joinpoint regression: recovery of known joinpoints (fixed seed), brute-force grid search, and APC/AAPC
checked against an independent statsmodels fit plus the formulas of Kim et al. (2000) / Clegg et al. (2009)."""
from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from brecha.errors import InputError
from brecha.trends import joinpoint, trends

YEARS = np.arange(1990, 2021)


def simulated(seed=3, births=200_000.0):
    """ln rate: +2 %/y to 2000, -5 %/y to 2010, +1 %/y after; Poisson counts."""
    rng = np.random.default_rng(seed)
    true = np.where(YEARS < 2000, 0.02 * (YEARS - 2000),
                    np.where(YEARS < 2010, -0.05 * (YEARS - 2000), -0.5 + 0.01 * (YEARS - 2010))) + 2
    b = np.full(len(YEARS), births)
    return rng.poisson(b * np.exp(true) / 1000).astype(float), b


@pytest.mark.parametrize("selection,weights", [("bic", None), ("bic", "poisson"), ("permutation", None)])
def test_recovers_known_joinpoints(selection, weights):
    counts, births = simulated()
    fit = joinpoint(YEARS, counts=counts, births=births, selection=selection, weights=weights,
                    n_permutations=199, seed=42)
    assert fit.joinpoints == [(2000.0, 2010.0)]
    assert list(fit.n_joinpoints) == [2]
    apc = fit.segments["apc"].to_numpy()
    np.testing.assert_allclose(apc, [(np.exp(0.02) - 1) * 100, (np.exp(-0.05) - 1) * 100,
                                     (np.exp(0.01) - 1) * 100], atol=0.6)


def test_many_series_recover_their_own_joinpoints():
    rng = np.random.default_rng(8)
    truth = [(), (2005.0,), (1998.0, 2012.0)]
    rates = []
    for jps in truth:
        ln = 2.0 + 0.01 * (YEARS - 1990)
        for j, tau in enumerate(jps):
            ln = ln + (-0.06 if j == 0 else 0.08) * np.maximum(YEARS - tau, 0)
        noise = rng.normal(scale=0.01, size=len(YEARS)) if jps else 0.0  # an exact line for the first
        rates.append(np.exp(ln + noise))
    fit = joinpoint(YEARS, rates=np.array(rates))
    for i, jps in enumerate(truth):
        # the true joinpoints are found (BIC may add a spurious one now and then: see the next test)
        assert set(jps) <= set(fit.joinpoints[i])
        alone = joinpoint(YEARS, rates=rates[i])
        assert alone.joinpoints[0] == fit.joinpoints[i]
        np.testing.assert_allclose(alone.segments["apc"], fit.segments[fit.segments.series == i]["apc"], rtol=1e-10)
    assert fit.joinpoints[0] == () and fit.joinpoints[2] == (1998.0, 2012.0)
    # a straight line: no joinpoint, single segment with the whole period
    seg0 = fit.segments[fit.segments.series == 0]
    assert len(seg0) == 1 and seg0.iloc[0]["start_year"] == 1990 and seg0.iloc[0]["end_year"] == 2020
    assert seg0.iloc[0]["apc"] == pytest.approx((np.exp(0.01) - 1) * 100, rel=1e-9)


def test_bic_false_joinpoints_are_rare_on_straight_lines():
    """BIC picks a spurious joinpoint now and then (why NCI added BIC3/WBIC); on 400 noisy straight
    lines of 31 years it should stay near 10 %."""
    rng = np.random.default_rng(8)
    rates = np.exp(2 + 0.01 * (YEARS - 1990) + rng.normal(scale=0.05, size=(400, len(YEARS))))
    fit = joinpoint(YEARS, rates=rates)
    assert np.mean(fit.n_joinpoints > 0) < 0.15


def brute_force(x, y, w, k, min_segment):
    """Every allowed placement with numpy lstsq (independent of the batched normal equations)."""
    n = len(x)
    best = (np.inf, None)
    sw = np.sqrt(w)
    for c in combinations(range(n), k):
        gaps = [c[0]] + [c[j + 1] - c[j] - 1 for j in range(k - 1)] + [n - 1 - c[-1]] if k else []
        if any(g < min_segment for g in gaps):
            continue
        X = np.column_stack([np.ones(n), x] + [np.maximum(x - x[j], 0) for j in c])
        beta = np.linalg.lstsq(X * sw[:, None], y * sw, rcond=None)[0]
        sse = float(np.sum(w * (y - X @ beta) ** 2))
        if sse < best[0]:
            best = (sse, tuple(float(x[j]) for j in c))
    return best


@pytest.mark.parametrize("weights", [None, "poisson"])
def test_grid_search_matches_brute_force(weights):
    rng = np.random.default_rng(19)
    x = np.arange(2000, 2016).astype(float)
    counts = rng.poisson(30 * np.exp(0.04 * np.abs(x - 2007)), size=len(x)).astype(float) + 1
    births = np.full(len(x), 3000.0)
    fit = joinpoint(x, counts=counts, births=births, max_joinpoints=2, min_segment=2, weights=weights)
    y = np.log(1000 * counts / births)
    w = counts if weights else np.ones(len(x))
    n = len(x)
    for k in (0, 1, 2):
        sse, jps = brute_force(x, y, w, k, 2)
        row = fit.models[fit.models.n_joinpoints == k].iloc[0]
        assert row["sse"] == pytest.approx(sse, rel=1e-8, abs=1e-12)
        assert row["joinpoints"] == ";".join(f"{v:g}" for v in jps)
        # NCI BIC: ln(SSE/n) + 2(k+1) ln(n)/n
        assert row["bic"] == pytest.approx(np.log(sse / n) + 2 * (k + 1) * np.log(n) / n, rel=1e-9)
    best_k = int(fit.models.loc[fit.models.bic.idxmin(), "n_joinpoints"])
    assert fit.n_joinpoints[0] == best_k


def test_apc_and_aapc_match_hand_computation():
    sm = pytest.importorskip("statsmodels.api")
    counts, births = simulated(seed=5, births=20_000.0)
    fit = joinpoint(YEARS, counts=counts, births=births, alpha=0.05)
    (t1, t2), = fit.joinpoints
    x = YEARS.astype(float)
    y = np.log(1000 * counts / births)
    X = np.column_stack([np.ones(len(x)), x, np.maximum(x - t1, 0), np.maximum(x - t2, 0)])
    ols = sm.OLS(y, X).fit()
    n, k = len(x), 2
    df = n - (2 * k + 2)  # joinpoints counted as parameters
    cov = ols.cov_params() * (n - 4) / df  # statsmodels divides the SSE by n - 4
    C = np.array([[0, 1, 0, 0], [0, 1, 1, 0], [0, 1, 1, 1]], dtype=float)
    slopes = C @ ols.params
    cov_seg = C @ cov @ C.T
    se = np.sqrt(np.diag(cov_seg))
    q = stats.t.ppf(0.975, df)
    segs = fit.segments
    np.testing.assert_allclose(segs["slope"], slopes, rtol=1e-8)
    np.testing.assert_allclose(segs["se"], se, rtol=1e-8)
    np.testing.assert_allclose(segs["apc"], (np.exp(slopes) - 1) * 100, rtol=1e-8)
    np.testing.assert_allclose(segs["apc_lower"], (np.exp(slopes - q * se) - 1) * 100, rtol=1e-8)
    np.testing.assert_allclose(segs["apc_upper"], (np.exp(slopes + q * se) - 1) * 100, rtol=1e-8)
    np.testing.assert_allclose(segs["p_value"], 2 * stats.t.sf(np.abs(slopes / se), df), rtol=1e-6)
    assert list(segs["start_year"]) == [1990, t1, t2] and list(segs["end_year"]) == [t1, t2, 2020]
    # AAPC, Clegg et al. 2009: segment lengths as weights, normal CI across segments
    w = np.array([t1 - 1990, t2 - t1, 2020 - t2])
    mean_slope = w @ slopes / w.sum()
    se_a = np.sqrt(w @ cov_seg @ w) / w.sum()
    z = stats.norm.ppf(0.975)
    row = fit.aapc.iloc[0]
    assert row["aapc"] == pytest.approx((np.exp(mean_slope) - 1) * 100, rel=1e-8)
    assert row["aapc_lower"] == pytest.approx((np.exp(mean_slope - z * se_a) - 1) * 100, rel=1e-8)
    assert row["aapc_upper"] == pytest.approx((np.exp(mean_slope + z * se_a) - 1) * 100, rel=1e-8)
    assert row["ci_distribution"] == "normal"
    # a sub-period inside the last segment: AAPC equals that segment's APC with its t interval
    sub = joinpoint(YEARS, counts=counts, births=births, aapc_range=(t2 + 1, 2020)).aapc.iloc[0]
    assert sub["aapc"] == pytest.approx(segs["apc"].iloc[2], rel=1e-10)
    assert sub["aapc_lower"] == pytest.approx(segs["apc_lower"].iloc[2], rel=1e-10)
    assert sub["ci_distribution"] == "t"


def test_trends_joinpoint_rows():
    counts, births = simulated()
    rows = [("X", int(y), e, b) for y, e, b in zip(YEARS, counts, births)]
    rows += [("Y", int(y), 5.0 if y != 1995 else 0.0, 800.0) for y in YEARS]
    tab = pd.DataFrame(rows, columns=["unit", "year", "events", "births"])
    out = trends(tab, method="joinpoint")
    x = out[out.unit == "X"]
    assert list(x["row"]) == ["aapc", "segment", "segment", "segment"]
    assert set(x["joinpoints"]) == {"2000;2010"} and set(x["method"]) == {"joinpoint"}
    assert list(x["trend"]) == ["decreasing", "increasing", "decreasing", "increasing"]
    direct = joinpoint(YEARS, counts=counts, births=births)
    np.testing.assert_allclose(x["apc"].iloc[1:], direct.segments["apc"], rtol=1e-10)
    assert x["apc"].iloc[0] == pytest.approx(direct.aapc["aapc"].iloc[0], rel=1e-10)
    assert list(x["segment"].iloc[1:]) == [1, 2, 3] and pd.isna(x["segment"].iloc[0])
    y = out[out.unit == "Y"]
    assert set(y["zero_years"]) == {1} and set(y["zero_rule"]) == {"add-half"}


def test_bad_input_messages():
    with pytest.raises(InputError, match="0,5|0.5"):
        joinpoint(YEARS[:5], counts=np.array([1.0, 0, 2, 3, 4]), births=np.full(5, 100.0))
    with pytest.raises(InputError, match="counts|conteos"):
        joinpoint(YEARS[:5], rates=np.ones(5), weights="poisson")
    with pytest.raises(InputError, match="bic"):
        joinpoint(YEARS[:5], rates=np.ones(5), selection="aic")
    with pytest.raises(InputError, match="births|rates"):
        joinpoint(YEARS[:5])
    with pytest.raises(InputError, match="1970-1980.*1990-2020"):
        joinpoint(YEARS, rates=np.ones(len(YEARS)) + YEARS / 100, aapc_range=(1970, 1980))
    tab = pd.DataFrame({"unit": "A", "year": YEARS, "events": 10.0 + YEARS % 3, "births": 1000.0})
    with pytest.raises(InputError, match="1970-1980.*1990-2020"):
        trends(tab, method="joinpoint", aapc_years=(1970, 1980))


def test_short_series_cap_the_number_of_joinpoints():
    from brecha.trends import max_joinpoints_default

    assert [max_joinpoints_default(n) for n in (5, 6, 7, 11, 12, 16, 17, 26, 27, 40)] == [0, 0, 1, 1, 2, 2, 3, 4,
                                                                                          5, 5]
    # five points with a kink: no joinpoint is tried, one straight segment
    fit = joinpoint(YEARS[:5], rates=np.array([1.0, 2.0, 3.0, 2.0, 1.0]), max_joinpoints=2)
    assert fit.joinpoints == [()] and len(fit.segments) == 1
    assert set(fit.models["n_joinpoints"]) == {0}


def test_sparse_unit_rows_have_no_class():
    """A unit with most years at zero deaths keeps its joinpoint estimates but no class on any row."""
    years = np.arange(2000, 2016)
    sparse_deaths = np.zeros(16)
    sparse_deaths[[2, 9, 13]] = 1.0
    rows = [("S", int(y), d, b) for y, d, b in zip(years, sparse_deaths, np.linspace(900, 600, 16))]
    counts, births = simulated()
    rows += [("X", int(y), e, b) for y, e, b in zip(YEARS, counts, births) if y >= 2000]
    out = trends(pd.DataFrame(rows, columns=["unit", "year", "events", "births"]), method="joinpoint")
    s = out[out.unit == "S"]
    assert s["sparse"].all() and s["trend"].isna().all() and s["apc"].notna().all()
    assert "13" in s["note"].iloc[0] and "16" in s["note"].iloc[0]
    x = out[out.unit == "X"]
    assert not x["sparse"].any() and x["trend"].notna().all()
    every = trends(pd.DataFrame(rows, columns=["unit", "year", "events", "births"]), method="joinpoint",
                   max_zero_share=1.0)
    np.testing.assert_allclose(every["apc"], out["apc"], rtol=1e-12)
    assert every[every.unit == "S"]["trend"].notna().all()
