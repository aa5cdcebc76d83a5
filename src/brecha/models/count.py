"""Count models of infant deaths with a log(births) offset: the rate ratio per unit of each covariate.

deaths_it ~ Poisson(mu_it), log mu_it = log(births_it) + a + x_it'b (+ year effects) (+ unit effect),
so exp(b_k) is the rate ratio for a one-unit increase in covariate k (Cameron & Trivedi 2013,
Regression Analysis of Count Data, 2nd ed.). Better suited than a linear model of the rate when communes
are small (few deaths, many zeros).

- ``poisson``: Poisson GLM (statsmodels).
- ``negbin``: negative binomial NB2, Var = mu + alpha mu^2, alpha by maximum likelihood (statsmodels
  ``NegativeBinomial``).
- ``poisson_fe``: unit fixed effects by the conditional (within) Poisson likelihood (Hausman, Hall &
  Griliches 1984). Given the unit totals Y_i = sum_t y_it, y_i ~ Multinomial(Y_i, p_it) with
  p_it = exp(eta_it) / sum_s exp(eta_is), eta = log(births) + x'b. Its estimates and conventional SEs
  equal those of the Poisson model with one indicator per unit; units with no death drop out.
  Clustered (and robust) SEs: sandwich with the unit sums of the scores, times G/(G-1) (Wooldridge 1999).
- ``poisson_re``: unit random effects, u_i ~ Gamma(mean 1, variance alpha) (Hausman, Hall & Griliches
  1984): ln L_i = sum_t [y_it ln mu_it - ln y_it!] + v ln v - ln Gamma(v) + ln Gamma(Y_i + v)
  - (Y_i + v) ln(M_i + v), v = 1/alpha, M_i = sum_t mu_it; maximum likelihood, SEs from the Hessian.

Standard errors: ``unadjusted`` (model-based), ``robust`` (sandwich), ``clustered`` by unit;
Driscoll-Kraay is not available for count models and falls back to clustered (stated in the notes).
"""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from ._design import Design
from .linear import resolve_se, year_dummies
from .results import Fit


def _count_data(design: Design, covariates, time_effects: bool, intercept: bool = True):
    d = design.frame
    deaths_col, births_col = design.counts
    X = d[list(covariates)].astype(float).copy()
    hidden: list[str] = []
    if time_effects:
        dummies = year_dummies(d)
        X = pd.concat([X, dummies], axis=1)
        hidden = list(dummies.columns)
    if intercept:
        X.insert(0, "intercept", 1.0)
    y = d[deaths_col].to_numpy(float)
    offset = np.log(d[births_col].to_numpy(float))
    return y, X, offset, hidden


def _se_for_counts(se: str) -> tuple[str, str]:
    kind = resolve_se(se)
    if kind == "driscoll-kraay":
        return "clustered", "clustered by unit (Driscoll-Kraay not available for count models)"
    return kind, {"unadjusted": "model-based", "robust": "robust (sandwich, HC0)",
                  "clustered": "clustered by unit"}[kind]


def _sm_cov(kind: str, groups: np.ndarray) -> dict:
    if kind == "unadjusted":
        return {"cov_type": "nonrobust"}
    if kind == "robust":
        return {"cov_type": "HC0"}
    return {"cov_type": "cluster", "cov_kwds": {"groups": groups}}


def fit_poisson(design: Design, se: str = "clustered", time_effects: bool = False) -> Fit:
    """Poisson GLM of deaths on covariates with offset log(births)."""
    import statsmodels.api as sm

    y, X, offset, hidden = _count_data(design, design.covariates, time_effects)
    kind, label = _se_for_counts(se)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = sm.GLM(y, X, family=sm.families.Poisson(), offset=offset).fit(**_sm_cov(kind, design.unit_index))
    dispersion = float(res.pearson_chi2 / res.df_resid)
    variant = "Poisson GLM, offset log(births)" + (", year effects" if time_effects else "")
    return Fit("poisson", variant, res.params, res.cov_params(), label, "normal", float(res.df_resid),
               int(res.nobs), design.n_units, {"deviance": float(res.deviance), "llf": float(res.llf),
                                               "pearson_dispersion": dispersion},
               rate_ratio=True, hidden_terms=tuple(hidden))


def fit_negbin(design: Design, se: str = "clustered", time_effects: bool = False) -> Fit:
    """Negative binomial (NB2) regression with offset log(births); alpha by maximum likelihood."""
    from statsmodels.discrete.discrete_model import NegativeBinomial

    y, X, offset, hidden = _count_data(design, design.covariates, time_effects)
    kind, label = _se_for_counts(se)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = NegativeBinomial(y, X, loglike_method="nb2", offset=offset)
        res = model.fit(disp=0, maxiter=200, method="bfgs", **_sm_cov(kind, design.unit_index))
        res = model.fit(start_params=res.params, disp=0, maxiter=100, method="newton",
                        **_sm_cov(kind, design.unit_index))
    params = pd.Series(res.params, index=list(X.columns) + ["alpha"])
    cov = pd.DataFrame(res.cov_params(), index=params.index, columns=params.index)
    variant = "negative binomial NB2, offset log(births)" + (", year effects" if time_effects else "")
    return Fit("negbin", variant, params, cov, label, "normal", float(res.df_resid), int(res.nobs),
               design.n_units, {"alpha": float(params["alpha"]), "llf": float(res.llf)},
               rate_ratio=True, hidden_terms=tuple(hidden) + ("alpha",))


def conditional_poisson(y, X, offset, unit_index, tol: float = 1e-10, max_iter: int = 100):
    """Fixed-effects Poisson by the conditional likelihood (Newton-Raphson).

    Returns ``beta, hessian (negative definite), unit_scores (G x K), loglik_terms, kept`` where
    ``kept`` marks rows of units with at least one event.
    """
    y = np.asarray(y, float)
    X = np.asarray(X, float)
    offset = np.asarray(offset, float)
    inv = np.asarray(unit_index)
    totals = np.bincount(inv, weights=y)
    kept = totals[inv] > 0
    y, X, offset = y[kept], X[kept], offset[kept]
    inv = pd.factorize(inv[kept])[0]
    n = int(inv.max()) + 1
    Y = np.bincount(inv, weights=y, minlength=n)
    beta = np.zeros(X.shape[1])

    def parts(b):
        eta = offset + X @ b
        top = np.full(n, -np.inf)
        np.maximum.at(top, inv, eta)
        e = np.exp(eta - top[inv])
        p = e / np.bincount(inv, weights=e, minlength=n)[inv]
        mu = Y[inv] * p
        score_rows = X * (y - mu)[:, None]
        xbar = np.zeros((n, X.shape[1]))
        np.add.at(xbar, inv, X * p[:, None])
        H = -((X * mu[:, None]).T @ X - (xbar * Y[:, None]).T @ xbar)
        ll = float(np.sum(y * np.log(np.where(p > 0, p, 1.0))))
        return score_rows, H, ll

    score_rows, H, ll = parts(beta)
    for _ in range(max_iter):
        step = np.linalg.solve(H, score_rows.sum(axis=0))
        # the conditional log-likelihood is concave; halve the Newton step while it does not increase
        for _halving in range(30):
            trial = beta - step
            t_rows, t_H, t_ll = parts(trial)
            if np.isfinite(t_ll) and t_ll >= ll - 1e-12 * abs(ll):
                break
            step = step / 2
        beta, score_rows, H, ll = trial, t_rows, t_H, t_ll
        if np.max(np.abs(step)) < tol * (1 + np.max(np.abs(beta))):
            break
    score_rows, H, ll = parts(beta)
    unit_scores = np.zeros((n, X.shape[1]))
    np.add.at(unit_scores, inv, score_rows)
    return beta, H, unit_scores, ll, kept


def fit_poisson_fe(design: Design, se: str = "clustered", time_effects: bool = False) -> Fit:
    """Unit fixed-effects (conditional) Poisson; time-invariant covariates drop out."""
    cols = design.time_varying
    if not cols:
        return None
    y, X, offset, hidden = _count_data(design, cols, time_effects, intercept=False)
    kind, label = _se_for_counts(se)
    beta, H, unit_scores, ll, kept = conditional_poisson(y, X.to_numpy(float), offset, design.unit_index)
    bread = np.linalg.inv(-H)
    if kind == "unadjusted":
        V = bread
    else:
        # robust and clustered alike: the sandwich of the unit scores (Wooldridge 1999). Row-level scores
        # of the conditional likelihood are not those of the dummy-variable model, so a row-level (HC0)
        # sandwich would not be the usual one; clustering by unit is the robust choice here.
        G = unit_scores.shape[0]
        V = bread @ (unit_scores.T @ unit_scores * G / (G - 1)) @ bread
        if kind == "robust":
            label = "robust = clustered by unit (sandwich of unit scores)"
    names = list(X.columns)
    params = pd.Series(beta, index=names)
    cov = pd.DataFrame(V, index=names, columns=names)
    n_used = int(kept.sum())
    units_used = int(pd.Series(design.unit_index[kept]).nunique())
    variant = "conditional (fixed-effects) Poisson, offset log(births)" + (", year effects" if time_effects else "")
    info = {"llf_conditional": ll, "units_dropped_no_events": int(design.n_units - units_used),
            "rows_dropped_no_events": int(len(y) - n_used)}
    return Fit("poisson_fe", variant, params, cov, label, "normal", float(n_used - units_used - len(names)),
               n_used, units_used, info, rate_ratio=True, hidden_terms=tuple(hidden))


def gamma_poisson_loglik(params, y, X, offset, unit_index):
    """Per-unit log-likelihood of the gamma random-effects Poisson; params = (beta, log alpha)."""
    from scipy.special import gammaln

    beta, log_alpha = params[:-1], params[-1]
    v = np.exp(-log_alpha)
    inv = np.asarray(unit_index)
    n = int(inv.max()) + 1
    eta = offset + X @ beta
    mu = np.exp(eta)
    Y = np.bincount(inv, weights=y, minlength=n)
    M = np.bincount(inv, weights=mu, minlength=n)
    rows = np.bincount(inv, weights=y * eta - gammaln(y + 1), minlength=n)
    return rows + v * np.log(v) - gammaln(v) + gammaln(Y + v) - (Y + v) * np.log(M + v)


def fit_poisson_re(design: Design, se: str = "clustered", time_effects: bool = False) -> Fit:
    """Gamma random-effects Poisson by maximum likelihood (start: Poisson GLM, alpha = 0.1)."""
    import statsmodels.api as sm
    from scipy import optimize
    from statsmodels.tools.numdiff import approx_fprime, approx_hess

    y, X, offset, hidden = _count_data(design, design.covariates, time_effects)
    kind, label = _se_for_counts(se)
    inv = design.unit_index
    Xa = X.to_numpy(float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = sm.GLM(y, Xa, family=sm.families.Poisson(), offset=offset).fit().params
    x0 = np.append(start, np.log(0.1))

    def nll(p):
        return -np.sum(gamma_poisson_loglik(p, y, Xa, offset, inv))

    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        opt = optimize.minimize(nll, x0, method="BFGS", options={"gtol": 1e-8, "maxiter": 2000})
        opt = optimize.minimize(nll, opt.x, method="BFGS", options={"gtol": 1e-10, "maxiter": 500})
        p = opt.x
        H = approx_hess(p, lambda q: -nll(q))
    bread = np.linalg.inv(-H)
    if kind == "unadjusted":
        V = bread
    else:
        scores = approx_fprime(p, lambda q: gamma_poisson_loglik(q, y, Xa, offset, inv))
        G = scores.shape[0]
        meat = scores.T @ scores * (G / (G - 1) if kind == "clustered" else 1.0)
        V = bread @ meat @ bread
    names = list(X.columns) + ["log_alpha"]
    params = pd.Series(p, index=names)
    cov = pd.DataFrame(V, index=names, columns=names)
    variant = "gamma random-effects Poisson (Hausman-Hall-Griliches 1984), offset log(births)"
    if time_effects:
        variant += ", year effects"
    if kind == "robust":
        label = "robust (sandwich of unit scores)"
    return Fit("poisson_re", variant, params, cov, label, "normal", float(len(y) - len(names)), len(y),
               design.n_units, {"alpha": float(np.exp(p[-1])), "llf": float(-opt.fun)}, rate_ratio=True,
               hidden_terms=tuple(hidden) + ("log_alpha",))
