"""The report's figures, kind by kind (issue 19, part E): CPU seconds of making and drawing each figure the
default Chilean and Brazilian reports draw (every one to SVG; before their SVG was written by brecha, the charts
were drawn by matplotlib and the maps to PNG), in this process.

Each report is run once with ``BRECHA_JOBS=1`` (every figure drawn here) while every figure call is recorded
(the function or map canvas and its arguments); then each figure is made and drawn again from those same
arguments, three times, and its best CPU time kept (a map canvas: its construction, then each map
recoloured on it, as the report does). The whole report's bars are bench_report.py's; this one has none
(``NO_BAR``): it says which figure costs what (docs/performance.md "Drawing the report's figures").

    python benchmarks/run.py figures
"""
from __future__ import annotations

import os
import sys
import tempfile
import time
import warnings
from collections import defaultdict

NO_BAR = True
for _name in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS"):
    os.environ.setdefault(_name, "1")
os.environ["BRECHA_JOBS"] = "1"  # every figure drawn in this process
os.environ.setdefault("MPLBACKEND", "agg")

# (small_multiples was in figures.py before issue 19: listed there too, to measure that code the same way)
FUNCTIONS = {"figures": ["line_chart", "small_multiples", "distribution_chart", "funnel_plot", "scatter_chart"],
             "figures_multiples": ["small_multiples"], "figures_gap_where": ["stacked_shares", "contributions_chart"],
             "figures_joinpoint": ["joinpoint_chart", "joinpoint_multiples"]}
# (the polygon maps were figures.MapCanvas, drawn by matplotlib, before they were written as SVG: listed too)
CANVASES = {"figures": ["MapCanvas"], "polygon_map": ["PolygonMap"], "symbol_maps": ["SymbolCanvas", "TileCanvas"]}


def _record(example: str) -> list:
    """Run the example's report; every figure call, in order: ``("chart", kind, fn, args, kwargs)``,
    ``("canvas", kind, cls, args, kwargs)`` or ``("map", canvas number, args, kwargs)``."""
    import importlib
    import pkgutil

    import brecha.report.sections as sections
    from brecha.study import example_study, run_study

    for info in pkgutil.iter_modules(sections.__path__):  # imported now: their names of figure functions are patched
        importlib.import_module(f"brecha.report.sections.{info.name}")
    calls: list = []
    undo = []
    for mod_name, names in FUNCTIONS.items():
        try:
            module = importlib.import_module(f"brecha.report.{mod_name}")
        except ImportError:
            continue
        for name in names:
            real = getattr(module, name, None)
            if real is None:
                continue

            def wrapper(*args, _real=real, _name=name, **kwargs):
                calls.append(("chart", _name, _real, args, kwargs))
                return _real(*args, **kwargs)
            holders = [module] + [m for key, m in list(sys.modules.items())
                                  if key.startswith("brecha.report.sections.") and getattr(m, name, None) is real]
            for holder in holders:
                setattr(holder, name, wrapper)
                undo.append((holder, name, real))
    for mod_name, names in CANVASES.items():
        try:
            module = importlib.import_module(f"brecha.report.{mod_name}")
        except ImportError:
            continue
        for name in names:
            cls = getattr(module, name, None)
            if cls is None:
                continue
            init, render = cls.__init__, cls.render

            def new_init(self, *args, _init=init, _cls=cls, **kwargs):
                self._bench_number = sum(1 for c in calls if c[0] == "canvas")
                calls.append(("canvas", "map canvas", _cls, args, kwargs))
                return _init(self, *args, **kwargs)

            def new_render(self, *args, _render=render, **kwargs):
                calls.append(("map", self._bench_number, args, kwargs))
                return _render(self, *args, **kwargs)
            cls.__init__, cls.render = new_init, new_render
            undo += [(cls, "__init__", init), (cls, "render", render)]
    try:
        with tempfile.TemporaryDirectory() as folder:
            run_study(example_study(example), os.path.join(folder, "report"), lang="en")
    finally:
        for holder, name, real in reversed(undo):
            setattr(holder, name, real)
    return calls


def _replay(calls: list) -> dict:
    """Each figure made and drawn from its recorded arguments: {kind: [CPU seconds of each figure]}."""
    spent: dict = defaultdict(list)
    canvases = []
    for call in calls:
        t0 = time.process_time()
        if call[0] == "chart":
            _, kind, fn, args, kwargs = call
            fn(*args, **kwargs)
        elif call[0] == "canvas":
            _, kind, cls, args, kwargs = call
            canvases.append(cls(*args, **kwargs))
        else:
            _, number, args, kwargs = call
            kind = "map (recoloured, drawn)"
            canvases[number].render(*args, **kwargs)
        spent[kind].append(time.process_time() - t0)
    return spent


def main() -> None:
    warnings.simplefilter("ignore")
    for example in ("chile", "brazil"):
        calls = _record(example)
        runs = [_replay(calls) for _ in range(3)]
        print(f"   {example}: CPU seconds per kind of figure (best of three for each figure, then summed)")
        total = 0.0
        for kind in runs[0]:
            best = [min(r[kind][i] for r in runs) for i in range(len(runs[0][kind]))]
            total += sum(best)
            print(f"     {kind:<28} {len(best):>3} {sum(best):7.2f}")
        print(f"     {'every figure':<28} {'':>3} {total:7.2f}")


if __name__ == "__main__":
    main()
