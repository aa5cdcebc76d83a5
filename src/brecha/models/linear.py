"""Linear panel models of a rate on covariates.

- pooled: OLS on all unit-years (linearmodels ``PooledOLS``'s numbers, computed from the call's arrays).
- fe: within (unit fixed effects), y_it - ybar_i on x_it - xbar_i (``PanelOLS(entity_effects=True)``'s
  numbers, computed from the call's within arrays).
- fe2: unit and year fixed effects (``PanelOLS(entity_effects=True, time_effects=True)``'s numbers, from
  the call's two-way within arrays).
- between: OLS of unit means on unit means (``BetweenOLS``).
- fd: first differences with an intercept (plm's default), Δy_it = a + Δx_it'b + Δe_it, on consecutive
  years only (a gap in a unit's years breaks its differences); OLS on the differences.

Standard errors (``se``): ``unadjusted``; ``robust`` (White); ``clustered`` by unit (Arellano 1987, with
the N/(N-K) factor: equal to plm ``vcovHC(method="arellano", type="HC1")``); ``driscoll-kraay``
(Driscoll & Kraay 1998; linearmodels' Bartlett kernel with bandwidth floor(T^(1/4)), the lag plm's
``vcovSCC`` uses; linearmodels scales it by N/df_resid, so it is plm's value times sqrt(N/df_resid)).
p-values and intervals use Student t with the residual df, as plm does.

pooled, fe and fe2 are OLS of the arrays ``panel_arrays.PanelArrays`` builds once per call (unit means, within
arrays, year indicators), with the covariances of ``least_squares`` (linearmodels' formulas and small-sample
factors; equal to its fits to about 1e-12, tests/models/test_panel_arrays.py): no linearmodels ``PanelData``,
no second fit for the conventional covariance (issue 19: 2.5 GB -> 1.1 GB peak at 173,000 units x 20 years).
between and fd are linearmodels fits.

References: Baltagi (2013) Econometric Analysis of Panel Data, 5th ed., ch. 2-3; Wooldridge (2010)
Econometric Analysis of Cross Section and Panel Data, 2nd ed., ch. 10.
"""
from __future__ import annotations

import math
import warnings

import pandas as pd

from ..i18n import Catalog
from ._design import Design, panel_index
from .least_squares import MSG as SOLVER_MSG  # the same collinearity message as the numpy fits
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
                raise InputError(SOLVER_MSG("collinear", names=names), hint=SOLVER_MSG("collinear_hint")) from None
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


def se_label(se: str, n_periods: int) -> str:
    """The ``se_type`` text of a fit (English, as in every result table)."""
    return cov_options(se, n_periods)[1]


def _numpy_fit(key, variant, y, X, names, se, arrays, *, tss: float, extra_df=0, effects_nested=True,
               unadjusted=False, hidden=(), indicators=None) -> Fit:
    """A Fit from OLS of the transformed arrays (``least_squares``): the covariance of ``se`` and, when
    ``unadjusted``, the conventional one from the same residuals (no second fit). ``indicators``: the
    year indicators ``hidden`` as implicit columns after X's (``year_indicators.fit_with_years``)."""
    from .least_squares import covariance, solve

    kind = resolve_se(se)
    if indicators is None:
        ls = solve(y, X, names)
    else:
        from .year_indicators import fit_with_years

        ls = fit_with_years(y, X, names, indicators, hidden)
    opts = {"units": arrays.units, "years": arrays.years, "extra_df": extra_df,
            "bandwidth": dk_bandwidth(arrays.n_years), "effects_nested": effects_nested, "indicators": indicators}
    cov = covariance(ls, X, kind, **opts)
    cov_u = None
    if unadjusted:
        cov_u = cov if kind == "unadjusted" else covariance(ls, X, "unadjusted", **opts)
    index = pd.Index(list(names) + (list(hidden) if indicators is not None else []))
    frame = lambda v: pd.DataFrame(v, index=index, columns=index)  # noqa: E731
    info = {"r_squared": float(1.0 - ls.ssr / tss) if tss > 0 else float("nan"), "ssr": ls.ssr}
    return Fit(key, variant, pd.Series(ls.params, index=index), frame(cov), se_label(se, arrays.n_years), "t",
               float(ls.nobs - ls.k - extra_df), int(ls.nobs), int(arrays.n_units), info,
               frame(cov_u) if cov_u is not None else None, hidden_terms=tuple(hidden))


def fit_pooled(design: Design, se: str = "clustered", time_effects: bool = False) -> Fit:
    """Pooled OLS: y_it = a + x_it'b (+ year effects) + e_it; births-weighted: OLS of sqrt(w) y on
    sqrt(w) X. R² = 1 - SSR / sum w (y - ybar_w)² (linearmodels ``PooledOLS``, whose numbers these are).
    The year indicators are implicit columns (``year_indicators``): their coefficients and covariances are
    those of the dense regression, without its N x (T-1) matrix."""
    import numpy as np

    a = design.arrays()
    X = np.hstack([np.ones((a.nobs, 1)), a.X])
    names = ["intercept", *design.covariates]
    y = a.y
    w = a.weights if design.weights else np.ones(a.nobs)
    if design.weights:
        root = np.sqrt(w)
        X *= root[:, None]
        y = root * y
    indicators, hidden = None, ()
    if time_effects:
        indicators, hidden = a.year_indicators("pooled", bool(design.weights)), tuple(a.year_names())

    e = a.y - (w * a.y).sum() / w.sum()
    tss = float(w @ (e ** 2))
    del e
    variant = "pooled OLS" + (" with year effects" if time_effects else "") + (", births-weighted" if design.weights else "")
    return _numpy_fit("pooled", variant, y, X, names, se, a, hidden=hidden, tss=tss, indicators=indicators)


def fit_within(design: Design, se: str = "clustered", time_effects: bool = False, *,
               unadjusted: bool = True, weighted: bool | None = None) -> Fit:
    """Within (fixed effects) estimator; with ``time_effects`` unit and year effects (two-way).

    Time-invariant covariates are absorbed by the unit effects and are left out (stated in the notes).
    OLS of the within arrays (``panel_arrays``; two-way with ``time_effects``): linearmodels
    ``PanelOLS(entity_effects=True[, time_effects=True])``'s numbers.
    ``unadjusted=False`` leaves ``cov_unadjusted`` out (only the Hausman test uses it) when ``se`` is not
    "unadjusted"; when asked, it comes from the same residuals, not from a second fit (issue 19).
    ``weighted=False`` fits a births-weighted design unweighted (the Hausman test against the unweighted RE),
    from the same arrays.
    """
    cols = design.time_varying
    if not cols:
        return None
    return _fit_within_numpy(design, se, unadjusted, time_effects,
                             bool(design.weights) if weighted is None else bool(weighted and design.weights))


def _fit_within_numpy(design: Design, se: str, unadjusted: bool, time_effects: bool = False,
                      weighted: bool = False) -> Fit:
    """Within fit from the call's within arrays: b from OLS of y_it - ybar_i on x_it - xbar_i (weighted:
    sqrt(w)-scaled, weighted unit means); the n unit means count in the residual df and in every covariance
    but the clustered one (nested in the clusters). Two-way: the two-way within arrays; the n + T - 1
    effects count in every covariance, clustered too (linearmodels: unit and year effects are not both
    nested in the unit clusters). R² = 1 - SSR / sum y*² (the within R²)."""
    a = design.arrays()
    y, X_all = a.within_two_way(weighted) if time_effects else a.within(weighted)
    cols = design.time_varying
    X = X_all[:, [design.covariates.index(c) for c in cols]]
    effects = a.n_units + (a.n_years - 1 if time_effects else 0)
    key = "fe2" if time_effects else "fe"
    variant = ("within (unit and year fixed effects)" if time_effects else "within (unit fixed effects)")
    variant += ", births-weighted" if weighted else ""
    return _numpy_fit(key, variant, y, X, cols, se, a, extra_df=effects, effects_nested=not time_effects,
                      unadjusted=unadjusted or resolve_se(se) == "unadjusted", tss=float(y @ y))


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
