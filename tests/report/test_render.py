"""Figures drawn in forked children (brecha.report.render; docs/performance.md): the same bytes as the serial
path, each figure drawn once, a failing or dying child named in a clear error, Ctrl-C leaves no partial
report and no child behind, BRECHA_JOBS=1 draws everything in the report's own process."""
import os
import warnings

import pytest

from brecha import cores, outputs
from brecha.cli.main import main
from brecha.i18n import set_language
from brecha.report import figures, render

pytestmark = pytest.mark.skipif(not render.parallel_possible(), reason="no fork on this platform")


@pytest.fixture(autouse=True)
def english():
    set_language("en")
    yield
    set_language("es")


@pytest.fixture
def one_per_child(monkeypatch):
    """Every figure handed to a child at once (a batch of one): the tiny study's two figures would otherwise
    still be waiting at the end, and be drawn in the report's own process."""
    monkeypatch.setattr(render, "BATCH", 1)


def report(study, out, monkeypatch, jobs: str) -> int:
    monkeypatch.setenv("BRECHA_JOBS", jobs)
    outputs.forget_completed()
    return main(["--lang", "en", "report", str(study), "-o", str(out)])


def test_parallel_figures_are_the_serial_bytes_each_drawn_once(small_study_path, tmp_path, monkeypatch, forks,
                                                               own_tmp, files_of):
    """The small study has maps: one canvas recoloured for three maps, whose later maps start from the
    earlier one's layout. Every file of the report, figures included, is the same byte for byte."""
    log = tmp_path / "drawn"
    real = figures._draw_bytes

    def logged(fig, fmt, dpi):
        with open(log, "a") as f:
            f.write(f"{os.getpid()}\n")
        return real(fig, fmt, dpi)

    monkeypatch.setattr(figures, "_draw_bytes", logged)
    assert report(small_study_path, tmp_path / "serial", monkeypatch, "1") == 0
    assert forks == []  # BRECHA_JOBS=1: drawn in the report's own process
    log.unlink()
    assert report(small_study_path, tmp_path / "parallel", monkeypatch, "2") == 0
    serial, parallel = files_of(tmp_path / "serial"), files_of(tmp_path / "parallel")
    drawn = sorted(n for n in serial if n.startswith("figures/"))
    assert {"figures/map_rate.png", "figures/map_smoothed.png", "figures/map_trend.png"} <= set(drawn)
    pids = [int(p) for p in log.read_text().split()]
    assert len(pids) == len(drawn)  # each figure drawn once
    in_children = [p for p in pids if p != os.getpid()]
    # a child per batch of render.BATCH figures (a map canvas drawn again later sends its batch at once); the
    # last figures, still waiting at the end, drawn here
    assert len(in_children) >= len(drawn) - render.BATCH and len(set(in_children)) < len(drawn)
    others = [pid for pid in forks if pid not in set(in_children)]
    assert len(others) == 3  # the gap against the reference computed ahead (ahead.py), the workbook, the dashboard
    assert serial.keys() == parallel.keys()
    assert [n for n in serial if serial[n] != parallel[n]] == []
    assert list(own_tmp.iterdir()) == []  # the children's files are gone


def test_a_figure_failing_in_a_child_names_the_figure(tiny_study_path, tmp_path, monkeypatch, capsys, forks,
                                                      own_tmp, one_per_child):
    parent = os.getpid()
    real = figures._draw_bytes

    def draw(fig, fmt, dpi):
        if os.getpid() != parent:
            raise RuntimeError("no font for this text")
        return real(fig, fmt, dpi)

    monkeypatch.setattr(figures, "_draw_bytes", draw)
    out = tmp_path / "rep"
    assert report(tiny_study_path, out, monkeypatch, "2") == 2
    err = capsys.readouterr().err
    assert "Error: figure national_rate.svg could not be drawn: RuntimeError: no font for this text" in err, err
    assert "Traceback" not in err
    assert not out.exists() and list(own_tmp.iterdir()) == []
    assert forks and forks.alive() == []


def test_a_child_that_dies_is_a_clear_error(tiny_study_path, tmp_path, monkeypatch, capsys, forks, own_tmp,
                                            one_per_child):
    parent = os.getpid()
    real = figures._draw_bytes

    def draw(fig, fmt, dpi):
        if os.getpid() != parent:
            os._exit(7)  # as if killed: no result at all
        return real(fig, fmt, dpi)

    monkeypatch.setattr(figures, "_draw_bytes", draw)
    monkeypatch.setenv("BRECHA_JOBS", "2")
    set_language("es")
    assert main(["--lang", "es", "report", str(tiny_study_path), "-o", str(tmp_path / "rep")]) == 2
    err = capsys.readouterr().err
    assert "el proceso que dibujaba la figura national_rate.svg terminó sin resultado (código 7)" in err, err
    assert not (tmp_path / "rep").exists() and list(own_tmp.iterdir()) == []


def test_a_full_disk_in_a_child_stops_the_report_naming_the_folder(tiny_study_path, tmp_path, monkeypatch,
                                                                   capsys, forks, own_tmp, one_per_child,
                                                                   files_of):
    """As in the serial path (test_report_folder.py): exit 2, the folder named, the earlier report intact."""
    out = tmp_path / "rep"
    assert report(tiny_study_path, out, monkeypatch, "1") == 0
    before = files_of(out)
    parent = os.getpid()
    real = figures._draw_bytes

    def draw(fig, fmt, dpi):
        if os.getpid() != parent:
            raise OSError(28, "No space left on device")
        return real(fig, fmt, dpi)

    monkeypatch.setattr(figures, "_draw_bytes", draw)
    assert report(tiny_study_path, out, monkeypatch, "2") == 2
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("Error:")]
    assert len(lines) == 1 and "the disk is full" in lines[0] and str(out) in lines[0], lines
    assert forks and files_of(out) == before and list(own_tmp.iterdir()) == []


def test_ctrl_c_while_children_draw_ends_them_and_writes_nothing(small_study_path, tmp_path, monkeypatch, capsys,
                                                                  forks, own_tmp, one_per_child):
    parent = os.getpid()
    real = figures._draw_bytes

    def slow(fig, fmt, dpi):
        if os.getpid() != parent:
            import time

            time.sleep(120)  # still drawing when Ctrl-C comes
        return real(fig, fmt, dpi)

    def interrupt(*args, **kwargs):
        raise KeyboardInterrupt

    from brecha.report.sections import data

    monkeypatch.setattr(figures, "_draw_bytes", slow)
    monkeypatch.setattr(data, "build", interrupt)  # after every figure was handed to a child
    out = tmp_path / "rep"
    # a child for every figure at once: with fewer, the report would wait for a sleeping child to end
    assert report(small_study_path, out, monkeypatch, "64") == 130
    assert capsys.readouterr().err == "Interrupted: nothing was written\n"
    assert forks and forks.alive() == []
    assert not out.exists() and list(own_tmp.iterdir()) == []
    assert [p.name for p in tmp_path.iterdir() if "brecha-" in p.name] == []


def test_a_warning_while_drawing_reaches_the_report_as_in_the_serial_path(own_tmp, monkeypatch):
    monkeypatch.setenv("BRECHA_JOBS", "2")

    def to_bytes(fig, fmt, dpi):
        warnings.warn(f"{fig} glyph missing", UserWarning)
        return f"{fig}.{fmt}@{dpi}".encode()

    with render.session(jobs=2) as resolve:
        pending = render.draw(to_bytes, "chart", "svg", 110)
        assert isinstance(pending, render.Pending)
        fig = figures.Figure("chart", "svg", pending)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            resolve([fig])
    assert fig.data == b"chart.svg@110"
    assert [str(w.message) for w in caught] == ["chart glyph missing"] and caught[0].category is UserWarning
    with warnings.catch_warnings(record=True) as caught:  # serial: the same warning, the same bytes
        warnings.simplefilter("always")
        assert render.draw(to_bytes, "chart", "svg", 110) == b"chart.svg@110"
    assert [str(w.message) for w in caught] == ["chart glyph missing"]


def test_jobs_come_from_brecha_jobs_and_children_start_only_when_a_core_is_idle(monkeypatch):
    monkeypatch.setenv("BRECHA_JOBS", "3")
    assert render.default_jobs() == 3 and render.pays(3)
    monkeypatch.setenv("BRECHA_JOBS", "1")
    assert render.default_jobs() == 1 and not render.pays(1)
    monkeypatch.delenv("BRECHA_JOBS")
    monkeypatch.setattr(cores, "_quota", lambda: None)  # no container's CPU quota (tests/test_cores.py)
    assert render.default_jobs() == len(os.sched_getaffinity(0))
    monkeypatch.setattr(cores, "spare_cores", lambda: 0.93)
    assert render.pays(2)  # the other core was free while the command ran (brecha.cores)
    monkeypatch.setattr(cores, "spare_cores", lambda: 0.12)
    assert not render.pays(2)  # another job held it: the children would only queue
    with render.session(jobs=2):  # so the figures are drawn here, when they are made
        assert render.draw(lambda fig, fmt, dpi: b"x", "chart", "svg", 110) == b"x"
    monkeypatch.setattr(cores, "spare_cores", lambda: None)  # not measurable: the load average decides
    monkeypatch.setattr(os, "getloadavg", lambda: (0.4, 0.0, 0.0))
    assert render.pays(2)  # one of two cores idle
    monkeypatch.setattr(os, "getloadavg", lambda: (1.5, 0.0, 0.0))
    assert not render.pays(2)

