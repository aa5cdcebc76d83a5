"""Report benchmark: `brecha report` as a user runs it (a new Python process), and where its CPU time goes.

Bars (issue 19): the default Chilean report <= 2 s and the Brazilian <= 4 s, warm (the second run, files in
the operating system's cache), wall time on the development machine (2 cores). Printed for each example:

- the whole command, twice with the figures drawn in parallel (the first run warms the cache; the second is
  the one held to the bar) and once serial (``BRECHA_JOBS=1``): wall time, CPU time (user + system of the
  command and of the children that drew its figures) and peak memory (benchmarks/measure.py);
- the breakdown (benchmarks/report_breakdown.py): CPU seconds of the imports, of loading the data, of each
  analysis step, of drawing the figures and of writing each kind of file;
- the bound (:func:`bound`): the wall time no run could beat at this moment on this machine's cores, even
  with nothing lost to running in parallel: the serial start (the imports and the study, until the report's
  first step, which only the report's own core can do; Python's own start-up not counted, so the bound is
  if anything low) plus the rest of the serial command's CPU divided among the cores. When it is above the
  bar, only computing less (or more cores) can meet the bar (docs/performance.md, part R).

On a shared machine the wall time follows the load; compare CPU times. The CPU time of the analyses alone
is the report's floor: the bar cannot be met below it without computing less (docs/performance.md).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from measure import as_installed, brecha_command, command_line, run_command

BARS = {"chile": 2.0, "brazil": 4.0}
HERE = Path(__file__).resolve().parent


def _helper(*args: str, env=None) -> dict:
    proc = subprocess.run([sys.executable, str(HERE / "report_breakdown.py"), *args], capture_output=True,
                          text=True, env=as_installed(os.environ if env is None else env))
    if proc.returncode != 0:
        raise SystemExit(proc.stderr[-2000:])
    return json.loads(proc.stdout.strip().splitlines()[-1]) if proc.stdout.strip() else {}


def breakdown(example: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        listing = os.path.join(tmp, "modules.json")
        _helper("modules", example, os.path.join(tmp, "a"), listing)
        imports = _helper("imports", listing)["imports"]
        r = _helper("steps", example, os.path.join(tmp, "b"), listing)
    print(f"   breakdown of report --example {example}, CPU seconds (figures drawn serially to count them):")
    print(f"     {'imports (every module the report loads, cold)':<66} {imports:6.2f}")
    for key, cpu in r["rows"]:
        print(f"     {key:<66} {cpu:6.2f}")
    print(f"     {'total after the imports':<66} {r['total']:6.2f}", flush=True)


def bound(example: str, serial_cpu: float) -> dict:
    """``start + (serial_cpu - start) / cores``, the serial start read from one serial run in-process
    (``report_timeline.py --jobs 1 --json``: when the report's first step began)."""
    proc = subprocess.run([sys.executable, str(HERE / "report_timeline.py"), "--example", example, "--jobs", "1",
                           "--json"], capture_output=True, text=True, env=as_installed(os.environ))
    if proc.returncode != 0:
        raise SystemExit(proc.stderr[-2000:])
    r = json.loads(proc.stdout.strip().splitlines()[-1])
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    r.update(cores=cores, cpu=serial_cpu, bound=r["start"] + (serial_cpu - r["start"]) / cores)
    return r


def main(examples=("chile", "brazil")) -> bool:
    met = True
    for example in examples:
        load = os.getloadavg()[0]
        runs = {}
        with tempfile.TemporaryDirectory() as out:
            for label, jobs in (("first", None), ("warm", None), ("warm, serial", "1")):
                env = dict(os.environ)
                env.pop("BRECHA_JOBS", None)
                if jobs:
                    env["BRECHA_JOBS"] = jobs
                runs[label] = r = run_command(brecha_command("--quiet", "report", "--example", example, "-o",
                                                             os.path.join(out, label.replace(", ", "-"))), env=env)
                print(f"   report --example {example} ({label}): {command_line(r)}", flush=True)
        warm = runs["warm"]
        passed = warm["code"] == 0 and warm["wall"] <= BARS[example]
        met &= passed
        print(f"   -> warm {warm['wall']:.1f} s wall (bar {BARS[example]:.0f} s), {warm['cpu']:.1f} s CPU; load "
              f"average {load:.1f} on {os.cpu_count()} cores: {'OK' if passed else 'OVER'}", flush=True)
        b = bound(example, runs["warm, serial"]["cpu"])
        print(f"   -> bound now: serial start {b['start']:.2f} s + (serial CPU {b['cpu']:.2f} s - {b['start']:.2f} s) "
              f"/ {b['cores']} cores = {b['bound']:.2f} s: no run faster at this machine's speed, even with nothing "
              f"lost to running in parallel ({'under' if b['bound'] <= BARS[example] else 'OVER'} the bar)",
              flush=True)
        breakdown(example)
    return met


if __name__ == "__main__":
    sys.path.insert(0, str(HERE))
    names = sys.argv[1:] or ["chile", "brazil"]
    unknown = [n for n in names if n not in BARS]
    if unknown:  # `--help` or a typo: say what runs, instead of a KeyError after a first measurement
        print(__doc__.split("\n\n")[0] + f"\n\nusage: python benchmarks/bench_report.py [{' '.join(BARS)}]")
        sys.exit(0 if unknown == ["--help"] or unknown == ["-h"] else 2)
    sys.exit(0 if main(names) else 1)
