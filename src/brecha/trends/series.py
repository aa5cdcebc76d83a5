"""Per-unit series ready to fit a trend: the missing-year and zero-death rules, and the trend class.

Shared by the Prais-Winsten trends (:mod:`brecha.trends.apc`) and the joinpoint trends
(:mod:`brecha.trends.joinpoint`), so both read a unit's years, its zero years and its class the same way;
it sits below both (neither imports the other for it). The rules, stated in every unit's note:

- years with missing or zero births (or a missing count) are dropped for that unit and listed;
- fewer than ``min_years`` usable years, or no death at all: no fit (a zero rule would turn the births
  series into a fake trend);
- zero-death years: ``add-half`` (0.5 deaths, as NCI Joinpoint does), ``pool-years`` (pooled with the
  following year(s) until the group has a death; trailing zero years join the previous group) or
  ``skip`` (the unit is not fitted);
- more than ``max_zero_share`` of the usable years without deaths: ``sparse``, fitted but not classified.

The class (Antunes & Cardoso 2015): *increasing* if p < alpha and the slope is positive, *decreasing* if
p < alpha and it is negative, *stationary* otherwise.

    >>> classify([0.1, -0.1, 0.1], [0.01, 0.01, 0.3], 0.05).tolist()
    ['increasing', 'decreasing', 'stationary']
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..i18n import Catalog
from ..compat import text_array

MSG = Catalog({
    "too_few": ("{n} año(s) utilizable(s); se necesitan al menos {need}",
                "{n} usable year(s); at least {need} needed"),
    "skipped_zero": ("{n} año(s) sin muertes: unidad omitida (regla skip)",
                     "{n} year(s) without deaths: unit skipped (rule skip)"),
    "all_zero": ("ninguna muerte en todo el periodo: sin tendencia estimable",
                 "no deaths in the whole period: no trend can be estimated"),
    "too_few_pooled": ("{n} periodo(s) tras agrupar años; se necesitan al menos {need}",
                       "{n} period(s) after pooling years; at least {need} needed"),
    "dropped": ("años sin nacimientos o sin dato omitidos: {years}",
                "years without births or data dropped: {years}"),
    "zero_note": ("{n} año(s) sin muertes ({rule})", "{n} year(s) without deaths ({rule})"),
    "sparse": ("{n} de {m} años sin muertes: tendencia sin clasificar (la estimación refleja sobre todo la "
               "regla {rule} y los nacimientos); agregue (p. ej. provincia) o agrupe periodos",
               "{n} of {m} years without deaths: trend not classified (the estimate mostly reflects the {rule} "
               "rule and the births); aggregate (e.g. province) or pool periods"),
    "coverage": ("datos solo de {first} a {last}", "data only from {first} to {last}"),
})


def _wide(table):
    """Unit x year matrices of events and births (NaN where absent)."""
    codes, uniques = pd.factorize(table["unit"])  # hashing: much faster than sorting strings
    uniques = np.asarray(uniques, dtype=object).astype(str)
    order = np.argsort(uniques, kind="stable")
    rank = np.empty(len(order), dtype=int)
    rank[order] = np.arange(len(order))
    units = uniques[order]
    unit_idx = rank[codes]
    years, year_idx = np.unique(table["year"], return_inverse=True)
    events = np.full((len(units), len(years)), np.nan)
    births = np.full((len(units), len(years)), np.nan)
    present = np.zeros((len(units), len(years)), dtype=bool)
    events[unit_idx, year_idx] = table["events"]
    births[unit_idx, year_idx] = table["births"]
    present[unit_idx, year_idx] = True
    return units, years, events, births, present


def _pool_years(years, events, births):
    """Pool each zero-death year with the following year(s); trailing zeros join the previous group."""
    groups, current = [], []
    for i in range(len(years)):
        current.append(i)
        if events[current].sum() > 0:
            groups.append(current)
            current = []
    if current:
        if groups:
            groups[-1].extend(current)
        else:
            return None
    x = np.array([years[g].mean() for g in groups])
    e = np.array([events[g].sum() for g in groups])
    b = np.array([births[g].sum() for g in groups])
    return x, e, b


def prepare_series(table, zero="add-half", min_years=3, max_zero_share=0.5, extra_notes=None):
    """Per-unit usable series after the missing-year and zero-death rules.

    ``extra_notes`` maps unit codes to notes placed first in the unit's note. Units fitted with more than
    ``max_zero_share`` of their usable years without deaths are marked ``sparse`` (their class is
    withheld by the callers).

    Returns ``(units, info, series)``: ``info`` a DataFrame with one row per unit (flags and notes),
    ``series`` a list of ``(x, unit_positions, Y, E)`` groups of units sharing the same x values
    (``Y`` = log10 rate per 1,000 and ``E`` the event counts after the zero rule, shape units x years)
    ready for a vectorised fit.
    """
    units, years, events, births, present = _wide(table)  # present: the unit has a row that year
    usable = ~np.isnan(events) & ~np.isnan(births) & (births > 0)
    zero_mask = usable & (events == 0)
    n_zero = zero_mask.sum(axis=1)
    n_usable = usable.sum(axis=1)
    dropped = present & ~usable
    none = n_usable == 0
    first = pd.arrays.IntegerArray(years[np.argmax(usable, axis=1)].astype("int64"), none)
    last = pd.arrays.IntegerArray(years[len(years) - 1 - np.argmax(usable[:, ::-1], axis=1)].astype("int64"), none)
    events_total = np.where(usable, events, 0.0).sum(axis=1)
    extra_notes = extra_notes or {}
    notes = [list(extra_notes.get(str(u), [])) for u in units]
    # a series that starts late or ends early (no rows at all, e.g. a commune created in 2004)
    has_row = present.any(axis=1)
    first_row = np.argmax(present, axis=1)
    last_row = len(years) - 1 - np.argmax(present[:, ::-1], axis=1)
    for i in np.flatnonzero(has_row & ((first_row > 0) | (last_row < len(years) - 1))):
        notes[i].append(MSG("coverage", first=int(years[first_row[i]]), last=int(years[last_row[i]])))
    dropped_years = np.full(len(units), "", dtype=object)
    for i in np.flatnonzero(dropped.any(axis=1)):
        dropped_years[i] = ",".join(str(y) for y in years[dropped[i]])
        notes[i].append(MSG("dropped", years=dropped_years[i]))
    fit_ok = n_usable >= min_years
    for i in np.flatnonzero(~fit_ok):
        notes[i].append(MSG("too_few", n=int(n_usable[i]), need=min_years))
    all_zero = fit_ok & (events_total == 0)
    for i in np.flatnonzero(all_zero):
        notes[i].append(MSG("all_zero"))
    # with no death at all, any zero rule would turn the births series into a fake trend
    fit_ok = fit_ok & ~all_zero

    sparse = fit_ok & (n_zero > max_zero_share * n_usable) & (zero != "skip")
    for i in np.flatnonzero(sparse):
        notes[i].append(MSG("sparse", n=int(n_zero[i]), m=int(n_usable[i]), rule=zero))

    groups: dict[tuple, list] = {}
    if zero == "skip":
        skip = fit_ok & (n_zero > 0)
        for i in np.flatnonzero(skip):
            notes[i].append(MSG("skipped_zero", n=int(n_zero[i])))
        fit_ok = fit_ok & ~skip
    elif zero == "add-half":
        events = np.where(zero_mask, 0.5, events)
        for i in np.flatnonzero(fit_ok & (n_zero > 0) & ~sparse):
            notes[i].append(MSG("zero_note", n=int(n_zero[i]), rule=zero))
    elif zero == "pool-years":
        pooled_units = np.flatnonzero(fit_ok & (n_zero > 0))  # (units without any death are out already)
        for i in pooled_units:
            if not sparse[i]:
                notes[i].append(MSG("zero_note", n=int(n_zero[i]), rule=zero))
            cols = np.flatnonzero(usable[i])
            result = _pool_years(years[cols].astype(float), events[i, cols], births[i, cols])
            if result is None or len(result[0]) < min_years:
                n_groups = 0 if result is None else len(result[0])
                notes[i].append(MSG("too_few_pooled", n=n_groups, need=min_years))
                fit_ok[i] = False
                continue
            x, e, b = result
            groups.setdefault(tuple(x), []).append((i, np.log10(1000.0 * e / b), e))
        fit_ok = fit_ok.copy()
        fit_ok[pooled_units] = False  # fitted through their own groups below
    rate = np.where(usable, 1000.0 * events / np.where(usable, births, 1.0), np.nan)
    with np.errstate(divide="ignore"):
        lograte = np.log10(rate)
    series = []
    candidates = np.flatnonzero(fit_ok)
    if len(candidates):
        masks = usable[candidates]
        if (masks == masks[0]).all():
            patterns, inverse = masks[:1], np.zeros(len(candidates), dtype=int)
        else:
            patterns, inverse = np.unique(masks, axis=0, return_inverse=True)
        for p, pattern in enumerate(patterns):
            members = candidates[np.flatnonzero(inverse.ravel() == p)]
            series.append((years[pattern].astype(float), members, lograte[np.ix_(members, pattern)],
                           events[np.ix_(members, pattern)]))
    for x, members in groups.items():
        idx = np.array([m[0] for m in members])
        series.append((np.array(x), idx, np.vstack([m[1] for m in members]), np.vstack([m[2] for m in members])))
    info = pd.DataFrame({"unit": units, "zero_years": n_zero, "n_years": n_usable, "first_year": first,
                         "last_year": last, "events_total": events_total, "dropped_years": dropped_years,
                         "sparse": sparse, "note": ["; ".join(n) for n in notes]})
    return units, info, series


def classify(slope, p_value, alpha, withheld=None):
    """Trend codes: ``increasing`` / ``decreasing`` where p < alpha (by the slope's sign), ``stationary``
    otherwise; missing where there is no p-value or the class is ``withheld`` (sparse units)."""
    slope = np.asarray(slope, dtype=float)
    p_value = np.asarray(p_value, dtype=float)
    code = np.where(p_value < alpha, np.where(slope > 0, "increasing", "decreasing"), "stationary")
    missing = ~np.isfinite(p_value)
    if withheld is not None:
        missing |= np.asarray(withheld, dtype=bool)
    return text_array(np.where(missing, None, code))
