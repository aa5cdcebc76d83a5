"""Run brecha's speed and memory benchmarks and print their numbers.

    python benchmarks/run.py            # every benchmarks/bench_*.py
    python benchmarks/run.py trends     # only bench_trends.py

Each bench_<name>.py has a ``main()`` that runs its workload, prints what it measured and the bar it is
held to (from the issue that set it), and returns True when the bar is met. Benchmarks are run on demand,
never as timed unit tests.
"""
from __future__ import annotations

import importlib.util
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


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


def main(argv: list[str]) -> int:
    results = {}
    for path in discover(argv):
        spec = importlib.util.spec_from_file_location(path.stem, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[path.stem] = module
        spec.loader.exec_module(module)
        print(f"== {path.stem.removeprefix('bench_')}")
        start = time.perf_counter()
        ok = module.main()
        results[path.stem] = ok
        print(f"   ({time.perf_counter() - start:.1f} s in all)\n")
    failed = [name for name, ok in results.items() if ok is False]
    print("bars met: " + ", ".join(n for n, ok in results.items() if ok is not False))
    if failed:
        print("bars missed: " + ", ".join(failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
