"""The least-squares engine of joinpoint regression: designs, the batched grid search, the final fit.

Model with k joinpoints tau_1 < ... < tau_k (Kim et al. 2000)::

    y_t = b0 + b1 x_t + d_1 (x_t - tau_1)+ + ... + d_k (x_t - tau_k)+ + e_t

NCI Joinpoint's placement rules (Joinpoint help, "Method and Parameters"): at least ``min_end``
observations between a joinpoint and either end of the data and at least ``min_between`` observations
between two joinpoints, a joinpoint that lies on an observation not counted (defaults 2 and 2). Here a
joinpoint at data index i leaves i observations before it and n - 1 - i after it; two joinpoints at
indices i < j leave j - i - 1 between them.

Every candidate placement is fitted by (weighted) least squares through batched normal equations, all
series and placements at once (numpy), and the smallest SSE kept per series. ``feasible`` lets the
continuous search (:mod:`brecha.trends.joinpoint_continuous`) discard relaxed fits whose joinpoints fall
outside their interval. Written here rather than taken from a library: no maintained Python package fits
NCI's constrained grid for hundreds of series at once (``piecewise-regression`` fits one series by
Muggeo's iterations, a local search).
"""
from __future__ import annotations

from itertools import combinations

import numpy as np


def max_joinpoints_default(n: int) -> int:
    """NCI Joinpoint's recommended maximum number of joinpoints for n observations: 0 below 7 points,
    1 for 7-11, 2 for 12-16, 3 for 17-21, 4 for 22-26, 5 from 27 on."""
    return int(np.clip((n - 2) // 5, 0, 5)) if n >= 7 else 0


def placements(n: int, k: int, min_end: int = 2, min_between: int = 2) -> np.ndarray:
    """All index tuples of k joinpoints at data points allowed by NCI's rules (rows, ascending)."""
    if k == 0:
        return np.zeros((1, 0), dtype=int)
    lo, hi = min_end, n - 1 - min_end
    out = [c for c in combinations(range(lo, hi + 1), k)
           if all(c[j + 1] - c[j] - 1 >= min_between for j in range(k - 1))]
    return np.array(out, dtype=int).reshape(len(out), k)


def designs(xc: np.ndarray, taus: np.ndarray) -> np.ndarray:
    """Design matrices (C, n, k + 2): 1, x, (x - tau_j)+ for each row of joinpoint values ``taus``."""
    n = len(xc)
    c, k = taus.shape
    X = np.empty((c, n, k + 2))
    X[:, :, 0] = 1.0
    X[:, :, 1] = xc
    for j in range(k):
        X[:, :, 2 + j] = np.maximum(xc[None, :] - taus[:, j][:, None], 0.0)
    return X


def grid_sse(X, Y, W=None, feasible=None, chunk_bytes=64_000_000):
    """Smallest (weighted) SSE over candidate designs ``X`` (C, n, p) for each series of ``Y`` (S, n).

    ``feasible(beta, start)``, when given, receives the coefficients (c, S, p) of the candidates
    ``start .. start + c`` and returns a (c, S) boolean mask; infeasible fits are skipped.
    Returns ``(sse, index of the best candidate)``; SSE is ``inf`` where no candidate is feasible.
    """
    s, n = Y.shape
    c, _, p = X.shape
    best_sse = np.full(s, np.inf)
    best_idx = np.zeros(s, dtype=int)
    # every design has the constant column, so each series may be centred first (its SSEs do not change):
    # the SSE = y'y - b'X'y then loses far fewer digits to cancellation (log rates ~ -4 have y'y ~ 300 times
    # the SSE of a good fit); permuted statistics equal to the observed one stay equal to ~1e-14
    if W is None:
        Y = Y - Y.mean(axis=1, keepdims=True)
    else:
        Y = Y - (np.sum(W * Y, axis=1) / np.sum(W, axis=1))[:, None]
    if W is None:
        yy = np.einsum("sn,sn->s", Y, Y)
        G_inv = np.linalg.pinv(np.einsum("cnp,cnq->cpq", X, X))
        per_chunk = max(1, int(chunk_bytes // (8 * s * p * 2 + 1)))
    else:
        WY = W * Y
        yy = np.einsum("sn,sn->s", WY, Y)
        per_chunk = max(1, int(chunk_bytes // (8 * s * p * p * 2 + 1)))
    # the sums over the years as matrix products (BLAS): X'y of every series and candidate is Y @ X_c, and
    # X'WX of every series is W @ (x_p x_q)_c; ~10x faster than the same sums by einsum (4,499 permutations
    # x 91 placements of Brazil's gap test: 1.2 s -> 0.1 s), equal to them to ~1e-15 relative (summation order)
    for start in range(0, c, per_chunk):
        sl = slice(start, start + per_chunk)
        Xc = X[sl]
        if W is None:
            h = np.matmul(Y, Xc)  # (c, s, p)
            beta = np.matmul(h, G_inv[sl].transpose(0, 2, 1))
        else:
            cc = Xc.shape[0]
            outer = (Xc[:, :, :, None] * Xc[:, :, None, :]).reshape(cc, n, p * p)
            G = np.matmul(W, outer).reshape(cc, s, p, p)
            h = np.matmul(WY, Xc)
            beta = np.linalg.solve(G, h[..., None])[..., 0]
        sse = yy[None, :] - np.einsum("csp,csp->cs", beta, h)
        if feasible is not None:
            sse = np.where(feasible(beta, start), sse, np.inf)
        j = np.argmin(sse, axis=0)
        val = sse[j, np.arange(s)]
        better = val < best_sse
        best_sse[better] = val[better]
        best_idx[better] = j[better] + start
    return np.where(np.isfinite(best_sse), np.maximum(best_sse, 0.0), np.inf), best_idx


def final_fit(xc, Y, W, taus):
    """(Weighted) LS with given joinpoints per series (``taus`` (S, k)): coefficients, unscaled
    (X'WX)^-1 and SSE (QR, independent of the normal equations of the grid)."""
    X = designs(xc, taus)  # (S, n, p): one placement per series
    sw = np.ones_like(Y) if W is None else np.sqrt(W)
    Xw = X * sw[:, :, None]
    yw = Y * sw
    q, r = np.linalg.qr(Xw)
    r_inv = np.linalg.inv(r)
    beta = np.einsum("spq,sq->sp", r_inv, np.einsum("snp,sn->sp", q, yw))
    resid = yw - np.einsum("snp,sp->sn", Xw, beta)
    sse = np.sum(resid ** 2, axis=1)
    xtx_inv = np.einsum("sij,skj->sik", r_inv, r_inv)
    return beta, xtx_inv, sse


def slope_matrix(k: int) -> np.ndarray:
    """C with segment slopes = C @ (b0, b1, d_1..d_k): b1 + d_1 + ... + d_(i-1)."""
    C = np.zeros((k + 1, k + 2))
    for i in range(k + 1):
        C[i, 1: 2 + i] = 1.0
    return C
