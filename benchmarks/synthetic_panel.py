"""Synthetic panels of any size for the growth and memory benchmarks (issue 19).

``units`` units x ``years`` years: births ~ Poisson(500), infant deaths ~ Poisson(births x r_u) with a unit
rate r_u = 8 per 1,000 x exp(0.3 z_u - 0.02 (year - first year)) and a ``poverty`` covariate tied to z_u;
unit codes are 7-digit text. Seeded: the same call writes the same file.
"""
from __future__ import annotations

from pathlib import Path

CHILE_UNITS = 346


def write_panel(path: str | Path, units: int, years: int = 20, seed: int = 19) -> Path:
    """Write the panel file (.parquet) once; an existing file of the same name is reused."""
    import numpy as np
    import pandas as pd

    path = Path(path)
    if path.exists():
        return path
    rng = np.random.default_rng([seed, units, years])
    z = rng.normal(size=units)
    year = np.arange(2000, 2000 + years)
    births = rng.poisson(500, size=(units, years))
    rate = 0.008 * np.exp(0.3 * z[:, None] - 0.02 * (year[None, :] - year[0]))
    deaths = rng.poisson(births * rate)
    poverty = np.clip(15 + 5 * z[:, None] + rng.normal(0, 1, size=(units, years)), 0, 100)
    data = pd.DataFrame({"unit": np.repeat([f"{i:07d}" for i in range(1, units + 1)], years),
                         "year": np.tile(year, units), "births": births.ravel(), "deaths": deaths.ravel(),
                         "poverty": poverty.ravel()})
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp.parquet")
    data.to_parquet(tmp, index=False)
    tmp.replace(path)
    return path
