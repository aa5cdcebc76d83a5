"""The batched grid search of joinpoint regression (``joinpoint_fit.grid_sse``, issue 19: its sums as matrix
products on centred series) against a brute force: every candidate design fitted on its own by
``numpy.linalg.lstsq`` (QR/SVD, no normal equations), weighted and unweighted, many series at once."""
import numpy as np
import pytest

from brecha.trends.joinpoint_fit import designs, grid_sse, placements


def _brute(X, Y, W=None):
    s, c = Y.shape[0], X.shape[0]
    sse = np.empty((c, s))
    for i in range(c):
        for j in range(s):
            sw = np.ones(Y.shape[1]) if W is None else np.sqrt(W[j])
            beta = np.linalg.lstsq(X[i] * sw[:, None], Y[j] * sw, rcond=None)[0]
            sse[i, j] = np.sum((Y[j] * sw - (X[i] * sw[:, None]) @ beta) ** 2)
    return sse


@pytest.mark.parametrize("weighted", [False, True])
def test_grid_sse_equals_each_fit_by_least_squares(weighted):
    rng = np.random.default_rng(7)
    x = np.arange(2000, 2020.0)
    xc = x - x.mean()
    k = 2
    knots = placements(len(x), k)
    X = designs(xc, xc[knots])
    # log rates near -4 with a bend: the cancellation the centring guards against
    Y = -4 - 0.03 * xc + 0.04 * np.maximum(xc - 2, 0) + rng.normal(0, 0.02, (60, len(x)))
    W = rng.uniform(50, 500, Y.shape) if weighted else None
    sse, idx = grid_sse(X, Y, W, chunk_bytes=200_000)  # several chunks
    brute = _brute(X, Y, W)
    assert np.array_equal(idx, np.argmin(brute, axis=0))
    assert np.allclose(sse, brute.min(axis=0), rtol=1e-9, atol=0)


def test_grid_sse_feasible_mask_and_exact_fit():
    x = np.arange(16.0)
    xc = x - x.mean()
    X = designs(xc, xc[placements(16, 1)])
    y = 2.0 + 0.5 * xc - 0.8 * np.maximum(xc - xc[6], 0)  # a joinpoint exactly at x = 6
    sse, idx = grid_sse(X, np.vstack([y, y]))
    assert np.all(sse < 1e-20)
    assert list(placements(16, 1)[idx, 0]) == [6, 6]
    none, _ = grid_sse(X, y[None, :], feasible=lambda beta, start: np.zeros(beta.shape[:2], dtype=bool))
    assert np.isinf(none[0])
