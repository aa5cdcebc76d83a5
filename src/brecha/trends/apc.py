"""Per-unit trends: Prais-Winsten regression of log10(rate) on year, annual percent change, and class.

For each unit (commune, or an aggregate: province, region, country) and outcome::

    log10(rate_t) = b0 + b1 * year_t + u_t,   u_t = rho u_{t-1} + e_t     (rate per 1,000 live births)
    APC = (10^b1 - 1) x 100 %,   CI = (10^(b1 -/+ t_{df, 1-alpha/2} SE(b1)) - 1) x 100 %

fitted by Prais-Winsten (:func:`brecha.trends.prais_winsten`, Stata/R ``prais`` default). The trend is
*increasing* if p < alpha and b1 > 0, *decreasing* if p < alpha and b1 < 0, *stationary* otherwise
(Antunes & Cardoso, 2015, Epidemiol. Serv. Saude 24(3):565-576). ``df`` is ``n - 2`` by default (the
regression's residual df); ``"n-1"`` gives the variant some applied papers quote.

Years with zero deaths make log10 undefined. The rule is explicit and stated in every row:

- ``add-half`` (default): a zero count becomes 0.5 (as NCI Joinpoint does);
- ``pool-years``: a zero year is pooled with the following year(s) (counts and births summed) until the
  group has at least one death; trailing zero years join the previous group; the group's year is the
  mean of its years (unequal spacing; the AR(1) treats groups as consecutive);
- ``skip``: units with any zero year get a flagged row without estimates.

Units with more than ``max_zero_share`` (default half) of their years without deaths keep their
estimates but get no class (``sparse``): the fit then follows the substituted zeros and the births.

Years with missing or zero births (or a missing count) are dropped for that unit and listed in
``dropped_years``. Units with fewer than ``min_years`` usable years get a flagged row, not an error.
A commune created by a split (registry ``splits``: Alto Hospicio etc. in 2004) loses its creation year,
whose births are recorded only in part; its parent gets a note. Aggregates (``level``) sum the units'
counts, by default over the unit-years that have them (``incomplete="sum"``, noted).

Units whose usable years coincide are fitted together as one 2-D array (one Prais-Winsten call per
year pattern), so thousands of units take a fraction of a second.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..errors import InputError
from ..i18n import Catalog
from .prais import RHO_METHODS, prais_winsten
from .series import classify, prepare_series  # noqa: F401  (both importable from here too)

ZERO_RULES = ("add-half", "pool-years", "skip")
ZERO_ALIASES = {"pool": "pool-years", "pool_years": "pool-years", "add_half": "add-half", "half": "add-half"}
METHODS = ("prais-winsten", "joinpoint")
DF_RULES = ("n-2", "n-1")
LEVELS = ("province", "region", "country")
INCOMPLETE_RULES = ("sum", "drop")
TREND_CLASSES = ("increasing", "decreasing", "stationary")
# The one place for the labels of the trend codes (the ``trend`` column keeps the English codes):
# (Spanish, English). The Spanish terms are those of Latin American trend papers (tendencia creciente /
# decreciente / estacionaria; Portuguese crescente / decrescente / estacionaria, Antunes & Cardoso 2015).
TREND_LABELS = {
    "increasing": ("creciente", "increasing"),
    "decreasing": ("decreciente", "decreasing"),
    "stationary": ("estacionaria", "stationary"),
}
_LABELS = Catalog(TREND_LABELS)

MSG = Catalog({
    "bad_zero": ("regla para años sin muertes desconocida '{value}'; use una de {choices}",
                 "unknown rule for years without deaths '{value}'; use one of {choices}"),
    "bad_method": ("método de tendencia desconocido '{value}'; use uno de {choices}",
                   "unknown trend method '{value}'; use one of {choices}"),
    "bad_df": ("grados de libertad '{value}' no válidos; use n-2 o n-1",
               "invalid degrees of freedom '{value}'; use n-2 or n-1"),
    "bad_alpha": ("el nivel de significación debe estar entre 0 y 1 (se recibió {value})",
                  "the significance level must be between 0 and 1 (got {value})"),
    "bad_alpha_hint": ("escríbalo como proporción, p. ej. 0.05 para un 5 %",
                       "write it as a proportion, e.g. 0.05 for 5 %"),
    "bad_alpha_percent_hint": ("{value} parece un porcentaje: escriba {proportion}",
                               "{value} looks like a percentage: write {proportion}"),
    "bad_input": ("se esperaba un Panel o una tabla con columnas unit, year, events, births",
                  "expected a Panel or a table with columns unit, year, events, births"),
    "first_dropped": ("|rho| >= 1: primera observación omitida (Cochrane-Orcutt)",
                      "|rho| >= 1: first observation dropped (Cochrane-Orcutt)"),
    "no_df": ("sin grados de libertad para el error estándar", "no degrees of freedom left for the standard error"),
    "not_converged": ("rho no convergió", "rho did not converge"),
    "rho_boundary": ("rho llegó a {rho:+.0f}: el error AR(1) no se puede estimar con tan pocos años y el error "
                     "estándar no es creíble; sin clase (use más años o agregue unidades)",
                     "rho reached {rho:+.0f}: the AR(1) error cannot be estimated from so few years and the "
                     "standard error is not credible; no class (use more years or aggregate units)"),
    "too_few_warning": ("{count} {count:unidad|unidades} con menos de {need} años utilizables "
                        "{count:queda|quedan} sin estimación",
                        "{count} {count:unit|units} with fewer than {need} usable years {count:is|are} left without "
                        "estimates"),
    "bad_zero_share": ("la proporción máxima de años sin muertes debe estar entre 0 y 1 (se recibió {value})",
                       "the largest share of years without deaths must be between 0 and 1 (got {value})"),
    "bad_zero_share_hint": ("escríbala como proporción, p. ej. 0.5 (la mitad de los años)",
                            "write it as a proportion, e.g. 0.5 (half of the years)"),
    "bad_level": ("nivel de agregación desconocido '{value}'; use uno de {choices}",
                  "unknown aggregation level '{value}'; use one of {choices}"),
    "level_needs_panel": ("level='{level}' necesita un Panel (las unidades con su {level}); con una tabla, "
                          "sume los conteos antes", "level='{level}' needs a Panel (the units with their {level}); "
                          "with a table, sum the counts first"),
    "bad_incomplete": ("regla para unidad-años sin dato desconocida '{value}'; use una de {choices}",
                       "unknown rule for unit-years without data '{value}'; use one of {choices}"),
    "incomplete_sum": ("{n} unidad-año(s) sin dato excluidas de las sumas (unidades por año: {detail})",
                       "{n} unit-year(s) without data left out of the sums (units per year: {detail})"),
    "creation_year": ("comuna creada en {year} desde {parent}: año {year} omitido (nacimientos registrados solo "
                      "en parte); use split='merge' para la serie completa",
                      "commune created in {year} from {parent}: year {year} left out (births recorded only in "
                      "part); use split='merge' for the whole series"),
    "split_parent": ("territorio cambia en {year} (se separa {child}); use split='merge' para una serie comparable",
                     "territory changes in {year} ({child} split off); use split='merge' for a comparable series"),
})

COLUMNS = ["unit", "outcome", "n_years", "slope", "se", "p_value", "rho", "apc", "apc_lower", "apc_upper",
           "trend", "method"]


def trend_label(code: str, lang: str | None = None) -> str:
    """Spanish or English label of a trend code (``increasing`` -> ``creciente``); other values unchanged."""
    if isinstance(code, str) and code in TREND_LABELS:
        return _LABELS(code, lang=lang)
    return code


def trend_labels(lang: str | None = None) -> dict[str, str]:
    """``{code: label}`` for the three trend codes in ``lang`` (default: the current language).

    >>> trend_labels("es")
    {'increasing': 'creciente', 'decreasing': 'decreciente', 'stationary': 'estacionaria'}
    """
    return {code: _LABELS(code, lang=lang) for code in TREND_LABELS}


def _event_table(panel, outcome, years, level, incomplete="sum", drop_creation_year=True):
    """unit, year, events, births (floats), the unit names and per-unit notes, from a Panel or a table.

    Returns ``(table, names, outcome, notes)``; ``notes`` maps a unit code to notes that must travel
    with its row (aggregates with unit-years left out, communes created by a split).
    """
    names, notes = {}, {}
    if not isinstance(panel, pd.DataFrame) and hasattr(panel, "events"):
        from ..panel import resolve_outcome

        outcome = resolve_outcome(outcome)
        units = getattr(panel, "units", None)
        if level:
            ev, names, notes = _level_events(panel, outcome, years, level, incomplete)
        else:
            ev = panel.events(outcome, years=years)
            if units is not None and "name" in units.columns:
                names = dict(zip(units["unit"].astype(str).tolist(), units["name"].astype(str).tolist()))
            if drop_creation_year:
                ev, notes = _drop_creation_years(ev, getattr(panel, "registry", None), names)
    elif isinstance(panel, pd.DataFrame) and {"unit", "year", "events", "births"} <= set(panel.columns):
        if level:
            raise InputError(MSG("level_needs_panel", level=level))
        ev = panel
        if years is not None:
            ev = ev[ev["year"].isin(list(years))]
        if "name" in ev.columns:
            names = dict(zip(ev["unit"].astype(str).tolist(), ev["name"].astype(str).tolist()))
    else:
        raise InputError(MSG("bad_input"))
    table = {
        "unit": ev["unit"] if ev["unit"].dtype == "str" else ev["unit"].astype(str),
        "year": pd.to_numeric(ev["year"]).to_numpy(dtype=int),
        "events": _floats(ev["events"]),
        "births": _floats(ev["births"]),
    }
    return table, names, outcome, notes


def _level_events(panel, outcome, years, level, incomplete):
    """The units summed up to ``level`` by :meth:`brecha.panel.Panel.events` (``level=``), with the
    groups' names and per-group notes.

    ``incomplete="sum"`` (default) sums the unit-years that have both counts (the outcome's deaths and
    births) and notes how many were left out; ``"drop"`` makes the aggregate year missing when any of its
    units lacks either count. A unit-year without a row is not missing: a commune created in 2004 has no
    rows before, its territory being counted in its parent.
    """
    from ..registry import COUNTRIES

    if level not in LEVELS:
        raise InputError(MSG("bad_level", value=level, choices=", ".join(LEVELS)))
    if incomplete not in INCOMPLETE_RULES:
        raise InputError(MSG("bad_incomplete", value=incomplete, choices=", ".join(INCOMPLETE_RULES)))
    ev = panel.events(outcome, years=years, level=level,
                      incomplete="available" if incomplete == "sum" else "missing")
    if level == "country":  # the country's name in the registry's words, whatever the language
        names = {code: COUNTRIES.get(code, code) for code in ev["unit"].astype(str).unique()}
    else:
        groups = panel.units_at(level)
        names = dict(zip(groups["unit"].astype(str).tolist(), groups["name"].astype(str).tolist()))
    notes = {}
    if incomplete == "sum":
        gaps = ev[ev["units_missing"] > 0]
        for unit, rows in gaps.groupby("unit", sort=False):
            detail = ", ".join(f"{y}: {m}" for y, m in zip(rows["year"], rows["units_missing"]))
            notes[str(unit)] = [MSG("incomplete_sum", n=int(rows["units_missing"].sum()), detail=detail)]
    return ev[["unit", "year", "events", "births"]], names, notes


def _drop_creation_years(ev, registry, names):
    """Leave out the year a split-off commune was created (its births are then recorded only in part)
    and note the boundary change on the child and on its parent."""
    splits = getattr(registry, "splits", None)
    if splits is None or len(splits) == 0:
        return ev, {}
    first_year = ev.groupby("unit", sort=False)["year"].min()
    last_year = ev.groupby("unit", sort=False)["year"].max()
    notes: dict[str, list] = {}
    drop = np.zeros(len(ev), dtype=bool)
    units = ev["unit"].astype(str).to_numpy()
    years = ev["year"].to_numpy(dtype=int)
    for child, parent, created in zip(splits["child"].astype(str), splits["parent"].astype(str),
                                      splits["created_year"].astype(int)):
        if child not in first_year.index:
            continue  # merged into the parent (split="merge") or not studied: nothing to say
        cut = (units == child) & (years == created)
        if int(first_year[child]) == created and cut.any() and (units == child).sum() > 1:
            drop |= cut
            notes.setdefault(child, []).append(MSG("creation_year", year=created,
                                                   parent=names.get(parent, parent)))
        if parent in first_year.index and first_year[parent] < created <= last_year[parent]:
            notes.setdefault(parent, []).append(MSG("split_parent", year=created, child=names.get(child, child)))
    return ev[~drop], notes


def _floats(column: pd.Series) -> np.ndarray:
    """A count column (Int64 with <NA>, float, object) as float64 with NaN."""
    if isinstance(column.dtype, np.dtype) and column.dtype.kind in "iuf":
        return column.to_numpy(dtype=float)
    return pd.to_numeric(column).to_numpy(dtype=float, na_value=np.nan)


def trends(panel, outcome: str = "infant", years=None, method: str = "prais-winsten", rho: str = "regress",
           zero: str = "add-half", alpha: float = 0.05, level: str | None = None, df: str = "n-2",
           min_years: int = 3, iterate: bool = True, max_joinpoints: int = 2, selection: str = "wbic",
           weights=None, n_permutations: int = 4499, seed: int = 2024, min_segment: int = 2,
           aapc_years=None, max_zero_share: float = 0.5, incomplete: str = "sum",
           drop_creation_year: bool = True, continuous: bool = False, min_end: int | None = None,
           min_between: int | None = None, aapc_ci: str | None = None, n_resamples: int = 1000,
           family: str = "gaussian", fits: dict | None = None) -> pd.DataFrame:
    """Trend of the log10 rate per unit: slope, SE, p, rho, APC with CI, and class.

    Parameters
    ----------
    panel : a :class:`brecha.panel.Panel`, or a table with ``unit, year, events, births``.
    outcome : ``infant`` (default), ``neonatal``, ``postneonatal`` (or an alias).
    years : the years to use (default all).
    method : ``prais-winsten`` (default) or ``joinpoint`` (see :func:`brecha.trends.joinpoint`): per unit
        an AAPC row (``row="aapc"``, the unit's overall trend) followed by one row per segment.
    rho : Prais-Winsten rho rule (``regress`` default; ``freg``, ``tscorr``, ``dw``, ``theil``, ``nagar``).
    zero : ``add-half`` (default), ``pool-years`` or ``skip`` (see module doc).
    alpha : significance level of the class; the APC CI has level 1 - alpha.
    level : aggregate first to ``province``, ``region`` or ``country``.
    df : ``n-2`` (default) or ``n-1``: degrees of freedom of the t for p-value and CI.
    min_years : fewer usable years gives a flagged row without estimates.
    max_joinpoints, selection, weights, n_permutations, seed, min_segment, continuous, min_end, min_between,
    aapc_ci, n_resamples : joinpoint options (see :func:`brecha.trends.joinpoint`; WBIC selection by default).
    fits : with ``method="joinpoint"``, a dict that receives each unit's fit (years, fitted rate, segments,
        joinpoints: :func:`brecha.trends.joinpoint.joinpoint_trends`), for a figure of the model in the table.
    family : joinpoint on ln(rate) by least squares (``gaussian``, default) or the Poisson model of the counts
        with the births as offset (``poisson``, :mod:`brecha.trends.joinpoint_poisson`; no 0.5 added).
    aapc_years : (first, last) year of the joinpoint AAPC (default the whole period; cut to each unit's
        years).
    max_zero_share : a unit with more than this share of its years without deaths (default 0.5) keeps
        its estimates but gets no class (``trend`` empty, ``sparse`` True, a note): with mostly
        substituted or pooled zeros the fitted "trend" follows the births, not the deaths.
    incomplete : with ``level``: ``sum`` (default) sums the unit-years that have both counts and notes
        the ones left out; ``drop`` leaves the aggregate year out when any unit lacks a count.
    drop_creation_year : for a commune created by a split (registry ``splits``, e.g. Alto Hospicio in
        2004), leave out its creation year, whose births are recorded only in part (noted).

    Returns one row per unit: ``unit, outcome, n_years, slope, se, p_value, rho, apc, apc_lower,
    apc_upper, trend, method`` then ``name, level, period, first_year, last_year, df, t, intercept,
    conf_level, rho_method, estimation, n_iter, converged, dw_original, dw_transformed, zero_rule,
    zero_years, sparse, dropped_years, note`` (``slope`` and ``intercept`` are on the log10 scale of the
    rate per 1,000 against the calendar year). ``DataFrame.attrs["notes"]`` carries the panel's notes.

    Example (REFERENCE.md C.3): IMR 9.1 ... 7.2 over 2005-2014 gives APC -2.618 % (95 % CI -3.064 to
    -2.171), decreasing.
    """
    if method not in METHODS:
        raise InputError(MSG("bad_method", value=method, choices=", ".join(METHODS)))
    zero = ZERO_ALIASES.get(zero, zero)
    if zero not in ZERO_RULES:
        raise InputError(MSG("bad_zero", value=zero, choices=", ".join(ZERO_RULES)))
    if df not in DF_RULES:
        raise InputError(MSG("bad_df", value=df))
    if not 0 < alpha < 1:
        hint = (MSG("bad_alpha_percent_hint", value=f"{alpha:g}", proportion=f"{alpha / 100:g}")
                if 1 < alpha <= 50 else MSG("bad_alpha_hint"))  # 5, 10: a percentage
        raise InputError(MSG("bad_alpha", value=alpha), hint=hint, argument="alpha")
    if not 0 <= max_zero_share <= 1:
        raise InputError(MSG("bad_zero_share", value=max_zero_share), hint=MSG("bad_zero_share_hint"),
                         argument="max_zero_share")
    if rho not in RHO_METHODS:
        from .prais import MSG as PRAIS_MSG

        raise InputError(PRAIS_MSG("bad_rho_method", value=rho, choices=", ".join(RHO_METHODS)))
    table, names, outcome, unit_notes = _event_table(panel, outcome, years, level, incomplete,
                                                     drop_creation_year)
    panel_notes = list(getattr(panel, "notes", ()) or ())
    if method == "joinpoint":
        from .joinpoint import joinpoint_trends

        out = joinpoint_trends(table, names, outcome, zero=zero, alpha=alpha, min_years=min_years,
                               max_joinpoints=max_joinpoints, selection=selection, weights=weights,
                               n_permutations=n_permutations, seed=seed, level=level,
                               min_segment=min_segment, aapc_years=aapc_years, max_zero_share=max_zero_share,
                               extra_notes=unit_notes, continuous=continuous, min_end=min_end,
                               min_between=min_between, aapc_ci=aapc_ci, n_resamples=n_resamples,
                               family=family, fits=fits)
        out.attrs["notes"] = panel_notes
        return out
    units, info, series = prepare_series(table, zero=zero, min_years=min_years, max_zero_share=max_zero_share,
                                         extra_notes=unit_notes)
    n_units = len(units)
    cols = {name: np.full(n_units, np.nan) for name in
            ("slope", "se", "t", "p_value", "rho", "intercept", "df", "dw_original", "dw_transformed")}
    n_iter = np.zeros(n_units, dtype=int)
    converged = np.zeros(n_units, dtype=bool)
    first_dropped = np.zeros(n_units, dtype=bool)
    n_used = info["n_years"].to_numpy().copy()
    import warnings

    for x, members, Y, _ in series:
        centre = x.mean()
        X = np.column_stack([np.ones_like(x), x - centre])
        if len(x) < 3:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with np.errstate(divide="ignore", invalid="ignore"):
                fit = prais_winsten(Y, X, rho_method=rho, iterate=iterate)
        cols["slope"][members] = fit.coef[:, 1]
        cols["intercept"][members] = fit.coef[:, 0] - fit.coef[:, 1] * centre
        cols["se"][members] = fit.se[:, 1]
        cols["t"][members] = fit.t[:, 1]
        cols["rho"][members] = fit.rho
        cols["df"][members] = fit.df_resid + (1 if df == "n-1" else 0)
        cols["dw_original"][members] = fit.dw_original
        cols["dw_transformed"][members] = fit.dw_transformed
        n_iter[members] = fit.n_iter
        converged[members] = fit.converged
        first_dropped[members] = fit.first_dropped
        n_used[members] = len(x)

    from scipy import special

    dfs = cols["df"]
    bad_df = ~(dfs > 0)
    dfs_safe = np.where(bad_df, 1.0, dfs)
    with np.errstate(invalid="ignore"):
        p = 2.0 * special.stdtr(dfs_safe, -np.abs(cols["t"]))
        q = special.stdtrit(dfs_safe, 1.0 - alpha / 2.0)
    p = np.where(bad_df, np.nan, p)
    q = np.where(bad_df, np.nan, q)
    b, se = cols["slope"], cols["se"]
    with np.errstate(invalid="ignore", over="ignore"):
        apc = (10.0 ** b - 1.0) * 100.0
        lower = (10.0 ** (b - q * se) - 1.0) * 100.0
        upper = (10.0 ** (b + q * se) - 1.0) * 100.0
    fitted = np.isfinite(b)
    sparse = info["sparse"].to_numpy() & fitted
    # |rho| = 1 (the estimate clipped to the edge of stationarity) happens on very short series, e.g. every
    # 3-year series: the transformed fit is then (nearly) exact, its SE near 0 and p near 0, so a class
    # would be a silent wrong answer; the estimate is kept, the class withheld and the row explained
    boundary = fitted & (np.abs(cols["rho"]) >= 1.0 - 1e-8)
    trend = classify(b, p, alpha, sparse | boundary)
    notes = info["note"].tolist()
    flagged = fitted & (first_dropped | bad_df | ~converged | boundary)
    for i in np.flatnonzero(flagged):
        extra = []
        if boundary[i]:
            extra.append(MSG("rho_boundary", rho=float(cols["rho"][i])))
        if fitted[i] and first_dropped[i]:
            extra.append(MSG("first_dropped"))
        if fitted[i] and bad_df[i]:
            extra.append(MSG("no_df"))
        if fitted[i] and not converged[i]:
            extra.append(MSG("not_converged"))
        if extra:
            notes[i] = "; ".join([n for n in [notes[i]] + extra if n])
    n_unfit = int((~fitted).sum())
    if n_unfit and (info["n_years"].to_numpy() < min_years).any():
        from ..errors import warn

        warn(MSG("too_few_warning", count=int((info["n_years"].to_numpy() < min_years).sum()),
                 need=min_years))
    all_years = np.unique(table["year"])
    period = f"{all_years[0]}-{all_years[-1]}" if len(all_years) else ""
    out = pd.DataFrame({
        "unit": units.astype(str),
        "outcome": outcome,
        "n_years": n_used.astype(int),
        "slope": b,
        "se": se,
        "p_value": p,
        "rho": cols["rho"],
        "apc": apc,
        "apc_lower": lower,
        "apc_upper": upper,
        "trend": trend,
        "method": "prais-winsten",
        "name": [names.get(u, "") for u in units.astype(str)],
        "level": level or "unit",
        "period": period,
        "first_year": info["first_year"].to_numpy(),
        "last_year": info["last_year"].to_numpy(),
        "df": dfs,
        "t": cols["t"],
        "intercept": cols["intercept"],
        "conf_level": 1.0 - alpha,
        "rho_method": rho,
        "estimation": "iterated" if iterate else "two-step",
        "n_iter": n_iter,
        "converged": converged,
        "dw_original": cols["dw_original"],
        "dw_transformed": cols["dw_transformed"],
        "zero_rule": zero,
        "zero_years": info["zero_years"].to_numpy(),
        "sparse": sparse,
        "dropped_years": info["dropped_years"].to_numpy(),
        "note": notes,
    })
    out.attrs["notes"] = panel_notes
    return out
