"""The CSV writer of the report and of the command line (brecha.csv_text) writes the bytes of ``df.to_csv(path, index=False)``:
on the report's own tables, on every kind of column it takes over, and on the tables it leaves to pandas."""
from decimal import Decimal

import numpy as np
import pandas as pd
import pytest

from brecha.csv_text import csv_text, write_csv, write_piece


def _same_file(df, tmp_path):
    ours, theirs = tmp_path / "ours.csv", tmp_path / "theirs.csv"
    write_csv(df, ours)
    df.to_csv(theirs, index=False)
    assert ours.read_bytes() == theirs.read_bytes()


def _every_kind() -> pd.DataFrame:
    floats = [0.0, -0.0, np.nan, 1e-5, 1e-4, 0.1, 1 / 3, 1e16, 123456789012345680.0, np.inf, -np.inf, 2.5]
    n = len(floats)
    return pd.DataFrame({
        "float": floats,
        "int": np.arange(n, dtype="int64") * -7,
        "int32": np.arange(n, dtype="int32"),
        "bool": [True, False] * (n // 2),
        "Int64": pd.array([1, None, -3, 4, None, 6, 7, 8, 9, 10, 11, 2**40], dtype="Int64"),
        "text": pd.array(["a", None, 'say "hi"', "x,y", " lead", "trail ", "ñandú", "", "a", "a", "b", "c"],
                         dtype="str"),
        "category": pd.Categorical(["one", "two, three", None, 'q"', "one", "one", "two, three", None, "one",
                                    "one", "one", "one"]),
        "cat_float": pd.Categorical([0.5, 1.0, None, 0.5, 1 / 3, 0.5, 1.0, 1.0, 0.5, 0.5, 0.5, 0.5]),
        "object": pd.Series([1, 1.0, True, None, np.nan, "x,y", Decimal("1.50"), pd.NA, "1", 2.5, -0.0, "z"],
                            dtype=object),
        "object_text": pd.Series(["u", "v", None, "u", "w,", "u", "u", "v", "v", "u", "u", "u"], dtype=object),
        "with, comma": [1.5] * n,
    })


def test_every_kind_of_column_as_to_csv(tmp_path):
    df = _every_kind()
    assert csv_text(df) == df.to_csv(index=False)
    _same_file(df, tmp_path)


@pytest.mark.parametrize("rows", [1, 63, 64, 65, 200])
def test_short_and_long_tables_of_every_kind_as_to_csv(rows):
    """A table of up to 64 rows is joined in Python (csv_text.SMALL_ROWS), a longer one by Arrow: both give
    to_csv's text for every kind of column, at either side of the threshold."""
    whole = pd.concat([_every_kind()] * 20, ignore_index=True)
    df = whole.iloc[:rows]
    assert csv_text(df) == df.to_csv(index=False)
    df.attrs["notes"] = ["a table's notes travel with it"]  # taken off before the columns are read
    assert csv_text(df) == df.to_csv(index=False) and df.attrs


def test_empty_table_and_header_only(tmp_path):
    df = _every_kind().iloc[:0]
    assert csv_text(df) == df.to_csv(index=False)
    _same_file(df, tmp_path)


@pytest.mark.parametrize("df", [
    pd.DataFrame({"a": ["line\nbreak", "x"], "b": [1, 2]}),               # a line break: pandas writes it
    pd.DataFrame({"a": ["carriage\rreturn", "x"], "b": [1.5, 2.5]}),
    pd.DataFrame({"only": ["", "x", None]}),                             # one column: "" for an empty cell
    pd.DataFrame({0: [1.5, 2.0], 1: ["a", "b"]}),                          # column names that are not text
    pd.DataFrame({"when": pd.to_datetime(["2020-01-01", None]), "b": [1, 2]}),  # dates: pandas' own text
    pd.DataFrame({"f32": np.array([0.1, 2.5], dtype="float32"), "b": [1, 2]}),
])
def test_tables_left_to_pandas_are_its_bytes(df, tmp_path):
    _same_file(df, tmp_path)


def test_random_tables_as_to_csv():
    rng = np.random.default_rng(19)
    words = np.array(["a", "b,c", 'd"e', " f", "", "ü", "g h"], dtype=object)
    for _ in range(40):
        n = int(rng.integers(1, 60))
        values = rng.choice([0.0, 1.0, 0.5, 1e-7, 3e17, np.nan], n) * rng.choice([1.0, -1.0, 1 / 7], n)
        df = pd.DataFrame({
            "x": values,
            "k": pd.array(np.where(rng.random(n) < 0.2, None, rng.integers(-5, 5, n)).tolist(), dtype="Int64"),
            "w": pd.array(np.where(rng.random(n) < 0.2, None, rng.choice(words, n)).tolist(), dtype="str"),
            "c": pd.Categorical(rng.choice(words, n)),
        })
        assert csv_text(df) == df.to_csv(index=False)


def test_every_kind_of_float_as_to_csv():
    """A float64 cell is written as Python's repr, which is numpy's text (to_csv's): random bit patterns
    (subnormals, huge, negative zero), powers of ten across the range, rounded and whole numbers, inf."""
    rng = np.random.default_rng(5)
    bits = rng.integers(0, 2**63, 200_000, dtype=np.int64) * rng.choice([1, -1], 200_000)
    values = np.concatenate([bits.view(np.float64), 10.0 ** np.arange(-323, 309), np.round(rng.normal(0, 9, 5000), 3),
                             np.arange(-2000.0, 2000.0), [0.0, -0.0, np.inf, -np.inf, np.nan, 2.0**53, 1e16, 1e-4]])
    df = pd.DataFrame({"x": values, "i": np.arange(len(values))})
    assert csv_text(df) == df.to_csv(index=False)


def test_the_report_tables_are_to_csv_bytes(small_report):
    report, out = small_report
    assert report.tables
    for name, (df, _title) in report.tables.items():
        assert (out / "tables" / f"{name}.csv").read_bytes() == df.to_csv(index=False).encode("utf-8"), name
