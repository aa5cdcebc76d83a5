"""``brecha disparity`` and ``brecha rates`` write a ``.csv`` output piece by piece (issue 19, cli/streamed.py):
the file must be the whole table the Python API returns, byte for byte and read back, by year and pooled,
with and without ``--suppress``; Ctrl-C or a full disk in the middle must leave no partial file."""
from __future__ import annotations

import errno
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from brecha.cli import disparity as cli_disparity
from brecha.cli import rates as cli_rates
from brecha.cli import streamed
from brecha.cli.main import main
from brecha.disparity import disparity as api_disparity
from brecha.disparity import disparity_blocks
from brecha.panel import read_panel
from brecha.publication import make_policy
from brecha.publication_tables import add_reliability, protect
from brecha.rates import rates as api_rates
from brecha.rates import rates_blocks


pytestmark = pytest.mark.usefixtures("restore_language")  # tests/cli/conftest.py


@pytest.fixture(scope="module")
def panel_file(two_regions_file):
    return two_regions_file


def run(args) -> int:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return main(["--lang", "en"] + [str(a) for a in args])


ROUND_TRIP_NEEDED = tuple(int(part) for part in pd.__version__.split(".")[:2]) < (2, 2)


def whole_file(table, path, first, columns=None) -> bytes:
    """The API's whole table written as the command writes a whole table: reliability column, contract
    columns first, pandas' own to_csv."""
    table = streamed.order(add_reliability(table), first)
    table.to_csv(path, index=False)
    return Path(path).read_bytes()


def read_back(path) -> pd.DataFrame:
    # round_trip: pandas before 2.2 parses some 17-digit numbers 1 ulp away with its default parser; pandas 3
    # parses them exactly by default and deprecates the argument
    exact = {"float_precision": "round_trip"} if ROUND_TRIP_NEEDED else {}
    return pd.read_csv(path, dtype={"unit": str, "period": str}, keep_default_na=False, na_values=[""], **exact)


@pytest.mark.parametrize("pool", [False, True])
def test_streamed_disparity_csv_is_the_api_table(panel_file, tmp_path, small_pieces, capsys, pool):
    out = tmp_path / "disparity.csv"
    assert run(["disparity", panel_file, "--reference", "best", "-o", out] + (["--pool"] if pool else [])) == 0
    printed = capsys.readouterr().out
    panel = read_panel(panel_file)
    table = api_disparity(panel, "best", pool=pool)
    expected = whole_file(table, tmp_path / "api.csv", cli_disparity.COLUMNS)
    assert out.read_bytes() == expected
    assert f"Saved: {out} ({len(table)} rows)" in printed
    assert f"Reference: {table.attrs['reference_label']}" in printed
    # read back: the API's numbers, row for row (the equality above could not fail if both were empty)
    back = read_back(out)
    periods = 1 if pool else len(panel.years)
    assert len(back) == len(table) == (len(panel.events(pool=pool)) + periods) * 4
    np.testing.assert_array_equal(back["estimate"].to_numpy(), table["estimate"].to_numpy())
    np.testing.assert_array_equal(back["unit"].to_numpy(), table["unit"].astype(str).to_numpy())
    assert list(back["reliability"].fillna("")) == list(np.where(table["events"].astype(float) < 20, "unstable", ""))


@pytest.mark.parametrize("pool", [False, True])
def test_disparity_with_suppress_is_the_protected_api_table(panel_file, tmp_path, small_pieces, pool):
    out = tmp_path / "disparity.csv"
    extra = ["--pool"] if pool else []
    assert run(["disparity", panel_file, "--reference", "best", "--suppress", "5", "-o", out] + extra) == 0
    panel = read_panel(panel_file)
    table = protect(api_disparity(panel, "best", pool=pool), make_policy(5), panel)
    expected = streamed.order(table, cli_disparity.COLUMNS)
    expected.to_csv(tmp_path / "api.csv", index=False)
    assert out.read_bytes() == (tmp_path / "api.csv").read_bytes()
    back = read_back(out)
    assert (back["unit"] == "TOTAL").sum() == (1 if pool else len(panel.years)) * 4  # the country's rows
    hidden = back["flag"].fillna("").str.contains("suppressed").to_numpy()
    assert hidden.any() and back.loc[hidden, "estimate"].isna().all()


@pytest.mark.parametrize("pool", [False, True])
def test_streamed_rates_csv_is_the_api_table(panel_file, tmp_path, small_pieces, capsys, pool):
    out = tmp_path / "rates.csv"
    assert run(["rates", panel_file, "-o", out] + (["--pool"] if pool else [])) == 0
    panel = read_panel(panel_file)
    table = api_rates(panel, pool=pool)
    assert out.read_bytes() == whole_file(table, tmp_path / "api.csv", cli_rates.COLUMNS)
    back = read_back(out)
    assert len(back) == len(panel.events(pool=pool)) == (42 if pool else len(panel.data))
    np.testing.assert_array_equal(back["upper"].to_numpy(), table["upper"].to_numpy())
    assert f"Saved: {out} ({len(table)} rows)" in capsys.readouterr().out


def test_rates_with_suppress_is_the_protected_api_table(panel_file, tmp_path, small_pieces):
    out = tmp_path / "rates.csv"
    assert run(["rates", panel_file, "--suppress", "5", "-o", out]) == 0
    panel = read_panel(panel_file)
    expected = streamed.order(protect(api_rates(panel), make_policy(5), panel), cli_rates.COLUMNS)
    expected.to_csv(tmp_path / "api.csv", index=False)
    assert out.read_bytes() == (tmp_path / "api.csv").read_bytes()


@pytest.mark.parametrize("options", [
    dict(reference="best"),
    dict(reference="best", pool=True),
    dict(reference="09101,11101", rr_method="exact", par_method="walter"),
    dict(reference="09101", rr_method="midp", par_method="sullivan", units=["09101", "09102", "11201"]),
    dict(reference="best", rr_method="binomial", par_method="jewell", level="province"),
])
def test_pieces_concatenated_are_the_whole_table(panel_file, options):
    panel = read_panel(panel_file)
    whole = api_disparity(panel, **options)
    pieces = list(disparity_blocks(panel, block_rows=11, **options))
    assert len(pieces) > 1
    assert all(p.attrs == whole.attrs for p in pieces)
    joined = pd.concat([p.astype({c: str for c in p.columns if isinstance(p[c].dtype, pd.CategoricalDtype)})
                        for p in pieces], ignore_index=True)
    text = whole.astype({c: str for c in whole.columns if isinstance(whole[c].dtype, pd.CategoricalDtype)})
    joined.attrs = text.attrs
    pd.testing.assert_frame_equal(joined, text, check_exact=True)


@pytest.mark.parametrize("options", [dict(), dict(pool=True), dict(ci="phe", years=[2010, 2011, 2012]),
                                     dict(ci="wilson", level="province")])
def test_rate_pieces_concatenated_are_the_whole_table(panel_file, options):
    panel = read_panel(panel_file)
    whole = api_rates(panel, **options)
    pieces = list(rates_blocks(panel, block_rows=5, **options))
    assert len(pieces) == -(-len(whole) // 5) > 1
    joined = pd.concat([p.astype({"method": str}) for p in pieces], ignore_index=True)
    joined.attrs = whole.attrs
    pd.testing.assert_frame_equal(joined, whole.astype({"method": str}), check_exact=True)
    assert all(p.attrs == whole.attrs for p in pieces)


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
@pytest.mark.parametrize("command", ["disparity", "rates"])
def test_ctrl_c_in_the_middle_leaves_no_partial_file(panel_file, tmp_path, small_pieces, monkeypatch, capsys,
                                                     command, suffix):
    out = tmp_path / f"out{suffix}"
    args = [command, panel_file, "-o", out] + (["--reference", "best"] if command == "disparity" else [])
    real = streamed.published_piece
    calls = []

    def interrupt_on_the_third(piece, first):
        calls.append(len(piece))
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(piece, first)

    monkeypatch.setattr(streamed, "published_piece", interrupt_on_the_third)
    assert run(args) == 130
    assert capsys.readouterr().err == "Interrupted: nothing was written\n"
    assert len(calls) == 3  # two pieces were written into the temporary file before the interruption
    assert list(tmp_path.iterdir()) == []  # neither the output nor its temporary file

    # an earlier output stays as it was; a full disk in the middle is a message, not a half file
    out.write_text("earlier\n", encoding="utf-8")
    calls.clear()

    def disk_full_on_the_third(piece, first):
        calls.append(len(piece))
        if len(calls) == 3:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(piece, first)

    monkeypatch.setattr(streamed, "published_piece", disk_full_on_the_third)
    assert run(args) == 2
    assert "the disk is full" in capsys.readouterr().err
    assert out.read_text(encoding="utf-8") == "earlier\n"
    assert [p.name for p in tmp_path.iterdir()] == [out.name]


@pytest.mark.parametrize("command", ["disparity", "rates"])
def test_streamed_parquet_reads_back_as_the_whole_table(panel_file, tmp_path, small_pieces, command):
    out = tmp_path / "streamed.parquet"
    args = [command, panel_file, "--years", "2010-2015"] + (["--reference", "best"] if command == "disparity" else [])
    assert run(args + ["-o", out]) == 0
    assert pq_row_groups(out) > 1  # it was written in pieces
    panel = read_panel(panel_file)
    years = list(range(2010, 2016))
    table = api_disparity(panel, "best", years=years) if command == "disparity" else api_rates(panel, years=years)
    first = cli_disparity.COLUMNS if command == "disparity" else cli_rates.COLUMNS
    # the whole table as the command writes a whole table (cli.rates.write_result): text columns as text
    expected = streamed.order(add_reliability(table), first)
    categorical = [c for c in expected.columns if isinstance(expected[c].dtype, pd.CategoricalDtype)]
    expected = expected.astype({c: "str" for c in categorical})
    expected.to_parquet(tmp_path / "whole.parquet", index=False)
    pd.testing.assert_frame_equal(pd.read_parquet(out), pd.read_parquet(tmp_path / "whole.parquet"), check_exact=True)
    assert len(pd.read_parquet(out)) == len(table) > 0


def pq_row_groups(path) -> int:
    import pyarrow.parquet as pq

    return pq.ParquetFile(path).num_row_groups


def test_xlsx_is_written_whole_and_no_output_printed_in_pieces(panel_file, tmp_path, small_pieces, monkeypatch,
                                                               capsys):
    def no_streaming(*args, **kwargs):
        raise AssertionError("streamed")

    monkeypatch.setattr(streamed, "write_pieces", no_streaming)
    monkeypatch.setattr(cli_disparity, "write_streamed", no_streaming)
    out = tmp_path / "disparity.xlsx"
    assert run(["disparity", panel_file, "--reference", "best", "--years", "2014-2015", "-o", out]) == 0
    assert len(pd.read_excel(out)) == (len(read_panel(panel_file).events(years=[2014, 2015])) + 2) * 4
    monkeypatch.undo()
    pieces = []
    real = streamed.published_piece
    monkeypatch.setattr(streamed, "published_piece", lambda piece, first: pieces.append(len(piece)) or real(piece, first))
    assert run(["rates", panel_file, "--years", "2015"]) == 0
    assert "09101" in capsys.readouterr().out  # printed, not written
    assert [n for n in pieces if n] == [42]  # one piece of 50 rows at most (tests/cli/test_streamed_protected.py: many)
