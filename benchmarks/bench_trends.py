"""Trends at national sizes (issue 6). Bars:
- Prais-Winsten trends for 346 units x 35 years <= 50 ms of compute;
- Prais-Winsten trends for 5,570 Brazilian municipalities x 20 years <= 1 s;
- joinpoint (K <= 2, BIC) for 346 units <= 10 s.
Compute = ``brecha.trends.trends(...)`` from a loaded Panel (imports warm, best of several runs)."""
from __future__ import annotations

import time
import warnings

import numpy as np
import pandas as pd


def _synthetic_panel(n_units: int, n_years: int, seed: int = 1):
    from brecha.panel import Panel

    rng = np.random.default_rng(seed)
    units = [f"{i:05d}" for i in range(n_units)]
    years = np.arange(2024 - n_years, 2024)
    # small and large communes alike: births 20..6000, so some years have zero deaths
    size = rng.lognormal(6.0, 1.3, size=n_units).clip(20, 6000)
    births = rng.poisson(np.repeat(size, n_years)).clip(1, None)
    trend = np.tile(np.exp(-0.02 * (years - years[0])), n_units)
    deaths = rng.poisson(births * 0.012 * trend)
    data = pd.DataFrame({"unit": np.repeat(units, n_years), "year": np.tile(years, n_units),
                         "births": births, "deaths": deaths})
    return Panel(data)


def _best(fn, repeat: int) -> tuple[float, object]:
    best, out = np.inf, None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return best, out


def main() -> bool:
    from brecha.trends import prais_winsten, trends

    warnings.simplefilter("ignore")
    ok = True

    panel = _synthetic_panel(346, 35)
    trends(panel)  # warm imports (scipy.special)
    secs, out = _best(lambda: trends(panel), 7)
    zero_units = int((out["zero_years"] > 0).sum())
    print(f"   Prais-Winsten trends, 346 units x 35 years ({zero_units} units with zero-death years, add-half): "
          f"{secs * 1000:.1f} ms (bar 50 ms)")
    ok &= secs <= 0.05
    Y = np.log10(np.random.default_rng(2).uniform(5, 15, size=(346, 35)))
    X = np.column_stack([np.ones(35), np.arange(35.0)])
    secs_core, _ = _best(lambda: prais_winsten(Y, X), 7)
    print(f"   prais_winsten core on a 346 x 35 array: {secs_core * 1000:.1f} ms")

    try:
        from brecha.datasets import brazil

        br = brazil()
        label = "real Brazil panel"
    except Exception:  # the embedded data may be absent in a partial checkout
        br = _synthetic_panel(5570, 20)
        label = "synthetic"
    trends(br)
    secs, out = _best(lambda: trends(br), 3)
    print(f"   Prais-Winsten trends, {out['unit'].nunique():,} units x {len(br.years)} years ({label}): "
          f"{secs * 1000:.0f} ms (bar 1000 ms); classes {out['trend'].value_counts().to_dict()}")
    ok &= secs <= 1.0

    secs, out = _best(lambda: trends(panel, method="joinpoint", max_joinpoints=2), 2)
    per_unit = out[out["row"] == "aapc"]
    chosen = {int(k): int(v) for k, v in per_unit["n_joinpoints"].value_counts().sort_index().items()}
    print(f"   joinpoint (K <= 2, BIC), 346 units x 35 years: {secs:.2f} s (bar 10 s); "
          f"joinpoints chosen {chosen}")
    ok &= secs <= 10.0
    secs_w, _ = _best(lambda: trends(panel, method="joinpoint", weights="poisson"), 1)
    print(f"   joinpoint with Poisson weights, same data: {secs_w:.2f} s")
    return bool(ok)


if __name__ == "__main__":
    main()
