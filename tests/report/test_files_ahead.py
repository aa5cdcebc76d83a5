"""The first tables' files written ahead in a child (brecha.report.files_ahead; issue 19): the report's
files are the serial run's, byte for byte (the workbook member by member); what the child wrote is used
only while the tables are those it was given; a child that dies or fails costs nothing but the time;
Ctrl-C ends it and leaves nothing behind. Also the workbook finished from a zip of its first sheets
(brecha.report.excel.write_sheets / write_xlsx(written=...)), and the two helpers of brecha.report.forked
the child needs (Pending.done, joined)."""
from __future__ import annotations

import dataclasses
import os
import time
import zipfile

import numpy as np
import pandas as pd
import pytest

from brecha import outputs
from brecha.cli.main import main
from brecha.i18n import set_language
from brecha.report import excel, files_ahead, forked

pytestmark = pytest.mark.skipif(not forked.parallel_possible(), reason="no fork on this platform")


@pytest.fixture(autouse=True)
def english():
    set_language("en")
    yield
    set_language("es")


@pytest.fixture
def early(monkeypatch):
    """The child starts once the first step (the rates) has made its tables, whatever their size (the small
    study's are below the real thresholds)."""
    monkeypatch.setattr(files_ahead, "MANY_CELLS", 1)
    real = files_ahead.FilesAhead.offer

    def offer(self, **kw):
        if "rates_units_year" in self.report.tables:
            real(self, **kw)

    monkeypatch.setattr(files_ahead.FilesAhead, "offer", offer)


@pytest.fixture
def given(monkeypatch, tmp_path):
    """What the workbook's child was given, read back from the file it writes (``None`` when not written
    ahead, else the number of sheets written ahead)."""
    record = tmp_path / "given.txt"
    real = excel.write_workbook

    def write(report, path, written=None):
        with open(record, "a", encoding="utf-8") as f:
            f.write(f"{None if written is None else written[1]}\n")
        return real(report, path, written)

    monkeypatch.setattr(excel, "write_workbook", write)
    return lambda: record.read_text(encoding="utf-8").split() if record.exists() else []


@pytest.fixture
def moved(monkeypatch):
    """The CSV files the report moved in from the child's folder (in the report's own process)."""
    names = []
    real = files_ahead.FilesAhead.move_csv

    def move(self, name, path):
        done = real(self, name, path)
        if done:
            names.append(name)
        return done

    monkeypatch.setattr(files_ahead.FilesAhead, "move_csv", move)
    return names


def run(study, out, jobs: str, monkeypatch) -> int:
    monkeypatch.setenv("BRECHA_JOBS", jobs)
    outputs.forget_completed()
    return main(["--lang", "en", "report", str(study), "-o", str(out)])


def test_files_written_ahead_are_the_serial_files(small_study_path, tmp_path, monkeypatch, early, given, moved,
                                                  forks, files_of):
    assert run(small_study_path, tmp_path / "serial", "1", monkeypatch) == 0
    assert given() == ["None"] and forks == []
    assert run(small_study_path, tmp_path / "ahead", "2", monkeypatch) == 0
    serial, ahead = files_of(tmp_path / "serial"), files_of(tmp_path / "ahead")
    assert serial.keys() == ahead.keys()
    assert [n for n in serial if serial[n] != ahead[n]] == []
    # the first step's tables: their sheets came from the child, their CSV files were moved in
    count = int(given()[-1])
    tables = [n for n in serial if n.startswith("tables/")]
    assert 3 <= count < len(tables)
    assert len(moved) == count and {f"tables/{n}.csv" for n in moved} < set(tables)
    book = pd.read_excel(tmp_path / "ahead" / "brecha.xlsx", sheet_name=None)  # a valid workbook, as openpyxl reads
    assert list(book) == list(pd.read_excel(tmp_path / "serial" / "brecha.xlsx", sheet_name=None))


def test_without_children_or_files_nothing_is_written_ahead(small_study_path, tmp_path, monkeypatch, early,
                                                           given, moved):
    from brecha.report.build import build_report
    from brecha.study import read_study

    monkeypatch.setenv("BRECHA_JOBS", "2")
    forked_work = []
    real = forked.Children.start
    monkeypatch.setattr(forked.Children, "start", lambda self, work, *a: (forked_work.append(work),
                                                                          real(self, work, *a))[1])
    build_report(read_study(small_study_path), None, write=False)  # no files: no child writes them
    assert files_ahead.write_tables not in forked_work and moved == []


def test_a_table_replaced_after_the_child_started_is_written_from_the_report(small_study_path, tmp_path,
                                                                             monkeypatch, early, given, moved):
    """The identity check: the first table is replaced (a column added) once the child has its copy; the
    report's files show the replacement, and nothing the child wrote is used."""
    real = files_ahead.FilesAhead.offer
    replaced = []

    def offer(self, **kw):
        real(self, **kw)
        if self.pending is not None and not replaced:
            name = self.names[0]
            df, title = self.report.tables[name]
            self.report.tables[name] = (df.assign(added=1), title)
            replaced.append(name)

    monkeypatch.setattr(files_ahead.FilesAhead, "offer", offer)
    assert run(small_study_path, tmp_path / "rep", "2", monkeypatch) == 0
    name = replaced[0]
    assert given() == ["None"] and moved == []
    assert "added" in pd.read_csv(tmp_path / "rep" / "tables" / f"{name}.csv").columns
    book = pd.read_excel(tmp_path / "rep" / "brecha.xlsx", sheet_name=None)
    assert any("added" in sheet.columns for sheet in book.values())


@pytest.mark.parametrize("how", ["dies", "fails"])
def test_a_child_that_dies_or_fails_costs_only_its_time(small_study_path, tmp_path, monkeypatch, early, given,
                                                         moved, files_of, how):
    parent = os.getpid()

    def broken(names, frames, folder):
        if os.getpid() != parent:
            if how == "dies":
                os._exit(9)
            raise OSError(28, "No space left on device")  # e.g. the temporary folder's disk, not the report's

    monkeypatch.setattr(files_ahead, "write_tables", broken)
    assert run(small_study_path, tmp_path / "serial", "1", monkeypatch) == 0
    assert run(small_study_path, tmp_path / "ahead", "2", monkeypatch) == 0
    assert given()[-1] == "None" and moved == []
    assert files_of(tmp_path / "serial") == files_of(tmp_path / "ahead")


@pytest.mark.parametrize("busy", [False, True])
def test_the_files_start_in_a_child_once_no_analysis_ahead_is_at_work(small_study_path, tmp_path, monkeypatch,
                                                                       forks, files_of, busy):
    """The disparity computed ahead and collected, the second core is idle while the report computes the
    inequality measures: the tables made so far (SOME_CELLS or more) start in the child then, not after the
    analyses. While an analysis ahead is still at work (``busy``: the funnel plot's limits, made slow in their
    child, whose turn comes after the inequality measures), they wait until the report is about to wait for
    it. The files are the serial run's either way."""
    # the small study's rates and disparity (the analysis ahead), then the inequality measures
    text = small_study_path.read_text(encoding="utf-8").split("[analyses.smoothing]")[0] + "[analyses.inequality]\n"
    study = tmp_path / "study.toml"
    study.write_text(text + ("[analyses.funnel]\n" if busy else ""), encoding="utf-8")
    monkeypatch.setattr(files_ahead, "SOME_CELLS", 1)  # this small study's tables are below the real sizes
    monkeypatch.setattr(files_ahead, "MANY_CELLS", 10**12)
    given = []
    real_offer, real_start = files_ahead.FilesAhead.offer, forked.Children.start

    def offer(self, **kw):  # from the moment the yearly gaps are made (the rates' tables alone would do)
        if "disparity_units_year" in self.report.tables:
            real_offer(self, **kw)
        if self.pending is not None and not given:
            given.append(list(self.names))

    def start(self, work, *args):  # the analyses ahead: the funnel plot's still at work at the next steps
        step = args[0]
        if busy and getattr(step, "key", None) == "funnel":
            args = (dataclasses.replace(step, compute=lambda res: (time.sleep(1.5), step.compute(res))[1]), *args[1:])
        return real_start(self, work, *args)

    monkeypatch.setattr(files_ahead.FilesAhead, "offer", offer)
    monkeypatch.setattr(forked.Children, "start", start)
    assert run(study, tmp_path / "serial", "1", monkeypatch) == 0
    assert run(study, tmp_path / "ahead", "2", monkeypatch) == 0
    assert len(given) == 1 and "disparity_units_year" in given[0]
    assert ("inequality_year" in given[0]) == busy  # idle: started before the inequality measures were made
    assert files_of(tmp_path / "serial") == files_of(tmp_path / "ahead")


def test_ctrl_c_while_the_files_are_written_ahead_ends_the_child_and_writes_nothing(small_study_path, tmp_path,
                                                                                     monkeypatch, capsys, early,
                                                                                     forks, own_tmp):
    parent = os.getpid()
    real_offer = files_ahead.FilesAhead.offer

    def slow(names, frames, folder):
        if os.getpid() != parent:
            time.sleep(120)  # still writing when Ctrl-C comes

    def offer(self, **kw):
        real_offer(self, **kw)
        if self.pending is not None:
            raise KeyboardInterrupt

    monkeypatch.setattr(files_ahead, "write_tables", slow)
    monkeypatch.setattr(files_ahead.FilesAhead, "offer", offer)
    out = tmp_path / "rep"
    assert run(small_study_path, out, "2", monkeypatch) == 130
    assert capsys.readouterr().err == "Interrupted: nothing was written\n"
    assert forks and forks.alive() == []
    assert not out.exists() and list(own_tmp.iterdir()) == []


def frames() -> dict:
    rng = np.random.default_rng(4)
    return {
        "contents": pd.DataFrame({"sheet": ["a", "b", "c"], "rows": [50, 3, 0]}),
        "a": pd.DataFrame({"unit": [f"{i:05d}" for i in range(50)], "rate": rng.random(50) * 20,
                           "note": ["x < y & z"] * 49 + [None]}),
        "b": pd.DataFrame({"year": [2001, 2002, 2003], "value": [1.5, np.nan, -0.0]}),
        "c": pd.DataFrame({"empty": pd.Series([], dtype=float)}),
    }


@pytest.mark.parametrize("ahead", [0, 1, 3])
def test_a_workbook_finished_from_its_first_sheets_is_the_workbook_written_in_one_go(tmp_path, ahead):
    sheets = frames()
    top = ["Title", "Caveat: one", ""]
    whole = excel.write_xlsx(sheets, tmp_path / "whole.xlsx", first_sheet_rows=top)
    part = tmp_path / "first.zip"
    assert excel.write_sheets(list(sheets.values())[1:1 + ahead], part) == ahead
    finished = excel.write_xlsx(sheets, tmp_path / "finished.xlsx", first_sheet_rows=top, written=(part, ahead))
    with zipfile.ZipFile(whole) as a, zipfile.ZipFile(finished) as b:
        assert sorted(a.namelist()) == sorted(b.namelist())
        assert len(b.namelist()) == len(set(b.namelist()))  # no part written twice
        assert {m: a.read(m) for m in a.namelist()} == {m: b.read(m) for m in b.namelist()}
    assert part.exists()  # copied, not moved: the child's zip is the session's to remove
    back = pd.read_excel(finished, sheet_name=None, dtype={"unit": str})
    assert list(back) == list(sheets)
    pd.testing.assert_frame_equal(back["a"], sheets["a"].assign(note=sheets["a"]["note"].where(
        sheets["a"]["note"].notna(), np.nan)), check_dtype=False)


def test_a_pending_child_is_done_only_once_it_has_ended():
    with forked.session(2) as children:
        assert children is not None
        pending = children.start(time.sleep, 0.5)
        assert not pending.done()
        deadline = time.monotonic() + 30
        while not pending.done():
            assert time.monotonic() < deadline
            time.sleep(0.02)
        assert pending.code == 0 and pending not in children.ahead
        assert pending.outcome()[:2] == (True, None)  # its result still read after done() reaped it


def test_joined_takes_the_open_sessions_children_else_opens_its_own(monkeypatch):
    monkeypatch.setenv("BRECHA_JOBS", "2")
    with forked.session() as outer:
        with forked.joined() as inner:
            assert inner is outer and outer is not None
        assert forked.current() is outer
    with forked.joined() as own:
        assert own is not None and forked.current() is own
    assert forked.current() is None


@pytest.mark.parametrize("files", ["tables", "workbook"])
def test_only_the_files_asked_for_are_written_ahead(small_study_path, tmp_path, monkeypatch, early, given, moved,
                                                    files_of, files):
    """``--files tables`` (or ``workbook``): the child writes only the CSV files (or only the sheets), and the
    report's files are the full serial report's, those asked for only (brecha.report_files)."""
    assert run(small_study_path, tmp_path / "serial", "1", monkeypatch) == 0
    monkeypatch.setenv("BRECHA_JOBS", "2")
    outputs.forget_completed()
    assert main(["--lang", "en", "report", str(small_study_path), "-o", str(tmp_path / "part"),
                 "--files", files]) == 0
    serial = files_of(tmp_path / "serial")
    part = {name: data for name, data in files_of(tmp_path / "part").items() if not name.startswith(".")}
    prefix = "tables/" if files == "tables" else "brecha.xlsx"
    assert part and all(name.startswith(prefix) for name in part)
    assert {n: serial[n] for n in part} == part
    assert len(part) == len([n for n in serial if n.startswith(prefix)])
    if files == "tables":  # the CSV files came from the child; no workbook was made
        assert given()[1:] == [] and len(moved) >= 3
    else:  # the sheets came from the child; no CSV file was moved in
        assert int(given()[-1]) >= 3 and moved == []


@pytest.mark.parametrize("ended", [True, False])
def test_the_workbooks_child_starts_before_the_csv_files_once_the_first_tables_child_has_ended(
        small_study_path, tmp_path, monkeypatch, early, given, files_of, ended):
    """When the first tables' child has ended by the time the files are written, the workbook's child is
    started before the report writes the other CSV files, beside them instead of after them (Brazil's report:
    it was the last thing to finish, 0.3 s later); while that child is still at work, the CSV files come first
    and the workbook's child after it. The files are the serial run's either way."""
    from brecha import csv_text

    parent = os.getpid()
    events = []
    real_ended, real_submit, real_csv = files_ahead.FilesAhead.ended, forked.Children.submit, csv_text.write_csv

    def ended_now(self):
        if self.pending is not None:
            self.pending.reap()  # the child has ended (deterministic here, usual on Brazil's report)
        return real_ended(self) if ended else False

    def submit(self, work, *args):
        events.append(getattr(work, "__name__", str(work)))
        return real_submit(self, work, *args)

    def write_csv(df, path):
        if os.getpid() == parent:
            events.append("csv")
        return real_csv(df, path)

    monkeypatch.setattr(files_ahead.FilesAhead, "ended", ended_now)
    monkeypatch.setattr(forked.Children, "submit", submit)
    monkeypatch.setattr(csv_text, "write_csv", write_csv)
    assert run(small_study_path, tmp_path / "serial", "1", monkeypatch) == 0
    events.clear()
    assert run(small_study_path, tmp_path / "ahead", "2", monkeypatch) == 0
    assert int(given()[-1]) >= 3  # the sheets written ahead were used either way
    first_csv = events.index("csv")
    book = events.index("write")  # excel.write_workbook as the fixture ``given`` wraps it
    assert (book < first_csv) == ended
    assert events[0] == "_write_dashboard" and events.count("csv") >= 3
    assert files_of(tmp_path / "serial") == files_of(tmp_path / "ahead")
