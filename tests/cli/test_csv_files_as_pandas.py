"""Every ``-o FILE.csv`` of the command line is written by brecha.csv_text (issue 19: pandas' ``to_csv`` took
8.2 s of the 8.9 s of ``brecha disparity --example brazil --reference best -o gap.csv``), and the file is the
one pandas' ``to_csv`` writes, byte for byte: each command is run twice on a panel file written to disk and
read back, once as it is and once with brecha's writer switched off (every table then goes to pandas)."""
from __future__ import annotations

import io
import warnings

import numpy as np
import pandas as pd
import pytest

import brecha.csv_text as csv_text
from brecha.cli.main import main

pytestmark = pytest.mark.usefixtures("restore_language")  # tests/cli/conftest.py


def _run(args) -> int:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return main(["--lang", "en", "--quiet"] + [str(a) for a in args])


def _pandas_only(*_args, **_kwargs):
    raise csv_text._Unsupported


COMMANDS = {
    "rates": ["rates", "{panel}", "--years", "2014-2015"],
    "rates_suppressed": ["rates", "{panel}", "--years", "2015", "--suppress", "5"],
    "disparity": ["disparity", "{panel}", "--reference", "best", "--years", "2013-2015"],  # piece by piece
    "disparity_pooled": ["disparity", "{panel}", "--reference", "best", "--years", "2010-2015", "--pool"],
    "inequality": ["inequality", "{panel}", "--years", "2014-2015"],
    "trends": ["trends", "{panel}", "--years", "2006-2015"],
    "models": ["models", "{panel}", "--outcome", "imr", "--covariates", "poverty", "--years", "2006-2012"],
}


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_command_csv_is_pandas_bytes(name, two_regions_file, tmp_path, monkeypatch, capsys):
    args = [a.format(panel=two_regions_file) for a in COMMANDS[name]]
    ours, theirs = tmp_path / "ours.csv", tmp_path / "theirs.csv"
    made_by_brecha = []
    real = csv_text.csv_text
    monkeypatch.setattr(csv_text, "csv_text", lambda df, **kw: made_by_brecha.append(len(df)) or real(df, **kw))
    assert _run(args + ["-o", ours]) == 0
    assert made_by_brecha, f"{name}: the file was not written by brecha.csv_text"
    monkeypatch.setattr(csv_text, "csv_text", _pandas_only)
    assert _run(args + ["-o", theirs]) == 0
    capsys.readouterr()
    made = ours.read_bytes()
    assert made.count(b"\n") > 2, name  # a real table, not just its header
    assert made == theirs.read_bytes(), name


def test_pieces_make_the_whole_file():
    """Pieces written one after another (the header with the first only) are the whole table's to_csv."""
    rng = np.random.default_rng(7)
    n = 101
    df = pd.DataFrame({
        "unit": pd.array([f"{i:05d}" for i in rng.integers(0, 400, n)], dtype="str"),
        "estimate": rng.choice([0.0, np.nan, 1 / 3, 7.25, -0.0], n),
        "events": pd.array(np.where(rng.random(n) < 0.1, None, rng.integers(0, 50, n)).tolist(), dtype="Int64"),
        "flag": pd.Categorical(rng.choice(["", "unstable", "a, b"], n)),
    })
    handle = io.StringIO(newline="")
    for i, start in enumerate(range(0, n, 17)):
        csv_text.write_piece(df.iloc[start:start + 17], handle, header=i == 0)
    assert handle.getvalue() == df.to_csv(index=False)


def test_pieces_pandas_writes_are_the_same():
    """A piece outside brecha's rules (here a line break in a cell) is written by pandas, header or not."""
    df = pd.DataFrame({"a": ["line\nbreak", "x", "y"], "b": [1.5, 2.0, np.nan]})
    handle = io.StringIO(newline="")
    csv_text.write_piece(df.iloc[:1], handle, header=True)
    csv_text.write_piece(df.iloc[1:], handle, header=False)
    assert handle.getvalue() == df.to_csv(index=False)


def test_blocks_of_rows_make_the_whole_file(tmp_path, monkeypatch):
    """A table made into text a few rows at a time (memory bounded, brecha.csv_text.CHUNK_CELLS) is the
    whole table's to_csv, also when one block in the middle has a cell pandas must write (a line break)."""
    monkeypatch.setattr(csv_text, "CHUNK_CELLS", 9)  # 3 rows of 3 cells per block
    rng = np.random.default_rng(3)
    n = 50
    df = pd.DataFrame({"name": pd.array(rng.choice(["a", "b, c", 'q"'], n), dtype="str"),
                       "rate": rng.choice([np.nan, 0.5, 1 / 7], n), "k": rng.integers(0, 9, n)})
    df.loc[22, "name"] = "two\nlines"
    out = tmp_path / "t.csv"
    csv_text.write_csv(df, out)
    df.to_csv(tmp_path / "p.csv", index=False)
    assert out.read_bytes() == (tmp_path / "p.csv").read_bytes()
    empty = df.iloc[:0]
    csv_text.write_csv(empty, out)
    assert out.read_text() == empty.to_csv(index=False)
