"""The report's ``tables/*.csv``: the same bytes as ``df.to_csv(path, index=False)``, written faster.

Why not pandas' writer as is (issue 19): it hands every cell to Python's ``csv`` module one row at a time
(about 1.2 µs a cell: 0.8 s of CPU for the default Chilean report's 620,000 cells, 1.4 s for the
Brazilian). Here each column becomes its text in one step (numbers by the same numpy conversion pandas
uses, ``astype(str)``; a text or category column each distinct value once, quoted once) and the rows are
joined as strings. pyarrow's CSV writer is not an option: it quotes every text cell and writes ``1.0`` as
``1`` and ``3.5e-05`` as ``0.000035``, so the files would change.

The rules reproduced are those of ``to_csv``'s defaults: ``,`` between cells, a line end of
``os.linesep``, an empty cell for a missing value, a float as numpy's shortest text (``astype(str)``), a
text cell quoted (``"``, inner quotes doubled) only when it holds ``,`` or ``"`` (``csv.QUOTE_MINIMAL``),
other objects as ``str`` (a Python float as ``repr``). A table outside them (a cell or column name with a
line break, a single column, column names that are not text, a dtype not listed in :func:`_column_text`)
is written by ``to_csv`` itself: the file is always ``to_csv``'s (``tests/report/test_csv_tables.py``
compares both on every table of both example reports and on tables made to break it).
"""
from __future__ import annotations

import os

import numpy as np
import pandas as pd


class _Unsupported(Exception):
    """A table this writer does not reproduce: ``to_csv`` writes it."""


def write_csv(df: pd.DataFrame, path) -> None:
    """Write ``df`` to ``path`` exactly as ``df.to_csv(path, index=False)`` does."""
    try:
        text = csv_text(df)
    except _Unsupported:
        df.to_csv(path, index=False)
        return
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(text)


def csv_text(df: pd.DataFrame) -> str:
    """The text ``df.to_csv(index=False)`` returns; raises :class:`_Unsupported` for a table it does not
    reproduce."""
    if df.shape[1] < 2 or not all(isinstance(c, str) for c in df.columns):
        raise _Unsupported  # one column: csv writes an empty cell as ""; other names: pandas' own rules
    end = os.linesep
    header = ",".join(_quoted(c) for c in df.columns)
    if not len(df):
        return header + end
    columns = [_column_text(df.iloc[:, i]) for i in range(df.shape[1])]
    return header + end + end.join(map(",".join, zip(*columns))) + end


def _quoted(text: str) -> str:
    if "\n" in text or "\r" in text:
        raise _Unsupported  # csv's rule for line breaks depends on the Python version: pandas writes it
    if "," in text or '"' in text:
        return '"' + text.replace('"', '""') + '"'
    return text


def _cell(value) -> str:
    """One present cell of an object column as the csv module writes it (a float by ``repr``, else ``str``)."""
    return _quoted(repr(value) if isinstance(value, float) else str(value))


def _object_text(values: np.ndarray) -> list[str]:
    """Cells of an array of Python objects: missing (``pd.isna``, as ``to_csv``) empty; text made once per
    distinct value when every value is text (a name repeats on every year of its unit)."""
    missing = pd.isna(values)
    if pd.api.types.infer_dtype(values, skipna=True) in ("string", "empty"):
        values = values.copy()
        values[missing] = None
        codes, uniques = pd.factorize(values, use_na_sentinel=True)  # None: code -1, the last cell
        cells = [_quoted(v) for v in uniques.tolist()] + [""]
        return [cells[c] for c in codes.tolist()]
    return ["" if m else _cell(v) for v, m in zip(values.tolist(), missing.tolist())]


def _column_text(series: pd.Series) -> list[str]:
    """Every cell of one column as text, quoted where needed."""
    dtype = series.dtype
    if dtype == np.float64:
        # numpy's text of each distinct number once (a rate of 0, the confidence level repeat); distinct by
        # their bits, so -0.0 keeps its sign as in to_csv
        codes, bits = pd.factorize(series.to_numpy().view(np.int64))
        uniques = bits.view(np.float64)
        text = uniques.astype(str).astype(object)  # what to_csv does with a numpy float column
        text[np.isnan(uniques)] = ""
        return text[codes].tolist()
    if isinstance(dtype, np.dtype) and dtype.kind in "iub":
        return series.to_numpy().astype(str).tolist()  # what to_csv does with a numpy integer column
    if isinstance(dtype, pd.CategoricalDtype):
        if dtype.categories.dtype.kind in "mM":
            raise _Unsupported  # pandas formats dates of categories its own way
        cells = _object_text(dtype.categories.to_numpy(dtype=object)) + [""]
        return [cells[c] for c in series.cat.codes.to_numpy().tolist()]  # code -1 (missing): the last
    if isinstance(dtype, pd.api.extensions.ExtensionDtype) and dtype.kind in "iu":  # Int64 and kin
        missing = series.isna().to_numpy()
        text = series.to_numpy(dtype="int64" if dtype.kind == "i" else "uint64", na_value=0).astype(str)
        text = text.astype(object)
        text[missing] = ""
        return text.tolist()
    if isinstance(dtype, pd.StringDtype) or dtype == object:
        return _object_text(series.to_numpy(dtype=object))
    raise _Unsupported
