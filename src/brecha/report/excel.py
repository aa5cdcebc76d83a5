"""An Excel workbook with every table of the report (one sheet each) and a contents sheet first.

The .xlsx is written directly (a zip of SpreadsheetML parts, inline strings): openpyxl needs about
10 s for the default report's 450,000 cells, this writer well under one. Each sheet has a bold,
frozen header row and column widths fitted to the first rows. A report's first tables' sheets can be
written ahead into a zip of their own (:func:`write_sheets`, in a child: :mod:`brecha.report.files_ahead`)
and the workbook finished from it (:func:`write_xlsx` with ``written``).

Why not a library (issue 19 measured it): xlsxwriter 3.3 in constant-memory mode, writing the same
607,000 cells of the default Chilean report's tables with the same bold frozen headers and widths, took
7.2 s of CPU against 1.9 s for this writer then (1.5 s after its number cells were vectorised), and it writes
numbers with 16 significant digits (``{:.16G}``), so a float does not read back as the same float; this
writer writes ``repr`` (17 digits, exact).
"""
from __future__ import annotations

import re
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd

from .labels import L

_ILLEGAL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")


def escape(text: str, quote: bool = False) -> str:
    """``&``, ``<``, ``>`` (and ``"`` with ``quote``) as XML entities: what ``xml.sax.saxutils.escape``
    writes (with ``{'"': '&quot;'}``), without importing it (it loads ``urllib.request``, ``http.client``
    and ``email``: 25-40 ms of every report's start; issue 19)."""
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return text.replace('"', "&quot;") if quote else text


def sheet_names(names) -> dict[str, str]:
    """Unique sheet names of at most 31 characters without the characters Excel forbids."""
    out, used = {}, set()
    for name in names:
        base = re.sub(r"[\[\]:*?/\\]", "_", str(name))[:31] or "table"
        candidate, i = base, 2
        while candidate.lower() in used:
            suffix = f"_{i}"
            candidate = base[:31 - len(suffix)] + suffix
            i += 1
        used.add(candidate.lower())
        out[name] = candidate
    return out


def _text_cell(value: str, style: int = 0) -> str:
    text = escape(_ILLEGAL.sub("", value))
    s = f' s="{style}"' if style else ""
    space = ' xml:space="preserve"' if text[:1].isspace() or text[-1:].isspace() else ""
    return f'<c t="inlineStr"{s}><is><t{space}>{text}</t></is></c>'


SHORT = 64  # a column this short has its cells made row by row: finding its distinct values first costs more


def _column_cells(series: pd.Series, made: dict | None = None, empty: str = "") -> list[str]:
    """The XML of every cell of one column (``empty`` for an empty cell: '' unless asked, the sheet writes
    ``<c/>``; a long column puts it among its distinct cells, not on each row). ``made``: the text cells made so far in
    this workbook (text -> XML), shared by its sheets: every table of a report repeats the units' codes and
    names (Brazil: 5,570 of each in six tables, 73,000 text cells escaped where 18,000 are distinct).

    A numpy column is recognised by its dtype's kind, not by pandas' dtype checks, and a column of at most
    :data:`SHORT` rows has its cells made row by row, without ``factorize`` (in pandas 3 each of these costs
    0.02-0.2 ms a column whatever its length, and the report's tables are mostly a few rows by 10-30
    columns; issue 19)."""
    made = {} if made is None else made
    dtype = series.dtype
    if isinstance(dtype, np.dtype) and dtype.kind == "b":
        return [f'<c t="b"><v>{int(v)}</v></c>' for v in series.to_numpy().tolist()]  # never empty
    if isinstance(dtype, np.dtype) and dtype.kind in "iuf":
        values = series.to_numpy().astype(np.float64)
    elif pd.api.types.is_bool_dtype(series) and not series.isna().any():
        return [f'<c t="b"><v>{int(v)}</v></c>' for v in series.to_numpy()]
    elif pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series):
        values = np.asarray(series.astype("float64").to_numpy(na_value=np.nan) if hasattr(series, "array")
                            else series, dtype="float64")
    else:
        values = None
    if values is not None:
        if len(values) <= SHORT:
            return [c or empty for c in _number_cells(values)]
        # each distinct number's cell made once (a rate of 0, a count, the confidence level repeat; distinct
        # by their bits, so -0.0 is made as before), then taken for every row (issue 19)
        codes, bits = pd.factorize(values.view(np.int64))
        cells = [c or empty for c in _number_cells(bits.view(np.float64))]
        return [cells[c] for c in codes.tolist()]
    if pd.api.types.is_string_dtype(series) and series.dtype != object:  # text: each distinct value once
        if len(series) <= SHORT:
            texts = series.to_numpy(dtype=object)
            return [empty if m else made.get(v) or made.setdefault(v, _text_cell(v))
                    for v, m in zip(map(str, texts.tolist()), pd.isna(texts).tolist())]
        codes, uniques = pd.factorize(series)  # a missing value is code -1: an empty cell
        cells = [made.get(v) or made.setdefault(v, _text_cell(v))
                 for v in map(str, np.asarray(uniques, dtype=object).tolist())] + [empty]
        return [cells[c] for c in codes.tolist()]
    if isinstance(series.dtype, pd.CategoricalDtype):  # each category's cell once, then taken for every row
        cells = [c or empty for c in _object_cells(series.cat.categories.to_numpy(dtype=object), made)] + [empty]
        return [cells[c] for c in series.cat.codes.tolist()]
    cells = _object_cells(series.astype(object).to_numpy(), made)
    return [c or empty for c in cells] if empty else cells


def _cells_and_first(series: pd.Series, made: dict | None, empty: str = "") -> tuple[list[str], list]:
    """:func:`_column_cells` of ``series`` and its first 50 values as Python objects (what the column's width
    is measured on; a numpy column's taken from its array, without a ``head`` Series)."""
    dtype = series.dtype
    first = series.to_numpy()[:50].tolist() if isinstance(dtype, np.dtype) and dtype.kind in "biuf" \
        else series.iloc[:50].tolist()
    return _column_cells(series, made, empty), first


def _number_cells(values: np.ndarray) -> list[str]:
    """The cell of each number: a whole number below 1e15 as an integer, another finite one by ``repr``
    (17 digits, exact), a missing or infinite one empty."""
    # the kind of each cell decided in numpy, the text made from Python floats (``tolist``): iterating
    # numpy scalars one by one cost most of the workbook's time (issue 19)
    finite = np.isfinite(values)
    whole = finite & (np.abs(values) < 1e15)
    whole[whole] = values[whole] == np.floor(values[whole])
    kind = np.where(whole, 1, np.where(finite, 2, 0)).tolist()
    return [f"<c><v>{int(v)}</v></c>" if k == 1 else f"<c><v>{v!r}</v></c>" if k == 2 else ""
            for v, k in zip(values.tolist(), kind)]


def _object_cells(values, made: dict | None = None) -> list[str]:
    """Cells of a column of Python objects: each distinct (type, value) made once (a name or a method repeats
    on every row; escaping each cell anew was most of the workbook's time, issue 19); ``made`` as in
    :func:`_column_cells` (keyed by type and value here)."""
    made = {} if made is None else made
    out = []
    for v in values:
        try:
            key = (v.__class__, v)
            cell = made.get(key)
        except TypeError:  # an unhashable value: made for itself
            key, cell = None, None
        if cell is None:
            cell = "" if (v is None or v is pd.NA or (isinstance(v, float) and v != v)) else _text_cell(str(v))
            if key is not None:
                made[key] = cell
        out.append(cell)
    return out


def _col_letter(i: int) -> str:
    s = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        s = chr(65 + r) + s
    return s


ROW_CELLS = 50_000  # cells joined into rows at a time (about 2 MB of text): the text does not grow with the table


def _sheet_parts(df: pd.DataFrame, freeze: bool = True, header: bool = True, extra_rows=(), made=None):
    """The sheet's XML in pieces: ``(most, pieces)``, ``most`` at least the text's length in characters (for
    the zip's header, :func:`_write_part`) and ``pieces`` its head and first rows, then its rows
    :data:`ROW_CELLS` cells at a time, then its end. Each column's cells are made once, for the whole column
    (what a cell looks like may depend on the column: a nullable boolean column with a missing value is
    written as text); only the rows are joined a block at a time.

    Why in pieces (issue 19): made whole, a sheet's rows, their joined text and its UTF-8 bytes were three
    copies of the text (the default Chilean report's yearly gaps, 22,080 rows x 21 columns: 20 MB each, in
    a child that starts with none of that memory: about 15,000 fresh pages, 4-5 µs each on the machine
    measured); a block at a time, the same memory serves every block."""
    # an empty cell is written as <c/>: cells carry no reference, so leaving it out would move the next
    # values one column left (a suppressed count under 'events' showed the births there)
    if df.attrs:  # pandas deep-copies a table's attrs into every column taken from it: once here instead
        df = df.copy(deep=False)
        df.attrs = {}
    cols, widths = [], []
    for name, series in df.items():  # each column taken once (0.02-0.04 ms each in pandas 3)
        cells, first = _cells_and_first(series, made, empty="<c/>")
        cols.append(cells)
        sample = max((len(str(v)) for v in first), default=0)
        widths.append(min(max(len(str(name)), sample) + 2, 60))
    pane = ('<sheetViews><sheetView workbookViewId="0"><pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" '
            'state="frozen"/></sheetView></sheetViews>') if freeze else \
        '<sheetViews><sheetView workbookViewId="0"/></sheetViews>'
    colxml = "".join(f'<col min="{i + 1}" max="{i + 1}" width="{w}" customWidth="1"/>' for i, w in enumerate(widths))
    colxml = f"<cols>{colxml}</cols>" if colxml else ""
    head = ['<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
            '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
            f"{pane}{colxml}<sheetData>"]
    r = 1
    for extra in extra_rows:
        head.append(f'<row r="{r}">{_text_cell(str(extra), 1)}</row>')
        r += 1
    if header:
        head.append(f'<row r="{r}">' + "".join(_text_cell(str(c), 1) for c in df.columns) + "</row>")
        r += 1
    end = "</sheetData></worksheet>"
    row_tags = (len('<row r="">') + len("</row>") + len(str(r + len(df)))) * len(df)
    most = sum(map(len, head)) + sum(sum(map(len, col)) for col in cols) + row_tags + len(end)
    return most, _rows_in_blocks(head, cols, len(df), r, end)


def _rows_in_blocks(head: list, cols: list, count: int, r: int, end: str):
    """The pieces of :func:`_sheet_parts`: ``head`` with the first block of rows (numbered from ``r``), each
    further block, then ``end``."""
    rows = head
    step = max(1, ROW_CELLS // max(1, len(cols)))
    for start in range(0, count, step):
        for cells in zip(*(col[start:start + step] for col in cols)):
            rows.append(f'<row r="{r}">' + "".join(cells) + "</row>")
            r += 1
        yield "".join(rows)
        rows = []
    yield "".join(rows) + end


_STYLES = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
           '<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
           '<fonts count="2"><font><sz val="11"/><name val="Calibri"/></font>'
           '<font><b/><sz val="11"/><name val="Calibri"/></font></fonts>'
           '<fills count="2"><fill><patternFill patternType="none"/></fill>'
           '<fill><patternFill patternType="gray125"/></fill></fills>'
           '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>'
           '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>'
           '<cellXfs count="2"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>'
           '<xf numFmtId="0" fontId="1" fillId="0" borderId="0" xfId="0" applyFont="1"/></cellXfs>'
           '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles>'
           '</styleSheet>')


def _package_parts(names) -> list[tuple[str, str]]:
    """The workbook's own parts for sheets named ``names``: content types, relationships, workbook, styles."""
    ct = ['<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
          '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
          '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
          '<Default Extension="xml" ContentType="application/xml"/>'
          '<Override PartName="/xl/workbook.xml" '
          'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
          '<Override PartName="/xl/styles.xml" '
          'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>']
    ct += [f'<Override PartName="/xl/worksheets/sheet{i + 1}.xml" '
           'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>'
           for i in range(len(names))]
    ct.append("</Types>")
    rels = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
            '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
            '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/'
            'officeDocument" Target="xl/workbook.xml"/></Relationships>')
    wb = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
          '<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
          'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets>'
          + "".join(f'<sheet name="{escape(n, quote=True)}" sheetId="{i + 1}" r:id="rId{i + 1}"/>'
                    for i, n in enumerate(names))
          + "</sheets></workbook>")
    wbrels = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
              '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
              + "".join(f'<Relationship Id="rId{i + 1}" Type="http://schemas.openxmlformats.org/officeDocument/'
                        f'2006/relationships/worksheet" Target="worksheets/sheet{i + 1}.xml"/>'
                        for i in range(len(names)))
              + f'<Relationship Id="rId{len(names) + 1}" Type="http://schemas.openxmlformats.org/officeDocument/'
                '2006/relationships/styles" Target="styles.xml"/></Relationships>')
    return [("[Content_Types].xml", "".join(ct)), ("_rels/.rels", rels), ("xl/workbook.xml", wb),
            ("xl/_rels/workbook.xml.rels", wbrels), ("xl/styles.xml", _STYLES)]


def _open_zip(path, mode: str = "w") -> zipfile.ZipFile:
    return zipfile.ZipFile(path, mode, compression=zipfile.ZIP_DEFLATED, compresslevel=1)


def _write_part(z: zipfile.ZipFile, name: str, most: int, pieces) -> None:
    """The text ``pieces`` one after another as the zip's member ``name`` (UTF-8), each piece compressed as
    it comes; ``most``: at least the text's length in characters.

    The member's header is written before its size is known, so the zip's 64-bit extension is asked for only
    when the text could exceed zipfile's limit for a plain header (2 GiB: at most 4 bytes a character);
    Excel reads a workbook with that extension where it is not needed as damaged (Apache POI bug 57342).
    Every member is dated 1980-01-01, zipfile's default for a member opened by name: the workbook of the
    same tables is the same bytes from run to run (``writestr`` dated each member with the time of writing)."""
    with z.open(name, "w", force_zip64=4 * most > zipfile.ZIP64_LIMIT) as out:
        for piece in pieces:
            out.write(piece.encode("utf-8"))


def _add_sheets(z: zipfile.ZipFile, frames, first_number: int, made: dict) -> None:
    """``frames`` as the sheets numbered from ``first_number`` (not the first sheet: frozen header, no rows
    above it)."""
    for number, df in enumerate(frames, start=first_number):
        _write_part(z, f"xl/worksheets/sheet{number}.xml", *_sheet_parts(df, made=made))


def write_sheets(frames, path) -> int:
    """A zip holding ``frames`` as the sheets after a workbook's first (sheet2.xml, sheet3.xml, ...), for
    :func:`write_xlsx` to finish (``written``) once the rest is known; returns how many. (The report writes
    its first tables' sheets this way in a child while it goes on: :mod:`brecha.report.files_ahead`.)"""
    with _open_zip(path) as z:
        _add_sheets(z, frames, 2, {})
    return len(frames)


def write_xlsx(sheets: dict[str, pd.DataFrame], path: Path, *, first_sheet_rows=(), written=None) -> Path:
    """Write DataFrames as sheets (names already valid). ``first_sheet_rows`` go above the first table.

    The zip holds the sheets after the first, then the first, then the workbook's own parts (readers find
    the parts by the zip's directory, whatever their order). ``written``: the path of a zip made by
    :func:`write_sheets` with the first k of the sheets after the first, and k: it is copied and the rest
    added to it, so those sheets are not made again."""
    names = list(sheets)
    frames = [sheets[n] for n in names]
    done, mode = 0, "w"
    if written is not None:
        source, done = written
        shutil.copyfile(source, path)
        mode = "a"
    made: dict = {}  # text cells, shared by the sheets
    with _open_zip(path, mode) as z:
        _add_sheets(z, frames[1 + done:], 2 + done, made)
        if frames:
            _write_part(z, "xl/worksheets/sheet1.xml",
                        *_sheet_parts(frames[0], freeze=not first_sheet_rows, extra_rows=first_sheet_rows, made=made))
        for name, text in _package_parts(names):
            _write_part(z, name, len(text), [text])
    return path


def workbook_sheets(report) -> dict[str, pd.DataFrame]:
    """The workbook's sheets: the contents first, then every table of the report in its order."""
    names = sheet_names(["contents"] + list(report.tables))
    contents = pd.DataFrame({
        "sheet": [names[n] for n in report.tables],
        "table": [title for _df, title in report.tables.values()],
        "rows": [len(df) for df, _t in report.tables.values()],
    })
    sheets = {names["contents"]: contents}
    for name, (df, _title) in report.tables.items():
        sheets[names[name]] = df
    return sheets


def write_workbook(report, path: Path, written=None) -> Path:
    """The report's workbook; ``written`` as in :func:`write_xlsx` (the first tables' sheets, made ahead)."""
    lang = report.lang
    top = [report.title] + [f"{L('caveats', lang)}: {n}" for n in dict.fromkeys(report.notes)] + [""]
    return write_xlsx(workbook_sheets(report), Path(path), first_sheet_rows=top, written=written)
