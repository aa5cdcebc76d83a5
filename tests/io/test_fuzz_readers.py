"""Property-based tests (hypothesis): random, truncated and mutated panel files given to read_panel and
read_table give a clear InputError (naming the file) or a valid panel, never anything else (no other exception,
no stray warning); an untouched file gives exactly the original panel.

Runs are bounded (a few dozen examples per property, no deadline) and deterministic (derandomize=True, no
example database), so the suite stays fast and the same on every machine.
"""
from __future__ import annotations

import shutil
import tempfile
import warnings
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from brecha import datasets
from brecha.errors import BrechaWarning, InputError
from brecha.io import read_table
from brecha.panel import Panel, read_panel

SUFFIXES = (".csv", ".xlsx", ".parquet", ".json")
FUZZ = settings(max_examples=40, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _panel() -> Panel:
    chile = datasets.chile()
    units = chile.unit_codes[:6]
    return chile.subset(units=units, years=[2010, 2011])


ORIGINAL = _panel()
FOLDER = Path(tempfile.mkdtemp(prefix="brecha-fuzz-"))
GOOD: dict[str, bytes] = {}
for _suffix in SUFFIXES:
    ORIGINAL.to_file(FOLDER / f"good{_suffix}")
    GOOD[_suffix] = (FOLDER / f"good{_suffix}").read_bytes()


def teardown_module(module):
    """The files' folder removed once the module's tests ran (not left in the system's temporary folder)."""
    shutil.rmtree(FOLDER, ignore_errors=True)


def _read(data: bytes, suffix: str, reader=read_panel):
    """Write the bytes as a user's file and read it: returns the result or the InputError; anything else
    (another exception, a warning that is not brecha's) fails the test."""
    path = FOLDER / f"case{suffix}"
    path.write_bytes(data)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.simplefilter("ignore", BrechaWarning)
        try:
            return reader(path)
        except InputError as err:
            assert str(path) in str(err), str(err)  # the message names the file
            assert err.problem and "Traceback" not in str(err)
            return err


def _mutate(data: bytes, edits) -> bytes:
    """Apply (position, operation, byte) edits: replace, insert or delete one byte."""
    out = bytearray(data)
    for position, operation, value in edits:
        if not out:
            break
        i = position % len(out)
        if operation == 0:
            out[i] = value
        elif operation == 1:
            out.insert(i, value)
        else:
            del out[i]
    return bytes(out)


EDITS = st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 2), st.integers(0, 255)), min_size=1, max_size=6)


@pytest.mark.filterwarnings("ignore::brecha.errors.BrechaWarning")
@pytest.mark.parametrize("suffix", SUFFIXES)
def test_untouched_file_reads_back_the_original_panel(suffix):
    got = _read(GOOD[suffix], suffix)
    assert isinstance(got, Panel)
    pd.testing.assert_frame_equal(got.data, ORIGINAL.data, check_exact=suffix != ".xlsx", rtol=1e-14)


@pytest.mark.parametrize("suffix", SUFFIXES)
@FUZZ
@given(edits=EDITS)
def test_mutated_file_gives_an_input_error_or_a_valid_panel(suffix, edits):
    got = _read(_mutate(GOOD[suffix], edits), suffix)
    assert isinstance(got, (Panel, InputError))
    if isinstance(got, Panel):
        assert got.data["unit"].notna().all() and len(got.data) > 0


@pytest.mark.parametrize("suffix", SUFFIXES)
@FUZZ
@given(fraction=st.floats(0, 1, exclude_max=True))
def test_truncated_file_gives_an_input_error_or_a_valid_panel(suffix, fraction):
    data = GOOD[suffix]
    got = _read(data[: int(len(data) * fraction)], suffix)
    assert isinstance(got, (Panel, InputError))
    if isinstance(got, Panel):  # a CSV cut at a line end is a shorter but correct panel
        assert suffix == ".csv"
        merged = got.data.merge(ORIGINAL.data, on=["unit", "year"], suffixes=("", "_original"))
        assert len(merged) >= len(got.data) - 1
        for col in ("births", "deaths"):
            same = merged[col].eq(merged[f"{col}_original"])
            assert same.sum() >= len(got.data) - 1  # only the last, cut line may differ


@pytest.mark.parametrize("suffix", SUFFIXES)
@FUZZ
@given(data=st.binary(max_size=2000))
def test_random_bytes_give_an_input_error(suffix, data):
    got = _read(data, suffix)
    assert isinstance(got, (InputError, Panel))


@FUZZ
@given(cells=st.lists(st.lists(st.text(alphabet=st.sampled_from("0123456789.,;- \"\n\tae"), max_size=8),
                               min_size=1, max_size=6), min_size=1, max_size=8))
def test_random_csv_text_gives_an_input_error_or_a_table(cells):
    """Text made of digits, separators, quotes and line breaks: read_table gives a table or an InputError."""
    text = "unit;year;births;deaths\n" + "\n".join(";".join(row) for row in cells)
    got = _read(text.encode(), ".csv", reader=read_table)
    assert isinstance(got, (pd.DataFrame, InputError))
    if isinstance(got, pd.DataFrame):
        assert len(got.attrs["rows"]) == len(got)
