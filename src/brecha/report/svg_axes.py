"""A chart's axes written as SVG (:mod:`brecha.report.svg`): round tick values, their labels in the report's
language, and :class:`Frame`, the plot area with its grid, ticks, spines, tick labels and axis titles.

Tick values follow the rule of matplotlib's ``MaxNLocator`` (its default ``AutoLocator``): the smallest step
among 1, 2, 2.5, 5 and 10 times a power of ten that puts at most ``bins`` intervals between the axis' limits,
ticks on the multiples of that step inside them. A logarithmic axis (births in the funnel plot) has its major
ticks on the powers of ten and, when it spans fewer than three decades, labelled ticks at 2 and 5 times them.
Labels use the fewest decimals that tell the ticks apart, with the report's decimal and thousands marks
(Spanish 2,5 and 1.000; English 2.5 and 1,000: :func:`brecha.report.formatting.localise`).
"""
from __future__ import annotations

import math

import numpy as np

from ..i18n import get_language
from .formatting import localise
from .svg import Svg, text_width

INK = "#1f2933"
MUTED = "#6b7785"
GRID = "#e3e7eb"
LABEL_SIZE = 9.0      # tick labels and axis titles, as the report's matplotlib settings had them
TICK = 3.5            # tick length, points
PAD = 3.5             # between a tick and its label, points
STEPS = (1.0, 2.0, 2.5, 5.0, 10.0)


def nice_ticks(lo: float, hi: float, bins: int = 6) -> np.ndarray:
    """Round tick values between ``lo`` and ``hi``: multiples of the smallest "nice" step (1, 2, 2.5, 5, 10
    times a power of ten) giving at most ``bins`` intervals."""
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return np.array([])
    if hi < lo:
        lo, hi = hi, lo
    if hi == lo:
        return np.array([lo])
    raw = (hi - lo) / max(int(bins), 1)
    magnitude = 10.0 ** math.floor(math.log10(raw))
    step = next(s * magnitude for s in STEPS if s * magnitude >= raw * (1 - 1e-9))
    first = math.ceil(lo / step - 1e-9)
    last = math.floor(hi / step + 1e-9)
    values = np.arange(first, last + 1) * step
    return np.round(values, 12) + 0.0  # 0.30000000000000004 -> 0.3, and -0.0 -> 0.0


def decimals_for(values) -> int:
    """The fewest decimals (0-6) that write every value exactly enough to tell the ticks apart."""
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    for d in range(7):
        if np.allclose(np.round(v, d), v, rtol=0, atol=10.0 ** -(d + 3)):
            return d
    return 6


def tick_labels(values, lang: str | None = None, decimals: int | None = None) -> list[str]:
    """The ticks' labels: all with the same decimals, thousands marked, in the report's language."""
    lang = lang or get_language()
    d = decimals_for(values) if decimals is None else decimals
    return [localise(f"{v:,.{d}f}", lang).replace("-", "−") for v in np.asarray(values, dtype=float)]


def log_ticks(lo: float, hi: float) -> tuple[np.ndarray, np.ndarray]:
    """``(labelled, unlabelled)`` ticks of a log axis from ``lo`` to ``hi`` (both > 0): the powers of ten,
    and 2 and 5 times them (labelled when the axis spans fewer than three decades), then the other
    multiples 2-9 unlabelled."""
    if not (lo > 0 and hi > lo):
        return np.array([]), np.array([])
    first, last = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    decades = 10.0 ** np.arange(first, last + 1)
    every = (decades[:, None] * np.arange(1, 10)[None, :]).ravel()
    inside = every[(every >= lo * (1 - 1e-9)) & (every <= hi * (1 + 1e-9))]
    mult = np.round(inside / 10.0 ** np.floor(np.log10(inside) + 1e-9)).astype(int)
    labelled = np.isin(mult, [1, 2, 5] if math.log10(hi / lo) < 3 else [1])
    return inside[labelled], inside[~labelled]


class Frame:
    """The plot area of a chart: the box ``(left, top, right, bottom)`` in points, the data limits on it, and
    drawing of its furniture on an :class:`~brecha.report.svg.Svg`. ``xlog``: a logarithmic x axis."""

    def __init__(self, svg: Svg, box, xlim, ylim, *, xlog: bool = False):
        self.svg, self.box = svg, box
        self.xlim, self.ylim, self.xlog = tuple(map(float, xlim)), tuple(map(float, ylim)), xlog

    def fx(self, x):
        left, _, right, _ = self.box
        x0, x1 = self.xlim
        x = np.asarray(x, dtype=float)
        if self.xlog:
            with np.errstate(divide="ignore", invalid="ignore"):
                return left + (np.log10(x) - math.log10(x0)) / (math.log10(x1) - math.log10(x0)) * (right - left)
        return left + (x - x0) / (x1 - x0) * (right - left)

    def fy(self, y):
        _, top, _, bottom = self.box
        y0, y1 = self.ylim
        return bottom - (np.asarray(y, dtype=float) - y0) / (y1 - y0) * (bottom - top)

    def clip(self) -> str:
        left, top, right, bottom = self.box
        return self.svg.clip(left, top, right - left, bottom - top)

    def grid_and_ticks(self, xticks, yticks, *, xgrid: bool = True, ygrid: bool = True, minor_x=()) -> None:
        """Grid lines under the data, outward ticks on the left and bottom spines (drawn by :meth:`spines`)."""
        left, top, right, bottom = self.box
        xs = [float(v) for v in self.fx(xticks)] if len(xticks) else []
        ys = [float(v) for v in self.fy(yticks)] if len(yticks) else []
        grid = ([((x, top), (x, bottom)) for x in xs] if xgrid else []) + \
               ([((left, y), (right, y)) for y in ys] if ygrid else [])
        self.svg.lines(grid, stroke=GRID, width=0.8)
        marks = [((x, bottom), (x, bottom + TICK)) for x in xs] + [((left, y), (left - TICK, y)) for y in ys]
        marks += [((x, bottom), (x, bottom + TICK * 0.6)) for x in self.fx(minor_x)] if len(minor_x) else []
        self.svg.lines(marks, stroke=MUTED, width=0.8)

    def spines(self) -> None:
        left, top, right, bottom = self.box
        self.svg.lines([((left, top), (left, bottom)), ((left, bottom), (right, bottom))], stroke=MUTED, width=0.8)

    def x_labels(self, values, labels, *, size: float = LABEL_SIZE) -> None:
        y = self.box[3] + TICK + PAD
        for x, text in zip(self.fx(values), labels):
            self.svg.text(float(x), y, text, size=size, colour=MUTED, anchor="middle", valign="top")

    def y_labels(self, values, labels, *, size: float = LABEL_SIZE) -> None:
        x = self.box[0] - TICK - PAD
        for y, text in zip(self.fy(values), labels):
            self.svg.text(x, float(y), text, size=size, colour=MUTED, anchor="end", valign="center")

    def x_title(self, text: str, *, size: float = LABEL_SIZE) -> None:
        left, _, right, bottom = self.box
        self.svg.text((left + right) / 2, bottom + TICK + PAD + size * 1.25 + 2, text, size=size, colour=INK,
                      anchor="middle", valign="top")

    def y_title(self, text: str, x: float, *, size: float = LABEL_SIZE) -> None:
        """The y axis' title, written upwards, its letters' middle at ``x``."""
        _, top, _, bottom = self.box
        self.svg.text(x, (top + bottom) / 2, text, size=size, colour=INK, anchor="middle", valign="center",
                      rotate=-90)


def left_margin(ylabels: list[str], ytitle: str, *, size: float = LABEL_SIZE, pad: float = 4.0) -> float:
    """Room, in points, for the y tick labels and the y title left of the plot area; the title's middle sits
    at ``pad + size / 2``."""
    widest = max((text_width(t, size) for t in ylabels), default=0.0)
    return pad + (size * 1.2 + 2 if ytitle else 0) + widest + PAD + TICK


def year_ticks(years) -> tuple[list[int], tuple[float, float]]:
    """The years labelled on a time axis (every one up to 10 years, every second up to 20, else every fifth,
    from the first) and the axis' limits (half a year of room at each end). Years are written without a
    thousands mark."""
    ys = sorted({int(y) for y in np.asarray(list(years), dtype=float) if np.isfinite(y)})
    if not ys:
        return [], (0.0, 1.0)
    step = 1 if len(ys) <= 10 else 2 if len(ys) <= 20 else 5
    return ys[::step], (ys[0] - 0.5, ys[-1] + 0.5)


def padded(lo: float, hi: float, margin: float = 0.05) -> tuple[float, float]:
    """Data limits widened by ``margin`` of their span on each side (a single value: ±0.5, or ±5 % of it)."""
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return 0.0, 1.0
    if hi == lo:
        half = abs(lo) * 0.05 or 0.5
        return lo - half, hi + half
    span = hi - lo
    return lo - margin * span, hi + margin * span


# ---------------------------------------------------------------------------------------- chart layout

TITLE_SIZE = 10.0     # a chart's title, bold, left-aligned over the plot area (the report's matplotlib style)
NOTE_SIZE = 7.0       # a note under a chart
LEGEND_SIZE = 8.0     # legend texts


def bins_for(length: float, *, vertical: bool = True, size: float = LABEL_SIZE) -> int:
    """Tick intervals for an axis ``length`` points long with tick labels of ``size`` points, matplotlib's rule
    (``Axis.get_tick_space`` for ``MaxNLocator(nbins="auto")``): the length over twice the labels' size on a
    vertical axis, three times on a horizontal one, 1 to 9."""
    return int(min(9, max(1, math.floor(length / (size * (2.0 if vertical else 3.0))))))


def runs(ok: np.ndarray) -> list[slice]:
    """The stretches of consecutive True values of ``ok`` (a band is broken where a bound is missing)."""
    edges = np.flatnonzero(np.diff(np.concatenate([[0], np.asarray(ok).astype(int), [0]])))
    return [slice(a, b) for a, b in zip(edges[::2], edges[1::2])]


def wrap(text: str, width: float, size: float) -> list[str]:
    """``text`` cut into lines at most ``width`` points wide (between words; a longer word stays whole)."""
    lines: list[str] = []
    for word in str(text).split():
        if lines and text_width(f"{lines[-1]} {word}", size) <= width:
            lines[-1] = f"{lines[-1]} {word}"
        else:
            lines.append(word)
    return lines


class Chart:
    """The layout of a chart ``width`` x ``height`` points: a plot area (:attr:`frame`) with room around it
    for the title (top), the y tick labels and title (left, from their widths), the x tick labels and title
    (bottom), half the widest x label (right), and ``below`` / ``right`` points more (a legend, a note).

    Ticks given as ``None`` are :func:`nice_ticks` inside the limits, with :func:`bins_for` the axis' length;
    labels given as ``None`` are :func:`tick_labels` of the ticks. Nothing is drawn until :meth:`draw_axes`
    (grid, ticks, labels and titles, under the data) and :meth:`to_bytes` (the spines, over the data)."""

    def __init__(self, width: float, height: float, *, xlim, ylim, xticks=None, yticks=None, xlabels=None,
                 ylabels=None, xtitle: str = "", ytitle: str = "", title: str = "", below: float = 0.0,
                 right: float = 0.0, xlog: bool = False, minor_x=()):
        self.svg = Svg(width, height)
        self.xtitle, self.ytitle, self.title, self.minor_x = xtitle, ytitle, title, minor_x
        top = 4 + TITLE_SIZE + 6 if title else 8.0
        bottom = height - below - 4 - TICK - PAD - LABEL_SIZE - (LABEL_SIZE * 1.25 + 2 if xtitle else 0)
        self.yticks = nice_ticks(*ylim, bins_for(bottom - top)) if yticks is None else np.asarray(yticks, float)
        self.ylabels = tick_labels(self.yticks) if ylabels is None else list(ylabels)
        left = left_margin(self.ylabels, ytitle)
        self.xticks = nice_ticks(*xlim, bins_for(width - left - right - 12, vertical=False)) if xticks is None \
            else np.asarray(xticks, float)
        self.xlabels = tick_labels(self.xticks) if xlabels is None else list(xlabels)
        last = text_width(self.xlabels[-1], LABEL_SIZE) if self.xlabels else 0.0
        box = (left, top, width - right - max(8.0, last / 2 + 3), max(bottom, top + 1))
        self.frame = Frame(self.svg, box, xlim, ylim, xlog=xlog)

    def draw_axes(self, *, xgrid: bool = True, ygrid: bool = True) -> None:
        """Grid, ticks, tick labels, axis titles and the title."""
        f = self.frame
        f.grid_and_ticks(self.xticks, self.yticks, xgrid=xgrid, ygrid=ygrid, minor_x=self.minor_x)
        f.x_labels(self.xticks, self.xlabels)
        f.y_labels(self.yticks, self.ylabels)
        f.x_title(self.xtitle)
        f.y_title(self.ytitle, 4 + LABEL_SIZE / 2)
        self.svg.text(f.box[0], f.box[1] - 6, self.title, size=TITLE_SIZE, colour=INK, valign="bottom",
                      bold=True)

    def note(self, lines: list[str]) -> None:
        """Lines of a note at the chart's bottom left (:data:`NOTE_SIZE`, muted), the last on the edge."""
        for i, line in enumerate(reversed(lines)):
            self.svg.text(0.01 * self.svg.width, self.svg.height - 2 - i * NOTE_SIZE * 1.2, line,
                          size=NOTE_SIZE, colour=MUTED, valign="bottom")

    def to_bytes(self) -> bytes:
        self.frame.spines()
        return self.svg.to_bytes()


# --------------------------------------------------------------------------------------------- legends
# An entry is ``(text, kind, colour, style)``: kind "line" (style: {"width", "dash", "marker"}) or "patch".
# Sizes in ems of LEGEND_SIZE, as matplotlib's legend: a handle 2 long, 0.8 to its text, rows 1.5 apart,
# columns 2 apart, 0.4 of border.
HANDLE, HANDLE_PAD, ROW, COLUMN_GAP, BORDER = 2.0, 0.8, 1.5, 2.0, 0.4


def legend_size(entries, ncol: int = 1) -> tuple[float, float]:
    """Width and height in points of a legend of ``entries`` in ``ncol`` columns."""
    if not entries:
        return 0.0, 0.0
    em, ncol = LEGEND_SIZE, max(1, min(ncol, len(entries)))
    widths = _column_widths(entries, ncol)
    rows = -(-len(entries) // ncol)
    return (sum(widths) + COLUMN_GAP * em * (ncol - 1) + 2 * BORDER * em,
            rows * ROW * em - (ROW - 1) * em + 2 * BORDER * em)


def _column_widths(entries, ncol: int) -> list[float]:
    em = LEGEND_SIZE
    return [max((HANDLE + HANDLE_PAD) * em + text_width(e[0], em) for e in entries[c::ncol]) for c in range(ncol)]


def legend(svg: Svg, entries, x: float, y: float, *, ncol: int = 1, ground: bool = False) -> None:
    """The legend with its top left corner at ``(x, y)``, entries filled row by row; ``ground``: on a white
    translucent rectangle (a legend inside the plot area, over the grid)."""
    if not entries:
        return
    em, ncol = LEGEND_SIZE, max(1, min(ncol, len(entries)))
    width, height = legend_size(entries, ncol)
    if ground:
        svg.rect(x, y, width, height, fill="#ffffff", opacity=0.8)
    widths = _column_widths(entries, ncol)
    for i, (text, kind, colour, style) in enumerate(entries):
        column, row = i % ncol, i // ncol
        left = x + BORDER * em + sum(widths[:column]) + COLUMN_GAP * em * column
        middle = y + BORDER * em + row * ROW * em + em / 2
        if kind == "patch":
            svg.rect(left, middle - 0.35 * em, HANDLE * em, 0.7 * em, fill=colour)
        else:
            svg.line(left, middle, left + HANDLE * em, middle, stroke=colour, width=style.get("width", 1.0),
                     dash=style.get("dash"))
            if style.get("marker"):
                svg.circles([left + HANDLE * em / 2], [middle], 1.5, fill=colour)
        svg.text(left + (HANDLE + HANDLE_PAD) * em, middle, text, size=em, colour=INK, valign="center")


def free_corner(frame: Frame, entries, xs, ys, *, fewest: bool = False) -> tuple[float, float] | None:
    """The top left point of a legend in the plot area's corner (top right, top left, bottom right, bottom
    left: the first of equals) covering the fewest of the points ``(xs, ys)`` (in points): when it covers
    none, or always with ``fewest``; else ``None``."""
    width, height = legend_size(entries)
    left, top, right, bottom = frame.box
    xs, ys = np.asarray(xs, dtype=float), np.asarray(ys, dtype=float)
    best, least = None, None
    for x, y in ((right - width - 2, top + 2), (left + 2, top + 2), (right - width - 2, bottom - height - 2),
                 (left + 2, bottom - height - 2)):
        covered = int(np.sum((xs >= x - 2) & (xs <= x + width + 2) & (ys >= y - 2) & (ys <= y + height + 2)))
        if least is None or covered < least:
            best, least = (x, y), covered
    return best if least == 0 or fewest else None


def along(xs, ys, step: float = 3.0) -> tuple[np.ndarray, np.ndarray]:
    """The points ``(xs, ys)`` (points; missing ones break the line) and, on each segment between two of them,
    points every ``step`` points or closer: what a legend must not cover. Computed for all segments at once
    (a funnel plot's limit lines have one segment per unit: 5,570 for Brazil)."""
    xs, ys = np.asarray(xs, dtype=float), np.asarray(ys, dtype=float)
    finite = np.isfinite(xs) & np.isfinite(ys)
    if len(xs) < 2:
        return xs[finite], ys[finite]
    x0, y0, x1, y1 = xs[:-1], ys[:-1], xs[1:], ys[1:]
    ok = finite[:-1] & finite[1:]
    x0, y0, x1, y1 = x0[ok], y0[ok], x1[ok], y1[ok]
    pieces = (np.hypot(x1 - x0, y1 - y0) // step).astype(np.int64) + 1  # intervals on each segment
    segment = np.repeat(np.arange(len(pieces)), pieces + 1)
    first = np.repeat(np.cumsum(pieces + 1) - (pieces + 1), pieces + 1)
    t = (np.arange(len(segment)) - first) / pieces[segment]
    return (np.concatenate([xs[finite], x0[segment] + t * (x1 - x0)[segment]]),
            np.concatenate([ys[finite], y0[segment] + t * (y1 - y0)[segment]]))
