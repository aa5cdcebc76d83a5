"""Joinpoint regression (the NCI method): connected log-linear segments, APC per segment, AAPC.

Model with k joinpoints tau_1 < ... < tau_k (Kim et al., 2000)::

    ln(rate_t) = b0 + b1 x_t + d_1 (x_t - tau_1)+ + ... + d_k (x_t - tau_k)+ + e_t

- K is capped by NCI's recommendation for n points (0 below 7 points, 1 for 7-11, 2 for 12-16, ...).
- Fitting (:mod:`brecha.trends.joinpoint_fit`, :mod:`brecha.trends.joinpoint_continuous`): for each
  k = 0..K the placement with the smallest (weighted) SSE, joinpoints at data years (NCI's default) or,
  with ``continuous=True``, anywhere between them (exact). NCI's rules: at least ``min_end`` observations
  between a joinpoint and either end and ``min_between`` between two joinpoints (a joinpoint on an
  observation not counted; defaults 2 and 2).
- Selection (:mod:`brecha.trends.joinpoint_selection`): ``wbic`` (default, as Joinpoint 5), ``bic``,
  ``bic3`` or ``permutation`` (Kim et al. 2000, 4,499 permutations, seeded). The rule travels in the
  ``selection`` column.
- Weights: none (constant variance) or ``poisson``: Var(ln rate) ~ 1/count, so weight = count.
- Segment slope b_i = b1 + d_1 + ... + d_(i-1); APC_i = (e^b_i - 1) x 100 with a t CI on
  n - (2k + 2) df (the joinpoint locations counted as parameters, as in NCI's notation p = 2k + 2;
  sigma^2 = SSE / (n - 2k - 2)).
- AAPC over [a, b] (Clegg et al., 2009) with a ``parametric``, ``muggeo`` (continuous joinpoints) or
  ``empirical-quantile`` interval: see :mod:`brecha.trends.aapc`.

References: Kim HJ, Fay MP, Feuer EJ, Midthune DN (2000), Stat Med 19:335-351; Clegg LX, Hankey BF,
Tiwari R, Feuer EJ, Edwards BK (2009), Stat Med 28:3670-3682; NCI Joinpoint Regression Program help.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..errors import InputError
from ..i18n import Catalog
from . import aapc as A
from .joinpoint_continuous import best_fits
from .joinpoint_fit import designs, final_fit, max_joinpoints_default, slope_matrix
from .joinpoint_selection import SELECTIONS, criteria, permutation_select, select
from .series import classify, prepare_series
WEIGHTS = (None, "poisson")

MSG = Catalog({
    "bad_selection": ("selección de modelo desconocida '{value}'; use wbic, bic, bic3 o permutation",
                      "unknown model selection '{value}'; use wbic, bic, bic3 or permutation"),
    "bad_ci": ("intervalo del AAPC desconocido '{value}'; use parametric, empirical-quantile o muggeo",
               "unknown AAPC interval '{value}'; use parametric, empirical-quantile or muggeo"),
    "muggeo_needs_continuous": ("el intervalo muggeo es para joinpoints continuos (continuous=True)",
                                "the muggeo interval is for continuous joinpoints (continuous=True)"),
    "bad_rule": ("{name} debe ser un entero >= 1, no {value}", "{name} must be a whole number >= 1, not {value}"),
    "bad_family": ("modelo desconocido '{value}'; use gaussian o poisson",
                   "unknown model '{value}'; use gaussian or poisson"),
    "poisson_limits": ("el joinpoint de Poisson admite joinpoints en años con dato, selección wbic, bic o bic3, IC "
                       "parametric y sin pesos",
                       "the Poisson joinpoint takes joinpoints at data years, selection wbic, bic or bic3, the "
                       "parametric CI and no weights"),
    "bad_weights": ("pesos desconocidos '{value}'; use ninguno o poisson", "unknown weights '{value}'; use none or poisson"),
    "need_data": ("indique counts y births, o rates", "give counts and births, or rates"),
    "need_counts": ("los pesos de Poisson necesitan los conteos (counts)", "Poisson weights need the counts"),
    "not_positive": ("hay tasas iguales a 0 o negativas: el logaritmo no está definido",
                     "there are rates equal to 0 or negative: the logarithm is undefined"),
    "not_positive_hint": ("sume 0,5 a los conteos cero (como Joinpoint) o agrupe años; brecha.trends.trends lo hace "
                          "con zero='add-half'", "add 0.5 to zero counts (as Joinpoint does) or pool years; "
                          "brecha.trends.trends does it with zero='add-half'"),
    "bad_shape": ("dimensiones incompatibles: años {x} y datos {y}", "incompatible shapes: years {x} and data {y}"),
    "not_finite": ("hay valores faltantes en los datos", "there are missing values in the data"),
    "too_short": ("{n} {n:año|años}: se necesitan al menos 3", "{n} {n:year|years}: at least 3 are needed"),
    "unsorted": ("los años deben ser crecientes y distintos", "years must be increasing and distinct"),
    "bad_range": ("el periodo del AAPC {a:g}-{b:g} no está dentro de los datos ({first:g}-{last:g})",
                  "the AAPC period {a:g}-{b:g} is outside the data ({first:g}-{last:g})"),
})


@dataclass
class JoinpointResult:
    """Joinpoint fits of one or many series observed at the same years.

    ``models``: one row per (series, k): best placement, SSE, BIC, BIC3, weight (R2max), WBIC, selected;
    ``segments``: one row per (series, segment) with APC and CI; ``aapc``: one row per series (with
    ``ci_method``); ``tests``: the permutation tests run (``selection="permutation"``).
    ``n_joinpoints``: selected k per series; ``joinpoints``: list of tuples of years per series.
    """

    models: pd.DataFrame
    segments: pd.DataFrame
    aapc: pd.DataFrame
    n_joinpoints: np.ndarray
    joinpoints: list
    selection: str
    weights: str | None
    seed: int | None
    tests: pd.DataFrame | None = None
    continuous: bool = False
    fitted: np.ndarray | None = None  # the selected model's rate per series and year (scale of the input)


def _check_options(selection, weights, aapc_ci=None, continuous=False, rules=()) -> None:
    if selection not in SELECTIONS:
        raise InputError(MSG("bad_selection", value=selection), argument="selection")
    if weights not in WEIGHTS:
        raise InputError(MSG("bad_weights", value=weights), argument="weights")
    if aapc_ci is not None and aapc_ci not in A.CI_METHODS:
        raise InputError(MSG("bad_ci", value=aapc_ci), argument="aapc_ci")
    if aapc_ci == "muggeo" and not continuous:
        raise InputError(MSG("muggeo_needs_continuous"), argument="aapc_ci")
    for name, value in rules:
        if value is not None and (int(value) != value or value < 1):
            raise InputError(MSG("bad_rule", name=name, value=value), argument=name)


def _prepare(years, counts, births, rates, weights, per):
    x = np.asarray(years, dtype=float)
    if counts is not None and births is not None:
        e = np.asarray(counts, dtype=float)
        b = np.asarray(births, dtype=float)
        if e.shape != b.shape:
            raise InputError(MSG("bad_shape", x=e.shape, y=b.shape))
        rate = per * e / b
    elif rates is not None:
        rate = np.asarray(rates, dtype=float)
        e = None if counts is None else np.asarray(counts, dtype=float)
    else:
        raise InputError(MSG("need_data"))
    single = rate.ndim == 1
    rate2 = rate[None, :] if single else rate
    if x.ndim != 1 or rate2.ndim != 2 or rate2.shape[1] != len(x):
        raise InputError(MSG("bad_shape", x=x.shape, y=rate.shape))
    if len(x) < 3:
        raise InputError(MSG("too_short", n=len(x)))
    if np.any(np.diff(x) <= 0):
        raise InputError(MSG("unsorted"))
    if not np.all(np.isfinite(rate2)):
        raise InputError(MSG("not_finite"))
    if np.any(rate2 <= 0):
        raise InputError(MSG("not_positive"), hint=MSG("not_positive_hint"))
    W = None
    if weights == "poisson":
        if e is None:
            raise InputError(MSG("need_counts"))
        W = e[None, :] if e.ndim == 1 else e
        W = np.broadcast_to(W, rate2.shape).astype(float)
    return x, np.log(rate2), W, single


def fit_joinpoints(x, Y, W=None, max_joinpoints=2, min_end=2, min_between=2, selection="wbic", alpha=0.05,
                   n_permutations=4499, seed=2024, continuous=False):
    """Core of :func:`joinpoint` on arrays: ``Y`` = ln(rate) of shape (S, n), ``W`` weights or None.

    Returns ``(k_selected, models, crit, tests)``: ``models[k] = (sse (S,), taus (S, k))`` with the
    joinpoints in years, ``crit[k] = (bic, bic3, weight, wbic)``, ``tests`` the permutation tests run.
    """
    s, n = Y.shape
    xc = x - x.mean()
    centre = (np.sum(W * Y, axis=1) / np.sum(W, axis=1)) if W is not None else Y.mean(axis=1)
    Yc = Y - centre[:, None]
    fits = {}
    # a short series cannot support many joinpoints: cap K as NCI Joinpoint recommends
    for k in range(min(max_joinpoints, max_joinpoints_default(n)) + 1):
        if n - (2 * k + 2) < 1:
            break
        sse, taus = best_fits(xc, Yc, W, k, min_end, min_between, continuous)
        if not np.all(np.isfinite(sse)):
            break
        fits[k] = (sse, taus)
    crit = criteria(xc, Yc, W, fits)
    tests = []
    if selection == "permutation":
        chosen, tests = permutation_select(xc, Yc, W, fits, alpha, n_permutations, seed, min_end, min_between,
                                           continuous)
    else:
        chosen = select(selection, crit)
    models = {k: (sse, taus + x.mean()) for k, (sse, taus) in fits.items()}
    return chosen, models, crit, tests


def _segments_table(x, Y, W, chosen, models, alpha, aapc_range, clip=False, aapc_ci="parametric",
                    n_resamples=1000, seed=2024, rules=(2, 2), continuous=False):
    """APC rows per segment and the AAPC row per series, for the selected models."""
    from scipy import special

    s, n = Y.shape
    centre = x.mean()
    xc = x - centre
    seg_rows, aapc_rows, joinpoints = [], [], [None] * s
    asked = (x[0], x[-1]) if aapc_range is None else (float(aapc_range[0]), float(aapc_range[1]))
    a, b = asked
    if clip:  # per-unit use: the AAPC period is cut to the years the unit has
        a, b = max(a, x[0]), min(b, x[-1])
    if a < x[0] or b > x[-1] or a >= b:
        raise InputError(MSG("bad_range", a=asked[0], b=asked[1], first=x[0], last=x[-1]))
    z = special.ndtri(1.0 - alpha / 2.0)
    for k in np.unique(chosen):
        members = np.flatnonzero(chosen == k)
        taus = models[k][1][members] - centre
        Ym = Y[members]
        Wm = None if W is None else W[members]
        beta, xtx_inv, sse = final_fit(xc, Ym, Wm, taus)
        df = n - (2 * k + 2)
        cov = xtx_inv * (sse / df)[:, None, None]
        C = slope_matrix(k)
        slopes = beta @ C.T
        cov_seg = np.einsum("ip,spq,jq->sij", C, cov, C)
        se = np.sqrt(np.einsum("sii->si", cov_seg))
        q = special.stdtrit(df, 1.0 - alpha / 2.0)
        t_stat = slopes / se
        p_value = 2.0 * special.stdtr(df, -np.abs(t_stat))
        if aapc_ci == "empirical-quantile":
            eq_lo, eq_hi = A.empirical_quantile(xc, Ym, Wm, taus, beta, k, a - centre, b - centre, alpha,
                                                n_resamples, seed, rules[0], rules[1], continuous)
        for m, unit_pos in enumerate(members):
            jp_years = taus[m] + centre
            joinpoints[unit_pos] = tuple(float(v) for v in jp_years)
            bounds = np.concatenate([[x[0]], jp_years, [x[-1]]])
            for i in range(k + 1):
                seg_rows.append((unit_pos, i + 1, bounds[i], bounds[i + 1], slopes[m, i], se[m, i], t_stat[m, i],
                                 p_value[m, i], df, k))
            mean_slope, var_se, inside_one = A.mean_slope_parametric(bounds, slopes[m], cov_seg[m], a, b)
            lo = hi = np.nan
            method = aapc_ci
            if aapc_ci == "muggeo" and k > 0 and not inside_one:
                mean_slope, var_se, _ = A.mean_slope_muggeo(xc, Ym[m], None if Wm is None else Wm[m], taus[m],
                                                            beta[m], sse[m], a - centre, b - centre, df)
            elif aapc_ci == "muggeo":
                method = "parametric"  # no joinpoint inside the period: nothing to add to the segment's CI
            crit = q if inside_one else z
            if method == "empirical-quantile":
                lo, hi = eq_lo[m], eq_hi[m]
            else:
                lo, hi = mean_slope - crit * var_se, mean_slope + crit * var_se
            stat = mean_slope / var_se
            p_aapc = 2.0 * (special.stdtr(df, -abs(stat)) if inside_one else special.ndtr(-abs(stat)))
            aapc_rows.append((unit_pos, a, b, mean_slope, var_se, stat, p_aapc, lo, hi,
                              "t" if inside_one and method == "parametric" else (
                                  "empirical" if method == "empirical-quantile" else "normal"),
                              method, df, k))
    segs = pd.DataFrame(seg_rows, columns=["series", "segment", "start_year", "end_year", "slope", "se", "t",
                                           "p_value", "df", "n_joinpoints"])
    q_seg = special.stdtrit(segs["df"].to_numpy(float), 1.0 - alpha / 2.0) if len(segs) else np.array([])
    segs["apc"] = (np.exp(segs["slope"]) - 1) * 100
    segs["apc_lower"] = (np.exp(segs["slope"] - q_seg * segs["se"]) - 1) * 100
    segs["apc_upper"] = (np.exp(segs["slope"] + q_seg * segs["se"]) - 1) * 100
    segs = segs.sort_values(["series", "segment"]).reset_index(drop=True)
    aapc = pd.DataFrame(aapc_rows, columns=["series", "start_year", "end_year", "slope", "se", "t", "p_value",
                                            "slope_lower", "slope_upper", "ci_distribution", "ci_method", "df",
                                            "n_joinpoints"])
    aapc["aapc"] = (np.exp(aapc["slope"]) - 1) * 100
    aapc["aapc_lower"] = (np.exp(aapc["slope_lower"]) - 1) * 100
    aapc["aapc_upper"] = (np.exp(aapc["slope_upper"]) - 1) * 100
    aapc = aapc.drop(columns=["slope_lower", "slope_upper"]).sort_values("series").reset_index(drop=True)
    return segs, aapc, joinpoints


def _models_table(x, n, models, crit, chosen, s):
    rows = []
    for k, (sse, taus) in models.items():
        bic, bic3, weight, wbic = crit[k]
        for i in range(s):
            rows.append((i, k, sse[i], bic[i], bic3[i], weight[i], wbic[i],
                         ";".join(f"{v:.10g}" for v in taus[i]), chosen[i] == k))
    table = pd.DataFrame(rows, columns=["series", "n_joinpoints", "sse", "bic", "bic3", "weight", "wbic",
                                        "joinpoints", "selected"])
    return table.sort_values(["series", "n_joinpoints"]).reset_index(drop=True)


def _fitted(x, Y, W, chosen, models) -> np.ndarray:
    """The selected model's fitted ln(rate) per series and year (``Y``'s scale): each series refitted by
    (weighted) least squares at its chosen joinpoints (:func:`final_fit`), the design times the coefficients."""
    fitted = np.empty_like(Y)
    for k in np.unique(chosen):
        members = np.flatnonzero(chosen == k)
        taus = models[k][1][members] - x.mean()
        beta, _, _ = final_fit(x - x.mean(), Y[members], None if W is None else W[members], taus)
        fitted[members] = np.einsum("snp,sp->sn", designs(x - x.mean(), taus), beta)
    return fitted


def _rules(min_segment, min_end, min_between):
    """NCI's two rules; ``min_segment`` (older brecha) sets both."""
    return (min_segment if min_end is None else min_end), (min_segment if min_between is None else min_between)


def joinpoint(years, counts=None, births=None, rates=None, max_joinpoints: int = 2, min_segment: int = 2,
              selection: str = "wbic", weights=None, alpha: float = 0.05, aapc_range=None,
              n_permutations: int = 4499, seed: int | None = 2024, per: float = 1000.0, continuous: bool = False,
              min_end: int | None = None, min_between: int | None = None, aapc_ci: str | None = None,
              n_resamples: int = 1000) -> JoinpointResult:
    """Joinpoint regression of ln(rate) on year for one series or many (2-D: series x years).

    Parameters
    ----------
    years : increasing years (1-D), shared by all series.
    counts, births : event counts and births (rate = per x counts / births); or ``rates`` directly.
    max_joinpoints : K, the most joinpoints tried (default 2).
    min_end, min_between : NCI's rules (observations between a joinpoint and either end, and between two
        joinpoints, a joinpoint on an observation not counted; default ``min_segment`` = 2 for both).
    selection : ``wbic`` (default, as NCI Joinpoint 5), ``bic``, ``bic3`` or ``permutation`` (Kim et al.
        2000; ``n_permutations`` (4,499 as NCI), ``seed``).
    continuous : joinpoints anywhere between data years (exact), not only at them.
    weights : None or ``poisson`` (weight = count, i.e. 1/Var(ln rate)).
    alpha : CI level 1 - alpha; also the overall level of the permutation tests.
    aapc_range : (start, end) years of the AAPC (default the whole period).
    aapc_ci : ``parametric`` (default with joinpoints at data years), ``muggeo`` (default with continuous
        joinpoints) or ``empirical-quantile`` (``n_resamples``, ``seed``); see :mod:`brecha.trends.aapc`.

    Zero counts must be handled first (``trends(..., zero="add-half")`` does it).

    Example:
        >>> import numpy as np
        >>> yrs = np.arange(2000, 2016)
        >>> rate = np.exp(np.where(yrs < 2008, -0.05 * (yrs - 2008), 0.03 * (yrs - 2008)) + 2)
        >>> joinpoint(yrs, rates=rate, max_joinpoints=1).joinpoints
        [(2008.0,)]
    """
    min_end, min_between = _rules(min_segment, min_end, min_between)
    _check_options(selection, weights, aapc_ci, continuous, (("min_end", min_end), ("min_between", min_between)))
    aapc_ci = aapc_ci or ("muggeo" if continuous else "parametric")
    x, Y, W, _ = _prepare(years, counts, births, rates, weights, per)
    chosen, models, crit, tests = fit_joinpoints(x, Y, W, max_joinpoints, min_end, min_between, selection, alpha,
                                                 n_permutations, seed, continuous)
    segs, aapc, jps = _segments_table(x, Y, W, chosen, models, alpha, aapc_range, aapc_ci=aapc_ci,
                                      n_resamples=n_resamples, seed=seed, rules=(min_end, min_between),
                                      continuous=continuous)
    table = _models_table(x, Y.shape[1], models, crit, chosen, Y.shape[0])
    fitted = _fitted(x, Y, W, chosen, models)
    tests_table = pd.DataFrame(tests, columns=["series", "k_null", "k_alternative", "p_value"])
    return JoinpointResult(models=table, segments=segs, aapc=aapc, n_joinpoints=chosen, joinpoints=jps,
                           selection=selection, weights=weights,
                           seed=seed if selection == "permutation" or aapc_ci == "empirical-quantile" else None,
                           tests=tests_table, continuous=continuous,
                           fitted=np.exp(fitted)[0] if Y.shape[0] == 1 and np.ndim(rates if rates is not None
                                                                                    else counts) == 1
                           else np.exp(fitted))


def joinpoint_trends(table, names, outcome, zero="add-half", alpha=0.05, min_years=3, max_joinpoints=2,
                     selection="wbic", weights=None, n_permutations=4499, seed=2024, level=None,
                     min_segment=2, aapc_years=None, max_zero_share=0.5, extra_notes=None, continuous=False,
                     min_end=None, min_between=None, aapc_ci=None, n_resamples=1000, family="gaussian",
                     fits=None):
    """Per-unit joinpoint rows for :func:`brecha.trends.trends`: the AAPC row (the unit's overall trend)
    first, then one row per segment. Sparse units (see ``max_zero_share``) get no class on any row.
    ``family="poisson"``: the Poisson model on the counts with the births as offset
    (:mod:`brecha.trends.joinpoint_poisson`; zero-death years enter as zeros).

    ``fits``: a dict to receive, per unit code, the fit these rows come from (least squares only), for a
    figure of exactly that model: ``year`` (the fitted years), ``fitted`` (rate per 1,000), ``segments``
    (the unit's segment rows: ``start_year, end_year, apc, p_value``) and ``joinpoints``."""
    min_end, min_between = _rules(min_segment, min_end, min_between)
    if family not in ("gaussian", "poisson"):
        raise InputError(MSG("bad_family", value=family), argument="family")
    if family == "poisson" and (continuous or selection == "permutation" or (aapc_ci or "parametric") != "parametric"
                                or weights):
        raise InputError(MSG("poisson_limits"), argument="family")
    _check_options(selection, weights, aapc_ci, continuous, (("min_end", min_end), ("min_between", min_between)))
    aapc_ci = aapc_ci or ("muggeo" if continuous else "parametric")
    all_years = np.unique(table["year"])
    if aapc_years is not None and len(all_years) and (
            max(aapc_years[0], all_years[0]) >= min(aapc_years[1], all_years[-1])):
        raise InputError(MSG("bad_range", a=aapc_years[0], b=aapc_years[1], first=all_years[0], last=all_years[-1]))
    units, info, series = prepare_series(table, zero=zero, min_years=min_years, max_zero_share=max_zero_share,
                                         extra_notes=extra_notes)
    notes = info["note"].tolist()
    frames = []
    for x, members, Y10, E in series:
        Y = Y10 * np.log(10.0)
        W = E if weights == "poisson" else None
        if family == "poisson":
            from .joinpoint_poisson import fit_poisson

            births = 1000.0 * E / 10.0 ** Y10
            deaths = np.where(E == 0.5, 0.0, E) if zero == "add-half" else E  # the counts as observed
            chosen, models, Y, W, _ = fit_poisson(x, deaths, births, max_joinpoints, min_end, min_between, selection)
        else:
            chosen, models, _, _ = fit_joinpoints(x, Y, W, max_joinpoints, min_end, min_between, selection, alpha,
                                                  n_permutations, seed, continuous)
        segs, aapc, jps = _segments_table(x, Y, W, chosen, models, alpha, aapc_years, clip=True, aapc_ci=aapc_ci,
                                          n_resamples=n_resamples, seed=seed, rules=(min_end, min_between),
                                          continuous=continuous)
        if fits is not None and family == "gaussian":
            curve = np.exp(_fitted(x, Y, W, chosen, models))
            for i, unit in enumerate(units[members]):
                fits[str(unit)] = {"year": x, "fitted": curve[i], "joinpoints": tuple(jps[i]),
                                   "segments": segs.loc[segs["series"] == i].reset_index(drop=True)}
        jp_text = {i: ";".join(f"{v:.6g}" for v in jps[i]) for i in range(len(members))}
        segs["row"] = "segment"
        aapc["row"] = "aapc"
        aapc["segment"] = pd.NA
        aapc = aapc.rename(columns={"aapc": "apc", "aapc_lower": "apc_lower", "aapc_upper": "apc_upper"})
        both = pd.concat([segs, aapc], ignore_index=True)
        both["pos"] = members[both["series"].to_numpy()]
        both["joinpoints"] = both["series"].map(jp_text)
        both["n_years"] = len(x)
        frames.append(both)
    rows = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(
        columns=["pos", "row", "segment", "start_year", "end_year", "slope", "se", "t", "p_value", "df",
                 "n_joinpoints", "apc", "apc_lower", "apc_upper", "joinpoints", "n_years", "ci_distribution",
                 "ci_method"])
    fitted = set(rows["pos"].tolist())
    missing = [i for i in range(len(units)) if i not in fitted]
    if missing:
        rows = pd.concat([rows, pd.DataFrame({"pos": missing, "row": "unit",
                                              "n_years": info["n_years"].to_numpy()[missing]})],
                         ignore_index=True)
    # the unit's summary (AAPC) row first, so that the first row of each unit is its overall trend
    rows["row_order"] = rows["row"].map({"aapc": 0, "segment": 1, "unit": 2})
    rows = rows.sort_values(["pos", "row_order", "segment"], kind="stable").reset_index(drop=True)
    pos = rows["pos"].to_numpy(int)
    p = rows["p_value"].to_numpy(float)
    slope = rows["slope"].to_numpy(float)
    sparse = info["sparse"].to_numpy()[pos] & np.isfinite(slope)
    trend = classify(slope, p, alpha, sparse)
    unit_codes = units.astype(str)
    out = pd.DataFrame({
        "unit": unit_codes[pos],
        "outcome": outcome,
        "n_years": rows["n_years"].to_numpy(),
        "slope": slope,
        "se": rows["se"].to_numpy(float),
        "p_value": p,
        "rho": np.nan,
        "apc": rows["apc"].to_numpy(float),
        "apc_lower": rows["apc_lower"].to_numpy(float),
        "apc_upper": rows["apc_upper"].to_numpy(float),
        "trend": trend,
        "method": "joinpoint",
        "row": rows["row"].to_numpy(),
        "segment": pd.array(rows["segment"].to_numpy(), dtype="Int64"),
        "start_year": rows["start_year"].to_numpy(float),
        "end_year": rows["end_year"].to_numpy(float),
        "joinpoints": rows["joinpoints"].fillna("").to_numpy(),
        "n_joinpoints": pd.array(rows["n_joinpoints"].to_numpy(), dtype="Int64"),
        "name": [names.get(u, "") for u in unit_codes[pos]],
        "level": level or "unit",
        "period": f"{all_years[0]}-{all_years[-1]}" if len(all_years) else "",
        "first_year": info["first_year"].to_numpy()[pos],
        "last_year": info["last_year"].to_numpy()[pos],
        "df": rows["df"].to_numpy(float),
        "t": rows["t"].to_numpy(float),
        "conf_level": 1.0 - alpha,
        "ci_distribution": rows.get("ci_distribution", pd.Series([None] * len(rows))).to_numpy(),
        "selection": selection,
        "weights": weights or "none",
        "seed": seed if selection == "permutation" or aapc_ci == "empirical-quantile" else pd.NA,
        "ci_method": rows.get("ci_method", pd.Series([None] * len(rows))).to_numpy(),
        "continuous": continuous,
        "family": family,
        "zero_rule": "none" if family == "poisson" and zero == "add-half" else zero,  # zeros enter as zeros
        "zero_years": info["zero_years"].to_numpy()[pos],
        "sparse": sparse,
        "dropped_years": info["dropped_years"].to_numpy()[pos],
        "note": [notes[i] for i in pos],
    })
    out.loc[out["row"] == "segment", "ci_distribution"] = "t"
    out.loc[out["row"] == "segment", "ci_method"] = "parametric"
    return out
