"""Periods computed in threads (brecha.threads): the same bytes whatever the number of threads, results in
the pieces' order, errors raised in the caller."""
import threading
import time

import numpy as np
import pandas as pd
import pytest

from brecha.cli.main import main
from brecha.threads import imap_in_threads, map_in_threads, worker_count


def test_results_come_in_the_order_of_the_pieces_whatever_finishes_first():
    def slow_first(i):
        time.sleep(0.05 if i == 0 else 0.0)
        return i * i, threading.current_thread().name

    out = map_in_threads(slow_first, range(6), jobs=3)
    assert [v for v, _ in out] == [0, 1, 4, 9, 16, 25]
    assert any(name.startswith("brecha") for _, name in out)  # really in the pool's threads
    assert [v for v, _ in map_in_threads(slow_first, range(6), jobs=1)] == [0, 1, 4, 9, 16, 25]


def test_an_error_in_a_piece_is_raised_in_the_caller():
    def piece(i):
        if i == 2:
            raise ValueError("piece 2 failed")
        return i

    with pytest.raises(ValueError, match="piece 2 failed"):
        map_in_threads(piece, range(5), jobs=2)
    gen = imap_in_threads(piece, range(5), jobs=2)
    assert [next(gen), next(gen)] == [0, 1]
    with pytest.raises(ValueError, match="piece 2 failed"):
        next(gen)


@pytest.mark.parametrize("value, pieces, want", [("1", 10, 1), ("3", 10, 3), ("3", 2, 2), (" 2 ", 5, 2)])
def test_brecha_jobs_sets_the_threads(monkeypatch, value, pieces, want):
    monkeypatch.setenv("BRECHA_JOBS", value)
    assert worker_count(pieces) == want


@pytest.mark.parametrize("value", ["0", "two", "-1", "1.5"])
def test_a_wrong_brecha_jobs_stops_with_a_clear_message(monkeypatch, capsys, tmp_path, value):
    import re

    from brecha.errors import InputError
    from brecha.i18n import set_language

    set_language("en")
    monkeypatch.setenv("BRECHA_JOBS", value)
    with pytest.raises(InputError, match=re.escape(f"BRECHA_JOBS={value}: must be a whole number of at least 1")):
        worker_count(3)
    code = main(["--lang", "en", "inequality", "--example", "chile", "--years", "2010-2012", "--rank-by",
                 "poverty", "--bootstrap", "200", "-o", str(tmp_path / "i.csv")])
    err = capsys.readouterr().err
    assert code == 2 and f"Error: BRECHA_JOBS={value}" in err and "unset the environment variable" in err
    assert not (tmp_path / "i.csv").exists()


def test_the_command_line_asks_for_one_blas_thread():
    import subprocess
    import sys

    env = {k: v for k, v in __import__("os").environ.items() if k not in ("OPENBLAS_NUM_THREADS",
                                                                           "MKL_NUM_THREADS", "OMP_NUM_THREADS")}
    code = ("import os, sys\nfrom brecha.cli.main import main\ntry:\n    main(['--version'])\nexcept SystemExit:\n"
            "    pass\nprint(os.environ.get('OPENBLAS_NUM_THREADS'), 'numpy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split()[-2:] == ["1", "False"]
    env["OPENBLAS_NUM_THREADS"] = "2"  # the user's own choice is kept
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split()[-2:] == ["2", "False"]
    late = "import numpy; from brecha.threads import one_blas_thread; print(one_blas_thread())"
    assert subprocess.run([sys.executable, "-c", late], env={k: v for k, v in env.items()
                                                             if k != "OPENBLAS_NUM_THREADS"},
                          capture_output=True, text=True, check=True).stdout.strip() == "False"


def test_without_brecha_jobs_the_cores_of_the_process(monkeypatch):
    monkeypatch.delenv("BRECHA_JOBS", raising=False)
    import os

    from brecha import cores

    monkeypatch.setattr(cores, "_quota", lambda: None)  # no container's quota (tests/test_cores.py has them)
    assert worker_count() == len(os.sched_getaffinity(0))


def test_inequality_bootstrap_in_threads_writes_the_same_bytes(tmp_path, monkeypatch):
    rng = np.random.default_rng(21)
    n = 40
    births = rng.integers(50, 3000, n)
    frame = pd.concat([pd.DataFrame({"unit": [f"U{i:02d}" for i in range(n)], "year": year, "births": births,
                                     "deaths": rng.poisson(births * 0.01), "poverty": rng.uniform(5, 40, n)})
                       for year in (2010, 2011, 2012)])
    panel = tmp_path / "panel.csv"
    frame.to_csv(panel, index=False)
    written = []
    for jobs in ("1", "3"):
        monkeypatch.setenv("BRECHA_JOBS", jobs)
        out = tmp_path / f"i{jobs}.csv"
        assert main(["--lang", "en", "inequality", str(panel), "--rank-by", "poverty", "--bootstrap", "200",
                     "--seed", "7", "-o", str(out)]) == 0
        written.append(out.read_bytes())
    assert written[0] == written[1]
    table = pd.read_csv(tmp_path / "i3.csv")
    assert list(table["period"].unique()) == [2010, 2011, 2012]
    assert table["lower"].notna().sum() > 10


def test_ctrl_c_during_a_threaded_bootstrap_writes_nothing(tmp_path):
    """Ctrl-C while the periods run in two threads: exit 130 soon, one line, no file, no traceback."""
    import os
    import signal
    import subprocess
    import sys

    out = tmp_path / "d.csv"
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "BRECHA_JOBS": "2"}
    proc = subprocess.Popen([sys.executable, "-m", "brecha.cli.main", "--lang", "en", "decompose", "--example",
                             "brazil", "--by", "province", "--bootstrap", "1000", "-o", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    time.sleep(6.0)  # start-up and the panel; the 20 years' bootstrap takes far longer
    assert proc.poll() is None, "the command ended before it could be interrupted"
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr
    assert stderr.splitlines()[-1] == "Interrupted: nothing was written", stderr
    assert "Traceback" not in stdout + stderr
    assert not out.exists() and os.listdir(tmp_path) == []
    assert time.monotonic() - sent < 60  # the periods under way finish, the others are not started


def test_inside_one_thread_the_pieces_run_in_the_calling_thread(monkeypatch):
    """brecha.threads.one_thread (the report's analyses computed ahead, each in its own child): worker_count
    is 1 inside, whatever BRECHA_JOBS says, and as before outside; the results are the same."""
    from brecha.threads import one_thread

    monkeypatch.setenv("BRECHA_JOBS", "4")
    names = lambda i: (i, threading.current_thread().name)  # noqa: E731
    assert worker_count(10) == 4
    with one_thread():
        assert worker_count(10) == 1 and worker_count() == 1
        inside = map_in_threads(names, range(6))
        assert {name for _, name in inside} == {threading.current_thread().name}
    assert worker_count(10) == 4
    outside = map_in_threads(names, range(6))
    assert [i for i, _ in outside] == [i for i, _ in inside] == list(range(6))
    assert any(name.startswith("brecha") for _, name in outside)
