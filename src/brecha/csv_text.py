"""CSV files with the same bytes as ``df.to_csv(path, index=False)``, written faster: the report's
``tables/*.csv`` and every ``-o FILE.csv`` of the command line (whole tables, :func:`write_csv`, and the big
tables written piece by piece, :func:`write_piece`).

Why not pandas' writer as is (issue 19): it hands every cell to Python's ``csv`` module one row at a time
(about 1.2 µs a cell: 0.8 s of CPU for the default Chilean report's 620,000 cells, 1.4 s for the
Brazilian; 8.2 s for ``brecha disparity --example brazil --reference best -o gap.csv``, whose table of
445,680 rows took 0.7 s to compute). Here each column becomes its text in one step (numbers by the same
numpy conversion pandas uses, ``astype(str)``; a text or category column each distinct value once, quoted
once) and the rows are joined as strings. pyarrow's CSV writer is not an option: it quotes every text cell
and writes ``1.0`` as ``1`` and ``3.5e-05`` as ``0.000035``, so the files would change.

The rules reproduced are those of ``to_csv``'s defaults: ``,`` between cells, a line end of
``os.linesep``, an empty cell for a missing value, a float as numpy's shortest text (``astype(str)``), a
text cell quoted (``"``, inner quotes doubled) only when it holds ``,`` or ``"`` (``csv.QUOTE_MINIMAL``),
other objects as ``str`` (a Python float as ``repr``). A table outside them (a cell or column name with a
line break, a single column, column names that are not text, a dtype not listed in :func:`_column_text`)
is written by ``to_csv`` itself: the file is always ``to_csv``'s (``tests/report/test_csv_text.py`` compares
both on every table of both example reports, on the command line's files and on tables made to break it).
"""
from __future__ import annotations

import os

import numpy as np
import pandas as pd

from . import text_rows


class _Unsupported(Exception):
    """A table this writer does not reproduce: ``to_csv`` writes it."""


CHUNK_CELLS = 100_000  # cells made into text at a time: about 8 MB of Python strings, whatever the table (issue 19:
# 500,000 before; the default Chilean report's first tables then took 14,700 fresh pages in the child writing
# them, 9,300 now, at the same CPU)


def write_csv(df: pd.DataFrame, path) -> None:
    """Write ``df`` to ``path`` exactly as ``df.to_csv(path, index=False)`` does."""
    with open(path, "w", encoding="utf-8", newline="") as f:
        write_piece(df, f, header=True)


def write_piece(df: pd.DataFrame, handle, header: bool) -> None:
    """Write ``df`` into the open text file ``handle`` (opened with ``newline=""``) exactly as
    ``df.to_csv(handle, index=False, header=header)`` does: a whole table, or one piece of a table written
    piece by piece.

    The rows are made into text :data:`CHUNK_CELLS` cells at a time, so memory does not grow with the table
    (the whole text of Brazil's 445,680-row disparity table is 214 MB, and its cells as Python strings more
    than twice that). A CSV row does not depend on the others, so a block this writer does not reproduce
    (a line break in one cell) is written by ``to_csv`` alone and the file is still ``to_csv``'s."""
    rows = max(1, CHUNK_CELLS // max(1, df.shape[1]))
    for start in range(0, max(len(df), 1), rows):
        block = df.iloc[start:start + rows]
        first = header and start == 0
        try:
            text = csv_text(block, header=first)
        except _Unsupported:
            block.to_csv(handle, index=False, header=first)
            continue
        handle.write(text)


def csv_text(df: pd.DataFrame, header: bool = True) -> str:
    """The text ``df.to_csv(index=False, header=header)`` returns; raises :class:`_Unsupported` for a table
    it does not reproduce.

    Each column becomes its distinct cells' text (made once each in Python) and, for every row, the
    position of its cell; :mod:`brecha.text_rows` takes them row by row and joins each row's cells with
    ``,`` (the line end is part of the last cell)."""
    if df.shape[1] < 2 or not all(isinstance(c, str) for c in df.columns):
        raise _Unsupported  # one column: csv writes an empty cell as ""; other names: pandas' own rules
    end = os.linesep
    names = ",".join(_quoted(c) for c in df.columns) + end if header else ""
    if not len(df):
        return names
    if df.attrs:  # pandas deep-copies a table's attrs into every column taken from it: none here instead
        df = df.copy(deep=False)
        df.attrs = {}
    if len(df) <= SMALL_ROWS:
        return names + _small_text(df, end)
    columns = []
    for i, (_name, series) in enumerate(df.items()):  # by position: a name may repeat
        cells, positions = _column_cells(series)
        if i == df.shape[1] - 1:
            cells = [cell + end for cell in cells]  # the line end rides on the last cell of each row
        columns.append(text_rows.column(cells, positions))
    return names + text_rows.joined(columns, ",")


SMALL_ROWS = 64  # a table this short is joined in Python: Arrow's set-up per column costs more than it saves


def _small_text(df: pd.DataFrame, end: str) -> str:
    """The rows of a short table (:data:`SMALL_ROWS`), joined in Python: its columns' cells are made row by
    row (:func:`_column_cells`), since pandas' factorize costs 0.05-0.2 ms a column whatever its length and
    the report's 38 tables are mostly a few rows by 10-30 columns (to_csv's bytes either way:
    ``tests/report/test_csv_text.py``)."""
    columns = []
    for _name, series in df.items():
        cells, positions = _column_cells(series)  # a short column's: one cell per row (positions None)
        columns.append(cells if positions is None else [cells[p] for p in positions.tolist()])
    return "".join(",".join(row) + end for row in zip(*columns))


def _quoted(text: str) -> str:
    if "\n" in text or "\r" in text:
        raise _Unsupported  # csv's rule for line breaks depends on the Python version: pandas writes it
    if "," in text or '"' in text:
        return '"' + text.replace('"', '""') + '"'
    return text


def _cell(value) -> str:
    """One present cell of an object column as the csv module writes it (a float by ``repr``, else ``str``)."""
    return _quoted(repr(value) if isinstance(value, float) else str(value))


def _object_cells(values: np.ndarray, short: bool = False) -> tuple[list, np.ndarray | None]:
    """Cells of an array of Python objects: missing (``pd.isna``, as ``to_csv``) empty; when every value is
    text and the column is not ``short``, each distinct value's cell once and the rows' positions in them (a
    name repeats on every year of its unit), else one cell per row (positions None)."""
    missing = pd.isna(values)
    if not short and pd.api.types.infer_dtype(values, skipna=True) in ("string", "empty"):
        values = values.copy()
        values[missing] = None
        codes, uniques = pd.factorize(values, use_na_sentinel=True)
        cells = [_quoted(v) for v in uniques.tolist()]
        codes[codes < 0] = len(cells)  # None: the empty cell at the end
        return cells + [""], codes
    return ["" if m else _cell(v) for v, m in zip(values.tolist(), missing.tolist())], None


def _distinct(values: np.ndarray, missing=None) -> tuple[list, np.ndarray]:
    """numpy's text (``astype(str)``, what to_csv writes for a numpy column) of each distinct value once, and
    the rows' positions in them; ``missing`` rows point to an empty cell at the end."""
    codes, uniques = pd.factorize(values)
    cells = uniques.astype(str).tolist()
    if missing is not None and missing.any():
        codes = codes.copy()
        codes[missing] = len(cells)
        cells.append("")
    return cells, codes


def _column_cells(series: pd.Series) -> tuple[list, np.ndarray | None]:
    """One column's cells as text, quoted where needed: its distinct cells and each row's position in them
    (None: one cell per row). A numpy or text column of at most :data:`SMALL_ROWS` rows has one cell per row,
    made without finding its distinct values first."""
    dtype = series.dtype
    short = len(series) <= SMALL_ROWS
    if dtype == np.float64 and short:
        return ["" if v != v else repr(v) for v in series.to_numpy().tolist()], None
    if dtype == np.float64:
        # numpy's text of each distinct number once (a rate of 0, the confidence level repeat); distinct by
        # their bits, so -0.0 keeps its sign as in to_csv
        codes, bits = pd.factorize(series.to_numpy().view(np.int64))
        uniques = bits.view(np.float64)
        # what to_csv does with a numpy float column is numpy's text (astype(str)); for a float64 that is
        # Python's repr, the shortest text that reads back to the same float (the same on millions of random
        # bit patterns, tests/report/test_csv_text.py), made a third faster from Python floats (issue 19)
        text = list(map(repr, uniques.tolist()))
        for i in np.flatnonzero(np.isnan(uniques)).tolist():
            text[i] = ""
        return text, codes
    if isinstance(dtype, np.dtype) and dtype.kind in "iub":  # what to_csv does with a numpy integer or boolean column
        return (series.to_numpy().astype(str).tolist(), None) if short else _distinct(series.to_numpy())
    if isinstance(dtype, pd.CategoricalDtype):
        if dtype.categories.dtype.kind in "mM":
            raise _Unsupported  # pandas formats dates of categories its own way
        cells, codes = _object_cells(dtype.categories.to_numpy(dtype=object))
        if codes is not None:
            cells = [cells[c] for c in codes.tolist()]
        codes = series.cat.codes.to_numpy().astype(np.int64)
        codes[codes < 0] = len(cells)  # a missing value: the empty cell at the end
        return cells + [""], codes
    if isinstance(dtype, pd.api.extensions.ExtensionDtype) and dtype.kind in "iu":  # Int64 and kin
        missing = series.isna().to_numpy()
        return _distinct(series.to_numpy(dtype="int64" if dtype.kind == "i" else "uint64", na_value=0), missing)
    if isinstance(dtype, pd.StringDtype) or dtype == object:
        return _object_cells(series.to_numpy(dtype=object), short)
    raise _Unsupported
