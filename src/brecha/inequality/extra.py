"""Measures beyond WHO's 21: weighted Gini, percentile ratios, HEAT many-subgroup differences.

Vectorised over leading (replicate) axes; subgroups on the last axis.
"""
from __future__ import annotations

import numpy as np

# HEAT v6 technical notes (pp. 13-14): the measure, the quantile it compares, and the minimum number of
# subgroups (strictly more than this) for HEAT to report it. Unweighted.
MANY_SUBGROUP_DIFFERENCES = {
    "d_p80p20": ("percentile", 0.80, 30),
    "d_q5q1": ("mean", 5, 30),
    "d_p90p10": ("percentile", 0.90, 60),
    "d_d10d1": ("mean", 10, 60),
    "d_p95p5": ("percentile", 0.95, 100),
    "d_v20v1": ("mean", 20, 100),
}


def weighted_gini(y, share, idx=None, ys=None) -> np.ndarray:
    """Population-weighted Gini coefficient of subgroup rates.

    G = sum_i sum_j p_i p_j |y_i - y_j| / (2 mu) = sum_i p_i y_i (2 F_i - 1) / mu, with the subgroups
    sorted by y and F_i = sum_{k<i} p_k + p_i/2 (the mean-difference form; Gini 1912, Lerman & Yitzhaki
    1984). 0 = every unit has the same rate; towards 1 = all deaths in a unit with few births.
    """
    y = np.asarray(y, dtype=float)
    if idx is None:
        idx = np.argsort(y, axis=-1, kind="stable")
    if ys is None:
        ys = np.take_along_axis(y, idx, axis=-1)
    ps = np.asarray(share)[idx]
    # sum p y (2F - 1) / mu with 2F = 2 cumsum(p) - p, and sum p y = mu
    weighted = ps * ys
    mu = weighted.sum(-1)
    two_f = np.cumsum(ps, axis=-1)
    two_f *= 2.0
    two_f -= ps
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.einsum("...i,...i->...", weighted, two_f) / mu - 1.0


def sorted_percentile(sorted_y, q: float) -> np.ndarray:
    """Percentile of rows already sorted along the last axis, linear interpolation (R type 7, numpy)."""
    n = sorted_y.shape[-1]
    h = (n - 1) * q
    lo = int(np.floor(h))
    hi = min(lo + 1, n - 1)
    frac = h - lo
    return sorted_y[..., lo] + frac * (sorted_y[..., hi] - sorted_y[..., lo])


def percentile_ratio(sorted_y, upper: float = 0.90, lower: float = 0.10) -> np.ndarray:
    """P90/P10: the 90th over the 10th percentile of the unit rates (unweighted)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return sorted_percentile(sorted_y, upper) / sorted_percentile(sorted_y, lower)


def many_subgroup_difference(sorted_y, name: str) -> np.ndarray:
    """HEAT many-subgroup differences on rows sorted along the last axis (unweighted).

    ``d_pXXpYY``: the XXth minus the YYth percentile of the subgroup estimates (linear interpolation).
    ``d_q5q1``, ``d_d10d1``, ``d_v20v1``: the mean of the top fifth (tenth, twentieth) of the subgroups
    minus the mean of the bottom one; each fraction holds floor(n/k) subgroups (at least one).
    """
    kind, q, _ = MANY_SUBGROUP_DIFFERENCES[name]
    if kind == "percentile":
        return sorted_percentile(sorted_y, q) - sorted_percentile(sorted_y, 1.0 - q)
    n = sorted_y.shape[-1]
    k = max(1, n // int(q))
    return sorted_y[..., n - k:].mean(-1) - sorted_y[..., :k].mean(-1)
