"""Joinpoint parity with NCI Joinpoint 5 and segmented: the placement rules, BIC/BIC3/WBIC, the permutation
test's levels, continuous joinpoints (brute force) and the AAPC with Muggeo's SE (REFERENCE_WAVE2 W.4)."""
from itertools import combinations, product

import numpy as np
import pandas as pd
import pytest
from scipy import optimize, stats

from brecha.trends import joinpoint
from brecha.trends.aapc import continuous_aapc
from brecha.trends.joinpoint_continuous import best_fits, configurations
from brecha.trends.joinpoint_fit import placements

# REFERENCE_WAVE2.md W.4 (segmented 1.6-2, the `aapc` example)
W4_Y = np.array([1.0558297215, 1.4731508415, 0.2129766563, -0.2760015743, -1.0992926291, -1.0816888133,
                 -1.5946046134, -2.1884765710, -2.5319391655, -2.1715955593, -2.3333158746, -2.2881646893,
                 -1.9338699524, -1.4964144724, -1.3457248713, -2.1110392763, -2.1433362531, -2.9978463187,
                 -3.5479095483, -4.3879915447])
W4_X = np.arange(1, 21, dtype=float)


def test_w4_aapc_and_muggeo_se_to_1e8():
    res = continuous_aapc(W4_X, W4_Y, k=2)
    assert res["joinpoints"] == pytest.approx((8.793040439, 15.249018916), abs=1e-7)
    assert res["slopes"] == pytest.approx([-0.50900249, 0.18958753, -0.59584778], abs=1e-8)
    assert res["m"] == pytest.approx(-0.29334555298, abs=1e-8)
    assert res["se"] == pytest.approx(0.01476828303, abs=1e-8)
    assert res["se_known"] == pytest.approx(0.03337311295, abs=1e-8)
    assert res["lower"] == pytest.approx(-0.32229085582, abs=1e-8)
    assert res["upper"] == pytest.approx(-0.26440025013, abs=1e-8)
    assert 100 * np.expm1(res["m"]) == pytest.approx(-25.42356049, abs=1e-6)


def test_w4_through_joinpoint_api():
    """The same numbers from joinpoint(continuous=True): ln(rate) = y, muggeo interval by default."""
    fit = joinpoint(W4_X, rates=np.exp(W4_Y), max_joinpoints=2, continuous=True)
    assert fit.n_joinpoints[0] == 2
    row = fit.aapc.iloc[0]
    assert row["ci_method"] == "muggeo"
    assert row["slope"] == pytest.approx(-0.29334555298, abs=1e-8)
    assert row["se"] == pytest.approx(0.01476828303, abs=1e-8)
    assert row["aapc"] == pytest.approx(-25.42356049, abs=1e-6)
    z = stats.norm.ppf(0.975)
    assert row["aapc_lower"] == pytest.approx(100 * np.expm1(-0.29334555298 - z * 0.01476828303), abs=1e-6)
    assert fit.joinpoints[0] == pytest.approx((8.793040439, 15.249018916), abs=1e-7)
    # joinpoints at data years only: the grid optimum (9, 15), the parametric interval
    grid = joinpoint(W4_X, rates=np.exp(W4_Y), max_joinpoints=2)
    assert grid.joinpoints[0] == (9.0, 15.0) and grid.aapc.iloc[0]["ci_method"] == "parametric"


def _ok(points, n, end, between):
    return (points[0] >= end and n - 1 - points[-1] >= end
            and all(b - a - 1 >= between for a, b in zip(points[:-1], points[1:])))


@pytest.mark.parametrize("n,k,end,between", [(16, 1, 2, 2), (16, 2, 2, 2), (16, 3, 2, 2), (12, 2, 3, 1),
                                             (20, 2, 2, 3)])
def test_nci_placement_rules(n, k, end, between):
    """Every placement leaves >= end observations at each end and >= between between joinpoints, a
    joinpoint on an observation not counted; every placement that does is there (brute force)."""
    grid = {tuple(r) for r in placements(n, k, end, between)}
    brute = {c for c in combinations(range(n), k)
             if c[0] >= end and n - 1 - c[-1] >= end and all(b - a - 1 >= between for a, b in zip(c[:-1], c[1:]))}
    assert grid == brute
    # a joinpoint between two years: allowed when it would be at either of them (brute force over cells)
    conf = {tuple(r) for r in configurations(n, k, end, between)}
    brute_c = set()
    for c in combinations(range(2 * n - 1), k):
        corners = product(*[(d / 2,) if d % 2 == 0 else (d // 2, d // 2 + 1) for d in c])
        if all(_ok(corner, n, end, between) for corner in corners):
            brute_c.add(c)
    assert conf == brute_c
    assert {tuple(2 * v for v in r) for r in grid} <= conf


def _profile_sse(x, y, w, taus):
    X = np.column_stack([np.ones(len(x)), x] + [np.maximum(x - t, 0) for t in taus])
    sw = np.sqrt(w)
    beta = np.linalg.lstsq(X * sw[:, None], y * sw, rcond=None)[0]
    return float(np.sum(w * (y - X @ beta) ** 2))


def brute_continuous(x, y, w, k, end=2, between=2):
    """Smallest SSE over every box of intervals / data points allowed, each box minimised by L-BFGS-B."""
    n = len(x)
    best = np.inf
    for c in configurations(n, k, end, between):
        bounds = [(x[d // 2], x[d // 2]) if d % 2 == 0 else (x[d // 2] + 1e-9, x[d // 2 + 1] - 1e-9) for d in c]
        starts = [np.array([(lo + hi) / 2 for lo, hi in bounds])]
        starts += [np.array([lo if s else hi for (lo, hi), s in zip(bounds, flip)])
                   for flip in product([0, 1], repeat=k)]
        for s0 in starts:
            r = optimize.minimize(lambda t: _profile_sse(x, y, w, t), s0, method="L-BFGS-B", bounds=bounds,
                                  options={"ftol": 1e-15, "gtol": 1e-12})
            best = min(best, r.fun)
    return best


@pytest.mark.parametrize("seed,k,weighted", [(1, 1, False), (2, 2, False), (3, 2, True), (4, 1, True)])
def test_continuous_matches_brute_force(seed, k, weighted):
    rng = np.random.default_rng(seed)
    x = np.arange(2000, 2011, dtype=float)
    y = 0.05 * np.abs(x - 2004.4) - 0.08 * np.maximum(x - 2007.6, 0) + rng.normal(0, 0.03, len(x))
    w = rng.uniform(5, 50, len(x)) if weighted else np.ones(len(x))
    sse, taus = best_fits(x - x.mean(), y[None, :], w[None, :] if weighted else None, k, continuous=True)
    brute = brute_continuous(x, y, w, k)
    assert sse[0] <= brute + 1e-10
    assert sse[0] == pytest.approx(brute, rel=1e-6, abs=1e-12)
    # the joinpoints returned give that SSE
    assert _profile_sse(x, y, w, taus[0] + x.mean()) == pytest.approx(sse[0], rel=1e-9, abs=1e-13)


def _partial_r2_statsmodels(x, y, taus, i):
    import statsmodels.api as sm

    lo = -np.inf if i == 0 else taus[i - 1]
    hi = np.inf if i == len(taus) - 1 else taus[i + 1]
    keep = (x > lo) & (x <= hi)
    X = sm.add_constant(x[keep])
    ry = sm.OLS(y[keep], X).fit().resid
    rz = sm.OLS(np.maximum(x[keep] - taus[i], 0), X).fit().resid
    return np.corrcoef(ry, rz)[0, 1] ** 2


def test_bic_bic3_wbic_follow_nci_formulas():
    rng = np.random.default_rng(11)
    x = np.arange(1990, 2016, dtype=float)
    y = 2 - 0.02 * (x - 1990) + 0.05 * np.maximum(x - 2001, 0) - 0.06 * np.maximum(x - 2009, 0)
    y = y + rng.normal(0, 0.02, len(x))
    fit = joinpoint(x, rates=np.exp(y), max_joinpoints=3)
    n = len(x)
    for _, row in fit.models.iterrows():
        k = row["n_joinpoints"]
        assert row["bic"] == pytest.approx(np.log(row["sse"] / n) + (2 * k + 2) * np.log(n) / n, rel=1e-12)
        assert row["bic3"] == pytest.approx(np.log(row["sse"] / n) + (3 * k + 2) * np.log(n) / n, rel=1e-12)
        if k == 0:
            assert np.isnan(row["weight"]) and row["wbic"] == row["bic"]
            continue
        taus = [float(v) for v in row["joinpoints"].split(";")]
        r2 = max(_partial_r2_statsmodels(x, y, taus, i) for i in range(k))
        assert row["weight"] == pytest.approx(r2, rel=1e-9)
        # NCI's footnote: WBIC = (1 - weight) BIC + weight BIC3
        assert row["wbic"] == pytest.approx((1 - r2) * row["bic"] + r2 * row["bic3"], rel=1e-10)
    wbic_k = int(fit.models.loc[fit.models["wbic"].idxmin(), "n_joinpoints"])
    assert fit.n_joinpoints[0] == wbic_k == 2 and fit.joinpoints[0] == (2001.0, 2009.0)
    for rule in ("bic", "bic3"):
        other = joinpoint(x, rates=np.exp(y), max_joinpoints=3, selection=rule)
        assert other.n_joinpoints[0] == int(other.models.loc[other.models[rule].idxmin(), "n_joinpoints"])
        assert other.selection == rule


def test_wbic_is_more_conservative_than_bic_on_straight_lines():
    """Why NCI moved from BIC: false joinpoints on noisy straight lines (400 series, 16 years)."""
    rng = np.random.default_rng(8)
    years = np.arange(2000, 2016)
    rates = np.exp(2 - 0.02 * (years - 2000) + rng.normal(scale=0.08, size=(400, len(years))))
    bic = np.mean(joinpoint(years, rates=rates, selection="bic").n_joinpoints > 0)
    bic3 = np.mean(joinpoint(years, rates=rates, selection="bic3").n_joinpoints > 0)
    wbic = np.mean(joinpoint(years, rates=rates).n_joinpoints > 0)
    assert bic3 <= wbic <= bic
    assert bic3 < bic


def test_permutation_levels_and_p_value():
    """The sequence of tests (0, K) ... at alpha / (K - k_a), replayed from the recorded p-values; one
    p-value recomputed by a plain loop over the same permutations."""
    rng = np.random.default_rng(5)
    x = np.arange(1995, 2016, dtype=float)
    y = np.stack([2 - 0.03 * (x - 1995) + 0.06 * np.maximum(x - 2005, 0) + rng.normal(0, 0.02, len(x)),
                  2 - 0.01 * (x - 1995) + rng.normal(0, 0.05, len(x))])
    fit = joinpoint(x, rates=np.exp(y), max_joinpoints=2, selection="permutation", n_permutations=99, seed=7)
    K = 2
    for series in (0, 1):
        tests = fit.tests[fit.tests.series == series]
        k_a, k_b = 0, K
        for _, t in tests.iterrows():
            assert (t["k_null"], t["k_alternative"]) == (k_a, k_b)
            if t["p_value"] < 0.05 / (K - k_a):
                k_a += 1
            else:
                k_b -= 1
        assert k_a == k_b == fit.n_joinpoints[series]
    assert fit.n_joinpoints[0] == 1 and fit.joinpoints[0] == (2005.0,)
    # the first test of series 0 (0 vs 2 joinpoints) by a loop over the permutations, numpy's lstsq
    n = len(x)
    yc = y[0] - y[0].mean()
    X0 = np.column_stack([np.ones(n), x - x.mean()])
    fitted = X0 @ np.linalg.lstsq(X0, yc, rcond=None)[0]
    resid = yc - fitted

    def best_sse(v, k):
        best = np.inf
        for c in placements(n, k):
            X = np.column_stack([np.ones(n), x] + [np.maximum(x - x[j], 0) for j in c])
            best = min(best, float(np.sum((v - X @ np.linalg.lstsq(X, v, rcond=None)[0]) ** 2)))
        return best

    t_obs = (best_sse(yc, 0) - best_sse(yc, 2)) / best_sse(yc, 2)
    perms = np.argsort(np.random.default_rng(7).random((99, n)), axis=1)
    t_star = [(best_sse(fitted + resid[p], 0) - best_sse(fitted + resid[p], 2)) / best_sse(fitted + resid[p], 2)
              for p in perms]
    p_loop = (1 + np.sum(np.array(t_star) >= t_obs * (1 - 1e-12))) / 100
    assert fit.tests.iloc[0]["p_value"] == pytest.approx(p_loop, abs=1e-15)


def test_empirical_quantile_interval_by_a_plain_loop():
    rng = np.random.default_rng(3)
    x = np.arange(2000, 2016, dtype=float)
    y = 2 - 0.04 * (x - 2000) + 0.07 * np.maximum(x - 2008, 0) + rng.normal(0, 0.03, len(x))
    fit = joinpoint(x, rates=np.exp(y), max_joinpoints=1, aapc_ci="empirical-quantile", n_resamples=200, seed=9)
    row = fit.aapc.iloc[0]
    assert row["ci_method"] == "empirical-quantile" and fit.n_joinpoints[0] == 1
    n = len(x)
    xc = x - x.mean()
    yc = y - y.mean()
    tau = fit.joinpoints[0][0] - x.mean()
    X = np.column_stack([np.ones(n), xc, np.maximum(xc - tau, 0)])
    fitted = X @ np.linalg.lstsq(X, yc, rcond=None)[0]
    resid = yc - fitted
    draws = np.random.default_rng(9).integers(0, n, size=(200, n))
    means = []
    for d in draws:
        v = fitted + resid[d]
        best = (np.inf, None)
        for (j,) in placements(n, 1):
            Xj = np.column_stack([np.ones(n), xc, np.maximum(xc - xc[j], 0)])
            b = np.linalg.lstsq(Xj, v, rcond=None)[0]
            sse = float(np.sum((v - Xj @ b) ** 2))
            if sse < best[0]:
                best = (sse, (j, b))
        j, b = best[1]
        w = np.array([xc[j] - xc[0], xc[-1] - xc[j]])
        means.append((w[0] * b[1] + w[1] * (b[1] + b[2])) / w.sum())
    lo, hi = np.quantile(means, [0.025, 0.975])
    assert row["aapc_lower"] == pytest.approx(100 * np.expm1(lo), abs=1e-9)
    assert row["aapc_upper"] == pytest.approx(100 * np.expm1(hi), abs=1e-9)
    # the point estimate is the usual AAPC; the interval holds it
    assert row["aapc_lower"] < row["aapc"] < row["aapc_upper"]
    again = joinpoint(x, rates=np.exp(y), max_joinpoints=1, aapc_ci="empirical-quantile", n_resamples=200, seed=9)
    assert again.aapc.iloc[0]["aapc_lower"] == row["aapc_lower"]  # seeded


def test_option_errors_are_bilingual_input_errors():
    from brecha.errors import InputError

    x = np.arange(2000, 2016)
    with pytest.raises(InputError, match="wbic"):
        joinpoint(x, rates=np.ones(16) + x / 1e4, selection="aic")
    with pytest.raises(InputError, match="continuous|continuos"):
        joinpoint(x, rates=np.ones(16) + x / 1e4, aapc_ci="muggeo")
    with pytest.raises(InputError, match="min_end"):
        joinpoint(x, rates=np.ones(16) + x / 1e4, min_end=0)
    with pytest.raises(InputError, match="parametric"):
        joinpoint(x, rates=np.ones(16) + x / 1e4, aapc_ci="bootstrap")


def test_trends_rows_carry_the_rule_and_interval():
    from brecha.trends import trends

    rng = np.random.default_rng(2)
    years = np.arange(2000, 2016)
    rows = [(u, int(y), float(rng.poisson(60 * np.exp(-0.03 * (y - 2000)))), 8000.0)
            for u in ("A", "B") for y in years]
    tab = pd.DataFrame(rows, columns=["unit", "year", "events", "births"])
    out = trends(tab, method="joinpoint")
    assert set(out["selection"]) == {"wbic"} and set(out.loc[out.row == "aapc", "ci_method"]) == {"parametric"}
    cont = trends(tab, method="joinpoint", continuous=True)
    assert set(cont["continuous"]) == {True}
