"""Ordinary tables (CSV, Excel, Parquet) of counts or covariates, long or wide, into a Panel.

Long: one row per unit and year, with columns named by a mapping (``unit``, ``year``, ``births``,
``deaths``, ``deaths_neonatal``, ``deaths_postneonatal``; any other column is kept as a covariate).
Wide: one row per unit and one column per year (``2010``, ``2011``, ... or ``nv_2010``, ...) holding one
variable, e.g. births; say which variable with ``variable=``.

Several tables (births from one file, deaths from another, covariates from a third) are joined on
(unit, year). Each file is checked on its own first, so an error names the file and its row. The mapping
applies to every file; a file names its own columns as ``path=ROLE:COLUMN,...``
(``deaths.csv=deaths:defunciones``), and ``path=births`` on a long table reads its one count column as
births (:mod:`brecha.ingest.table_specs`).

Every row read is used or excluded with its reason in a :class:`~brecha.ingest.ledger.Ledger` (blank rows,
total/aggregate rows, the source's unknown units; :mod:`brecha.ingest.table_rows`); names are matched to
codes exactly (accents, case, spaces, punctuation, known official variants) unless ``match="approximate"``
(:mod:`brecha.registry.names`). :func:`ingest_tables` returns the panel and the ledger.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import InputError
from ..i18n import Catalog
from ..io import read_table
from ..number_formats import is_whole_column, parse_numbers
from ..panel import (COUNT_COLUMNS, Panel, _check_counts, _check_covariate, _check_duplicates, _check_years,
                     detect_country)
from . import table_rows, table_specs
from .ledger import Ledger

MSG = Catalog({
    "no_col": ("no existe la columna '{col}' indicada para {role} (columnas: {present})",
               "there is no column '{col}' given for {role} (columns: {present})"),
    "no_col_hint": ("revise el nombre (mayúsculas, tildes) o la opción --{role}-col, que vale para todos los "
                    "archivos; para un solo archivo escriba ARCHIVO={role}:COLUMNA",
                    "check the name (case, accents) or the --{role}-col option, which applies to every file; for "
                    "one file only write FILE={role}:COLUMN"),
    "need_var": ("la tabla es ancha (columnas por año: {years}); indique qué variable contiene, p. ej. "
                 "ARCHIVO=births", "the table is wide (one column per year: {years}); say which variable it "
                 "holds, e.g. FILE=births"),
    "no_year": ("no hay columna de año ni columnas con años en el nombre",
                "there is no year column and no columns named by year"),
    "no_year_hint": ("indique --year-col, o use una tabla ancha con columnas 2010, 2011, ...",
                     "give --year-col, or use a wide table with columns 2010, 2011, ..."),
    "conflict": ("la variable '{col}' viene en más de un archivo ({files}) para el mismo (unidad, año)",
                 "variable '{col}' comes from more than one file ({files}) for the same (unit, year)"),
    "clash": ("la columna '{col}' tiene el nombre de una columna del panel, pero {col} se lee de '{other}', "
              "como se indicó", "column '{col}' has the name of a panel column, but {col} is read from "
              "'{other}', as given"),
    "clash_hint": ("renombre o quite una de las dos columnas, o lea esta: {file}={role}:{col}",
                   "rename or remove one of the two columns, or read this one: {file}={role}:{col}"),
    "conflict_hint": ("deje cada variable en un solo archivo", "keep each variable in one file only"),
    "names_hint": ("la columna '{col}' tiene nombres de unidad (p. ej. '{example}'): indique --name-col {col}; si "
                   "hay una columna de códigos, indíquela con --unit-col",
                   "column '{col}' holds unit names (e.g. '{example}'): give --name-col {col}; if a column holds "
                   "codes, give it with --unit-col"),
    "sheets_hint": ("el libro tiene {n} hojas ({names}) y se leyó '{sheet}': si los datos están en otra, "
                    "indíquela con --sheet, p. ej. --sheet {other}",
                    "the workbook has {n} sheets ({names}) and '{sheet}' was read: if the data are on another, "
                    "give it with --sheet, e.g. --sheet {other}"),
    "percent_note": ("{file}: columna '{col}' escrita como porcentaje (p. ej. '{example}'): leída como número de "
                     "0 a 100, sin el signo %", "{file}: column '{col}' written as percentages (e.g. '{example}'): "
                     "read as numbers from 0 to 100, without the % sign"),
    "set_aside_note": ("{file}: columnas no usadas, porque tienen solo texto (no son códigos, años, conteos ni "
                       "covariables numéricas): {cols}", "{file}: columns not used, because they hold only text "
                       "(not codes, years, counts or numeric covariates): {cols}"),
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


def read_long(path, mapping: dict | None = None, *, sheet=0, keep=None, ledger: Ledger | None = None,
              match: str = "exact", country: str | None = "auto") -> pd.DataFrame:
    """One long table -> canonical columns (unit, year, counts..., covariates...), checked with its row numbers.

    ``mapping`` maps canonical names to the file's names, e.g. ``{"unit": "codigo_comuna", "year": "anio",
    "births": "nacidos_vivos"}``. Without it, common spellings are recognised (see ``DEFAULT_NAMES``).
    ``keep`` limits the covariates kept (default: every other numeric column). ``ledger``: where each row
    read goes (used, or excluded with its reason); ``match``: ``"exact"`` or ``"approximate"`` for names.
    """
    mapping = dict(mapping or {})
    file = str(path)
    table = read_table(path, sheet=sheet, dtype=str if Path(path).suffix.lower() in (".csv", ".xlsx") else None)
    return _canonical(table, mapping, file, keep=keep, ledger=ledger, match=match, country=country, sheet=sheet)


def _canonical(table: pd.DataFrame, mapping: dict, file: str, keep=None, variable: str | None = None,
               ledger: Ledger | None = None, match: str = "exact", country: str | None = "auto", sheet=0,
               spec: table_specs.FileSpec | None = None):
    columns = [str(c) for c in table.columns]
    table.columns = columns
    spec = spec or table_specs.FileSpec(file, variable)
    table_specs.check_columns(spec, columns)  # the file's own FILE=ROLE:COLUMN, before anything is read
    table_rows.start(table, file, ledger)
    if mapping.get("name") and not mapping.get("unit"):
        registry = mapping.get("country") or (country if country and country.lower() not in ("auto", "none")
                                              else None)
        table = _codes_from_names(table, mapping["name"], registry, file, ledger=ledger, match=match)
        columns = list(table.columns)
        mapping = {**mapping, "unit": "unit"}
        unit_col = "unit"
    else:
        unit_col = _find(columns, "unit", mapping.get("unit"), file)
        if unit_col is None:
            raise InputError(MSG("no_col", col="unit", role="unit", present=", ".join(columns)), file=file,
                             hint=_no_unit_hint(table, file, sheet))
        table = table_rows.exclude_non_units(table, unit_col, country=country, file=file, ledger=ledger)
    given_year = mapping.get("year")
    if variable and given_year and given_year not in columns:
        given_year = None  # a wide FILE=variable table has its years in the column names
    year_col = _find(columns, "year", given_year, file)
    if variable and year_col is not None:  # a long table said to hold `variable`: which of its columns
        table, columns, mapping = _long_variable(table, columns, mapping, spec, unit_col, year_col, file)
    rows = _file_rows(table)
    counts = {_find(columns, role, mapping.get(role), file) for role in COUNT_COLUMNS}
    table, percent = _without_percent_signs(table, {unit_col, year_col, *counts} - {None})
    table = _numbers(table, unit_col, mapping, variable, rows, file)
    if year_col is None:
        year_cols = [c for c in columns if c != unit_col and YEAR_COLUMN.match(c)]
        if len(year_cols) < 1:
            raise InputError(MSG("no_year"), file=file, hint=MSG("no_year_hint"))
        table_specs.check_wide(spec, year_cols)
        if not variable:
            raise InputError(MSG("need_var", years=", ".join(year_cols[:5])), file=file)
        return _wide(table, unit_col, year_cols, variable, file)
    out = pd.DataFrame({"unit": table[unit_col].astype("string").str.strip(), "year": table[year_col]})
    used = {unit_col, year_col}
    read_from = {"unit": unit_col, "year": year_col}
    problems = table_rows.Problems(file)  # every bad cell of the file in one error, not the first one only
    for role in COUNT_COLUMNS:
        col = _find(columns, role, mapping.get(role), file)
        if col is not None:
            out[role] = problems.check(_check_counts, table[col], col, rows, file)
            used.add(col)
            read_from[role] = col
    others = [c for c in columns if c not in used]
    if keep is not None:
        others = [c for c in others if c in keep]
    for col in others:  # kept as a covariate, it would silently replace the column read for that role
        if col in read_from:
            raise InputError(MSG("clash", col=col, other=read_from[col]), file=file, column=col,
                             hint=MSG("clash_hint", col=col, role=table_specs.shown(col), file=file))
    text_columns = []
    for col in others:
        series = table[col]
        numeric = pd.to_numeric(series, errors="coerce")
        decimal_comma = series.astype("string").str.fullmatch(r"\s*-?\d+,\d+\s*").fillna(False).any()
        if keep is None and numeric.notna().sum() == 0 and not decimal_comma:
            text_columns.append(col)  # names, notes: kept out of the covariates, and said so
            continue
        out[col] = problems.check(_check_covariate, series, col, rows, file)
    problems.check(_check_years, out["year"], rows, file)
    problems.raise_all()
    result = _checked_keys(out, rows, file)
    result.attrs["notes"] = [MSG("percent_note", file=file, col=col, example=example) for col, example in percent]
    if text_columns:  # names, notes: kept out of the covariates, and said so (printed, in the ledger)
        result.attrs["notes"].append(MSG("set_aside_note", file=file, cols=", ".join(text_columns)))
    return result


def _long_variable(table, columns, mapping, spec, unit_col, year_col, file):
    """``FILE=births`` on a long table: the births are its column given for them (``FILE=births:COLUMN``,
    ``--births-col``), else the one of a known spelling, else its one column that is not a key or another
    count (:func:`brecha.ingest.table_specs.column_holding`). A covariate (``FILE=poverty``) takes the
    variable's name. Returns the table, its columns and the mapping."""
    variable = spec.variable
    col = _find(columns, variable, mapping.get(variable), file)
    if col is None:
        taken = {unit_col, year_col} | {_find(columns, role, mapping.get(role), file) for role in COUNT_COLUMNS
                                        if role != variable}
        col = table_specs.column_holding(spec, columns, taken - {None}, year_col)
    if variable in COUNT_COLUMNS:
        return table, columns, {**mapping, variable: col}
    if col != variable:
        table = table.rename(columns={col: variable})
        columns = [variable if c == col else c for c in columns]
    return table, columns, mapping


# every cell of a percent column: a number followed by '%' ("12,5%", "7.25 %", "1.234,5%")
_PERCENT = re.compile(r"\s*[-+]?\d[\d.,\s\u00a0]*%\s*")


def _without_percent_signs(table: pd.DataFrame, skip) -> tuple[pd.DataFrame, list[tuple[str, str]]]:
    """Columns whose every non-empty cell is a number followed by '%' (how Excel in Spanish exports a
    percentage cell, '12,5%') lose the sign, so they are read as numbers from 0 to 100 (12.5) in their
    convention; ``[(column, first cell)]`` of those columns, for the note that says so. A column with only
    some cells in percent is left as it is: the covariate check then names its cells."""
    found = []
    for col in table.columns:
        series = table[col]
        if col in skip or not (series.dtype == object or pd.api.types.is_string_dtype(series)):
            continue
        text = series.dropna().astype(str)
        text = text[text.str.strip() != ""]
        if len(text) and text.str.fullmatch(_PERCENT).all():
            table = table.assign(**{col: series.where(series.isna(), series.astype(str).str.replace(
                "%", "", regex=False).str.strip())})
            found.append((col, text.iloc[0].strip()))
    return table, found


def _no_unit_hint(table: pd.DataFrame, file: str, sheet) -> str:
    """What to do when no column holds unit codes: name a column of names (--name-col) if there is one, the
    workbook's other sheets (--sheet) when the sheet read may be the wrong one, else --unit-col. A lone text
    column on one sheet of several is taken for notes, not names."""
    sheets = list(table.attrs.get("sheets") or ())  # an .xlsx's sheets, as the reader found them (io.read_table)
    for col in table.columns:
        text = table[col].dropna().astype(str).str.strip()
        text = text[text != ""]
        names = (len(text) >= 2 and not text.str.fullmatch(r"[\d.,\s-]+").any()
                 and text.str.contains(r"[^\W\d_]{3}", regex=True).mean() > 0.9)
        if names and (len(sheets) <= 1 or len(table.columns) > 1):
            return MSG("names_hint", col=col, example=text.iloc[0])
    if len(sheets) > 1:
        read = table.attrs.get("sheet", str(sheet))
        other = next((n for n in sheets if n != read), sheets[0])
        return MSG("sheets_hint", n=len(sheets), names=", ".join(sheets), sheet=read, other=other)
    return MSG("no_col_hint", role="unit")


def _codes_from_names(table: pd.DataFrame, name_col: str, country: str | None, file: str,
                      ledger: Ledger | None = None, match: str = "exact") -> pd.DataFrame:
    """Unit codes from unit names (:func:`brecha.ingest.table_rows.units_from_names`): exact up to accents,
    case, spaces, punctuation and known variants; total rows excluded; every other problem in one error."""
    if name_col not in table.columns:
        raise InputError(MSG("no_col", col=name_col, role="name", present=", ".join(table.columns)), file=file,
                         column=name_col, hint=MSG("no_col_hint", role="name"))
    return table_rows.units_from_names(table, name_col, country=country, file=file, ledger=ledger, match=match)


_file_rows = table_rows.file_rows


def _numbers(table: pd.DataFrame, unit_col: str, mapping: dict, variable: str | None, rows, file: str):
    """Numbers written as text read in their convention (``1.234,5`` or ``1,234.5``, per column;
    ``brecha.number_formats``), the unit codes kept as text; ``mapping["decimal"]`` states the convention.
    Count columns (and a wide table of counts) must hold whole numbers, which settles ``180.556``."""
    columns = [str(c) for c in table.columns]
    whole = {c for c in columns if is_whole_column(c)}
    whole |= {c for c in (_find(columns, role, mapping.get(role), file) for role in COUNT_COLUMNS) if c}
    if variable in COUNT_COLUMNS:
        whole |= {c for c in columns if YEAR_COLUMN.match(c)}
    return parse_numbers(table, file=file, rows=rows, decimal=mapping.get("decimal"),
                         separator=table.attrs.get("separator"), text_columns=[unit_col], whole_columns=whole)


def _wide(table, unit_col, year_cols, variable, file):
    rows = _file_rows(table)
    parts = []
    problems = table_rows.Problems(file)
    for col in year_cols:
        year = int(YEAR_COLUMN.match(col).group(1))
        if variable in COUNT_COLUMNS:
            values = problems.check(_check_counts, table[col], col, rows, file)
        else:
            values = problems.check(_check_covariate, table[col], col, rows, file)
        parts.append(pd.DataFrame({"unit": table[unit_col].astype("string").str.strip(), "year": year,
                                   variable: values, "_row": rows}))
    problems.raise_all()
    long = pd.concat(parts, ignore_index=True)
    return _checked_keys(long.drop(columns="_row"), long["_row"].to_numpy(), file)


def _checked_keys(out: pd.DataFrame, rows, file):
    """Years whole numbers and (unit, year) unique within one file (the Panel's checks, with this file's rows)."""
    out["year"] = _check_years(out["year"], rows, file)
    out["unit"] = out["unit"].astype(str).str.replace(r"\.0$", "", regex=True)
    _check_duplicates(out, rows, file)
    out.attrs["source"] = file
    out.attrs["rows"] = np.asarray(rows)  # the file's own line numbers, for the Panel's messages
    return out


def read_wide(path, variable: str, *, unit_col: str | None = None, sheet=0) -> pd.DataFrame:
    """A wide table (one column per year) holding ``variable`` -> long ``unit, year, variable``."""
    table = read_table(path, sheet=sheet, dtype=str if Path(path).suffix.lower() in (".csv", ".xlsx") else None)
    table.columns = [str(c) for c in table.columns]
    unit = _find(list(table.columns), "unit", unit_col, str(path))
    years = [c for c in table.columns if c != unit and YEAR_COLUMN.match(c)]
    if not years:
        raise InputError(MSG("no_year"), file=str(path), hint=MSG("no_year_hint"))
    table = _numbers(table, unit, {}, variable, _file_rows(table), str(path))
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
    # one file: the Panel's messages name its own lines (rows of totals, unknown units or blank lines were
    # excluded before, so a position in the table is not a line of the file); several joined: no one line
    rows = tables[0].attrs.get("rows") if len(tables) == 1 else None
    return Panel(merged, country=country, source=source or files, notes=tuple(notes), row_numbers=rows)


@dataclass
class TableIngest:
    """The result of :func:`ingest_tables`: ``panel`` and ``ledger`` (unpacks as ``panel, ledger``)."""

    panel: Panel
    ledger: Ledger

    def __iter__(self):
        yield self.panel
        yield self.ledger


def ingest_tables(specs, mapping: dict | None = None, *, country: str | None = "auto", sheet=0,
                  match: str = "exact") -> TableIngest:
    """Panel and record ledger from files given as ``path``, ``path=variable`` (what a wide table holds, or
    the one count column of a long table) or ``path=ROLE:COLUMN,...`` (this file's own columns, over
    ``mapping``; :mod:`brecha.ingest.table_specs`).

    The ledger has, per file, the rows read, the rows used and the rows excluded with their reason (blank,
    total/aggregate, unknown to the source); the counts add up (checked). ``match="approximate"`` accepts
    names that match one unit only approximately, each reported as a warning and in the ledger.

        >>> panel, ledger = ingest_tables(["births.csv", "deaths.csv"])          # doctest: +SKIP
        >>> ledger.save("panel.parquet")     # panel.ledger.csv and panel.ledger.json   # doctest: +SKIP
    """
    table_rows.check_match_mode(match)
    ledger = Ledger()
    tables = []
    for spec in table_specs.parse_all(specs):  # every spec checked before any file is read
        table = read_table(spec.path, sheet=sheet,
                           dtype=str if Path(spec.path).suffix.lower() in (".csv", ".xlsx") else None)
        tables.append(_canonical(table, spec.mapping(mapping), spec.path, variable=spec.variable, ledger=ledger,
                                 match=match, country=country, sheet=sheet, spec=spec))
    ledger.check()
    notes = [note for table in tables for note in table.attrs.get("notes", [])]
    ledger.notes.extend(notes)  # printed with the ledger and saved in OUT.ledger.json
    return TableIngest(combine(tables, country=country, notes=notes), ledger)


def read_tables(specs, mapping: dict | None = None, *, country: str | None = "auto", sheet=0,
                match: str = "exact") -> Panel:
    """Panel from files given as ``path`` or ``path=variable`` (the latter for wide tables); the panel of
    :func:`ingest_tables`."""
    return ingest_tables(specs, mapping, country=country, sheet=sheet, match=match).panel
