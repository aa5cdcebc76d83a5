"""The table of :func:`brecha.disparity.disparity` in parts, for writing it without holding it whole
(issue 19; ``brecha disparity`` at 173,000 units x 20 years makes 13.8 million rows).

Each part comes with its rows' cells: one integer per row naming the row's unit-period (its four rows,
``rate_ratio, attributable_risk, attributable_risk_percent, excess_deaths``, share it), ``0 .. len(rows) - 1``
for the analysed unit-periods in the table's order, then ``len(rows) + p`` for the four ``TOTAL`` rows of
period ``p``. A protected table's hidden cells are decided period by period (:meth:`DisparityParts.strata`)
and applied to the pieces written in the table's order (:meth:`DisparityParts.blocks`),
``brecha.publication_pieces``.
"""
from __future__ import annotations

import numpy as np

from .disparity import _Plan

MEASURES_PER_CELL = 4  # rows per unit-period, and per period of the TOTAL


class DisparityParts:
    """The disparity table's arithmetic computed once (:class:`brecha.disparity._Plan`: the reference, the
    per-period sums, the total's measures), its rows built on demand. ``n_rows``: the table's rows, known
    before any is built."""

    def __init__(self, panel, reference, outcome="infant", years=None, pool=False, conf_level=0.95,
                 rr_method="poisson", par_method="delta", units=None, level=None, per=1000):
        self.plan = _Plan(panel, reference, outcome, years, pool, conf_level, rr_method, par_method, units, level,
                          per)
        self.n_unit_cells = len(self.plan.rows)
        self.n_cells = self.n_unit_cells + self.plan.k
        self.n_rows = MEASURES_PER_CELL * self.n_cells

    def _cells(self, unit_cells: np.ndarray, periods: np.ndarray) -> np.ndarray:
        return np.concatenate([np.repeat(unit_cells, MEASURES_PER_CELL),
                               np.repeat(self.n_unit_cells + periods, MEASURES_PER_CELL)])

    def whole(self):
        """The whole table (:func:`brecha.disparity.disparity`)."""
        return self.plan.table(self.plan.rows, np.arange(self.plan.k))

    def blocks(self, block_rows: int = 100_000):
        """Consecutive pieces of at most ``block_rows`` unit-periods, the ``TOTAL`` rows in the last: the
        pieces of :func:`brecha.disparity.disparity_blocks`, with their cells."""
        plan = self.plan
        step = max(1, int(block_rows))
        starts = list(range(0, self.n_unit_cells, step)) or [0]
        for i, start in enumerate(starts):
            periods = np.arange(plan.k) if i == len(starts) - 1 else np.arange(0)
            cells = np.arange(start, min(start + step, self.n_unit_cells))
            yield plan.table(plan.rows[cells], periods), self._cells(cells, periods)

    def strata(self):
        """The rows of one period at a time: its unit-periods in the table's order, then its ``TOTAL``."""
        plan = self.plan
        of_row = plan.pidx[plan.rows]
        for p in range(plan.k):
            cells = np.flatnonzero(of_row == p)
            yield plan.table(plan.rows[cells], np.array([p])), self._cells(cells, np.array([p]))
