"""Report benchmark: `brecha report` from a cold start (a new Python process, as a user runs it).

Bars (issue 8): the default Chilean report <= 15 s wall on a 2-core machine; the Brazilian report <= 60 s.
Also printed: CPU time (user + system) and peak memory of the child process, and the machine's load
average (other processes on a shared machine stretch the wall time, not the CPU time).
"""
from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import time

BARS = {"chile": 15.0, "brazil": 60.0}


def run_one(example: str) -> dict:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with tempfile.TemporaryDirectory() as out:
        start = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "brecha.cli.main", "report", "--example", example,
                               "-o", out], capture_output=True, text=True)
        wall = time.perf_counter() - start
        size = os.path.getsize(os.path.join(out, "index.html")) if proc.returncode == 0 else 0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        print(proc.stderr[-2000:])
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall": wall, "cpu": cpu, "peak_mb": after.ru_maxrss / 1024, "ok": proc.returncode == 0,
            "html_mb": size / 1e6}


def main(examples=("chile", "brazil")) -> bool:
    met = True
    for example in examples:
        load = os.getloadavg()[0]
        r = run_one(example)
        bar = BARS[example]
        passed = r["ok"] and r["wall"] <= bar
        met &= passed
        print(f"report --example {example}: wall {r['wall']:.1f} s (bar {bar:.0f} s), cpu {r['cpu']:.1f} s, "
              f"peak memory {r['peak_mb']:.0f} MB, index.html {r['html_mb']:.1f} MB, load average {load:.1f} "
              f"-> {'OK' if passed else 'OVER'}")
    return met


if __name__ == "__main__":
    sys.exit(0 if main(sys.argv[1:] or ("chile", "brazil")) else 1)
