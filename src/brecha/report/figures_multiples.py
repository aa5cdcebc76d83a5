"""Small multiples (one small line chart per measure or region) written as SVG by brecha itself
(:mod:`brecha.report.svg`), without matplotlib (issue 19: importing it and drawing the report's 32 panels with
it cost about 1 s of CPU, with an ``Axes`` per panel 2.3 s; written here, a few milliseconds).

The picture is the one the matplotlib figure drew, by the same rules:

- the grid: ``ncols`` columns 2.6 in wide (+ 0.3 in), rows ``row_height`` in high (+ 0.1 in), the panels'
  boxes where matplotlib's ``GridSpec(nrows, ncols, left=0.07, right=0.98, bottom=0.1 / nrows,
  top=1 - 0.16 / nrows, wspace, hspace=0.6).get_grid_positions`` puts them (:func:`grid_positions`);
- y limits: the data limits (band, reference line and estimates; all panels' when ``sharey``) made
  non-singular and widened by 5 % of their span on each side (matplotlib's ``Axes.autoscale_view``);
- y ticks: round values (:func:`brecha.report.svg_axes.nice_ticks`, matplotlib's ``AutoLocator`` rule) with
  as many intervals as the panel's height allows (its height over twice the 7-pt label size, at most 9),
  labelled in the report's language (:func:`brecha.report.svg_axes.tick_labels`: 2,5 in Spanish, 2.5 in
  English); with ``sharey`` only the first column carries y tick labels;
- x: the first and the last year as ticks, labelled without a thousands mark, half a year of room at each
  end;
- style: grid lines under the data (GRID), outward ticks 3.5 pt long and left and bottom spines (MUTED),
  labels 3.5 pt from the ticks, bold 8.5-pt titles left-aligned 6 pt above the panel (cut at 34 characters
  with "…"), the band ACCENT at 15 % opacity, the line ACCENT 1.8 pt with 2.5-pt markers, the reference
  line MUTED, dashed, 1 pt.

Every panel is one SVG group, ``<g id="panel-1">`` and on, in reading order.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .figures import ACCENT, INK, MUTED, Figure
from .svg import Svg, text_width
from .svg_axes import PAD, TICK, Frame, bins_for, nice_ticks, padded, runs, tick_labels

LABEL_SIZE = 7.0
TITLE_SIZE = 8.5
TITLE_PAD = 6.0          # matplotlib's axes.titlepad, points
TITLE_CHARS = 34
MARGIN = 0.05            # matplotlib's axes.xmargin and axes.ymargin
DASHED = "3.7,1.6"       # matplotlib's dashed pattern for a 1-pt line
POINTS = 72.0


def small_multiples(name: str, table: pd.DataFrame, *, caption: str = "", alt: str = "",
                    labels: dict | None = None, ncols: int = 3, sharey: bool = False,
                    reference: pd.DataFrame | None = None) -> Figure:
    """One small line chart per measure (inequality over time). ``table``: ``measure, year, estimate``
    (+ ``lower, upper``); ``reference``: ``year, estimate`` drawn dashed in every panel. A panel whose
    values are all missing is drawn empty (its axes 0-1)."""
    measures = list(dict.fromkeys(table["measure"]))
    n = len(measures)
    ncols = max(min(ncols, n), 1)
    panels = _panels(table, measures, labels or {})
    ref = None
    if reference is not None:
        r = reference.sort_values("year")
        ref = (r["year"].astype(float).to_numpy(), r["estimate"].astype(float).to_numpy())
    width, height, boxes = panel_grid(n, ncols, row_height=1.9, wspace=0.35)
    limits = [_ylimits(p, ref) for p in panels]
    if sharey:
        found = [v for v in limits if v is not None]
        shared = axis_limits(min(v[0] for v in found), max(v[1] for v in found)) if found else (0.0, 1.0)
        limits = [shared] * n
    else:
        limits = [axis_limits(*v) if v is not None else (0.0, 1.0) for v in limits]
    width, boxes = room_for_y_labels(width, boxes, limits, ncols)
    svg = Svg(width, height)
    for i, (panel, box, ylim) in enumerate(zip(panels, boxes, limits)):
        years = panel["years"]
        xlim = (years[0] - 0.5, years[-1] + 0.5) if years else (0.0, 1.0)
        draw_panel(svg, i, box, xlim, ylim, years=years, title=panel["title"], ylabels=not sharey or i % ncols == 0,
                   data=lambda frame, panel=panel, xlim=xlim: _measure(frame, panel, ref, xlim))
    return Figure(name, "svg", svg.to_bytes(), caption, alt or caption)


def grid_positions(nrows: int, ncols: int, *, left: float, right: float, bottom: float, top: float,
                   wspace: float, hspace: float):
    """The cells of a grid as matplotlib's ``GridSpecBase.get_grid_positions`` places them, in fractions of
    the figure from its bottom left: ``(bottoms, tops, lefts, rights)``. A cell is the space between
    ``left``-``right`` (``bottom``-``top``) shared by the columns (rows) and the gaps between them, each gap
    ``wspace`` (``hspace``) times a cell."""
    cell_h = (top - bottom) / (nrows + hspace * (nrows - 1))
    cell_w = (right - left) / (ncols + wspace * (ncols - 1))
    tops = top - np.arange(nrows) * cell_h * (1 + hspace)
    lefts = left + np.arange(ncols) * cell_w * (1 + wspace)
    return tops - cell_h, tops, lefts, lefts + cell_w


def panel_grid(n: int, ncols: int, *, row_height: float, wspace: float):
    """The size of a figure of ``n`` small panels and each panel's box: ``ncols`` columns 2.6 in wide, rows
    ``row_height`` in high, on matplotlib's grid (:func:`grid_positions`). Returns ``(width, height, boxes)``
    in points, a box ``(left, top, right, bottom)`` from the figure's top left (SVG coordinates)."""
    nrows = max(math.ceil(n / ncols), 1)
    width, height = (2.6 * ncols + 0.3) * POINTS, (row_height * nrows + 0.1) * POINTS
    bottoms, tops, lefts, rights = grid_positions(nrows, ncols, left=0.07, right=0.98, bottom=0.1 / nrows,
                                                  top=1 - 0.16 / nrows, wspace=wspace, hspace=0.6)
    boxes = [(float(lefts[i % ncols] * width), float((1 - tops[i // ncols]) * height),
              float(rights[i % ncols] * width), float((1 - bottoms[i // ncols]) * height)) for i in range(n)]
    return width, height, boxes


def room_for_y_labels(width: float, boxes: list, limits: list, ncols: int) -> tuple[float, list]:
    """The figure's width and the panels' boxes moved right as far as the widest y tick label of the first
    column's panels (limits ``limits``) needs to stay inside the picture (a grid of one or two columns
    leaves 7 % of a narrow figure on the left: "10,0" was cut)."""
    if not boxes:
        return width, boxes
    widest = max(text_width(t, LABEL_SIZE) for box, ylim in list(zip(boxes, limits))[::ncols]
                 for t in [""] + tick_labels(y_ticks(ylim, box)))
    extra = max(widest + TICK + PAD + 2 - boxes[0][0], 0.0)
    return width + extra, [(left + extra, top, right + extra, bottom) for left, top, right, bottom in boxes]


def axis_limits(lo: float, hi: float) -> tuple[float, float]:
    """An axis' limits from its data limits, as matplotlib's ``Axes.autoscale_view``: equal limits moved 5 %
    of their value apart (±0.05 at zero), then 5 % of the span added on each side."""
    if hi - lo <= max(abs(lo), abs(hi)) * 1e-15:
        lo, hi = (-0.05, 0.05) if lo == 0 and hi == 0 else (lo - 0.05 * abs(lo), hi + 0.05 * abs(hi))
    return padded(lo, hi, MARGIN)


def y_ticks(ylim, box) -> np.ndarray:
    """The y tick values of a panel: round values inside its limits, at most one interval per twice the
    label size of the panel's height, and 9."""
    return nice_ticks(ylim[0], ylim[1], bins_for(box[3] - box[1], size=LABEL_SIZE))


def draw_panel(svg: Svg, index: int, box, xlim, ylim, *, years: list, title: str, ylabels: bool, data) -> Frame:
    """One panel, as the group ``panel-<index + 1>``: grid lines and ticks at its y ticks (:func:`y_ticks`) and
    its first and last year, then ``data(frame)`` (the panel's lines and dots), the spines, the tick labels
    (the y labels only when ``ylabels``) and the title (:func:`fitted_title`: inside the picture)."""
    svg.open(id=f"panel-{index + 1}")
    frame = Frame(svg, box, xlim, ylim)
    yvals = y_ticks(ylim, box)
    xvals = [years[0], years[-1]] if years else []
    frame.grid_and_ticks(xvals, yvals)
    data(frame)
    frame.spines()
    if ylabels:
        frame.y_labels(yvals, tick_labels(yvals), size=LABEL_SIZE)
    frame.x_labels(xvals, [str(int(v)) for v in xvals], size=LABEL_SIZE)
    svg.text(box[0], box[1] - TITLE_PAD, fitted_title(title, svg.width - box[0] - 2), size=TITLE_SIZE, colour=INK,
             bold=True)
    svg.close()
    return frame


def short_title(title, chars: int = TITLE_CHARS) -> str:
    """A panel's title cut to ``chars`` characters, the last an ellipsis."""
    title = str(title)
    return title if len(title) <= chars else title[:chars - 1] + "…"


def fitted_title(title: str, width: float) -> str:
    """A panel's title shortened (the last character an ellipsis) until, bold at :data:`TITLE_SIZE`, it is at
    most ``width`` points wide: a long title in the last column passed the picture's right edge."""
    while len(title) > 1 and text_width(title, TITLE_SIZE, bold=True) > width:
        title = title[:-2].rstrip() + "…"
    return title


def _measure(frame: Frame, p: dict, ref, xlim) -> None:
    """A measure's band (one polygon per run of years with both bounds), the reference line cut to the
    panel's years, and its line with markers (broken where an estimate is missing)."""
    svg = frame.svg
    if p["band"] is not None:
        lower, upper = p["band"]
        ok = np.isfinite(p["x"]) & np.isfinite(lower) & np.isfinite(upper)
        for run in runs(ok):
            xs, top, bottom = frame.fx(p["x"][run]), frame.fy(upper[run]), frame.fy(lower[run])
            svg.polygon(np.concatenate([xs, xs[::-1]]), np.concatenate([top, bottom[::-1]]), fill=ACCENT, opacity=0.15)
    if ref is not None:
        rx, ry = _clip_x(*ref, *xlim)
        svg.polyline(frame.fx(rx), frame.fy(ry), stroke=MUTED, width=1, dash=DASHED)
    x, y = frame.fx(p["x"]), frame.fy(p["y"])
    svg.polyline(x, y, stroke=ACCENT, width=1.8)
    svg.circles(x, y, 1.25, fill=ACCENT, stroke=ACCENT, width=1)  # 2.5-pt markers with a 1-pt edge


def _panels(table: pd.DataFrame, measures: list, labels: dict) -> list[dict]:
    """Each measure's rows in year order (one sort of the whole table, not a filter and a sort per panel):
    its years, estimates, band (when it has any lower bound) and title (:func:`short_title`)."""
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
        panels.append({"x": px, "y": y[rows], "band": band,
                       "years": [int(v) for v in np.unique(px[np.isfinite(px)])],
                       "title": short_title(labels.get(m, m))})
    return panels


def _ylimits(panel: dict, ref) -> tuple[float, float] | None:
    """The data limits of a panel's y (before margins): its estimates, its band where the year is known, the
    reference line; None when every one is missing."""
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


def _clip_x(x: np.ndarray, y: np.ndarray, x0: float, x1: float):
    """The reference line cut to the panel's x range, its ends interpolated at the range's edges."""
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
