"""Public functions: array-level ``summary_measures`` and panel-level ``inequality``."""
from __future__ import annotations

import numpy as np
import pandas as pd

from .. import progress
from ..threads import imap_in_threads
from ..i18n import Catalog
from . import analytic
from . import measures as M
from .bootstrap import minimum_replicates

SUMMARY_COLUMNS = ["measure", "estimate", "se", "lower", "upper", "method", "ci_method", "note"]


def parse_measures(measures) -> list[str]:
    """'all' | 'who' | 'extra' | 'd,r,sii' | list -> list of measure names (validated, in a stable order)."""
    if measures is None or measures == "all":
        return list(M.ALL_MEASURES)
    if isinstance(measures, str):
        items = [m.strip().lower() for m in measures.split(",") if m.strip()]
    else:
        items = [str(m).strip().lower() for m in measures]
    names: list[str] = []
    for item in items:
        group = {"all": M.ALL_MEASURES, "who": M.WHO_MEASURES, "extra": M.EXTRA_MEASURES}.get(item)
        for name in group or (item,):
            if name not in M.ALL_MEASURES:
                from ..errors import InputError

                raise InputError(MSG("unknown_measure", name=name),
                                 hint=MSG("measure_hint", names=", ".join(M.ALL_MEASURES)))
            if name not in names:
                names.append(name)
    return names


def _note(name: str, value: float, sub: M.Subgroups, y) -> str:
    if name in M.NOISE_MEASURES and value == 0:
        return MSG("note_truncated")
    if np.isfinite(value):
        if name in ("par", "paf") and value < 0:
            return MSG("note_par_negative")
        if name in ("par", "paf") and sub.reference is None and not sub.is_ordered and np.min(y) == 0 \
                and not sub.favourable:
            return MSG("note_best_zero")
        if name in ("par", "paf") and float(M.reference_value(np.asarray(y, dtype=float), sub)) == 0:
            return MSG("note_no_walter")
        return ""
    if name in ("sii", "rii"):
        return MSG("note_no_convergence")
    if name in ("r", "ratio_p90p10", "kunst_mackenbach", "mld"):
        return MSG("note_zero_rate")
    return MSG("note_undefined")


def summary_measures(estimate, population, se=None, order=None, reference=None, favourable=False,
                     scale=1000, measures="all", conf_level=0.95, noise=None) -> pd.DataFrame:
    """Summary measures of inequality between subgroups from their estimates (array level).

    Parameters
    ----------
    estimate : array of subgroup estimates (e.g. rates per 1,000).
    population : array of subgroup populations (births for infant mortality).
    se : array of subgroup SEs (needed for the delta-method CIs; ACI/RCI/SII/RII/PAR/PAF do not use it).
    order : array, optional. Subgroup order from the most-disadvantaged (lowest) to the most-advantaged
        (highest). Without it the dimension is non-ordered and ACI, RCI, SII, RII, the concentration and
        Kunst-Mackenbach indices are skipped (listed in ``result.attrs["skipped"]``).
    reference : 0-based position(s) or a boolean mask of the reference subgroup(s), optional.
    favourable : bool. False for adverse indicators such as mortality.
    scale : the indicator's scale (1000 for a rate per 1,000; 100 for a percentage).
    measures : 'all', 'who', 'extra', a comma-separated string or a list.
    noise : sampling variance of the estimates for the noise-corrected ``bgv_true``, ``bgsd_true``,
        ``cov_true``: None (``se`` squared, if given) or "poisson" (estimates are Poisson counts per
        ``population`` times ``scale``, as rates per 1,000 births are).

    Returns a DataFrame ``measure, estimate, se, lower, upper, method, ci_method, note``.

    Examples
    --------
    >>> out = summary_measures([20, 30, 40, 50, 60], [78, 91, 162, 103, 105], order=[1, 2, 3, 4, 5],
    ...                        favourable=True, scale=100, measures="aci")
    >>> round(float(out.estimate.iloc[0]), 4)
    7.3284
    """
    y = np.asarray(estimate, dtype=float)
    if noise is None and se is not None:
        noise = np.asarray(se, dtype=float) ** 2
    sub = M.make_subgroups(population, order, reference, favourable, scale, noise=noise)
    if y.shape != sub.population.shape:
        raise ValueError("estimate and population need the same length")
    if not np.all(np.isfinite(y)):
        raise ValueError("every subgroup needs a finite estimate")
    names, skipped = M.applicable(parse_measures(measures), sub)
    out = pd.DataFrame(_summary_rows(y, se, sub, names, conf_level), columns=SUMMARY_COLUMNS)
    out.attrs["skipped"] = skipped
    return out


def _summary_rows(y, se, sub: M.Subgroups, names, conf_level) -> list[dict]:
    """:func:`summary_measures`' rows as dicts (``names`` already applicable): :func:`inequality` gathers
    those of every period and makes one table at the end (a table per period cost more than the measures)."""
    s = None if se is None else np.asarray(se, dtype=float)
    values = M.evaluate(y, sub, names + ["mean"])
    estimates = {k: float(v) for k, v in values.items()}
    estimates["_mean"] = estimates["mean"]
    ses = analytic.analytic_se(y, s, sub, names, estimates)
    rows = []
    for name in names:
        est = estimates[name]
        se_v, ci_method = ses[name]
        if not np.isfinite(est):
            se_v = np.nan
        lo, hi = analytic.interval(est, se_v, name, conf_level)
        rows.append({"measure": name, "estimate": est if np.isfinite(est) else np.nan, "se": se_v,
                     "lower": lo, "upper": hi, "method": M.METHODS(name), "ci_method": ci_method,
                     "note": _note(name, est, sub, y)})
    return rows


RESULT_COLUMNS = ["period", "outcome", "measure", "estimate", "lower", "upper", "se", "method", "ci_method",
                  "conf_level", "n_units", "n_groups", "rank_by", "groups", "advantaged", "reference",
                  "bootstrap", "seed", "note", "label"]

MSG = Catalog({
    "unknown_measure": ("medida de desigualdad desconocida '{name}'", "unknown inequality measure '{name}'"),
    "measure_hint": ("use 'all', 'who', 'extra' o algunas de: {names}",
                     "use 'all', 'who', 'extra' or some of: {names}"),
    "note_par_negative": ("la referencia está peor que el promedio (OMS informaría 0)",
                          "the reference is worse than the mean (WHO would report 0)"),
    "note_best_zero": ("el mejor subgrupo tiene tasa 0; conviene elegir una referencia",
                       "the best subgroup has a rate of 0; consider choosing a reference"),
    "note_zero_rate": ("no definida: un subgrupo (o un extremo ajustado) tiene tasa 0",
                       "undefined: a subgroup (or fitted end) has a rate of 0"),
    "note_no_convergence": ("el ajuste logit no convergió", "the logit fit did not converge"),
    "note_undefined": ("no definida para estos datos", "undefined for these data"),
    "bootstrap_method": ("bootstrap {interval} (extracciones {draws} de las defunciones dados los nacimientos, "
                         "{n} {n:réplica|réplicas}, semilla {seed})",
                         "bootstrap {interval} ({draws} draws of deaths given births, {n} {n:replicate|replicates}, "
                         "seed {seed})"),
    "bootstrap_shrunk": ("; extraídas de tasas contraídas hacia la media hasta la varianza verdadera estimada",
                         "; redrawn from rates shrunk towards the mean to the estimated true variance"),
    "note_replicates": ("{n} {n:réplica no definida|réplicas no definidas}", "{n} {n:replicate|replicates} undefined"),
    "note_outside": ("estimación fuera del intervalo bootstrap: el ruido aleatorio de las unidades pequeñas "
                     "infla la dispersión y el bootstrap lo agrega otra vez; para la dispersión sin ruido use "
                     "bgv_true, bgsd_true o cov_true (ver docs/inequality.md)",
                     "estimate outside the bootstrap interval: dispersion of small-unit rates is inflated by "
                     "random noise, which the bootstrap adds again; for the dispersion net of noise use "
                     "bgv_true, bgsd_true or cov_true (see docs/inequality.md)"),
    "note_truncated": ("la variación entre unidades no supera la esperada por azar: estimación truncada en 0",
                       "the variation between units is no more than chance would give: estimate truncated at 0"),
    "note_no_walter": ("la referencia no tiene defunciones: sin IC de Walter (use --reference o --bootstrap)",
                       "the reference has no deaths: no Walter CI (use --reference or --bootstrap)"),
    "skipped": ("medidas de desigualdad omitidas: {items}", "inequality measures skipped: {items}"),
    "skip_ordered": ("requiere una dimensión ordenada (rank_by)", "needs an ordered dimension (rank_by)"),
    "skip_reference": ("requiere un subgrupo de referencia", "needs a reference subgroup"),
    "skip_many": ("requiere más de {k} {k:subgrupo|subgrupos}", "needs more than {k} {k:subgroup|subgroups}"),
    "dropped": ("{period}: {n} {n:unidad|unidades} sin nacimientos o sin datos {n:queda|quedan} fuera",
                "{period}: {n} {n:unit|units} without births or without data {n:is|are} left out"),
    "no_covariate": ("{period}: {n} {n:unidad|unidades} sin valor de '{covariate}' {n:queda|quedan} fuera del "
                     "ordenamiento",
                     "{period}: {n} {n:unit|units} without a value of '{covariate}' {n:is|are} left out of the "
                     "ranking"),
    "unknown_covariate": ("la covariable '{covariate}' no está en el panel",
                          "covariate '{covariate}' is not in the panel"),
    "covariate_hint": ("covariables disponibles: {have}", "available covariates: {have}"),
    "bad_reference": ("la referencia '{ref}' no está entre las unidades del período {period}",
                      "reference '{ref}' is not among the units of period {period}"),
    "ref_hint": ("use códigos de unidad como en el panel (p. ej. {examples})",
                 "use unit codes as in the panel (e.g. {examples})"),
    "bad_group_reference": ("la referencia de grupo debe ser un número entre 1 y {groups}",
                            "a group reference must be a number from 1 to {groups}"),
    "bad_groups": ("groups (--groups) debe ser un entero >= 2", "groups (--groups) must be an integer >= 2"),
    "too_many_groups": ("{period}: se piden {groups} grupos (--groups) pero solo hay {n} {n:unidad|unidades} con datos "
                        "para formarlos", "{period}: {groups} groups asked for (--groups) but only {n} {n:unit|units} "
                        "with data to form them"),
    "too_many_groups_hint": ("pida a lo más {n} {n:grupo|grupos}; lo habitual son 5 (quintiles) o 10 (deciles)",
                             "ask for at most {n} {n:group|groups}; 5 (quintiles) or 10 (deciles) is usual"),
    "fewer_groups": ("{period}: se pidieron {groups} grupos y se formaron {formed} (unidades empatadas en '{covariate}' "
                     "o con muchos nacimientos quedan en un solo grupo); ver la columna n_groups",
                     "{period}: {groups} groups asked for and {formed} formed (units tied on '{covariate}' or with "
                     "many births fall in one group); see the n_groups column"),
    "bad_seed": ("seed (--seed) debe ser un entero entre 0 y 4294967295, no {seed}",
                 "seed (--seed) must be a whole number from 0 to 4294967295, not {seed}"),
    "bad_bootstrap": ("bootstrap (--bootstrap) debe ser 0 (IC analíticos) o un número de réplicas, no {n}",
                      "bootstrap (--bootstrap) must be 0 (analytic CIs) or a number of replicates, not {n}"),
    "few_replicates": ("{n} {n:réplica bootstrap es poco|réplicas bootstrap son pocas} para un IC de {level} %: cada "
                       "límite descansa en menos de 5 réplicas; use al menos {minimum} (o 0 para IC analíticos)",
                       "{n} bootstrap {n:replicate is|replicates are} too few for a {level} % CI: each limit rests on "
                       "fewer than 5 replicates; use at least {minimum} (or 0 for analytic CIs)"),
    "single_unit": ("la desigualdad se mide entre al menos 2 unidades con nacimientos y ningún período las tiene "
                    "({periods}; unidades: {units})",
                    "inequality is measured between at least 2 units with births and no period has them "
                    "({periods}; units: {units})"),
    "single_unit_hint": ("analice una región o un país entero (sin --region, o con otra región); para una sola "
                         "unidad use brecha rates o brecha trends",
                         "analyse a whole region or country (no --region, or another region); for a single unit "
                         "use brecha rates or brecha trends"),
    "groups_need_rank": ("los grupos se forman ordenando por una covariable: indique rank_by (--rank-by)",
                         "groups are formed by ranking on a covariate: give rank_by (--rank-by)"),
    "bad_interval": ("bootstrap_ci debe ser 'percentile' o 'basic'",
                     "bootstrap_ci must be 'percentile' or 'basic'"),
    "bad_draws": ("draws debe ser 'poisson' o 'binomial'", "draws must be 'poisson' or 'binomial'"),
    "bad_advantaged": ("advantaged debe ser 'high' o 'low'", "advantaged must be 'high' or 'low'"),
    "no_covariate_any": ("'{covariate}' no tiene valores en ningún período pedido ({periods}): no hay orden para "
                         "medir la desigualdad", "'{covariate}' has no values in any period asked ({periods}): "
                         "there is no order to measure inequality by"),
    "no_covariate_any_hint": ("pida años en que la covariable tiene valores (brecha panel ARCHIVO los muestra) u "
                              "ordene por otra covariable", "ask for years in which the covariate has values "
                              "(brecha panel FILE shows them) or rank by another covariate"),
    "no_covariate_periods": ("'{covariate}' no tiene valores en: {periods}; esos períodos se omiten",
                             "'{covariate}' has no values in: {periods}; those periods are skipped"),
    "too_few": ("{period}: menos de 2 subgrupos con datos; se omite",
                "{period}: fewer than 2 subgroups with data; skipped"),
})


def _skip_reason(reason: str) -> str:
    """The English reason of measures.applicable in the current language."""
    if "ordered" in reason:
        return MSG("skip_ordered")
    if "reference" in reason:
        return MSG("skip_reference")
    digits = "".join(ch for ch in reason if ch.isdigit())
    return MSG("skip_many", k=digits or "2")


# Covariates where a lower value is the better-off end (by name prefix), for ``advantaged=None``.
LOWER_IS_ADVANTAGED = ("poverty", "pobreza", "distance", "distancia", "rural", "gini", "unemployment",
                       "desempleo", "deprivation", "privacion", "illiteracy", "analfabetismo")


def default_advantaged(covariate: str) -> str:
    """'low' for covariates such as poverty or distance to the hospital, 'high' otherwise (income...)."""
    return "low" if str(covariate).lower().startswith(LOWER_IS_ADVANTAGED) else "high"


def quantile_groups(order_value, births, groups: int) -> np.ndarray:
    """Group number 1..groups of each unit: units sorted by ``order_value`` (least advantaged first)
    and cut at equal shares of births (the midpoint of each unit's cumulative share decides)."""
    v = np.asarray(order_value, dtype=float)
    b = np.asarray(births, dtype=float)
    idx = np.argsort(v, kind="stable")
    cum = np.cumsum(b[idx])
    mid = (cum - b[idx] / 2.0) / cum[-1]
    g_sorted = np.minimum(groups, np.floor(mid * groups).astype(int) + 1)
    out = np.empty(len(v), dtype=int)
    out[idx] = g_sorted
    # units tied on the covariate go to one group (the group of the first of them)
    for val in np.unique(v):
        tied = v == val
        if tied.sum() > 1:
            out[tied] = out[tied].min()
    return out


def _covariate_by_unit(panel, covariate: str, years) -> pd.Series:
    d = panel.data
    if years is not None:
        d = d[d["year"].isin(list(years))]
    values = pd.to_numeric(d[covariate], errors="coerce").astype(float)
    return values.groupby(d["unit"].values).mean()


def _covariate_by_unit_year(panel, covariate: str) -> dict:
    """:func:`_covariate_by_unit` of each single year, for all years in one grouping: year -> Series."""
    d = panel.data
    values = pd.to_numeric(d[covariate], errors="coerce").astype(float)
    means = values.groupby([d["year"].values, d["unit"].values]).mean()
    return {int(year): part.droplevel(0) for year, part in means.groupby(level=0, sort=False)}


def _reference_mask(reference, codes, n_groups, period, msg):
    from ..errors import InputError

    if reference is None or (isinstance(reference, str) and reference.lower() == "best"):
        return None
    refs = [reference] if isinstance(reference, (str, int, np.integer)) else list(reference)
    if n_groups:
        try:
            nums = [int(r) for r in refs]
        except (TypeError, ValueError):
            raise InputError(msg("bad_group_reference", groups=n_groups)) from None
        if any(n < 1 or n > n_groups for n in nums):
            raise InputError(msg("bad_group_reference", groups=n_groups))
        return np.isin(np.arange(1, n_groups + 1), nums)
    codes = np.asarray(codes, dtype=str)
    mask = np.zeros(len(codes), dtype=bool)
    for r in refs:
        hit = codes == str(r)
        if not hit.any():
            raise InputError(msg("bad_reference", ref=r, period=period),
                             hint=msg("ref_hint", examples=", ".join(f"'{c}'" for c in codes[:3])))
        mask |= hit
    return mask


def inequality(panel, outcome="infant", years=None, pool=False, rank_by=None, groups=None, measures="all",
               reference=None, bootstrap=0, seed=20240601, conf_level=0.95, favourable=False,
               advantaged=None, draws="poisson", bootstrap_ci="percentile") -> pd.DataFrame:
    """Summary measures of inequality between all units, per year (or one pooled period).

    Subgroups are the units (rates per 1,000 with births as population; a unit's SE from its counts,
    1000 sqrt(D)/B), or, with ``rank_by`` and ``groups``, quantile groups of units ranked by a covariate
    (counts summed within each group; groups of equal births). With ``rank_by`` the dimension is ordered
    and ACI, RCI, SII, RII, the concentration and Kunst-Mackenbach indices are computed; without it they
    are skipped and a warning says so.

    Parameters
    ----------
    panel : Panel
    outcome : "infant", "neonatal" or "postneonatal" (IMR is adverse: ``favourable=False``).
    years, pool : years to use; ``pool=True`` sums the counts over them into one period.
    rank_by : covariate that orders the units. If the panel lacks it and brecha can build it for the
        panel's country (poverty, health_spending_pc, schooling, ...), it is attached from the shipped
        tables (``brecha.covariates.attach``; the panel notes say how). ``advantaged`` says which end is
        better off: "high" (income, schooling, health spending) or "low" (poverty, distance); None picks
        "low" for names starting with poverty/pobreza/distance/rural/gini/..., else "high".
    groups : number of quantile groups (e.g. 5), or None to rank the units themselves.
    measures : "all", "who", "extra", or a list / comma-separated string (see ``ALL_MEASURES``).
    reference : unit code(s) (or group number(s) with ``groups``) for D, R, MDRU, MDRW, PAR and PAF.
    bootstrap : number of bootstrap replicates (0 = analytic CIs); ``seed`` makes them reproducible;
        ``draws`` = "poisson" or "binomial" (deaths redrawn given births); ``bootstrap_ci`` =
        "percentile" (default) or "basic" (reverse percentile). With many small units the noise of
        their rates inflates every dispersion measure and the bootstrap adds it again: the
        noise-corrected ``bgv_true``, ``bgsd_true`` and ``cov_true`` estimate the dispersion of the
        underlying rates, with intervals centred on them (see docs/inequality.md).

    Returns a DataFrame ``period, outcome, measure, estimate, lower, upper, se, method, ci_method,
    conf_level, n_units, n_groups, rank_by, groups, advantaged, reference, bootstrap, seed, note, label``
    (``label``: the measure's name in the current language).

    Examples
    --------
    >>> import pandas as pd
    >>> from brecha.panel import Panel
    >>> p = Panel(pd.DataFrame({"unit": list("ABCD"), "year": 2010, "births": [1000, 800, 1200, 500],
    ...                         "deaths": [8, 10, 6, 9], "poverty": [10.0, 20.0, 5.0, 30.0]}))
    >>> out = inequality(p, rank_by="poverty", advantaged="low", measures="d,sii")
    >>> out[["measure", "estimate"]].round(2).values.tolist()
    [['d', 13.0], ['sii', -16.09]]
    """
    from ..errors import InputError, warn
    from ..panel import resolve_outcome

    from ..intervals import check_conf_level

    msg = MSG
    names = parse_measures(measures)
    outcome_name = resolve_outcome(outcome)
    conf_level = check_conf_level(conf_level)
    if rank_by is not None and rank_by not in panel.data.columns:
        from ..covariates import attach_missing

        panel = attach_missing(panel, [rank_by])
    if advantaged is None:
        advantaged = default_advantaged(rank_by) if rank_by is not None else "high"
    if advantaged not in ("high", "low"):
        raise InputError(msg("bad_advantaged"))
    if bootstrap_ci not in ("percentile", "basic"):
        raise InputError(msg("bad_interval"))
    if draws not in ("poisson", "binomial"):
        raise InputError(msg("bad_draws"))
    if groups is not None:
        try:
            groups = int(groups)
        except (TypeError, ValueError):
            raise InputError(msg("bad_groups")) from None
        if groups < 2:
            raise InputError(msg("bad_groups"))
        if rank_by is None:
            raise InputError(msg("groups_need_rank"))
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= int(seed) < 2**32:
        raise InputError(msg("bad_seed", seed=seed))  # numpy would stop with "expected non-negative integer"
    if isinstance(bootstrap, bool) or not isinstance(bootstrap or 0, (int, np.integer)) or (bootstrap or 0) < 0:
        raise InputError(msg("bad_bootstrap", n=bootstrap))
    if bootstrap and bootstrap < minimum_replicates(conf_level):
        # flagged here; the CLI and study files refuse it (a script may want a quick look)
        warn(msg("few_replicates", n=bootstrap, level=f"{100 * conf_level:g}",
                 minimum=minimum_replicates(conf_level)))
    if rank_by is not None and rank_by not in panel.data.columns:
        from ..covariates import buildable_hint

        raise InputError(msg("unknown_covariate", covariate=rank_by), column=rank_by,
                         hint=msg("covariate_hint", have=", ".join(panel.covariates) or "-") + buildable_hint(panel))
    bootstrap = int(bootstrap or 0)
    ev = panel.events(outcome_name, years=years, pool=pool)
    rows: list = []  # per period: its list of row dicts, or (bootstrap job, build, where) until the replicates
    skipped_all: dict[str, str] = {}
    no_values: list[str] = []  # periods where no unit has a value of the ranking covariate
    too_few: list[tuple[str, list]] = []  # periods with fewer than 2 units with births
    context = dict(outcome=outcome_name, conf_level=conf_level, rank_by=rank_by, groups=groups,
                   advantaged=advantaged, reference=reference, bootstrap=bootstrap, seed=seed)
    # the events as arrays once, the periods as positions into them (no table per period: issue 19)
    period_code, period_values = pd.factorize(ev["period"], sort=True)
    all_codes = ev["unit"].astype(str).to_numpy()
    all_events = ev["events"].astype("Float64").to_numpy(dtype=float, na_value=np.nan)
    all_births = ev["births"].astype("Float64").to_numpy(dtype=float, na_value=np.nan)
    with_data = np.isfinite(all_events) & np.isfinite(all_births) & (all_births > 0)
    positions = np.argsort(period_code, kind="stable")
    starts = np.searchsorted(period_code[positions], np.arange(len(period_values) + 1))
    covariate_by_year = _covariate_by_unit_year(panel, rank_by) if rank_by is not None and not pool else None
    for k, period in enumerate(period_values):
        at = positions[starts[k]:starts[k + 1]]
        n_dropped = int((~with_data[at]).sum())
        at = at[with_data[at]]
        if rank_by is not None:
            if pool:
                cov_all = _covariate_by_unit(panel, rank_by, list(years) if years is not None else None)
            else:
                cov_all = covariate_by_year.get(int(period), pd.Series(dtype=float))
            if not np.isfinite(cov_all.to_numpy(dtype=float)).any():
                no_values.append(str(period))
                continue
        if n_dropped:
            warn(msg("dropped", period=period, n=n_dropped))
        codes, events, births = all_codes[at], all_events[at], all_births[at]
        order = None
        membership = None
        if rank_by is not None:
            cov = cov_all.reindex(codes).to_numpy(dtype=float)
            ok = np.isfinite(cov)
            if not ok.all():
                warn(msg("no_covariate", period=period, n=int((~ok).sum()), covariate=rank_by))
                codes, events, births, cov = codes[ok], events[ok], births[ok], cov[ok]
            order = cov if advantaged == "high" else -cov
        if len(codes) < 2:
            warn(msg("too_few", period=period))
            too_few.append((str(period), list(codes)))
            continue
        if groups and groups > len(codes):  # 1000 groups of 340 communes would silently be about 280
            raise InputError(msg("too_many_groups", period=period, groups=groups, n=len(codes)),
                             hint=msg("too_many_groups_hint", n=len(codes)))
        if groups:
            g = quantile_groups(order, births, groups)
            present = np.unique(g)
            if len(present) < groups:
                warn(msg("fewer_groups", period=period, groups=groups, formed=len(present), covariate=rank_by))
            membership = (g[:, None] == present[None, :]).astype(float)
            sub_events = events @ membership
            sub_births = births @ membership
            sub_order = present.astype(float)
            ref_mask = _reference_mask(reference, None, groups, period, msg)
            if ref_mask is not None:
                ref_mask = ref_mask[present - 1]
        else:
            sub_events, sub_births, sub_order = events, births, order
            ref_mask = _reference_mask(reference, codes, None, period, msg)
        if len(sub_births) < 2:
            warn(msg("too_few", period=period))
            continue
        rates = 1000.0 * sub_events / sub_births
        se = 1000.0 * np.sqrt(sub_events) / sub_births
        sub = M.make_subgroups(sub_births, sub_order, ref_mask, favourable, 1000.0, noise="poisson")
        keep, skipped = M.applicable(names, sub)
        skipped_all.update(skipped)
        if not keep:
            continue
        if bootstrap > 0:
            from . import bootstrap as B

            values = M.evaluate(rates, sub, keep + ["mean"])
            # the replicates of the periods are drawn and evaluated in threads after this loop (each period
            # has its own generator, so the numbers do not depend on the threads); the rows are built here
            job = dict(events=events, births=births, sub=sub, keep=keep, membership=membership,
                       rng=B.period_rng(seed, period), values=values)
            rows.append((job, _bootstrap_rows(keep, values, sub, rates, bootstrap, seed, draws, bootstrap_ci),
                         dict(period=period, n_units=len(codes), n_groups=len(sub_births))))
            continue
        # summary_measures' rows on the subgroups made above (the same make_subgroups and applicable calls)
        result = _summary_rows(rates, se, sub, keep, conf_level)
        rows.append(_with_context(result, period, len(codes), len(sub_births), **context))
    pending = [i for i, row in enumerate(rows) if isinstance(row, tuple)]
    if pending:
        from ..threads import worker_count
        from . import bootstrap as B

        jobs = worker_count(len(pending))

        def replicate(job):
            return B.bootstrap_measures(job["events"], job["births"], job["sub"], job["keep"], bootstrap, job["rng"],
                                        membership=job["membership"], draws=draws, conf_level=conf_level,
                                        interval=bootstrap_ci, estimates=job["values"])

        # seconds per period on thousands of units: a bar on a terminal (brecha.progress)
        done = progress.track(imap_in_threads(replicate, [rows[i][0] for i in pending], jobs), "bootstrap",
                              total=len(pending), replicates=bootstrap)
        for boot, i in zip(done, pending):  # "done" first: the bar counts the last period when it ends
            _, build, where = rows[i]
            rows[i] = _with_context(build(boot), where["period"], where["n_units"], where["n_groups"], **context)
    if no_values:
        warn(msg("no_covariate_periods", covariate=rank_by, periods=", ".join(no_values)))
    if skipped_all:
        warn(msg("skipped", items="; ".join(f"{k} ({_skip_reason(v)})" for k, v in skipped_all.items())))
    if not rows and no_values and len(no_values) == ev["period"].nunique():
        raise InputError(msg("no_covariate_any", covariate=rank_by, periods=", ".join(no_values[:5])
                             + (" ..." if len(no_values) > 5 else "")), hint=msg("no_covariate_any_hint"))
    if not rows and too_few and len(too_few) + len(no_values) == ev["period"].nunique():
        units = sorted({u for _, codes in too_few for u in codes})
        raise InputError(msg("single_unit", periods=", ".join(p for p, _ in too_few[:5])
                             + (" ..." if len(too_few) > 5 else ""), units=", ".join(units[:5]) or "-"),
                         hint=msg("single_unit_hint"))
    out = _result_table([row for period_rows in rows for row in period_rows])
    out.attrs["skipped"] = skipped_all
    notes = list(getattr(panel, "notes", ()) or ())
    if notes:  # caveats of the data (e.g. how births were counted) travel with the result
        out.attrs["notes"] = notes
    return out


def _result_table(rows: list[dict]) -> pd.DataFrame:
    """One table of every period's rows (:data:`RESULT_COLUMNS`), with the column types a table per period
    concatenated had: text columns as text, ``n_groups``, ``groups`` and ``seed`` as nullable integers."""
    if not rows:
        out = pd.DataFrame(columns=RESULT_COLUMNS)
    else:
        out = pd.DataFrame(rows, columns=RESULT_COLUMNS)
    for col in ("n_groups", "groups", "seed"):
        out[col] = out[col].astype("Int64")
    return out


def _bootstrap_rows(keep, values, sub, rates, bootstrap: int, seed: int, draws: str, bootstrap_ci: str):
    """The function that turns one period's bootstrap (:func:`brecha.inequality.bootstrap.bootstrap_measures`)
    into its rows (dicts)."""
    ci_method = MSG("bootstrap_method", interval=bootstrap_ci, draws=draws, n=bootstrap, seed=seed)

    def build(boot) -> list[dict]:
        table = []
        for name in keep:
            est = float(values[name])
            s, lo, hi, n_ok = boot[name]
            note = _note(name, est, sub, rates)
            if n_ok < bootstrap:
                note = (note + "; " if note else "") + MSG("note_replicates", n=bootstrap - n_ok)
            if np.isfinite(est) and np.isfinite(lo) and not lo <= est <= hi:
                note = (note + "; " if note else "") + MSG("note_outside")
            row_method = ci_method
            if name in M.NOISE_MEASURES:
                row_method += MSG("bootstrap_shrunk")
            table.append({"measure": name, "estimate": est if np.isfinite(est) else np.nan, "se": s,
                          "lower": lo, "upper": hi, "method": M.METHODS(name), "ci_method": row_method,
                          "note": note})
        return table

    return build


def _with_context(result: list[dict], period, n_units: int, n_groups: int, *, outcome, conf_level, rank_by,
                  groups, advantaged, reference, bootstrap, seed) -> list[dict]:
    """One period's measures (row dicts) with the columns that say what was computed (:data:`RESULT_COLUMNS`)."""
    shared = {"period": str(period), "outcome": outcome, "conf_level": conf_level, "n_units": n_units,
              "n_groups": n_groups if groups else pd.NA, "rank_by": rank_by if rank_by is not None else "",
              "groups": groups if groups else pd.NA, "advantaged": advantaged if rank_by is not None else "",
              "reference": "" if reference is None else (
                  reference if isinstance(reference, str) else ",".join(str(r) for r in np.atleast_1d(reference))),
              "bootstrap": bootstrap, "seed": seed if bootstrap > 0 else pd.NA}
    return [{**row, **shared, "label": M.LABELS(row["measure"])} for row in result]


def concentration_curve(rates, births, rank) -> pd.DataFrame:
    """Concentration-curve points (cumulative share of births, cumulative share of events) for plotting.

    ``rank`` orders the units from the most-disadvantaged (low) to the most-advantaged (high).
    Returns ``rank, population_share, events_share`` starting at (0, 0).
    """
    from .ordered import concentration_curve as curve

    return curve(rates, births, rank)
