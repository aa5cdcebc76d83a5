"""Summing units up the hierarchy (commune -> province -> region -> country): the one rule.

Every total of a group (a province, a region, the country) in brecha comes from :func:`sum_members`, through
:meth:`brecha.panel.Panel.events` (``level=``: the events and births of one outcome) or
:meth:`brecha.panel.Panel.aggregate` (the whole counts and covariates panel).

The rule, per group and year, over the member unit-years that have a row (a commune created in 2004 has no
rows before; its territory is counted in its parent's):

- a member value is *lacking* when it may not enter the sum. For a rate that is when the member lacks the
  outcome's deaths **or** its births, so that numerator and denominator cover the same members: the
  deaths of a unit-year without births never enter a sum, nor its births without deaths. The pairing is
  always with the outcome's own column (neonatal deaths with births, never with the infant deaths'
  availability);
- ``incomplete="available"``: the total is the sum over the members not lacking (``<NA>`` when none has
  it), and ``units_missing`` says how many member unit-years were left out;
- ``incomplete="missing"``: the total is ``<NA>`` when any member lacks it.

Why one function: the same total was computed three ways (the panel, the trends, the report), and one of
them paired neonatal deaths with the infant deaths' births.
"""
from __future__ import annotations

import pandas as pd

from .errors import InputError
from .i18n import Catalog
from .panel_checks import MSG as CHECK_MSG

LEVELS = ("province", "region", "country")
INCOMPLETE = ("missing", "available")

MESSAGES = {
    "no_level": ("no se puede agregar a '{level}': faltan los atributos de unidad",
                 "cannot aggregate to '{level}': the unit attributes are missing"),
    "aggregated": ("agregado a {level}: conteos y población sumados; las demás covariables como promedios "
                   "ponderados por nacimientos",
                   "aggregated to {level}: counts and population summed; other covariates as births-weighted "
                   "means"),
    "left_out": ("agregado a {level}: {n} {n:unidad-año|unidad-años} sin nacimientos o defunciones "
                 "{n:quedó|quedaron} fuera de las sumas "
                 "(ver units_missing)",
                 "aggregated to {level}: {n} {n:unit-year|unit-years} without births or deaths {n:was|were} left "
                 "out of the sums "
                 "(see units_missing)"),
    "level_province": ("provincia", "province"),
    "level_region": ("región", "region"),
    "level_country": ("país", "country"),
    "bad_level": ("nivel '{level}' desconocido; use province, region o country",
                  "unknown level '{level}'; use province, region or country"),
    "bad_incomplete": ("incomplete debe ser 'missing' o 'available', no {value!r}",
                       "incomplete must be 'missing' or 'available', not {value!r}"),
}
MSG = Catalog(MESSAGES)


def check_level(level: str, incomplete: str = "available") -> None:
    """Refuse an unknown level or rule for incomplete groups."""
    if incomplete not in INCOMPLETE:
        raise InputError(MSG("bad_incomplete", value=incomplete))
    if level not in LEVELS:
        raise InputError(MSG("bad_level", level=level))


def country_code(units: pd.DataFrame | None, country: str | None) -> str:
    """The code of the whole study area: the panel's country, else the one country its units list, else ALL."""
    if country:
        return country
    listed = units["country"].dropna().astype(str).unique() if units is not None and "country" in units else []
    return listed[0] if len(listed) == 1 else "ALL"


def level_units(units: pd.DataFrame | None, level: str, country: str | None) -> pd.DataFrame:
    """The unit attributes with the ``level`` column filled (``country`` is set for the whole area).

    Raises when the units do not say which province or region each belongs to.
    """
    check_level(level)
    if level != "country" and (units is None or level not in units.columns or units[level].isna().all()):
        raise InputError(MSG("no_level", level=level))
    units = units.copy()
    if level == "country":
        code = country_code(units, country)
        units["country"] = code
        units["country_name"] = CHECK_MSG(f"country_{code}") if f"country_{code}" in CHECK_MSG else code
    return units


def group_of(units: pd.DataFrame, level: str) -> pd.Series:
    """unit code -> group code at ``level`` (from :func:`level_units`)."""
    return units.set_index("unit")[level].astype(str)


def group_table(units: pd.DataFrame, level: str) -> pd.DataFrame:
    """One row per group at ``level``: ``unit, name`` (+ the levels above it and their names) and ``level``."""
    name_col = f"{level}_name"
    attrs = units.drop_duplicates(level)
    out = pd.DataFrame({"unit": attrs[level].astype(str).values,
                        "name": attrs[name_col].astype(str).values if name_col in attrs else
                        attrs[level].astype(str).values})
    for upper in LEVELS[LEVELS.index(level) + 1:]:
        if upper in attrs:
            out[upper] = attrs[upper].values
            if f"{upper}_name" in attrs:
                out[f"{upper}_name"] = attrs[f"{upper}_name"].values
    out["level"] = level
    return out


def sum_members(values: pd.DataFrame, keys: list, lacking: pd.DataFrame, incomplete: str):
    """Sum the member rows of each group (the rule of the module docstring).

    ``values``: the columns to sum, one row per member unit-year; ``keys``: the grouping (group code,
    year), aligned with ``values``; ``lacking``: booleans of the same shape, True where a member's value may
    not enter the sum. Returns ``(sums, units_missing)``, both indexed by the groups (sorted): ``sums`` the
    totals (``<NA>``/NaN where not available), ``units_missing`` the number of members lacking any column.
    """
    # observed=True: only the groups present (pandas 3's default; before it, a categorical key such as a
    # disparity table's period made every combination of categories, even those of rows not given)
    sums = values.mask(lacking).groupby(keys, sort=True, observed=True).sum(min_count=1)
    if incomplete == "missing":
        sums = sums.mask(lacking.groupby(keys, sort=True, observed=True).any())
    units_missing = lacking.any(axis=1).groupby(keys, sort=True, observed=True).sum()
    return sums, units_missing


def left_out_note(level: str, units_missing) -> tuple:
    """The note saying how many member unit-years a level's sums left out (none when all were in)."""
    n = int(pd.Series(units_missing).sum())
    return (MSG("left_out", level=MSG(f"level_{level}"), n=n),) if n else ()


def level_notes(level: str, units_missing) -> tuple:
    """The notes an aggregated table carries: what was summed and, if any, what was left out."""
    return (MSG("aggregated", level=MSG(f"level_{level}")),) + left_out_note(level, units_missing)
