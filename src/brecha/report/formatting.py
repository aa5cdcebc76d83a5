"""Numbers for reading, in the report's language: Spanish writes 1.234,5 and English 1,234.5.

:func:`fmt_number` formats a table cell by its column (counts with thousands separators, p-values, years,
rates with one or two decimals); :func:`fmt` and :func:`fmt_int` format the numbers of a sentence; an
undefined or infinite value reads "–"."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd


def localise(text: str, lang: str) -> str:
    """Spanish writes 1.234,5; English 1,234.5."""
    if lang != "es":
        return text
    return text.replace(",", "\u2009").replace(".", ",").replace("\u2009", ".")


def fmt(value, digits: int, lang: str) -> str:
    """A number of a sentence with ``digits`` decimals and thousands separators; "–" when undefined."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        return "–"
    if not np.isfinite(v):
        return "–"
    return localise(f"{v:,.{digits}f}", lang)


def fmt_int(value, lang: str) -> str:
    """A count with thousands separators (5.570 in Spanish, 5,570 in English)."""
    try:
        return localise(f"{int(value):,}", lang)
    except (TypeError, ValueError):
        return "–"


def fmt_number(value, column: str, lang: str) -> str:
    """Numbers for reading: counts with thousands separators, p-values, rates with 1-2 decimals (the rules of
    :func:`number_formatter`, which a table's column uses for all its cells)."""
    return number_formatter(column, lang)(value)


_P_COLUMNS = ("p_value", "p", "pvalue")
_YEAR_COLUMNS = ("year", "first_year", "last_year")
_COUNT_COLUMNS = ("events", "births", "deaths", "n", "n_years", "n_units", "rows", "df", "count", "nobs", "n_obs")
_COUNT_ENDINGS = ("births", "events", "deaths", "_n")


def number_formatter(column: str, lang: str):
    """``f(value)``: a number of column ``column`` for reading. An undefined or infinite value (or none) reads
    "–"; a p-value (``p_value``, ``p``, ``pvalue``, ``*_p_value``) "<0.001" or three decimals; a year
    (``year``, ``first_year``, ``last_year``, ``*_year``) as a whole number; a whole count (``events``,
    ``births``, ``deaths``, ``n``, ... ``*_n``) with thousands separators; any other number with no decimals
    from 1,000, one from 100, two from 1 (and 0), else three significant digits; Spanish writes 1.234,5.
    The column's rule is chosen once: a table's column is formatted cell after cell, and deciding it again for
    each of a report's ~14,000 numbers was a third of the page's time (issue 19; the same text as before:
    tests/report/test_html_table.py keeps the earlier function as its reference)."""
    col = column.lower()
    is_p = col in _P_COLUMNS or col.endswith("_p_value")
    is_year = not is_p and (col in _YEAR_COLUMNS or col.endswith("_year"))
    is_count = col in _COUNT_COLUMNS or col.endswith(_COUNT_ENDINGS)
    spanish = lang == "es"
    isfinite, isnan, na = math.isfinite, math.isnan, pd.NA

    def number(value) -> str:
        if value is None or value is na:
            return "–"
        if value.__class__ is float:  # the usual cell: no conversion to try
            v = value
            if not isfinite(v):
                return "–"
        else:
            if isinstance(value, float) and isnan(value):
                return "–"
            try:
                v = float(value)
            except (TypeError, ValueError):
                return str(value)
            if not isfinite(v):
                return "–"
        if is_p:
            text = "<0.001" if v < 0.001 else f"{v:.3f}"
        elif is_year:
            return str(int(v))
        elif is_count and v.is_integer():
            text = f"{int(v):,}"
        elif abs(v) >= 1000:
            text = f"{v:,.0f}"
        elif abs(v) >= 100:
            text = f"{v:,.1f}"
        elif abs(v) >= 1 or v == 0:
            text = f"{v:,.2f}"
        else:
            text = f"{v:.3g}"
        return text.replace(",", "\u2009").replace(".", ",").replace("\u2009", ".") if spanish else text

    return number
