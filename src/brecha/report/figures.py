"""The report's charts and what every figure shares: the palette, the :class:`Figure` (a file name, its
format, its bytes, and the caption and alt text the HTML shows), and the colour classes of the maps.

The charts here (the national rate and other lines over years, the distribution per year, the funnel plot,
the co-movement scatter) are written as SVG text by brecha itself (:mod:`brecha.report.svg`,
:mod:`brecha.report.svg_axes`), without matplotlib (issue 19: importing and driving it was about a quarter of
the report's CPU). The small multiples are in :mod:`brecha.report.figures_multiples`, the joinpoint charts in
:mod:`brecha.report.figures_joinpoint`, the bars of "Where is the gap?" in
:mod:`brecha.report.figures_gap_where`, the maps in :mod:`brecha.report.polygon_map` and
:mod:`brecha.report.symbol_maps`. matplotlib only draws the PNG (or PDF) files a user asks for with
``brecha trends --method joinpoint --plot`` (:mod:`brecha.report.figures_print`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .svg import Svg, text_width
from .svg_axes import (LABEL_SIZE, NOTE_SIZE, PAD, TICK, Chart, Frame, along, free_corner, legend, legend_size,
                       log_ticks, padded, runs, tick_labels, wrap, year_ticks)

# A calm palette that prints well in grey: ink, accent, and a colour-blind-safe sequential ramp.
INK = "#1f2933"
MUTED = "#6b7785"
GRID = "#e3e7eb"
ACCENT = "#b5332e"
BLUE = "#2f6690"
SEQUENTIAL = ["#fff5eb", "#fdd0a2", "#fd8d3c", "#d94801", "#7f2704"]
MISSING = "#f2f2f2"
# trend classes, plus the two non-classes of brecha.report.labels.trend_codes
TREND_COLOURS = {"decreasing": "#2f6690", "stationary": "#c9ced6", "increasing": "#b5332e",
                 "sparse": "#f7e9c6", "no_trend": MISSING}
# Chile: islands far out in the Pacific are left off the mainland map (named in the caption).
CHILE_OFFSHORE = ("05201", "05104")


@dataclass
class Figure:
    name: str
    format: str
    data: bytes
    caption: str = ""
    alt: str = ""

    @property
    def filename(self) -> str:
        return f"{self.name}.{self.format}"

    @property
    def mime(self) -> str:
        return "image/svg+xml" if self.format == "svg" else "image/png"


# ------------------------------------------------------------------------------------------ charts
# Written as SVG text (brecha.report.svg, svg_axes): no matplotlib (issue 19). Sizes in points, the former
# matplotlib figure sizes in inches x 72.

LINE_COLOURS = [ACCENT, BLUE, "#5b8e7d", "#8c6d9b", "#c4a35a", MUTED]


def _finite(*arrays) -> np.ndarray:
    """The finite values among ``arrays``."""
    values = np.concatenate([np.asarray(a, dtype=float).ravel() for a in arrays] or [np.array([])])
    return values[np.isfinite(values)]


def _band(svg: Svg, xs, lower, upper, colour: str) -> None:
    """A band between ``lower`` and ``upper`` (points), one polygon per run of points with both bounds (as
    matplotlib's ``fill_between``: broken where a bound is missing)."""
    ok = np.isfinite(xs) & np.isfinite(lower) & np.isfinite(upper)
    for run in runs(ok):
        svg.polygon(np.concatenate([xs[run], xs[run][::-1]]), np.concatenate([lower[run], upper[run][::-1]]),
                    fill=colour, opacity=0.15)


def _place_legend(chart: Chart, entries, xs, ys) -> None:
    """The legend in the corner of the plot area that covers none of the points ``(xs, ys)``, else below the
    chart (room kept by the caller: ``below``)."""
    corner = free_corner(chart.frame, entries, xs, ys)
    if corner is not None:
        legend(chart.svg, entries, *corner, ground=True)
        return
    ncol = _legend_columns(entries, chart.svg.width)
    width = legend_size(entries, ncol)[0]
    legend(chart.svg, entries, (chart.svg.width - width) / 2, chart.frame.box[3] + _under_axis(chart), ncol=ncol)


def _under_axis(chart: Chart) -> float:
    """Points from the plot area's bottom to below its x tick labels and title."""
    return TICK + PAD + LABEL_SIZE + (LABEL_SIZE * 1.25 + 2 if chart.xtitle else 0) + 4


def _legend_columns(entries, width: float) -> int:
    """As many columns as fit in ``width`` points."""
    ncol = len(entries)
    while ncol > 1 and legend_size(entries, ncol)[0] > width - 8:
        ncol -= 1
    return ncol


def line_chart(name: str, series: pd.DataFrame, *, ylabel: str, title: str = "", caption: str = "",
               alt: str = "", ymin0: bool = True, width: float = 6.4, height: float = 3.2,
               note: str = "") -> Figure:
    """Lines over years with optional CI bands. ``series``: columns ``label, year, estimate`` and optionally
    ``lower, upper``. Per label, in order (colours cycling accent, blue, then muted tones): its band
    (``lower``-``upper``, 15 % opaque, broken where a bound is missing), a 2-pt line broken at missing
    estimates, 3-pt dots. y from 0 when ``ymin0`` and no value is negative, else the data padded by 5 %
    with the zero line; a legend (more than one label) in a corner of the plot the data leave free, else
    under the chart; the note wrapped at the bottom left."""
    W, H = width * 72, height * 72
    groups = [(str(label), g.sort_values("year")) for label, g in series.groupby("label", sort=False)]
    values = _finite(*[series[c] for c in ("estimate", "lower", "upper") if c in series])
    lo, hi = (values.min(), values.max()) if len(values) else (0.0, 1.0)
    ylim = padded(lo, hi)
    if ymin0 and lo >= 0:
        ylim = (0.0, ylim[1])
    years, xlim = year_ticks(series["year"] if "year" in series else [])
    note_lines = wrap(note, 0.98 * W, NOTE_SIZE) if note else []
    entries = [(label, "line", LINE_COLOURS[i % len(LINE_COLOURS)], {"width": 2, "marker": True})
               for i, (label, _) in enumerate(groups)] if len(groups) > 1 else []
    below = len(note_lines) * NOTE_SIZE * 1.2 + (2 if note_lines else 0)
    layout = dict(xlim=xlim, ylim=ylim, xticks=years, xlabels=[str(y) for y in years], ytitle=ylabel, title=title)
    chart = Chart(W, H, below=below, **layout)
    points = _line_points(chart.frame, groups)
    if entries and free_corner(chart.frame, entries, *points) is None:
        ncol = _legend_columns(entries, W)
        chart = Chart(W, H, below=below + legend_size(entries, ncol)[1] + 2, **layout)
        points = _line_points(chart.frame, groups)
    chart.draw_axes()
    f, svg = chart.frame, chart.svg
    svg.open(clip=f.clip())
    for i, (label, g) in enumerate(groups):
        colour = LINE_COLOURS[i % len(LINE_COLOURS)]
        x = f.fx(g["year"].astype(float).to_numpy())
        if {"lower", "upper"} <= set(g.columns) and g["lower"].notna().any():
            _band(svg, x, f.fy(g["lower"].astype(float).to_numpy()), f.fy(g["upper"].astype(float).to_numpy()),
                  colour)
        y = f.fy(g["estimate"].astype(float).to_numpy())
        svg.polyline(x, y, stroke=colour, width=2)
        svg.circles(x, y, 1.5, fill=colour)
    if lo < 0:  # measures that can be negative (PAR%, AR): the zero line
        svg.line(f.box[0], float(f.fy(0)), f.box[2], float(f.fy(0)), stroke=MUTED, width=0.8)
    svg.close()
    _place_legend(chart, entries, *points)
    chart.note(note_lines)
    return Figure(name, "svg", chart.to_bytes(), caption, alt or caption)


def _line_points(frame: Frame, groups) -> tuple[np.ndarray, np.ndarray]:
    """Where the lines and bands of :func:`line_chart` pass, in points: what its legend must not cover."""
    xs, ys = [np.array([])], [np.array([])]
    for _, g in groups:
        x = frame.fx(g["year"].astype(float).to_numpy())
        for column in ("estimate", "lower", "upper"):
            if column in g:
                px, py = along(x, frame.fy(g[column].astype(float).to_numpy()))
                xs.append(px)
                ys.append(py)
    return np.concatenate(xs), np.concatenate(ys)


def box_stats(values) -> dict | None:
    """The box of a box plot as matplotlib's ``boxplot(whis=(5, 95))`` computes it: quartiles and median by
    numpy's percentiles (linear interpolation); the whiskers end at the most extreme values inside the 5th
    and 95th percentiles (not beyond the box). ``None`` for no values."""
    x = np.asarray(values, dtype=float)
    x = x[np.isfinite(x)]
    if not len(x):
        return None
    q1, median, q3 = np.percentile(x, [25, 50, 75])
    low, high = np.percentile(x, [5, 95])
    inside_high, inside_low = x[x <= high], x[x >= low]
    whisker_high = q3 if not len(inside_high) or inside_high.max() < q3 else inside_high.max()
    whisker_low = q1 if not len(inside_low) or inside_low.min() > q1 else inside_low.min()
    return {"q1": q1, "median": median, "q3": q3, "low": float(whisker_low), "high": float(whisker_high)}


def distribution_chart(name: str, rates: pd.DataFrame, *, ylabel: str, caption: str = "", alt: str = "",
                       national: pd.DataFrame | None = None, national_label: str = "") -> Figure:
    """Box plots of the unit rates per year (the spread between units), with the national rate on top.
    ``rates``: ``year, estimate``; ``national``: ``year, estimate``. Each box (0.6 years wide) spans the
    25th-75th percentiles with the median across it, its whiskers (caps 0.3 years) as :func:`box_stats`;
    no points beyond them. y from 0; the national line (2 pt, dots) with its legend in a free corner."""
    years = sorted(int(y) for y in rates["year"].dropna().unique())
    boxes = {y: box_stats(rates.loc[rates["year"] == y, "estimate"]) for y in years}
    drawn = [b for b in boxes.values() if b]
    nat = national.sort_values("year") if national is not None and len(national) else None
    nat_x = nat["year"].astype(float).to_numpy() if nat is not None else np.array([])
    nat_y = nat["estimate"].astype(float).to_numpy() if nat is not None else np.array([])
    values = _finite([b["low"] for b in drawn], [b["high"] for b in drawn], nat_y)
    ylim = (0.0, padded(values.min(), values.max())[1]) if len(values) else (0.0, 1.0)
    labelled, xlim = year_ticks(years or nat_x)
    chart = Chart(460.8, 237.6, xlim=xlim, ylim=ylim, xticks=labelled, xlabels=[str(y) for y in labelled],
                  ytitle=ylabel)
    chart.draw_axes()
    f, svg = chart.frame, chart.svg
    svg.open(clip=f.clip())
    for year, b in boxes.items():
        if b:
            _box(svg, f, year, b)
    entries = []
    if nat is not None:
        svg.polyline(f.fx(nat_x), f.fy(nat_y), stroke=ACCENT, width=2)
        svg.circles(f.fx(nat_x), f.fy(nat_y), 1.5, fill=ACCENT)
        entries = [(national_label, "line", ACCENT, {"width": 2, "marker": True})]
    svg.close()
    if entries:
        xs, ys = [along(f.fx(nat_x), f.fy(nat_y))[0]], [along(f.fx(nat_x), f.fy(nat_y))[1]]
        for year, b in boxes.items():  # the boxes and whiskers, sampled up three verticals
            for x in (year - 0.3, year, year + 0.3) if b else ():
                px, py = along(f.fx([x, x]), f.fy([b["low"], b["high"]]))
                xs.append(px)
                ys.append(py)
        legend(svg, entries, *free_corner(f, entries, np.concatenate(xs), np.concatenate(ys), fewest=True),
               ground=True)
    return Figure(name, "svg", chart.to_bytes(), caption, alt or caption)


def _box(svg: Svg, f: Frame, year: float, b: dict) -> None:
    """One box of :func:`distribution_chart`: whiskers and caps, the box, the median."""
    x0, x1, c0, c1, mid = f.fx([year - 0.3, year + 0.3, year - 0.15, year + 0.15, year]).tolist()
    low, q1, median, q3, high = f.fy([b["low"], b["q1"], b["median"], b["q3"], b["high"]]).tolist()
    svg.lines([((mid, q1), (mid, low)), ((mid, q3), (mid, high)), ((c0, low), (c1, low)), ((c0, high), (c1, high))],
              stroke=MUTED, width=1.0)
    svg.rect(x0, q3, x1 - x0, q1 - q3, fill="#fde0c5", stroke=MUTED, width=0.8)
    svg.line(x0, median, x1, median, stroke=INK, width=1.2)


HIGH_FLAGS, LOW_FLAGS = ["high", "above", "alto", "upper"], ["low", "below", "bajo", "lower"]
LIMIT_STYLES = [(("lower_95", "upper_95"), "3.7,1.6", "95%"), (("lower_998", "upper_998"), None, "99.8%")]


def funnel_plot(name: str, table: pd.DataFrame, *, xlabel: str, ylabel: str, caption: str = "", alt: str = "",
                labels: dict | None = None, highlight: int = 6) -> Figure:
    """Funnel plot: unit rates against births, with the target line and the control limits.

    ``table``: ``births, estimate`` and the limit columns found among ``lower_95, upper_95, lower_998,
    upper_998``, ``target``, and optionally ``flag`` and ``name``. Births on a log axis (:func:`log_ticks`,
    labelled as plain numbers in the report's language, limits padded 5 % of the decades); the 95 % limits
    dashed, the 99.8 % solid, the target a line across; units grey, above the limits accent, below blue; the
    ``highlight`` highest rates above named (right of their dots, or left when the name would pass the plot
    area's edge). y from 0 to 1.1 times the 99.5th percentile of the rates (at least 1): units above are
    cut off, their names left out."""
    t = table.dropna(subset=["births", "estimate"])
    t = t[t["births"].astype(float) > 0]
    x, y = t["births"].astype(float).to_numpy(), t["estimate"].astype(float).to_numpy()
    order = np.argsort(x)
    logs = np.log10(x)
    xlim = tuple(10.0 ** np.asarray(padded(logs.min(), logs.max()))) if len(x) else (1.0, 10.0)
    labelled, minor = log_ticks(*xlim)
    ylim = (0.0, max(np.nanpercentile(y, 99.5) * 1.1 if len(y) else 1.0, 1.0))
    chart = Chart(460.8, 273.6, xlim=xlim, ylim=ylim, xticks=labelled, xlabels=tick_labels(labelled),
                  xtitle=xlabel, ytitle=ylabel, xlog=True, minor_x=minor)
    chart.draw_axes()
    f, svg = chart.frame, chart.svg
    px, py = f.fx(x), f.fy(y)
    svg.open(clip=f.clip())
    entries, limits = [], []
    for (lo, hi), dash, text in LIMIT_STYLES:
        if lo in t and hi in t:
            for column in (lo, hi):
                line_y = f.fy(t[column].astype(float).to_numpy()[order])
                svg.polyline(px[order], line_y, stroke=MUTED, width=1, dash=dash)
                limits.append(along(px[order], line_y))
            entries.append((text, "line", MUTED, {"width": 1, "dash": dash}))
    target = float(f.fy(t["target"].astype(float).iloc[0])) if "target" in t and len(t) else np.nan
    if np.isfinite(target):
        svg.line(f.box[0], target, f.box[2], target, stroke=INK, width=1)
    flag = t["flag"].astype(str).to_numpy() if "flag" in t else np.array([""] * len(t))
    high, low = np.isin(flag, HIGH_FLAGS), np.isin(flag, LOW_FLAGS)
    svg.circles(px[~high & ~low], py[~high & ~low], 1.58, fill="#9aa5b1", opacity=0.7)
    svg.circles(px[high], py[high], 2, fill=ACCENT)
    svg.circles(px[low], py[low], 2, fill=BLUE)
    svg.close()
    named = [i for i in highlighted(y, high, highlight) if y[i] <= ylim[1]] if "name" in t else []
    names = [_name_beside(f, px[i], py[i], str(t["name"].iloc[i])) for i in named]  # those cut off left out
    if entries:  # in the corner covering fewest units, names and limit lines
        xs = np.concatenate([px, *[lx for lx, _ in limits], *[[nx, nx + text_width(n, 6.5)] for nx, _, n in names]])
        ys = np.concatenate([py, *[ly for _, ly in limits], *[[ny, ny] for _, ny, _ in names]])
        legend(svg, entries, *free_corner(f, entries, xs, ys, fewest=True), ground=True)
    for x, y_text, text in names:
        svg.text(x, y_text, text, size=6.5, colour=INK)
    return Figure(name, "svg", chart.to_bytes(), caption, alt or caption)


def _name_beside(f: Frame, x: float, y: float, name: str) -> tuple[float, float, str]:
    """Where a unit's name starts (6.5 pt, 2 pt above its dot): 3 pt right of the dot, or ending 3 pt left
    of it when it would pass the plot area's right edge."""
    width = text_width(name, 6.5)
    return (float(x) + 3 if x + 3 + width <= f.box[2] else float(x) - 3 - width), float(y) - 2, name


def highlighted(rates, high, count: int) -> np.ndarray:
    """Positions of the ``count`` highest ``rates`` among the units flagged ``high``, highest first."""
    idx = np.flatnonzero(high)
    return idx[np.argsort(-np.asarray(rates, dtype=float)[idx], kind="stable")][:count]


def scatter_chart(name: str, x, y, *, xlabel: str, ylabel: str, labels=None, caption: str = "",
                  alt: str = "") -> Figure:
    """A scatter of two yearly series (co-movement), each point (accent) labelled with its year (7 pt, muted,
    3 pt right and 2 pt above it); both axes with round ticks, the data padded by 5 %."""
    xs, ys = np.asarray(x, dtype=float).ravel(), np.asarray(y, dtype=float).ravel()
    ok = np.isfinite(xs) & np.isfinite(ys)
    xlim = padded(xs[ok].min(), xs[ok].max()) if ok.any() else (0.0, 1.0)
    ylim = padded(ys[ok].min(), ys[ok].max()) if ok.any() else (0.0, 1.0)
    chart = Chart(331.2, 244.8, xlim=xlim, ylim=ylim, xtitle=xlabel, ytitle=ylabel)
    chart.draw_axes()
    f, svg = chart.frame, chart.svg
    svg.circles(f.fx(xs), f.fy(ys), 2.12, fill=ACCENT)
    if labels is not None:
        for xi, yi, good, text in zip(f.fx(xs), f.fy(ys), ok, labels):
            if good:
                svg.text(float(xi) + 3, float(yi) - 2, str(text), size=7, colour=MUTED)
    return Figure(name, "svg", chart.to_bytes(), caption, alt or caption)


def _year_ticks(ax, years) -> None:
    """A matplotlib time axis' ticks (every year up to 10, every second up to 20, else every fifth) and
    limits; kept for the figures still drawn with matplotlib."""
    years = sorted(int(y) for y in pd.unique(pd.Series(years).dropna()))
    if not years:
        return
    step = 1 if len(years) <= 10 else 2 if len(years) <= 20 else 5
    ax.set_xticks(years[::step])
    ax.set_xlim(years[0] - 0.5, years[-1] + 0.5)


# -------------------------------------------------------------------------------------------- maps

def quantile_classes(values: pd.Series, k: int = 5, digits: int = 1) -> tuple[np.ndarray, list[str]]:
    """Class breaks at the quantiles of the values (rounded), and a label per class ("4.1 – 6.0")."""
    v = values.dropna().astype(float).to_numpy()
    if len(v) == 0:
        return np.array([0.0, 1.0]), ["-"]
    edges = np.unique(np.round(np.quantile(v, np.linspace(0, 1, k + 1)), digits))
    if len(edges) < 2:
        edges = np.array([edges[0], edges[0] + 10 ** -digits])
    fmt = f"{{:.{digits}f}}"
    labels = [f"{fmt.format(edges[i])} – {fmt.format(edges[i + 1])}" for i in range(len(edges) - 1)]
    return edges, labels


def sequential_colours(values: pd.Series, edges: np.ndarray) -> dict[str, str]:
    """unit -> colour of its class (values indexed by unit)."""
    ramp = _ramp(len(edges) - 1)
    v = values.dropna().astype(float)
    idx = np.clip(np.searchsorted(edges, v.to_numpy(), side="right") - 1, 0, len(edges) - 2)
    return {str(u): ramp[i] for u, i in zip(v.index.tolist(), idx.tolist())}


def _ramp(n: int) -> list[str]:
    """``n`` colours of the sequential ramp: picked from :data:`SEQUENTIAL` when it has enough, else
    interpolated between its colours (in sRGB, evenly along the ramp)."""
    if n <= len(SEQUENTIAL):
        picks = np.round(np.linspace(0, len(SEQUENTIAL) - 1, n)).astype(int)
        return [SEQUENTIAL[i] for i in picks]
    rgb = np.array([[int(c[i:i + 2], 16) for i in (1, 3, 5)] for c in SEQUENTIAL], dtype=float)
    at = np.linspace(0, len(SEQUENTIAL) - 1, n)
    mixed = np.column_stack([np.interp(at, np.arange(len(SEQUENTIAL)), rgb[:, j]) for j in range(3)])
    return ["#" + "".join(f"{int(round(v)):02x}" for v in row) for row in mixed]


def legend_for(edges: np.ndarray, labels: list[str]) -> list[tuple[str, str]]:
    return list(zip(_ramp(len(edges) - 1), labels))
