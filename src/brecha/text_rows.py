"""Rows of text made from columns of cells, joined by Arrow's vectorised kernels (issue 19), for the CSV
writer (:mod:`brecha.csv_text`).

A column is given as its distinct cells (text made once each in Python: a rate of 0, a name that repeats on
every year of its unit) and each row's position in them. :func:`column` takes the cells row by row
(``pyarrow.compute.take``), :func:`joined` joins each row's parts (columns, or one text the same on every
row) with a separator (``binary_join_element_wise``) and returns the rows one after another, read from the
joined strings' one buffer. Joining the cells in Python (``",".join`` per row over ``zip`` of the columns)
was half of the CSV writer's time on Brazil's disparity table (445,680 rows x 20 columns); this takes
20-30 % less CPU for the whole text (2.7-3.5 s -> 2.2-2.9 s, three interleaved runs).

The report's workbook (:mod:`brecha.report.excel`) was tried too and gained nothing (Brazil's workbook
1.9-2.2 s of CPU either way): its time is in making each distinct cell's XML and in zlib, not in joining.

Why Arrow's kernels and not numpy's ``char`` functions: those loop over Python objects too, and pyarrow is
already a dependency (Parquet). Why not pyarrow's CSV writer: it writes other bytes (see
:mod:`brecha.csv_text`).
"""
from __future__ import annotations

import numpy as np


def column(cells: list, positions=None):
    """An Arrow string array of ``cells`` taken at ``positions`` (every row's position among the distinct
    cells), or ``cells`` as they are (one per row) when ``positions`` is None."""
    import pyarrow as pa

    array = pa.array(cells, type=pa.string())
    return array if positions is None else array.take(pa.array(positions, type=pa.int64()))


def numbered(first: int, count: int):
    """The numbers ``first, first + 1, ...`` (``count`` of them) as an Arrow string array (a row number
    written into each row)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    return pc.cast(pa.array(np.arange(first, first + count, dtype=np.int64)), pa.string())


def joined(parts: list, separator: str) -> str:
    """Each row's ``parts`` (Arrow string arrays of one length, or a ``str``: the same text on every row)
    joined with ``separator``, the rows one after another with nothing between them."""
    import pyarrow.compute as pc

    return _one_string(pc.binary_join_element_wise(*parts, separator))


def _one_string(strings) -> str:
    """The strings of an Arrow string array without missing values, one after another: its data buffer
    between the first and the last offset."""
    import pyarrow as pa

    wide = pa.types.is_large_string(strings.type)
    offsets = np.frombuffer(strings.buffers()[1], dtype=np.int64 if wide else np.int32)
    offsets = offsets[strings.offset:strings.offset + len(strings) + 1]
    if not len(strings) or offsets[-1] == offsets[0]:
        return ""
    return bytes(memoryview(strings.buffers()[2])[offsets[0]:offsets[-1]]).decode("utf-8")
