"""Spatial statistics on Chile's 346 communes (issue 15), and how Moran/LISA grow with the units (issue 19).

Bars (issue 15): Moran + LISA (999 permutations) + Gi* for 346 communes ≤ 2 s; BYM2 for 346 communes pooled
≤ 10 s; BYM2 per year for 16 years ≤ 60 s. The neighbours (polygons read, queen contiguity) are built once
first and timed apart, after the import of brecha's spatial modules (timed too: since issue 19 they no
longer import esda or libpysal, which cost 2.5-3.5 s of CPU before). Each step prints its wall and CPU time
(the machine is shared: CPU time is the steadier number). BYM2 runs with BLAS limited to one thread when threadpoolctl is there (many threads only contend on 2 cores).
"""
from __future__ import annotations

import contextlib
import time
import warnings

BARS = {"autocorrelation": 2.0, "bym2_pooled": 10.0, "bym2_years": 60.0, "growth": 12.0}


def _timed(func):
    wall, cpu = time.perf_counter(), time.process_time()
    result = func()
    return time.perf_counter() - wall, time.process_time() - cpu, result


def _one_thread():
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return contextlib.nullcontext()
    return threadpool_limits(1)


def main() -> bool:
    def imports():
        from brecha.spatial.autocorrelation import spatial_autocorrelation
        from brecha.spatial.bym2 import bym2
        from brecha.spatial.neighbours import neighbours

        return spatial_autocorrelation, bym2, neighbours

    from brecha.datasets import chile

    wall, cpu, (spatial_autocorrelation, bym2, neighbours) = _timed(imports)
    print(f"   importing the spatial modules: {wall:.2f} s wall, {cpu:.2f} s CPU")

    warnings.simplefilter("ignore")
    panel = chile(covariates=False)
    years = list(range(2000, 2016))
    wall, cpu, nb = _timed(lambda: neighbours(panel, "queen"))
    print(f"   neighbours (queen, {len(nb.units)} communes with neighbours): {wall:.2f} s wall, {cpu:.2f} s CPU")
    ok = True
    wall, cpu, _ = _timed(lambda: spatial_autocorrelation(panel, years=years, pool=True, neighbours=nb,
                                                          permutations=999, seed=1))
    ok &= min(wall, cpu) <= BARS["autocorrelation"]
    print(f"   Moran + LISA (999 permutations) + Gi*, pooled: {wall:.2f} s wall, {cpu:.2f} s CPU "
          f"(bar {BARS['autocorrelation']:.0f} s)")
    with _one_thread():
        wall, cpu, _ = _timed(lambda: bym2(panel, years=years, pool=True, neighbours=nb))
        ok &= min(wall, cpu) <= BARS["bym2_pooled"]
        print(f"   BYM2 pooled 2000-2015: {wall:.2f} s wall, {cpu:.2f} s CPU (bar {BARS['bym2_pooled']:.0f} s)")
        wall, cpu, _ = _timed(lambda: bym2(panel, years=years, pool=False, neighbours=nb))
        ok &= min(wall, cpu) <= BARS["bym2_years"]
        print(f"   BYM2 per year, 16 years: {wall:.2f} s wall, {cpu:.2f} s CPU (bar {BARS['bym2_years']:.0f} s)")
    ok &= _growth()
    return bool(ok)


def _grid(side: int):
    """A side x side grid of units, each linked to the units above, below, left and right (rook)."""
    from brecha.spatial.links import Links

    ids = [str(k) for k in range(side * side)]
    links = {ids[r * side + c]: [ids[(r + dr) * side + c + dc] for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
                                 if 0 <= r + dr < side and 0 <= c + dc < side]
             for r in range(side) for c in range(side)}
    return Links(links, ids)


def _growth() -> bool:
    """Moran's I and LISA (999 permutations each) on grids of 2,500 and 25,000 units (issue 19: 10x the units
    in at most 12x the time). esda's conditional permutations copy every value once per unit (n² in all)."""
    import numpy as np

    from brecha.spatial.moran import global_moran, local_moran

    cpu = {}
    for side in (50, 158):
        links = _grid(side)
        y = np.random.default_rng(1).normal(size=links.n)
        _, cpu[links.n], _ = _timed(lambda: (global_moran(y, links, 999, 1), local_moran(y, links, 999, 1)))
        print(f"   Moran + LISA, 999 permutations, grid of {links.n:,} units: {cpu[links.n]:.2f} s CPU")
    small, large = sorted(cpu)
    ratio = (cpu[large] / cpu[small]) / (large / small) * 10
    print(f"   growth: {large / small:.1f}x the units, {cpu[large] / cpu[small]:.1f}x the CPU "
          f"({ratio:.1f}x per 10x; bar {BARS['growth']:.0f}x)")
    return ratio <= BARS["growth"]
