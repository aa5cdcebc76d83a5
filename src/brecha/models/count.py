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
- ``negbin_fe``: NB2 with one indicator per unit, the unconditional fixed-effects negative binomial
  (Allison & Waterman 2002), by an exact Newton-Raphson that concentrates the unit effects out of each step
  (arrow-shaped Hessian, Schur complement), with a likelihood-ratio test of alpha = 0 (module
  ``negbin_fe``). Not the Hausman-Hall-Griliches conditional NB, whose unit effects enter the dispersion.

Standard errors: ``unadjusted`` (model-based), ``robust`` (sandwich), ``clustered`` by unit;
Driscoll-Kraay is not available for count models and falls back to clustered (stated in the notes).

Every count model is fitted on a standardised design (covariates centred and scaled, ``_scaling``) and its
coefficients and covariance are mapped back exactly, so a covariate of large scale (population, ~1e5) fits
as well as a percentage. Convergence and a negative definite Hessian are checked; a fit that fails them is
reported with a ``flag`` and a warning (``_scaling.hessian_problems``), never with a silent 0 or NaN SE.
"""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from ._design import Design
from ._scaling import hessian_problems, safe_inverse, standardise
from .linear import resolve_se, year_dummies
from .results import Fit

ALPHA_BOUNDARY = 1e-6  # NB2's alpha below this is taken as 0: no overdispersion beyond Poisson (negbin, negbin_fe)


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


def _scaled(X: pd.DataFrame, covariates, intercept: bool = True):
    """The design with its covariate columns standardised (year indicators and intercept kept)."""
    return standardise(X, [c for c in covariates if c in X.columns], "intercept" if intercept else None)


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
    Xs, scaling = _scaled(X, design.covariates)
    model = sm.GLM(y, Xs, family=sm.families.Poisson(), offset=offset)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            res = model.fit(**_sm_cov(kind, design.unit_index))
            cov_s = res.cov_params()
        except np.linalg.LinAlgError:
            res = model.fit()
            cov_s = np.full((Xs.shape[1],) * 2, np.nan)
        problems = hessian_problems(model.hessian(res.params), bool(getattr(res, "converged", True)))
    p, V = scaling.back(res.params, cov_s)
    names = list(X.columns)
    dispersion = float(res.pearson_chi2 / res.df_resid) if res.df_resid > 0 else float("nan")  # saturated: none
    variant = "Poisson GLM, offset log(births)" + (", year effects" if time_effects else "")
    return Fit("poisson", variant, pd.Series(p, index=names), pd.DataFrame(V, index=names, columns=names), label,
               "normal", float(res.df_resid), int(res.nobs), design.n_units,
               {"deviance": float(res.deviance), "llf": float(res.llf), "pearson_dispersion": dispersion},
               rate_ratio=True, hidden_terms=tuple(hidden), problems=tuple(problems))


def _negbin_at_zero(poisson: Fit, time_effects: bool) -> Fit:
    """NB2 with alpha at its boundary 0: the Poisson fit's coefficients, SEs and likelihood, alpha = 0 (fixed,
    so no variance), flagged ``alpha_at_zero`` (the negbin_fe rule, :data:`ALPHA_BOUNDARY`)."""
    params = pd.concat([poisson.params, pd.Series({"alpha": 0.0})])
    cov = poisson.cov.reindex(index=params.index, columns=params.index).fillna(0.0)
    variant = ("negative binomial NB2, offset log(births)" + (", year effects" if time_effects else "")
               + "; alpha at 0: the Poisson fit")
    info = {"alpha": 0.0, "llf": poisson.info["llf"], "alpha_at_zero": True}
    return Fit("negbin", variant, params, cov, poisson.se_type, poisson.distribution, poisson.df_resid,
               poisson.nobs, poisson.n_units, info, rate_ratio=True,
               hidden_terms=tuple(poisson.hidden_terms) + ("alpha",), problems=tuple(poisson.problems))


def fit_negbin(design: Design, se: str = "clustered", time_effects: bool = False) -> Fit:
    """Negative binomial (NB2) regression with offset log(births); alpha by maximum likelihood."""
    from statsmodels.discrete.discrete_model import NegativeBinomial

    y, X, offset, hidden = _count_data(design, design.covariates, time_effects)
    kind, label = _se_for_counts(se)
    Xs, scaling = _scaled(X, design.covariates)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = NegativeBinomial(y, Xs, loglike_method="nb2", offset=offset)
        start = model.fit(disp=0, maxiter=500, method="bfgs").params
        if not float(start[-1]) >= ALPHA_BOUNDARY:
            # no overdispersion beyond Poisson: NB2's supremum is its alpha -> 0 limit, the Poisson fit (and
            # statsmodels' Newton step on alpha ~ 1e-8 stalls for hours in scipy's polygamma: 1/alpha ~ 1e8)
            return _negbin_at_zero(fit_poisson(design, se, time_effects), time_effects)
        try:
            res = model.fit(start_params=start, disp=0, maxiter=100, method="newton",
                            **_sm_cov(kind, design.unit_index))
            cov_s = res.cov_params()
        except np.linalg.LinAlgError:
            res = model.fit(start_params=start, disp=0, maxiter=100, method="newton")
            cov_s = np.full((Xs.shape[1] + 1,) * 2, np.nan)
        problems = hessian_problems(model.hessian(res.params), bool(res.mle_retvals.get("converged", True)))
    p, V = scaling.back(res.params, cov_s, extra=1)
    params = pd.Series(p, index=list(X.columns) + ["alpha"])
    cov = pd.DataFrame(V, index=params.index, columns=params.index)
    variant = "negative binomial NB2, offset log(births)" + (", year effects" if time_effects else "")
    return Fit("negbin", variant, params, cov, label, "normal", float(res.df_resid), int(res.nobs),
               design.n_units, {"alpha": float(params["alpha"]), "llf": float(res.llf)},
               rate_ratio=True, hidden_terms=tuple(hidden) + ("alpha",), problems=tuple(problems))


def _small_sample(G: int) -> float:
    """G/(G-1), the small-sample factor of a sandwich clustered in G units; NaN for one unit, where no
    clustered covariance exists (the fit is then flagged ``se_undefined``, never divided by zero)."""
    return G / (G - 1) if G > 1 else float("nan")


def units_with_events(y, X, offset, unit_index):
    """The rows of units with at least one event, as float arrays, and their units renumbered 0..G-1:
    ``y, X, offset, unit (int), kept`` (``kept`` marks the rows used). A unit without events carries no
    information in a conditional or unit-dummy likelihood (its effect goes to minus infinity)."""
    y = np.asarray(y, float)
    inv = np.asarray(unit_index)
    kept = np.bincount(inv, weights=y)[inv] > 0
    return (y[kept], np.asarray(X, float)[kept], np.asarray(offset, float)[kept], pd.factorize(inv[kept])[0],
            kept)


def conditional_poisson(y, X, offset, unit_index, tol: float = 1e-10, max_iter: int = 100):
    """Fixed-effects Poisson by the conditional likelihood (Newton-Raphson).

    Returns ``beta, hessian (negative definite), unit_scores (G x K), loglik_terms, kept`` where
    ``kept`` marks rows of units with at least one event.
    """
    y, X, offset, inv, kept = units_with_events(y, X, offset, unit_index)
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
    Xs, scaling = _scaled(X, cols, intercept=False)
    beta, H, unit_scores, ll, kept = conditional_poisson(y, Xs, offset, design.unit_index)
    problems = hessian_problems(H, bool(np.all(np.isfinite(beta))))
    bread = safe_inverse(-H)
    if kind == "unadjusted":
        V = bread
    else:
        # robust and clustered alike: the sandwich of the unit scores (Wooldridge 1999). Row-level scores
        # of the conditional likelihood are not those of the dummy-variable model, so a row-level (HC0)
        # sandwich would not be the usual one; clustering by unit is the robust choice here.
        G = unit_scores.shape[0]
        # one cluster: the sandwich is undefined (NaN, flagged), not a division by zero
        V = bread @ (unit_scores.T @ unit_scores * _small_sample(G)) @ bread
        if kind == "robust":
            label = "robust = clustered by unit (sandwich of unit scores)"
    beta, V = scaling.back(beta, V)
    names = list(X.columns)
    params = pd.Series(beta, index=names)
    cov = pd.DataFrame(V, index=names, columns=names)
    n_used = int(kept.sum())
    units_used = int(pd.Series(design.unit_index[kept]).nunique())
    variant = "conditional (fixed-effects) Poisson, offset log(births)" + (", year effects" if time_effects else "")
    info = {"llf_conditional": ll, "units_dropped_no_events": int(design.n_units - units_used),
            "rows_dropped_no_events": int(len(y) - n_used)}
    return Fit("poisson_fe", variant, params, cov, label, "normal", float(n_used - units_used - len(names)),
               n_used, units_used, info, rate_ratio=True, hidden_terms=tuple(hidden), problems=tuple(problems))


GRADIENT_TOL = 1e-5    # max |d(-log L)/d(param)| at a converged optimum, relative to max(1, |log L|)


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


def gamma_poisson_scores(params, y, X, offset, unit_index):
    """Per-unit scores (n x K+1) of :func:`gamma_poisson_loglik`: with v = 1/alpha, M_i = sum_t mu_it,
    dl_i/db = sum_t y_it x_it - (Y_i + v)/(M_i + v) sum_t mu_it x_it and
    dl_i/d ln(alpha) = -v [ln v + 1 - psi(v) + psi(Y_i + v) - ln(M_i + v) - (Y_i + v)/(M_i + v)]."""
    from scipy.special import digamma

    beta, v = params[:-1], np.exp(-params[-1])
    inv = np.asarray(unit_index)
    n = int(inv.max()) + 1
    mu = np.exp(offset + X @ beta)
    Y = np.bincount(inv, weights=y, minlength=n)
    M = np.bincount(inv, weights=mu, minlength=n)
    out = np.zeros((n, X.shape[1] + 1))
    np.add.at(out[:, :-1], inv, X * (y - ((Y + v) / (M + v))[inv] * mu)[:, None])
    out[:, -1] = -v * (np.log(v) + 1 - digamma(v) + digamma(Y + v) - np.log(M + v) - (Y + v) / (M + v))
    return out


def fit_poisson_re(design: Design, se: str = "clustered", time_effects: bool = False) -> Fit:
    """Gamma random-effects Poisson by maximum likelihood (start: Poisson GLM, alpha = 0.1)."""
    import statsmodels.api as sm
    from scipy import optimize
    from statsmodels.tools.numdiff import approx_fprime

    y, X, offset, hidden = _count_data(design, design.covariates, time_effects)
    kind, label = _se_for_counts(se)
    inv = design.unit_index
    Xa, scaling = _scaled(X, design.covariates)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = sm.GLM(y, Xa, family=sm.families.Poisson(), offset=offset).fit().params
    x0 = np.append(start, np.log(0.1))

    def nll(p):
        return -np.sum(gamma_poisson_loglik(p, y, Xa, offset, inv))

    def score(p):
        return gamma_poisson_scores(p, y, Xa, offset, inv).sum(axis=0)

    def hessian(p):                 # central differences of the analytic score
        return approx_fprime(p, score, centered=True)

    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        opt = optimize.minimize(nll, x0, jac=lambda q: -score(q), method="BFGS",
                                options={"gtol": 1e-9, "maxiter": 2000})
        p, f = opt.x, opt.fun
        for _ in range(20):         # Newton polish (BFGS stops on precision loss short of the optimum)
            H, g = hessian(p), score(p)
            if np.max(np.abs(g)) < 1e-10 * max(1.0, abs(f)):
                break
            step = np.linalg.lstsq(H, g, rcond=None)[0]
            for _halving in range(30):
                if np.isfinite(nll(p - step)) and nll(p - step) <= f:
                    break
                step = step / 2
            p = p - step
            f = nll(p)
        H, g = hessian(p), score(p)
    converged = bool(np.all(np.isfinite(p)) and np.max(np.abs(g)) < GRADIENT_TOL * max(1.0, abs(f)))
    problems = hessian_problems(H, converged)
    bread = safe_inverse(-H)
    if kind == "unadjusted":
        V = bread
    else:
        scores = gamma_poisson_scores(p, y, Xa, offset, inv)
        G = scores.shape[0]
        meat = scores.T @ scores * (_small_sample(G) if kind == "clustered" else 1.0)
        V = bread @ meat @ bread
    p, V = scaling.back(p, V, extra=1)
    names = list(X.columns) + ["log_alpha"]
    params = pd.Series(p, index=names)
    cov = pd.DataFrame(V, index=names, columns=names)
    variant = "gamma random-effects Poisson (Hausman-Hall-Griliches 1984), offset log(births)"
    if time_effects:
        variant += ", year effects"
    if kind == "robust":
        label = "robust (sandwich of unit scores)"
    return Fit("poisson_re", variant, params, cov, label, "normal", float(len(y) - len(names)), len(y),
               design.n_units, {"alpha": float(np.exp(p[-1])), "llf": float(-f)}, rate_ratio=True,
               hidden_terms=tuple(hidden) + ("log_alpha",), problems=tuple(problems))

