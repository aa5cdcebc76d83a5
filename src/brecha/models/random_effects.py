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
  sum_i T_i e_Bi^2), Z is that N x (K+1) matrix of repeated means, K_B its rank, and D = diag(T_i). In a
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

from ._design import Design, panel_index
from .linear import cov_options, fit_checked, resolve_se, year_dummies
from .results import Fit

VARIANT = "Swamy-Arora (plm ercomp 'swar'; Baltagi-Chang 1994 for unbalanced panels)"


def _unit_means(a: np.ndarray, inv: np.ndarray, n: int, t_i: np.ndarray) -> np.ndarray:
    a = a.reshape(len(a), -1)
    s = np.zeros((n, a.shape[1]))
    np.add.at(s, inv, a)
    return s / t_i[:, None]


def swamy_arora(y: np.ndarray, X: np.ndarray, unit_index: np.ndarray) -> dict:
    """Swamy-Arora variance components as plm computes them (balanced or unbalanced).

    ``X`` holds the regressors **without** the intercept (time-invariant ones allowed). Returns
    ``sigma2_e, sigma2_u, theta`` (per row), ``theta_unit`` (per unit), ``t_i`` and the dfs.
    """
    y = np.asarray(y, float)
    X = np.asarray(X, float).reshape(len(y), -1)
    inv = np.asarray(unit_index)
    n = int(inv.max()) + 1
    N = len(y)
    t_i = np.bincount(inv, minlength=n).astype(float)
    ybar = _unit_means(y, inv, n, t_i)[:, 0]
    Xbar = _unit_means(X, inv, n, t_i)
    # within regression: demeaned regressors; drop those that vanish (time-invariant)
    Xw = X - Xbar[inv]
    yw = y - ybar[inv]
    scale = np.maximum(np.abs(X).max(axis=0), 1.0) if X.size else np.ones(0)
    keep = np.abs(Xw).max(axis=0) > 1e-10 * scale if X.size else np.zeros(0, bool)
    Xw = Xw[:, keep]
    if Xw.shape[1]:
        bw, *_ = np.linalg.lstsq(Xw, yw, rcond=None)
        ew = yw - Xw @ bw
        k_w = np.linalg.matrix_rank(Xw)
    else:
        ew, k_w = yw, 0
    df_w = N - n - k_w
    sigma2_e = float(ew @ ew / df_w)
    # between regression at the observation level
    Z = np.column_stack([np.ones(N), Xbar[inv]])
    bb, *_ = np.linalg.lstsq(Z, ybar[inv], rcond=None)
    eb = ybar[inv] - Z @ bb
    k_b = np.linalg.matrix_rank(Z)
    ZtZ = Z.T @ Z
    ZDZ = (Z * t_i[inv][:, None]).T @ Z
    trace = float(np.trace(np.linalg.pinv(ZtZ) @ ZDZ))
    sigma2_u = float((eb @ eb - (n - k_b) * sigma2_e) / (N - trace))
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


def _regressors(design: Design, time_effects: bool, mundlak: bool) -> tuple[pd.DataFrame, list[str]]:
    d = design.frame
    X = d[design.covariates].astype(float).copy()
    hidden: list[str] = []
    if mundlak:
        means = d.groupby("unit")[design.time_varying].transform("mean")
        means.columns = [f"mean_{c}" for c in design.time_varying]
        X = pd.concat([X, means], axis=1)
    if time_effects:
        dummies = year_dummies(d)
        X = pd.concat([X, dummies], axis=1)
        hidden = list(dummies.columns)
    return X, hidden


def fit_random(design: Design, se: str = "clustered", time_effects: bool = False, mundlak: bool = False,
               components: dict | None = None, *, unadjusted: bool = True) -> Fit:
    """Random effects (Swamy-Arora, plm-compatible), or correlated random effects with ``mundlak=True``.

    The variance components always come from the model without the Mundlak means (the means vanish in
    the within regression and are collinear in the between regression, so plm gets the same values).
    Year effects, when asked, enter as year indicator regressors. Weights are not used (plm's
    Swamy-Arora has no weighted form); the caller says so in the notes. ``unadjusted=False`` skips the
    second fit that gives ``cov_unadjusted`` (only the Hausman test uses it; issue 19).
    """
    from linearmodels.panel import PooledOLS

    d = design.frame
    inv = design.unit_index
    y = d[design.outcome].to_numpy(float)
    X, hidden = _regressors(design, time_effects, mundlak)
    if components is None:
        base, _ = _regressors(design, time_effects, False)
        components = swamy_arora(y, base.to_numpy(float), inv)
    theta = components["theta"]
    ys = quasi_demean(y, theta, inv)
    names = ["intercept", *X.columns]
    Xs = quasi_demean(X.to_numpy(float), theta, inv)
    del X  # free each large intermediate as soon as it is used (issue 19: peak memory)
    index = panel_index(inv, d["year"].to_numpy())
    exog = pd.DataFrame(np.column_stack([1.0 - theta, Xs]), index=index, columns=names)
    del Xs
    opts, label = cov_options(se, d["year"].nunique())
    model = PooledOLS(pd.Series(ys, index=index, name=design.outcome), exog)
    res = fit_checked(model, opts)
    unadj = (res if resolve_se(se) == "unadjusted" else fit_checked(model, {"cov_type": "unadjusted"}) if unadjusted
             else None)
    th = components["theta_unit"]
    r2, r2_adj = plm_r_squared(ys, np.asarray(res.resids, float), int(res.df_resid))
    info = {"r_squared": r2, "r_squared_adj": r2_adj, "ssr": float(res.resid_ss),
            "sigma2_e": components["sigma2_e"], "sigma2_u": components["sigma2_u"],
            "rho": components["sigma2_u"] / (components["sigma2_u"] + components["sigma2_e"])}
    if components["balanced"]:
        info["theta"] = float(th[0])
    else:
        info.update({"theta_min": float(th.min()), "theta_median": float(np.median(th[inv])),
                     "theta_mean": float(np.mean(th[inv])), "theta_max": float(th.max())})
    balance = "balanced" if components["balanced"] else "unbalanced, theta per unit"
    variant = f"random effects, {VARIANT}, {balance}"
    if mundlak:
        variant = f"correlated random effects (Mundlak unit means), {VARIANT}, {balance}"
    if time_effects:
        variant += ", year effects as regressors"
    key = "cre" if mundlak else "re"
    return Fit(key, variant, res.params, res.cov, label, "normal", float(res.df_resid), int(res.nobs),
               design.n_units, info, unadj.cov if unadj is not None else None, hidden_terms=tuple(hidden))
