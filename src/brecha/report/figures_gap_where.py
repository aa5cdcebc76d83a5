"""Figures of the "Where is the gap?" section: the between/within shares of inequality per year (stacked
bars) and the determinants' contributions to the concentration index (bars with their intervals). Written as
SVG text (:mod:`brecha.report.svg_axes`) in the report's style and colours (:mod:`brecha.report.figures`)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from .figures import ACCENT, BLUE, INK, MUTED, Figure
from .svg_axes import LABEL_SIZE, PAD, TICK, Chart, legend, legend_size, padded, year_ticks

SHARE_COLOURS = [ACCENT, BLUE, "#c4a35a", MUTED]


def stacked_shares(name: str, shares: pd.DataFrame, *, labels: dict, ylabel: str, caption: str = "",
                   alt: str = "") -> Figure:
    """``shares``: columns ``year`` and one column per component (e.g. ``between``, ``within``) holding its
    share of the total (0-1); ``labels`` names each component for the legend. A bar per year (0.8 years
    wide) with the components' percentages stacked from 0 in the order of ``labels`` (a missing share counts
    0); y from 0 to 100 (or the highest total); the legend centred under the chart, one column per
    component."""
    x = shares["year"].astype(float).to_numpy()
    stacks = [np.nan_to_num(shares[column].astype(float).to_numpy(), nan=0.0) * 100 for column in labels]
    tops = np.cumsum(stacks, axis=0) if stacks else np.zeros((0, len(x)))
    entries = [(str(text), "patch", SHARE_COLOURS[i % len(SHARE_COLOURS)], {})
               for i, text in enumerate(labels.values())]
    years, xlim = year_ticks(x)
    legend_height = legend_size(entries, len(entries))[1]
    chart = Chart(460.8, 230.4, xlim=xlim, ylim=(0.0, max(100.0, float(tops.max()) if tops.size else 100.0)),
                  xticks=years, xlabels=[str(y) for y in years], ytitle=ylabel, below=legend_height + 2)
    chart.draw_axes()
    f, svg = chart.frame, chart.svg
    for i, (top, height) in enumerate(zip(tops, stacks)):
        colour = SHARE_COLOURS[i % len(SHARE_COLOURS)]
        for year, upper, value in zip(x, top, height):
            if np.isfinite(year) and value:
                left, right = f.fx([year - 0.4, year + 0.4]).tolist()
                y_top, y_bottom = f.fy([upper, upper - value]).tolist()
                svg.rect(left, min(y_top, y_bottom), right - left, abs(y_bottom - y_top), fill=colour)
    width = legend_size(entries, len(entries))[0]
    legend(svg, entries, (f.box[0] + f.box[2] - width) / 2, f.box[3] + TICK + PAD + LABEL_SIZE + 4,
           ncol=len(entries))
    return Figure(name, "svg", chart.to_bytes(), caption, alt or caption)


def contributions_chart(name: str, table: pd.DataFrame, *, xlabel: str, caption: str = "", alt: str = "") -> Figure:
    """Horizontal bars: ``label``, ``contribution``, optional ``lower``/``upper`` (error bars). One row per
    determinant, the first at the top: a bar 0.6 rows thick from 0 (accent when negative, blue otherwise),
    its interval as a 1-pt line with 3-pt caps, a line at 0. The x axis spans the bars and intervals padded
    by 5 % (from 0 exactly when that is their end, as matplotlib's bars); only vertical grid lines."""
    n = len(table)
    value = table["contribution"].astype(float).to_numpy()
    texts = table["label"].astype(str).tolist()
    has_ci = {"lower", "upper"} <= set(table.columns) and table["lower"].notna().any()
    lower = table["lower"].astype(float).to_numpy() if has_ci else np.full(n, np.nan)
    upper = table["upper"].astype(float).to_numpy() if has_ci else np.full(n, np.nan)
    rows = np.arange(n)[::-1].astype(float)
    chart = Chart(460.8, (0.45 * n + 1.0) * 72, xlim=_bar_limits(value, lower, upper),
                  ylim=padded(-0.3, n - 0.7) if n else (0.0, 1.0), yticks=rows, ylabels=texts, xtitle=xlabel)
    chart.draw_axes(ygrid=False)
    f, svg = chart.frame, chart.svg
    zero = float(f.fx(0.0))
    svg.open(clip=f.clip())
    for row, v in zip(rows, value):
        if np.isfinite(v):
            end = float(f.fx(v))
            top, bottom = f.fy([row + 0.3, row - 0.3]).tolist()
            svg.rect(min(zero, end), top, abs(end - zero), bottom - top, fill=ACCENT if v < 0 else BLUE)
    for row, v, lo, hi in zip(rows, value, lower, upper) if has_ci else ():
        _error_bar(svg, f, row, np.clip(v - lo, 0, None) if np.isfinite(lo) else 0.0,
                   np.clip(hi - v, 0, None) if np.isfinite(hi) else 0.0, v)
    svg.line(zero, f.box[1], zero, f.box[3], stroke=MUTED, width=0.8)
    svg.close()
    return Figure(name, "svg", chart.to_bytes(), caption, alt or caption)


def _bar_limits(value, lower, upper) -> tuple[float, float]:
    """The x limits of :func:`contributions_chart`: 0, the bars and the intervals, padded 5 % except at 0."""
    values = np.concatenate([value, lower, upper, [0.0]])
    values = values[np.isfinite(values)]
    lo, hi = float(values.min()), float(values.max())
    padded_lo, padded_hi = padded(lo, hi)
    return (0.0 if lo == 0 else padded_lo), (0.0 if hi == 0 and lo < 0 else padded_hi)


def _error_bar(svg, f, row: float, below: float, above: float, value: float) -> None:
    """A horizontal interval ``value - below`` to ``value + above`` at ``row`` with 3-pt caps (as matplotlib's
    ``errorbar(capsize=3)``: a missing bound counts 0)."""
    if not np.isfinite(value):
        return
    left, right = f.fx([value - below, value + above]).tolist()
    y = float(f.fy(row))
    svg.lines([((left, y), (right, y)), ((left, y - 3), (left, y + 3)), ((right, y - 3), (right, y + 3))],
              stroke=INK, width=1)
