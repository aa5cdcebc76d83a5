"""Shared fixtures of the report tests: a small real study (Aysén region) built once, the default Chilean
report built once (used by the default-report test and the browser test), and what the tests of the forked
children share (forks, own_tmp, files_of)."""
import os
import tempfile
import zipfile
from pathlib import Path

import pytest

SMALL_STUDY = '''
title = "Aysén <test> & co"
language = "es"
period = "2006-2012"
[data]
example = "chile"
[units]
region = "11"
[reference]
rule = "best"
min_births = 1000
[analyses.rates]
[analyses.disparity]
per_year = true
pooled = true
focus = ["11101", "11201"]
[analyses.smoothing]
[analyses.funnel]
[analyses.distribution]
[analyses.trends]
[analyses.inequality]
[analyses.maps]
'''


@pytest.fixture(scope="session")
def small_study_path(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("small_study")
    path = folder / "aysen.toml"
    path.write_text(SMALL_STUDY, encoding="utf-8")
    return path


TINY_STUDY = '''
title = "Aysén"
language = "es"
period = "2008-2012"
[data]
example = "chile"
[units]
region = "11"
[analyses.rates]
[analyses.trends]
'''


@pytest.fixture(scope="session")
def tiny_study_path(tmp_path_factory) -> Path:
    """Rates and trends of one small region: for the CLI and degradation tests."""
    path = tmp_path_factory.mktemp("tiny_study") / "tiny.toml"
    path.write_text(TINY_STUDY, encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def small_report(small_study_path, tmp_path_factory):
    from brecha.report.build import build_report
    from brecha.study import read_study

    out = tmp_path_factory.mktemp("small_report")
    report = build_report(read_study(small_study_path), out)
    return report, out


@pytest.fixture(scope="session")
def default_report(tmp_path_factory):
    """The README's main job: the default Chilean report (all communes, 2000-2015)."""
    from brecha.report.build import build_report
    from brecha.study import example_study

    out = tmp_path_factory.mktemp("default_report")
    report = build_report(example_study("chile"), out, lang="en")
    return report, out


class Forks(list):
    """The pids of the children the report forked; :meth:`alive`: those still running."""

    def alive(self) -> list:
        out = []
        for pid in self:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                continue
            out.append(pid)
        return out


@pytest.fixture
def forks(monkeypatch) -> Forks:
    """The pids of the children the report forks (counted in the report's process only)."""
    pids = Forks()
    real = os.fork

    def fork():
        pid = real()
        if pid:
            pids.append(pid)
        return pid

    monkeypatch.setattr(os, "fork", fork)
    return pids


@pytest.fixture
def own_tmp(tmp_path, monkeypatch):
    """The children's folder goes under the test's folder, so a leftover one is seen."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def _files_of(root: Path) -> dict:
    """Every file's bytes; a workbook by its members (the zip stores the time it was written)."""
    out = {}
    for p in sorted(root.rglob("*")):
        if p.is_file():
            name = p.relative_to(root).as_posix()
            if p.suffix == ".xlsx":
                with zipfile.ZipFile(p) as z:
                    out[name] = {m: z.read(m) for m in z.namelist()}
            else:
                out[name] = p.read_bytes()
    return out


@pytest.fixture
def files_of():
    """``files_of(folder)``: every file's bytes, a workbook by its members, to compare two reports."""
    return _files_of
