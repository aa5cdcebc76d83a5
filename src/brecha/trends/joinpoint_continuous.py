"""The best k-joinpoint fit of each series: joinpoints at data years (NCI's default grid) or anywhere
between them (continuous, as ``segmented`` and NCI's finer grids allow), found exactly.

Continuous joinpoints (Hudson 1966): when the joinpoint tau_j lies strictly inside the interval
(x_i, x_i+1), the data on either side are fixed and the least-squares fit is stationary in tau_j only if
the two neighbouring lines are otherwise unconstrained there. So the optimum with tau_j in that open
interval is the *relaxed* fit in which the line may change both level and slope between x_i and x_i+1
(columns 1[x >= x_i+1] and (x - x_i+1)+), provided the two lines cross inside the interval:
tau_j = x_i+1 - s_j / d_j with s_j the step and d_j the slope change. Each joinpoint is either at a data
point (the usual column (x - x_i)+) or free in an interval; every such configuration allowed by NCI's rules
(a joinpoint inside an interval must satisfy them at both ends of its interval, see
:func:`configurations`) is fitted at once and the feasible one with the smallest SSE is the global
continuous optimum (a grid search on a
finite grid, as NCI's, can only approach it). Checked against ``segmented`` (Muggeo 2003) on
REFERENCE_WAVE2 W.4: joinpoints 8.793040439 and 15.249018916.

References: Hudson DJ (1966), JASA 61:1097-1129; Muggeo VMR (2003), Stat Med 22:3055-3071.
"""
from __future__ import annotations

from itertools import combinations, product

import numpy as np

from .joinpoint_fit import designs, grid_sse, placements


def _allowed_points(c, n, min_end, min_between) -> bool:
    """NCI's rules for joinpoints at data indices ``c`` (ascending)."""
    return (c[0] >= min_end and n - 1 - c[-1] >= min_end
            and all(b - a - 1 >= min_between for a, b in zip(c[:-1], c[1:])))


def configurations(n: int, k: int, min_end: int = 2, min_between: int = 2) -> np.ndarray:
    """Joinpoint positions in doubled index units: 2i = at data point i, 2i + 1 = inside (x_i, x_i+1).

    A joinpoint at a data point follows NCI's rules (:func:`brecha.trends.joinpoint_fit.placements`). A
    joinpoint inside (x_i, x_i+1) is allowed when the rules hold with it moved to either end of its
    interval (every corner of the box allowed): the allowed region is then closed, so the best fit exists
    and is found exactly. (Counting only the observations strictly on each side, as NCI words the rule,
    would let the best fit creep towards a forbidden year without reaching it.)"""
    if k == 0:
        return np.zeros((1, 0), dtype=int)
    out = []
    for c in combinations(range(1, 2 * n - 2), k):
        choices = [(d // 2,) if d % 2 == 0 else (d // 2, d // 2 + 1) for d in c]
        if all(_allowed_points(corner, n, min_end, min_between) for corner in product(*choices)):
            out.append(c)
    return np.array(out, dtype=int).reshape(len(out), k)


def _relaxed_designs(xc, conf):
    """Designs of the configurations ``conf`` (all with the same number of free joinpoints)."""
    n = len(xc)
    c, k = conf.shape
    free = conf % 2 == 1
    h = int(free[0].sum()) if c else 0
    X = np.zeros((c, n, 2 + k + h))
    X[:, :, 0] = 1.0
    X[:, :, 1] = xc
    col = 2
    extra = 2 + k
    free_cols = np.zeros((c, h, 3), dtype=int)  # step column, slope column, interval index i
    counter = np.zeros(c, dtype=int)
    for j in range(k):
        i = conf[:, j] // 2
        at_point = ~free[:, j]
        knot = np.where(at_point, xc[i], xc[np.minimum(i + 1, n - 1)])
        X[:, :, col] = np.maximum(xc[None, :] - knot[:, None], 0.0)
        rows = np.flatnonzero(~at_point)
        if len(rows):
            pos = counter[rows]
            step_col = extra + pos
            X[rows[:, None], np.arange(n)[None, :], step_col[:, None]] = (xc[None, :] >= knot[rows][:, None])
            free_cols[rows, pos] = np.column_stack([step_col, np.full(len(rows), col), i[rows]])
            counter[rows] += 1
        col += 1
    return X, free_cols


def _crossings(beta, free_cols, xc):
    """tau of each free joinpoint: x_i+1 - step / slope change; NaN when the lines are parallel."""
    c, s, _ = beta.shape
    h = free_cols.shape[1]
    taus = np.empty((c, s, h))
    rows = np.arange(c)[:, None]
    for m in range(h):
        step = beta[rows, np.arange(s)[None, :], free_cols[:, m, 0][:, None]]
        slope = beta[rows, np.arange(s)[None, :], free_cols[:, m, 1][:, None]]
        right = xc[np.minimum(free_cols[:, m, 2] + 1, len(xc) - 1)][:, None]
        with np.errstate(divide="ignore", invalid="ignore"):
            taus[:, :, m] = right - step / slope
    return taus


def best_fits(xc, Y, W, k, min_end=2, min_between=2, continuous=False, stack=None):
    """Best k-joinpoint fit of each series: ``(sse (S,), taus (S, k))`` in the coordinates of ``xc``.

    ``sse`` is ``inf`` (and ``taus`` NaN) where no placement is allowed. ``stack(X) -> X'`` turns the
    candidate designs (C, n, p) into those of a pooled model (C, n', p' >= p, the first p columns kept),
    ``Y`` and ``W`` then being (S, n') (:mod:`brecha.trends.comparability`).
    """
    s = Y.shape[0]
    n = len(xc)
    stack = stack or (lambda X: X)
    if not continuous:
        knots = placements(n, k, min_end, min_between)
        if len(knots) == 0:
            return np.full(s, np.inf), np.full((s, k), np.nan)
        sse, idx = grid_sse(stack(designs(xc, xc[knots])), Y, W)
        return sse, xc[knots[idx]]
    conf = configurations(n, k, min_end, min_between)
    best_sse = np.full(s, np.inf)
    best_tau = np.full((s, k), np.nan)
    if len(conf) == 0:
        return best_sse, best_tau
    n_free = (conf % 2 == 1).sum(axis=1)
    for h in np.unique(n_free):
        group = conf[n_free == h]
        X, free_cols = _relaxed_designs(xc, group)
        X = stack(X)

        def feasible(beta, start, free_cols=free_cols, h=h):
            if h == 0:
                return np.ones(beta.shape[:2], dtype=bool)
            fc = free_cols[start: start + beta.shape[0]]
            t = _crossings(beta, fc, xc)
            left = xc[fc[:, :, 2]][:, None, :]
            right = xc[np.minimum(fc[:, :, 2] + 1, n - 1)][:, None, :]
            return np.all((t > left) & (t < right), axis=2)

        sse, idx = grid_sse(X, Y, W, feasible=feasible)
        better = sse < best_sse
        if not better.any():
            continue
        rows = np.flatnonzero(better)
        chosen = group[idx[rows]]
        taus = np.where(chosen % 2 == 0, xc[chosen // 2], np.nan)
        if h:
            # the crossing points of the winners, from their own relaxed fit
            Xw = X[idx[rows]]
            sw = np.ones((len(rows), Y.shape[1])) if W is None else np.sqrt(W[rows])
            beta = np.stack([np.linalg.lstsq(Xw[m] * sw[m][:, None], Y[r] * sw[m], rcond=None)[0]
                             for m, r in enumerate(rows)])
            cross = _crossings(beta[:, None, :], free_cols[idx[rows]], xc)[:, 0, :]
            free = chosen % 2 == 1
            taus[free] = cross.reshape(-1)  # row-major: the free joinpoints of each winner in order
        best_sse[rows] = sse[rows]
        best_tau[rows] = taus
    return best_sse, best_tau
