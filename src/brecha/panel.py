"""The Panel: one validated table of unit x year counts, covariates and unit attributes.

Every analysis in brecha takes a Panel. It is validated once, when built; after that analyses trust it
(the pattern of linearmodels' ``PanelData``). Validation names the file, the row and the column of each
problem and says what to do; nothing is dropped quietly.

Rows: ``unit`` (area code, a string that keeps its leading zeros) and ``year`` (int).
Counts (pandas nullable ``Int64``, ``<NA>`` = not available): ``births`` (live births), ``deaths`` (infant
deaths, under 1 year), optionally ``deaths_neonatal`` (0-27 days) and ``deaths_postneonatal`` (28 days to
11 months). Any other numeric column is a covariate (float64).
"""
from __future__ import annotations

import copy
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .compat import isin
from .errors import InputError
from .i18n import Catalog
# the validation lives in panel_checks; its names stay importable from here (brecha.ingest uses them)
from .panel_checks import (ATTRIBUTE_COLUMNS, COUNT_COLUMNS, FIRST_YEAR, REQUIRED_COLUMNS,  # noqa: F401
                           _cells, _check_counts, _check_covariate, _check_duplicates, _check_years,
                           _data_warnings, _examples, _shown, _unit_table, _validate, detect_country, last_year)
from .panel_checks import MESSAGES as CHECK_MESSAGES
from .panel_levels import (LEVELS, check_level, group_of, group_table, level_notes,  # noqa: F401
                           level_units, sum_members)
from .panel_levels import MESSAGES as LEVEL_MESSAGES
from .panel_warnings import warnings_for_rows

OUTCOMES = {"infant": "deaths", "neonatal": "deaths_neonatal", "postneonatal": "deaths_postneonatal"}
OUTCOME_ALIASES = {
    "infant": "infant", "imr": "infant", "infantil": "infant", "deaths": "infant", "tmi": "infant",
    "neonatal": "neonatal", "nmr": "neonatal", "deaths_neonatal": "neonatal",
    "postneonatal": "postneonatal", "post-neonatal": "postneonatal", "pnmr": "postneonatal",
    "tardia": "postneonatal", "tardía": "postneonatal", "infantil_tardia": "postneonatal",
    "deaths_postneonatal": "postneonatal",
}

MSG = Catalog({
    **CHECK_MESSAGES,  # the validation's own (brecha.panel_checks), so MSG knows every key
    "implausible_asked": ("años fuera de {first}-{last}: {values}", "years outside {first}-{last}: {values}"),
    "implausible_asked_hint": ("pida años entre {first} y {last}, p. ej. 2005-2014",
                               "ask for years between {first} and {last}, e.g. 2005-2014"),
    "unknown_outcome": ("resultado desconocido '{name}'; use infant, neonatal o postneonatal",
                        "unknown outcome '{name}'; use infant, neonatal or postneonatal"),
    "outcome_missing": ("el panel no tiene la columna {column} que necesita el resultado '{name}'",
                        "the panel has no column {column}, needed by outcome '{name}'"),
    "outcome_missing_hint": ("use un panel con defunciones por edad (p. ej. desde microdatos DEIS) o el resultado infant",
                             "use a panel with deaths by age (e.g. from DEIS microdata) or the infant outcome"),
    "no_years": ("ninguno de los años pedidos ({asked}) está en el panel ({have})",
                 "none of the requested years ({asked}) is in the panel ({have})"),
    "unknown_subset_units": ("unidades pedidas que no están en el panel: {codes}",
                             "requested units that are not in the panel: {codes}"),
    **LEVEL_MESSAGES,  # summing up the hierarchy (brecha.panel_levels)
    "example_not_file": ("'{source}' nombra un ejemplo incluido, no un archivo de panel",
                         "'{source}' names an embedded example, not a panel file"),
    "example_not_file_hint": ("léalo con brecha.read_panel('{source}') o brecha.datasets.example('{name}')",
                              "read it with brecha.read_panel('{source}') or brecha.datasets.example('{name}')"),
})


TOTAL_PREFIXES = ("population", "poblacion", "población")


def is_total_covariate(name: str) -> bool:
    """True for a covariate that is a total (population), summed when aggregating rather than averaged."""
    return str(name).strip().lower().startswith(TOTAL_PREFIXES)


def resolve_outcome(name: str) -> str:
    """Canonical outcome name ('infant', 'neonatal', 'postneonatal') from a name or alias."""
    key = str(name).strip().lower()
    if key not in OUTCOME_ALIASES:
        raise InputError(MSG("unknown_outcome", name=name))
    return OUTCOME_ALIASES[key]


@dataclass
class Panel:
    """A validated unit x year panel of births, infant deaths and covariates.

    Parameters
    ----------
    data : DataFrame
        Long table, one row per (unit, year); see the module docstring for the columns.
    units : DataFrame, optional
        Unit attributes (``unit, name, province, province_name, region, region_name, country``). Filled from
        the country registry when ``country`` is given.
    country : str, optional
        Registry code (``"CL"``, ``"BR"``). Unit codes are then normalised (a Chilean ``9101`` becomes
        ``09101``) and every code unknown to the registry is an error.
    source : str, optional
        Where the data came from (a file name); used in error messages.
    notes : sequence of str
        Caveats that travel with every result (e.g. how births were counted).

    Examples
    --------
    >>> import pandas as pd
    >>> p = Panel(pd.DataFrame({"unit": ["A", "B"], "year": [2010, 2010],
    ...                         "births": [1000, 500], "deaths": [8, 6]}))
    >>> p.events().estimate if False else p.events()["events"].tolist()
    [8, 6]
    """

    data: pd.DataFrame
    units: pd.DataFrame | None = None
    country: str | None = None
    source: str | None = None
    notes: tuple = ()
    registry: object = None
    row_numbers: object = None
    warnings: list = field(default_factory=list)
    validate: bool = True

    def __post_init__(self):
        if self.country and self.registry is None:
            from .registry import get_registry

            self.registry = get_registry(self.country)
        if self.registry is not None and not self.country:
            self.country = self.registry.country
        self.notes = tuple(self.notes)
        if self.validate:
            self.data, self.units = _validate(self)
        self.validate = False

    # ------------------------------------------------------------------ descriptions
    @property
    def years(self) -> list[int]:
        return sorted(int(y) for y in self.data["year"].unique())

    @property
    def unit_codes(self) -> list[str]:
        return sorted(self.data["unit"].unique().tolist())

    @property
    def covariates(self) -> list[str]:
        return [c for c in self.data.columns if c not in ("unit", "year") and c not in COUNT_COLUMNS]

    @property
    def outcomes(self) -> list[str]:
        return [name for name, col in OUTCOMES.items() if col in self.data.columns]

    def __repr__(self) -> str:
        years = self.years
        span = f"{years[0]}-{years[-1]}" if years else "-"
        return (f"Panel({len(self.unit_codes)} units x {len(years)} years {span}, {len(self.data)} rows, "
                f"country={self.country}, outcomes={self.outcomes}, covariates={self.covariates})")

    def summary(self) -> pd.DataFrame:
        """Totals per year: units, births, deaths (by age where present), rate per 1,000, missing cells."""
        d = self.data
        counts = [c for c in COUNT_COLUMNS if c in d.columns]
        by = d.groupby("year")
        out = by[counts].sum(min_count=1)
        out.insert(0, "units", by["unit"].nunique())
        out["births_missing"] = by["births"].apply(lambda s: int(s.isna().sum()))
        both = d[d["births"].notna() & d["deaths"].notna()]
        agg = both.groupby("year")[["births", "deaths"]].sum()
        out["imr"] = (agg["deaths"].astype(float) / agg["births"].astype(float) * 1000).round(2)
        return out.reset_index()

    # ------------------------------------------------------------------ operations
    def _derive(self, data: pd.DataFrame, units: pd.DataFrame | None = None, notes=None) -> "Panel":
        units = self.units if units is None else units
        keep = units[isin(units["unit"], data["unit"].unique())].reset_index(drop=True)
        # the warnings about rows are said again for the rows kept (brecha.panel_warnings); the file's stay
        return Panel(data.reset_index(drop=True), keep, self.country, self.source,
                     self.notes if notes is None else notes, self.registry, validate=False,
                     warnings=warnings_for_rows(self.warnings, data, self.data))

    def subset(self, units=None, years=None, region=None, province=None) -> "Panel":
        """The panel restricted to some units (codes), years, region(s) or province(s).

        Its warnings about rows (0 births, deaths above births, empty counts...) count and name the rows
        kept, not those of the whole panel; those about the file (a text column set aside) are kept as they
        are (:mod:`brecha.panel_warnings`). The notes, about the source, are kept whole."""
        d = self.data
        if units is not None:
            codes = [units] if isinstance(units, str) else list(units)
            if self.registry is not None:
                codes = self.registry.normalise_codes(pd.Series(codes, dtype=str)).tolist()
            missing = sorted(set(codes) - set(d["unit"].unique().tolist()))
            if missing:
                raise InputError(MSG("unknown_subset_units", codes=", ".join(missing)), file=self.source)
            d = d[isin(d["unit"], codes)]
        for level, wanted in (("region", region), ("province", province)):
            if wanted is not None:  # "13", "5" for "05", or the name, tolerantly (brecha.registry.areas)
                from .registry.areas import resolve_areas

                resolved = resolve_areas(self.units, level, wanted, self.country)
                d = d[isin(d["unit"], self.units.loc[self.units[level].astype(str).isin(resolved), "unit"])]
        if years is not None:
            yrs = [years] if isinstance(years, int) else list(years)
            if not set(yrs) & set(d["year"]):
                raise InputError(MSG("no_years", asked=_span(yrs), have=_span(self.years)))
            d = d[d["year"].isin(yrs)]
        return self._derive(d)

    def aggregate(self, level: str, incomplete: str = "missing") -> "Panel":
        """Sum counts up the hierarchy (commune -> province -> region -> country).

        ``incomplete`` says what a group total is when some member's count is not available:
        ``"missing"`` (default: the total is not available either) or ``"available"`` (the sum over the
        members that have it; the column ``units_missing`` then says how many were left out, and a note says
        so). Covariates are averaged with births as weights (the rate-consistent choice for a per-capita
        covariate), except totals, whose name starts with ``population`` / ``poblacion`` (e.g.
        ``population``, ``population_age0``): those are summed like the counts.

        The sums are :func:`brecha.panel_levels.sum_members`, the rule of :meth:`events` too. With
        ``"available"`` a unit-year without births or without infant deaths is left out whole (the panel has
        one births column for all its counts). For the rate of one outcome by level use
        ``events(outcome, level=...)``, which pairs the births with that outcome's own deaths.
        """
        check_level(level, incomplete)
        units = level_units(self.units, level, self.country)
        d = self.data
        keys = [d["unit"].map(group_of(units, level)), d["year"]]
        counts = [c for c in COUNT_COLUMNS if c in d.columns]
        if incomplete == "available":
            # a unit-year without births or without deaths is left out whole, so that numerator and
            # denominator of the group's rate cover the same units
            incomplete_rows = (d["births"].isna() | d["deaths"].isna()).to_numpy()
            lacking = pd.DataFrame({c: incomplete_rows for c in counts}, index=d.index)
        else:
            lacking = d[counts].isna()
        summed, members_missing = sum_members(d[counts], keys, lacking, incomplete)
        summed = summed.astype("Int64")
        if incomplete == "available":
            summed["units_missing"] = members_missing.astype(float)
        else:
            members_missing = 0
        parts = [summed]
        covs = [c for c in self.covariates if not is_total_covariate(c)]
        totals = [c for c in self.covariates if is_total_covariate(c)]
        if totals:
            # population is a total: summed like the counts (and missing when a member is, unless "available")
            parts.append(sum_members(d[totals].astype(float), keys, d[totals].isna(), incomplete)[0])
        if covs:
            # weights: the births that entered the sums (a unit-year left out weighs nothing)
            w = d["births"].mask(lacking["births"]).astype(float).fillna(0.0)
            weighted = d[covs].astype(float).mul(w, axis=0)
            has = d[covs].notna().astype(float).mul(w, axis=0)
            num = weighted.groupby(keys).sum(min_count=1)
            den = has.groupby(keys).sum()
            parts.append(num / den.replace(0, np.nan))
        data = pd.concat(parts, axis=1).reset_index()
        data = data[["unit", "year"] + [c for c in data.columns if c not in ("unit", "year")]]
        data = data[[c for c in data.columns if c not in self.covariates] + self.covariates]
        # the warnings are about the member units' rows: plain text here, that a subset of the groups keeps
        # whole rather than checks again on the groups' sums (brecha.panel_warnings)
        return Panel(data, group_table(units, level), self.country, self.source,
                     self.notes + level_notes(level, members_missing), self.registry, validate=False,
                     warnings=[str(w) for w in self.warnings])

    def units_at(self, level: str) -> pd.DataFrame:
        """The groups at ``level`` as unit attributes (``unit, name``, the levels above, ``level``): the
        ``units`` of ``aggregate(level)`` and of the rows of ``events(level=level)``."""
        check_level(level)
        return group_table(level_units(self.units, level, self.country), level)

    @property
    def remembers_events(self) -> bool:
        """Whether :meth:`events` keeps what it makes (inside :meth:`events_remembered`)."""
        return self.__dict__.get("_events_memo") is not None

    @contextmanager
    def events_remembered(self):
        """Within this block :meth:`events` computes each distinct request once and hands out copies.

        A report asks for the same few tables a dozen times (its analyses each start from them): for
        Brazil's 5,570 municipalities that was 0.66 s of CPU for 4 distinct tables (issue 19). The caller
        promises not to change ``data`` inside the block; outside it every call computes afresh, so a user
        who edits ``panel.data`` between calls is never handed a stale table."""
        previous = self.__dict__.get("_events_memo")
        self.__dict__["_events_memo"] = {} if previous is None else previous
        try:
            yield self
        finally:
            if previous is None:
                self.__dict__.pop("_events_memo", None)

    def events(self, outcome: str = "infant", years=None, pool: bool = False, level: str | None = None,
               incomplete: str = "available") -> pd.DataFrame:
        """Events and births per unit and year (or pooled over the years); the input of every analysis.

        Returns ``unit, period, year, events, births`` (+ ``n_years`` when pooled). ``period`` is "2010"
        for a year, "2005-2014" for a pooled period. Pooling sums the years where both counts exist.

        ``level`` (``province``, ``region``, ``country``) sums the units up to it first, per group and
        year (:mod:`brecha.panel_levels`), pairing each member's births with this outcome's own deaths:
        ``incomplete="available"`` (default) sums the members that have both, ``"missing"`` gives ``<NA>``
        when any member lacks either. The column ``units_missing`` then counts the member unit-years left
        out (summed over the years when pooled), and ``attrs["notes"]`` holds the panel's notes plus what
        was summed and left out. The groups' names are in :meth:`units_at`.
        """
        memo = self.__dict__.get("_events_memo")
        if memo is not None:  # inside events_remembered(): each distinct request once, a copy each time
            if years is not None and not isinstance(years, int):
                years = tuple(years)  # read once (a generator would be spent by the key)
            key = (resolve_outcome(outcome), years, bool(pool), level, incomplete)
            if key not in memo:
                memo[key] = self._events(outcome, years, pool, level, incomplete)
            table = memo[key].copy()
            table.attrs = copy.deepcopy(memo[key].attrs)
            return table
        return self._events(outcome, years, pool, level, incomplete)

    def _events(self, outcome, years, pool, level, incomplete) -> pd.DataFrame:
        """:meth:`events`, computed."""
        name = resolve_outcome(outcome)
        column = OUTCOMES[name]
        if column not in self.data.columns:
            raise InputError(MSG("outcome_missing", column=column, name=name), file=self.source,
                             hint=MSG("outcome_missing_hint"))
        if level is not None:
            check_level(level, incomplete)
            units = level_units(self.units, level, self.country)
        d = self.data
        if years is not None:
            yrs = [years] if isinstance(years, int) else list(years)
            if not set(yrs) & set(d["year"]):
                raise InputError(MSG("no_years", asked=_span(yrs), have=_span(self.years)))
            d = d[d["year"].isin(yrs)]
        if level is None:
            out = pd.DataFrame({"unit": d["unit"].values, "year": d["year"].values,
                                "events": d[column].values, "births": d["births"].values})
        else:
            counts = pd.DataFrame({"events": d[column], "births": d["births"]})
            either = counts.isna().any(axis=1)  # deaths without births, or births without deaths
            keys = [d["unit"].map(group_of(units, level)), d["year"]]
            sums, missing = sum_members(counts, keys, pd.DataFrame({"events": either, "births": either}),
                                        incomplete)
            out = sums.astype("Int64").assign(units_missing=missing.astype("int64")).reset_index()
        if not pool:
            out.insert(1, "period", out["year"].astype(str))
            out = out.sort_values(["unit", "year"], kind="stable").reset_index(drop=True)
            return _with_level_notes(out, self, level, incomplete)
        label = period_label(sorted(set(years) & set(self.years))) if years is not None else period_label(self.years)
        ok = out["events"].notna() & out["births"].notna()
        pooled = out[ok].groupby("unit", sort=True).agg(events=("events", "sum"), births=("births", "sum"),
                                                         n_years=("year", "nunique"))
        pooled = pooled.reindex(sorted(out["unit"].unique().tolist()))
        pooled["n_years"] = pooled["n_years"].fillna(0).astype(int)
        if level is not None:
            pooled["units_missing"] = out.groupby("unit", sort=True)["units_missing"].sum()
        pooled = pooled.reset_index()
        pooled.insert(1, "period", label)
        pooled.insert(2, "year", pd.array([pd.NA] * len(pooled), dtype="Int64"))
        pooled["events"] = pooled["events"].astype("Int64")
        pooled["births"] = pooled["births"].astype("Int64")
        return _with_level_notes(pooled, self, level, incomplete,
                                 out["units_missing"] if level is not None else None)

    def with_covariates(self, table: pd.DataFrame, notes=()) -> "Panel":
        """Add covariate columns from a ``unit, year, ...`` table (left join; unmatched cells stay empty)."""
        import warnings as _warnings

        cols = [c for c in table.columns if c not in ("unit", "year")]
        data = self.data.drop(columns=[c for c in cols if c in self.data.columns])
        table = table.assign(unit=table["unit"].astype(str), year=table["year"].astype(int))
        merged = data.merge(table, on=["unit", "year"], how="left")
        with _warnings.catch_warnings():
            # the counts were checked (and warned about) when this panel was built; only the new columns are new
            _warnings.simplefilter("ignore")
            out = Panel(merged, self.units, self.country, self.source, self.notes + tuple(notes), self.registry)
        out.warnings = list(self.warnings)
        return out

    def to_file(self, path) -> None:
        """Write the canonical panel file (unit, year, counts, covariates); the format follows the extension.
        The notes go beside it, ``<name>.notes.json`` (:mod:`brecha.panel_notes`), so that the file read back
        carries the same caveats; the two appear together or not at all."""
        from .io import write_table
        from .outputs import together
        from .panel_notes import write_notes

        out = self.data.copy()
        with together():
            write_table(out, path)
            write_notes(path, self.notes, out)


def parse_years(text) -> list[int]:
    """Years from text, the inverse of a period label: '2005-2014' (or '2005:2014') -> [2005, ..., 2014];
    '2005,2007' -> [2005, 2007]; 2010 -> [2010]. Raises ValueError on anything else (a range that runs
    backwards included), and an InputError (also a ValueError) naming them for years outside
    FIRST_YEAR..next year."""
    import re

    years: list[int] = []
    for part in str(text).split(","):
        part = part.strip()
        m = re.fullmatch(r"(\d{4})\s*[-:]\s*(\d{4})", part)
        if m and int(m.group(1)) <= int(m.group(2)):
            years.extend(range(int(m.group(1)), int(m.group(2)) + 1))
        elif re.fullmatch(r"\d{4}", part):
            years.append(int(part))
        else:
            raise ValueError(text)
    out = sorted(set(years))
    wrong = [y for y in out if not FIRST_YEAR <= y <= last_year()]
    if wrong:  # an InputError is a ValueError too: callers that catch ValueError keep working
        raise InputError(MSG("implausible_asked", first=FIRST_YEAR, last=last_year(), values=_span(wrong)),
                         hint=MSG("implausible_asked_hint", first=FIRST_YEAR, last=last_year()))
    return out


def _with_level_notes(table: pd.DataFrame, panel: Panel, level, incomplete, units_missing=None):
    """An events table by level carries the panel's notes and the level's (``attrs["notes"]``)."""
    if level is not None:
        missing = table["units_missing"] if units_missing is None else units_missing
        table.attrs["notes"] = list(panel.notes) + list(
            level_notes(level, missing if incomplete == "available" else 0))
    return table


def period_label(years) -> str:
    """The label of a set of years, as pooled periods are named: ``2000-2015`` for consecutive years,
    ``2001,2005`` or ``2000-2003,2005`` when some are left out (the runs of consecutive years, as ``--years``
    takes them), ``2010`` for one year, ``""`` for none. A pooled period is labelled with the years it pools,
    so ``--years 2001,2005 --pool`` is not mistaken for 2001-2005."""
    years = sorted({int(y) for y in years})
    runs, start = [], None
    for a, b in zip(years, years[1:] + [None]):
        start = a if start is None else start
        if b != a + 1:
            runs.append(str(start) if start == a else f"{start}-{a}")
            start = None
    return ",".join(runs)


_span = period_label


def read_panel(source, *, country: str | None = "auto", decimal: str | None = None, sheet=0) -> Panel:
    """A Panel from a panel file (.csv .parquet .xlsx .json). The embedded examples ("example:chile") are
    read by ``brecha.read_panel`` (:func:`brecha.datasets.read_panel`), above the Panel: this module never
    imports the shipped data.

    ``country="auto"`` picks the registry that knows most of the unit codes (then every unknown code is an
    error); ``None`` skips registry checks (any area codes). ``decimal`` ('.' or ',') states how numbers
    written as text are written when the file alone does not tell (``brecha.number_formats``). ``sheet``: the
    sheet of an .xlsx workbook, a name or a number from 0 (``--sheet``); a sheet without the required columns,
    in a workbook of several, is an error naming the sheets. What the reading warned (a title above the header,
    :mod:`brecha.table_layout`) is kept in ``panel.warnings`` too, so ``brecha panel`` lists it.
    """
    text = str(source)
    if text.startswith("example:"):
        raise InputError(MSG("example_not_file", source=text),
                         hint=MSG("example_not_file_hint", source=text, name=text.split(":", 1)[1].strip()))
    import warnings

    from .errors import BrechaWarning
    from .io import read_table
    from .table_layout import check_sheet_columns

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        table = read_table(source, sheet=sheet, dtype={"unit": str}, decimal=decimal)
    for w in caught:  # said again under the caller's filters, as if not caught
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno, source=w.source)
    check_sheet_columns(table, REQUIRED_COLUMNS, text)
    if "unit" in table.columns and country == "auto":
        country = detect_country(table["unit"].dropna())
    elif country == "auto":
        country = None
    panel = Panel(table, country=country, source=text, row_numbers=table.attrs.get("rows"))
    panel.warnings[:0] = [str(w.message) for w in caught if issubclass(w.category, BrechaWarning)]
    from .panel_notes import read_notes  # the notes Panel.to_file wrote beside the file

    panel.notes = panel.notes + read_notes(source, panel.data, panel.warnings)
    return panel
