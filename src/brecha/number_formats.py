"""Numbers written as text, in either convention: ``1,234,567.8`` (decimal point) or ``1.234.567,8``
(decimal comma, the way Spanish and Portuguese exports write them).

The convention is decided per column, from the column's own text cells:

- A cell that fits only one convention decides it: ``12,5`` and ``1.234.567`` are decimal comma;
  ``12.5``, ``0.125`` and ``1,234,567`` are decimal point. Spaces (also no-break spaces) may group thousands
  in either convention; a group separator needs 1-3 leading digits not starting with 0 and groups of 3.
- A column whose cells read the same both ways (``2010``, ``1 234``) is plain.
- A column whose cells read differently each way (``1.234``, ``180.556``) is resolved, in this order, by
  (1) the convention the caller states (``decimal=``, the CLI's ``--decimal``); (2) for a column that must
  hold whole numbers (births, deaths, population), the one reading that gives whole numbers; (3) the other
  columns of the same file, when those that decide agree; (4) a comma-separated CSV, which cannot hold
  unquoted decimal commas, so it is decimal point. Otherwise the column is refused with an error that names
  its rows and the option to state the convention. Nothing is guessed silently.
- Cells that fit neither convention (words, codes) leave the column as text; the Panel's own checks then name
  them. A column of digits with a leading zero (``01101``) is a code and stays text.
"""
from __future__ import annotations

import re
import unicodedata

import numpy as np
import pandas as pd

from .errors import InputError
from .i18n import Catalog

DECIMALS = (".", ",")
# the tokens pandas reads as missing by default; kept so that files read as before
NA_TOKENS = frozenset({"", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN",
                       "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null"})
WHOLE_PREFIXES = ("births", "deaths", "population", "poblacion", "populacao", "nacimientos", "nacidos",
                  "defunciones", "nascidos", "obitos", "nv", "def_")

_SPACES = " \u00a0\u202f\u2009"
_SIGN = r"[+\-\u2212]?"
_EXP = r"(?:[eE][+\-]?\d+)?"


def _pattern(decimal: str) -> re.Pattern:
    group = re.escape("," if decimal == "." else ".")
    grouped = rf"[1-9]\d{{0,2}}(?:(?P<g>[{group}{_SPACES}])\d{{3}})(?:(?P=g)\d{{3}})*"
    dec = re.escape(decimal)
    return re.compile(rf"{_SIGN}(?:(?:\d+|{grouped})(?:{dec}\d+)?|{dec}\d+){_EXP}")


PATTERNS = {d: _pattern(d) for d in DECIMALS}
CODE = re.compile(r"0\d+")

MSG = Catalog({
    "ambiguous": ("números que se leen de dos maneras: {examples}",
                  "numbers that read two ways: {examples}"),
    "ambiguous_hint": ("indique la convención: --decimal , (1.234,5 = mil doscientos treinta y cuatro coma cinco) "
                       "o --decimal . (1,234.5); en Python read_panel(..., decimal=',')",
                       "state the convention: --decimal , (1.234,5 = one thousand two hundred thirty-four point "
                       "five) or --decimal . (1,234.5); in Python read_panel(..., decimal=',')"),
    "two_ways": ("{text!r} (fila {row}) = {thousands} si '{mark}' separa miles, {decimals} si es decimal",
                 "{text!r} (row {row}) = {thousands} if '{mark}' separates thousands, {decimals} if it is the "
                 "decimal mark"),
    "mixed": ("la columna mezcla decimales con punto ({point}) y con coma ({comma})",
              "the column mixes decimal points ({point}) and decimal commas ({comma})"),
    "mixed_hint": ("escriba todos los números de la columna de la misma manera",
                   "write every number of the column the same way"),
    "against": ("números escritos con decimal '{found}' ({examples}), pero se indicó --decimal {given}",
                "numbers written with decimal '{found}' ({examples}), but --decimal {given} was given"),
    "against_hint": ("corrija --decimal o los valores de la columna", "correct --decimal or the column's values"),
    "cell": ("{text!r} (fila {row})", "{text!r} (row {row})"),
    "bad_decimal": ("--decimal debe ser '.' o ',', no {value!r}", "--decimal must be '.' or ',', not {value!r}"),
})


def _plain(name) -> str:
    text = unicodedata.normalize("NFKD", str(name)).encode("ascii", "ignore").decode().strip().lower()
    return re.sub(r"[^a-z0-9]+", "_", text)


def is_whole_column(name) -> bool:
    """True for a column that holds whole numbers (counts, population), by its name in English, Spanish or
    Portuguese: births, deaths*, population*, poblacion*, nacimientos, defunciones*, nascidos*, obitos*."""
    return _plain(name).startswith(WHOLE_PREFIXES)


def to_number(text: pd.Series, decimal: str) -> pd.Series:
    """Text numbers in the ``decimal`` convention ('.' or ',') to float; the caller has checked they fit."""
    group = "," if decimal == "." else "."
    cleaned = text.str.replace(f"[{re.escape(group)}{_SPACES}]", "", regex=True).str.replace("\u2212", "-")
    if decimal == ",":
        cleaned = cleaned.str.replace(",", ".")
    return pd.Series(cleaned.to_numpy(dtype=object).astype(float), index=text.index)


def _cells(text: pd.Series, rows, n: int = 3) -> str:
    return ", ".join(MSG("cell", text=t, row=r) for t, r in zip(text.head(n), rows[:n]))


def _two_ways(text: str, readings: dict, i: int, row) -> str:
    """'1.234' (row 2) = 1234 if '.' separates thousands, 1.234 if it is the decimal mark (in Spanish 1,234)."""
    from .i18n import get_language

    mark = "." if "." in text else ","
    other = "," if mark == "." else "."
    decimals = f"{readings[mark][i]:.15g}"
    if get_language() == "es":
        decimals = decimals.replace(".", ",")
    return MSG("two_ways", text=text, row=row, mark=mark, thousands=f"{readings[other][i]:.15g}", decimals=decimals)


class _Column:
    """One column's text cells and what each convention makes of them."""

    def __init__(self, series: pd.Series, rows):
        values = series.to_numpy(dtype=object)
        is_text = np.array([isinstance(v, str) for v in values], dtype=bool)
        stripped = pd.Series([v.strip(_SPACES + "\t") for v in values[is_text]], dtype=object)
        keep = ~stripped.isin(NA_TOKENS).to_numpy()
        self.positions = np.flatnonzero(is_text)[keep]
        self.text = stripped[keep].reset_index(drop=True)
        self.rows = np.asarray(rows)[self.positions]
        self.fits = {d: self.text.str.fullmatch(PATTERNS[d]).to_numpy(dtype=bool) for d in DECIMALS}
        self.numeric = len(self.text) > 0 and bool((self.fits["."] | self.fits[","]).all())
        self.code = bool(self.text.str.fullmatch(CODE).any()) if len(self.text) else False

    def decided(self) -> str | None:
        """The convention the cells themselves decide ('.' or ','), None when both readings fit."""
        point, comma = self.fits["."].all(), self.fits[","].all()
        if point and comma:
            return None
        return "." if point else "," if comma else "mixed"

    def readings(self) -> dict[str, pd.Series]:
        """Each convention's reading of the cells that fit it (NaN for the others)."""
        out = {}
        for d in DECIMALS:
            values = pd.Series(np.nan, index=self.text.index)
            fits = self.fits[d]
            if fits.any():
                values[fits] = to_number(self.text[fits], d).to_numpy()
            out[d] = values
        return out


def parse_numbers(table: pd.DataFrame, *, file: str | None = None, rows=None, decimal: str | None = None,
                  separator: str | None = None, text_columns=(), whole_columns=None) -> pd.DataFrame:
    """Columns of number-like text made numeric, each in its convention (see the module docstring).

    ``rows`` are the file's row numbers of the table's rows (for messages); ``text_columns`` stay as they
    are; ``whole_columns`` (default: :func:`is_whole_column` by name) must hold whole numbers. A column is
    float64, or int64 when every cell is a whole number written without decimals and none is missing, as
    pandas reads a plain CSV. ``table.attrs["decimal"]`` maps each column read with a decimal comma to ','.
    """
    if decimal is not None and decimal not in DECIMALS:
        raise InputError(MSG("bad_decimal", value=decimal))
    rows = np.arange(len(table)) + 2 if rows is None else np.asarray(rows)
    keep_text = {_plain(c) for c in text_columns}
    whole = is_whole_column if whole_columns is None else (lambda c: c in set(whole_columns))
    columns: dict[str, _Column] = {}
    for name in table.columns:
        series = table[name]
        if _plain(name) in keep_text or not (series.dtype == object or pd.api.types.is_string_dtype(series)):
            continue
        col = _Column(series, rows)
        if col.numeric and not col.code:
            columns[name] = col
    decided = {name: col.decided() for name, col in columns.items()}
    file_conventions = {d for d in decided.values() if d in DECIMALS}
    out = table.copy()
    used: dict[str, str] = {}
    for name, col in columns.items():
        convention = decided[name]
        if convention == "mixed":
            point = col.text[col.fits["."] & ~col.fits[","]]
            comma = col.text[col.fits[","] & ~col.fits["."]]
            raise InputError(MSG("mixed", point=_cells(point, col.rows[point.index]),
                                 comma=_cells(comma, col.rows[comma.index])),
                             file=file, rows=col.rows, column=str(name), hint=MSG("mixed_hint"))
        if convention is not None and decimal is not None and convention != decimal:
            wrong = col.text[~col.fits[decimal]]
            raise InputError(MSG("against", found=convention, given=decimal,
                                 examples=_cells(wrong, col.rows[wrong.index])),
                             file=file, rows=col.rows[wrong.index], column=str(name), hint=MSG("against_hint"))
        readings = col.readings()
        differ = ~np.isclose(readings["."], readings[","], rtol=0, atol=0, equal_nan=True)
        if convention is None:
            convention = _resolve(name, readings, differ, decimal, whole, file_conventions, separator)
        if convention is None:
            examples = "; ".join(_two_ways(t, readings, i, col.rows[i]) for i, t in col.text[differ].head(2).items())
            raise InputError(MSG("ambiguous", examples=examples), file=file, rows=col.rows[differ],
                             column=str(name), hint=MSG("ambiguous_hint"))
        values = np.full(len(table), np.nan, dtype=object)
        original = table[name].to_numpy(dtype=object)
        for i, v in enumerate(original):  # numeric cells (Excel, JSON) keep their value
            if v is not None and not isinstance(v, str) and not (isinstance(v, float) and np.isnan(v)):
                values[i] = v
        values[col.positions] = readings[convention].to_numpy()
        out[name] = _typed(values, col, convention, table[name])
        if convention == ",":
            used[str(name)] = ","
    out.attrs = dict(table.attrs)
    out.attrs["decimal"] = used
    return out


def _resolve(name, readings, differ, decimal, whole, file_conventions, separator) -> str | None:
    """The convention of a column whose cells read two ways (rules 1-4 of the module docstring), or None."""
    if not differ.any():
        return "."
    if decimal is not None:
        return decimal
    if whole(name):
        is_whole = {d: bool(np.all(np.mod(r.to_numpy(), 1) == 0)) for d, r in readings.items()}
        if is_whole["."] != is_whole[","]:
            return "." if is_whole["."] else ","
    if len(file_conventions) == 1:
        return next(iter(file_conventions))
    if separator == ",":
        return "."
    return None


def _typed(values: np.ndarray, col: _Column, convention: str, original: pd.Series) -> pd.Series:
    """int64 when every cell is a whole number written as one (and none is missing), else float64."""
    numbers = pd.to_numeric(pd.Series(values, index=original.index), errors="coerce")
    written_whole = not col.text.str.contains(f"[{re.escape(convention)}eE]", regex=True).any()
    others = np.delete(values, col.positions)
    if (written_whole and numbers.notna().all() and np.isfinite(numbers.to_numpy(dtype=float)).all()
            and bool((numbers.abs() < 2**53).all())
            and all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in others)):
        return numbers.astype("int64")
    return numbers.astype("float64")
