"""Exact (Clopper-Pearson) and mid-p rate ratios conditional on the total count, vectorised.

Given D1 deaths over n1 births and D0 over n0, conditional on M = D1 + D0 the count D1 ~ Binomial(M, p) with
p = RR·n1/(RR·n1 + n0). Limits of p (Clopper-Pearson, or the mid-p limits bracketed by them) map to
RR = p/(1 − p)·n0/n1 (Rothman & Greenland 1998, Modern Epidemiology; ``epiR`` IRR and
``epitools::rateratio(method="midp")``). Used by :func:`brecha.disparity.rate_ratio` for ``exact`` and ``midp``.
"""
from __future__ import annotations

import numpy as np

from .intervals import divide as _div


def _binom_tails(x, m, p):
    """P(X < x), P(X = x), P(X > x) for X ~ Binomial(m, p), vectorised (scipy.special only)."""
    from scipy.special import bdtr, bdtrc

    x = np.asarray(x).astype(np.int64)
    m = np.asarray(m).astype(np.int64)
    le = bdtr(x, m, p)
    lt = np.where(x > 0, bdtr(np.maximum(x - 1, 0), m, p), 0.0)
    gt = bdtrc(x, m, p)
    return lt, le - lt, gt


def _bisect(func, target, lo, hi, iterations: int = 52):
    """Solve func(p) = target for p in [lo, hi] by bisection; func decreasing in p, vectorised."""
    lo = lo.copy()
    hi = hi.copy()
    for _ in range(iterations):
        mid = (lo + hi) / 2
        above = func(mid) > target
        lo = np.where(above, mid, lo)
        hi = np.where(above, hi, mid)
    return (lo + hi) / 2


def _conditional_p_limits(x, m, alpha, method):
    """Limits (and for mid-p the median-unbiased estimate) of p in X ~ Binomial(m, p), per (x, m) pair.

    Exact: Clopper-Pearson. Mid-p: P(X > x) + P(X = x)/2 = α/2 (lower) and P(X < x) + P(X = x)/2 = α/2
    (upper), each bracketed by the Clopper-Pearson limits (Rothman & Greenland 1998).
    """
    from scipy.special import betaincinv

    with np.errstate(invalid="ignore", divide="ignore"):
        cp_lo = np.where(x > 0, betaincinv(np.maximum(x, 1e-300), m - x + 1, alpha / 2), 0.0)
        cp_up = np.where(x < m, betaincinv(x + 1, np.maximum(m - x, 1e-300), 1 - alpha / 2), 1.0)
    if method == "exact":
        return cp_lo, cp_up, None
    inner = (x > 0) & (x < m)
    plo, pup = cp_lo.copy(), cp_up.copy()
    pmid = np.where(x == 0, 0.0, 1.0)
    if inner.any():
        xi, mi = x[inner], m[inner]

        def lower_tail(p):
            lt, eq, _ = _binom_tails(xi, mi, p)
            return lt + 0.5 * eq

        a, b = cp_lo[inner], cp_up[inner]
        plo[inner] = _bisect(lambda p: lower_tail(p) - 1.0, -alpha / 2, a, b)
        pup[inner] = _bisect(lower_tail, alpha / 2, a, b)
        pmid[inner] = _bisect(lower_tail, 0.5, a, b)
    # x = 0: the mid-p upper limit solves P(X = 0)/2 = α/2
    zero = (x == 0) & (m > 0)
    if zero.any():
        pup[zero] = 1.0 - alpha ** (1.0 / m[zero])
    full = (x == m) & (m > 0)
    if full.any():
        plo[full] = alpha ** (1.0 / m[full])
    return plo, pup, pmid


def _conditional_rr(d1, n1, d0, n0, method, alpha):
    """Exact (Clopper-Pearson) or mid-p limits of RR conditional on D1 + D0 (Rothman & Greenland 1998).

    The limits of p = RR·n1/(RR·n1 + n0) depend only on (D1, D1 + D0): they are solved once per distinct
    pair (a few thousand in a country-sized table) and mapped to RR = p/(1 − p)·n0/n1.
    """
    from scipy.special import bdtr

    x = np.round(d1).astype(np.int64)
    m = np.round(d1 + d0).astype(np.int64)
    pairs, inverse = np.unique(np.stack([x, m]), axis=1, return_inverse=True)
    inverse = inverse.reshape(-1)
    plo_u, pup_u, pmid_u = _conditional_p_limits(pairs[0], pairs[1], alpha, method)
    plo, pup = plo_u[inverse], pup_u[inverse]
    to_rr = lambda p: _div(p, 1.0 - p) * n0 / n1  # noqa: E731
    p0 = n1 / (n1 + n0)
    if method == "exact":
        est = _div(d1 / n1, d0 / n0)
        # two-sided exact p: twice the smaller tail at the null p0 = n1/(n1+n0), capped at 1
        lower_tail = bdtr(x, m, p0)
        upper_tail = 1.0 - np.where(x > 0, bdtr(np.maximum(x - 1, 0), m, p0), 0.0)
        pval = np.minimum(1.0, 2 * np.minimum(lower_tail, upper_tail))
    else:
        pmid = pmid_u[inverse]
        est = np.where(x == 0, 0.0, np.where(x == m, np.inf, to_rr(pmid)))
        lt, eq, gt = _binom_tails(x, m, p0)
        pval = np.minimum(1.0, 2 * np.minimum(lt + 0.5 * eq, gt + 0.5 * eq))
    lower = to_rr(plo)
    upper = np.where(pup >= 1.0, np.inf, to_rr(pup))
    return est, lower, upper, pval

