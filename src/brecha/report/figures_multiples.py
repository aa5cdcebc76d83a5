"""Small multiples (one small line chart per measure or region) drawn with a handful of matplotlib artists
instead of one ``Axes`` per panel.

Why: a matplotlib ``Axes`` is expensive to make and to draw (its two axes, a ``Tick`` object of four lines and
two texts per tick, spines, title, clipping); the report's 32 panels cost about 2.3 s of CPU, most of it that
machinery (issue 19, docs/performance.md "Drawing the report's figures"). Here the whole figure is drawn at
the figure level, in figure coordinates, with the panels' boxes of the same fixed grid as before
(``GridSpec.get_grid_positions``): every panel's band is one polygon of one ``PolyCollection``, its line and
markers one stretch of one ``Line2D`` (panels separated by NaN, which breaks a line), the reference line
another, the grid lines, ticks and spines three ``LineCollection`` s, and the texts (titles, tick labels)
plain ``Text`` s. What a panel shows is computed with matplotlib's own rules, so the picture is the one the
``Axes`` drew:

- y limits: the data limits (band, reference line and estimates; all panels when ``sharey``) made
  non-singular and widened by ``axes.ymargin`` (5 %) on each side (``Axes.autoscale_view``);
- y ticks: :class:`matplotlib.ticker.AutoLocator` with as many bins as a y axis of that height allows
  (``YAxis.get_tick_space``: the axis length over twice the label size, at most 9), ticks outside the limits
  dropped, labels by :class:`matplotlib.ticker.ScalarFormatter` (its offset text when it uses one);
- x: the first and the last year as ticks, half a year of room at each end;
- style: the report's ``_rc`` settings (grid under the data, left and bottom spines, outward ticks of
  ``xtick.major.size``, labels ``xtick.major.pad`` from them, bold titles left-aligned ``axes.titlepad``
  above the panel); with ``sharey`` only the first column carries y tick labels (as ``subplots(sharey=True)``).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .figures import ACCENT, GRID, MUTED, Figure, _new_figure, _rc, _save

LABEL_SIZE = 7
TITLE_SIZE = 8.5


def small_multiples(name: str, table: pd.DataFrame, *, caption: str = "", alt: str = "",
                    labels: dict | None = None, ncols: int = 3, sharey: bool = False,
                    reference: pd.DataFrame | None = None) -> Figure:
    """One small line chart per measure (inequality over time). ``table``: ``measure, year, estimate``
    (+ ``lower, upper``); ``reference``: ``year, estimate`` drawn dashed in every panel."""
    measures = list(dict.fromkeys(table["measure"]))
    n = len(measures)
    ncols = min(ncols, n)
    panels = _panels(table, measures, labels or {})
    ref = None
    if reference is not None:
        r = reference.sort_values("year")
        ref = (r["year"].astype(float).to_numpy(), r["estimate"].astype(float).to_numpy())
    with _rc():
        import matplotlib

        rc = matplotlib.rcParams
        fig, boxes, width, height = panel_grid(n, ncols, row_height=1.9, wspace=0.35)
        limits = [_ylimits(p, ref) for p in panels]
        if sharey:
            lo = [v for v in limits if v is not None]
            shared = _nonsingular_margins(min(v[0] for v in lo), max(v[1] for v in lo)) if lo else (0.0, 1.0)
            limits = [shared] * n
        else:
            limits = [_nonsingular_margins(*v) if v is not None else (0.0, 1.0) for v in limits]
        drawing = _Drawing(fig, width, height, rc)
        for i, (panel, box, ylim) in enumerate(zip(panels, boxes, limits)):
            drawing.panel(panel, box, ylim, ref, ylabels=not sharey or i % ncols == 0)
        drawing.finish()
        return Figure(name, "svg", _save(fig, "svg"), caption, alt or caption)


def panel_grid(n: int, ncols: int, *, row_height: float, wspace: float):
    """The figure of ``n`` small panels and each panel's box (left, bottom, right, top, in figure coordinates):
    ``ncols`` columns 2.6 in wide, rows ``row_height`` in high, the fixed grid the ``Axes`` had
    (``GridSpec.get_grid_positions``). Call it inside the report's ``_rc()``. Returns ``(fig, boxes, width,
    height)``."""
    from matplotlib.gridspec import GridSpec

    nrows = int(np.ceil(n / ncols))
    width, height = 2.6 * ncols + 0.3, row_height * nrows + 0.1
    fig = _new_figure(width, height, layout=None)
    grid = GridSpec(nrows, ncols, left=0.07, right=0.98, bottom=0.1 / nrows, top=1 - 0.16 / nrows, wspace=wspace,
                    hspace=0.6)
    bottoms, tops, lefts, rights = grid.get_grid_positions(fig)
    boxes = [(lefts[i % ncols], bottoms[i // ncols], rights[i % ncols], tops[i // ncols]) for i in range(n)]
    return fig, boxes, width, height


def _panels(table: pd.DataFrame, measures: list, labels: dict) -> list[dict]:
    """Each measure's rows in year order (one sort of the whole table, not a filter and a sort per panel):
    its years, estimates, band (when it has any lower bound) and title (cut at 34 characters)."""
    index = {m: i for i, m in enumerate(measures)}
    which = np.fromiter((index.get(m, -1) for m in table["measure"]), dtype=np.int64, count=len(table))
    x = table["year"].astype(float).to_numpy()
    y = table["estimate"].astype(float).to_numpy()
    has_band = {"lower", "upper"} <= set(table.columns)
    lower = table["lower"].astype(float).to_numpy() if has_band else None
    upper = table["upper"].astype(float).to_numpy() if has_band else None
    order = np.lexsort((x, which))
    starts = np.searchsorted(which[order], np.arange(len(measures) + 1))
    panels = []
    for i, m in enumerate(measures):
        rows = order[starts[i]:starts[i + 1]]
        band = None
        if has_band and (~np.isnan(lower[rows])).any():
            band = (lower[rows], upper[rows])
        px = x[rows]
        title = labels.get(m, m)
        panels.append({"x": px, "y": y[rows], "band": band,
                       "years": [int(v) for v in np.unique(px[np.isfinite(px)])],
                       "title": title if len(title) <= 34 else title[:33] + "…"})
    return panels


def _ylimits(panel: dict, ref) -> tuple[float, float] | None:
    """The data limits of a panel's y (before margins), as the ``Axes`` gathered them from its artists."""
    parts = [panel["y"]]
    if panel["band"] is not None:
        x = panel["x"]
        for side in panel["band"]:
            parts.append(side[np.isfinite(x)])
    if ref is not None:
        parts.append(ref[1])
    values = np.concatenate(parts)
    values = values[np.isfinite(values)]
    return (float(values.min()), float(values.max())) if len(values) else None


def _nonsingular_margins(lo: float, hi: float) -> tuple[float, float]:
    """``Axes.autoscale_view`` on a linear axis: the locator's non-singular limits, then the margins."""
    import matplotlib
    from matplotlib.ticker import AutoLocator

    lo, hi = AutoLocator().nonsingular(lo, hi)
    margin = matplotlib.rcParams["axes.ymargin"] * (hi - lo)
    return lo - margin, hi + margin


def _ticks(lo: float, hi: float, length_pt: float):
    """Tick positions and labels of a y axis ``length_pt`` points long showing ``lo``-``hi``."""
    from matplotlib.ticker import AutoLocator, ScalarFormatter

    locator = AutoLocator()
    locator.set_params(nbins=max(min(int(np.floor(length_pt / (LABEL_SIZE * 2))), 9), 1))
    values = locator.tick_values(lo, hi)
    tol = (hi - lo) * 1e-10
    values = values[(values >= lo - tol) & (values <= hi + tol)]
    formatter = ScalarFormatter()
    formatter.create_dummy_axis()
    formatter.axis.set_view_interval(lo, hi)
    return values, formatter.format_ticks(values), formatter.get_offset()


class _Drawing:
    """Collects every panel's pieces and adds them to the figure as a few artists (:func:`small_multiples`)."""

    def __init__(self, fig, width: float, height: float, rc):
        self.fig, self.width, self.height = fig, width, height
        self.grid, self.spines, self.ticks, self.bands = [], [], [], []
        self.line_x, self.line_y, self.ref_x, self.ref_y = [], [], [], []
        self.tick_len = rc["xtick.major.size"]
        self.pad = rc["xtick.major.pad"]
        self.title_pad = rc["axes.titlepad"]

    def _pt(self, points: float, vertical: bool) -> float:
        return points / 72 / (self.height if vertical else self.width)

    def frame(self, box, xlim, ylim, xvals, title: str, *, ylabels: bool):
        """One panel's grid lines, ticks, spines, tick labels (x: ``xvals``; y: :func:`_ticks`) and title;
        returns ``(fx, fy)``, the panel's data coordinates to the figure's."""
        left, bottom, right, top = box
        x0, x1 = xlim
        y0, y1 = ylim

        def fx(x):
            return left + (np.asarray(x, dtype=float) - x0) / (x1 - x0) * (right - left)

        def fy(y):
            return bottom + (np.asarray(y, dtype=float) - y0) / (y1 - y0) * (top - bottom)

        fig, tick_x, tick_y = self.fig, self._pt(self.tick_len, False), self._pt(self.tick_len, True)
        yvals, ytexts, offset = _ticks(y0, y1, (top - bottom) * self.height * 72)
        xtexts = _year_labels(xvals, x0, x1)
        for v in fy(yvals):
            self.grid.append([(left, v), (right, v)])
            self.ticks.append([(left - tick_x, v), (left, v)])
        for v in fx(xvals):
            self.grid.append([(v, bottom), (v, top)])
            self.ticks.append([(v, bottom - tick_y), (v, bottom)])
        self.spines += [[(left, bottom), (left, top)], [(left, bottom), (right, bottom)]]
        if ylabels:
            at = left - tick_x - self._pt(self.pad, False)
            for v, text in zip(fy(yvals), ytexts):
                fig.text(at, v, text, fontsize=LABEL_SIZE, color=MUTED, ha="right", va="center_baseline")
            if offset:
                fig.text(left, top, offset, fontsize=LABEL_SIZE, color=MUTED, ha="left", va="bottom")
        at = bottom - tick_y - self._pt(self.pad, True)
        for v, text in zip(fx(xvals), xtexts):
            fig.text(v, at, text, fontsize=LABEL_SIZE, color=MUTED, ha="center", va="top")
        fig.text(left, top + self._pt(self.title_pad, True), title, fontsize=TITLE_SIZE, fontweight="bold",
                 ha="left", va="baseline")
        return fx, fy

    def panel(self, p: dict, box, ylim, ref, *, ylabels: bool) -> None:
        """A measure's panel of :func:`small_multiples`: its band, the reference line and its line."""
        years = p["years"]
        x0, x1 = (years[0] - 0.5, years[-1] + 0.5) if years else (0.0, 1.0)
        fx, fy = self.frame(box, (x0, x1), ylim, [years[0], years[-1]] if years else [], p["title"],
                            ylabels=ylabels)
        if p["band"] is not None:
            lower, upper = p["band"]
            ok = np.isfinite(p["x"]) & np.isfinite(lower) & np.isfinite(upper)
            for run in _runs(ok):
                xs, lo, hi = fx(p["x"][run]), fy(lower[run]), fy(upper[run])
                self.bands.append(np.column_stack([np.concatenate([xs, xs[::-1]]), np.concatenate([hi, lo[::-1]])]))
        if ref is not None:
            rx, ry = _clip_x(*ref, x0, x1)
            self.ref_x += [fx(rx), [np.nan]]
            self.ref_y += [fy(ry), [np.nan]]
        self.line_x += [fx(p["x"]), [np.nan]]
        self.line_y += [fy(p["y"]), [np.nan]]

    def finish(self) -> None:
        from matplotlib.collections import LineCollection, PolyCollection
        from matplotlib.lines import Line2D

        fig = self.fig
        t = fig.transFigure
        fig.add_artist(LineCollection(self.grid, colors=GRID, linewidths=0.8, transform=t, zorder=0.4))
        fig.add_artist(LineCollection(self.ticks, colors=MUTED, linewidths=0.8, transform=t, zorder=0.5))
        if self.bands:
            fig.add_artist(PolyCollection(self.bands, facecolors=ACCENT, alpha=0.15, linewidths=0, transform=t,
                                          zorder=1))
        if self.ref_x:
            fig.add_artist(Line2D(np.concatenate(self.ref_x), np.concatenate(self.ref_y), color=MUTED, linewidth=1,
                                  linestyle="--", transform=t, zorder=2))
        if self.line_x:
            fig.add_artist(Line2D(np.concatenate(self.line_x), np.concatenate(self.line_y), color=ACCENT,
                                  linewidth=1.8, marker="o", markersize=2.5, transform=t, zorder=2.1))
        self.add_data(t)
        fig.add_artist(LineCollection(self.spines, colors=MUTED, linewidths=0.8, transform=t, zorder=2.5))

    def add_data(self, transform) -> None:
        """The data artists of another kind of panel (a subclass's), added before the spines."""


def _year_labels(values, x0: float, x1: float) -> list[str]:
    if not values:
        return []
    from matplotlib.ticker import ScalarFormatter

    formatter = ScalarFormatter()
    formatter.create_dummy_axis()
    formatter.axis.set_view_interval(x0, x1)
    return formatter.format_ticks(np.asarray(values, dtype=float))


def _runs(ok: np.ndarray) -> list[slice]:
    """The stretches of consecutive True values (a band is broken where a bound is missing)."""
    edges = np.flatnonzero(np.diff(np.concatenate([[0], ok.astype(int), [0]])))
    return [slice(a, b) for a, b in zip(edges[::2], edges[1::2])]


def _clip_x(x: np.ndarray, y: np.ndarray, x0: float, x1: float):
    """The reference line cut to the panel's x range (what the ``Axes`` clip showed), ends interpolated."""
    keep = (x >= x0) & (x <= x1)
    if keep.all() or len(x) < 2:
        return x, y
    xs, ys = list(x[keep]), list(y[keep])
    for edge in (x0, x1):
        if x.min() < edge < x.max() and edge not in xs:
            xs.append(edge)
            ys.append(float(np.interp(edge, x, y)))
    order = np.argsort(xs)
    return np.asarray(xs)[order], np.asarray(ys)[order]
