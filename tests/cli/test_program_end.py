"""Issue 19, the end of the ``brecha`` program (brecha.cli.main.end_program): the process ends without the
interpreter's teardown, and nothing a user sees changes: every line printed arrives (to a file or a pipe),
the exit code is the command's, exit functions still run, a thread still running is waited for, and
``main(argv)`` called from Python still returns."""
from __future__ import annotations

import os
import subprocess
import sys

from brecha.cli.main import main

PROGRAM = """
import sys
{before}
from brecha.cli.main import main
sys.argv = ["brecha", *{argv!r}]
main()
print("main returned")
"""


def buffered() -> dict:
    """The environment with stdout buffered, as a user's shell has it (PYTHONUNBUFFERED would hide a line
    left in the buffer)."""
    env = dict(os.environ)
    env.pop("PYTHONUNBUFFERED", None)
    return env


def program(argv, before: str = "") -> subprocess.CompletedProcess:
    """``brecha ARGV`` as the program runs it (``main()`` with no argument reads ``sys.argv``)."""
    return subprocess.run([sys.executable, "-c", PROGRAM.format(argv=list(argv), before=before)],
                          capture_output=True, text=True, timeout=300, env=buffered())


def test_the_program_ends_with_the_commands_code_and_every_line_it_printed(tmp_path, capsys):
    argv = ["--lang", "en", "rates", "--example", "chile", "--years", "2015"]
    done = program(argv)
    assert done.returncode == 0, done.stderr
    assert main(argv) == 0  # the same command called from Python returns its code
    printed = capsys.readouterr().out
    # every line, though still in stdout's buffer (a pipe's: 8 kB) when the command returned
    assert done.stdout == printed and "San Nicolás" in printed
    assert "main returned" not in done.stdout


def test_an_input_error_ends_the_program_with_code_2_and_its_message(tmp_path):
    done = program(["--lang", "en", "rates", str(tmp_path / "missing.csv")])
    assert done.returncode == 2
    assert "missing.csv" in done.stderr and "Traceback" not in done.stderr


def test_exit_functions_still_run_and_what_they_print_arrives(tmp_path):
    before = "import atexit; atexit.register(lambda: print('exit function ran'))"
    done = program(["--lang", "en", "rates", "--example", "chile", "--years", "2015", "-o",
                    str(tmp_path / "r.csv")], before)
    assert done.returncode == 0, done.stderr
    assert done.stdout.rstrip().endswith("exit function ran")
    assert (tmp_path / "r.csv").stat().st_size > 0


def test_a_thread_still_running_is_waited_for_as_at_a_normal_exit(tmp_path):
    # the thread is still at work when the command ends, however slow the machine: it waits for the
    # command's output file, then a second more (a fixed sleep ended before the command on a slow runner)
    out = tmp_path / "r.csv"
    before = ("import os, threading, time\n"
              "def wait():\n"
              f"    while not os.path.exists({str(out)!r}):\n"
              "        time.sleep(0.02)\n"
              "    time.sleep(1.0)\n"
              "    print('thread finished', flush=True)\n"
              "threading.Thread(target=wait).start()")
    done = program(["--lang", "en", "rates", "--example", "chile", "--years", "2015", "-o", str(out)], before)
    assert done.returncode == 0, done.stderr
    assert "thread finished" in done.stdout
    assert "main returned" in done.stdout  # the normal path: main returned, then Python's exit


def test_a_reader_that_leaves_early_is_not_an_error(tmp_path):
    """``brecha rates ... | head -1``: the program ends quietly (no BrokenPipeError, no traceback)."""
    proc = subprocess.Popen([sys.executable, "-c", PROGRAM.format(
        argv=["--lang", "en", "rates", "--example", "chile", "--years", "2010-2015"], before="")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=buffered())
    first = proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=300) == 0
    assert first and "Traceback" not in err and "BrokenPipe" not in err, err
