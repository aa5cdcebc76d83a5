"""Measures for an ordered dimension: ridit ranks, ACI/RCI, SII/RII, Kunst-Mackenbach, concentration.

Every function takes subgroup estimates ``y`` with the subgroups on the last axis and any number of
leading axes (bootstrap replicates), so one call evaluates a whole bootstrap.

Order convention (WHO): ``order`` increases from the most-disadvantaged subgroup to the
most-advantaged one. The ridit rank of subgroup j is the midpoint of its cumulative population share,
``X_j = sum_{k<j} p_k + p_j / 2``; subgroups that share an order value share one rank block.
"""
from __future__ import annotations

import numpy as np
import pandas as pd


def ridit(population, order) -> np.ndarray:
    """Midpoint cumulative population share of each subgroup, ranked by ``order`` (ties share a block).

    X_j = (P(order < o_j) + P(order <= o_j)) / 2, with P the population share (Wagstaff et al. 1991).
    """
    pop = np.asarray(population, dtype=float)
    order = np.asarray(order)
    levels, inverse = np.unique(order, return_inverse=True)
    block = np.bincount(inverse, weights=pop, minlength=len(levels))
    upper = np.cumsum(block) / pop.sum()
    lower = upper - block / pop.sum()
    return ((lower + upper) / 2.0)[inverse]


def absolute_concentration_index(y, share, rank) -> np.ndarray:
    """ACI = sum_j p_j (2 X_j - 1) y_j (Kakwani, Wagstaff & van Doorslaer 1997), grouped data."""
    return np.asarray(y, dtype=float) @ (share * (2.0 * rank - 1.0))


def concentration_regression_se(y, population, rank) -> float:
    """SE of the ACI from Kakwani's "convenient regression", as WHO healthequal/HEAT compute it.

    Regress 2 sigma_R^2 y_j sqrt(n_j) on X_j sqrt(n_j) and sqrt(n_j) (no constant) by OLS; the slope is
    the ACI and its conventional OLS SE is reported (Kakwani, Wagstaff & van Doorslaer 1997). The
    subgroup SEs do not enter; it is the SE of a regression on the grouped points.
    """
    y = np.asarray(y, dtype=float)
    pop = np.asarray(population, dtype=float)
    share = pop / pop.sum()
    sigma2 = np.sum(share * (rank - 0.5) ** 2)
    root = np.sqrt(pop)
    lhs = 2.0 * sigma2 * y * root
    design = np.column_stack([rank * root, root])
    coef, *_ = np.linalg.lstsq(design, lhs, rcond=None)
    resid = lhs - design @ coef
    dof = len(y) - 2
    if dof <= 0:
        return float("nan")
    s2 = resid @ resid / dof
    cov = s2 * np.linalg.inv(design.T @ design)
    return float(np.sqrt(cov[0, 0]))


def logistic_rank_fit(proportion, weights, rank, max_iter: int = 50, tol: float = 1e-6):
    """Binomial logit regression of a proportion on the ridit rank, vectorised over leading axes.

    Fits logit(pi_j) = b0 + b1 X_j by Newton-Raphson (= IRLS for the canonical link) with prior weights
    ``weights`` (the number of trials: births): the maximum-likelihood fit of a binomial GLM on the
    counts (events_j, births_j). Two parameters, so each step is a closed-form 2x2 solve done for every
    replicate at once: b <- b + H^-1 g, with H = sum_j m_j pi_j (1 - pi_j) x_j x_j' and
    g = sum_j m_j (y_j - pi_j) x_j, x_j = (1, X_j).

    Returns (b0, b1, converged) arrays with the leading shape of ``proportion``.
    """
    y = np.asarray(proportion, dtype=float)
    m = np.asarray(weights, dtype=float)
    x = np.asarray(rank, dtype=float)
    lead = y.shape[:-1]
    if y.ndim > 1 and y.shape[0] > 1:
        # replicates: start every row from the fit to the average row (fewer steps)
        a0, a1, _ = logistic_rank_fit(y.reshape(-1, y.shape[-1]).mean(0), m, x, max_iter, tol)
        b0 = np.full(lead, float(a0))
        b1 = np.full(lead, float(a1))
    else:
        # R's binomial starting values, then one weighted least-squares step gives the first b
        mu = (m * y + 0.5) / (m + 1.0)
        eta = np.log(mu / (1.0 - mu))
        w = m * mu * (1.0 - mu)
        zz = eta + (y - mu) / (mu * (1.0 - mu))
        s0, s1, s2 = w.sum(-1), (w * x).sum(-1), (w * x * x).sum(-1)
        t0, t1 = (w * zz).sum(-1), (w * x * zz).sum(-1)
        det = s0 * s2 - s1 * s1
        b1 = np.asarray((s0 * t1 - s1 * t0) / det, dtype=float)
        b0 = np.asarray((t0 - b1 * s1) / s0, dtype=float)
    # weighted sums as matrix-vector products (much faster than elementwise products and sums)
    m_x, m_xx = m * x, m * x * x
    converged = np.zeros(lead, dtype=bool)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        mu = np.empty(y.shape)
        var = np.empty(y.shape)
        for _ in range(max_iter):
            # in place: mu = 1 / (1 + exp(-(b0 + b1 x))), var = mu (1 - mu), resid = y - mu
            np.multiply(-b1[..., None], x, out=mu)
            mu -= b0[..., None]
            np.exp(mu, out=mu)
            mu += 1.0
            np.reciprocal(mu, out=mu)
            np.subtract(1.0, mu, out=var)
            var *= mu
            s0, s1, s2 = var @ m, var @ m_x, var @ m_xx
            np.subtract(y, mu, out=var)  # var now holds the residuals
            g0, g1 = var @ m, var @ m_x
            det = s0 * s2 - s1 * s1
            d0 = (s2 * g0 - s1 * g1) / det
            d1 = (s0 * g1 - s1 * g0) / det
            b0 = b0 + d0
            b1 = b1 + d1
            # Newton converges quadratically: once a step is below tol, what is left is of order tol^2
            converged = np.maximum(np.abs(d0), np.abs(d1)) < tol * (1.0 + np.abs(b0) + np.abs(b1))
            if np.all(converged | ~np.isfinite(d0)):
                break
    return b0, b1, converged


def expit(v):
    return 1.0 / (1.0 + np.exp(-v))


def logistic_rank_hc1(proportion, weights, rank, b0: float, b1: float) -> np.ndarray:
    """HC1 sandwich covariance of (b0, b1) of the binomial logit fit (one fit, no replicate axis).

    V = n/(n-2) * B^-1 (sum_j u_j u_j') B^-1, with B = sum_j m_j pi_j (1 - pi_j) x_j x_j' and score
    u_j = m_j (y_j - pi_j) x_j, x_j = (1, X_j). This is sandwich::vcovHC(type = "HC1") of an R glm,
    the covariance healthequal passes to marginaleffects; the dispersion cancels in the sandwich, so
    binomial and quasibinomial fits give the same value (Zeileis 2006).
    """
    y = np.asarray(proportion, dtype=float)
    m = np.asarray(weights, dtype=float)
    x = np.asarray(rank, dtype=float)
    design = np.column_stack([np.ones_like(x), x])
    pi = expit(b0 + b1 * x)
    bread = np.linalg.inv(design.T @ (design * (m * pi * (1 - pi))[:, None]))
    score = design * (m * (y - pi))[:, None]
    meat = score.T @ score
    n = len(x)
    return n / (n - 2) * bread @ meat @ bread


def logistic_rank_count_cov(weights, rank, b0: float, b1: float, count_variance) -> np.ndarray:
    """Covariance of (b0, b1) from the sampling variance of the subgroup counts (one fit).

    The fit solves sum_j x_j (d_j - m_j pi_j(b)) = 0 in the counts d_j, so by the implicit-function
    theorem db/dd_j = A^-1 x_j with A = sum_j m_j pi_j (1 - pi_j) x_j x_j', and
    V = A^-1 [sum_j Var(d_j) x_j x_j'] A^-1. With Var(d_j) from each subgroup's own counts this is the
    sampling variance of the estimate whether or not the logit line fits the subgroups (a sandwich
    whose meat is the known variance of the counts rather than squared residuals; Huber 1967).
    """
    m = np.asarray(weights, dtype=float)
    x = np.asarray(rank, dtype=float)
    design = np.column_stack([np.ones_like(x), x])
    pi = expit(b0 + b1 * x)
    inv_a = np.linalg.inv(design.T @ (design * (m * pi * (1 - pi))[:, None]))
    meat = design.T @ (design * np.asarray(count_variance, dtype=float)[:, None])
    return inv_a @ meat @ inv_a


def slope_and_relative_index(proportion, weights, rank, scale: float, with_se: bool = False, se=None):
    """SII = scale * (pi(1) - pi(0)) and RII = pi(1) / pi(0) from the logit fit on the ridit rank.

    With ``with_se`` (no replicate axis) also returns the delta-method SEs of SII and of ln RII: from
    the sampling variance of the counts when the subgroup SEs ``se`` (on the scale of ``scale``) are
    given, Var(d_j) = (m_j se_j / scale)^2; otherwise from WHO's HC1 covariance.
    """
    b0, b1, converged = logistic_rank_fit(proportion, weights, rank)
    p0 = expit(b0)
    p1 = expit(b0 + b1)
    sii = scale * (p1 - p0)
    with np.errstate(divide="ignore", invalid="ignore"):
        rii = p1 / p0
    bad = ~converged
    sii = np.where(bad, np.nan, sii)
    rii = np.where(bad, np.nan, rii)
    if not with_se:
        return sii, rii
    if se is None:
        cov = logistic_rank_hc1(proportion, weights, rank, float(b0), float(b1))
    else:
        count_var = (np.asarray(weights, dtype=float) * np.asarray(se, dtype=float) / scale) ** 2
        cov = logistic_rank_count_cov(weights, rank, float(b0), float(b1), count_var)
    g_sii = np.array([p1 * (1 - p1) - p0 * (1 - p0), p1 * (1 - p1)], dtype=float)
    g_log_rii = np.array([(1 - p1) - (1 - p0), 1 - p1], dtype=float)
    se_sii = scale * float(np.sqrt(g_sii @ cov @ g_sii))
    se_log_rii = float(np.sqrt(g_log_rii @ cov @ g_log_rii))
    return float(sii), float(rii), se_sii, se_log_rii


def linear_rank_fit(y, share, rank):
    """Weighted least squares of y on the ridit rank (weights = population share): (intercept, slope)."""
    y = np.asarray(y, dtype=float)
    xbar = np.sum(share * rank)
    ybar = y @ share
    sxx = np.sum(share * (rank - xbar) ** 2)
    slope = (y @ (share * (rank - xbar))) / sxx
    return ybar - slope * xbar, slope


def kunst_mackenbach(y, share, rank) -> np.ndarray:
    """Kunst-Mackenbach relative index: fitted value at the most-disadvantaged end over the most-advantaged.

    KM = (a + b*0) / (a + b*1) from the population-weighted linear regression y = a + b X on the ridit
    rank (Kunst & Mackenbach 1994; Mackenbach & Kunst 1997). For an adverse indicator that rises towards
    the disadvantaged, KM > 1 says how many times higher the rate is at the bottom of the social scale.
    """
    a, b = linear_rank_fit(y, share, rank)
    with np.errstate(divide="ignore", invalid="ignore"):
        return a / (a + b)


def concentration_curve(rates, births, rank) -> pd.DataFrame:
    """Points of the concentration curve: cumulative share of births vs cumulative share of events.

    Units (or groups) are ordered by ``rank`` (from the most-disadvantaged, low rank, to the
    most-advantaged); events are rate x births / 1000. The first row is (0, 0). The concentration
    index is 1 - 2 x (area under the curve) (trapezoids), which equals the RCI on the same groups.
    """
    rates = np.asarray(rates, dtype=float)
    births = np.asarray(births, dtype=float)
    rank = np.asarray(rank)
    idx = np.argsort(rank, kind="stable")
    events = rates[idx] * births[idx] / 1000.0
    pop = np.concatenate([[0.0], np.cumsum(births[idx]) / births.sum()])
    ev = np.concatenate([[0.0], np.cumsum(events) / events.sum()])
    return pd.DataFrame({"rank": np.concatenate([[np.nan], np.asarray(rank, dtype=float)[idx]]),
                         "population_share": pop, "events_share": ev})


def concentration_index_from_curve(y, share, rank) -> np.ndarray:
    """Concentration index as 1 - 2 x area under the concentration curve (trapezoid rule), vectorised.

    Subgroups tied in rank form one point of the curve. With blocks b in rank order, population shares
    s_b and event shares e_b / T, the trapezoid area is sum_b s_b (C_b + C_{b-1}) / 2 with C the
    cumulative event share; exchanging the sums gives area = sum_b e_b v_b / T with
    v_b = (sum_{k>=b} s_k + sum_{k>b} s_k) / 2, one dot product per replicate (O'Donnell et al. 2008).
    """
    levels, inverse = np.unique(np.asarray(rank), return_inverse=True)
    block_share = np.bincount(inverse, weights=share, minlength=len(levels))
    at_or_above = np.cumsum(block_share[::-1])[::-1]
    v = (2.0 * at_or_above - block_share) / 2.0
    unit_weight = share * v[inverse]
    with np.errstate(divide="ignore", invalid="ignore"):
        area = (np.asarray(y) @ unit_weight) / (np.asarray(y) @ share)
    return 1.0 - 2.0 * area
