"""Joinpoint figures as PNG (or another format than SVG) for print, drawn with matplotlib in the report's
style (:mod:`brecha.report.figures`): ``brecha trends --method joinpoint --plot x.png``. The report's SVG
figures are written by :mod:`brecha.report.figures_joinpoint` without matplotlib; this draws the same
picture through matplotlib's rasteriser.

The small multiples are drawn at the figure level, not with an ``Axes`` per panel (16 Chilean regions: 1.3 s
of CPU with Axes): every panel's dots are one stretch of one ``Line2D``, the segments and the joinpoints one
``LineCollection`` each, the grid lines, ticks and spines three more, the texts plain ``Text`` s, on the
grid of ``GridSpec.get_grid_positions``; each panel's ticks by matplotlib's ``AutoLocator`` and
``ScalarFormatter`` as its ``Axes`` had them.
"""
from __future__ import annotations

import numpy as np

from .figures import ACCENT, BLUE, GRID, INK, MUTED, Figure
from .matplotlib_style import figure_bytes, new_figure, style

LABEL_SIZE = 7
TITLE_SIZE = 8.5


def print_chart(name: str, fit: dict, *, ylabel: str, apc_label: str, fmt, lower=None, upper=None,
                caption: str = "", alt: str = "", fmt_out: str = "png", alpha: float = 0.05) -> Figure:
    """One series (:func:`brecha.report.figures_joinpoint.joinpoint_chart`) with matplotlib: an ``Axes`` with
    the observed rates, the segments, the joinpoints and the APCs (:func:`_draw`), y from 0."""
    with style():
        fig = new_figure(6.4, 3.4)
        ax = fig.add_subplot()
        _draw(ax, fit, apc_label, fmt, lower, upper, alpha=alpha)
        ax.set_ylabel(ylabel)
        ax.set_ylim(bottom=0)
        years = [int(v) for v in fit["year"]]
        step = 1 if len(years) <= 10 else 2 if len(years) <= 20 else 5
        ax.set_xticks(years[::step])
        return Figure(name, fmt_out, figure_bytes(fig, fmt_out, dpi=110 if fmt_out == "svg" else 200), caption,
                      alt or caption)


def print_multiples(name: str, fits: dict, curves: dict, titles: dict, *, fmt, ncols: int, caption: str = "",
                    alt: str = "", fmt_out: str = "png", alpha: float = 0.05) -> Figure:
    """Small multiples (:func:`brecha.report.figures_joinpoint.joinpoint_multiples`) with matplotlib:
    ``curves`` each code's fitted segments, ``titles`` its panel title; the y axis shared (its limits from
    every panel's observed rates and fitted segments, widened by ``axes.ymargin``), y tick labels on the
    first column only."""
    import matplotlib

    codes = list(fits)
    n = len(codes)
    with style():
        rc = matplotlib.rcParams
        fig, boxes, width, height = _panel_grid(n, ncols, row_height=2.0, wspace=0.25)
        values = np.concatenate([np.concatenate([fits[c]["rate"], *[ys for _, ys in curves[c]]]) for c in codes])
        values = values[np.isfinite(values)]
        ylim = _nonsingular_margins(float(values.min()), float(values.max())) if len(values) else (0.0, 1.0)
        drawing = _JoinpointDrawing(fig, width, height, rc)
        for i, (code, box) in enumerate(zip(codes, boxes)):
            drawing.joinpoint_panel(fits[code], curves[code], box, ylim, titles[code], ylabels=i % ncols == 0,
                                    fmt=fmt, alpha=alpha)
        drawing.finish()
        return Figure(name, fmt_out, figure_bytes(fig, fmt_out, dpi=110 if fmt_out == "svg" else 200), caption,
                      alt or caption)


def _draw(ax, fit, apc_label, fmt, lower=None, upper=None, alpha=0.05):
    x, fitted = fit["year"], fit["fitted"]
    seen, rate = fit.get("observed_year", x), fit["rate"]
    if lower is not None and upper is not None:
        ax.errorbar(seen, rate, yerr=[rate - lower, upper - rate], fmt="o", color=MUTED, markersize=3,
                    elinewidth=0.8, capsize=0)
    else:
        ax.plot(seen, rate, "o", color=MUTED, markersize=3)
    for _, s in fit["segments"].iterrows():
        inside = (x >= s["start_year"]) & (x <= s["end_year"])
        xs = np.concatenate([[s["start_year"]], x[inside & (x > s["start_year"]) & (x < s["end_year"])],
                             [s["end_year"]]])
        ys = np.exp(np.interp(xs, x, np.log(fitted)))
        ax.plot(xs, ys, color=ACCENT, linewidth=2)
        mid = (s["start_year"] + s["end_year"]) / 2
        star = "*" if s["p_value"] < alpha else ""
        ax.annotate(f"{apc_label} {fmt(s['apc'])} %{star}", (mid, float(np.exp(np.interp(mid, x, np.log(fitted))))),
                    textcoords="offset points", xytext=(0, 7), ha="center", fontsize=8, color=INK,
                    bbox={"boxstyle": "round,pad=0.15", "facecolor": "white", "edgecolor": "none", "alpha": 0.8})
    for jp in fit["joinpoints"]:
        ax.axvline(jp, color=BLUE, linewidth=0.8, linestyle=":")


def _panel_grid(n: int, ncols: int, *, row_height: float, wspace: float):
    """The figure of ``n`` small panels and each panel's box (left, bottom, right, top, in figure coordinates):
    ``ncols`` columns 2.6 in wide, rows ``row_height`` in high (``GridSpec.get_grid_positions``). Call it
    inside the report's ``style()``. Returns ``(fig, boxes, width, height)``."""
    from matplotlib.gridspec import GridSpec

    nrows = int(np.ceil(n / ncols))
    width, height = 2.6 * ncols + 0.3, row_height * nrows + 0.1
    fig = new_figure(width, height, layout=None)
    grid = GridSpec(nrows, ncols, left=0.07, right=0.98, bottom=0.1 / nrows, top=1 - 0.16 / nrows, wspace=wspace,
                    hspace=0.6)
    bottoms, tops, lefts, rights = grid.get_grid_positions(fig)
    boxes = [(lefts[i % ncols], bottoms[i // ncols], rights[i % ncols], tops[i // ncols]) for i in range(n)]
    return fig, boxes, width, height


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


def _year_labels(values, x0: float, x1: float) -> list[str]:
    if not values:
        return []
    from matplotlib.ticker import ScalarFormatter

    formatter = ScalarFormatter()
    formatter.create_dummy_axis()
    formatter.axis.set_view_interval(x0, x1)
    return formatter.format_ticks(np.asarray(values, dtype=float))


class _JoinpointDrawing:
    """Collects every panel's pieces (frames, observed rates, the fitted segments, the joinpoints, each
    segment's APC in a white box 7 points above its middle) and adds them to the figure as a few artists."""

    def __init__(self, fig, width: float, height: float, rc):
        self.fig, self.width, self.height = fig, width, height
        self.grid, self.spines, self.ticks = [], [], []
        self.dots_x, self.dots_y, self.segments, self.dotted = [], [], [], []
        self.tick_len = rc["xtick.major.size"]
        self.pad = rc["xtick.major.pad"]
        self.title_pad = rc["axes.titlepad"]
        self.xmargin = rc["axes.xmargin"]

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

    def joinpoint_panel(self, fit, curves, box, ylim, title, *, ylabels, fmt, alpha) -> None:
        seen = np.asarray(fit.get("observed_year", fit["year"]), dtype=float)
        xs = np.concatenate([seen, *[c for c, _ in curves], np.asarray(fit["joinpoints"], dtype=float)])
        xs = xs[np.isfinite(xs)]
        lo, hi = (float(xs.min()), float(xs.max())) if len(xs) else (0.0, 1.0)
        lo, hi = (lo - 0.5, hi + 0.5) if hi == lo else (lo - self.xmargin * (hi - lo), hi + self.xmargin * (hi - lo))
        years = [int(v) for v in fit["year"]]
        fx, fy = self.frame(box, (lo, hi), ylim, [years[0], years[-1]] if years else [], title, ylabels=ylabels)
        left, bottom, right, top = box
        self.dots_x += [fx(seen), [np.nan]]
        self.dots_y += [fy(fit["rate"]), [np.nan]]
        rise = self._pt(7, True)
        for (cx, cy), (_, seg) in zip(curves, fit["segments"].iterrows()):
            self.segments.append(np.column_stack([fx(cx), fy(cy)]))
            mid = (seg["start_year"] + seg["end_year"]) / 2
            at = float(np.exp(np.interp(mid, fit["year"], np.log(fit["fitted"]))))
            star = "*" if seg["p_value"] < alpha else ""
            self.fig.text(float(fx(mid)), float(fy(at)) + rise, f"{fmt(seg['apc'])}{star}", fontsize=7, color=INK,
                          ha="center", va="baseline", zorder=3,
                          bbox={"boxstyle": "round,pad=0.15", "facecolor": "white", "edgecolor": "none", "alpha": 0.8})
        for jp in fit["joinpoints"]:
            v = float(fx(jp))
            self.dotted.append([(v, bottom), (v, top)])

    def finish(self) -> None:
        from matplotlib.collections import LineCollection
        from matplotlib.lines import Line2D

        fig = self.fig
        t = fig.transFigure
        fig.add_artist(LineCollection(self.grid, colors=GRID, linewidths=0.8, transform=t, zorder=0.4))
        fig.add_artist(LineCollection(self.ticks, colors=MUTED, linewidths=0.8, transform=t, zorder=0.5))
        if self.dots_x:
            fig.add_artist(Line2D(np.concatenate(self.dots_x), np.concatenate(self.dots_y), color=MUTED,
                                  linestyle="none", marker="o", markersize=2, transform=t, zorder=2))
        if self.segments:
            fig.add_artist(LineCollection(self.segments, colors=ACCENT, linewidths=1.5, transform=t, zorder=2))
        if self.dotted:
            fig.add_artist(LineCollection(self.dotted, colors=BLUE, linewidths=0.8, linestyles=":", transform=t,
                                          zorder=2))
        fig.add_artist(LineCollection(self.spines, colors=MUTED, linewidths=0.8, transform=t, zorder=2.5))
