"""Growth with size (issue 19): the same commands at 1x, 10x and 100x the Chilean size, whole processes.

Synthetic panels (benchmarks/synthetic_panel.py) of 346, 3,460 and 34,600 units x 20 years, written once to
``$BRECHA_BENCH_DIR`` (default: the system's temporary folder). Each command runs as a child process
(``brecha ...``, start-up and file reading included) and is measured by ``measure.run_command``: wall time,
CPU time and that child's own peak memory. Printed: each size's numbers, then the ratios 10x/1x and 100x/10x
of CPU time and of peak memory.

Bars (issue 19):
- linear growth: for 10x the units at most 12x the time. Held on CPU time (the wall time of a shared machine
  follows its load) and on the step 10x -> 100x (at 1x the process's start-up and imports, a fixed cost,
  dominate and the ratio says little).
- at 173,000 units x 20 years (3.5 M rows) <= 1.5 GB peak for rates, disparity, trends, models (FE, RE and
  their tests) and inequality with bootstrap: run with ``BRECHA_BENCH_UNITS=173000`` (adds that size; about
  ten minutes on 2 cores).
"""
from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from measure import brecha_command, command_line, run_command
from synthetic_panel import CHILE_UNITS, write_panel

GROWTH_BAR = 12.0
MEMORY_BAR_MB = 1.5 * 1024
LARGE_UNITS = 173_000


def commands(panel: Path, out: Path) -> dict[str, list[str]]:
    return {
        "rates": ["rates", str(panel), "-o", str(out / "rates.parquet")],
        "disparity": ["disparity", str(panel), "--reference", "best", "-o", str(out / "disparity.parquet")],
        "trends": ["trends", str(panel), "-o", str(out / "trends.parquet")],
        "models fe,re": ["models", str(panel), "--covariates", "poverty", "--models", "fe,re",
                         "-o", str(out / "models.csv")],
        "inequality bootstrap 200": ["inequality", str(panel), "--rank-by", "poverty", "--bootstrap", "200",
                                     "-o", str(out / "inequality.parquet")],
    }


def measure_size(units: int, folder: Path) -> dict[str, dict]:
    panel = write_panel(folder / f"synthetic_{units}x20.parquet", units)
    out = folder / f"out_{units}"
    out.mkdir(exist_ok=True)
    print(f"   {units:,} units x 20 years ({units * 20:,} rows)", flush=True)
    results = {}
    for name, args in commands(panel, out).items():
        r = run_command(brecha_command("--lang", "en", "--quiet", *args))
        results[name] = r
        print(f"     {name:<26} {command_line(r)}", flush=True)
    return results


def main() -> bool:
    folder = Path(os.environ.get("BRECHA_BENCH_DIR") or tempfile.gettempdir()) / "brecha_bench_growth"
    folder.mkdir(parents=True, exist_ok=True)
    sizes = [CHILE_UNITS, 10 * CHILE_UNITS, 100 * CHILE_UNITS]
    extra = os.environ.get("BRECHA_BENCH_UNITS")
    if extra:
        sizes.append(int(extra))
    by_size = {units: measure_size(units, folder) for units in sizes}
    met = all(r["code"] == 0 for results in by_size.values() for r in results.values())
    print("   ratios (CPU time, peak memory):")
    for small, large in ((sizes[0], sizes[1]), (sizes[1], sizes[2])):
        for name in by_size[small]:
            a, b = by_size[small][name], by_size[large][name]
            cpu_ratio = b["cpu"] / a["cpu"] if a["cpu"] > 0 else float("nan")
            mem_ratio = b["peak_mb"] / a["peak_mb"]
            held = small == sizes[1]  # the bar is held on 10x -> 100x
            verdict = ""
            if held:
                verdict = "ok" if cpu_ratio <= GROWTH_BAR else f"OVER the {GROWTH_BAR:g}x bar"
                met &= cpu_ratio <= GROWTH_BAR
            print(f"     {name:<26} {small:>6,} -> {large:>6,} units: CPU x{cpu_ratio:5.1f}, memory "
                  f"x{mem_ratio:4.1f} {verdict}")
    for units in sizes[3:]:
        print(f"   peak memory at {units:,} units (bar {MEMORY_BAR_MB:.0f} MB):")
        for name, r in by_size[units].items():
            ok = r["code"] == 0 and r["peak_mb"] <= MEMORY_BAR_MB
            met &= ok
            print(f"     {name:<26} {r['peak_mb']:6.0f} MB {'ok' if ok else 'OVER'}")
    return met


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    sys.exit(0 if main() else 1)
