"""Poisson joinpoint (counts, births as offset): the best placement, the selected k and the APC with its
quasi-Poisson interval, against statsmodels' GLM fitted placement by placement."""
import numpy as np
import pandas as pd
import pytest
from scipy import stats

from brecha.trends import trends
from brecha.trends.joinpoint_fit import placements

sm = pytest.importorskip("statsmodels.api")

YEARS = np.arange(2000, 2016)


def glm(x, d, b, knots):
    X = sm.add_constant(np.column_stack([x] + [np.maximum(x - t, 0) for t in knots]))
    return sm.GLM(d, X, family=sm.families.Poisson(), offset=np.log(b)).fit(scale="X2", tol=1e-12), X


def test_matches_statsmodels_glm_with_zero_years():
    rng = np.random.default_rng(12)
    births = np.full(len(YEARS), 400.0)
    rate = np.exp(np.log(0.006) - 0.12 * np.maximum(YEARS - 2006, 0))
    deaths = rng.poisson(births * rate).astype(float)
    assert (deaths == 0).any()  # the point: zero years enter as zeros
    tab = pd.DataFrame({"unit": "A", "year": YEARS, "events": deaths, "births": births})
    out = trends(tab, method="joinpoint", family="poisson", selection="bic", max_zero_share=1.0)
    x = YEARS.astype(float)
    n = len(x)
    best = {}
    for k in (0, 1, 2):
        fits = [(glm(x, deaths, births, [x[j] for j in c])[0], c) for c in placements(n, k)]
        res, c = min(fits, key=lambda f: f[0].deviance)
        best[k] = (res.deviance + (2 * k + 2) * np.log(n), res, c)
    k = min(best, key=lambda kk: best[kk][0])
    _, res, c = best[k]
    seg = out[out.row == "segment"]
    assert k == 1 and len(seg) == k + 1
    assert out["joinpoints"].iloc[0] == ";".join(f"{x[j]:g}" for j in c)
    C = np.zeros((k + 1, k + 2))
    for i in range(k + 1):
        C[i, 1: 2 + i] = 1
    slopes = C @ res.params
    # statsmodels' Pearson scale divides by n - (k + 2); brecha by n - (2k + 2), the joinpoints counted (NCI)
    se = np.sqrt(np.diag(C @ res.cov_params() @ C.T) * (n - k - 2) / (n - 2 * k - 2))
    q = stats.t.ppf(0.975, n - 2 * k - 2)
    np.testing.assert_allclose(seg["slope"], slopes, rtol=1e-7)
    np.testing.assert_allclose(seg["se"], se, rtol=1e-6)
    np.testing.assert_allclose(seg["apc"], 100 * np.expm1(slopes), rtol=1e-7)
    np.testing.assert_allclose(seg["apc_lower"], 100 * np.expm1(slopes - q * se), rtol=1e-6)
    assert set(out["family"]) == {"poisson"} and set(out["zero_rule"]) == {"none"}


def test_segments_without_deaths_are_not_used():
    """A placement leaving a segment with no death has no finite fit: never chosen, no overflow."""
    deaths = np.array([4, 3, 5, 2, 4, 3, 3, 2, 3, 1, 1, 0, 0, 0, 0, 0], dtype=float)
    tab = pd.DataFrame({"unit": "A", "year": YEARS, "events": deaths, "births": 200.0})
    with np.errstate(all="raise"):
        out = trends(tab, method="joinpoint", family="poisson", max_zero_share=1.0)
    seg = out[out.row == "segment"]
    assert np.isfinite(seg["apc_upper"]).all() and (seg["apc"] > -100).all()


def test_poisson_refuses_what_it_does_not_do():
    from brecha.errors import InputError

    tab = pd.DataFrame({"unit": "A", "year": YEARS, "events": 5.0, "births": 1000.0})
    for kw in ({"continuous": True}, {"selection": "permutation"}, {"aapc_ci": "empirical-quantile"}):
        with pytest.raises(InputError, match="Poisson"):
            trends(tab, method="joinpoint", family="poisson", **kw)
