"""A result table protected (:func:`brecha.publication_tables.protect`) without holding it whole (issue 19):
``brecha rates`` and ``brecha disparity`` with ``--suppress`` or ``--round`` at 173,000 units x 20 years.

The table comes in parts (``rates.RateParts``, ``disparity_parts.DisparityParts``), each row with its cell
(a unit-period). What is hidden is decided on whole strata, then applied to the pieces in the table's order:

1. **Decide, one period at a time** (:meth:`ProtectedPieces.decide`). Secondary suppression balances each
   total against its members *within one stratum* (period and outcome; ``publication.suppress_cells``:
   a cell's parent is looked up in its own stratum, and the groups are repaired stratum by stratum, so
   no stratum's choice depends on another's). The rows of one period with the totals they are published
   with (``publication_tables.total_sums``) therefore get exactly the status the whole table gives them:
   each cell's status is kept (one byte per cell), and the totals' sums with theirs.
2. **The totals' rows** are made once, after every period was seen: ``total_rows`` takes the table's one
   ``method`` and ``conf_level`` when all rows share it (``shared_values``, gathered over the periods), and
   the totals are put in the whole table's order (each level's groups sorted by code, then period; the
   country's last), the order ``sum_members`` gives them.
3. **Apply, piece by piece** (:meth:`ProtectedPieces.__iter__`): each piece in the table's order, with the
   totals below it (so that its columns take the types they take in the whole table), gets its cells'
   statuses, rounding, the reference's small counts hidden (``publication_tables.finish``); the piece's own
   rows are yielded, and after the last piece the totals'.

Concatenated, the pieces are the whole protected table: a ``.csv`` written from them is byte for byte the
file of ``protect`` (tests/cli/test_streamed_protected.py, with pieces of a few rows, on Chile and on a
synthetic panel). Memory: one period's table at a time, then one piece (plus the totals, a few rows a
period); the table is built twice (once per period, once per piece), about twice the CPU time of building
it once.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .publication import Policy
from .publication_tables import (cell_status, finish, prepared, published_notes, shared_values, table_keys,
                                 total_rows, total_sums, with_totals)

STATUS = np.array(["", "suppressed", "suppressed_secondary"], dtype=object)
LEVEL_ORDER = {"province": 0, "region": 1}  # the totals' levels from the units up (publication_tables); TOTAL last


def _codes(status) -> np.ndarray:
    status = np.asarray(status, dtype=object)
    return np.select([status == "suppressed", status == "suppressed_secondary"], [1, 2], 0).astype(np.int8)


def _small_reference(table: pd.DataFrame, policy: Policy) -> np.ndarray:
    """Rows whose reference has 1..K deaths (``publication_tables._hide_small_reference``'s rule)."""
    if "reference_events" not in table.columns or policy.suppress is None:
        return np.zeros(len(table), dtype=bool)
    ref = pd.to_numeric(table["reference_events"], errors="coerce").astype("float64").to_numpy()
    small = (ref >= 1) & (ref <= policy.suppress)
    return small | (ref == 0) if policy.zeros == "hide" else small


class ProtectedPieces:
    """Iterate over the protected table's pieces (module docstring). After construction (step 1 and 2 done):
    ``primary`` and ``secondary``, the cells hidden (as ``cli.publish`` counts them), ``n_rows`` the rows
    the pieces will hold, ``notes`` the protected table's notes."""

    def __init__(self, parts, policy: Policy, panel=None, block_rows: int = 500_000):
        self.parts, self.policy, self.panel, self.block_rows = parts, policy, panel, block_rows
        self.primary = self.secondary = 0
        self.notes: list[str] = []
        self.decide()
        self.n_rows = parts.n_rows + len(self.totals)

    def decide(self) -> None:
        parts, policy, panel = self.parts, self.policy, self.panel
        self.status = np.zeros(parts.n_cells, dtype=np.int8)
        sums, sums_status, shared, template = [], [], {}, None
        for table, cells in parts.strata():
            keys, strata = table_keys(table)
            out = prepared(table)
            found = total_sums(out, strata, panel)
            both = pd.concat([out[keys + ["events"]], found[keys + ["events"]]], ignore_index=True) \
                if len(found) else out[keys + ["events"]]
            codes = _codes(cell_status(both, keys, strata, panel, policy))
            own = codes[:len(table)]
            self.status[cells] = own
            sums.append(found)
            sums_status.append(codes[len(table):])
            # the cells hidden, as cli.publish counts them (one row per cell, its first)
            _, first = np.unique(cells, return_index=True)
            small = _small_reference(table, policy)[first]
            self.primary += int((own[first] == 1).sum() + (codes[len(table):] == 1).sum())
            self.secondary += int(((own[first] == 2) | ((own[first] == 0) & small)).sum()
                                  + (codes[len(table):] == 2).sum())
            for col, value in shared_values(out).items():
                shared.setdefault(col, set()).add(value)
            template = out.iloc[0:0]
            self.notes = published_notes(dict(table.attrs), policy)
            del table, out, both
        shared = {col: next(iter(values)) if len(values) == 1 else None for col, values in shared.items()}
        self.totals, self.totals_status = self._totals(sums, sums_status, template, shared)

    def _totals(self, sums, sums_status, template, shared):
        found = [s for s in sums if len(s)]
        if not found:
            return pd.DataFrame(), np.zeros(0, dtype=np.int8)
        sums = pd.concat(found, ignore_index=True)
        status = np.concatenate(sums_status)
        strata = [c for c in ("period", "outcome") if c in sums.columns]
        unit = sums["unit"].astype(str)
        level = unit.str.partition(":")[0].map(LEVEL_ORDER).fillna(len(LEVEL_ORDER)).to_numpy()
        order = pd.DataFrame({"level": level, "unit": unit, **{c: sums[c] for c in strata}}) \
            .sort_values(["level", "unit", *strata], kind="stable").index.to_numpy()
        sums = sums.iloc[order].reset_index(drop=True)
        return total_rows(sums, template, shared), status[order]

    def __iter__(self):
        policy = self.policy
        statuses = STATUS[np.concatenate([np.zeros(0, dtype=np.int8), self.totals_status])]
        tail = None
        for table, cells in self.parts.blocks(self.block_rows):
            n = len(table)
            out, true_events = with_totals(prepared(table), self.totals)
            status = np.concatenate([STATUS[self.status[cells]], statuses])
            done = finish(out, status, table, policy, true_events)
            tail = done.iloc[n:]
            yield done.iloc[:n]
            del out, done
        if tail is not None and len(tail):
            yield tail
