"""Linear panel models of a rate on covariates: thin wrappers around linearmodels.

- pooled: OLS on all unit-years (``linearmodels.PooledOLS``).
- fe: within (unit fixed effects), y_it - ybar_i on x_it - xbar_i (``PanelOLS(entity_effects=True)``).
- fe2: unit and year fixed effects (``PanelOLS(entity_effects=True, time_effects=True)``).
- between: OLS of unit means on unit means (``BetweenOLS``).
- fd: first differences with an intercept (plm's default), Δy_it = a + Δx_it'b + Δe_it, on consecutive
  years only (a gap in a unit's years breaks its differences); OLS on the differences.

Standard errors (``se``): ``unadjusted``; ``robust`` (White); ``clustered`` by unit (Arellano 1987, with
the N/(N-K) factor: equal to plm ``vcovHC(method="arellano", type="HC1")``); ``driscoll-kraay``
(Driscoll & Kraay 1998; linearmodels' Bartlett kernel with bandwidth floor(T^(1/4)), the lag plm's
``vcovSCC`` uses; linearmodels scales it by N/df_resid, so it is plm's value times sqrt(N/df_resid)).
p-values and intervals use Student t with the residual df, as plm does.

References: Baltagi (2013) Econometric Analysis of Panel Data, 5th ed., ch. 2-3; Wooldridge (2010)
Econometric Analysis of Cross Section and Panel Data, 2nd ed., ch. 10.
"""
from __future__ import annotations

import math
import warnings

import pandas as pd

from ..i18n import Catalog
from ._design import Design, panel_index
from .results import Fit

SE_ALIASES = {
    "unadjusted": "unadjusted", "conventional": "unadjusted", "classic": "unadjusted", "none": "unadjusted",
    "homoskedastic": "unadjusted",
    "robust": "robust", "hc": "robust", "white": "robust", "heteroskedastic": "robust",
    "clustered": "clustered", "cluster": "clustered", "arellano": "clustered",
    "driscoll-kraay": "driscoll-kraay", "dk": "driscoll-kraay", "kernel": "driscoll-kraay",
    "scc": "driscoll-kraay", "driscoll_kraay": "driscoll-kraay",
}
SE_LABELS = {
    "unadjusted": "unadjusted (classic)",
    "robust": "heteroskedasticity-robust (White)",
    "clustered": "clustered by unit (Arellano, HC1)",
    "driscoll-kraay": "Driscoll-Kraay (Bartlett kernel, bandwidth {bw})",
}


MSG = Catalog({
    "unknown_se": ("tipo de error estándar '{se}' desconocido", "unknown standard-error type '{se}'"),
    "unknown_se_hint": ("use unadjusted, robust, clustered o driscoll-kraay",
                        "use unadjusted, robust, clustered or driscoll-kraay"),
    "collinear": ("las covariables son colineales en este modelo ({names}): una es combinación de las otras (o "
                  "constante donde el modelo quita las constantes)",
                  "the covariates are collinear in this model ({names}): one is a combination of the others (or "
                  "constant where the model removes constants)"),
    "collinear_hint": ("quite una de ellas, o use un modelo que conserve las covariables constantes en el tiempo "
                       "(re, cre)",
                       "drop one of them, or use a model that keeps time-invariant covariates (re, cre)"),
})


def resolve_se(se: str, lang: str | None = None) -> str:
    from ..errors import InputError

    key = str(se or "unadjusted").strip().lower()
    if key not in SE_ALIASES:
        raise InputError(MSG("unknown_se", lang, se=se), hint=MSG("unknown_se_hint", lang))
    return SE_ALIASES[key]


def dk_bandwidth(n_periods: int) -> int:
    """floor(T^(1/4)), the default lag of plm's vcovSCC (Driscoll & Kraay 1998; Hoechle 2007)."""
    return max(int(math.floor(n_periods ** 0.25)), 1)


def cov_options(se: str, n_periods: int) -> tuple[dict, str]:
    se = resolve_se(se)
    if se == "unadjusted":
        return {"cov_type": "unadjusted"}, SE_LABELS[se]
    if se == "robust":
        return {"cov_type": "robust"}, SE_LABELS[se]
    if se == "clustered":
        return {"cov_type": "clustered", "cluster_entity": True}, SE_LABELS[se]
    bw = dk_bandwidth(n_periods)
    return ({"cov_type": "kernel", "kernel": "bartlett", "bandwidth": bw}, SE_LABELS[se].format(bw=bw))


def year_dummies(frame: pd.DataFrame) -> pd.DataFrame:
    """Indicator columns year_<y> for every year but the first (the reference)."""
    years = sorted(frame["year"].unique())
    cols = {f"year_{y}": (frame["year"].to_numpy() == y).astype(float) for y in years[1:]}
    return pd.DataFrame(cols, index=frame.index)


def _exog(d: pd.DataFrame, columns, time_effects: bool) -> tuple[pd.DataFrame, tuple]:
    """Regressors of a (unit, year)-indexed frame: a constant, ``columns`` and, with ``time_effects``, the
    year indicators (returned as the hidden terms: estimated, not listed)."""
    X = d[list(columns)].copy()
    X.insert(0, "const", 1.0)
    if not time_effects:
        return X, ()
    dummies = year_dummies(d.reset_index()).set_index(d.index)
    return pd.concat([X, dummies], axis=1), tuple(dummies.columns)


def _used(design: Design, columns) -> list[str]:
    """The columns of the design frame a fit needs: outcome, ``columns`` and the weights, if any."""
    return [design.outcome, *columns] + ([design.weights] if design.weights else [])


def _fit(model, se: str, n_periods: int):
    opts, label = cov_options(se, n_periods)
    return fit_checked(model, opts), label


def fit_checked(model, opts: dict):
    """model.fit(**opts), with linearmodels' rank error turned into a message that says what to do."""
    from ..errors import InputError

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return model.fit(**opts)
        except ValueError as exc:
            if "rank" in str(exc):
                names = ", ".join(str(c) for c in model.exog.vars)
                raise InputError(MSG("collinear", names=names), hint=MSG("collinear_hint")) from None
            raise


def _from_linearmodels(res, key, variant, se_label, design, *, df_resid=None, hidden=(), unadjusted=None,
                       extra=None) -> Fit:
    params = res.params.rename({"const": "intercept"})
    cov = res.cov.rename(index={"const": "intercept"}, columns={"const": "intercept"})
    cov_u = None
    if unadjusted is not None:
        cov_u = unadjusted.cov.rename(index={"const": "intercept"}, columns={"const": "intercept"})
    info = {"r_squared": float(res.rsquared), "ssr": float(res.resid_ss)}
    info.update(extra or {})
    return Fit(key, variant, params, cov, se_label, "t", float(df_resid if df_resid is not None else res.df_resid),
               int(res.nobs), int(design.n_units), info, cov_u, hidden_terms=tuple(hidden))


def fit_pooled(design: Design, se: str = "clustered", time_effects: bool = False) -> Fit:
    """Pooled OLS: y_it = a + x_it'b (+ year effects) + e_it."""
    from linearmodels.panel import PooledOLS

    d = design.indexed(_used(design, design.covariates))
    X, hidden = _exog(d, design.covariates, time_effects)
    w = d[design.weights] if design.weights else None
    n_t = d.index.get_level_values("year").nunique()
    model = PooledOLS(d[design.outcome], X, weights=w)
    res, label = _fit(model, se, n_t)
    variant = "pooled OLS" + (" with year effects" if time_effects else "") + (", births-weighted" if w is not None else "")
    return _from_linearmodels(res, "pooled", variant, label, design, hidden=hidden)


def fit_within(design: Design, se: str = "clustered", time_effects: bool = False, *,
               unadjusted: bool = True) -> Fit:
    """Within (fixed effects) estimator; with ``time_effects`` unit and year effects (two-way).

    Time-invariant covariates are absorbed by the unit effects and are left out (stated in the notes).
    ``unadjusted=False`` skips the second fit that gives ``cov_unadjusted`` (only the Hausman test uses it)
    when ``se`` is not "unadjusted" (issue 19: no fit the call does not use).
    """
    from linearmodels.panel import PanelOLS

    cols = design.time_varying
    if not cols:
        return None
    d = design.indexed(_used(design, cols))
    w = d[design.weights] if design.weights else None
    n_t = d.index.get_level_values("year").nunique()
    model = PanelOLS(d[design.outcome], d[cols], entity_effects=True, time_effects=time_effects, weights=w)
    res, label = _fit(model, se, n_t)
    unadj = res if resolve_se(se) == "unadjusted" else _fit(model, "unadjusted", n_t)[0] if unadjusted else None
    key = "fe2" if time_effects else "fe"
    variant = ("within (unit and year fixed effects)" if time_effects else "within (unit fixed effects)")
    if w is not None:
        variant += ", births-weighted"
    return _from_linearmodels(res, key, variant, label, design, unadjusted=unadj)


def fit_between(design: Design, se: str = "clustered", time_effects: bool = False) -> Fit:
    """Between estimator: OLS of ybar_i on xbar_i (one row per unit). Year effects do not apply."""
    from linearmodels.panel import BetweenOLS

    d = design.indexed(_used(design, design.covariates))
    X, _ = _exog(d, design.covariates, False)
    w = d[design.weights] if design.weights else None
    kind = resolve_se(se)
    # one row per unit: clustering by unit is White's estimator; no time dimension for Driscoll-Kraay
    use = "robust" if kind in ("clustered", "driscoll-kraay") else kind
    model = BetweenOLS(d[design.outcome], X, weights=w)
    res, label = _fit(model, use, 1)
    variant = "between (OLS on unit means)" + (", births-weighted" if w is not None else "")
    fit = _from_linearmodels(res, "between", variant, label, design)
    fit.nobs = int(design.n_units)
    return fit


def first_differences(design: Design) -> pd.DataFrame:
    """Δ of the outcome and covariates between consecutive years of the same unit (year t minus t-1)."""
    d = design.frame
    cols = [design.outcome] + design.time_varying
    prev = d.groupby("unit")[["year"] + cols].shift(1)
    ok = (d["year"] - prev["year"]) == 1
    out = d.loc[ok, ["unit", "year"]].copy()
    for c in cols:
        out[c] = d.loc[ok, c] - prev.loc[ok, c]
    return out


def fit_first_difference(design: Design, se: str = "clustered", time_effects: bool = False) -> Fit:
    """First differences with an intercept (plm's ``model="fd"``); Δx of time-invariant covariates is 0."""
    from linearmodels.panel import PooledOLS

    if not design.time_varying:
        return None
    diffs = first_differences(design)
    diffs.index = panel_index(pd.factorize(diffs["unit"], sort=True)[0], diffs["year"].to_numpy())
    diffs = diffs.drop(columns=["unit", "year"])
    X, hidden = _exog(diffs, design.time_varying, time_effects)
    n_t = diffs.index.get_level_values("year").nunique()
    model = PooledOLS(diffs[design.outcome], X)
    res, label = _fit(model, se, n_t)
    variant = "first differences with intercept (plm default)" + (" and year effects" if time_effects else "")
    fit = _from_linearmodels(res, "fd", variant, label, design, hidden=hidden)
    fit.n_units = int(diffs.index.get_level_values("unit").nunique())
    return fit
