"""Progress of long work (brecha.progress): bars on stderr when it is a terminal, nothing in pipes or files,
nothing with --quiet, nothing from the Python API unless asked for, and never a different number.

The terminal is a real pseudo-terminal (the `pty` module) for the command-line runs, with stdout on a pipe as
in `brecha ... > results.txt`; in-process checks use a stream that says it is a terminal."""
from __future__ import annotations

import io
import json
import os
import re
import select
import subprocess
import sys
import threading

import pytest

from brecha import progress

pty = pytest.importorskip("pty")  # POSIX only; Windows has no pseudo-terminals of this kind

ESC = b"\x1b"
CSI = re.compile(rb"\x1b\[[0-9;?]*[A-Za-z]")  # the terminal control sequences rich writes (colour, erase line)


def _env():
    env = dict(os.environ, TERM="xterm-256color", COLUMNS="120")
    for name in ("NO_COLOR", "FORCE_COLOR", "TTY_COMPATIBLE", "BRECHA_LANG", "BRECHA_DEBUG"):
        env.pop(name, None)
    return env


def run(args, *, terminal: bool, cwd) -> tuple[int, bytes, bytes]:
    """Run ``python <args>``: stdout always on a pipe; stderr on a pseudo-terminal when ``terminal``, else on
    a pipe. Returns (exit code, stdout bytes, stderr bytes)."""
    command = [sys.executable, *args]
    if not terminal:
        done = subprocess.run(command, capture_output=True, cwd=cwd, env=_env(), timeout=600)
        return done.returncode, done.stdout, done.stderr
    master, slave = pty.openpty()
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=slave, stdin=subprocess.DEVNULL, cwd=cwd,
                            env=_env())
    os.close(slave)
    out, err = [], b""
    reader = threading.Thread(target=lambda: out.append(proc.stdout.read()))  # a full stdout pipe must not block
    reader.start()
    while True:
        ready, _, _ = select.select([master], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the child closed the terminal (Linux: EIO)
                break
            if not chunk:
                break
            err += chunk
        elif proc.poll() is not None:
            break
    os.close(master)
    proc.wait(timeout=600)
    reader.join()
    return proc.returncode, out[0], err


def visible(raw: bytes) -> str:
    """The text of a terminal stream without its control sequences."""
    return CSI.sub(b"", raw).decode("utf-8", "replace")


BRECHA = ["-m", "brecha.cli.main"]
INEQUALITY = ["inequality", "--example", "chile", "--years", "2010-2012", "--rank-by", "poverty", "--groups", "5",
              "--measures", "d,r,sii", "--bootstrap", "200", "--seed", "7"]


@pytest.fixture(scope="module")
def inequality_runs(tmp_path_factory):
    cwd = tmp_path_factory.mktemp("ineq")
    return {
        "terminal": run(BRECHA + ["--lang", "en"] + INEQUALITY, terminal=True, cwd=cwd),
        "pipe": run(BRECHA + ["--lang", "en"] + INEQUALITY, terminal=False, cwd=cwd),
        "quiet": run(BRECHA + ["--lang", "en", "--quiet"] + INEQUALITY, terminal=True, cwd=cwd),
    }


def test_bootstrap_shows_a_bar_on_a_terminal(inequality_runs):
    code, out, err = inequality_runs["terminal"]
    assert code == 0, visible(err)
    text = visible(err)
    # the bar: its label, how many periods of the 3 are done, and the terminal's erase-line sequence
    assert "Bootstrap (200 replicates per period)" in text
    assert re.search(r"Bootstrap \(200 replicates per period\).*\b3/3\b", text), text[-2000:]
    assert b"\x1b[2K" in err
    assert ESC not in out  # the results on stdout stay plain


def test_pipes_carry_no_progress_and_no_escape_codes(inequality_runs):
    code, out, err = inequality_runs["pipe"]
    assert code == 0, err.decode()
    assert ESC not in out and ESC not in err
    assert b"\r" not in err and b"Bootstrap" not in err and b"replicates per period" not in err


def test_quiet_silences_the_bar_even_on_a_terminal(inequality_runs):
    code, out, err = inequality_runs["quiet"]
    assert code == 0, visible(err)
    assert ESC not in err and b"\r" not in err.replace(b"\r\n", b"")  # the terminal turns \n into \r\n
    assert b"Bootstrap" not in err and ESC not in out


def test_numbers_are_the_same_with_and_without_progress(inequality_runs):
    outs = {name: r[1] for name, r in inequality_runs.items()}
    assert outs["terminal"] == outs["pipe"] == outs["quiet"]
    # and they are numbers: the three measures of the three years, with bootstrap intervals
    text = outs["pipe"].decode()
    for year in ("2010", "2011", "2012"):
        for measure in ("d", "r", "sii"):
            assert re.search(rf"^\s*{year}\s+infant\s+{measure}\s+-?\d+\.\d+\s+-?\d+\.\d+", text, re.M), text
    # warnings still reach a terminal under --quiet: only the bars go (same lines as through a pipe)
    assert inequality_runs["quiet"][2].replace(b"\r\n", b"\n") == inequality_runs["pipe"][2]


REPORT_STUDY = '''
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


def _summary(out: bytes) -> str:
    """stdout of `brecha report` without the one line that differs between runs (the seconds it took)."""
    return re.sub(r"Report ready in [\d.,]+ s:", "Report ready in S s:", out.decode())


def test_report_steps_on_the_terminal_summary_on_stdout(tmp_path):
    (tmp_path / "study.toml").write_text(REPORT_STUDY, encoding="utf-8")
    args = BRECHA + ["--lang", "en", "report", "study.toml", "-o"]
    code_t, out_t, err_t = run(args + ["on_terminal"], terminal=True, cwd=tmp_path)
    code_p, out_p, err_p = run(args + ["piped"], terminal=False, cwd=tmp_path)
    assert code_t == 0 and code_p == 0, (visible(err_t), err_p.decode())
    text = visible(err_t)
    # the live bar names the step under way, in the report's language
    for step in ("Report: Loading data", "Report: Analysis: Rates", "Report: Analysis: Trends",
                 "Report: Writing files"):
        assert step in text, text[-3000:]
    # stdout: the study line and the summary only, the same on a terminal and through a pipe (folder aside)
    assert _summary(out_t).replace("on_terminal", "DIR") == _summary(out_p).replace("piped", "DIR")
    assert "…" not in out_t.decode() and ESC not in out_t and ESC not in out_p
    assert out_p.decode().startswith("Study: Aysén\n") and "Report ready in" in out_p.decode()
    # through a pipe, stderr holds no progress: no bar, no step line, no escape code
    assert ESC not in err_p and b"Report:" not in err_p and "…".encode() not in err_p
    # and the report itself does not depend on it
    tables = sorted(p.name for p in (tmp_path / "piped" / "tables").glob("*.csv"))
    assert "rates_national.csv" in tables and "trends_units.csv" in tables
    assert sorted(p.name for p in (tmp_path / "on_terminal" / "tables").glob("*.csv")) == tables
    for table in tables:
        assert ((tmp_path / "on_terminal" / "tables" / table).read_bytes()
                == (tmp_path / "piped" / "tables" / table).read_bytes()), table


def test_synthetic_generator_counts_rows_on_a_terminal_only(tmp_path):
    args = ["-m", "brecha.ingest.synthetic", "--deaths-rows", "3000", "--births-rows", "4000", "--seed", "3",
            "--years", "2010-2012", "--out"]
    code_t, out_t, err_t = run(args + ["t"], terminal=True, cwd=tmp_path)
    code_p, out_p, err_p = run(args + ["p"], terminal=False, cwd=tmp_path)
    code_q, _, err_q = run(args + ["q", "--quiet"], terminal=True, cwd=tmp_path)
    assert code_t == code_p == code_q == 0, (visible(err_t), err_p.decode(), visible(err_q))
    text = visible(err_t)
    # in the process's language: Spanish unless BRECHA_LANG says otherwise
    assert re.search(r"Escribiendo deaths\.csv \(filas\).*3000/3000", text), text[-2000:]
    assert re.search(r"Escribiendo births\.csv \(filas\).*4000/4000", text), text[-2000:]
    assert err_p == b"" and err_q == b""
    assert out_t.decode().replace("t/", "X/") == out_p.decode().replace("p/", "X/")
    for name in ("deaths.csv", "births.csv"):
        assert (tmp_path / "t" / name).read_bytes() == (tmp_path / "p" / name).read_bytes()
    truth = [json.loads((tmp_path / d / "truth.json").read_text(encoding="utf-8")) for d in ("t", "p", "q")]
    assert truth[0]["totals"] == truth[1]["totals"] == truth[2]["totals"]
    assert truth[0]["panel"] == truth[1]["panel"]


# ------------------------------------------------------------------------------- the Python API, in-process

class Terminal(io.StringIO):
    """A text stream that says it is a terminal (as a console's stderr does)."""

    def isatty(self) -> bool:
        return True


@pytest.fixture
def terminal(monkeypatch):
    monkeypatch.setenv("TERM", "xterm-256color")
    for name in ("NO_COLOR", "FORCE_COLOR", "TTY_COMPATIBLE"):
        monkeypatch.delenv(name, raising=False)
    return Terminal()


def test_silent_by_default_and_the_loop_is_untouched(capsys):
    items = [1, 2, 3]
    assert not progress.enabled()
    assert progress.track(items, "models", total=3) is items  # no wrapper at all when progress is off
    with progress.task("bootstrap", total=2, replicates=10) as step:
        step()
        step.describe("anything")
        step(1)
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == ""


def test_the_cli_rule_terminal_and_not_quiet(terminal):
    for stream, quiet, expected in ((terminal, False, True), (terminal, True, False), (io.StringIO(), False, False)):
        with progress.for_terminal(stream, quiet=quiet):
            assert progress.enabled() is expected
    assert not progress.enabled()  # restored after the block


def test_switching_on_does_not_leak_into_another_thread(terminal):
    seen = []
    with progress.shown(terminal):
        worker = threading.Thread(target=lambda: seen.append(progress.enabled()))
        worker.start()
        worker.join()
        assert progress.enabled()
    assert seen == [False]


@pytest.mark.parametrize("lang, expected", [("es", "Bootstrap (500 réplicas por período)"),
                                            ("en", "Bootstrap (500 replicates per period)")])
def test_labels_in_both_languages(lang, expected):
    from brecha.i18n import get_language, set_language

    previous = get_language()
    set_language(lang)
    try:
        assert progress.label("bootstrap", replicates=500) == expected
        assert progress.label("Texto propio") == "Texto propio"  # any other text is shown as given
    finally:
        set_language(previous)


def test_a_notebook_user_opts_in_and_gets_the_same_numbers(terminal):
    from brecha import datasets
    from brecha.inequality import inequality

    panel = datasets.chile().subset(region="11")
    quiet = inequality(panel, years=[2010, 2011], measures="d,r", bootstrap=200, seed=3)
    with progress.shown(terminal):
        shown = inequality(panel, years=[2010, 2011], measures="d,r", bootstrap=200, seed=3)
    assert quiet.equals(shown)
    text = visible(terminal.getvalue().encode())
    assert re.search(r"Bootstrap \(200 (replicates per period|réplicas por período)\).*2/2", text), text


def test_count_models_name_the_model_under_way(terminal):
    from brecha import datasets
    from brecha.models import fit_models

    panel = datasets.chile().subset(region="11")
    kwargs = dict(covariates=["poverty"], models=["poisson", "negbin"], years=range(2006, 2013), lang="en")
    quiet = fit_models(panel, **kwargs)
    with progress.shown(terminal):
        shown = fit_models(panel, **kwargs)
    assert quiet.coefficients.equals(shown.coefficients)
    text = visible(terminal.getvalue().encode())
    assert re.search(r"(Models|Modelos): negbin.*2/2", text), text


def test_joinpoint_permutations_count_units(terminal):
    from brecha import datasets
    from brecha.trends import trends

    panel = datasets.chile().subset(region="11")
    kwargs = dict(method="joinpoint", selection="permutation", n_permutations=19, seed=5, max_joinpoints=1)
    quiet = trends(panel, **kwargs)
    with progress.shown(terminal):
        shown = trends(panel, **kwargs)
    assert quiet.equals(shown)
    units = quiet["unit"].nunique()
    text = visible(terminal.getvalue().encode())
    assert re.search(rf"permut\w+ .*\b{units}/{units}\b", text), text


def test_deis_ingest_names_the_files_it_reads(terminal, tmp_path):
    from brecha.ingest.deis import ingest_deis
    from brecha.ingest.synthetic import generate

    files = generate(tmp_path, deaths_rows=2000, births_rows=3000, seed=2, years=(2010, 2012))
    quiet = ingest_deis(deaths=files.deaths, births=files.births)
    with progress.shown(terminal):
        shown = ingest_deis(deaths=files.deaths, births=files.births)
    assert quiet.panel.data.equals(shown.panel.data)
    assert quiet.ledger.format("en") == shown.ledger.format("en")
    text = visible(terminal.getvalue().encode())
    assert re.search(r"(DEIS microdata: reading|Microdatos DEIS: leyendo) deaths\.csv, births\.csv", text), text
