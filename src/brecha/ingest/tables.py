"""Ordinary tables (CSV, Excel, Parquet) of counts or covariates, long or wide, into a Panel.

Long: one row per unit and year, with columns named by a mapping (``unit``, ``year``, ``births``,
``deaths``, ``deaths_neonatal``, ``deaths_postneonatal``; any other column is kept as a covariate).
Wide: one row per unit and one column per year (``2010``, ``2011``, ... or ``nv_2010``, ...) holding one
variable, e.g. births; say which variable with ``variable=``.

Several tables (births from one file, deaths from another, covariates from a third) are joined on
(unit, year). Each file is checked on its own first, so an error names the file and its row.
"""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import InputError
from ..i18n import Catalog
from ..io import read_table
from ..panel import (COUNT_COLUMNS, Panel, _check_counts, _check_covariate, _check_duplicates, _check_years,
                     detect_country)

MSG = Catalog({
    "no_col": ("no existe la columna '{col}' indicada para {role} (columnas: {present})",
               "there is no column '{col}' given for {role} (columns: {present})"),
    "no_col_hint": ("revise el nombre (mayúsculas, tildes) o la opción --{role}-col",
                    "check the name (case, accents) or the --{role}-col option"),
    "need_var": ("la tabla es ancha (columnas por año: {years}); indique qué variable contiene, p. ej. "
                 "ARCHIVO=births", "the table is wide (one column per year: {years}); say which variable it "
                 "holds, e.g. FILE=births"),
    "no_year": ("no hay columna de año ni columnas con años en el nombre",
                "there is no year column and no columns named by year"),
    "no_year_hint": ("indique --year-col, o use una tabla ancha con columnas 2010, 2011, ...",
                     "give --year-col, or use a wide table with columns 2010, 2011, ..."),
    "conflict": ("la variable '{col}' viene en más de un archivo ({files}) para el mismo (unidad, año)",
                 "variable '{col}' comes from more than one file ({files}) for the same (unit, year)"),
    "conflict_hint": ("deje cada variable en un solo archivo", "keep each variable in one file only"),
})

ROLES = {"unit": "unit", "year": "year", "births": "births", "deaths": "deaths",
         "deaths_neonatal": "neonatal", "deaths_postneonatal": "postneonatal"}
# Common spellings in DEIS/INE/SINIM/DATASUS tables, tried when no mapping is given.
DEFAULT_NAMES = {
    "unit": ("unit", "codigo_comuna", "cod_comuna", "comuna_cod", "cut", "codigo", "cod_ibge_6", "cod_ibge",
             "code", "municipio_cod"),
    "year": ("year", "anio", "año", "ano", "ano_def", "periodo"),
    "births": ("births", "nacidos_vivos", "nacimientos", "nv", "nascidos_vivos", "live_births"),
    "deaths": ("deaths", "defunciones_menores_1_anio", "defunciones_infantiles", "def_inf", "obitos_infantis",
               "infant_deaths"),
    "deaths_neonatal": ("deaths_neonatal", "defunciones_neonatales", "neonatal_deaths"),
    "deaths_postneonatal": ("deaths_postneonatal", "defunciones_posneonatales", "postneonatal_deaths"),
}
YEAR_COLUMN = re.compile(r"^(?:[A-Za-z_]*?[_ ]?)?((?:19|20)\d\d)$")


def _find(columns, role: str, given: str | None, file: str) -> str | None:
    if given:
        if given not in columns:
            raise InputError(MSG("no_col", col=given, role=ROLES.get(role, role), present=", ".join(columns)),
                             file=file, column=given, hint=MSG("no_col_hint", role=ROLES.get(role, role)))
        return given
    lower = {str(c).strip().lower(): c for c in columns}
    for name in DEFAULT_NAMES.get(role, (role,)):
        if name in lower:
            return lower[name]
    return None


def read_long(path, mapping: dict | None = None, *, sheet=0, keep=None) -> pd.DataFrame:
    """One long table -> canonical columns (unit, year, counts..., covariates...), checked with its row numbers.

    ``mapping`` maps canonical names to the file's names, e.g. ``{"unit": "codigo_comuna", "year": "anio",
    "births": "nacidos_vivos"}``. Without it, common spellings are recognised (see ``DEFAULT_NAMES``).
    ``keep`` limits the covariates kept (default: every other numeric column).
    """
    mapping = dict(mapping or {})
    file = str(path)
    table = read_table(path, sheet=sheet, dtype=str if Path(path).suffix.lower() in (".csv", ".xlsx") else None)
    return _canonical(table, mapping, file, keep=keep)


def _canonical(table: pd.DataFrame, mapping: dict, file: str, keep=None, variable: str | None = None):
    columns = [str(c) for c in table.columns]
    table.columns = columns
    if mapping.get("name") and not mapping.get("unit"):
        table = _codes_from_names(table, mapping["name"], mapping.get("country"), file)
        columns = list(table.columns)
        mapping = {**mapping, "unit": "unit"}
    unit_col = _find(columns, "unit", mapping.get("unit"), file)
    if unit_col is None:
        raise InputError(MSG("no_col", col="unit", role="unit", present=", ".join(columns)), file=file,
                         hint=MSG("no_col_hint", role="unit"))
    given_year = mapping.get("year")
    if variable and given_year and given_year not in columns:
        given_year = None  # a wide FILE=variable table has its years in the column names
    year_col = _find(columns, "year", given_year, file)
    rows = _file_rows(table)
    if year_col is None:
        year_cols = [c for c in columns if c != unit_col and YEAR_COLUMN.match(c)]
        if len(year_cols) < 1:
            raise InputError(MSG("no_year"), file=file, hint=MSG("no_year_hint"))
        if not variable:
            raise InputError(MSG("need_var", years=", ".join(year_cols[:5])), file=file)
        return _wide(table, unit_col, year_cols, variable, file)
    out = pd.DataFrame({"unit": table[unit_col].astype("string").str.strip(), "year": table[year_col]})
    used = {unit_col, year_col}
    for role in COUNT_COLUMNS:
        col = _find(columns, role, mapping.get(role), file)
        if col is not None:
            out[role] = _check_counts(table[col], col, rows, file)
            used.add(col)
    others = [c for c in columns if c not in used]
    if keep is not None:
        others = [c for c in others if c in keep]
    text_columns = []
    for col in others:
        series = table[col]
        numeric = pd.to_numeric(series, errors="coerce")
        decimal_comma = series.astype("string").str.fullmatch(r"\s*-?\d+,\d+\s*").fillna(False).any()
        if keep is None and numeric.notna().sum() == 0 and not decimal_comma:
            text_columns.append(col)  # names, notes: kept out of the covariates, and said so
            continue
        out[col] = _check_covariate(series, col, rows, file)
    result = _checked_keys(out, rows, file)
    result.attrs["text_columns"] = text_columns
    return result


def _codes_from_names(table: pd.DataFrame, name_col: str, country: str | None, file: str) -> pd.DataFrame:
    """Unit codes from unit names by the registry's tolerant matching (accents, case, spelling variants).

    Ambiguous or unknown names stop with an error listing all of them and their candidates.
    """
    from ..registry import get_registry

    if name_col not in table.columns:
        raise InputError(MSG("no_col", col=name_col, role="name", present=", ".join(table.columns)), file=file,
                         column=name_col, hint=MSG("no_col_hint", role="name"))
    registry = get_registry(country or "CL")
    codes = registry.match_names(table[name_col], source=file, column=name_col, rows=_file_rows(table))
    out = table.drop(columns=[c for c in ("unit",) if c in table.columns]).copy()
    out.insert(0, "unit", codes.to_numpy())
    return out.drop(columns=[name_col])


def _file_rows(table: pd.DataFrame) -> np.ndarray:
    """The file's row numbers of the table's rows (from read_table; header = row 1)."""
    rows = table.attrs.get("rows")
    if rows is None or len(rows) != len(table):
        return np.arange(len(table)) + 2
    return np.asarray(rows)


def _wide(table, unit_col, year_cols, variable, file):
    rows = _file_rows(table)
    parts = []
    for col in year_cols:
        year = int(YEAR_COLUMN.match(col).group(1))
        if variable in COUNT_COLUMNS:
            values = _check_counts(table[col], col, rows, file)
        else:
            values = _check_covariate(table[col], col, rows, file)
        parts.append(pd.DataFrame({"unit": table[unit_col].astype("string").str.strip(), "year": year,
                                   variable: values, "_row": rows}))
    long = pd.concat(parts, ignore_index=True)
    return _checked_keys(long.drop(columns="_row"), long["_row"].to_numpy(), file)


def _checked_keys(out: pd.DataFrame, rows, file):
    """Years whole numbers and (unit, year) unique within one file (the Panel's checks, with this file's rows)."""
    out["year"] = _check_years(out["year"], rows, file)
    out["unit"] = out["unit"].astype(str).str.replace(r"\.0$", "", regex=True)
    _check_duplicates(out, rows, file)
    out.attrs["source"] = file
    return out


def read_wide(path, variable: str, *, unit_col: str | None = None, sheet=0) -> pd.DataFrame:
    """A wide table (one column per year) holding ``variable`` -> long ``unit, year, variable``."""
    table = read_table(path, sheet=sheet, dtype=str if Path(path).suffix.lower() in (".csv", ".xlsx") else None)
    table.columns = [str(c) for c in table.columns]
    unit = _find(list(table.columns), "unit", unit_col, str(path))
    years = [c for c in table.columns if c != unit and YEAR_COLUMN.match(c)]
    if not years:
        raise InputError(MSG("no_year"), file=str(path), hint=MSG("no_year_hint"))
    return _wide(table, unit, years, variable, str(path))


def combine(tables: list[pd.DataFrame], *, country: str | None = "auto", source: str | None = None,
            notes=()) -> Panel:
    """Join canonical tables on (unit, year) into one Panel; a variable may come from one file only."""
    merged = None
    origin: dict[str, str] = {}
    for table in tables:
        file = table.attrs.get("source", "?")
        for col in table.columns:
            if col in ("unit", "year"):
                continue
            if col in origin:
                raise InputError(MSG("conflict", col=col, files=f"{origin[col]}, {file}"),
                                 hint=MSG("conflict_hint"))
            origin[col] = file
        merged = table if merged is None else merged.merge(table, on=["unit", "year"], how="outer")
    if country == "auto":
        country = detect_country(merged["unit"])
    if country and country.lower() == "none":
        country = None
    files = ", ".join(dict.fromkeys(origin.values()))
    return Panel(merged, country=country, source=source or files, notes=tuple(notes))


def read_tables(specs, mapping: dict | None = None, *, country: str | None = "auto", sheet=0) -> Panel:
    """Panel from files given as ``path`` or ``path=variable`` (the latter for wide tables)."""
    tables = []
    for spec in specs:
        path, _, variable = str(spec).partition("=")
        if variable:
            role = {"neonatal": "deaths_neonatal", "postneonatal": "deaths_postneonatal"}.get(variable, variable)
            table = read_table(path, sheet=sheet,
                               dtype=str if Path(path).suffix.lower() in (".csv", ".xlsx") else None)
            tables.append(_canonical(table, dict(mapping or {}), path, variable=role))
        else:
            tables.append(read_long(path, mapping, sheet=sheet))
    return combine(tables, country=country)
