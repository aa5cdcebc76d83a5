"""Analyses computed ahead in forked children, and the workbook and the dashboard written in children
(brecha.report.ahead, brecha.report.forked; issue 19): the same report byte for byte as the serial path,
each ahead analysis computed once and in a child, its notes, warnings and errors reaching the report as in a
serial run, a dying child named; a full disk while the workbook is written in a child stops the report as in
the serial path."""
import dataclasses
import os
import warnings
from pathlib import Path

import pytest

from brecha import cores, outputs
from brecha.cli.main import main
from brecha.i18n import set_language
from brecha.report import ahead, dashboard, excel, forked, sections
from brecha.report.analyses import StudyResults
from brecha.report.build import build_report
from brecha.report.calls import Unavailable
from brecha.report.data import load_study_panel
from brecha.report.blocks import Report
from brecha.study import read_study

pytestmark = pytest.mark.skipif(not forked.parallel_possible(), reason="no fork on this platform")

BOTH = '''
title = "Aysén"
language = "en"
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
focus_covariate = "poverty"
[analyses.decompose]
by = "province"
measures = ["theil", "gini"]
rank_by = "poverty"
determinants = ["poverty", "schooling"]
bootstrap = 200
seed = 3
[analyses.spatial]
neighbours = "queen"
permutations = 99
seed = 5
[analyses.smoothing]
[analyses.trends]
[analyses.funnel]
[analyses.models]
covariates = ["poverty"]
models = ["pooled", "fe"]
'''

# rates and an analytic decomposition only: quick, for the paths where the decomposition is replaced
QUICK = BOTH.split("[analyses.decompose]")[0] + '''[analyses.decompose]
by = "province"
measures = ["theil"]
bootstrap = 0
'''

# every short analysis, neither long one
NEITHER = BOTH.split("[analyses.decompose]")[0] + "[analyses.smoothing]" + BOTH.split("[analyses.smoothing]")[1]


@pytest.fixture(autouse=True)
def english():
    set_language("en")
    yield
    set_language("es")


def study_file(tmp_path, text) -> Path:
    path = tmp_path / "study.toml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture(autouse=True)
def registry():
    """The report's registry of steps as it was, after each test (replace_compute changes it in place)."""
    kept = list(sections.STEPS)
    yield
    sections.STEPS[:] = kept


def replace_compute(monkeypatch, key: str, compute) -> None:
    """The step ``key`` of the report's registry with another analysis (the registry is one list, which
    build.py holds too)."""
    i = next(i for i, step in enumerate(sections.STEPS) if step.key == key)
    sections.STEPS[i] = dataclasses.replace(sections.STEPS[i], compute=compute)


def report_with(study, monkeypatch, jobs: str, out=None):
    monkeypatch.setenv("BRECHA_JOBS", jobs)
    return build_report(read_study(study), out, lang="en", write=out is not None)


def test_the_report_with_analyses_ahead_is_the_serial_report_byte_for_byte(tmp_path, monkeypatch, forks,
                                                                             files_of):
    """The decomposition and the spatial analysis computed in children, the workbook and the dashboard
    written in children: every file is the serial run's, the workbook member by member."""
    study = study_file(tmp_path, BOTH)
    counted = {}
    for jobs in ("1", "2", "8"):
        monkeypatch.setenv("BRECHA_JOBS", jobs)
        outputs.forget_completed()
        before = len(forks)
        assert main(["--lang", "en", "report", str(study), "-o", str(tmp_path / jobs)]) == 0
        counted[jobs] = len(forks) - before
    serial = files_of(tmp_path / "1")
    assert {"tables/gap_where_year.csv", "tables/spatial_local.csv", "tables/spatial_bym2.csv",
            "brecha.xlsx", "dashboard.html"} <= serial.keys()
    assert any(n.startswith("figures/") for n in serial)
    for jobs in ("2", "8"):
        parallel = files_of(tmp_path / jobs)
        assert serial.keys() == parallel.keys()
        assert [n for n in serial if serial[n] != parallel[n]] == [], jobs
    # BRECHA_JOBS=1: everything in the report's own process. 2 cores: the data loaded (load_ahead.py), the two
    # long analyses (decomposition, spatial), the workbook and the dashboard. 8 cores: the five short analyses
    # too (smoothing, disparity, trends, funnel, models). The figures are made in the report's process.
    assert counted == {"1": 0, "2": 5, "8": 10}


def test_the_short_analyses_go_ahead_only_when_a_core_is_left_beyond_the_long_ones(tmp_path):
    """ahead.chosen: the long analyses always; the short ones when the cores exceed the report's own plus one
    per long analysis; a study without the long ones gives its short ones the second core."""
    study = read_study(study_file(tmp_path, BOTH))
    short = ["smoothing", "disparity", "trends", "funnel", "models"]
    keys = {jobs: [s.key for s in ahead.chosen(sections.STEPS, study, jobs)] for jobs in (2, 3, 4, 8)}
    assert keys[2] == keys[3] == ["gap_where", "spatial"]
    assert keys[4] == keys[8] == short + ["gap_where", "spatial"]
    quick = read_study(study_file(tmp_path, QUICK))  # the decomposition, not the spatial step
    assert [s.key for s in ahead.chosen(sections.STEPS, quick, 2)] == ["gap_where"]
    assert [s.key for s in ahead.chosen(sections.STEPS, quick, 3)][-1] == "gap_where"
    assert len(ahead.chosen(sections.STEPS, quick, 3)) > 1
    plain = read_study(study_file(tmp_path, NEITHER))
    assert [s.key for s in ahead.chosen(sections.STEPS, plain, 2)] == short
    assert ahead.chosen(sections.STEPS, plain, 1) == []


def test_an_analysis_ahead_runs_once_in_a_child_and_its_notes_and_warnings_reach_the_report(tmp_path,
                                                                                         monkeypatch):
    study = study_file(tmp_path, QUICK)
    real = next(s.compute for s in sections.STEPS if s.key == "gap_where")
    ran = tmp_path / "ran"

    def compute(res):
        with open(ran, "a") as f:
            f.write(f"{os.getpid()}\n")
        res.notes.append("a caveat the decomposition found")
        warnings.warn("a warning of the decomposition", UserWarning)
        real(res)

    replace_compute(monkeypatch, "gap_where", compute)
    serial = report_with(study, monkeypatch, "1")
    assert ran.read_text() == f"{os.getpid()}\n"
    ran.unlink()
    parallel = report_with(study, monkeypatch, "2")
    pids = ran.read_text().split()
    assert len(pids) == 1 and int(pids[0]) != os.getpid()  # once, in a child
    for rep in (serial, parallel):
        assert "a caveat the decomposition found" in rep.notes
        assert "a warning of the decomposition" in rep.warnings
    assert parallel.notes == serial.notes and parallel.warnings == serial.warnings
    assert parallel.tables["gap_where_year"][0].equals(serial.tables["gap_where_year"][0])


class NeedsTwoArguments(Exception):
    """An error that pickles but cannot be made again from its arguments (it travels back as its text)."""

    def __init__(self, what, why):
        super().__init__(f"{what}: {why}")


@pytest.mark.parametrize("error, shown", [
    (Unavailable("no province has two units"), "no province has two units"),
    (ValueError("a ragged table"), "ValueError: a ragged table"),
    (NeedsTwoArguments("ragged", "table"), "NeedsTwoArguments: ragged: table"),
])
def test_an_analysis_ahead_that_fails_is_not_available_with_the_serial_reason(tmp_path, monkeypatch, error,
                                                                               shown):
    study = study_file(tmp_path, QUICK)

    def compute(res):
        raise error

    replace_compute(monkeypatch, "gap_where", compute)
    excluded = {}
    for jobs in ("1", "2"):
        rep = report_with(study, monkeypatch, jobs)
        section = next(s for s in rep.sections if s.key == "gap_where")
        assert [b.kind for b in section.blocks] == ["unavailable"]
        excluded[jobs] = [e for e in rep.excluded if "Where is the gap" in e]
        assert len(excluded[jobs]) == 1 and shown in excluded[jobs][0], excluded[jobs]
    if not isinstance(error, NeedsTwoArguments):
        assert excluded["1"] == excluded["2"]


@pytest.mark.parametrize("lang, message", [
    ("en", "the process computing gap_where ended without a result (code 7)"),
    ("es", "el proceso que calculaba gap_where terminó sin resultado (código 7)"),
])
def test_a_child_that_dies_leaves_its_section_not_available_and_the_report_goes_on(tmp_path, monkeypatch, lang,
                                                                                     message):
    study = study_file(tmp_path, QUICK)
    parent = os.getpid()

    def compute(res):
        if os.getpid() != parent:
            os._exit(7)  # as if killed: no result at all

    replace_compute(monkeypatch, "gap_where", compute)
    monkeypatch.setenv("BRECHA_JOBS", "2")
    out = tmp_path / "rep"
    outputs.forget_completed()
    assert main(["--lang", lang, "report", str(study), "-o", str(out)]) == 0
    page = (out / "index.html").read_text(encoding="utf-8")
    assert message in page
    assert (out / "tables" / "rates_units_year.csv").exists()  # everything else reported


def test_each_step_computed_ahead_sets_only_the_results_it_names(tmp_path):
    """What a child sends back is what the step names: an analysis that set anything else would lose it in
    the parallel path, so the contract is checked on the real analyses, run here."""
    study = read_study(study_file(tmp_path, BOTH))
    panel = load_study_panel(study, Report(study=study, lang="en", title="t"))
    steps = [s for s in sections.STEPS if s.ahead]
    assert {s.key for s in steps} == {"smoothing", "disparity", "trends", "funnel", "models", "gap_where", "spatial"}
    for step in steps:
        assert step.when is None and step.compute is not None
        res = StudyResults(study, panel, study.outcomes[0])
        before = {f.name: getattr(res, f.name) for f in dataclasses.fields(res)}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # Aysén's island commune, noted by both analyses
            step.compute(res)
        changed = {name for name, value in before.items() if getattr(res, name) is not value}
        assert changed == set(step.ahead), step.key  # this study asks for every result the step can set


@pytest.mark.parametrize("module, function", [(excel, "write_workbook"), (dashboard, "render_dashboard")])
def test_a_full_disk_while_a_file_is_written_in_a_child_stops_the_report_naming_the_folder(
        tmp_path, monkeypatch, capsys, module, function, files_of):
    """The workbook and the dashboard are written in children: as in the serial path
    (test_report_folder.py), exit 2, the folder named, the earlier report intact."""
    study = study_file(tmp_path, QUICK)
    out = tmp_path / "rep"
    monkeypatch.setenv("BRECHA_JOBS", "1")
    assert main(["--lang", "en", "report", str(study), "-o", str(out)]) == 0
    before = files_of(out)
    parent = os.getpid()
    real = getattr(module, function)

    def write(*args):
        if os.getpid() != parent:
            raise OSError(28, "No space left on device")
        return real(*args)

    monkeypatch.setattr(module, function, write)
    monkeypatch.setenv("BRECHA_JOBS", "2")
    outputs.forget_completed()
    capsys.readouterr()
    assert main(["--lang", "en", "report", str(study), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert str(out) in err and "space" in err.lower() and "Traceback" not in err, err
    assert files_of(out) == before


def test_a_child_writing_the_workbook_that_dies_is_a_clear_error(tmp_path, monkeypatch, capsys):
    study = study_file(tmp_path, QUICK)
    parent = os.getpid()

    def write(report, path, written=None):
        if os.getpid() != parent:
            os._exit(7)

    monkeypatch.setattr(excel, "write_workbook", write)
    monkeypatch.setenv("BRECHA_JOBS", "2")
    set_language("es")
    out = tmp_path / "rep"
    assert main(["--lang", "es", "report", str(study), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "el proceso que escribía brecha.xlsx terminó sin resultado (código 7)" in err, err
    assert not out.exists()


def test_nothing_starts_ahead_when_children_do_not_pay(tmp_path, monkeypatch, forks):
    """Both cores busy while the command ran (BRECHA_JOBS unset): every step computes in its turn, here, and
    no child is forked."""
    monkeypatch.delenv("BRECHA_JOBS")
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1})
    monkeypatch.setattr(cores, "spare_cores", lambda: 0.05)
    with forked.session() as children:
        assert children is None
        study = read_study(study_file(tmp_path, QUICK))
        assert ahead.start(sections.STEPS, StudyResults(study, None, "infant")) == {}
    assert forks == []


def test_ctrl_c_while_analyses_are_computed_ahead_ends_them_and_writes_nothing(tmp_path, monkeypatch, capsys,
                                                                               forks, own_tmp):
    study = study_file(tmp_path, QUICK)
    parent = os.getpid()

    def slow(res):
        if os.getpid() != parent:
            import time

            time.sleep(120)  # still computing when Ctrl-C comes

    def interrupt(res):
        raise KeyboardInterrupt

    replace_compute(monkeypatch, "gap_where", slow)
    replace_compute(monkeypatch, "rates", interrupt)  # the first step, while the decomposition runs ahead
    monkeypatch.setenv("BRECHA_JOBS", "2")
    out = tmp_path / "rep"
    outputs.forget_completed()
    assert main(["--lang", "en", "report", str(study), "-o", str(out)]) == 130
    assert capsys.readouterr().err == "Interrupted: nothing was written\n"
    assert len(forks) == 2 and forks.alive() == []  # the data loaded and the decomposition (2 cores: the
    # disparity, a short analysis, is computed in the report's process: ahead.chosen)
    assert not out.exists() and list(own_tmp.iterdir()) == []


def test_a_result_the_child_left_alone_is_not_sent_back_over_the_parents(monkeypatch):
    """The reference is named by the disparity step, which sets it only when nobody has: if the parent set it
    meanwhile, collecting the child's results must not put the child's None over it."""
    import types

    monkeypatch.setenv("BRECHA_JOBS", "2")

    def compute(res):
        res.gap = {"ratio": 1.5}  # sets one of its two named results

    step = sections.Step("toy", "toy", build=None, compute=compute, ahead=("reference", "gap"))
    study = types.SimpleNamespace(wants=lambda name: True)
    res = types.SimpleNamespace(study=study, reference=None, gap=None, notes=[])
    with forked.session() as children:
        assert children is not None
        started = ahead.start([step], res)
        res.reference = (["11101"], "Coyhaique")  # the parent's own, meanwhile
        ahead.collect(started["toy"], step, res)
    assert res.gap == {"ratio": 1.5} and res.reference == (["11101"], "Coyhaique")


def test_the_modules_the_report_and_the_analyses_ahead_share_are_imported_before_the_fork(tmp_path, monkeypatch,
                                                                                          forks):
    """scipy.special and scipy.linalg (the rates' intervals in the report's own process, the gap and the spatial
    analysis in children) are imported once, before the first child is forked, so no child imports them again
    (0.25-0.35 s of CPU each)."""
    import importlib

    events = []
    real_import, real_start = importlib.import_module, forked.Children.start
    monkeypatch.setattr(importlib, "import_module", lambda name, *a: (events.append(("import", name)),
                                                                       real_import(name, *a))[1])
    monkeypatch.setattr(forked.Children, "start", lambda self, *a: (events.append(("fork", None)),
                                                                   real_start(self, *a))[1])
    monkeypatch.setenv("BRECHA_JOBS", "2")
    study = read_study(study_file(tmp_path, BOTH))
    with forked.session() as children:
        assert children is not None
        started = ahead.start(sections.STEPS, StudyResults(study, load_study_panel(study, Report(study=study, lang="en", title="t")),
                                                           "infant"))
        assert set(started) == {"gap_where", "spatial"}  # 2 cores: the long analyses only (ahead.chosen)
        for pending in started.values():
            pending.reap()
    first_fork = events.index(("fork", None))
    assert {name for kind, name in events[:first_fork] if kind == "import"} >= set(ahead.SHARED_MODULES)
    assert ahead.SHARED_MODULES == ("scipy.special", "scipy.linalg")


def test_the_events_tables_are_made_once_before_the_fork_and_the_children_take_them_from_memory(
        tmp_path, monkeypatch):
    """ahead.remember_events: the study's events tables per year and pooled, which every analysis starts
    from, are made in the report's process before the analyses ahead are forked; the children find them in
    the Panel's memory instead of making them again (Brazil's report made events tables of its 111,400
    unit-years 10 times in 5 processes, 4 times serially: 0.46 s of CPU of 5.45). That the files stay the
    serial run's is the first test's check."""
    from brecha.panel import Panel

    made = tmp_path / "made"
    real = Panel._events

    def logged(self, outcome, years, pool, level, incomplete):
        with open(made, "a", encoding="utf-8") as f:
            f.write(f"{os.getpid()}\t{outcome}\t{tuple(years) if years is not None else None}\t{pool}\t{level}\n")
        return real(self, outcome, years, pool, level, incomplete)

    monkeypatch.setattr(Panel, "_events", logged)
    report = report_with(study_file(tmp_path, BOTH), monkeypatch, "2")
    assert report.tables["gap_where_year"][0].shape[0] > 0 and report.tables["spatial_local"][0].shape[0] > 0
    rows = [line.split("\t") for line in made.read_text(encoding="utf-8").splitlines()]
    period = str(tuple(range(2006, 2013)))
    study_tables = [(pid, pool) for pid, outcome, years, pool, level in rows
                    if outcome == "infant" and years == period and level == "None"]
    # each made once, in this process (the children took them from memory)
    assert sorted(study_tables) == [(str(os.getpid()), "False"), (str(os.getpid()), "True")]
    assert {pid for pid, *_ in rows} == {str(os.getpid())}  # no child made any events table here


def test_remembering_the_events_tables_needs_the_panels_memory(tmp_path):
    """Outside Panel.events_remembered() a table made ahead would not be kept: nothing is made then; an
    outcome the data lack is left for the analyses to report."""
    study = read_study(study_file(tmp_path, QUICK))
    panel = load_study_panel(study, Report(study=study, lang="en", title="t"))
    results = StudyResults(study, panel, "infant")
    ahead.remember_events(results)
    assert not panel.remembers_events and "_events_memo" not in panel.__dict__
    with panel.events_remembered():
        assert panel.remembers_events
        ahead.remember_events(results)
        assert sorted(key[2] for key in panel.__dict__["_events_memo"]) == [False, True]
    with panel.events_remembered():
        ahead.remember_events(StudyResults(study, panel, "neonatal"))  # not in the embedded data
        assert panel.__dict__["_events_memo"] == {}


def test_linear_algebra_is_shared_only_with_a_study_that_factors_matrices(tmp_path):
    """ahead.shared_modules: scipy.linalg (BYM2's factorisations, the panel models' least squares) is imported
    before the fork only for a study that has one of those analyses; scipy.special always (the rates'
    intervals). The Brazilian example has neither: its report imported scipy.linalg for nothing."""
    from brecha.study import example_study

    assert ahead.shared_modules(read_study(study_file(tmp_path, BOTH))) == ("scipy.special", "scipy.linalg")
    assert ahead.shared_modules(read_study(study_file(tmp_path, NEITHER))) == ("scipy.special", "scipy.linalg")
    no_models = NEITHER.split("[analyses.models]")[0]
    assert ahead.shared_modules(read_study(study_file(tmp_path, no_models))) == ("scipy.special",)
    assert ahead.shared_modules(example_study("brazil")) == ("scipy.special",)
    assert ahead.shared_modules(example_study("chile")) == ("scipy.special", "scipy.linalg")
    assert ahead.shared_modules(None) == ahead.SHARED_MODULES  # a caller without a study: everything


def test_the_brazilian_report_does_not_import_linear_algebra_for_its_children(tmp_path):
    """No analysis of the Brazilian example needs scipy.linalg: the report with children imports it only if
    the serial one does (newer scipy and pandas never do; scipy 1.11's special functions import it
    themselves). A subprocess each: this test process has it imported already."""
    import shutil
    import subprocess
    import sys

    out_dir = str(tmp_path / "r")
    code = ("import sys; from brecha.cli.main import main; "
            f"rc = main(['--quiet', 'report', '--example', 'brazil', '--files', 'tables', '-o', {out_dir!r}]); "
            "print('scipy.linalg' in sys.modules, rc)")
    imported = {}
    for jobs in ("1", "2"):
        env = {**os.environ, "BRECHA_JOBS": jobs}
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
        imported[jobs], rc = out.stdout.split()[-2:]
        assert rc == "0", (jobs, out.stdout[-500:], out.stderr[-1500:])
        shutil.rmtree(tmp_path / "r")
    assert imported["2"] == imported["1"]
