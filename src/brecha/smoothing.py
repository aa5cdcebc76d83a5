"""Small areas: empirical-Bayes smoothed rates and funnel-plot control limits.

Many communes have a few hundred births a year, so their raw rate jumps between 0 and 30 per 1,000.

Empirical Bayes (:func:`smooth`)
    Poisson-gamma model: D_i ~ Poisson(θ_i·LB_i), θ_i ~ Gamma(mean m, variance A). The prior is estimated
    by the method of moments of Marshall (1991, Applied Statistics 40:283-294), the estimator of R
    ``spdep::EBest``: m = ΣD/ΣLB, s² = Σ LB_i(r_i − m)²/ΣLB, A = s² − m/LB̄ (LB̄ the mean births per unit;
    A = 0 when negative, i.e. no variation beyond Poisson noise). The smoothed rate is the posterior mean
    m + C_i(r_i − m) with C_i = A/(A + m/LB_i), the same as (α + D_i)/(β + LB_i) with the gamma prior
    α = m²/A, β = m/A. The interval is the equal-tailed posterior interval Gamma(α + D_i, β + LB_i).
    ``prior="global"`` estimates one prior per period; ``prior="region"`` one per region and period.

    When A ≤ 0 (the rates vary no more than Poisson noise would make them; e.g. Chile's communes in 2011),
    Marshall (1991) and ``spdep::EBest`` set A = 0, which replaces every unit by m with a zero-width
    interval: a certainty the data do not give (A = 0 is an estimate, and its sampling error is ignored).
    brecha keeps Marshall's estimate (m: the spread is all chance, shrinkage 1) but not the zero-width
    interval: for the rows of such a prior group the interval runs from min(m, L_i) to max(m, U_i), with
    (L_i, U_i) the unit's own exact Poisson interval (Garwood 1936, the interval of :func:`brecha.rates`).
    As A runs from 0 to infinity the posterior interval moves from the point m to the own-data interval,
    so this hull covers the posterior intervals of every A >= 0: it does not depend on the estimated A,
    whose sampling error Marshall's interval ignores (Morris 1983, JASA 78:47-55; Laird & Louis 1987,
    JASA 82:739-750, on EB intervals that ignore the estimation of the prior being too narrow). The rows
    are flagged ``no_extra_variation``, ``method`` names the rule, and a warning says so.
    Pool years (``pool=True``) or use a regional prior to get a positive A. A zero-birth unit in such a
    group keeps m as estimate and gets no interval (NaN; flag ``zero_births``).

Funnel plot (:func:`funnel`)
    Target θ = ΣD/ΣLB (or given). For a unit with LB births, the control limits at probability p are the
    exact Poisson quantiles of the count under θ·LB, interpolated as in Spiegelhalter (2005, Stat Med
    24:1185-1202, appendix): r_p the smallest r with F(r) ≥ p, α = (F(r_p) − p)/(F(r_p) − F(r_p − 1)),
    limit = (r_p − α)/LB. Limits at 95 % (p = 0.025, 0.975) and 99.8 % (p = 0.001, 0.999).
    Overdispersion (Spiegelhalter 2005, Qual Saf Health Care 14:347-351): z_i = (r_i − θ)/√(θ/LB_i)
    winsorised at the 10th/90th percentiles, φ = Σz²/I; ``additive`` (default when True):
    τ² = max(0, (Iφ − (I − 1))/(Σw − Σw²/Σw)), w = LB/θ, limits θ ± z_p√(θ/LB + τ²); ``multiplicative``:
    θ ± z_p√(max(φ, 1)θ/LB) (limits are never made narrower than Poisson when φ < 1). These use the normal
    approximation. ``z_adjusted`` is the z-score under the chosen model.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .errors import InputError, warn
from .i18n import Catalog
from .intervals import as_float, check_conf_level, join_flags, poisson_exact_limits
from .intervals import divide as _div
from .rates import attach_names, carry_notes, events_table

MSG = Catalog({
    "bad_prior": ("prior '{name}' desconocido; use global o region", "unknown prior '{name}'; use global or region"),
    "no_region": ("el prior regional necesita la región de cada unidad, y estas unidades no la tienen",
                  "the regional prior needs each unit's region, and these units have none"),
    "no_region_hint": ("agregue al panel una columna 'region' (la región de cada unidad), use los códigos de un "
                       "registro nacional (comunas de Chile, municipios de Brasil), o use el prior global (el "
                       "predeterminado)",
                       "add a 'region' column to the panel (each unit's region), use the codes of a national "
                       "registry (Chilean communes, Brazilian municipalities), or use the global prior (the "
                       "default)"),
    "bad_target": ("la tasa objetivo debe ser positiva (por 1.000), no {value}",
                   "the target rate must be positive (per 1,000), not {value}"),
    "bad_target_hint": ("indique la tasa por 1.000 nacidos vivos, p. ej. 7.5, u omítala para usar la tasa del "
                        "conjunto", "give the rate per 1,000 live births, e.g. 7.5, or leave it out to use the "
                        "overall rate"),
    "no_extra_variation": (
        "Bayes empírico, {groups}: las tasas de las unidades no varían más de lo que produce el azar de "
        "Poisson (A de Marshall {values}, en (por 1.000)², ≤ 0), así que no se puede estimar cuánto difieren "
        "de verdad. El método de Marshall llevaría todas las unidades a la media, con intervalos de ancho "
        "cero, aparentando una certeza que no existe. Para esas filas la estimación es la media y el "
        "intervalo va de la media al intervalo de Poisson exacto de la unidad, el que cubre cualquier varianza "
        "previa (flag no_extra_variation). Para estimar la variación, {what}",
        "Empirical Bayes, {groups}: the units' rates vary no more than Poisson chance would make them "
        "(Marshall's A {values}, in (per 1,000)², ≤ 0), so how much they truly differ cannot be estimated. "
        "Marshall's method would set every unit to the mean with zero-width intervals, pretending a "
        "certainty that does not exist. For these rows the estimate is the mean and the interval spans the "
        "mean and the unit's exact Poisson interval, covering any prior variance (flag no_extra_variation). "
        "To estimate the variation, {what}"),
    "what_pool_region": ("agrupe años (--pool) o use --prior region", "pool years (--pool) or use --prior region"),
    "what_pool": ("agrupe años (--pool) o analice un área mayor (el prior de cada región usa solo sus unidades)",
                  "pool years (--pool) or analyse a larger area (each region's prior uses its own units only)"),
    "bad_overdispersion": ("sobredispersión '{name}' desconocida; use additive o multiplicative",
                           "unknown overdispersion '{name}'; use additive or multiplicative"),
})

# the first columns are the command-line contract (docs/rates.md); the Python tables use the same order
SMOOTH_COLUMNS = ["unit", "period", "outcome", "events", "births", "raw_rate", "estimate", "lower", "upper",
                  "shrinkage", "method", "prior_mean", "prior_sd", "prior_group", "conf_level", "flag"]
FUNNEL_COLUMNS = ["unit", "period", "outcome", "events", "births", "rate", "target", "lower_95", "upper_95",
                  "lower_998", "upper_998", "flag", "method", "z", "flag_95", "tau2", "phi", "z_adjusted"]


def marshall_prior(events, births, groups=None):
    """Method-of-moments prior mean m and variance A per group (Marshall 1991), vectorised.

    Units with zero or missing births do not enter. Returns ``(m, A, A_raw, group_index)``; ``A_raw`` is the
    estimate before truncation at 0.
    """
    d = as_float(events)
    n = as_float(births)
    ok = np.isfinite(d) & np.isfinite(n) & (n > 0)
    if groups is None:
        gidx = np.zeros(d.shape[0], dtype=np.int64)
    else:
        gidx = np.asarray(groups, dtype=np.int64)
    k = int(gidx.max()) + 1 if gidx.size else 0
    dw = np.where(ok, d, 0.0)
    nw = np.where(ok, n, 0.0)
    sum_d = np.bincount(gidx, weights=dw, minlength=k)
    sum_n = np.bincount(gidx, weights=nw, minlength=k)
    count = np.bincount(gidx, weights=ok.astype(float), minlength=k)
    m = _div(sum_d, sum_n)
    r = _div(dw, np.where(ok, n, 0.0))
    dev = np.where(ok, nw * (r - m[gidx]) ** 2, 0.0)
    s2 = _div(np.bincount(gidx, weights=dev, minlength=k), sum_n)
    mean_births = _div(sum_n, count)
    a_raw = s2 - _div(m, mean_births)
    return m, np.maximum(a_raw, 0.0), a_raw, gidx


def smooth(panel, outcome: str = "infant", years=None, pool: bool = False, prior: str = "global",
           conf_level: float = 0.95, per: float = 1000) -> pd.DataFrame:
    """Empirical-Bayes (Poisson-gamma, Marshall 1991 method of moments) smoothed rates per unit and period.

    Returns ``unit, period, outcome, events, births, raw_rate, estimate, lower, upper, shrinkage,
    prior_mean, prior_sd, prior_group, conf_level, method, flag`` (+ ``name``). ``estimate`` is the
    smoothed rate per 1,000, ``lower``/``upper`` its posterior interval, ``shrinkage`` = 1 − C_i the share
    by which the raw rate is pulled toward the prior mean (0 = kept, 1 = replaced by the prior mean).
    Flags: ``zero_births`` (no information: the prior mean), ``missing``, ``no_extra_variation`` (A <= 0:
    every unit gets the prior mean, with the interval of the module docstring).

    >>> import pandas as pd
    >>> ev = pd.DataFrame({"unit": list("ABCD"), "year": 2010, "events": [0, 10, 30, 5],
    ...                    "births": [100, 1000, 2000, 900]})
    >>> smooth(ev)["estimate"].round(3).tolist()
    [10.624, 10.786, 13.279, 9.276]
    """
    from scipy.special import gammaincinv

    conf_level = check_conf_level(conf_level)
    key = str(prior).strip().lower()
    if key not in ("global", "region"):
        raise InputError(MSG("bad_prior", name=prior))
    ev, units, name = events_table(panel, outcome, years, pool)
    d = as_float(ev["events"])
    n = as_float(ev["births"])
    pidx, periods = pd.factorize(ev["period"].astype(str), sort=True)
    if key == "region":
        region = None
        if units is not None and "region" in units.columns:
            region = ev["unit"].map(units.drop_duplicates("unit").set_index("unit")["region"])
        if region is None or region.isna().all():
            raise InputError(MSG("no_region"), hint=MSG("no_region_hint"), argument="prior")
        region = region.astype(str).fillna("")
        labels = ev["period"].astype(str) + "|" + region
        gidx, _ = pd.factorize(labels)
        group_name = region.to_numpy(dtype=object)
    else:
        gidx = pidx
        group_name = np.full(len(ev), "global", dtype=object)
    m, a, a_raw, gidx = marshall_prior(d, n, gidx)
    ok = np.isfinite(d) & np.isfinite(n) & (n > 0)
    mi, ai = m[gidx], a[gidx]
    raw = np.where(ok, _div(d, n), np.nan)
    weight = np.where(ok, _div(ai, ai + _div(mi, n)), 0.0)
    weight = np.where(ok & (ai == 0), 0.0, weight)
    est = mi + weight * (np.where(ok, raw, mi) - mi)
    # posterior Gamma(alpha + D, beta + LB), alpha = m²/A, beta = m/A
    alpha_q = (1.0 - conf_level) / 2
    with np.errstate(divide="ignore", invalid="ignore"):
        shape = _div(mi ** 2, ai) + np.where(ok, d, 0.0)
        rate_ = _div(mi, ai) + np.where(ok, n, 0.0)
        lower = gammaincinv(shape, alpha_q) / rate_
        upper = gammaincinv(shape, 1.0 - alpha_q) / rate_
    # A <= 0: no between-unit variance to estimate (Marshall truncates A to 0)
    degenerate = ai == 0
    own = degenerate & ok
    own_lower, own_upper = poisson_exact_limits(np.where(own, d, 0.0), alpha_q, alpha_q)
    # the estimate stays Marshall's (the prior mean, shrinkage 1: the spread is all chance); the interval is
    # the hull of the prior mean and the unit's own exact Poisson interval, which covers the posterior
    # intervals of every prior variance A >= 0 (A -> 0: the point m; A -> infinity: the own-data interval)
    lower = np.where(own, np.minimum(mi, _div(own_lower, n)), np.where(degenerate, np.nan, lower))
    upper = np.where(own, np.maximum(mi, _div(own_upper, n)), np.where(degenerate, np.nan, upper))
    missing = ~(np.isfinite(d) & np.isfinite(n))
    flags = join_flags(len(ev), [(missing, "missing"), (~missing & (n == 0), "zero_births"),
                                 (degenerate, "no_extra_variation")])
    method = np.where(own, f"prior mean; interval: hull of the prior mean and the exact Poisson interval "
                           f"(Marshall 1991 A <= 0, {key} prior)",
                      f"eb-poisson-gamma-mm (Marshall 1991, {key} prior)")
    if degenerate.any():
        _warn_no_extra_variation(gidx[degenerate], a_raw, ev["period"].astype(str).to_numpy()[degenerate],
                                 group_name[degenerate])
    out = pd.DataFrame({
        "unit": ev["unit"].astype(str).to_numpy(), "period": ev["period"].astype(str).to_numpy(),
        "outcome": name, "events": ev["events"].array, "births": ev["births"].array,
        "raw_rate": raw * per, "estimate": est * per, "lower": lower * per, "upper": upper * per,
        "shrinkage": 1.0 - weight, "prior_mean": mi * per, "prior_sd": np.sqrt(ai) * per,
        "prior_group": group_name.astype(str), "conf_level": conf_level,
        "method": method, "flag": flags.astype(str),
    })
    return carry_notes(attach_names(out[SMOOTH_COLUMNS], units), panel)


def _warn_no_extra_variation(groups, a_raw, periods, names) -> None:
    """One warning naming the prior groups (period, region) whose Marshall A is <= 0."""
    seen = {}
    for g, period, name in zip(groups, periods, names):
        label = str(period) if str(name) == "global" else f"{period} {name}"
        seen.setdefault(label, float(a_raw[g]))
    shown = list(seen.items())[:8]
    more = f" (+{len(seen) - 8})" if len(seen) > 8 else ""
    from .i18n import get_language

    comma = get_language() == "es"  # the values in the message's own decimal convention
    values = [f"{v * 1e6:.3g}".replace(".", ",") if comma else f"{v * 1e6:.3g}" for _, v in shown]
    by_region = any(str(name) != "global" for name in names)  # --prior region already: do not suggest it
    warn(MSG("no_extra_variation", groups=", ".join(k for k, _ in shown) + more,
             values=("; " if comma else ", ").join(values) + more,
             what=MSG("what_pool" if by_region else "what_pool_region")))


# ---------------------------------------------------------------------------------------------- funnel
def poisson_limit(expected, p):
    """Spiegelhalter's (2005) interpolated exact Poisson quantile of the count at probability p, vectorised.

    r_p = smallest r with P(X ≤ r) ≥ p for X ~ Poisson(expected); returns r_p − α with
    α = (P(X ≤ r_p) − p)/(P(X ≤ r_p) − P(X ≤ r_p − 1)), never below 0; 0 when expected = 0.
    """
    from scipy.special import ndtri, pdtr

    lam = np.asarray(expected, dtype=float)
    p = float(p)
    out = np.full(lam.shape, np.nan)
    ok = np.isfinite(lam) & (lam > 0)
    if not ok.any():
        return np.where(lam == 0, 0.0, out)
    lm = lam[ok]
    # Cornish-Fisher start, then step to the exact discrete quantile (usually 0-2 steps)
    z = float(ndtri(p))
    r = np.maximum(np.floor(lm + z * np.sqrt(lm) + (z * z - 1.0) / 6.0), 0.0)
    active = np.flatnonzero(pdtr(r, lm) < p)
    while active.size:
        r[active] += 1
        active = active[pdtr(r[active], lm[active]) < p]
    active = np.flatnonzero(r > 0)
    while active.size:
        down = pdtr(r[active] - 1, lm[active]) >= p
        active = active[down]
        r[active] -= 1
        active = active[r[active] > 0]
    f_r = pdtr(r, lm)
    f_prev = np.where(r > 0, pdtr(np.maximum(r - 1, 0), lm), 0.0)
    alpha = _div(f_r - p, f_r - f_prev)
    out[ok] = np.maximum(r - np.nan_to_num(alpha), 0.0)  # r_p = 0: the limit is 0, not below
    out[lam == 0] = 0.0
    return out


def _overdispersion(z, w):
    """Winsorised (10 %/90 %) φ and the additive τ² of Spiegelhalter (2005)."""
    z = z[np.isfinite(z)]
    w = w[np.isfinite(w)]
    count = z.size
    if count < 2:
        return 1.0, 0.0
    lo, hi = np.quantile(z, [0.1, 0.9])
    zw = np.clip(z, lo, hi)
    phi = float(np.sum(zw ** 2) / count)
    denom = float(np.sum(w) - np.sum(w ** 2) / np.sum(w))
    tau2 = max(0.0, (count * phi - (count - 1)) / denom) if denom > 0 else 0.0
    return phi, tau2


def _adjusted_z(rate, theta, births, model, tau2, phi):
    """z-score of each rate under the funnel's model: Poisson, additive (τ²) or multiplicative (φ ≥ 1)."""
    var = _div(theta, births)
    if model == "additive":
        var = var + tau2
    elif model == "multiplicative":
        var = var * np.maximum(phi, 1.0)
    return np.where(np.isfinite(rate), _div(rate - theta, np.sqrt(var)), np.nan)


def _resolve_overdispersion(value) -> str | None:
    if value in (False, None, "none", "no", ""):
        return None
    if value is True:
        return "additive"
    key = str(value).strip().lower()
    if key not in ("additive", "multiplicative"):
        raise InputError(MSG("bad_overdispersion", name=value))
    return key


def _limits(theta, births, model, tau2, phi):
    """Lower/upper limits (rates per birth) at 95 % and 99.8 % for one target and arrays of births."""
    n = np.asarray(births, dtype=float)
    res = {}
    for tag, (plo, pup), zq in (("95", (0.025, 0.975), 1.959963984540054),
                                ("998", (0.001, 0.999), 3.090232306167813)):
        if model is None:
            lo = _div(poisson_limit(theta * n, plo), n)
            up = _div(poisson_limit(theta * n, pup), n)
        else:
            var = _div(theta, n) * (max(phi, 1.0) if model == "multiplicative" else 1.0)
            if model == "additive":
                var = var + tau2
            sd = np.sqrt(var)
            lo = np.maximum(theta - zq * sd, 0.0)
            up = theta + zq * sd
        res[f"lower_{tag}"] = lo
        res[f"upper_{tag}"] = up
    return res


def funnel(panel, outcome: str = "infant", years=None, pool: bool = True, overdispersion=False,
           target: float | None = None, per: float = 1000) -> pd.DataFrame:
    """Funnel-plot control limits (95 % and 99.8 %) and the outlier flag of every unit.

    ``target`` (per 1,000) defaults to the overall rate ΣD/ΣLB of the period. ``overdispersion``:
    False (exact Poisson limits), True/``"additive"`` or ``"multiplicative"`` (Spiegelhalter 2005).

    Returns ``unit, period, outcome, events, births, rate, target, lower_95, upper_95, lower_998,
    upper_998, z, flag, flag_95, method, tau2, phi, z_adjusted`` (+ ``name``). ``flag`` is ``above``/
    ``below``/``within`` the 99.8 % limits, ``flag_95`` the same for 95 %; ``undefined`` when births are
    zero. ``z`` = (r − θ)/√(θ/LB); ``z_adjusted`` divides by √(θ/LB + τ²) (additive) or √(max(φ, 1)θ/LB)
    (multiplicative), and equals ``z`` without overdispersion. ``tau2`` is in (per 1,000)².
    Plot the limits as curves with :func:`funnel_curve`.
    """
    model = _resolve_overdispersion(overdispersion)
    if target is not None and not (np.isfinite(float(target)) and float(target) > 0):
        raise InputError(MSG("bad_target", value=target), hint=MSG("bad_target_hint"), argument="target")
    ev, units, name = events_table(panel, outcome, years, pool)
    d = as_float(ev["events"])
    n = as_float(ev["births"])
    ok = np.isfinite(d) & np.isfinite(n) & (n > 0)
    pidx, periods = pd.factorize(ev["period"].astype(str), sort=True)
    k = len(periods)
    sum_d = np.bincount(pidx, weights=np.where(ok, d, 0.0), minlength=k)
    sum_n = np.bincount(pidx, weights=np.where(ok, n, 0.0), minlength=k)
    theta = _div(sum_d, sum_n) if target is None else np.full(k, float(target) / per)
    rate = np.where(ok, _div(d, n), np.nan)
    th = theta[pidx]
    z = np.where(ok, _div(rate - th, np.sqrt(_div(th, n))), np.nan)
    tau2 = np.zeros(k)
    phi = np.ones(k)
    if model is not None:
        for j in range(k):
            sel = (pidx == j) & ok
            phi[j], tau2[j] = _overdispersion(z[sel], _div(n[sel], theta[j]))
    lim = {key: np.full(len(ev), np.nan) for key in ("lower_95", "upper_95", "lower_998", "upper_998")}
    for j in range(k):
        sel = (pidx == j) & ok
        res = _limits(theta[j], n[sel], model, tau2[j], phi[j])
        for key, values in res.items():
            lim[key][sel] = values

    def classify(lo, up):
        flag = np.where(rate > up, "above", np.where(rate < lo, "below", "within"))
        return np.where(ok, flag, "undefined")

    method = "exact-poisson (Spiegelhalter 2005)" if model is None else f"{model}-overdispersion (Spiegelhalter 2005)"
    out = pd.DataFrame({
        "unit": ev["unit"].astype(str).to_numpy(), "period": ev["period"].astype(str).to_numpy(),
        "outcome": name, "events": ev["events"].array, "births": ev["births"].array,
        "rate": rate * per, "target": th * per,
        "lower_95": lim["lower_95"] * per, "upper_95": lim["upper_95"] * per,
        "lower_998": lim["lower_998"] * per, "upper_998": lim["upper_998"] * per,
        "z": z, "flag": classify(lim["lower_998"], lim["upper_998"]),
        "flag_95": classify(lim["lower_95"], lim["upper_95"]), "method": method,
        "tau2": tau2[pidx] * per ** 2, "phi": phi[pidx],
        "z_adjusted": _adjusted_z(rate, th, n, model, tau2[pidx], phi[pidx]),
    })
    return carry_notes(attach_names(out[FUNNEL_COLUMNS], units), panel)


def funnel_curve(table_or_target, births=None, points: int = 200, overdispersion=False, tau2: float = 0.0,
                 phi: float = 1.0, per: float = 1000) -> pd.DataFrame:
    """Control-limit curves for plotting: ``period, births, target, lower_95, upper_95, lower_998, upper_998``.

    Give the table returned by :func:`funnel` (target, births range and overdispersion are read from it;
    one curve per period), or a target rate per 1,000 with ``births`` (an array of births, or
    ``(min, max)`` for ``points`` log-spaced values).
    """
    if isinstance(table_or_target, pd.DataFrame):
        frames = []
        table = table_or_target
        for period, part in table.groupby("period", sort=True):
            b = pd.to_numeric(part["births"], errors="coerce").astype(float)
            b = b[b > 0]
            if b.empty:
                continue
            method = str(part["method"].iloc[0])
            model = "additive" if method.startswith("additive") else (
                "multiplicative" if method.startswith("multiplicative") else None)
            grid = births if births is not None else (max(1.0, b.min()), b.max())
            curve = funnel_curve(float(part["target"].iloc[0]), grid, points, model,
                                 float(part["tau2"].iloc[0]), float(part["phi"].iloc[0]), per)
            curve.insert(0, "period", str(period))
            frames.append(curve)
        return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(
            columns=["period", "births", "target", "lower_95", "upper_95", "lower_998", "upper_998"])
    target = float(table_or_target) / per
    if births is None:
        births = (10.0, 100000.0)
    b = np.asarray(births, dtype=float)
    if b.size == 2 and points > 2:
        b = np.unique(np.round(np.geomspace(max(b[0], 1.0), max(b[1], b[0] + 1), points)))
    model = _resolve_overdispersion(overdispersion)
    lim = _limits(target, b, model, tau2 / per ** 2, phi)
    return pd.DataFrame({"births": b, "target": target * per,
                         **{key: values * per for key, values in lim.items()}})
