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
container limited to fewer cores than the machine shows: cgroup v2 ``cpu.max`` or v1 ``cpu.cfs_quota_us``,
the tightest of the group and its parents) caps the cores before the 1 is taken. :func:`usable`, the cores
the bootstraps' threads use (:func:`brecha.threads.worker_count`), is capped by the same quota.
An idle 2-core machine gives about 1, a machine where another job holds one of the 2 cores about 0. Where
there is no ``/proc/stat`` it is None (the caller falls back to the load average); asked again within a
quarter of a second, the last answer.
"""
from __future__ import annotations

import math
import os
import time

MIN_SECONDS = 0.25  # a shorter interval is too few clock ticks (100 per second) to judge


def _mine() -> set:
    try:
        return set(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return set(range(os.cpu_count() or 1))


def _quota(proc_cgroup: str = "/proc/self/cgroup", root: str = "/sys/fs/cgroup") -> float | None:
    """The cores this process's control group may use at most, None when unlimited or unknown. A container
    limited to one core of a larger machine sees all the machine's cores in ``/proc/stat`` and in its
    affinity; only its control group says so.

    cgroup v2 (``0::/PATH`` in ``/proc/self/cgroup``): ``cpu.max``, quota and period in microseconds
    (``200000 100000`` = 2 cores, ``max`` = unlimited). cgroup v1 (a line whose controllers include ``cpu``):
    ``cpu.cfs_quota_us`` / ``cpu.cfs_period_us`` (quota -1 = unlimited). The limit is the smallest of the
    process's group and of every group above it (a parent's limit binds its children); inside a container
    whose own group is mounted as the root, the root's files are the container's.
    """
    try:
        with open(proc_cgroup, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    limits = []
    for line in lines:
        number, _, rest = line.partition(":")
        controllers, _, path = rest.partition(":")
        if number == "0" and controllers == "":  # v2: mounted at the root, or at unified/ beside v1's
            base = next((b for b in (root, os.path.join(root, "unified"))
                         if os.path.exists(os.path.join(b, "cgroup.controllers"))), None)
            name = "v2"
            if base is None:
                continue
        elif "cpu" in controllers.split(","):
            base = next((os.path.join(root, d) for d in (controllers, "cpu", "cpu,cpuacct", "cpuacct,cpu")
                         if os.path.isdir(os.path.join(root, d))), None)
            name = "v1"
            if base is None:
                continue
        else:
            continue
        for folder in _groups(base, path):
            found = _cpu_max(folder) if name == "v2" else _cfs(folder)
            if found is not None:
                limits.append(found)
    return min(limits) if limits else None


def _groups(base: str, path: str) -> list[str]:
    """The folders of a cgroup path and of every group above it that exist under ``base`` (the mount)."""
    parts = [p for p in path.strip().split("/") if p]
    folders = [os.path.join(base, *parts[:i]) for i in range(len(parts), 0, -1)]
    return [f for f in folders if os.path.isdir(f)] + [base]


def _cpu_max(folder: str) -> float | None:
    try:
        with open(os.path.join(folder, "cpu.max"), encoding="ascii") as f:
            quota, period = f.read().split()[:2]
        return None if quota == "max" else int(quota) / int(period)
    except (OSError, ValueError):
        return None


def _cfs(folder: str) -> float | None:
    try:
        with open(os.path.join(folder, "cpu.cfs_quota_us"), encoding="ascii") as f:
            quota = int(f.read().strip())
        with open(os.path.join(folder, "cpu.cfs_period_us"), encoding="ascii") as f:
            period = int(f.read().strip())
        return None if quota <= 0 or period <= 0 else quota / period
    except (OSError, ValueError):
        return None


def usable() -> int:
    """The cores this process may use: its affinity, capped by its control group's quota rounded up (a
    quota of 1.5 cores is worth two threads: each gets three quarters of a core), at least 1."""
    cores = len(_mine())
    quota = _quota()
    return max(min(cores, math.ceil(quota - 1e-9)) if quota is not None else cores, 1)


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
