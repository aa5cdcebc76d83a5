"""Random effects by Swamy-Arora, exactly as R plm computes it, on balanced and unbalanced panels;
and correlated random effects (Mundlak 1978).

Model: y_it = a + x_it'b + u_i + e_it, u_i ~ (0, s2_u), e_it ~ (0, s2_e); unit i has T_i years, N = sum T_i
rows, n units, K regressors besides the intercept.

Variance components (Swamy & Arora 1972; for unbalanced panels Baltagi & Chang 1994, as in plm's
``ercomp(method = "swar")``; Baltagi 2013, section 9.2.1):

- s2_e = e_W'e_W / (N - n - K_W), e_W the residuals of the within regression (y_it - ybar_i on
  x_it - xbar_i; K_W = rank of the demeaned regressors, so time-invariant ones do not count).
- s2_u = (e_B'e_B - (n - K_B) s2_e) / (N - tr[(Z'Z)^-1 Z'DZ]), where the between regression is OLS of
  ybar_i on (1, xbar_i) **at the observation level** (each unit's means repeated T_i times, so e_B'e_B =
  sum_i T_i e_Bi^2), Z is that N x (K+1) matrix of repeated means, K_B its rank, and D = diag(T_i)
  (computed as the same regression on the n unit rows weighted by T_i). In a
  balanced panel this reduces to s2_u = s2_1/T - s2_e/T with s2_1 = T e_B'e_B/(n - K - 1).
- theta_i = 1 - sqrt(s2_e / (T_i s2_u + s2_e)): one value per unit in an unbalanced panel.

Estimates: OLS of y_it - theta_i ybar_i on (1 - theta_i, x_it - theta_i xbar_i) (quasi-demeaning);
conventional SEs use s2 = e*'e* / (N - K - 1) and normal p-values, as plm reports them. R² is plm's:
1 - e*'e* / sum (y*_it - mean y*)², centred, also when theta varies by unit (:func:`plm_r_squared`).

Why not linearmodels' ``RandomEffects``: its variance components differ from plm's on unbalanced panels
(on Grunfeld with rows removed it gives an intercept of -72.02 and s2_u 7230 against plm's -71.65 and
6657; on Chilean communes 2000-2015 s2_u 1.317 against 0.959), so it is not used.

Correlated random effects (Mundlak 1978; Wooldridge 2010, section 10.7.3): the random-effects model
with the unit means xbar_i of the time-varying covariates added. Its slopes on x_it equal the within
estimates; time-invariant covariates keep a coefficient; the Wald test that the coefficients of the
means are zero is the regression-based (robust, when clustered) Hausman test.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ._design import Design
from .linear import dk_bandwidth, resolve_se, se_label
from .results import Fit

VARIANT = "Swamy-Arora (plm ercomp 'swar'; Baltagi-Chang 1994 for unbalanced panels)"


def _unit_means(a: np.ndarray, inv: np.ndarray, n: int, t_i: np.ndarray) -> np.ndarray:
    a = a.reshape(len(a), -1)
    s = np.empty((n, a.shape[1]))
    for j in range(a.shape[1]):
        s[:, j] = np.bincount(inv, weights=a[:, j], minlength=n)
    return s / t_i[:, None]


def within_keep(X: np.ndarray, Xw: np.ndarray) -> np.ndarray:
    """The columns of the within regression: those whose demeaned values do not vanish (time-invariant
    columns do), |xw| > 1e-10 max(|x|, 1)."""
    if not X.size:
        return np.zeros(X.shape[1], bool)
    return np.abs(Xw).max(axis=0) > 1e-10 * np.maximum(np.abs(X).max(axis=0), 1.0)


def _within_regression(y, X, ybar, Xbar, inv) -> tuple[np.ndarray, int]:
    """Residuals and rank K_W of OLS of y_it - ybar_i on the columns of x_it - xbar_i that do not vanish."""
    Xw = X - Xbar[inv]
    yw = y - ybar[inv]
    Xw = Xw[:, within_keep(X, Xw)]
    if not Xw.shape[1]:
        return yw, 0
    # the rank comes with the solution (same threshold as matrix_rank: eps * max(N, k) * largest s.v.)
    bw, _, k_w, _ = np.linalg.lstsq(Xw, yw, rcond=None)
    return yw - Xw @ bw, int(k_w)


def swamy_arora(y: np.ndarray, X: np.ndarray | None, unit_index: np.ndarray, means=None, within=None) -> dict:
    """Swamy-Arora variance components as plm computes them (balanced or unbalanced).

    ``X`` holds the regressors **without** the intercept (time-invariant ones allowed). Returns
    ``sigma2_e, sigma2_u, theta`` (per row), ``theta_unit`` (per unit), ``t_i`` and the dfs.
    ``means`` = (ybar_i, Xbar_i) when the call has them already (``PanelArrays``); ``within`` = (e_W, K_W),
    the within regression's residuals and rank, when computed elsewhere (then ``X`` is not used and may be
    None; ``means`` is required).
    """
    y = np.asarray(y, float)
    inv = np.asarray(unit_index)
    n = int(inv.max()) + 1
    N = len(y)
    t_i = np.bincount(inv, minlength=n).astype(float)
    if within is None:
        X = np.asarray(X, float).reshape(len(y), -1)
    if means is None:
        ybar = _unit_means(y, inv, n, t_i)[:, 0]
        Xbar = _unit_means(X, inv, n, t_i)
    else:
        ybar, Xbar = means[0], np.asarray(means[1], float).reshape(n, -1)
    if within is not None:
        ew, k_w = within
    else:
        ew, k_w = _within_regression(y, X, ybar, Xbar, inv)
    df_w = N - n - k_w
    sigma2_e = float(ew @ ew / df_w)
    # The between regression at the observation level (unit means repeated T_i times) is the unit-level
    # regression weighted by T_i: Z'Z = sum_i T_i z_i z_i', Z'DZ = sum_i T_i^2 z_i z_i', e_B'e_B =
    # sum_i T_i e_Bi^2, rank(Z) = rank(sqrt(T_i) z_i). Computed on n rows instead of N.
    root = np.sqrt(t_i)
    Zu = np.column_stack([np.ones(n), Xbar])
    bb, _, k_b, _ = np.linalg.lstsq(Zu * root[:, None], ybar * root, rcond=None)
    eb = ybar - Zu @ bb
    ZtZ = (Zu * t_i[:, None]).T @ Zu
    ZDZ = (Zu * (t_i ** 2)[:, None]).T @ Zu
    trace = float(np.trace(np.linalg.pinv(ZtZ) @ ZDZ))
    sigma2_u = float((t_i @ eb ** 2 - (n - k_b) * sigma2_e) / (N - trace))
    truncated = sigma2_u < 0
    s2u = max(sigma2_u, 0.0)
    theta_unit = 1.0 - np.sqrt(sigma2_e / (t_i * s2u + sigma2_e))
    return {"sigma2_e": sigma2_e, "sigma2_u": s2u, "sigma2_u_raw": sigma2_u, "truncated": truncated,
            "theta": theta_unit[inv], "theta_unit": theta_unit, "t_i": t_i, "df_within": df_w,
            "ybar": ybar, "Xbar": Xbar, "balanced": bool(np.all(t_i == t_i[0]))}


def quasi_demean(values: np.ndarray, theta: np.ndarray, unit_index: np.ndarray) -> np.ndarray:
    """x_it - theta_i xbar_i for each column."""
    values = np.asarray(values, float)
    two_d = values.ndim == 2
    v = values.reshape(len(values), -1)
    inv = np.asarray(unit_index)
    n = int(inv.max()) + 1
    t_i = np.bincount(inv, minlength=n).astype(float)
    means = _unit_means(v, inv, n, t_i)
    out = v - theta[:, None] * means[inv]
    return out if two_d else out[:, 0]


def plm_r_squared(y_star: np.ndarray, resid: np.ndarray, df_resid: int) -> tuple[float, float]:
    """R² of the random-effects model as R plm reports it (``r.squared``, type "rss"; ``summary.plm``):
    the centred R² of the quasi-demeaned regression,

        R² = 1 - SSR / TSS,  SSR = e*'e*,  TSS = sum (y*_it - mean(y*))²,

    with y*_it = y_it - theta_i ybar_i, and the adjusted R² = 1 - (1 - R²)(N - 1)/df_resid.

    Why it is computed here: in an unbalanced panel theta varies by unit, so the transformed intercept
    column (1 - theta_i) is not constant and a library that detects no constant (linearmodels) reports the
    uncentred 1 - SSR / sum y*²: 0.5156 on the README's Chilean example where plm gives 0.003155. In a
    balanced panel both agree.
    """
    y_star = np.asarray(y_star, float)
    ssr = float(resid @ resid)
    tss = float(np.sum((y_star - y_star.mean()) ** 2))
    r2 = 1.0 - ssr / tss if tss > 0 else float("nan")
    adj = 1.0 - (1.0 - r2) * (len(y_star) - 1) / df_resid if df_resid > 0 else float("nan")
    return r2, adj


def components_of(design: Design, time_effects: bool) -> dict:
    """Swamy-Arora components of the call (regressors without the Mundlak means), from its arrays'
    unit means (``Design.arrays()``): computed once per call and shared by ``re``, ``cre`` and the tests."""
    a = design.arrays()
    if not time_effects:
        return swamy_arora(a.y, a.X, a.units, means=(a.y_bar, a.X_bar))
    # With year indicators among the regressors, the within regression is the two-way within one
    # (Frisch-Waugh-Lovell: the call's two-way arrays, shared with fe2), K_W = rank of the demeaned
    # indicators + rank of the two-way covariates; the between regression gets the indicators' unit means
    # (the share of each unit's rows in each year). No N x (T-1) matrix (``year_indicators``).
    from .year_indicators import projection

    keep = a.varies_within()
    ind = a.year_indicators("within")
    _, rank_d = projection(ind)
    y2, X2 = a.within_two_way()
    X2 = X2[:, keep]
    if X2.shape[1]:
        b2, _, k_x, _ = np.linalg.lstsq(X2, y2, rcond=None)
        ew = y2 - X2 @ b2
    else:
        ew, k_x = y2, 0
    del X2
    Xbar = np.hstack([a.X_bar, ind.W[:, 1:]])
    return swamy_arora(a.y, None, a.units, means=(a.y_bar, Xbar), within=(ew, rank_d + int(k_x)))


def fit_random(design: Design, se: str = "clustered", time_effects: bool = False, mundlak: bool = False,
               components: dict | None = None, *, unadjusted: bool = True) -> Fit:
    """Random effects (Swamy-Arora, plm-compatible), or correlated random effects with ``mundlak=True``.

    The variance components always come from the model without the Mundlak means (the means vanish in
    the within regression and are collinear in the between regression, so plm gets the same values).
    Year effects, when asked, enter as year indicator regressors. Weights are not used (plm's
    Swamy-Arora has no weighted form); the caller says so in the notes.

    Estimated by OLS of the quasi-demeaned arrays y_it - theta_i ybar_i on (1 - theta_i,
    x_it - theta_i xbar_i) with the call's unit means (``Design.arrays()``), covariances as linearmodels
    ``PooledOLS`` gives them on those arrays (``least_squares``); ``unadjusted=True`` adds the conventional
    covariance from the same residuals (the Hausman test uses it; no second fit).
    """
    from .least_squares import covariance, solve

    a = design.arrays()
    indicators = None
    if components is None:
        components = components_of(design, time_effects)
    th = components["theta_unit"]
    names = ["intercept", *design.covariates]
    hidden: list[str] = []
    mundlak_cols = [design.covariates.index(c) for c in design.time_varying] if mundlak else []
    # filled column by column (issue 19: no N x k temporaries beside the regressors themselves)
    Xs = np.empty((a.nobs, len(names) + len(mundlak_cols)), order="F")
    Xs[:, 0] = 1.0 - th[a.units]
    for j in range(len(design.covariates)):
        Xs[:, 1 + j] = a.quasi_demean(a.X[:, j], th, a.X_bar[:, j])
    for m, j in enumerate(mundlak_cols):
        means = a.X_bar[:, j]
        Xs[:, len(names) + m] = a.quasi_demean(means[a.units], th, means)
    names += [f"mean_{c}" for c in design.time_varying] if mundlak else []
    if time_effects:   # implicit columns, quasi-demeaned (``year_indicators``): no N x (T-1) matrix
        indicators, hidden = a.year_indicators("random", theta_unit=th), a.year_names()
    ys = a.quasi_demean(a.y, th, a.y_bar)
    if indicators is None:
        ls = solve(ys, Xs, names)
    else:
        from .year_indicators import fit_with_years

        ls = fit_with_years(ys, Xs, names, indicators, hidden)
        names = names + hidden
    kind = resolve_se(se)
    opts = {"units": a.units, "years": a.years, "extra_df": 0, "bandwidth": dk_bandwidth(a.n_years),
            "indicators": indicators}
    cov = covariance(ls, Xs, kind, **opts)
    cov_u = None
    if unadjusted:
        cov_u = cov if kind == "unadjusted" else covariance(ls, Xs, "unadjusted", **opts)
    df_resid = ls.nobs - ls.k
    r2, r2_adj = plm_r_squared(ys, ls.resid, int(df_resid))
    info = {"r_squared": r2, "r_squared_adj": r2_adj, "ssr": ls.ssr,
            "sigma2_e": components["sigma2_e"], "sigma2_u": components["sigma2_u"],
            "rho": components["sigma2_u"] / (components["sigma2_u"] + components["sigma2_e"])}
    if components["balanced"]:
        info["theta"] = float(th[0])
    else:
        info.update({"theta_min": float(th.min()), "theta_median": float(np.median(th[a.units])),
                     "theta_mean": float(np.mean(th[a.units])), "theta_max": float(th.max())})
    balance = "balanced" if components["balanced"] else "unbalanced, theta per unit"
    variant = f"random effects, {VARIANT}, {balance}"
    if mundlak:
        variant = f"correlated random effects (Mundlak unit means), {VARIANT}, {balance}"
    if time_effects:
        variant += ", year effects as regressors"
    key = "cre" if mundlak else "re"
    index = pd.Index(names)
    frame = lambda v: pd.DataFrame(v, index=index, columns=index)  # noqa: E731
    return Fit(key, variant, pd.Series(ls.params, index=index), frame(cov), se_label(se, a.n_years), "normal",
               float(df_resid), int(ls.nobs), design.n_units, info, frame(cov_u) if cov_u is not None else None,
               hidden_terms=tuple(hidden))
