"""Issue 19: the workbook's number cells, now decided in numpy, are the very text the cell-by-cell rule gives."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from brecha.report.excel import _column_cells


def one_by_one(series: pd.Series) -> list[str]:
    """The rule written cell by cell (as the writer did before): '' for NaN/inf, an integer without '.0'
    below 1e15, else repr."""
    out = []
    for v in series.astype("float64").to_numpy(na_value=np.nan):
        if v != v or v in (np.inf, -np.inf):
            out.append("")
        elif float(v).is_integer() and abs(v) < 1e15:
            out.append(f"<c><v>{int(v)}</v></c>")
        else:
            out.append(f"<c><v>{float(v)!r}</v></c>")
    return out


@pytest.mark.parametrize("series", [
    pd.Series([0.0, -0.0, 1.0, -3.0, 0.1 + 0.2, 1 / 3, np.nan, np.inf, -np.inf, 1e15, 1e15 - 1, -1e15, 2.5e-300,
               123456789.125, 5e-324, 1.7976931348623157e308]),
    pd.Series([1, 2, None, 40], dtype="Int64"),
    pd.Series([1.5, None, 2.0], dtype="Float64"),
    pd.Series(np.arange(-5, 5, dtype=np.int64)),
    pd.Series(np.random.default_rng(1).normal(0, 1e6, 5000)),
    pd.Series([], dtype=float),
    # repeated values (each distinct number's cell is made once, issue 19), signed zeros among them
    pd.Series(np.random.default_rng(2).choice([0.0, -0.0, 0.95, 1 / 3, np.nan, 7.0, -np.inf, 1e15], 3000)),
])
def test_number_cells_equal_the_cell_by_cell_rule(series):
    assert _column_cells(series) == one_by_one(series)


def test_cells_of_known_values():
    assert _column_cells(pd.Series([2.0, 0.5, np.nan])) == ["<c><v>2</v></c>", "<c><v>0.5</v></c>", ""]


def test_text_cells_shared_by_the_sheets_and_categories_read_as_their_values():
    """Text cells made once per workbook (``made`` shared by its columns and sheets) and a categorical column
    made once per category are the cells each value gives alone, row by row."""
    from brecha.report.excel import _object_cells

    names = ["Ñuñoa", "A & B", " lead", None, "Ñuñoa", "x<y"]
    alone = _object_cells(np.array(names, dtype=object))
    assert alone[1] == '<c t="inlineStr"><is><t>A &amp; B</t></is></c>' and alone[3] == ""
    made: dict = {}
    for series in (pd.Series(names, dtype="string"), pd.Series(names, dtype=object),
                   pd.Series(names, dtype="category"), pd.Series(names, dtype="string")):
        assert _column_cells(series, made) == alone
        assert _column_cells(series) == alone
    half = '<c t="inlineStr"><is><t>2.5</t></is></c>'
    assert _column_cells(pd.Series([2.5, None, 2.5], dtype="category")) == [half, "", half]


@pytest.mark.parametrize("text", ["", "plain", "a & b < c > d", "&amp; already", 'say "hi"', "it's", "<<&&>>",
                                  "ñandú & cóndor", "\u00a0 spaced \t"])
def test_escape_writes_what_xml_sax_saxutils_writes(text):
    """The workbook's own escape (xml.sax.saxutils not imported: it loads urllib.request and email)."""
    from xml.sax.saxutils import escape as sax_escape

    from brecha.report.excel import escape

    assert escape(text) == sax_escape(text)
    assert escape(text, quote=True) == sax_escape(text, {'"': "&quot;"})


@pytest.mark.parametrize("rows", [0, 1, 64, 65, 300])
def test_cells_and_first_values_as_the_column_rule_gives_them(rows):
    """A short column's cells (made row by row, excel.SHORT) are those the distinct-values path gives the same
    values in a long column, and its first 50 values those the width was measured on before."""
    from brecha.report.excel import SHORT, _cells_and_first

    rng = np.random.default_rng(rows)
    words = np.array(["Ñuñoa", "A & B", " lead", "x<y", "", "2.5"], dtype=object)
    text = np.where(rng.random(rows) < 0.2, None, rng.choice(words, rows)).tolist()
    columns = [
        pd.Series(rng.choice([0.0, -0.0, 0.5, 1 / 3, np.nan, np.inf, 7.0, 1e15], rows)),
        pd.Series(rng.integers(-9, 9, rows)),
        pd.Series(rng.integers(0, 9, rows).astype(np.uint8)),
        pd.Series(rng.random(rows).astype(np.float32)),
        pd.Series(rng.random(rows) < 0.5),
        pd.Series(text, dtype="str"),
        pd.Series(text, dtype="string"),
        pd.Series(text, dtype=object),
        pd.Series(text, dtype="category"),
        pd.Series(pd.array(np.where(rng.random(rows) < 0.3, None, rng.integers(0, 5, rows)).tolist(), dtype="Int64")),
    ]
    for series in columns:
        # the same values in a column long enough for the distinct-values path: the same cells row for row
        long = pd.concat([series] * (SHORT // max(len(series), 1) + 2), ignore_index=True)
        assert len(long) > SHORT or not len(series)
        made_short, made_long = {}, {}
        cells, first = _cells_and_first(series, made_short)
        assert cells == _column_cells(long, made_long)[:len(series)], series.dtype
        assert made_short == made_long
        assert [str(v) for v in first] == [str(v) for v in series.head(50).tolist()], series.dtype
