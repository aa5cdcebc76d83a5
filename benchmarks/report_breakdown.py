"""Where the report's CPU time goes, step by step (run by bench_report.py as child processes).

    python benchmarks/report_breakdown.py modules EXAMPLE OUT LIST   # a report; writes the modules it imported
    python benchmarks/report_breakdown.py imports LIST                # CPU of importing those modules, cold
    python benchmarks/report_breakdown.py steps EXAMPLE OUT LIST      # the report, its imports done first

``steps`` prints one line per part, in CPU seconds of this process (``process_time``): data loading, each
analysis step (its analysis and its section; figure drawing taken out), drawing the figures (matplotlib's
``savefig`` of every figure, for brecha before issue 19 part I; since then the figures are SVG written by
brecha in milliseconds, counted in the steps making them; ``BRECHA_JOBS=1``: all in this process), and the files
(CSV tables, Excel workbook, HTML page, dashboard, the rest: figure files, folder). The imports are measured
apart (``imports``): the steps run after the same modules were imported, so no step is charged for them.
The numbers are instrumented by wrapping brecha's functions here; nothing in brecha is changed for it.
"""
from __future__ import annotations

import importlib
import json
import os
import sys
import time
from collections import defaultdict

os.environ["BRECHA_JOBS"] = "1"  # every figure drawn in this process, so its CPU is counted here
# OpenBLAS in one thread, as `brecha report` runs it (cli.main -> threads.one_blas_thread, before numpy loads):
# with two threads on a busy machine the small factorisations spin-wait (BYM2 alone 17 s of CPU, not 1.5 s)
for _name in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS"):
    os.environ.setdefault(_name, "1")


def _run(example: str, out: str) -> dict:
    """The report, each part's own CPU seconds: a step without the steps it runs inside it (the figures
    phase holds the headline, maps, ... steps) and without the figure drawing done during it."""
    import brecha.report.build as build
    import brecha.report.dashboard as dashboard
    import brecha.report.excel as excel
    import brecha.report.figures as figures
    import brecha.report.html as html
    import pandas as pd
    from brecha.study import example_study, run_study

    own: dict[str, float] = defaultdict(float)  # part -> its own CPU seconds, in the order first seen
    stack: list[list] = []  # [label, start, CPU of what ran inside it and is counted elsewhere]

    def enter(label):
        stack.append([label, time.process_time(), 0.0])

    def leave():
        label, start, inner = stack.pop()
        spent = time.process_time() - start
        own[label] += spent - inner
        if stack:
            stack[-1][2] += spent

    def timed(label, fn):
        def wrapper(*args, **kwargs):
            enter(label)
            try:
                return fn(*args, **kwargs)
            finally:
                leave()
        return wrapper

    class Clock(build._Clock):
        def __call__(self, step):
            inner = super().__call__(step)

            class Step:
                def __enter__(self_inner):
                    enter(step)
                    return inner.__enter__()

                def __exit__(self_inner, *exc):
                    leave()
                    return inner.__exit__(*exc)
            return Step()

    build._Clock = Clock
    drawing = "figures: drawing (savefig), every figure"
    if hasattr(figures, "_draw_bytes"):  # matplotlib drew the figures (until issue 19, part I)
        figures._draw_bytes = timed(drawing, figures._draw_bytes)
    elif hasattr(figures, "_save"):  # brecha before issue 19: every figure module imported _save by name
        for name in ("figures", "figures_joinpoint", "figures_gap_where", "symbol_maps"):
            module = importlib.import_module(f"brecha.report.{name}")
            module._save = timed(drawing, figures.__dict__["_save"])
    # else: the figures are SVG text written by brecha (part I), a few ms each, counted in the steps making them
    excel.write_workbook = timed("write: Excel workbook", excel.write_workbook)
    html.render_html = timed("write: HTML page", html.render_html)
    dashboard.render_dashboard = timed("write: dashboard", dashboard.render_dashboard)
    pd.DataFrame.to_csv = timed("write: CSV tables", pd.DataFrame.to_csv)
    try:  # issue 19: the tables written by brecha.csv_text (to_csv only for the tables it leaves)
        import brecha.csv_text as csv_tables

        csv_tables.write_csv = timed("write: CSV tables", csv_tables.write_csv)
    except ImportError:
        pass
    study = example_study(example)
    t0 = time.process_time()
    run_study(study, out, lang="en")
    return {"total": time.process_time() - t0, "own": dict(own)}


def modules(example: str, out: str, listing: str) -> None:
    _run(example, out)
    with open(listing, "w") as f:
        json.dump([name for name in list(sys.modules) if not name.startswith("__")], f)


def imports(listing: str) -> float:
    with open(listing) as f:
        names = json.load(f)
    t0 = time.process_time()
    for name in names:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - a module only importable in its context: not the report's cost
            pass
    cpu = time.process_time() - t0
    print(json.dumps({"imports": cpu}))
    return cpu


def steps(example: str, out: str, listing: str) -> None:
    with open(listing) as f:
        for name in json.load(f):
            try:
                importlib.import_module(name)
            except Exception:  # noqa: BLE001
                pass
    r = _run(example, out)
    own = r["own"]
    rows = [(key.replace("Writing files", "write: figure files, folder, manifest")
             .replace("Figures", "figures phase (its steps listed apart)"), cpu)
            for key, cpu in own.items() if not key.startswith(("write:", "figures: drawing"))]
    rows += [(key, cpu) for key, cpu in own.items() if key.startswith(("write:", "figures: drawing"))]
    print(json.dumps({"total": r["total"], "rows": rows}))


if __name__ == "__main__":
    command, *rest = sys.argv[1:]
    {"modules": modules, "imports": imports, "steps": steps}[command](*rest)
