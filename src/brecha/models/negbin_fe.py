"""Negative binomial NB2 with unit fixed effects: the unconditional (dummy-variable) estimator of
Allison & Waterman (2002), by an exact Newton-Raphson that concentrates the unit effects out of each step
(arrow-shaped Hessian, Schur complement), with the likelihood-ratio test of alpha = 0.

Model and likelihood: see :func:`nb2_row_terms` and :func:`negbin_fixed_effects`; the shared pieces of the
count models (design, SE options, standardisation) come from ``count``.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ._design import Design
from ._scaling import hessian_problems, safe_inverse
from .count import (ALPHA_BOUNDARY, _count_data, _scaled, _se_for_counts, _small_sample,
                    conditional_poisson, units_with_events)
from .results import Fit


ALPHA_BOUNDS = (1e-8, 1e2)     # search range of the NB2 dispersion alpha


def _lgamma_ratio_parts(y: np.ndarray, alpha: float):
    """C(y) = lnG(y + 1/a) - lnG(1/a) + y ln a and its first two derivatives in a, per row.

    For integer counts C(y) = sum_{j<y} log1p(j a), dC/da = sum_{j<y} j/(1 + j a) and
    d2C/da2 = -sum_{j<y} j^2/(1 + j a)^2, computed as cumulative sums over j = 0..max(y): exact and free of
    the cancellation of lnG(y + 1/a) - lnG(1/a) when a is small. Non-integer counts use the gamma functions.
    """
    yi = np.rint(y)
    if np.all(np.abs(y - yi) < 1e-9) and y.size and yi.max() <= 1e7:
        yi = yi.astype(np.int64)
        j = np.arange(int(yi.max()) + 1, dtype=float)
        c0 = np.concatenate([[0.0], np.cumsum(np.log1p(j * alpha))])
        c1 = np.concatenate([[0.0], np.cumsum(j / (1 + j * alpha))])
        c2 = np.concatenate([[0.0], np.cumsum(-(j / (1 + j * alpha)) ** 2)])
        return c0[yi], c1[yi], c2[yi]
    from scipy.special import digamma, gammaln, polygamma

    v = 1.0 / alpha
    d_psi = digamma(y + v) - digamma(v)
    d_psi1 = polygamma(1, y + v) - polygamma(1, v)
    c0 = gammaln(y + v) - gammaln(v) + y * np.log(alpha)
    c1 = y / alpha - d_psi / alpha ** 2
    c2 = -y / alpha ** 2 + 2 * d_psi / alpha ** 3 + d_psi1 / alpha ** 4
    return c0, c1, c2


def nb2_row_terms(y, eta, alpha: float, derivatives: str = "eta"):
    """NB2 log-likelihood per row, Var = mu + alpha mu^2, mu = exp(eta) (Cameron & Trivedi 2013, 3.3):

    l = lnG(y + v) - lnG(v) - lnG(y + 1) + y ln(a mu) - (y + v) ln(1 + a mu),  v = 1/a,

    with dl/deta = (y - mu)/(1 + a mu) and d2l/deta2 = -mu (1 + a y)/(1 + a mu)^2. With
    ``derivatives="all"`` also the derivatives in lambda = ln a (dl/dlambda, d2l/dlambda2, d2l/deta dlambda).
    """
    from scipy.special import gammaln

    mu = np.exp(eta)
    am = alpha * mu
    L = np.log1p(am)
    c0, c1, c2 = _lgamma_ratio_parts(y, alpha)
    ll = c0 - gammaln(y + 1) + y * eta - y * L - L / alpha
    s_eta = (y - mu) / (1 + am)
    h_eta = -mu * (1 + alpha * y) / (1 + am) ** 2
    if derivatives != "all":
        return ll, s_eta, h_eta
    l_a = c1 - y * mu / (1 + am) + L / alpha ** 2 - mu / (alpha * (1 + am))
    l_aa = (c2 + y * mu ** 2 / (1 + am) ** 2 + mu / (alpha ** 2 * (1 + am)) - 2 * L / alpha ** 3
            + mu * (1 + 2 * am) / (alpha ** 2 * (1 + am) ** 2))
    l_ea = -(y - mu) * mu / (1 + am) ** 2
    return ll, s_eta, h_eta, alpha * l_a, alpha ** 2 * l_aa + alpha * l_a, alpha * l_ea


def _nb_fe_parts(y, X, offset, inv, starts, a, beta, alpha, with_alpha):
    """Log-likelihood, gradient and the arrow-shaped Hessian of the dummy-variable NB2 model.

    Parameters: one intercept a_i per unit (the unit effects) and the global ones g = (beta[, ln alpha]).
    The Hessian has a diagonal unit block D, a cross block B (n x m) and a global block C (m x m).
    Rows are sorted by unit (``starts``: first row of each unit), so unit sums are ``np.add.reduceat``.
    """
    eta = offset + a[inv] + X @ beta
    parts = nb2_row_terms(y, eta, alpha, "all" if with_alpha else "eta")
    ll_rows, s_eta, h_eta = parts[:3]
    K = X.shape[1]
    m = K + (1 if with_alpha else 0)
    C = np.empty((m, m))
    HX = X * h_eta[:, None]
    C[:K, :K] = HX.T @ X
    score_rows = np.empty((len(y), m))
    score_rows[:, :K] = X * s_eta[:, None]
    cross = np.empty((len(y), m + 2))
    cross[:, 0] = s_eta
    cross[:, 1] = h_eta
    cross[:, 2:K + 2] = HX
    if with_alpha:
        s_lam, h_lam, h_eta_lam = parts[3:]
        cross[:, K + 2] = h_eta_lam
        C[:K, K] = C[K, :K] = X.T @ h_eta_lam
        C[K, K] = h_lam.sum()
        score_rows[:, K] = s_lam
    sums = np.add.reduceat(cross, starts, axis=0)
    return float(ll_rows.sum()), sums[:, 0], score_rows, sums[:, 1], sums[:, 2:], C


def _schur(D, B, C):
    """Global block of the Hessian with the unit effects concentrated out: S = C - B' D^-1 B."""
    return C - B.T @ (B / D[:, None])


def _nb_fe_newton(y, X, offset, inv, starts, a, beta, log_alpha, with_alpha, tol=1e-10, max_iter=100):
    """Newton-Raphson with step halving on (a, beta[, ln alpha]); each step solves the arrow system
    through the Schur complement, O(N m^2 + m^3) however many units."""
    K = X.shape[1]

    def evaluate(a_, b_, la_):
        return _nb_fe_parts(y, X, offset, inv, starts, a_, b_, float(np.exp(la_)), with_alpha)

    ll, ga, rows, D, B, C = evaluate(a, beta, log_alpha)
    for _ in range(max_iter):
        gg = rows.sum(axis=0)
        S = _schur(D, B, C)
        try:
            dg = np.linalg.solve(S, -(gg - B.T @ (ga / D)))
        except np.linalg.LinAlgError:
            dg = np.linalg.lstsq(S, -(gg - B.T @ (ga / D)), rcond=None)[0]
        da = -(ga + B @ dg) / D
        step = 1.0
        for _halving in range(40):
            a_t = a + step * da
            b_t = beta + step * dg[:K]
            la_t = log_alpha + step * dg[K] if with_alpha else log_alpha
            trial = evaluate(a_t, b_t, la_t)
            if np.isfinite(trial[0]) and trial[0] >= ll - 1e-12 * abs(ll):
                break
            step /= 2
        a, beta, log_alpha = a_t, b_t, la_t
        ll, ga, rows, D, B, C = trial
        size = step * max(np.max(np.abs(da)), np.max(np.abs(dg)))
        if size < tol * (1 + np.max(np.abs(beta))):
            break
    return a, beta, log_alpha, ll, ga, rows, D, B, C


def negbin_fixed_effects(y, X, offset, unit_index, tol: float = 1e-10):
    """Unconditional negative binomial (NB2) with one intercept per unit, by maximum likelihood.

    log mu_it = offset_it + a_i + x_it'b, Var(y_it) = mu_it + alpha mu_it^2 (Allison & Waterman 2002).
    Units with no event at all drop out (their a_i would be -infinity and they carry no information on b).
    Start: b from the conditional Poisson, a_i = ln(Y_i / sum_t exp(offset + x'b)); alpha by maximising the
    profile likelihood (unit effects and b re-estimated at each alpha) over [1e-8, 100], then a joint
    Newton-Raphson on all parameters. If alpha ends below 1e-6 it is taken as 0 (the Poisson limit) and the
    covariance is that of b with alpha fixed.

    Returns a dict: beta, log_alpha, alpha, at_boundary, S (global Hessian with the unit effects
    concentrated out, whose -inverse is the covariance of (b[, ln alpha]) from the full information
    matrix), unit_scores (G x m: sums of the global scores per unit), llf, kept (rows used), a.
    """
    from scipy import optimize

    y, X, offset, inv, kept = units_with_events(y, X, offset, unit_index)
    n = int(inv.max()) + 1
    order = np.argsort(inv, kind="stable")      # rows sorted by unit: unit sums by np.add.reduceat
    y, X, offset, inv = y[order], np.asfortranarray(X[order]), offset[order], inv[order]
    starts = np.flatnonzero(np.r_[True, inv[1:] != inv[:-1]])
    from scipy.special import gammaln

    beta, *_ = conditional_poisson(y, X, offset, inv)
    Y = np.bincount(inv, weights=y, minlength=n)

    def unit_start(b):
        return np.log(Y) - np.log(np.bincount(inv, weights=np.exp(offset + X @ b), minlength=n))

    state = {"a": unit_start(beta), "beta": beta}
    # log-likelihood of the dummy-variable Poisson at its maximum (the conditional Poisson slopes, and the
    # unit intercepts above are their exact maximisers), for the likelihood-ratio test of alpha = 0
    eta_p = offset + state["a"][inv] + X @ beta
    llf_poisson = float(np.sum(y * eta_p - np.exp(eta_p) - gammaln(y + 1)))

    def profile(log_alpha):
        a, b, _, ll, *_ = _nb_fe_newton(y, X, offset, inv, starts, state["a"], state["beta"], log_alpha, False,
                                        tol=1e-7)
        state["a"], state["beta"] = a, b
        return -ll

    lo, hi = np.log(ALPHA_BOUNDS[0]), np.log(ALPHA_BOUNDS[1])
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        opt = optimize.minimize_scalar(profile, bounds=(lo, hi), method="bounded", options={"xatol": 1e-3})
        log_alpha = float(opt.x)
        at_boundary = np.exp(log_alpha) < ALPHA_BOUNDARY
        if at_boundary:
            log_alpha = lo
        a, beta, log_alpha, ll, ga, rows, D, B, C = _nb_fe_newton(
            y, X, offset, inv, starts, state["a"], state["beta"], log_alpha, not at_boundary, tol=tol)
        if not at_boundary and np.exp(log_alpha) < ALPHA_BOUNDARY:
            at_boundary = True
            a, beta, log_alpha, ll, ga, rows, D, B, C = _nb_fe_newton(
                y, X, offset, inv, starts, a, beta, lo, False, tol=tol)
    S = _schur(D, B, C)
    unit_scores = np.add.reduceat(rows, starts, axis=0)
    # NB2 deviance (Poisson deviance at the boundary), for Allison & Waterman's SE correction
    mu = np.exp(offset + a[inv] + X @ beta)
    with np.errstate(divide="ignore", invalid="ignore"):
        y_log = np.where(y > 0, y * np.log(y / mu), 0.0)
    alpha_hat = 0.0 if at_boundary else float(np.exp(log_alpha))
    if alpha_hat > 0:
        deviance = 2 * np.sum(y_log - (y + 1 / alpha_hat) * (np.log1p(alpha_hat * y) - np.log1p(alpha_hat * mu)))
    else:
        deviance = 2 * np.sum(y_log - (y - mu))
    return {"deviance": float(deviance), "beta": beta, "log_alpha": float(log_alpha), "alpha": float(np.exp(log_alpha)),
            "at_boundary": bool(at_boundary), "S": S, "unit_scores": unit_scores, "llf": ll,
            "kept": kept, "a": a, "max_unit_score": float(np.max(np.abs(ga))), "llf_poisson": llf_poisson}


def fit_negbin_fe(design: Design, se: str = "clustered", time_effects: bool = False) -> Fit:
    """Negative binomial NB2 with unit fixed effects (one indicator per unit), offset log(births).

    The unconditional dummy-variable estimator, not the Hausman-Hall-Griliches conditional NB (Stata
    ``xtnbreg, fe``), whose unit effects enter the dispersion rather than the mean and so are not true fixed
    effects; Allison & Waterman (2002) show by simulation that the unconditional estimator's slopes show
    little incidental-parameters bias. Time-invariant covariates drop out. SEs: model-based (inverse of the
    full information matrix, unit effects concentrated out) or, for robust and clustered, the sandwich of the
    unit scores times G/(G-1) (as ``poisson_fe``).
    """
    cols = design.time_varying
    if not cols:
        return None
    y, X, offset, hidden = _count_data(design, cols, time_effects, intercept=False)
    kind, label = _se_for_counts(se)
    Xs, scaling = _scaled(X, cols, intercept=False)
    res = negbin_fixed_effects(y, Xs, offset, design.unit_index)
    S = res["S"]
    problems = hessian_problems(S, bool(np.all(np.isfinite(res["beta"]))))
    bread = safe_inverse(-S)
    if kind == "unadjusted":
        V = bread
    else:
        U = res["unit_scores"]
        G = U.shape[0]
        V = bread @ (U.T @ U * _small_sample(G)) @ bread
        if kind == "robust":
            label = "robust = clustered by unit (sandwich of unit scores)"
    names = list(X.columns) + ([] if res["at_boundary"] else ["log_alpha"])
    p, V = scaling.back(np.append(res["beta"], [] if res["at_boundary"] else [res["log_alpha"]]), V,
                        extra=0 if res["at_boundary"] else 1)
    params = pd.Series(p, index=names)
    cov = pd.DataFrame(V, index=names, columns=names)
    kept = res["kept"]
    n_used = int(kept.sum())
    units_used = int(pd.Series(design.unit_index[kept]).nunique())
    variant = ("unconditional negative binomial NB2 with unit indicators (Allison-Waterman 2002), offset "
               "log(births)" + (", year effects" if time_effects else ""))
    alpha = 0.0 if res["at_boundary"] else res["alpha"]
    # at the boundary the NB2 likelihood's supremum is its alpha -> 0 limit, the Poisson likelihood
    llf = res["llf_poisson"] if res["at_boundary"] else res["llf"]
    df_resid = float(n_used - units_used - len(names))
    info = {"alpha": alpha, "llf": llf, "llf_poisson_fe": res["llf_poisson"], "deviance": res["deviance"],
            "deviance_ratio": res["deviance"] / df_resid if df_resid > 0 else np.nan,
            "alpha_at_zero": res["at_boundary"],
            "units_dropped_no_events": int(design.n_units - units_used),
            "rows_dropped_no_events": int(len(y) - n_used)}
    if not res["at_boundary"]:
        from ..distributions import normal_quantile

        se_log = float(np.sqrt(V[-1, -1]))
        q = normal_quantile(0.975)
        info["alpha_lower"] = float(np.exp(res["log_alpha"] - q * se_log))
        info["alpha_upper"] = float(np.exp(res["log_alpha"] + q * se_log))
    return Fit("negbin_fe", variant, params, cov, label, "normal", df_resid, n_used, units_used, info,
               rate_ratio=True, hidden_terms=tuple(hidden) + ("log_alpha",), problems=tuple(problems))


def overdispersion_lr_test(fit: Fit) -> tuple[float, float]:
    """Likelihood-ratio test of alpha = 0 (Poisson) against the NB2, both with unit indicators.

    LR = 2 (l_NB - l_Poisson); alpha = 0 is on the boundary of the parameter space, so the null distribution
    is the 50:50 mixture of chi2(0) and chi2(1): p = P(chi2(1) > LR) / 2 (Self & Liang 1987; Cameron &
    Trivedi 2013, 3.4). Returns (LR, p).
    """
    from ..distributions import chi2_sf

    lr = max(0.0, 2.0 * (fit.info["llf"] - fit.info["llf_poisson_fe"]))
    return lr, float(0.5 * chi2_sf(lr, 1)) if lr > 0 else 1.0
