"""Run brecha's speed and memory benchmarks and print their numbers.

    python benchmarks/run.py            # every benchmarks/bench_*.py
    python benchmarks/run.py trends     # only bench_trends.py

Each bench_<name>.py has a ``main()`` that runs its workload, prints what it measured and the bar it is
held to (from the issue that set it), and returns True when the bar is met. Benchmarks are run on demand,
never as timed unit tests.

Each benchmark runs in a child process of its own (``run.py --child NAME``), so its memory is its own: the
line after it gives that child's wall time, CPU time (user + system, every thread) and true peak resident
memory (``ru_maxrss`` of ``os.wait4`` for that child, not the largest of all children so far), and the
machine's load average. Steps inside a benchmark are measured with ``measure.step`` (VmHWM reset per
step) or as child commands with ``measure.run_command`` (benchmarks/measure.py).
"""
from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # measure.py, synthetic_panel.py

from measure import run_command  # noqa: E402


def discover(names: list[str]) -> list[Path]:
    files = sorted(HERE.glob("bench_*.py"))
    if names:
        wanted = {f"bench_{n.removeprefix('bench_').removesuffix('.py')}.py" for n in names}
        unknown = wanted - {f.name for f in files}
        if unknown:
            raise SystemExit(f"no such benchmark: {', '.join(sorted(unknown))}; have: "
                             f"{', '.join(f.stem.removeprefix('bench_') for f in files)}")
        files = [f for f in files if f.name in wanted]
    return files


def run_child(name: str) -> int:
    """Run one benchmark in this process (the child); exit 0 bar met, 3 bar missed, 4 measured without a bar
    (a module that sets ``NO_BAR = True``)."""
    (path,) = discover([name])
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    spec.loader.exec_module(module)
    ok = module.main()
    if ok is None and getattr(module, "NO_BAR", False):
        return 4
    return 3 if ok is False else 0


def main(argv: list[str]) -> int:
    if argv[:1] == ["--child"]:
        return run_child(argv[1])
    results = {}
    for path in discover(argv):
        name = path.stem.removeprefix("bench_")
        print(f"== {name}", flush=True)
        load = os.getloadavg()[0]
        r = run_command([sys.executable, str(Path(__file__).resolve()), "--child", name], stdout=None)
        if r["code"] not in (0, 3, 4):
            print(r["stderr"])
        results[path.stem] = None if r["code"] == 0 else "no bar" if r["code"] == 4 else False
        # wait4's peak is the larger of the benchmark process's own and of the commands it ran and waited for
        print(f"   ({r['wall']:.1f} s wall, {r['cpu']:.1f} s CPU in all; peak {r['peak_mb']:.0f} MB, of the benchmark "
              f"process or the largest command it ran; load average {load:.1f} on {os.cpu_count()} cores)\n",
              flush=True)
    failed = [name for name, ok in results.items() if ok is False]
    print("bars met: " + ", ".join(n for n, ok in results.items() if ok is None))
    unbarred = [name for name, ok in results.items() if ok == "no bar"]
    if unbarred:
        print("measured, no bar: " + ", ".join(unbarred))
    if failed:
        print("bars missed: " + ", ".join(failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
