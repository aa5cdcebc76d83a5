"""Validating a Panel's table once, when it is built (:class:`brecha.panel.Panel`): required columns, unit
codes, years, counts, covariates, repeated (unit, year) pairs and codes unknown to the registry are errors
naming the file, the rows (spreadsheet numbering, header = row 1) and the column, with what to do; deaths
above births, zero births and age parts above the total are warnings. ``brecha.ingest`` runs the same
checks on each input file, with that file's rows, so every name here is importable from ``brecha.panel`` too.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .errors import InputError, warn
from .i18n import Catalog

COUNT_COLUMNS = ("births", "deaths", "deaths_neonatal", "deaths_postneonatal")
REQUIRED_COLUMNS = ("unit", "year", "births", "deaths")
ATTRIBUTE_COLUMNS = ("name", "province", "province_name", "region", "region_name", "country", "lat", "lon")
# Plausible years of vital statistics: from 1900 to next year (a later or earlier year is a typo such as
# 20015 or 1015, refused with its rows rather than analysed).
FIRST_YEAR = 1900


def last_year() -> int:
    """Next calendar year: the latest year a panel, --years or a study period may name."""
    import datetime

    return datetime.date.today().year + 1


MESSAGES = {
    "missing_cols": ("faltan las columnas obligatorias {missing} (columnas presentes: {present})",
                     "required columns {missing} are missing (columns present: {present})"),
    "missing_cols_hint": ("renombre las columnas (unit, year, births, deaths) o lea el archivo con 'brecha ingest "
                          "table ARCHIVO -o panel.csv', que reconoce codigo_comuna, anio, nacidos_vivos, "
                          "defunciones_infantiles... y acepta --unit-col, --year-col, --births-col, --deaths-col",
                          "rename the columns (unit, year, births, deaths) or read the file with 'brecha ingest "
                          "table FILE -o panel.csv', which recognises codigo_comuna, anio, nacidos_vivos, "
                          "defunciones_infantiles... and takes --unit-col, --year-col, --births-col, --deaths-col"),
    "empty": ("la tabla no tiene filas", "the table has no rows"),
    "empty_unit": ("código de unidad vacío", "empty unit code"),
    "empty_unit_hint": ("complete el código o elimine la fila", "fill in the code or delete the row"),
    "bad_year": ("año no entero: {values}", "year is not a whole number: {values}"),
    "bad_year_hint": ("escriba años como 2010", "write years like 2010"),
    "implausible_years": ("años fuera de {first}-{last}: {values}", "years outside {first}-{last}: {values}"),
    "implausible_years_hint": ("corrija el año (¿un dígito de más o de menos?) o elimine la fila",
                               "correct the year (a digit too many or too few?) or delete the row"),
    "not_number": ("valores no numéricos en un conteo: {values}", "non-numeric values in a count: {values}"),
    "not_number_hint": ("los conteos deben ser números enteros; deje la celda vacía si no hay dato",
                        "counts must be whole numbers; leave the cell empty where there is no data"),
    "negative": ("conteos negativos: {values}", "negative counts: {values}"),
    "negative_hint": ("corrija los valores; un conteo no puede ser negativo",
                      "correct the values; a count cannot be negative"),
    "fraction": ("conteos no enteros: {values}", "counts that are not whole numbers: {values}"),
    "fraction_hint": ("los conteos de nacimientos y defunciones son enteros; ¿es una tasa en vez de un conteo?",
                      "births and deaths are whole numbers; is this a rate instead of a count?"),
    "duplicate": ("pares (unidad, año) repetidos: {values}", "repeated (unit, year) pairs: {values}"),
    "duplicate_hint": ("deje una fila por unidad y año (sume o elimine las repetidas)",
                       "keep one row per unit and year (sum or remove the repeated ones)"),
    "unknown_units": ("{n} {n:código desconocido|códigos desconocidos} en el registro de {country}: {codes}",
                      "{n} {n:code|codes} unknown to the {country} registry: {codes}"),
    "unknown_units_hint": ("revise los códigos; para códigos comunales antiguos use la armonización "
                           "(brecha.registry) o indique otro país con --country",
                           "check the codes; for old commune codes use harmonisation (brecha.registry) "
                           "or give another country with --country"),
    "other_country_hint": ("los códigos son de {name}: indique --country {country} (o country=\"{country}\" "
                           "en Python)",
                           "the codes are {name}'s: give --country {country} (or country=\"{country}\" in "
                           "Python)"),
    "text_columns": ("columna(s) {cols} con texto y ningún número (¿nombres?): se dejan fuera de las covariables "
                     "(para nombrar las unidades, llame a la columna 'name')",
                     "column(s) {cols} hold text and no number (names?): left out of the covariates (to name the "
                     "units, call the column 'name')"),
    "bad_covariate": ("covariable no numérica: {values}", "non-numeric covariate: {values}"),
    "bad_covariate_hint": ("use números (punto decimal) o deje la celda vacía",
                           "use numbers (decimal point) or leave the cell empty"),
    "deaths_above_births": ("{n} {n:unidad-año|unidad-años} con más defunciones que nacimientos (p. ej. {examples}); "
                            "puede ocurrir en comunas pequeñas cuando la muerte se registra el año siguiente "
                            "al nacimiento",
                            "{n} {n:unit-year|unit-years} with more deaths than births (e.g. {examples}); this can "
                            "happen "
                            "in small communes when a death is registered the year after the birth"),
    "zero_births": ("{n} {n:unidad-año|unidad-años} con 0 nacimientos: la tasa no está definida y se marcará (p. ej. "
                    "{examples})",
                    "{n} {n:unit-year|unit-years} with 0 births: the rate is undefined and will be flagged (e.g. "
                    "{examples})"),
    "missing_counts": ("{n} {n:unidad-año|unidad-años} sin conteo (defunciones o nacimientos vacíos) {n:queda|quedan} "
                       "fuera de toda tasa y de los totales a que {n:pertenece|pertenecen} (p. ej. {examples}); "
                       "escriba 0 donde no hubo ninguno",
                       "{n} {n:unit-year|unit-years} without a count (deaths or births empty) {n:is|are} left out of "
                       "every rate and of the totals {n:it belongs|they belong} to (e.g. {examples}); write 0 where "
                       "there were none"),
    "missing_deaths": ("defunciones", "deaths"),
    "missing_births": ("nacimientos", "births"),
    "parts_above_total": ("{n} {n:unidad-año|unidad-años} donde neonatal + posneonatal supera las defunciones "
                          "infantiles (p. ej. {examples})",
                          "{n} {n:unit-year|unit-years} where neonatal + post-neonatal exceed infant deaths (e.g. "
                          "{examples})"),
    "country_CL": ("Chile", "Chile"),
    "country_BR": ("Brasil", "Brazil"),
    "country_AR": ("Argentina", "Argentina"),
    "cell": ("{value!r} (fila {row})", "{value!r} (row {row})"),
    "cells_more": (" (y {n} más)", " (+{n} more)"),
}
MSG = Catalog(MESSAGES)
LISTED_CODES = 50  # unknown codes named in the error (every one of them is in its rows)


def _examples(frame: pd.DataFrame, n: int = 5) -> str:
    return ", ".join(f"{u} {y}" for u, y in zip(frame["unit"].head(n), frame["year"].head(n)))


def _shown(value):
    """A cell as the user typed it: -1.0 read from a column with blanks is shown as -1."""
    if isinstance(value, (float, np.floating)) and np.isfinite(value) and float(value).is_integer():
        return int(value)
    if isinstance(value, np.generic):
        return value.item()
    return value


def _cells(values, rows, n: int = 8) -> str:
    """'value (row r)' for the first ``n`` bad cells, in the session's language."""
    values = list(values)
    pairs = [MSG("cell", value=_shown(v), row=r) for v, r in zip(values[:n], list(rows)[:n])]
    extra = MSG("cells_more", n=len(values) - n) if len(values) > n else ""
    return ", ".join(pairs) + extra


def _validate(panel) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Check and normalise the data table; build the unit attributes. Raises InputError."""
    raw = panel.data
    src = panel.source
    if not isinstance(raw, pd.DataFrame):
        raw = pd.DataFrame(raw)
    d = raw.copy()
    d.attrs = {}  # file bookkeeping (row numbers) is in panel.row_numbers; attrs must not ride along
    d.columns = [str(c).strip() for c in d.columns]
    missing = [c for c in REQUIRED_COLUMNS if c not in d.columns]
    if missing:
        raise InputError(MSG("missing_cols", missing=", ".join(missing), present=", ".join(map(str, d.columns))),
                         file=src, hint=MSG("missing_cols_hint"))
    if len(d) == 0:
        raise InputError(MSG("empty"), file=src)
    rows = (np.asarray(panel.row_numbers) if panel.row_numbers is not None
            else np.arange(len(d)) + 2)  # spreadsheet row numbers: header is row 1

    # unit codes: strings, no ".0" from spreadsheets, leading zeros restored by the registry
    unit = d["unit"]
    blank = unit.isna() | (unit.astype(str).str.strip() == "")
    if blank.any():
        raise InputError(MSG("empty_unit"), file=src, rows=rows[blank.to_numpy(dtype=bool, na_value=False)], column="unit",
                         hint=MSG("empty_unit_hint"))
    unit = unit.astype(str).str.strip().str.replace(r"\.0$", "", regex=True)
    if panel.registry is not None:
        unit = panel.registry.normalise_codes(unit)
    d["unit"] = unit.astype(str)

    d["year"] = _check_years(d["year"], rows, src)

    for col in [c for c in COUNT_COLUMNS if c in d.columns]:
        d[col] = _check_counts(d[col], col, rows, src)

    attrs = [c for c in ATTRIBUTE_COLUMNS if c in d.columns]
    attr_table = d[["unit"] + attrs].drop_duplicates("unit") if attrs else None
    d = d.drop(columns=attrs)
    text_only = [c for c in d.columns if c not in ("unit", "year") and c not in COUNT_COLUMNS
                 and _text_only(d[c])]
    if text_only:  # names, notes: not covariates (a typo among numbers is still an error, below)
        d = d.drop(columns=text_only)
        msg = MSG("text_columns", cols=", ".join(f"'{c}'" for c in text_only))
        panel.warnings.append(msg)
        warn(msg)
    for col in [c for c in d.columns if c not in ("unit", "year") and c not in COUNT_COLUMNS]:
        d[col] = _check_covariate(d[col], col, rows, src)

    _check_duplicates(d, rows, src)

    if panel.registry is not None:
        known = np.asarray(panel.registry.is_known(d["unit"]))
        if not known.all():
            bad_codes = sorted(d.loc[~known, "unit"].unique())
            country = MSG(f"country_{panel.country}") if f"country_{panel.country}" in MSG else panel.country
            shown = ", ".join(bad_codes[:LISTED_CODES]) + (MSG("cells_more", n=len(bad_codes) - LISTED_CODES)
                                                           if len(bad_codes) > LISTED_CODES else "")
            hint = MSG("unknown_units_hint")
            if (~known).mean() > 0.5:  # most codes unknown: the file is likely of another country
                other = detect_country(d["unit"])
                if other and other != panel.country:
                    name = MSG(f"country_{other}") if f"country_{other}" in MSG else other
                    hint = MSG("other_country_hint", country=other, name=name)
            raise InputError(MSG("unknown_units", n=len(bad_codes), country=country, codes=shown),
                             file=src, rows=rows[~known], column="unit", hint=hint)

    order = np.lexsort((d["year"].to_numpy(), d["unit"].to_numpy()))
    d = d.iloc[order].reset_index(drop=True)
    _data_warnings(panel, d)
    return d, _unit_table(panel, d, attr_table)


def _check_years(series: pd.Series, rows, src) -> pd.Series:
    """Years as int; a year that is missing or not a whole number is an error naming its rows."""
    rows = np.asarray(rows)
    year = pd.to_numeric(series, errors="coerce")
    bad = year.isna() | (year != np.round(year))
    if bad.any():
        raise InputError(MSG("bad_year", values=_cells(series[bad].tolist(), rows[bad.to_numpy(dtype=bool, na_value=False)])),
                         file=src, rows=rows[bad.to_numpy(dtype=bool, na_value=False)], column="year", hint=MSG("bad_year_hint"))
    odd = ((year < FIRST_YEAR) | (year > last_year())).to_numpy()
    if odd.any():
        raise InputError(MSG("implausible_years", first=FIRST_YEAR, last=last_year(),
                             values=_cells(series[odd].tolist(), rows[odd])),
                         file=src, rows=rows[odd], column="year", hint=MSG("implausible_years_hint"))
    return year.astype(int)


def _check_duplicates(d: pd.DataFrame, rows, src) -> None:
    """Every (unit, year) at most once; the repeated ones are listed with their rows."""
    rows = np.asarray(rows)
    dup = d.duplicated(["unit", "year"], keep=False)
    if dup.any():
        pairs = d.loc[dup, ["unit", "year"]]
        shown = _cells([f"{u} {y}" for u, y in zip(pairs["unit"], pairs["year"])], rows[dup.to_numpy(dtype=bool, na_value=False)])
        raise InputError(MSG("duplicate", values=shown), file=src, rows=rows[dup.to_numpy(dtype=bool, na_value=False)],
                         column="unit, year", hint=MSG("duplicate_hint"))


def _check_counts(series: pd.Series, col: str, rows, src) -> pd.Series:
    values = pd.to_numeric(series, errors="coerce")
    text = series.astype("string").str.strip()
    nonnum = values.isna() & series.notna() & (text != "") & text.notna()
    if nonnum.any():
        raise InputError(MSG("not_number", values=_cells(series[nonnum].tolist(), rows[nonnum.to_numpy(dtype=bool, na_value=False)])),
                         file=src, rows=rows[nonnum.to_numpy(dtype=bool, na_value=False)], column=col, hint=MSG("not_number_hint"))
    neg = values < 0
    if neg.any():
        raise InputError(MSG("negative", values=_cells(values[neg].tolist(), rows[neg.to_numpy(dtype=bool, na_value=False)])),
                         file=src, rows=rows[neg.to_numpy(dtype=bool, na_value=False)], column=col, hint=MSG("negative_hint"))
    frac = values.notna() & (values != np.round(values))
    if frac.any():
        raise InputError(MSG("fraction", values=_cells(values[frac].tolist(), rows[frac.to_numpy(dtype=bool, na_value=False)])),
                         file=src, rows=rows[frac.to_numpy(dtype=bool, na_value=False)], column=col, hint=MSG("fraction_hint"))
    return values.round().astype("Int64")


def _text_only(series: pd.Series) -> bool:
    """A column of text and no number at all (a commune's name, a note): nothing to analyse in it."""
    if pd.api.types.is_numeric_dtype(series) or pd.api.types.is_bool_dtype(series):
        return False
    text = series.astype("string").str.strip()
    written = text.notna() & (text != "")
    if not written.any():
        return False
    numbers = pd.to_numeric(text.str.replace(",", ".", regex=False), errors="coerce")
    return not numbers[written].notna().any()


def _check_covariate(series: pd.Series, col: str, rows, src) -> pd.Series:
    if pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series):
        return series.astype(float)
    if pd.api.types.is_bool_dtype(series):
        return series.astype(float)
    values = pd.to_numeric(series, errors="coerce")
    text = series.astype("string").str.strip()
    bad = values.isna() & series.notna() & (text != "") & text.notna()
    if bad.any():
        raise InputError(MSG("bad_covariate", values=_cells(series[bad].tolist(), rows[bad.to_numpy(dtype=bool, na_value=False)])),
                         file=src, rows=rows[bad.to_numpy(dtype=bool, na_value=False)], column=col, hint=MSG("bad_covariate_hint"))
    return values.astype(float)


class RowWarning(str):
    """A warning about some rows of a panel (0 births, deaths above births...), told apart by its type from
    one about the file (a text column set aside, notes that do not apply), and a plain ``str`` everywhere
    else. A subset says the row warnings again for the rows it keeps (:mod:`brecha.panel_warnings`); the
    type travels with the text through every copy of ``panel.warnings``, so no second list must be kept in
    step with the first."""

    __slots__ = ()


def row_warnings(d: pd.DataFrame, given: pd.DataFrame | None = None) -> list[RowWarning]:
    """The warnings about the rows of the panel table ``d``: deaths above births, counts left empty, 0 births,
    neonatal + post-neonatal above the infant deaths; each counts its unit-years and names the first five.

    ``given`` (default ``d``) is the table whose columns say which counts the panel gives at all: a count
    column empty throughout (a deaths-only ingest) is a choice said by the notes, not a row's problem, and a
    subset keeps the panel's answer (:func:`brecha.panel_warnings.warnings_for_rows`)."""
    given = d if given is None else given
    # numpy masks, not pandas ones: a loop of subsets checks its rows each time (a year of Chile: 1.4 ms with
    # pandas masks and row indexing, 0.2 ms so); an empty count is NaN, which compares False as <NA> filled
    # with False did
    births = d["births"].to_numpy(dtype="float64", na_value=np.nan)
    deaths = d["deaths"].to_numpy(dtype="float64", na_value=np.nan)

    def where(mask, n: int = 5) -> list:
        return np.flatnonzero(mask)[:n].tolist()

    def named(mask) -> list:  # "unit year" of the first five (element access: an index of a few rows is slower)
        unit, year = d["unit"].array, d["year"].array
        return [f"{unit[i]} {year[i]}" for i in where(mask)]

    def examples(mask) -> str:
        return ", ".join(named(mask))

    out = []
    above = deaths > births
    if above.any():
        out.append(MSG("deaths_above_births", n=int(above.sum()), examples=examples(above)))
    no_births, no_deaths = np.isnan(births), np.isnan(deaths)
    lacking = ((no_births & (no_births.any() and bool(given["births"].notna().any())))
               | (no_deaths & (no_deaths.any() and bool(given["deaths"].notna().any()))))
    if lacking.any():
        which = [MSG("missing_births") if no_births[i] and not no_deaths[i] else MSG("missing_deaths")
                 if no_deaths[i] and not no_births[i] else f"{MSG('missing_deaths')}, {MSG('missing_births')}"
                 for i in where(lacking)]
        shown = ", ".join(f"{pair} ({w})" for pair, w in zip(named(lacking), which))
        out.append(MSG("missing_counts", n=int(lacking.sum()), examples=shown))
    zero = births == 0
    if zero.any():
        out.append(MSG("zero_births", n=int(zero.sum()), examples=examples(zero)))
    if "deaths_neonatal" in d and "deaths_postneonatal" in d:
        parts = (d["deaths_neonatal"].to_numpy(dtype="float64", na_value=np.nan)
                 + d["deaths_postneonatal"].to_numpy(dtype="float64", na_value=np.nan)) > deaths
        if parts.any():
            out.append(MSG("parts_above_total", n=int(parts.sum()), examples=examples(parts)))
    return [RowWarning(msg) for msg in out]


def _data_warnings(panel, d: pd.DataFrame) -> None:
    for msg in row_warnings(d):
        panel.warnings.append(msg)
        warn(msg)


def _unit_table(panel, d: pd.DataFrame, attr_table: pd.DataFrame | None) -> pd.DataFrame:
    codes = pd.DataFrame({"unit": sorted(d["unit"].unique().tolist())})
    if panel.units is not None:
        given = panel.units.copy()
        given["unit"] = given["unit"].astype(str)
        return codes.merge(given, on="unit", how="left")
    if panel.registry is not None:
        reg = panel.registry.units.copy()
        return codes.merge(reg, on="unit", how="left")
    if attr_table is not None:
        return codes.merge(attr_table, on="unit", how="left")
    codes["name"] = codes["unit"]
    return codes


def detect_country(codes: pd.Series) -> str | None:
    """The registry that knows most of these codes (more than half of the rows), or None.

    Each distinct code is looked up once and counted as often as it occurs (a panel repeats every code
    once a year: 3.5 M rows, 173,000 codes; issue 19)."""
    from .registry import get_registry

    counts = codes.astype(str).value_counts(sort=False)
    distinct = pd.Series(counts.index.to_numpy(dtype=object), dtype=object)
    times = counts.to_numpy(dtype=np.int64)
    best, best_share = None, 0.5
    for country in ("CL", "BR", "AR"):
        reg = get_registry(country)
        known = reg.is_known(reg.normalise_codes(distinct))
        share = int(times[known].sum()) / int(times.sum()) if len(times) else float("nan")
        if share > best_share:
            best, best_share = country, share
    return best
