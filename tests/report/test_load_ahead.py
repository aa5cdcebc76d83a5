"""The study's data loaded in a forked child while the report's process imports (brecha.report.load_ahead;
issue 19): the same Panel and the same report fields as loading in the process, in a child and once, the
report's own lists and dicts kept, the warnings raised in the report in their order, an error the serial
error, a child that dies named; without children nothing is forked."""
import os
import warnings

import pytest

from brecha.errors import InputError
from brecha.i18n import set_language
from brecha.panel import Panel
from brecha.report import forked, load_ahead
from brecha.report.blocks import Report
from brecha.report.data import load_study_panel
from brecha.study import read_study

pytestmark = pytest.mark.skipif(not forked.parallel_possible(), reason="no fork on this platform")

# a study that leaves years out (before the data) and attaches covariates
STUDY = '''
title = "Aysén"
language = "en"
period = "1998-2012"
covariates = ["poverty", "schooling"]
[data]
example = "chile"
[units]
region = "11"
[analyses.rates]
'''


@pytest.fixture(autouse=True)
def english():
    set_language("en")
    yield
    set_language("es")


def study_of(tmp_path, text=STUDY):
    path = tmp_path / "study.toml"
    path.write_text(text, encoding="utf-8")
    return read_study(path)


def loaded(study, jobs: str, monkeypatch):
    """``load_ahead.load`` inside a report's session of children (``BRECHA_JOBS=jobs``): (panel, report)."""
    monkeypatch.setenv("BRECHA_JOBS", jobs)
    report = Report(study=study, lang="en", title="t")
    with forked.session() as children:
        assert (children is not None) == (jobs != "1")
        panel = load_ahead.load(study, report)
    return panel, report


def test_the_data_loaded_in_a_child_are_those_loaded_here(tmp_path, monkeypatch, forks):
    study = study_of(tmp_path)
    here = Report(study=study, lang="en", title="t")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = load_study_panel(study, here)
        panel, report = loaded(study, "2", monkeypatch)
    assert len(forks) == 1  # loaded once, in a child
    assert panel.data.equals(expected.data) and panel.units.equals(expected.units)
    assert list(panel.data.columns) == list(expected.data.columns) and "poverty" in panel.data
    assert panel.years == expected.years and panel.country == expected.country == "CL"
    assert panel.notes == expected.notes and panel.warnings == expected.warnings
    assert panel.registry.name_label("11101") == expected.registry.name_label("11101")
    # what loading wrote on the report: the exclusions (the years before the data), the notes and the
    # ledger's table
    assert report.excluded == here.excluded and any("1998-1999" in e for e in report.excluded)
    assert {"poverty", "schooling"} <= set(panel.data.columns)
    assert report.notes == here.notes and report.notes and report.warnings == here.warnings
    assert report.tables.keys() == here.tables.keys() == {"ledger"}
    assert report.tables["ledger"][0].equals(here.tables["ledger"][0])
    assert report.tables["ledger"][1] == here.tables["ledger"][1]
    for name in load_ahead.FIELDS:  # every field loading may write: the same as loading here
        if name != "tables":
            assert getattr(report, name) == getattr(here, name), name


def test_without_children_the_data_are_loaded_here(tmp_path, monkeypatch, forks):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        panel, report = loaded(study_of(tmp_path), "1", monkeypatch)
    assert forks == [] and len(panel.data) and report.excluded


def small_panel() -> Panel:
    import pandas as pd

    return Panel(pd.DataFrame({"unit": ["a", "b"], "year": 2010, "births": [100, 200], "deaths": [1, 2]}))


def test_the_reports_lists_stay_its_own_and_the_warnings_come_in_order(tmp_path, monkeypatch):
    ran = tmp_path / "ran"

    def fake_load(study, report):
        ran.write_text(str(os.getpid()))
        warnings.warn("first while loading", UserWarning)
        report.excluded.append("left out while loading")
        report.notes.append("a note of the data")
        report.tables["ledger"] = ("a table", "Ledger")
        report.reference_label = "set while loading"
        warnings.warn("second while loading", RuntimeWarning)
        return small_panel()

    monkeypatch.setattr(load_ahead, "load_study_panel", fake_load)
    monkeypatch.setenv("BRECHA_JOBS", "2")
    report = Report(study=None, lang="en", title="t")
    held = (report.excluded, report.notes, report.tables, report.timings)
    with forked.session(), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        panel = load_ahead.load(None, report)
    assert int(ran.read_text()) != os.getpid()  # in a child
    assert [(str(w.message), w.category) for w in caught] == [("first while loading", UserWarning),
                                                               ("second while loading", RuntimeWarning)]
    assert (report.excluded, report.notes, report.tables, report.timings) == held
    assert all(a is b for a, b in zip((report.excluded, report.notes, report.tables, report.timings), held))
    assert report.excluded == ["left out while loading"] and report.notes == ["a note of the data"]
    assert report.tables == {"ledger": ("a table", "Ledger")} and report.reference_label == "set while loading"
    assert list(panel.data["births"]) == [100, 200]


def test_an_error_while_loading_is_the_error_of_loading_here(tmp_path, monkeypatch):
    study = study_of(tmp_path, STUDY.replace('period = "1998-2012"', 'period = "1990-1995"'))
    with pytest.raises(InputError) as here:
        load_study_panel(study, Report(study=study, lang="en", title="t"))
    with pytest.raises(InputError) as child:
        loaded(study, "2", monkeypatch)
    assert str(child.value) == str(here.value)
    assert "none of the study's years (1990-1995) is in the data (2000-2015)" in str(child.value)
    assert child.value.hint == here.value.hint


@pytest.mark.parametrize("lang, message", [
    ("en", "the process loading the data ended without a result (code 7)"),
    ("es", "el proceso que cargaba los datos terminó sin resultado (código 7)"),
])
def test_a_child_that_dies_while_loading_is_named(tmp_path, monkeypatch, lang, message):
    parent = os.getpid()

    def fake_load(study, report):
        if os.getpid() != parent:
            os._exit(7)
        return small_panel()

    set_language(lang)
    monkeypatch.setattr(load_ahead, "load_study_panel", fake_load)
    monkeypatch.setenv("BRECHA_JOBS", "2")
    with pytest.raises(load_ahead.LoadError) as err, forked.session():
        load_ahead.load(None, Report(study=None, lang=lang, title="t"))
    assert str(err.value) == message


def test_deis_microdata_are_loaded_here_not_in_a_child(monkeypatch, forks):
    """polars reads them, and its worker threads do not survive a fork: a child would wait forever."""
    from types import SimpleNamespace

    pids = []

    def fake_load(study, report):
        pids.append(os.getpid())
        return small_panel()

    monkeypatch.setattr(load_ahead, "load_study_panel", fake_load)
    monkeypatch.setenv("BRECHA_JOBS", "2")
    deis = SimpleNamespace(data={"deis": {"deaths": ["d.csv"], "births": ["b.csv"]}})
    with forked.session() as children:
        assert children is not None
        load_ahead.load(deis, Report(study=deis, lang="en", title="t"))
    assert pids == [os.getpid()] and forks == []
    assert load_ahead._fork_safe(SimpleNamespace(data={"example": "chile"}))
    assert load_ahead._fork_safe(SimpleNamespace(data={"panel": "my_panel.csv"}))


def test_ctrl_c_while_the_data_load_in_a_child_ends_it_and_writes_nothing(tmp_path, monkeypatch, capsys, forks,
                                                                          own_tmp):
    import signal
    import threading
    import time

    from brecha import outputs
    from brecha.cli.main import main

    path = tmp_path / "study.toml"
    path.write_text(STUDY, encoding="utf-8")
    parent = os.getpid()

    def slow_load(study, report):
        if os.getpid() != parent:
            time.sleep(120)  # still loading when Ctrl-C comes
        return small_panel()

    monkeypatch.setattr(load_ahead, "load_study_panel", slow_load)
    monkeypatch.setenv("BRECHA_JOBS", "2")
    out = tmp_path / "rep"
    outputs.forget_completed()
    timer = threading.Timer(1.0, os.kill, (parent, signal.SIGINT))  # the user's Ctrl-C, while the parent waits
    timer.start()
    try:
        assert main(["--lang", "en", "report", str(path), "-o", str(out)]) == 130
    finally:
        timer.cancel()
    assert capsys.readouterr().err == "Interrupted: nothing was written\n"
    assert len(forks) == 1 and forks.alive() == []  # the child loading the data, ended
    assert not out.exists() and list(own_tmp.iterdir()) == []


def test_the_files_are_prepared_while_a_child_loads_the_data(tmp_path, monkeypatch):
    """The page's and the dashboard's templates are compiled while the child loads (the report's process
    would otherwise wait for it), before the Panel comes back; without children, or without files to write,
    not then (build._prepare_files at the report's first wait for an analysis, where a second call finds the
    templates compiled, or the templates compiled when the files are written)."""
    from brecha.report import build

    events = []
    real_value_of = forked.value_of
    monkeypatch.setattr(build, "_prepare_files", lambda report: events.append("prepare"))
    monkeypatch.setattr(forked, "value_of", lambda *a, **k: (events.append("panel"), real_value_of(*a, **k))[1])
    study = study_of(tmp_path)
    for jobs, write, expected in (("2", True, ["prepare", "panel"]), ("2", False, ["panel"]), ("1", True, [])):
        monkeypatch.setenv("BRECHA_JOBS", jobs)
        events.clear()
        build.build_report(study, tmp_path / f"r{jobs}{write}" if write else None, lang="en", write=write)
        assert events[:len(expected)] == expected, (jobs, write, events)
        if jobs == "1":
            assert "prepare" not in events  # no child: nothing to wait for, compiled when written
