"""Issue 19: the report's tables for reading (brecha.report.html.table_html) have their rows' markup made in
Python, no longer by the template's loop over every cell; the page is the same text as the loop gave."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from markupsafe import Markup

from brecha.report import html
from brecha.report.formatting import localise
from brecha.report.labels import cell_label


def fmt_number(value, column: str, lang: str) -> str:
    """The reference: brecha.report.formatting.fmt_number as it was written before the column's rule was chosen
    once (number_formatter, issue 19 part O), every branch decided again for each value."""
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA:
        return "–"
    try:
        v = float(value)
    except (TypeError, ValueError):
        return str(value)
    if not np.isfinite(v):
        return "–"
    col = column.lower()
    if col in ("p_value", "p", "pvalue") or col.endswith("_p_value"):
        text = "<0.001" if v < 0.001 else f"{v:.3f}"
    elif col in ("year", "first_year", "last_year") or col.endswith("_year"):
        return str(int(v))
    elif float(v).is_integer() and (col in ("events", "births", "deaths", "n", "n_years", "n_units", "rows",
                                            "df", "count", "nobs", "n_obs") or col.endswith(("births", "events",
                                                                                              "deaths", "_n"))):
        text = f"{int(v):,}"
    elif abs(v) >= 1000:
        text = f"{v:,.0f}"
    elif abs(v) >= 100:
        text = f"{v:,.1f}"
    elif abs(v) >= 1 or v == 0:
        text = f"{v:,.2f}"
    else:
        text = f"{v:.3g}"
    return localise(text, lang)

# the rows as the template wrote them before (trim_blocks, lstrip_blocks, autoescape, html._finalize)
LOOP = ('{%- for row in rows %}<tr>{% for numeric, text in row %}{% if numeric %}<td class="n">{{ text }}</td>'
        '{% else %}<td>{{ text }}</td>{% endif %}{% endfor %}</tr>{% endfor -%}')


def rows_by_the_loop(df: pd.DataFrame, lang: str, value_labels=None) -> str:
    """The ``<tbody>`` the template's loop made, from the cells computed as table_html computed them."""
    numeric = {c: pd.api.types.is_numeric_dtype(df[c]) and not pd.api.types.is_bool_dtype(df[c]) for c in df}
    labels = value_labels or {}
    rows = []
    for row in df.itertuples(index=False, name=None):
        cells = []
        for c, v in zip(df.columns, row):
            if numeric[c]:
                cells.append((True, fmt_number(v, c, lang)))
            else:
                text = "" if v is None or (isinstance(v, float) and np.isnan(v)) or v is pd.NA else str(v)
                cells.append((False, labels.get(text) or cell_label(c, text, lang)))
        rows.append(cells)
    return html._environment().from_string(LOOP).render(rows=rows)


@pytest.mark.parametrize("lang", ["es", "en"])
def test_the_rows_are_the_loops_text(lang):
    df = pd.DataFrame({
        "unit": ["13132", "A & B <x>", None, 'say "hi"'],
        "name": pd.Series(["Ñuñoa", "O'Higgins", "", None], dtype="str"),
        "estimate": [8.123456, np.nan, 0.0004, 12345.6],
        "births": pd.array([1200, None, 3, 10_000_000], dtype="Int64"),
        "p_value": [0.0001, 0.2, np.nan, 1.0],
        "flag": ["high", "zero_births;lower_clipped", "", "low"],
        "method": ["exact", "wilson", "exact-poisson (Spiegelhalter 2005)", "other"],
        "ok": [True, False, True, False],
        "year": [2000, 2001, 2002, 2003],
    })
    table = html.table_html(df, lang, value_labels={"other": Markup("<em>marked</em>")})
    body = table.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    assert body == rows_by_the_loop(df, lang, {"other": Markup("<em>marked</em>")})
    assert "A &amp; B &lt;x&gt;" in body and "<em>marked</em>" in body and "&quot;hi&quot;" in body
    assert body.count("<tr>") == 4 and body.count('<td class="n">') == 4 * 4


def test_an_empty_table_has_an_empty_body():
    table = html.table_html(pd.DataFrame({"unit": pd.Series([], dtype=str), "estimate": []}), "en")
    assert "<tbody></tbody>" in table


def test_the_default_reports_tables_are_the_loops_text(default_report):
    """Every table of the default Chilean report's page (English), as the loop wrote it."""
    report, _out = default_report
    shown = 0
    for name, (df, _title) in report.tables.items():
        if len(df) > 400 or not len(df.columns):
            continue
        table = html.table_html(df, "en")
        body = table.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
        assert body == rows_by_the_loop(df, "en"), name
        shown += 1
    assert shown > 20


COLUMNS = ["estimate", "p_value", "p", "pvalue", "trend_p_value", "year", "first_year", "last_year", "base_year",
           "events", "births", "deaths", "n", "n_years", "n_units", "rows", "df", "count", "nobs", "n_obs",
           "reference_births", "excess_events", "group_n", "Births", "rate", "ratio"]
VALUES = [None, pd.NA, np.nan, float("nan"), np.float64("nan"), float("inf"), -np.inf, 0.0, -0.0, 0, 1, -1,
          0.0004, 0.001, 0.00099999, 0.5, 0.9999, 1.0, 2.5, 99.994, 99.995, 100.0, 123.45, 999.95, 1000.0,
          12345.678, -12345.678, 1e15, 1.5e-7, -3e-5, 2000, 2000.0, np.int64(5570), np.float64(7.25),
          np.float32(0.1), True, "text", "1,5"]


@pytest.mark.parametrize("lang", ["es", "en"])
def test_the_column_formatter_gives_the_earlier_fmt_numbers_text(lang):
    """number_formatter (the rule chosen once per column), and fmt_number made from it, give the text the
    earlier fmt_number gave (the reference above) for every kind of value and column."""
    from brecha.report import formatting

    for column in COLUMNS:
        number = formatting.number_formatter(column, lang)
        for value in VALUES:
            want = fmt_number(value, column, lang)
            assert number(value) == want and formatting.fmt_number(value, column, lang) == want, (column, value)


@pytest.mark.parametrize("lang", ["es", "en"])
def test_repeated_text_cells_and_numbers_in_spanish_and_english(lang):
    """Text cells repeated down a column (made once per column) and numbers of every rule, in both
    languages, are the loop's text; a column whose label is Markup is not escaped, other text is."""
    rng = np.random.default_rng(7)
    n = 60
    df = pd.DataFrame({
        "method": rng.choice(["exact", "wilson", "exact-poisson (Spiegelhalter 2005)", "x < y & z"], n),
        "flag": rng.choice(["", "high", "low;zero_births"], n),
        "name": pd.Series(rng.choice(["Ñuñoa", "O'Higgins", "Aysén"], n), dtype="str"),
        "rate": rng.normal(0, 2000, n),
        "p_value": rng.random(n) / 100,
        "births": pd.array(rng.integers(0, 10**6, n), dtype="Int64"),
        "year": rng.integers(2000, 2016, n).astype(float),
    })
    df.loc[3, "rate"] = np.nan
    df.loc[5, "births"] = pd.NA
    labels = {"high": Markup("<b>high</b>")}
    body = html.table_html(df, lang, value_labels=labels).split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    assert body == rows_by_the_loop(df, lang, labels)
    assert "x &lt; y &amp; z" in body and "<b>high</b>" in body and "O&#x27;Higgins" in body
