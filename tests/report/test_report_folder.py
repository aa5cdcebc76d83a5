"""A report folder is replaced whole, and only brecha's own files in it (brecha.report.folder; docs/report.md,
"Your files are safe"): the user's files survive, an older report stays intact when a run is cut short, two
runs at once leave one complete report, and Ctrl-C on a real ``brecha report`` process writes nothing."""
import dataclasses
import hashlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pandas as pd
import pytest

from brecha import outputs
from brecha.cli.main import main
from brecha.errors import InputError
from brecha.i18n import set_language
from brecha.report import folder
from brecha.report.build import build_report, write_report
from brecha.study import read_study


@pytest.fixture(scope="module")
def tiny_report(tiny_study_path):
    """The tiny study's report, computed once; the tests only write it."""
    return build_report(read_study(tiny_study_path), None, lang="en", write=False)


@pytest.fixture(autouse=True)
def english():
    set_language("en")
    yield
    set_language("es")


def snapshot(root: Path) -> dict:
    """Every file under ``root`` (hidden ones too) with the hash of its bytes."""
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def leftovers(parent: Path) -> list[str]:
    return [p.name for p in parent.iterdir() if "brecha-tmp" in p.name or "brecha-lock" in p.name]


def manifest(out: Path) -> list[str]:
    return json.loads((out / folder.MANIFEST).read_text(encoding="utf-8"))["files"]


def test_a_new_folder_gets_the_report_and_a_manifest_of_exactly_its_files(tiny_report, tmp_path):
    out = tmp_path / "rep"
    write_report(tiny_report, out)
    files = set(snapshot(out)) - {folder.MANIFEST}
    assert set(manifest(out)) == files
    assert {"index.html", "brecha.xlsx", "tables/rates_national.csv"} <= files
    assert {f"tables/{name}.csv" for name in tiny_report.tables} == {f for f in files if f.startswith("tables/")}
    assert leftovers(tmp_path) == []


def test_the_users_own_files_survive_and_only_brechas_stale_files_go(tiny_report, tmp_path):
    out = tmp_path / "rep"
    write_report(tiny_report, out)
    (out / "notes.txt").write_text("my notes")
    (out / "tables" / "mine.csv").write_text("a\n1\n")
    (out / "figures" / "logo.png").write_bytes(b"\x89PNG mine")
    # a table an earlier report wrote and this one does not: listed in the manifest, so it is brecha's
    (out / "tables" / "dropped.csv").write_text("old\n")
    (out / folder.MANIFEST).write_text(json.dumps({"files": manifest(out) + ["tables/dropped.csv"]}))
    write_report(tiny_report, out)
    assert (out / "notes.txt").read_text() == "my notes"
    assert (out / "tables" / "mine.csv").read_text() == "a\n1\n"
    assert (out / "figures" / "logo.png").read_bytes() == b"\x89PNG mine"
    assert not (out / "tables" / "dropped.csv").exists()
    assert "tables/mine.csv" not in manifest(out) and "notes.txt" not in manifest(out)
    assert leftovers(tmp_path) == []


def test_a_users_file_with_a_report_name_is_never_overwritten(tiny_report, tmp_path):
    out = tmp_path / "mine"
    (out / "tables").mkdir(parents=True)
    (out / "tables" / "rates_national.csv").write_text("my own table\n")
    (out / "data.csv").write_text("keep\n")
    before = snapshot(out)
    with pytest.raises(InputError) as err:
        write_report(tiny_report, out)
    assert "tables/rates_national.csv" in str(err.value) and "they are not overwritten" in str(err.value)
    assert str(out) in str(err.value)
    assert snapshot(out) == before and leftovers(tmp_path) == []


def test_an_index_html_of_the_users_stops_the_cli_before_the_work(tiny_study_path, tmp_path, capsys):
    out = tmp_path / "site"
    out.mkdir()
    (out / "index.html").write_text("<html>my page</html>")
    assert main(["--lang", "en", "report", str(tiny_study_path), "-o", str(out)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""  # not even the "Study:" line: refused before the work
    assert "index.html" in captured.err and "choose another folder with -o" in captured.err
    assert (out / "index.html").read_text() == "<html>my page</html>" and sorted(os.listdir(out)) == ["index.html"]
    assert main(["--lang", "es", "report", str(tiny_study_path), "-o", str(out)]) == 2
    assert "no se sobrescriben" in capsys.readouterr().err


def test_a_report_from_before_manifests_is_taken_as_brechas(tiny_report, tmp_path):
    out = tmp_path / "old"
    write_report(tiny_report, out)
    (out / folder.MANIFEST).unlink()
    (out / "tables" / "rates_national.csv").write_text("old version\n")
    write_report(tiny_report, out)
    assert (out / "tables" / "rates_national.csv").read_text() != "old version\n"
    assert "tables/rates_national.csv" in manifest(out)


def test_report_o_naming_a_file_and_an_input_inside_the_folder_are_refused(tiny_study_path, tmp_path, capsys):
    target = tmp_path / "panel.csv"
    target.write_text("unit,year\n")
    assert main(["--lang", "en", "report", str(tiny_study_path), "-o", str(target)]) == 2
    err = capsys.readouterr().err
    assert "-o names an existing file, and the report is a folder" in err and f"e.g. {tmp_path / 'panel'}" in err
    assert target.read_text() == "unit,year\n"
    # a study whose panel file lies in the report's tables/ folder would have it replaced
    from brecha.datasets import chile

    out = tmp_path / "rep"
    (out / "tables").mkdir(parents=True)
    chile().subset(region="11").to_file(out / "tables" / "panel.csv")
    study = tmp_path / "s.toml"
    study.write_text('period = "2008-2012"\n[data]\npanel = "rep/tables/panel.csv"\n[analyses.rates]\n')
    before = snapshot(out)
    assert main(["--lang", "en", "report", str(study), "-o", str(out)]) == 2
    assert "is in the report folder, where the report writes" in capsys.readouterr().err
    assert snapshot(out) == before


@pytest.mark.parametrize("failure", [KeyboardInterrupt(), OSError(28, "No space left on device")])
def test_an_older_report_stays_intact_when_the_new_run_fails_while_writing(tiny_report, tmp_path, monkeypatch,
                                                                            failure):
    out = tmp_path / "rep"
    write_report(tiny_report, out)
    (out / "notes.txt").write_text("mine")
    before = snapshot(out)
    from brecha.report import excel

    def half_workbook(report, path):
        Path(path).write_bytes(b"PK\x03\x04 half")
        raise failure

    monkeypatch.setattr(excel, "write_workbook", half_workbook)
    with pytest.raises((KeyboardInterrupt, InputError)) as err:
        write_report(tiny_report, out)
    assert snapshot(out) == before and leftovers(tmp_path) == []
    if isinstance(failure, OSError):
        assert "the disk is full" in str(err.value) and str(out) in str(err.value)


@pytest.mark.parametrize("lang, words", [("en", "the disk is full"), ("es", "no queda espacio en el disco")])
def test_a_full_disk_while_drawing_a_figure_stops_the_report_and_keeps_the_earlier_one(
        tiny_study_path, tiny_report, tmp_path, monkeypatch, capsys, lang, words):
    """Before: the figure was dropped as 'analysis failed', and a report missing it replaced the earlier one
    with exit 0. A full disk is the machine's problem: exit 2 naming the folder, the earlier report intact.
    (The figures are SVG text made in memory now, but an OSError of the machine met while one is made must
    still stop the report, not leave the figure out.)"""
    from brecha.report import svg

    out = tmp_path / "rep"
    write_report(tiny_report, out)
    before = snapshot(out)
    calls = [0]
    original = svg.Svg.to_bytes

    def full_at_the_second(self, *args, **kwargs):
        calls[0] += 1
        if calls[0] == 2:
            raise OSError(28, "No space left on device")
        return original(self, *args, **kwargs)

    monkeypatch.setattr(svg.Svg, "to_bytes", full_at_the_second)
    monkeypatch.setenv("BRECHA_JOBS", "1")
    outputs.forget_completed()
    assert main(["--lang", lang, "report", str(tiny_study_path), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.startswith("Error:")]
    assert len(lines) == 1 and words in lines[0] and str(out) in lines[0], err
    assert calls[0] == 2 and snapshot(out) == before and leftovers(tmp_path) == []


def test_ctrl_c_during_the_cli_report_says_nothing_was_written(tiny_study_path, tmp_path, monkeypatch, capsys):
    out = tmp_path / "rep"
    outputs.forget_completed()

    def interrupt(*args, **kwargs):
        raise KeyboardInterrupt

    from brecha.report import html

    monkeypatch.setattr(html, "render_html", interrupt)
    assert main(["--lang", "en", "report", str(tiny_study_path), "-o", str(out)]) == 130
    err = capsys.readouterr().err
    assert err == "Interrupted: nothing was written\n"
    assert not out.exists() and leftovers(tmp_path) == []


def test_two_runs_at_once_leave_one_complete_report(tiny_report, tmp_path):
    """Two threads write different reports (B has one table more) into one folder, five times over: each
    ends with the folder holding exactly one of them, whole, its manifest naming exactly its files."""
    extra = pd.DataFrame({"unit": ["11101"], "value": [1.0]})
    report_b = dataclasses.replace(tiny_report, tables={**tiny_report.tables, "only_in_b": (extra, "B")})
    files_a = {f"tables/{n}.csv" for n in tiny_report.tables}
    files_b = files_a | {"tables/only_in_b.csv"}
    for _round in range(5):
        out = tmp_path / f"rep{_round}"
        errors = []

        def run(report):
            try:
                write_report(report, out)
            except Exception as exc:  # noqa: BLE001 - asserted empty below
                errors.append(exc)

        threads = [threading.Thread(target=run, args=(r,)) for r in (tiny_report, report_b)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert errors == []
        on_disk = set(snapshot(out)) - {folder.MANIFEST}
        assert set(manifest(out)) == on_disk
        tables = {f for f in on_disk if f.startswith("tables/")}
        assert tables in (files_a, files_b)
        book = pd.ExcelFile(out / "brecha.xlsx")
        assert any("only_in_b" in s for s in book.sheet_names) == (tables == files_b)
        assert leftovers(tmp_path) == []


def test_a_run_holding_the_folder_makes_the_second_stop_with_a_clear_message(tiny_report, tmp_path, monkeypatch):
    monkeypatch.setattr(outputs, "LOCK_WAIT_SECONDS", 0.3)
    out = tmp_path / "rep"
    write_report(tiny_report, out)
    before = snapshot(out)
    with outputs.Lock(out):
        with pytest.raises(InputError) as err:
            write_report(tiny_report, out)
    assert f"another brecha run (process {os.getpid()}" in str(err.value) and str(out) in str(err.value)
    assert snapshot(out) == before and leftovers(tmp_path) == []


def test_sigint_to_a_real_brecha_report_process(tiny_report, tmp_path):
    """Ctrl-C on ``brecha report`` mid-run: exit 130, one line on stderr, no traceback, the older report in
    the folder byte-identical, no temporary folder or lock left."""
    out = tmp_path / "rep"
    write_report(tiny_report, out)
    (out / "notes.txt").write_text("mine")
    before = snapshot(out)
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "brecha.cli.main", "--lang", "en", "report", "--example",
                             "chile", "-o", str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env, cwd=tmp_path,  # Ctrl-C's default action, as in a foreground process
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    first = proc.stdout.readline()  # "Study: ..." is printed once the work starts
    assert first.startswith("Study:"), first + proc.stderr.read()
    time.sleep(1.0)
    assert proc.poll() is None, "the report ended before it could be interrupted"
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 130, stderr
    assert stderr == "Interrupted: nothing was written\n"
    assert "Traceback" not in stdout
    assert snapshot(out) == before and leftovers(tmp_path) == []
