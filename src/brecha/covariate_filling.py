"""Filling a covariate between the years it is observed, never across a break in its definition.

Every value is either observed in its year or filled by a stated rule, and the ``filled`` flag says which.
Filling never crosses a methodology or definition break (a "segment"): inside a segment,

- ``fill="interpolate"``: linear interpolation between the two nearest observed years of the same unit;
  after the last observed year of the segment the last value is carried forward; before the first
  observed year the value stays missing (no back-casting: a value before the first observation would be
  invented, not measured).
- ``fill="carry-forward"``: the last observed value of the segment (missing before the first).
- ``fill="none"``: observed years only.

Used by :mod:`brecha.covariates` (which re-exports :func:`fill_series`); the rules are described to the
user by :mod:`brecha.covariate_sources`.

    >>> import pandas as pd
    >>> obs = pd.DataFrame({"unit": ["01101", "01101"], "year": [2006, 2009], "value": [10.0, 16.0]})
    >>> fill_series(obs, ["01101"], range(2005, 2011))["value"].tolist()
    [nan, 10.0, 12.0, 14.0, 16.0, 16.0]
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .errors import InputError
from .i18n import Catalog

FILL_RULES = ("interpolate", "carry-forward", "none")

MSG = Catalog({
    "bad_fill": ("regla de relleno '{fill}' desconocida; use interpolate, carry-forward o none",
                 "unknown filling rule '{fill}'; use interpolate, carry-forward or none"),
})


def check_fill(fill: str) -> str:
    """``fill`` if it is one of :data:`FILL_RULES`, else an InputError naming the three."""
    if fill not in FILL_RULES:
        raise InputError(MSG("bad_fill", fill=fill))
    return fill


def _fill_matrix(values: np.ndarray, columns: np.ndarray, fill: str) -> np.ndarray:
    """Fill each row of a units x years matrix (NaN = not observed) along ``columns`` (the years).

    interpolate: linear in the year between the nearest observed years before and after, the last observed
    value after the last; carry-forward: the last observed value; none: as it is. Nothing before the first.
    """
    if fill == "none" or values.size == 0:
        return values.copy()
    n_rows, n_cols = values.shape
    seen = ~np.isnan(values)
    pos = np.arange(n_cols)
    prev = np.maximum.accumulate(np.where(seen, pos, -1), axis=1)
    rows = np.arange(n_rows)[:, None]
    has_prev = prev >= 0
    v_prev = values[rows, np.clip(prev, 0, None)]
    out = np.where(has_prev, v_prev, np.nan)
    if fill == "interpolate":
        nxt = np.minimum.accumulate(np.where(seen, pos, n_cols)[:, ::-1], axis=1)[:, ::-1]
        between = has_prev & (nxt < n_cols) & ~seen
        v_next = values[rows, np.clip(nxt, None, n_cols - 1)]
        y = columns.astype(float)
        y_prev, y_next = y[np.clip(prev, 0, None)], y[np.clip(nxt, None, n_cols - 1)]
        with np.errstate(invalid="ignore", divide="ignore"):
            share = (y[None, :] - y_prev) / (y_next - y_prev)
        out = np.where(between, v_prev + share * (v_next - v_prev), out)
    return np.where(seen, values, out)


def fill_series(observed: pd.DataFrame, units, years, fill: str = "interpolate", segments=((None, None),)
                ) -> pd.DataFrame:
    """Unit x year grid from observed ``unit, year, value`` rows, filled inside each segment.

    ``segments``: (first_year, last_year) ranges (None = open); filling never crosses their limits, and
    observed years outside ``years`` but inside a segment still anchor the filling.
    Returns ``unit, year, value, filled`` (filled = value not observed in that year), units x years in order.
    """
    fill = check_fill(fill)
    units = pd.Index(list(units))
    years = np.array(sorted(int(y) for y in years), dtype=np.int64)
    obs = observed.dropna(subset=["value"])
    row = units.get_indexer(obs["unit"])
    keep = row >= 0
    obs_row, obs_year = row[keep], obs["year"].to_numpy(np.int64)[keep]
    obs_value = obs["value"].to_numpy(float)[keep]
    value = np.full((len(units), len(years)), np.nan)
    flag = np.zeros((len(units), len(years)), dtype=bool)
    for lo, hi in segments:
        lo_ = -10 ** 9 if lo is None else lo
        hi_ = 10 ** 9 if hi is None else hi
        take = (years >= lo_) & (years <= hi_)
        if not take.any():
            continue
        inside = (obs_year >= lo_) & (obs_year <= hi_)
        cols = np.union1d(years[take], obs_year[inside])
        col = np.searchsorted(cols, obs_year[inside])
        # duplicate (unit, year) observations are averaged
        sums = np.zeros((len(units), len(cols)))
        counts = np.zeros((len(units), len(cols)))
        np.add.at(sums, (obs_row[inside], col), obs_value[inside])
        np.add.at(counts, (obs_row[inside], col), 1)
        with np.errstate(invalid="ignore"):
            matrix = np.where(counts > 0, sums / np.where(counts > 0, counts, 1), np.nan)
        filled = _fill_matrix(matrix, cols, fill)
        at = np.searchsorted(cols, years[take])
        value[:, take] = filled[:, at]
        flag[:, take] = (counts[:, at] == 0) & ~np.isnan(filled[:, at])
    return pd.DataFrame({"unit": np.repeat(units.to_numpy(dtype=object), len(years)).astype(str),
                         "year": np.tile(years, len(units)), "value": value.ravel(),
                         "filled": flag.ravel()})
