"""Assemble the ``disparity`` table from per-row numpy arrays, excess deaths included, in one pass.

Rows come in blocks: for each analysed unit-period ``rate_ratio, attributable_risk,
attributable_risk_percent, excess_deaths``; for each period's ``TOTAL`` ``rate_ratio, par, par_percent,
excess_deaths``. The excess deaths are those of :mod:`brecha.excess_deaths` (AR or PAR times births / per,
the same arithmetic as :func:`brecha.excess_deaths.add_excess_deaths`), built here with the other measures
instead of appended and re-sorted afterwards: at 3.5 million unit-years that append copied the whole table
twice and formatted one Python string per row. Text columns are categoricals built from integer codes and the
unit column is taken from the events table's own text array, so no column holds one Python object per row.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .compat import text_array
from .excess_deaths import MEASURE as EXCESS

EXCESS_METHOD = "D - B x r_ref; CI: {method} x births"


def excess(result: dict, births, per: float) -> dict:
    """Excess deaths from an AR (or PAR) result: estimate, lower, upper, se × births / per."""
    factor = np.asarray(births, dtype="float64") / float(per)
    out = {key: np.asarray(result[key], dtype="float64") * factor for key in ("estimate", "lower", "upper", "se")}
    codes, uniques = pd.factorize(np.asarray(result["method"], dtype=object))
    out["method"] = np.array([EXCESS_METHOD.format(method=u) for u in uniques], dtype=object)[codes]
    return out


def _labels(blocks, n_rows: int):
    """Integer codes and categories of the method labels of interleaved blocks (one label array per measure,
    ``n_rows`` each), the categories in order of first appearance, excess-death labels last (as appended)."""
    width = len(blocks)
    first, per_block = {}, []
    for j, labels in enumerate(blocks):
        codes, uniques = pd.factorize(np.asarray(labels, dtype=object))
        _, where = np.unique(codes, return_index=True)
        for code, index in enumerate(where):
            first.setdefault(str(uniques[code]), []).append(int(index) * width + j)
        per_block.append((codes, uniques))
    return per_block, {label: min(pos) for label, pos in first.items()}


def method_codes(unit_blocks, total_blocks, n_rows: int, k: int):
    """Codes (interleaved, units then totals) and categories of the ``method`` column."""
    ublocks, ufirst = _labels(unit_blocks, n_rows)
    tblocks, tfirst = _labels(total_blocks, k)
    offset = n_rows * len(unit_blocks)
    first = dict(ufirst)
    for label, pos in tfirst.items():
        first.setdefault(label, pos + offset)
    excess_labels = {str(u) for u in ublocks[-1][1]} | {str(u) for u in tblocks[-1][1]}
    ordered = sorted(first, key=lambda lab: (lab in excess_labels, first[lab]))
    index = {label: i for i, label in enumerate(ordered)}

    def interleave(blocks, n):
        mapped = [np.array([index[str(u)] for u in uniques], dtype=np.int64)[codes] for codes, uniques in blocks]
        return np.column_stack(mapped).ravel() if n else np.zeros(0, dtype=np.int64)

    return np.concatenate([interleave(ublocks, n_rows), interleave(tblocks, k)]), ordered


def categorical(codes, categories) -> pd.Categorical:
    """Text from integer codes (-1 = missing) without converting each row's string."""
    cats = pd.Index(np.asarray(categories, dtype=object)).astype("str")
    return pd.Categorical.from_codes(np.asarray(codes, dtype=np.int64), categories=cats)


def counts(values):
    """Whole-number counts as nullable Int64 (NaN -> <NA>); floats stay floats."""
    values = np.asarray(values, dtype="float64")
    finite = np.isfinite(values)
    if not bool((values[finite] == np.round(values[finite])).all()):
        return values
    return pd.arrays.IntegerArray(np.where(finite, np.round(values), 0).astype(np.int64), ~finite).astype("Int64")


def unit_column(units, rep, n_total: int, total: str):
    """The unit of each row: ``units`` (the events table's column, or its ``pd.factorize`` codes and uniques,
    factorised once for every piece of a table) at ``rep``, then ``total`` ``n_total`` times, taken by integer
    codes from a text array of the distinct codes (no per-row Python string)."""
    codes, uniques = units if isinstance(units, tuple) else pd.factorize(units)
    source = text_array(list(np.asarray(uniques, dtype=object)) + [total, None])
    picked = np.asarray(codes)[np.asarray(rep, dtype=np.int64)]
    picked = np.where(picked >= 0, picked, len(uniques) + 1)
    return source.take(np.concatenate([picked, np.full(n_total, len(uniques), dtype=np.int64)]))
