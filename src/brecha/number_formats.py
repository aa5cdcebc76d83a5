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

Speed: a column whose text is all ASCII is classified and converted by Arrow's vectorised string kernels
(RE2 patterns equal to the ``re`` ones: the backreference that keeps one group separator per number is
written as one alternative per separator). Any other column takes the ``re`` path, cell by cell, because
the digit class of Python's ``re`` also matches non-ASCII digits and RE2's does not. Both paths give the
same result (tests/io/test_number_formats_paths.py compares them on random columns). On Brazil's
111,400-row panel file, reading went from about 10 s to about 1 s of CPU (benchmarks/bench_readers.py).
"""
from __future__ import annotations

import re
import unicodedata

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

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


def _arrow_pattern(decimal: str) -> str:
    """:func:`_pattern` for RE2 (no backreferences), anchored: one alternative per group separator."""
    grouped = "|".join(rf"[1-9]\d{{0,2}}(?:[{g}]\d{{3}})+"
                       for g in ("," if decimal == "." else ".") + _SPACES)
    dec = re.escape(decimal)
    sign = _SIGN.replace(r"\u2212", "\u2212")  # RE2 has no \u escape: the minus sign itself
    return rf"^{sign}(?:(?:\d+|{grouped})(?:{dec}\d+)?|{dec}\d+){_EXP}$"


ARROW_PATTERNS = {d: _arrow_pattern(d) for d in DECIMALS}
ARROW_NA = pa.array(sorted(NA_TOKENS), type=pa.string())

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


def _arrow_to_number(text: pa.Array, decimal: str) -> np.ndarray:
    """:func:`to_number` with Arrow's kernels; the same float() of the same cleaned text."""
    group = "," if decimal == "." else "."
    cleaned = pc.replace_substring_regex(text, pattern=f"[{re.escape(group)}{_SPACES}]", replacement="")
    cleaned = pc.replace_substring(cleaned, pattern="\u2212", replacement="-")
    if decimal == ",":
        cleaned = pc.replace_substring(cleaned, pattern=",", replacement=".")
    try:  # Arrow's parser rounds correctly, as float() does
        return pc.cast(cleaned, pa.float64()).to_numpy(zero_copy_only=False)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):  # an older Arrow refusing a leading '+'
        return cleaned.to_numpy(zero_copy_only=False).astype(float)


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


def _text_array(values: np.ndarray) -> pa.Array | None:
    """The cells as one Arrow string array (missing cells null) when each is a str, None or NaN; else None
    (numbers or other objects among them: the caller looks at each cell)."""
    try:
        arrow = pa.array(values, from_pandas=True)
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError, OverflowError):
        return None
    return arrow if pa.types.is_string(arrow.type) else None


class _Column:
    """One column's text cells and what each convention makes of them."""

    def __init__(self, series: pd.Series, rows, vectorised: bool = True):
        values = series.to_numpy(dtype=object)
        self.arrow = None  # the kept cells as an Arrow array, when every one is ASCII
        if vectorised and len(values):
            arrow = _text_array(values)  # every cell text or missing: one Arrow string array
            if arrow is not None and pc.all(pc.string_is_ascii(arrow.drop_null())).as_py() is not False:
                self.is_text = ~pc.is_null(arrow).to_numpy(zero_copy_only=False)
                if self.is_text.any():
                    self._classify_ascii(arrow.drop_null(), self.is_text, rows)
                    return
        is_text = np.fromiter((isinstance(v, str) for v in values), dtype=bool, count=len(values))
        self.is_text = is_text
        text = values[is_text]
        if vectorised and len(text):
            arrow = pa.array(text, type=pa.string())
            if pc.all(pc.string_is_ascii(arrow)).as_py():
                self._classify_ascii(arrow, is_text, rows)
                return
        stripped = pd.Series([v.strip(_SPACES + "\t") for v in text], dtype=object)
        keep = ~stripped.isin(NA_TOKENS).to_numpy()
        self.positions = np.flatnonzero(is_text)[keep]
        self.text = stripped[keep].reset_index(drop=True)
        self.rows = np.asarray(rows)[self.positions]
        self.fits = {d: self.text.str.fullmatch(PATTERNS[d]).to_numpy(dtype=bool) for d in DECIMALS}
        self.numeric = len(self.text) > 0 and bool((self.fits["."] | self.fits[","]).all())
        self.code = bool(self.text.str.fullmatch(CODE).any()) if len(self.text) else False

    def _classify_ascii(self, arrow: pa.Array, is_text: np.ndarray, rows) -> None:
        """The same attributes as the ``re`` path, computed by Arrow over the whole column at once."""
        stripped = pc.utf8_trim(arrow, characters=_SPACES + "\t")
        keep = ~pc.is_in(stripped, value_set=ARROW_NA).to_numpy(zero_copy_only=False)
        kept = stripped.filter(pa.array(keep))
        self.arrow = kept
        self.positions = np.flatnonzero(is_text)[keep]
        self.text = pd.Series(kept.to_numpy(zero_copy_only=False), dtype=object)
        self.rows = np.asarray(rows)[self.positions]
        self.fits = {d: pc.match_substring_regex(kept, ARROW_PATTERNS[d]).to_numpy(zero_copy_only=False)
                     .astype(bool) for d in DECIMALS}
        self.numeric = len(kept) > 0 and bool((self.fits["."] | self.fits[","]).all())
        self.code = bool(pc.any(pc.match_substring_regex(kept, r"^0\d+$")).as_py()) if len(kept) else False

    def written_whole(self, convention: str) -> bool:
        """True when no cell has the decimal mark or an exponent."""
        pattern = f"[{re.escape(convention)}eE]"
        if self.arrow is not None:
            return not pc.any(pc.match_substring_regex(self.arrow, pattern)).as_py()
        return not self.text.str.contains(pattern, regex=True).any()

    def decided(self) -> str | None:
        """The convention the cells themselves decide ('.' or ','), None when both readings fit."""
        point, comma = self.fits["."].all(), self.fits[","].all()
        if point and comma:
            return None
        return "." if point else "," if comma else "mixed"

    def readings(self, conventions=DECIMALS) -> dict[str, pd.Series]:
        """Each convention's reading of the cells that fit it (NaN for the others)."""
        out = {}
        for d in conventions:
            values = pd.Series(np.nan, index=self.text.index)
            fits = self.fits[d]
            if fits.any():
                if self.arrow is not None:
                    values[fits] = _arrow_to_number(self.arrow.filter(pa.array(fits)), d)
                else:
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
        if convention is None:
            readings = col.readings()
            differ = ~np.isclose(readings["."], readings[","], rtol=0, atol=0, equal_nan=True)
            convention = _resolve(name, readings, differ, decimal, whole, file_conventions, separator)
        else:
            readings = col.readings([convention])
        if convention is None:
            examples = "; ".join(_two_ways(t, readings, i, col.rows[i]) for i, t in col.text[differ].head(2).items())
            raise InputError(MSG("ambiguous", examples=examples), file=file, rows=col.rows[differ],
                             column=str(name), hint=MSG("ambiguous_hint"))
        values = np.full(len(table), np.nan, dtype=object)
        original = table[name].to_numpy(dtype=object)
        for i in np.flatnonzero(~col.is_text):  # numeric cells (Excel, JSON) keep their value
            v = original[i]
            if v is not None and not (isinstance(v, float) and np.isnan(v)):
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
    written_whole = col.written_whole(convention)
    others = np.delete(values, col.positions)
    if (written_whole and numbers.notna().all() and np.isfinite(numbers.to_numpy(dtype=float)).all()
            and bool((numbers.abs() < 2**53).all())
            and all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in others)):
        return numbers.astype("int64")
    return numbers.astype("float64")
