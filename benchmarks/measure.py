"""How the benchmarks measure: wall time, CPU time and true peak memory, of a step or of a whole command.

- :func:`step` measures a step inside the current process: wall time (``perf_counter``), CPU time of the
  process (``process_time``: every thread, so a BLAS using both cores counts twice the wall) and the peak
  resident memory during the step, read from ``VmHWM`` in ``/proc/self/status`` after resetting it by writing
  5 to ``/proc/self/clear_refs`` (Linux >= 4.0). The peak is the process's, so it includes what the
  process held before the step (imports, the panel); where the reset is refused it is the process's peak so
  far and is marked "(since start)".
- :func:`run_command` runs a command as a child process and reads that one child's wall time, CPU time
  (user + system) and peak resident memory (``ru_maxrss`` of ``os.wait4`` for its pid: the kernel's own
  high-water mark of that child, not the largest of every child so far as ``RUSAGE_CHILDREN`` gives).

On a shared machine the wall time stretches with the load; CPU time and memory do not, so both are printed.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from contextlib import contextmanager


def peak_rss_mb() -> float | None:
    """This process's peak resident memory (VmHWM) in MB, or None off Linux."""
    try:
        with open("/proc/self/status") as f:
            found = re.search(r"^VmHWM:\s+(\d+)\s+kB", f.read(), re.M)
    except OSError:
        return None
    return int(found.group(1)) / 1024 if found else None


def reset_peak() -> bool:
    """Reset VmHWM to the current resident size; False where the kernel refuses."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


class Measured(dict):
    """wall, cpu (seconds), peak_mb (MB or None), reset (bool): what :func:`step` measured."""

    def line(self) -> str:
        peak = "-" if self["peak_mb"] is None else f"{self['peak_mb']:.0f} MB"
        since = "" if self.get("reset", True) else " (since start)"
        return f"{self['wall']:7.2f} s wall {self['cpu']:7.2f} s CPU  peak {peak}{since}"


@contextmanager
def step(label: str | None = None, *, show: bool = True):
    """``with step("rates") as m: ...`` measures the block; ``m`` holds wall, cpu, peak_mb afterwards."""
    m = Measured()
    m["reset"] = reset_peak()
    wall0, cpu0 = time.perf_counter(), time.process_time()
    try:
        yield m
    finally:
        m["wall"] = time.perf_counter() - wall0
        m["cpu"] = time.process_time() - cpu0
        m["peak_mb"] = peak_rss_mb()
        if show and label:
            print(f"   {label:<58} {m.line()}", flush=True)


def run_command(argv: list[str], *, env: dict | None = None, cwd: str | None = None,
                stdout=subprocess.DEVNULL) -> dict:
    """Run ``argv`` as a child process; its own wall, cpu (of it ``system``: the kernel's), peak_mb, minor page
    ``faults`` (with its children's: on the development machine each costs about 4.6 µs of CPU, so they are
    a part of the CPU time worth watching; docs/performance.md part P) and exit code (stderr kept: its last
    1,500 characters). ``stdout=None`` lets the child print to this process's output."""
    env = as_installed(os.environ if env is None else env)
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=stdout, stderr=subprocess.PIPE, env=env, cwd=cwd)
    # read stderr while it runs (a full pipe would block the child), then wait4 for its own rusage
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    proc.stderr.close()
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "system": usage.ru_stime,
            "peak_mb": usage.ru_maxrss / 1024, "faults": usage.ru_minflt, "code": proc.returncode,
            "stderr": err.decode(errors="replace")[-1500:]}


def as_installed(env) -> dict:
    """``env`` without ``PYTHONDONTWRITEBYTECODE``: a command is measured as it runs after ``pip install .``,
    whose modules are read from their compiled ``.pyc`` files. Some machines (this development container)
    set the variable for every process; with it, Python compiles brecha's own modules (an editable install
    has no ``.pyc``) from source on every run: about 160 modules and 0.5 s of CPU of the report's process,
    and again in each child that imports one first. Without it the first run writes the ``.pyc`` files and
    the warm runs read them, as on a user's machine."""
    out = dict(env)
    out.pop("PYTHONDONTWRITEBYTECODE", None)
    return out


def brecha_command(*args: str) -> list[str]:
    """The command line of ``brecha ARGS`` with this interpreter."""
    return [sys.executable, "-m", "brecha.cli.main", *args]


def command_line(r: dict) -> str:
    ok = "" if r["code"] == 0 else f"  EXIT {r['code']}: {r['stderr'].strip().splitlines()[-1:]}"
    faults = f"  {r['faults']:,} page faults, {r['system']:.2f} s system" if "faults" in r else ""
    return f"{r['wall']:7.2f} s wall {r['cpu']:7.2f} s CPU  peak {r['peak_mb']:6.0f} MB{faults}{ok}"
