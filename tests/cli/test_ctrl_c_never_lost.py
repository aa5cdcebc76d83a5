"""A Ctrl-C is never lost and never turns into death by signal (brecha.outputs.ctrl_c_watched).

Python raises a Ctrl-C's KeyboardInterrupt wherever the main thread happens to be. Inside a weakref callback or
a ``__del__`` it cannot propagate: Python printed "Exception ignored in: ... KeyboardInterrupt" and the report
went on to finish with exit 0 (seen in 1 of 28 real-signal runs). A Ctrl-C that left an ``eval`` of text
made ``python -m brecha.cli.main`` end by the signal at exit (exit -2 in CI, after the line "Interrupted:
nothing was written"). And a second Ctrl-C during the clean-up or the interpreter's exit would cut the
clean-up short or end the process by the signal."""
from __future__ import annotations

import gc
import signal
import subprocess
import sys
import textwrap

import pytest

from brecha import outputs
from brecha.cli.main import main


class _DropsACtrlC:
    """An object whose finaliser receives the Ctrl-C: its KeyboardInterrupt cannot leave ``__del__``."""

    def __del__(self):
        signal.raise_signal(signal.SIGINT)
        sum(range(10))  # the handler runs at the next bytecode: here, inside __del__


def _drop_a_ctrl_c() -> None:
    _DropsACtrlC()
    gc.collect()


def test_a_dropped_ctrl_c_stops_the_commit_and_is_not_printed(tmp_path, capsys):
    target = tmp_path / "out.txt"
    target.write_text("mine")
    with outputs.ctrl_c_watched():
        _drop_a_ctrl_c()  # no exception reaches here: Python dropped it
        with pytest.raises(KeyboardInterrupt):
            outputs.write_file(target, lambda p: p.write_text("new"))
    assert target.read_text() == "mine"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]  # no temporary file left
    assert "Exception ignored" not in capsys.readouterr().err
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # put back after the block


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_without_the_watch_python_drops_it(tmp_path):
    """The failure the watch prevents: Python's own handler loses the Ctrl-C and the file is written."""
    target = tmp_path / "out.txt"
    _drop_a_ctrl_c()
    outputs.write_file(target, lambda p: p.write_text("new"))
    assert target.read_text() == "new"


@pytest.mark.parametrize("lang,line", [("en", "Interrupted: nothing was written\n"),
                                       ("es", "Interrumpido: no se escribió nada\n")])
def test_a_command_whose_ctrl_c_was_dropped_writes_nothing_and_exits_130(tmp_path, monkeypatch, capsys, lang,
                                                                          line):
    import brecha.cli.common as common

    original = common.check_output_paths

    def check_then_drop(args):
        original(args)
        _drop_a_ctrl_c()

    monkeypatch.setattr(common, "check_output_paths", check_then_drop)
    out = tmp_path / "rates.csv"
    code = main(["--lang", lang, "rates", "--example", "chile", "--years", "2010", "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 130
    assert err == line
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_a_second_ctrl_c_while_stopping_is_recorded_not_raised():
    with outputs.ctrl_c_watched():
        outputs.settle()
        signal.raise_signal(signal.SIGINT)  # would raise KeyboardInterrupt in the clean-up
        sum(range(10))
        outputs.stop_if_interrupted()  # settled: nothing raised
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_the_program_keeps_the_watch_to_its_exit():
    """``brecha`` itself (for_the_process): a Ctrl-C after the command, as the interpreter exits, leaves the
    exit code as the command set it; with Python's handler the process would end by the signal."""
    code = textwrap.dedent("""
        import os, signal, sys
        from brecha import outputs
        with outputs.ctrl_c_watched(for_the_process=%s):
            pass
        os.kill(os.getpid(), signal.SIGINT)
        sum(range(10))
        sys.exit(130)
    """)
    kept = subprocess.run([sys.executable, "-c", code % "True"], capture_output=True, text=True)
    assert kept.returncode == 130 and kept.stderr == ""
    put_back = subprocess.run([sys.executable, "-c", code % "False"], capture_output=True, text=True)
    assert put_back.returncode == -signal.SIGINT and "KeyboardInterrupt" in put_back.stderr  # Python's own


def test_a_ctrl_c_inside_evaluated_text_still_exits_130(tmp_path):
    """CPython marks the process to end itself by SIGINT at exit when a KeyboardInterrupt leaves code run by
    ``eval`` of text (scipy's import of numpy.f2py runs hundreds), even when the CLI caught it; run as
    ``python -m`` the report then died with -2 after printing its line (CI). The CLI clears the mark when it
    takes the Ctrl-C."""
    out = tmp_path / "rates.csv"
    (tmp_path / "ctrl_c_in_eval.py").write_text(textwrap.dedent(f"""
        import sys
        import brecha.cli.common as common
        original = common.check_output_paths
        def check_then_ctrl_c(args):
            original(args)
            eval("__import__('signal').raise_signal(2) or sum(range(10))")
        common.check_output_paths = check_then_ctrl_c
        from brecha.cli.main import main
        sys.exit(main(["--lang", "en", "rates", "--example", "chile", "--years", "2010", "-o", {str(out)!r}]))
    """))
    done = subprocess.run([sys.executable, "-m", "ctrl_c_in_eval"], capture_output=True, text=True, cwd=tmp_path)
    assert (done.returncode, done.stderr) == (130, "Interrupted: nothing was written\n")
    assert not out.exists()
