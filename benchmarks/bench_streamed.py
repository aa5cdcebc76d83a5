"""Peak memory of ``brecha rates`` and ``brecha disparity`` written piece by piece (issue 19, cli/streamed.py).

Bar (issue 19): at 173,000 units x 20 years (3.5 M unit-years; the disparity table is 13.8 M rows) at most
1.5 GB peak for ``rates`` and ``disparity``, whole processes (start-up, reading the panel and writing the
output included). Each command runs as a child process measured by ``measure.run_command`` (wall time, CPU
time, that child's own peak memory), with a ``.csv`` and a ``.parquet`` output (both streamed) and, for
comparison, ``--pool`` (one row per unit); and the outputs that used to be built whole (issue 19, second
round): ``--suppress``, ``--round``, a ``.json`` output and the table printed without ``-o``.

    python benchmarks/run.py streamed                          # 34,600 units x 20 years (a few minutes)
    BRECHA_BENCH_UNITS=173000 python benchmarks/run.py streamed  # the bar's size (about an hour on 2 cores)

The synthetic panel (benchmarks/synthetic_panel.py, seeded) is written once to ``$BRECHA_BENCH_DIR``
(default: the system's temporary folder), the same file as the growth benchmark's.
"""
from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from measure import brecha_command, command_line, run_command
from synthetic_panel import write_panel

MEMORY_BAR_MB = 1.5e9 / 2**20  # 1.5 GB = 1,431 MiB (the kernel counts in KiB)
DEFAULT_UNITS = 34_600


def commands(panel: Path, out: Path) -> dict[str, list[str]]:
    return {
        "rates -o .csv": ["rates", str(panel), "-o", str(out / "rates.csv")],
        "rates -o .parquet": ["rates", str(panel), "-o", str(out / "rates.parquet")],
        "disparity -o .csv": ["disparity", str(panel), "--reference", "best", "-o", str(out / "disparity.csv")],
        "disparity -o .parquet": ["disparity", str(panel), "--reference", "best",
                                  "-o", str(out / "disparity.parquet")],
        "disparity --pool -o .csv": ["disparity", str(panel), "--reference", "best", "--pool",
                                     "-o", str(out / "disparity_pool.csv")],
        # protected (publication_pieces.py: decided period by period, written piece by piece), .json, printed
        "rates --suppress 5 -o .csv": ["rates", str(panel), "--suppress", "5", "-o", str(out / "rates_s.csv")],
        "rates --round 5 -o .csv": ["rates", str(panel), "--round", "5", "-o", str(out / "rates_r.csv")],
        "rates -o .json": ["rates", str(panel), "-o", str(out / "rates.json")],
        "rates --pool -o .csv": ["rates", str(panel), "--pool", "-o", str(out / "rates_pool.csv")],
        "rates (printed)": ["rates", str(panel)],
        "disparity --suppress 5 -o .csv": ["disparity", str(panel), "--reference", "best", "--suppress", "5",
                                           "-o", str(out / "disparity_s.csv")],
        "disparity --round 5 -o .csv": ["disparity", str(panel), "--reference", "best", "--round", "5",
                                        "-o", str(out / "disparity_r.csv")],
        "disparity -o .json": ["disparity", str(panel), "--reference", "best", "-o", str(out / "disparity.json")],
        "disparity (printed)": ["disparity", str(panel), "--reference", "best"],
    }


def main() -> bool:
    units = int(os.environ.get("BRECHA_BENCH_UNITS") or DEFAULT_UNITS)
    folder = Path(os.environ.get("BRECHA_BENCH_DIR") or tempfile.gettempdir()) / "brecha_bench_growth"
    folder.mkdir(parents=True, exist_ok=True)
    panel = write_panel(folder / f"synthetic_{units}x20.parquet", units)
    out = folder / f"out_streamed_{units}"
    out.mkdir(exist_ok=True)
    print(f"   {units:,} units x 20 years ({units * 20:,} unit-years); bar {MEMORY_BAR_MB:,.0f} MiB (1.5 GB) "
          f"at 173,000 units", flush=True)
    met = True
    for name, args in commands(panel, out).items():
        r = run_command(brecha_command("--lang", "en", "--quiet", *args))
        ok = r["code"] == 0 and r["peak_mb"] <= MEMORY_BAR_MB
        met &= r["code"] == 0 and (ok or units < 173_000)
        print(f"     {name:<32} {command_line(r)}  {'within the bar' if ok else 'OVER the bar'}", flush=True)
    return met


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    sys.exit(0 if main() else 1)
