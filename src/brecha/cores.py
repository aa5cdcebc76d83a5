"""Whether a core is free for more work: measured from the kernel's counters, not guessed from the load average.

The report does work in forked children only when a core is free beside the one it uses itself
(:func:`brecha.report.forked.pays`): on a machine whose cores are busy the children only queue behind the
report and cost CPU. The one-minute load average answered that before, but it remembers the last minute: the
report run just before (a user's second run, the benchmark's warm run) kept one core busy and left the
average near 1, so the next report on an idle 2-core machine was judged busy and ran serially.

Here the answer comes from what other processes used of this process's cores (``os.sched_getaffinity``)
since the previous question, or since this module was imported (the command's start: ``brecha.cli.main``
imports it first):

    spare = cores − (cores × elapsed − idle − own) / elapsed − 1

where ``idle`` is the idle and iowait time of those cores (``/proc/stat``), ``own`` the CPU time of this
process and of its children it has waited for (``os.times``), so the report's own figures never make the
machine look busy, and the last 1 is the core the command itself needs. A control group's CPU quota (a
container limited to fewer cores than the machine shows, ``cpu.max``) caps the cores before the 1 is taken.
An idle 2-core machine gives about 1, a machine where another job holds one of the 2 cores about 0. Where
there is no ``/proc/stat`` it is None (the caller falls back to the load average); asked again within a
quarter of a second, the last answer.
"""
from __future__ import annotations

import os
import time

MIN_SECONDS = 0.25  # a shorter interval is too few clock ticks (100 per second) to judge


def _mine() -> set:
    try:
        return set(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return set(range(os.cpu_count() or 1))


def _quota(path: str = "/sys/fs/cgroup/cpu.max") -> float | None:
    """The cores this process's control group may use at most (cgroup v2 ``cpu.max``: quota and period in
    microseconds, e.g. ``200000 100000`` = 2 cores), None when unlimited or unknown. A container limited to
    one core of a larger machine sees all the machine's cores in ``/proc/stat`` and in its affinity."""
    try:
        with open(path, encoding="ascii") as f:
            quota, period = f.read().split()[:2]
        return None if quota == "max" else int(quota) / int(period)
    except (OSError, ValueError):
        return None


def _sample():
    """(monotonic seconds, idle + iowait seconds of this process's cores or None, own CPU seconds)."""
    idle = None
    try:
        names = {f"cpu{i}" for i in _mine()}
        with open("/proc/stat", encoding="ascii") as f:
            ticks = 0
            for line in f:
                if not line.startswith("cpu"):
                    break
                fields = line.split()
                if fields[0] in names:
                    ticks += int(fields[4]) + int(fields[5])  # idle, iowait
        idle = ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, AttributeError, ValueError, IndexError):
        pass
    t = os.times()
    return time.monotonic(), idle, t.user + t.system + t.children_user + t.children_system


_LAST = [_sample()]  # the start of the current interval
_ANSWER: list = [None]  # the last answer


def spare_cores() -> float | None:
    """The cores other processes left free, beside the one this process needs, on average since the previous
    call or the command's start (see the module's formula); None when it cannot be measured."""
    now = _sample()
    t0, idle0, own0 = _LAST[0]
    elapsed = now[0] - t0
    if idle0 is None or now[1] is None:
        return None
    if elapsed < MIN_SECONDS:
        return _ANSWER[0]
    cores = len(_mine())
    others = max(cores * elapsed - (now[1] - idle0) - (now[2] - own0), 0.0)
    quota = _quota()
    _LAST[0] = now
    _ANSWER[0] = max(min(cores - others / elapsed, cores if quota is None else quota) - 1.0, 0.0)
    return _ANSWER[0]
