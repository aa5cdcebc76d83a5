"""Comparability tests (Kim et al. 2004): the statistic against brute-force fits of the pooled models,
the permutation p-value against a plain loop over the same swaps, and the behaviour the tests promise
(parallel series: large p for parallelism, small for coincidence); the jump model against lstsq."""
import numpy as np
import pandas as pd
import pytest

from brecha.trends.comparability import compare
from brecha.trends.joinpoint_fit import placements
from brecha.trends.joinpoint_jump import fit_jump, jump_trends

X = np.arange(2000, 2016, dtype=float)


def _best(x, rows_y, design_extra, k):
    """Smallest SSE of y (stacked rows) over placements, the design built by design_extra(knots)."""
    best = np.inf
    for c in placements(len(x), k):
        Xd = design_extra([x[j] for j in c])
        b = np.linalg.lstsq(Xd, rows_y, rcond=None)[0]
        best = min(best, float(np.sum((rows_y - Xd @ b) ** 2)))
    return best


def brute_f(x, a, b, ka, kb, parallel):
    n = len(x)

    def single(knots):
        return np.column_stack([np.ones(n), x] + [np.maximum(x - t, 0) for t in knots])

    def pooled(knots):
        X1 = single(knots)
        Xp = np.vstack([X1, X1])
        if parallel:
            Xp = np.column_stack([Xp, np.r_[np.ones(n), np.zeros(n)]])
        return Xp

    sse1 = _best(x, a, single, ka) + _best(x, b, single, kb)
    k0 = max(ka, kb)
    sse0 = _best(x, np.r_[a, b], pooled, k0)
    p1 = 2 * ka + 2 + 2 * kb + 2
    p0 = 2 * k0 + 2 + parallel
    return ((sse0 - sse1) / (p1 - p0)) / (sse1 / (2 * n - p1)), sse0, sse1


def series(seed, gap=np.log(2), kink=0.0, noise=0.04):
    rng = np.random.default_rng(seed)
    a = 2 - 0.03 * (X - 2000) + kink * np.maximum(X - 2007, 0) + rng.normal(0, noise, len(X))
    b = 2 - gap - 0.03 * (X - 2000) + rng.normal(0, noise, len(X))
    return a, b


@pytest.mark.parametrize("ka,kb", [(0, 0), (1, 0), (1, 1)])
def test_statistic_matches_brute_force(ka, kb):
    a, b = series(1, kink=0.05)
    out = compare(X, a, b, ka, kb, n_permutations=9, seed=1).set_index("test")
    for test, parallel in (("coincidence", False), ("parallelism", True)):
        f, sse0, sse1 = brute_f(X, a, b, ka, kb, parallel)
        assert out.loc[test, "statistic"] == pytest.approx(f, rel=1e-9)
        assert out.loc[test, "sse_null"] == pytest.approx(sse0, rel=1e-9)
        assert out.loc[test, "sse_alternative"] == pytest.approx(sse1, rel=1e-9)
        assert out.loc[test, "k_null"] == max(ka, kb)


def test_p_values_by_a_plain_loop():
    """Same seed, same swaps (one draw of N x n uniforms per test, coincidence first), refitted by lstsq."""
    a, b = series(2, gap=0.3, kink=0.04)
    out = compare(X, a, b, 1, 0, n_permutations=19, seed=5).set_index("test")
    rng = np.random.default_rng(5)
    n = len(X)
    for test, parallel in (("coincidence", False), ("parallelism", True)):
        f_obs, _, _ = brute_f(X, a, b, 1, 0, parallel)
        gap = 0.0
        if parallel:  # the level column's coefficient of the best parallel null fit
            best = (np.inf, 0.0)
            for (j,) in placements(n, 1):
                X1 = np.column_stack([np.ones(n), X, np.maximum(X - X[j], 0)])
                Xp = np.column_stack([np.vstack([X1, X1]), np.r_[np.ones(n), np.zeros(n)]])
                coef = np.linalg.lstsq(Xp, np.r_[a, b], rcond=None)[0]
                sse = float(np.sum((np.r_[a, b] - Xp @ coef) ** 2))
                if sse < best[0]:
                    best = (sse, coef[-1])
            gap = best[1]
        swap = rng.random((19, n)) < 0.5
        f_star = []
        for s in swap:
            pa = np.where(s, b, a - gap)
            pb = np.where(s, a - gap, b)
            f_star.append(brute_f(X, pa, pb, 1, 0, parallel)[0])
        p = (1 + np.sum(np.array(f_star) >= f_obs * (1 - 1e-12))) / 20
        assert out.loc[test, "p_value"] == pytest.approx(p, abs=1e-15)


def test_parallel_series_are_parallel_not_coincident():
    a, b = series(3)
    out = compare(X, a, b, 0, 0, n_permutations=499, seed=3).set_index("test")
    assert out.loc["coincidence", "p_value"] < 0.01
    assert out.loc["parallelism", "p_value"] > 0.05
    a2, b2 = series(4, kink=-0.08)
    out2 = compare(X, a2, b2, 1, 0, n_permutations=499, seed=3).set_index("test")
    assert out2.loc["parallelism", "p_value"] < 0.01
    assert list(out.reset_index().columns[:6]) == ["test", "unit_a", "unit_b", "statistic", "p_value", "method"]


def test_size_of_the_parallelism_test_under_the_null():
    """Under H0 (parallel, same noise) about alpha of the p-values fall below alpha: 60 pairs, 99 permutations."""
    rejected = 0
    for seed in range(60):
        a, b = series(100 + seed)
        p = compare(X, a, b, 0, 0, tests=("parallelism",), n_permutations=99, seed=seed)["p_value"].iloc[0]
        rejected += p < 0.10
    assert rejected <= 12  # 6 expected; binomial(60, 0.1) exceeds 12 with probability < 0.5 %


def test_jump_recovers_a_known_comparability_ratio():
    rng = np.random.default_rng(6)
    cr = 0.85
    y = 2 - 0.03 * (X - 2000) + np.log(cr) * (X >= 2010) + rng.normal(0, 0.01, len(X))
    res = fit_jump(X, y[None, :], None, 2010, max_joinpoints=1, selection="bic")
    assert res["k"][0] == 0
    n = len(X)
    D = np.column_stack([np.ones(n), X, (X >= 2010).astype(float)])
    coef, sse = np.linalg.lstsq(D, y, rcond=None)[:2]
    se = np.sqrt(sse[0] / (n - 3) * np.linalg.inv(D.T @ D)[2, 2])
    assert res["g"][0] == pytest.approx(coef[2], rel=1e-9)
    assert res["se"][0] == pytest.approx(se, rel=1e-9)
    assert np.exp(res["g"][0]) == pytest.approx(cr, abs=0.02)
    # through the per-unit table: CR and its t interval on n - 3 df
    from scipy import stats

    tab = pd.DataFrame({"unit": "A", "year": X.astype(int), "events": 1000 * np.exp(y), "births": 1e6})
    row = jump_trends(tab, {}, "infant", 2010, selection="bic", max_joinpoints=1).iloc[0]
    q = stats.t.ppf(0.975, n - 3)
    assert row["comparability_ratio"] == pytest.approx(np.exp(coef[2]), rel=1e-9)
    assert row["cr_lower"] == pytest.approx(np.exp(coef[2] - q * se), rel=1e-9)
    assert row["jump"] == pytest.approx(100 * np.expm1(coef[2]), rel=1e-9)


def test_jump_with_joinpoints_matches_brute_force():
    rng = np.random.default_rng(7)
    y = 2 - 0.05 * (X - 2000) + 0.08 * np.maximum(X - 2005, 0) - 0.2 * (X >= 2011) + rng.normal(0, 0.01, len(X))
    res = fit_jump(X, y[None, :], None, 2011, max_joinpoints=1, selection="bic")
    n = len(X)
    best = (np.inf, None)
    for (j,) in placements(n, 1):
        D = np.column_stack([np.ones(n), X, np.maximum(X - X[j], 0), (X >= 2011).astype(float)])
        coef = np.linalg.lstsq(D, y, rcond=None)[0]
        sse = float(np.sum((y - D @ coef) ** 2))
        if sse < best[0]:
            best = (sse, (X[j], coef[-1]))
    assert res["k"][0] == 1 and res["taus"][0] == (best[1][0],)
    assert res["g"][0] == pytest.approx(best[1][1], rel=1e-9)
    from brecha.errors import InputError

    with pytest.raises(InputError, match="2015"):
        fit_jump(X, y[None, :], None, 2015)
    with pytest.raises(InputError, match="permutation"):
        fit_jump(X, y[None, :], None, 2010, selection="permutation")
