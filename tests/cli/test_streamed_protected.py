"""``brecha rates`` and ``brecha disparity`` with ``--suppress``/``--round``, a ``.json`` output or printed,
computed and written piece by piece (issue 19: cli/streamed.py, publication_pieces.py): every file and
every printed line must be those of the whole-table path, byte for byte, with pieces of a few rows (many
pieces, some ending mid-unit), on Chile and on a synthetic panel; an ``.xlsx`` longer than a sheet is
refused before the table is computed."""
from __future__ import annotations

import errno
import json
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from brecha.cli import disparity as cli_disparity
from brecha.cli import rates as cli_rates
from brecha.cli import streamed
from brecha.cli.main import main
from brecha.datasets import chile
from brecha.disparity import disparity as api_disparity
from brecha.disparity_parts import DisparityParts
from brecha.panel import read_panel
from brecha.publication import make_policy, suppress_cells
from brecha.publication_pieces import ProtectedPieces
from brecha.publication_tables import protect
from brecha.rates import RateParts
from brecha.rates import rates as api_rates

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from synthetic_panel import write_panel  # noqa: E402  (benchmarks/: the seeded synthetic panels)


pytestmark = pytest.mark.usefixtures("restore_language")  # tests/cli/conftest.py


@pytest.fixture(scope="module")
def panel_file(two_regions_file):
    return two_regions_file


@pytest.fixture(scope="module")
def chile_file(tmp_path_factory):
    """All of Chile (346 communes, 16 regions) written to disk."""
    path = tmp_path_factory.mktemp("chile") / "chile.parquet"
    chile().to_file(path)
    return path


@pytest.fixture(scope="module")
def synthetic_file(tmp_path_factory):
    """A seeded synthetic panel (benchmarks/synthetic_panel.py: 240 units x 20 years, ~4 deaths a
    unit-year, so K = 5 hides most cells) without regions: the country's total only."""
    return write_panel(tmp_path_factory.mktemp("synthetic") / "synthetic.parquet", 240)


def run(args) -> int:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return main(["--lang", "en"] + [str(a) for a in args])


def both_paths(args, tmp_path, monkeypatch, capsys, suffix=".csv"):
    """Run the command streamed and through the whole-table path (``can_stream`` off): (bytes, printed) of
    each, the output's name the same in both so that "Saved: ..." compares."""
    results = []
    for streamed_path in (True, False):
        folder = tmp_path / ("streamed" if streamed_path else "whole")
        folder.mkdir()
        out = folder / f"out{suffix}" if suffix else None
        monkeypatch.setattr(cli_rates, "can_stream", streamed.can_stream if streamed_path else lambda a: False)
        monkeypatch.setattr(cli_disparity, "can_stream", streamed.can_stream if streamed_path else lambda a: False)
        assert run(args + (["-o", out] if out else [])) == 0
        printed = capsys.readouterr().out.replace(str(folder), "FOLDER")
        results.append((out.read_bytes() if out else b"", printed))
    return results


POLICIES = [["--suppress", "5"], ["--suppress", "3", "--round", "5"], ["--round", "5"],
            ["--suppress", "5", "--zeros", "hide"]]
RATES = [[], ["--pool"], ["--ci", "phe"], ["--level", "province"], ["--years", "2010-2012", "--ci", "wilson"]]
DISPARITY = [["--reference", "best"], ["--reference", "best", "--pool"],
             ["--reference", "09101,11101", "--rr-method", "exact", "--par-method", "walter"],
             ["--reference", "09101", "--units", "09101,09102,11201"],
             ["--reference", "best", "--level", "province", "--rr-method", "binomial"]]


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("options", RATES)
def test_protected_rates_csv_is_the_whole_tables_file(panel_file, tmp_path, small_pieces, monkeypatch, capsys,
                                                      policy, options):
    (streamed_bytes, streamed_out), (whole_bytes, whole_out) = both_paths(
        ["rates", panel_file, *options, *policy], tmp_path, monkeypatch, capsys)
    assert streamed_bytes == whole_bytes and streamed_out == whole_out
    # and the whole path is protect() of the API's table (cli.publish), so the bytes are that table's
    panel = read_panel(panel_file)
    kwargs = dict(pool="--pool" in options, ci=options[options.index("--ci") + 1] if "--ci" in options else "exact",
                  level="province" if "--level" in options else None,
                  years=[2010, 2011, 2012] if "--years" in options else None)
    rule = make_policy(*(int(policy[policy.index(o) + 1]) if o in policy else None for o in ("--suppress", "--round")),
                       zeros="hide" if "hide" in policy else "show")
    table = streamed.order(protect(api_rates(panel, **kwargs), rule, panel), cli_rates.COLUMNS)
    table.to_csv(tmp_path / "api.csv", index=False)
    assert streamed_bytes == (tmp_path / "api.csv").read_bytes()
    back = pd.read_csv(tmp_path / "api.csv", dtype={"unit": str}, keep_default_na=False, na_values=[""])
    assert back["unit"].str.startswith("region:").any() or "--level" in options  # the totals are there
    assert (back["unit"] == "TOTAL").sum() == (1 if "--pool" in options else 3 if "--years" in options
                                              else len(panel.years))
    if "--suppress" in policy:
        assert back["flag"].str.contains("suppressed").any()
        assert f"Saved: FOLDER/out.csv ({len(table)} rows)" in streamed_out


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("options", DISPARITY)
def test_protected_disparity_csv_is_the_whole_tables_file(panel_file, tmp_path, small_pieces, monkeypatch, capsys,
                                                          policy, options):
    (streamed_bytes, streamed_out), (whole_bytes, whole_out) = both_paths(
        ["disparity", panel_file, *options, *policy], tmp_path, monkeypatch, capsys)
    assert streamed_bytes == whole_bytes and streamed_out == whole_out
    assert streamed_out.startswith("Reference: ")
    if "--suppress" in policy:
        assert "Protected publication (K = " in streamed_out


@pytest.mark.parametrize("command", [["rates"], ["disparity", "--reference", "best"]])
@pytest.mark.parametrize("policy", [["--suppress", "5"], ["--suppress", "5", "--round", "5"]])
def test_all_of_chile_protected_is_the_whole_tables_file(chile_file, tmp_path, monkeypatch, capsys, command,
                                                        policy):
    """16 regions, 346 communes, 20 years; pieces of 1,000 rows / 250 unit-periods."""
    monkeypatch.setattr(cli_rates, "BLOCK_ROWS", 1000)
    monkeypatch.setattr(cli_disparity, "BLOCK_ROWS", 250)
    (streamed_bytes, streamed_out), (whole_bytes, whole_out) = both_paths(
        [command[0], chile_file, *command[1:], *policy], tmp_path, monkeypatch, capsys)
    assert streamed_bytes == whole_bytes and streamed_out == whole_out
    back = pd.read_csv(tmp_path / "streamed" / "out.csv", dtype={"unit": str}, keep_default_na=False,
                       na_values=[""])
    years = len(read_panel(chile_file).years)
    assert back["unit"].str.startswith("region:").sum() == 16 * years  # one row per region and year
    assert back["flag"].str.contains("suppressed_secondary").any()


@pytest.mark.parametrize("policy", [["--suppress", "5"], ["--suppress", "2", "--zeros", "hide"], ["--round", "5"]])
@pytest.mark.parametrize("command", [["rates"], ["disparity", "--reference", "best"]])
def test_synthetic_panel_protected_is_the_whole_tables_file(synthetic_file, tmp_path, small_pieces, monkeypatch,
                                                            capsys, command, policy):
    (streamed_bytes, streamed_out), (whole_bytes, whole_out) = both_paths(
        [command[0], synthetic_file, *command[1:], *policy], tmp_path, monkeypatch, capsys)
    assert streamed_bytes == whole_bytes and streamed_out == whole_out


def test_status_decided_per_period_is_the_whole_tables(synthetic_file):
    """The decision by periods (publication_pieces step 1) against suppress_cells on the whole forest, cell
    for cell, written independently here: one stratum per period, the country's total its parent."""
    panel = read_panel(synthetic_file)
    panel = panel.subset(units=panel.unit_codes[:12])  # 12 units: some years hide one cell only (rule A)
    rule = make_policy(1)
    pieces = ProtectedPieces(RateParts(panel), rule, None, block_rows=50)
    ev = panel.events()
    total = ev.groupby("period", as_index=False)[["events"]].sum()
    cells = pd.DataFrame({"stratum": np.concatenate([ev["period"], total["period"]]),
                          "node": np.concatenate([ev["unit"], np.full(len(total), "TOTAL")]),
                          "parent": np.concatenate([np.full(len(ev), "TOTAL"), np.full(len(total), "")]),
                          "value": np.concatenate([ev["events"].astype(float), total["events"].astype(float)])})
    status = suppress_cells(cells, 1)
    codes = np.select([status == "suppressed", status == "suppressed_secondary"], [1, 2], 0)
    np.testing.assert_array_equal(pieces.status, codes[:len(ev)])
    np.testing.assert_array_equal(pieces.totals_status, codes[len(ev):])
    assert pieces.primary == (codes == 1).sum() > 10 and pieces.secondary == (codes == 2).sum() > 3
    assert list(pieces.totals["unit"]) == ["TOTAL"] * 20


@pytest.mark.parametrize("policy", [[], ["--suppress", "5"]])
@pytest.mark.parametrize("command", [["rates", "--ci", "phe"], ["disparity", "--reference", "best"]])
def test_json_is_the_whole_tables_file(panel_file, tmp_path, small_pieces, monkeypatch, capsys, command, policy):
    (streamed_bytes, streamed_out), (whole_bytes, whole_out) = both_paths(
        [command[0], panel_file, *command[1:], *policy], tmp_path, monkeypatch, capsys, suffix=".json")
    assert streamed_bytes == whole_bytes and streamed_out == whole_out
    records = json.loads(streamed_bytes)  # one valid document
    assert len(records) > 600 and f"({len(records)} rows)" in streamed_out and records[0]["unit"] == "09101"
    assert (records[-1]["unit"] in ("TOTAL", "region:11")) == bool(policy or command[0] == "disparity")  # totals last


def test_json_of_one_piece_and_of_none(tmp_path, capsys):
    one = api_rates(chile().subset(region=["11"]), years=[2015])
    assert streamed.write_json([one], tmp_path / "one.json", cli_rates.COLUMNS) == len(one) == 10
    back = json.loads((tmp_path / "one.json").read_text(encoding="utf-8"))
    assert [r["unit"] for r in back] == list(one["unit"]) and back[0]["events"] == int(one["events"].iloc[0])
    assert streamed.write_json([one.iloc[0:0]], tmp_path / "none.json", cli_rates.COLUMNS) == 0
    assert (tmp_path / "none.json").read_text(encoding="utf-8") == "[]"


@pytest.mark.parametrize("policy", [[], ["--suppress", "5"]])
@pytest.mark.parametrize("command", [["rates"], ["disparity", "--reference", "best"],
                                     ["rates", "--years", "2015", "--region", "11"],
                                     ["rates", "--years", "2014-2015", "--region", "11"]])
def test_printed_table_is_the_whole_tables(panel_file, tmp_path, small_pieces, monkeypatch, capsys, command, policy):
    """No -o: pandas' display of the whole table (60 rows at most), from the first and last rows only;
    tables of 10 (+ totals), 21 and thousands of rows."""
    (_, streamed_out), (_, whole_out) = both_paths([command[0], panel_file, *command[1:], *policy], tmp_path,
                                                   monkeypatch, capsys, suffix=None)
    assert streamed_out == whole_out
    assert "TOTAL" in streamed_out.splitlines()[-1] or "region:" in streamed_out.splitlines()[-1] or not policy


def test_printing_keeps_only_the_rows_shown(panel_file, monkeypatch, capsys):
    """The rows held while printing: the first 31 and the last 30, never the table (668 rows in pieces of
    50: every frame put together holds at most 61 + 30 + 50 rows)."""
    table = api_rates(read_panel(panel_file))
    held = []
    real = pd.concat

    def counting(frames, *args, **kwargs):
        frames = list(frames)
        held.append(sum(len(f) for f in frames))
        return real(frames, *args, **kwargs)

    monkeypatch.setattr(pd, "concat", counting)
    rows = streamed.print_pieces((table.iloc[i:i + 50] for i in range(0, len(table), 50)), cli_rates.COLUMNS)
    monkeypatch.undo()
    assert rows == len(table) == 668 and held and max(held) <= 61 + 30 + 50
    printed = capsys.readouterr().out.splitlines()
    assert len(printed) == 62 and printed[31].strip().startswith("...")
    assert printed[-1].split()[0] == table["unit"].iloc[-1] and printed[1].split()[0] == table["unit"].iloc[0]


def test_xlsx_longer_than_a_sheet_is_refused_before_computing(panel_file, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(streamed, "EXCEL_ROWS", 500)

    def never(*args, **kwargs):
        raise AssertionError("the table was computed")

    monkeypatch.setattr(RateParts, "whole", never)
    monkeypatch.setattr(DisparityParts, "whole", never)
    for lang, words in (("en", "do not fit in an Excel sheet"), ("es", "no caben en una hoja de Excel")):
        for command in (["rates"], ["disparity", "--reference", "best"]):
            out = tmp_path / "table.xlsx"
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                assert main(["--lang", lang, command[0], str(panel_file), *command[1:], "-o", str(out)]) == 2
            err = capsys.readouterr().err
            assert words in err and "table.xlsx" in err and "table.csv" in err and "499" in err
            assert not out.exists()
    # a table that fits is written
    monkeypatch.undo()
    assert run(["rates", panel_file, "--years", "2015", "-o", tmp_path / "small.xlsx"]) == 0
    assert len(pd.read_excel(tmp_path / "small.xlsx")) == 42


@pytest.mark.parametrize("policy", [["--suppress", "5"], ["--round", "5"]])
@pytest.mark.parametrize("command", [["rates"], ["disparity", "--reference", "best"]])
def test_protected_parquet_reads_back_as_the_whole_tables(panel_file, tmp_path, small_pieces, monkeypatch, capsys,
                                                          command, policy):
    both_paths([command[0], panel_file, *command[1:], "--years", "2010-2015", *policy], tmp_path, monkeypatch,
               capsys, suffix=".parquet")
    streamed_table = pd.read_parquet(tmp_path / "streamed" / "out.parquet")
    whole_table = pd.read_parquet(tmp_path / "whole" / "out.parquet")
    pd.testing.assert_frame_equal(streamed_table, whole_table, check_exact=True)
    assert (streamed_table["unit"] == "TOTAL").any()


@pytest.mark.parametrize("suffix", [".csv", ".parquet", ".json"])
@pytest.mark.parametrize("command", [["disparity", "--reference", "best"], ["rates"]])
def test_ctrl_c_or_full_disk_while_protecting_leaves_no_partial_file(panel_file, tmp_path, small_pieces,
                                                                      monkeypatch, capsys, command, suffix):
    out = tmp_path / f"out{suffix}"
    args = [command[0], panel_file, *command[1:], "--suppress", "5", "-o", out]
    real = streamed.published_piece
    calls = []

    def fail_on_the_third(error):
        def wrapped(piece, first):
            calls.append(len(piece))
            if len(calls) == 3:
                raise error
            return real(piece, first)
        return wrapped

    monkeypatch.setattr(streamed, "published_piece", fail_on_the_third(KeyboardInterrupt()))
    assert run(args) == 130
    assert capsys.readouterr().err == "Interrupted: nothing was written\n"
    assert len(calls) == 3 and list(tmp_path.iterdir()) == []
    out.write_text("earlier\n", encoding="utf-8")
    calls.clear()
    monkeypatch.setattr(streamed, "published_piece", fail_on_the_third(OSError(errno.ENOSPC, "No space left")))
    assert run(args) == 2
    assert "the disk is full" in capsys.readouterr().err
    assert out.read_text(encoding="utf-8") == "earlier\n" and [p.name for p in tmp_path.iterdir()] == [out.name]


def test_disparity_parts_are_the_api_table(panel_file):
    panel = read_panel(panel_file)
    parts = DisparityParts(panel, "best")
    whole = api_disparity(panel, "best")
    assert parts.n_rows == len(whole)
    text = {c: str for c in whole.columns if isinstance(whole[c].dtype, pd.CategoricalDtype)}
    pd.testing.assert_frame_equal(parts.whole().astype(text), whole.astype(text), check_exact=True)
    by_period = pd.concat([t.astype(text) for t, _ in parts.strata()], ignore_index=True)
    assert len(by_period) == len(whole)
    key = ["unit", "period", "measure"]
    pd.testing.assert_frame_equal(by_period.sort_values(key, ignore_index=True),
                                  whole.astype(text).sort_values(key, ignore_index=True), check_exact=True)
