"""Issue 19: a workbook sheet's XML made a block of rows at a time (excel._sheet_parts) is the very text the
writer made whole before, kept here verbatim as the reference; the pieces stay small whatever the table, and the
workbook written from them reads back."""
from __future__ import annotations

import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from brecha.report import excel
from brecha.report.excel import _cells_and_first, _sheet_parts, _text_cell, write_xlsx


def whole_sheet(df: pd.DataFrame, freeze: bool = True, header: bool = True, extra_rows=(), made=None) -> str:
    """The sheet as the writer made it before (d2a7d35), all of it at once: the reference."""
    if df.attrs:
        df = df.copy(deep=False)
        df.attrs = {}
    cols, widths = [], []
    for name, series in df.items():
        cells, first = _cells_and_first(series, made)
        cols.append([c or "<c/>" for c in cells])
        sample = max((len(str(v)) for v in first), default=0)
        widths.append(min(max(len(str(name)), sample) + 2, 60))
    rows = []
    r = 1
    for extra in extra_rows:
        rows.append(f'<row r="{r}">{_text_cell(str(extra), 1)}</row>')
        r += 1
    if header:
        rows.append(f'<row r="{r}">' + "".join(_text_cell(str(c), 1) for c in df.columns) + "</row>")
        r += 1
    for cells in zip(*cols) if cols else ():
        rows.append(f'<row r="{r}">' + "".join(cells) + "</row>")
        r += 1
    pane = ('<sheetViews><sheetView workbookViewId="0"><pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" '
            'state="frozen"/></sheetView></sheetViews>') if freeze else \
        '<sheetViews><sheetView workbookViewId="0"/></sheetViews>'
    colxml = "".join(f'<col min="{i + 1}" max="{i + 1}" width="{w}" customWidth="1"/>' for i, w in enumerate(widths))
    colxml = f"<cols>{colxml}</cols>" if colxml else ""
    return ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
            '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
            f"{pane}{colxml}<sheetData>{''.join(rows)}</sheetData></worksheet>")


def mixed_table(rows: int) -> pd.DataFrame:
    """Every kind of column the report's tables hold, with missing values, repeats and awkward text."""
    rng = np.random.default_rng(7)
    late_na = pd.array([True, False] * (rows // 2) + [True] * (rows % 2), dtype="boolean")
    if rows > 1000:
        late_na[rows - 3] = pd.NA  # a missing value only in the last block: written as text in every block
    df = pd.DataFrame({
        "unit": pd.array([f"{i % 97:05d}" for i in range(rows)], dtype="string"),
        "name": pd.array([None if i % 53 == 0 else ["Ñuñoa", "A & B", " lead", "<x>", "\x01bad"][i % 5]
                          for i in range(rows)], dtype="string[pyarrow]"),
        "rate": np.where(rng.random(rows) < 0.05, np.nan, rng.gamma(2.0, 3.0, rows)),
        "events": pd.array([None if i % 41 == 0 else i % 13 for i in range(rows)], dtype="Int64"),
        "whole": np.arange(rows, dtype=np.int64) * 1000,
        "flag": rng.random(rows) < 0.5,
        "maybe": late_na,
        "always": pd.array([i % 3 == 0 for i in range(rows)], dtype="boolean"),
        "kind": pd.Categorical([["low", "high", None][i % 3] for i in range(rows)]),
        "objects": pd.Series([[1.5, "text", None, 2, np.nan][i % 5] for i in range(rows)], dtype=object),
        "tiny": np.where(np.arange(rows) % 7 == 0, -0.0, 1e-300 * np.arange(rows)),
    })
    df.attrs["notes"] = ["kept out of the cells"]
    return df


@pytest.mark.parametrize("rows", [0, 1, 64, 65, 99, 100, 101, 250, 1234, 5003])
@pytest.mark.parametrize("row_cells", [1, 1100, 3000, excel.ROW_CELLS])
def test_the_sheet_made_in_blocks_is_the_sheet_made_whole(monkeypatch, rows, row_cells):
    """Blocks of one row and more, a short last block, a boolean column with a missing value in the last
    block only (the whole column is text: each column's cells are made for the whole column)."""
    monkeypatch.setattr(excel, "ROW_CELLS", row_cells)
    df = mixed_table(rows)
    for kwargs in ({}, {"freeze": False, "extra_rows": ["Title", "Caveats: a & b", ""]}, {"header": False}):
        most, pieces = _sheet_parts(df, made={}, **kwargs)
        text = "".join(pieces)
        assert text == whole_sheet(df, made={}, **kwargs)
        assert len(text) <= most <= len(text) + 8 * len(df)  # the row numbers' digits counted at their most


def test_a_repeated_column_name_and_the_shared_text_cells(monkeypatch):
    monkeypatch.setattr(excel, "ROW_CELLS", 1)
    df = mixed_table(450)[["unit", "name", "maybe"]]
    df.columns = ["unit", "unit", "maybe"]
    made_blocks, made_whole = {}, {}
    assert "".join(_sheet_parts(df, made=made_blocks)[1]) == whole_sheet(df, made=made_whole)
    assert made_blocks == made_whole  # the workbook's shared text cells: the same ones made


def test_the_pieces_stay_small_whatever_the_table():
    """The text does not grow with the table: no piece holds more than ROW_CELLS cells' rows (made whole, the
    rows, their joined text and its bytes were three copies of the sheet)."""
    df = mixed_table(30_000)
    pieces = list(_sheet_parts(df, made={})[1])
    step = excel.ROW_CELLS // df.shape[1]
    assert len(pieces) == -(-len(df) // step) + 1  # the blocks, then the end
    biggest = max(len(p) for p in pieces)
    assert biggest < sum(len(p) for p in pieces) / 5
    assert pieces[0].count("<row ") == step + 1  # the header and the first block
    assert pieces[-1] == "</sheetData></worksheet>"


def test_the_workbook_written_from_the_pieces_reads_back(tmp_path, monkeypatch):
    monkeypatch.setattr(excel, "ROW_CELLS", 2000)
    big, small = mixed_table(2500), mixed_table(3)
    path = write_xlsx({"contents": small, "big": big, "empty": big.iloc[:0]}, tmp_path / "w.xlsx",
                      first_sheet_rows=["Title"])
    with zipfile.ZipFile(path) as z:
        assert z.testzip() is None
        texts = {name: z.read(name).decode("utf-8") for name in z.namelist()}
    made: dict = {}  # the sheets after the first are written first, sharing their text cells
    assert texts["xl/worksheets/sheet2.xml"] == whole_sheet(big, made=made)
    assert texts["xl/worksheets/sheet3.xml"] == whole_sheet(big.iloc[:0], made=made)
    assert texts["xl/worksheets/sheet1.xml"] == whole_sheet(small, freeze=False, extra_rows=["Title"], made=made)
    ns = {"m": "http://schemas.openxmlformats.org/spreadsheetml/2006/main"}
    rows = ET.fromstring(texts["xl/worksheets/sheet2.xml"]).findall(".//m:row", ns)
    assert len(rows) == 2501 and [r.get("r") for r in rows[:2]] == ["1", "2"] and rows[-1].get("r") == "2501"
    assert all(len(r) == big.shape[1] for r in rows)  # every cell written, empty ones as <c/>


def test_the_zip64_extension_only_when_a_sheet_could_need_it(tmp_path, monkeypatch):
    """Excel reads a workbook whose members carry the zip64 extension without needing it as damaged (Apache
    POI bug 57342): a member's header is written before its size is known, so the extension is asked for only
    when the text could pass zipfile's limit (4 bytes a character at most)."""
    sheets = {"contents": mixed_table(3), "big": mixed_table(2500)}
    path = write_xlsx(sheets, tmp_path / "plain.xlsx")
    with zipfile.ZipFile(path) as z:
        assert {(i.extract_version, i.extra) for i in z.infolist()} == {(20, b"")}
    assert b"PK\x06\x06" not in path.read_bytes()  # no zip64 end of the directory either
    monkeypatch.setattr(zipfile, "ZIP64_LIMIT", 4 * 500_000)  # the big sheet could now pass it
    path = write_xlsx(sheets, tmp_path / "wide.xlsx")
    with zipfile.ZipFile(path) as z:
        big = z.getinfo("xl/worksheets/sheet2.xml")
        assert big.extract_version == 45 and z.getinfo("xl/worksheets/sheet1.xml").extract_version == 20
        assert z.read("xl/worksheets/sheet2.xml").decode("utf-8") == whole_sheet(sheets["big"], made={})


def test_the_same_tables_give_the_same_workbook_bytes(tmp_path):
    """Every member is dated 1980-01-01 (zipfile's date for a member opened by name), so writing the same
    tables again gives the same file, and its members are those of a workbook written in one go."""
    sheets = {"contents": mixed_table(3), "big": mixed_table(1500), "small": mixed_table(70)}
    first = write_xlsx(sheets, tmp_path / "a.xlsx", first_sheet_rows=["Title"]).read_bytes()
    second = write_xlsx(sheets, tmp_path / "b.xlsx", first_sheet_rows=["Title"]).read_bytes()
    assert first == second
    with zipfile.ZipFile(tmp_path / "a.xlsx") as z:
        assert {i.date_time for i in z.infolist()} == {(1980, 1, 1, 0, 0, 0)}
        assert z.testzip() is None
    ahead = excel.write_sheets([sheets["big"]], tmp_path / "ahead.zip")  # the first tables' child
    assert ahead == 1
    finished = write_xlsx(sheets, tmp_path / "c.xlsx", first_sheet_rows=["Title"],
                          written=(Path(tmp_path / "ahead.zip"), 1))
    with zipfile.ZipFile(finished) as z, zipfile.ZipFile(tmp_path / "a.xlsx") as whole:
        assert sorted(z.namelist()) == sorted(whole.namelist())
        assert all(z.read(n) == whole.read(n) for n in whole.namelist())


@pytest.mark.parametrize("rows", [0, 5, 64, 65, 700])
def test_an_empty_cell_given_its_text_by_the_column_is_the_cell_replaced_row_by_row(rows):
    """_column_cells(empty="<c/>") puts the empty cell among a long column's distinct cells (not a pass over
    every row): the same list as replacing each '' afterwards, on every kind of column."""
    from brecha.report.excel import _column_cells

    df = mixed_table(rows)
    for name in df.columns:
        plain = _column_cells(df[name], {})
        assert _column_cells(df[name], {}, empty="<c/>") == [c or "<c/>" for c in plain], name
