"""Issue 19: a table's file row numbers (``attrs["rows"]``) are one compact sequence that pandas hands on
without copying, equal to the tuple of the same numbers."""
from __future__ import annotations

import copy
import pickle

import numpy as np
import pandas as pd

from brecha.io import FileRows, file_rows, read_table


def test_equal_to_the_tuple_and_plain_ints():
    rows = file_rows(np.array([2, 3, 5, 9]))
    assert rows == (2, 3, 5, 9) and rows == [2, 3, 5, 9] and rows != (2, 3, 5) and rows != (2, 3, 5, 8)
    assert list(rows) == [2, 3, 5, 9] and all(type(r) is int for r in rows)
    assert rows[0] == 2 and rows[-1] == 9 and rows[1:3] == (3, 5) and len(rows) == 4
    assert np.asarray(rows).tolist() == [2, 3, 5, 9]
    assert pickle.loads(pickle.dumps(rows)) == rows


def test_pandas_hands_it_on_without_copying():
    rows = file_rows(range(2, 100_002))
    table = pd.DataFrame({"unit": np.arange(100_000).astype(str), "x": np.arange(100_000.0)})
    table.attrs["rows"] = rows
    assert copy.deepcopy(rows) is rows
    for result in (table[["x"]], table.copy(), table["unit"].dropna().to_frame(), table.sort_values("x"),
                   pd.concat([table, table])):
        assert result.attrs["rows"] is rows
    other = table.copy()
    other.attrs["rows"] = file_rows(range(3, 100_003))
    assert pd.concat([table, other]).attrs == {}  # unequal attrs are dropped, as pandas does, without raising


def test_read_table_keeps_each_rows_number_in_the_file(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("unit,year,births\n01101,2010,5\n,,\n01101,2011,7\n\n01102,2010,3\n", encoding="utf-8")
    table = read_table(path, dtype={"unit": str})
    assert isinstance(table.attrs["rows"], FileRows)
    assert table.attrs["rows"] == (2, 4, 6)
    assert table["births"].tolist() == [5, 7, 3]
