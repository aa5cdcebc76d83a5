"""Rates per 1,000 live births with confidence intervals, per unit and period.

The rate of unit i in period t is IMR = D / LB × 1000 (deaths under one year over live births; neonatal and
post-neonatal rates use the same denominator). Confidence intervals (method named in the ``method`` column):
exact Poisson (Garwood 1936, the default), Byar as PHE computes it (Breslow & Day 1987), the ``epitools``
Byar variant (D + 0.5), PHE's rule (exact below 10 deaths, Byar above), Wilson and Clopper-Pearson for the
binomial view (deaths out of births). Formulas are in :mod:`brecha.intervals` and ``docs/rates.md``.

Zero deaths give a lower limit of 0 (never negative). Zero births make the rate undefined: the row keeps
its counts, gets NaN and the flag ``zero_births``, and nothing is divided by zero.

Example
-------
>>> import pandas as pd
>>> from brecha.rates import rates
>>> ev = pd.DataFrame({"unit": ["A", "B"], "year": [2010, 2010], "events": [30, 0], "births": [6000, 250]})
>>> rates(ev)[["unit", "estimate", "lower", "upper"]].round(4).values.tolist()
[['A', 5.0, 3.3735, 7.1378], ['B', 0.0, 0.0, 14.7555]]
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .errors import InputError
from .i18n import Catalog
from .intervals import check_conf_level, interval_detail, resolve_ci_method
from .compat import text_array

MSG = Catalog({
    "need_columns": ("la tabla de eventos necesita las columnas {need}; tiene {have}",
                     "the events table needs the columns {need}; it has {have}"),
    "need_columns_hint": ("use panel.events(...) o una tabla unit, year, events, births",
                          "use panel.events(...) or a table unit, year, events, births"),
    "level_needs_panel": ("agregar a '{level}' necesita un Panel (con atributos de unidad), no una tabla",
                          "aggregating to '{level}' needs a Panel (with unit attributes), not a table"),
    "no_years": ("ninguno de los años pedidos está en la tabla", "none of the requested years is in the table"),
    "bad_input": ("se esperaba un Panel o una tabla de eventos, no {kind}",
                  "expected a Panel or an events table, not {kind}"),
})

RATE_COLUMNS = ["unit", "period", "outcome", "events", "births", "estimate", "lower", "upper", "method",
                "conf_level", "flag"]


def _span(years) -> str:
    """A pooled period's label (:func:`brecha.panel.period_label`: ``2000-2015``, ``2001,2005``)."""
    from .panel import period_label

    return period_label(years)


def _outcome_name(outcome: str) -> str:
    from .panel import resolve_outcome

    return resolve_outcome(outcome)


def events_table(panel, outcome: str = "infant", years=None, pool: bool = False, level: str | None = None):
    """Events and births per unit and period from a Panel or a plain events table.

    Returns ``(events, units, outcome_name)``: the ``unit, period, year, events, births`` table (counts as
    pandas ``Int64``), the unit attributes (``unit, name, region, ...``; None for a plain table) and the
    canonical outcome name. With ``level`` the units are summed up to it by
    :meth:`brecha.panel.Panel.events` (the members that have both this outcome's deaths and births; the
    table has ``units_missing`` and the notes in ``attrs``) and the attributes are the groups'. A plain
    table needs ``unit``, ``events`` (or ``deaths``), ``births`` and either
    ``year`` or ``period``; ``years`` and ``pool`` then work on its ``year`` column.
    """
    from .panel import Panel

    if isinstance(panel, Panel):
        name = _outcome_name(outcome)
        if not level:
            return panel.events(name, years=years, pool=pool), panel.units, name
        # summed by Panel.events, pairing the births with this outcome's deaths (brecha.panel_levels)
        return panel.events(name, years=years, pool=pool, level=level), panel.units_at(level), name
    if not isinstance(panel, pd.DataFrame):
        raise InputError(MSG("bad_input", kind=type(panel).__name__))
    if level:
        raise InputError(MSG("level_needs_panel", level=level))
    try:
        name = _outcome_name(outcome)
    except InputError:
        name = str(outcome)
    d = panel.copy()
    if "events" not in d.columns and "deaths" in d.columns:
        d = d.rename(columns={"deaths": "events"})
    need = ["unit", "events", "births"]
    if any(c not in d.columns for c in need) or ("year" not in d.columns and "period" not in d.columns):
        raise InputError(MSG("need_columns", need="unit, year|period, events, births",
                             have=", ".join(map(str, d.columns))), hint=MSG("need_columns_hint"))
    d["unit"] = d["unit"].astype(str)
    for c in ("events", "births"):
        d[c] = pd.to_numeric(d[c], errors="coerce")
    if "year" in d.columns:
        d["year"] = pd.to_numeric(d["year"], errors="coerce").astype("Int64")
    if years is not None and "year" in d.columns:
        yrs = [years] if isinstance(years, int) else list(years)
        d = d[d["year"].isin(yrs)]
        if d.empty:
            raise InputError(MSG("no_years"))
    by_year = "year" in d.columns and d["year"].notna().any()
    if pool and (by_year or "period" in d.columns):
        if by_year:
            label = _span(d["year"].dropna().unique())  # the years pooled, not the years asked
        else:  # a table of periods only (e.g. already pooled): pool over its periods
            periods = sorted(d["period"].astype(str).unique())
            first, last = periods[0].split("-")[0], periods[-1].split("-")[-1]
            label = first if first == last else f"{first}-{last}"
        key = "year" if by_year else "period"
        ok = d["events"].notna() & d["births"].notna()
        g = d[ok].groupby("unit", sort=True)
        pooled = g.agg(events=("events", "sum"), births=("births", "sum"), n_years=(key, "nunique"))
        pooled = pooled.reindex(sorted(d["unit"].unique().tolist()))
        pooled["n_years"] = pooled["n_years"].fillna(0).astype(int)
        d = pooled.reset_index()
        d.insert(1, "period", label)
        d.insert(2, "year", pd.array([pd.NA] * len(d), dtype="Int64"))
    else:
        if "period" not in d.columns:
            d["period"] = d["year"].astype(str)
        if "year" not in d.columns:
            d["year"] = pd.array([pd.NA] * len(d), dtype="Int64")
        d["period"] = d["period"].astype(str)
    for c in ("events", "births"):
        values = d[c].astype("Float64")
        integral = bool(((values.dropna() % 1) == 0).all())
        d[c] = values.round().astype("Int64") if integral else values
    cols = ["unit", "period", "year", "events", "births"] + (["n_years"] if "n_years" in d.columns else [])
    d = d[cols].sort_values(["unit", "period"], kind="stable").reset_index(drop=True)
    units = None
    attrs = [c for c in ("name", "province", "region") if c in panel.columns]
    if attrs:
        units = panel[["unit"] + attrs].drop_duplicates("unit").assign(unit=lambda t: t["unit"].astype(str))
    return d, units, name


def attach_names(table: pd.DataFrame, units: pd.DataFrame | None) -> pd.DataFrame:
    """Add the ``name`` column from the unit attributes (a left join; unknown units keep no name)."""
    if units is None or "name" not in units.columns:
        return table
    names = units.drop_duplicates("unit").set_index("unit")["name"]
    table["name"] = table["unit"].map(names)
    return table


def carry_notes(table: pd.DataFrame, panel) -> pd.DataFrame:
    """Keep the panel's caveats (e.g. how births were counted) with the result, in ``table.attrs["notes"]``."""
    notes = list(getattr(panel, "notes", ()) or ())
    if notes:
        table.attrs["notes"] = notes
    return table


def rate_interval(events, births, method: str = "exact", conf_level: float = 0.95, per: float = 1000):
    """Rate and confidence limits, vectorised: ``(estimate, lower, upper)`` numpy arrays per ``per`` births.

    ``method``: ``exact`` (Garwood 1936, default), ``byar`` (PHE / Breslow & Day 1987), ``byar-epitools``
    (D + 0.5, as ``epitools::pois.byar``; negative lower limits clipped to 0), ``phe`` (exact for D < 10,
    Byar otherwise), ``wilson`` and ``clopper-pearson``. Zero or missing births give NaN.

    >>> est, lo, up = rate_interval([30], [6000])
    >>> round(float(lo[0]), 4), round(float(up[0]), 4)
    (3.3735, 7.1378)
    """
    out = interval_detail(events, births, method, conf_level, per)
    return out["estimate"], out["lower"], out["upper"]


def rates(panel, outcome: str = "infant", years=None, pool: bool = False, ci: str = "exact",
          conf_level: float = 0.95, level: str | None = None, per: float = 1000) -> pd.DataFrame:
    """Rates per 1,000 live births with confidence intervals, per unit and period.

    Parameters
    ----------
    panel : Panel or DataFrame
        A :class:`~brecha.panel.Panel`, or a plain table ``unit, year|period, events, births``.
    outcome : ``infant`` | ``neonatal`` | ``postneonatal``
    years : list of int, optional
        Restrict to these years.
    pool : bool
        Sum deaths and births over the years (one row per unit, period "2005-2014").
    ci : str
        Interval method (see :func:`rate_interval`); named in the ``method`` column.
    level : None | ``province`` | ``region`` | ``country``
        None: the panel's units; otherwise counts are summed up to that level first.

    Returns
    -------
    DataFrame ``unit, period, outcome, events, births, estimate, lower, upper, method, conf_level, flag``
    (+ ``name`` where known, ``n_years`` when pooled). ``flag`` is '' or ';'-separated codes:
    ``zero_births`` (rate undefined, NaN), ``missing``, ``events_exceed_births``, ``lower_clipped``.
    """
    method = resolve_ci_method(ci)
    conf_level = check_conf_level(conf_level)
    ev, units, name = events_table(panel, outcome, years, pool, level)
    return _rate_rows(ev, units, name, method, conf_level, per, panel)


def rates_blocks(panel, outcome: str = "infant", years=None, pool: bool = False, ci: str = "exact",
                 conf_level: float = 0.95, level: str | None = None, per: float = 1000, block_rows: int = 500_000):
    """The table of :func:`rates` in consecutive pieces of at most ``block_rows`` rows (same arguments), for
    writing it without holding it whole (``brecha rates -o OUT.csv``, issue 19).

    Each row depends only on its own counts, so the pieces concatenated are the rows of :func:`rates`, in
    its order and with its numbers. What a whole table would hold at once besides itself (the interval
    arithmetic's per-row arrays, about 100 bytes a row) is only ever held for one piece. ``method`` is one
    text per piece when every row of the piece used the same method.
    """
    for table, _ in RateParts(panel, outcome, years, pool, ci, conf_level, level, per).blocks(block_rows):
        yield table


class RateParts:
    """The table of :func:`rates` (same arguments) in parts, each with its rows' cells (``cells``: one
    integer per row, the row's unit-period among ``n_cells``): :meth:`blocks`, consecutive pieces in the
    table's order; :meth:`strata`, the rows of one period at a time (what a protected table is decided on,
    ``brecha.publication_pieces``). ``n_rows``: the table's rows, known before any is computed."""

    def __init__(self, panel, outcome="infant", years=None, pool=False, ci="exact", conf_level=0.95, level=None,
                 per=1000):
        self.method = resolve_ci_method(ci)
        self.conf_level = check_conf_level(conf_level)
        self.ev, units, self.name = events_table(panel, outcome, years, pool, level)
        self.names, self.panel, self.per = _names(units), panel, per
        self.n_cells = self.n_rows = len(self.ev)

    def _rows(self, ev) -> pd.DataFrame:
        return _rate_rows(ev, self.names, self.name, self.method, self.conf_level, self.per, self.panel)

    def whole(self) -> pd.DataFrame:
        """The whole table (:func:`rates`)."""
        return self._rows(self.ev)

    def blocks(self, block_rows: int = 500_000):
        step = max(1, int(block_rows))
        for start in range(0, max(self.n_rows, 1), step):
            yield self._rows(self.ev.iloc[start:start + step]), np.arange(start, min(start + step, self.n_rows))

    def strata(self):
        codes, periods = pd.factorize(self.ev["period"].astype(str), sort=True)
        for p in range(len(periods)):
            rows = np.flatnonzero(codes == p)
            yield self._rows(self.ev.iloc[rows]), rows


def _names(units):
    """The unit -> name lookup of :func:`attach_names` (None without names)."""
    if units is None or "name" not in units.columns:
        return None
    return units.drop_duplicates("unit").set_index("unit")["name"]


def _rate_rows(ev, units, name, method, conf_level, per, panel) -> pd.DataFrame:
    """The rates table of the events table ``ev`` (``units``: the unit attributes, or their names)."""
    res = interval_detail(ev["events"], ev["births"], method, conf_level, per)
    used = res.pop("method")
    out = pd.DataFrame({
        "unit": ev["unit"].astype(str).array,
        "period": ev["period"].astype(str).array,
        "outcome": name,
        "events": ev["events"].array,
        "births": ev["births"].array,
        "estimate": res.pop("estimate"),
        "lower": res.pop("lower"),
        "upper": res.pop("upper"),
        "method": method if (used == method).all() else text_array(used),
        "conf_level": conf_level,
        "flag": text_array(res.pop("flag")),
    })
    del used, res
    if isinstance(units, pd.Series):
        out["name"] = out["unit"].map(units)
    else:
        out = attach_names(out, units)
    if "n_years" in ev.columns:
        out["n_years"] = ev["n_years"].to_numpy()
    return carry_notes(out, panel)
