"""Joinpoint figures a paper can use: the observed rate per year (with its CI), the fitted segments, the
joinpoints marked and each segment's APC written on it; one chart, or small multiples (one per region).

SVG figures (the report's, ``brecha trends --plot x.svg``) are written by brecha itself
(:mod:`brecha.report.svg`, no matplotlib: issue 19); other formats (``--plot x.png``) are drawn with
matplotlib (:mod:`brecha.report.figures_print`), the same picture. What is drawn:

- the observed rates as MUTED dots (3 pt, 2 pt in small multiples), with a vertical 0.8-pt error bar from
  ``lower`` to ``upper`` when given;
- each segment's fitted line, ACCENT (2 pt, 1.5 pt in small multiples), through its ends and the fitted years
  inside it, the rate interpolated on the log scale (:func:`segment_curves`);
- each segment's APC centred 7 pt above the fitted rate at its middle on a white rounded box (80 % opaque),
  followed by "*" when its p-value is below ``alpha``: "APC -2.3 %*" (8 pt) on one chart, "-2.3*" (7 pt) in
  small multiples;
- each joinpoint as a dotted BLUE 0.8-pt vertical line, the plot area's full height.

Axes: x the years of the observed rates, the segments and the joinpoints, 5 % of their span added on each
side (matplotlib's ``axes.xmargin``). One chart (6.4 x 3.4 in): y from 0 to the data's top plus 5 % of the
data's span, a year labelled every 1, 2 or 5 years (up to 10, 20, more years), grid lines at every tick, 9-pt
labels, the y title. Small multiples: the grid of :mod:`brecha.report.figures_multiples` (4 columns, rows 2 in
high), one y axis for all (every panel's rates and segments, 5 % margins), its labels on the first column,
the first and last year under each panel, titles cut at 30 characters.
"""
from __future__ import annotations

import numpy as np

from .figures import ACCENT, BLUE, INK, MUTED, Figure
from .figures_print import print_chart, print_multiples
from .figures_multiples import axis_limits, draw_panel, panel_grid, room_for_y_labels, short_title
from .svg import Svg, num, text_width
from .svg_axes import PAD, TICK, Frame, left_margin, nice_ticks, tick_labels, year_ticks

POINTS = 72.0
DOTTED = "0.8,1.32"      # matplotlib's dotted pattern for a 0.8-pt line
NOTE_RISE = 7.0          # an APC's baseline above its segment's middle, points
CHART_SIZE = 9.0         # the single chart's tick labels and y title
EDGE = 3.0               # room around the single chart, points (matplotlib's constrained-layout pad)


def joinpoint_chart(name: str, fit: dict, *, ylabel: str, apc_label: str, fmt, lower=None, upper=None,
                    caption: str = "", alt: str = "", fmt_out: str = "svg", alpha: float = 0.05) -> Figure:
    """One series: ``fit`` has ``year, rate, fitted, segments, joinpoints`` (analyses_joinpoint), and
    ``observed_year`` when the observed rates are not on the fitted years; a segment's APC is starred when
    its p-value is below ``alpha``."""
    if fmt_out != "svg":
        return print_chart(name, fit, ylabel=ylabel, apc_label=apc_label, fmt=fmt, lower=lower, upper=upper,
                           caption=caption, alt=alt, fmt_out=fmt_out, alpha=alpha)
    curves = segment_curves(fit)
    seen, rate = _observed(fit)
    svg = Svg(6.4 * POINTS, 3.4 * POINTS)
    frame, yticks = _chart_frame(svg, fit, curves, ylabel, lower, upper)
    xticks = year_ticks(fit["year"])[0]
    frame.grid_and_ticks(xticks, yticks)
    svg.open(clip=frame.clip())
    _rates(frame, seen, rate, lower, upper, radius=1.5)
    _fitted(frame, curves, fit["joinpoints"], width=2.0)
    svg.close()
    frame.spines()
    _notes(frame, fit, curves, lambda apc, star: f"{apc_label} {fmt(apc)} %{star}", size=8.0, alpha=alpha)
    frame.y_labels(yticks, tick_labels(yticks), size=CHART_SIZE)
    frame.x_labels(xticks, [str(v) for v in xticks], size=CHART_SIZE)
    frame.y_title(ylabel, EDGE + CHART_SIZE / 2, size=CHART_SIZE)
    return Figure(name, "svg", svg.to_bytes(), caption, alt or caption)


def joinpoint_multiples(name: str, fits: dict, *, labels: dict, apc_label: str, fmt, ncols: int = 4,
                        caption: str = "", alt: str = "", fmt_out: str = "svg", alpha: float = 0.05) -> Figure:
    """Small multiples: ``fits`` maps a code to a fit, ``labels`` the code to its panel title. ``apc_label``
    is not written (each panel's notes are the APCs alone)."""
    codes = list(fits)
    ncols = max(min(ncols, len(codes)), 1)
    curves = {code: segment_curves(fits[code]) for code in codes}
    titles = {code: short_title(labels.get(code, code), 30) for code in codes}
    if fmt_out != "svg":
        return print_multiples(name, fits, curves, titles, fmt=fmt, ncols=ncols, caption=caption, alt=alt,
                               fmt_out=fmt_out, alpha=alpha)
    width, height, boxes = panel_grid(len(codes), ncols, row_height=2.0, wspace=0.25)
    values = np.concatenate([np.asarray(fits[c]["rate"], dtype=float) for c in codes]
                            + [ys for c in codes for _, ys in curves[c]])
    values = values[np.isfinite(values)]
    ylim = axis_limits(float(values.min()), float(values.max())) if len(values) else (0.0, 1.0)
    width, boxes = room_for_y_labels(width, boxes, [ylim] * len(codes), ncols)
    svg = Svg(width, height)
    for i, (code, box) in enumerate(zip(codes, boxes)):
        fit = fits[code]
        years = sorted({int(v) for v in np.asarray(fit["year"], dtype=float) if np.isfinite(v)})
        draw_panel(svg, i, box, _x_limits(fit, curves[code]), ylim, years=years, title=titles[code],
                   ylabels=i % ncols == 0,
                   data=lambda frame, fit=fit, curve=curves[code]: _fit_panel(frame, fit, curve, fmt, alpha))
    return Figure(name, "svg", svg.to_bytes(), caption, alt or caption)


def segment_curves(fit: dict) -> list:
    """Each segment's fitted line as ``(years, rates)``: its ends and the fitted years inside it, the rate
    interpolated on the log scale between the fitted years."""
    x, fitted = np.asarray(fit["year"], dtype=float), np.asarray(fit["fitted"], dtype=float)
    out = []
    for start, end in zip(fit["segments"]["start_year"], fit["segments"]["end_year"]):
        xs = np.concatenate([[start], x[(x > start) & (x < end)], [end]]).astype(float)
        out.append((xs, np.exp(np.interp(xs, x, np.log(fitted)))))
    return out


def _observed(fit: dict):
    seen = np.asarray(fit.get("observed_year", fit["year"]), dtype=float)
    return seen, np.asarray(fit["rate"], dtype=float)


def _x_limits(fit: dict, curves: list) -> tuple[float, float]:
    """The years of the observed rates, the segments and the joinpoints, 5 % of their span added on each
    side (half a year when they are one year)."""
    xs = np.concatenate([_observed(fit)[0], *[c for c, _ in curves], np.asarray(fit["joinpoints"], dtype=float)])
    xs = xs[np.isfinite(xs)]
    if not len(xs):
        return 0.0, 1.0
    lo, hi = float(xs.min()), float(xs.max())
    return (lo - 0.5, hi + 0.5) if hi == lo else axis_limits(lo, hi)


def _chart_frame(svg: Svg, fit: dict, curves: list, ylabel: str, lower, upper):
    """The single chart's plot area and y ticks, laid out as matplotlib's constrained layout did: y from 0 to
    the top of the rates, their bounds and the segments plus 5 % of their span; ticks with one interval per
    twice the label size of height (at most 9); :data:`EDGE` around, room left for the widest y label and
    the y title, below for the years, and above and right for the top y label's and the last year's halves
    where they stick out."""
    parts = [_observed(fit)[1], *[ys for _, ys in curves]]
    parts += [np.asarray(v, dtype=float) for v in (lower, upper) if v is not None]
    values = np.concatenate(parts)
    values = values[np.isfinite(values)]
    top = axis_limits(float(values.min()), float(values.max()))[1] if len(values) else 1.0
    ylim, xlim = (0.0, top if top > 0 else 1.0), _x_limits(fit, curves)
    bottom = svg.height - EDGE - CHART_SIZE - PAD - TICK
    bins = max(min(int((bottom - EDGE) // (CHART_SIZE * 2)), 9), 1)
    yticks = nice_ticks(ylim[0], ylim[1], bins)
    left = left_margin(tick_labels(yticks), ylabel, size=CHART_SIZE, pad=EDGE)
    frame = Frame(svg, (left, EDGE, svg.width - EDGE, bottom), xlim, ylim)
    above = CHART_SIZE / 2 - (float(frame.fy(yticks[-1])) - EDGE) if len(yticks) else 0.0
    xticks = year_ticks(fit["year"])[0]
    last = str(xticks[-1]) if xticks else ""
    right = float(frame.fx(xticks[-1])) + text_width(last, CHART_SIZE) / 2 - frame.box[2] if xticks else 0.0
    box = (left, EDGE + max(above, 0.0), svg.width - EDGE - max(right, 0.0), bottom)
    return Frame(svg, box, xlim, ylim), yticks


def _fit_panel(frame: Frame, fit: dict, curves: list, fmt, alpha: float) -> None:
    """A region's panel of :func:`joinpoint_multiples`: its rates, segments, joinpoints and APCs."""
    seen, rate = _observed(fit)
    _rates(frame, seen, rate, None, None, radius=1.0)
    _fitted(frame, curves, fit["joinpoints"], width=1.5)
    _notes(frame, fit, curves, lambda apc, star: f"{fmt(apc)}{star}", size=7.0, alpha=alpha)


def _rates(frame: Frame, seen, rate, lower, upper, *, radius: float) -> None:
    """The observed rates: error bars (when ``lower`` and ``upper`` are given), then dots of ``radius`` with
    a 1-pt edge (matplotlib's markers of diameter ``2 * radius``)."""
    x, y = frame.fx(seen), frame.fy(rate)
    if lower is not None and upper is not None:
        lo, hi = frame.fy(np.asarray(lower, dtype=float)), frame.fy(np.asarray(upper, dtype=float))
        ok = np.isfinite(x) & np.isfinite(lo) & np.isfinite(hi)
        frame.svg.lines([((a, b), (a, c)) for a, b, c in zip(x[ok], lo[ok], hi[ok])], stroke=MUTED, width=0.8)
    frame.svg.circles(x, y, radius, fill=MUTED, stroke=MUTED, width=1)


def _fitted(frame: Frame, curves: list, joinpoints, *, width: float) -> None:
    """The segments' fitted lines, then a dotted vertical line the plot area's height at each joinpoint."""
    for xs, ys in curves:
        frame.svg.polyline(frame.fx(xs), frame.fy(ys), stroke=ACCENT, width=width)
    _, top, _, bottom = frame.box
    at = [float(v) for v in frame.fx(np.asarray(list(joinpoints), dtype=float))]
    frame.svg.lines([((v, top), (v, bottom)) for v in at], stroke=BLUE, width=0.8, dash=DOTTED)


def _notes(frame: Frame, fit: dict, curves: list, write, *, size: float, alpha: float) -> None:
    """Each segment's APC, ``write(apc, star)``, centred :data:`NOTE_RISE` points above the fitted rate at the
    segment's middle, on a white rounded box."""
    year = np.asarray(fit["year"], dtype=float)
    log_fitted = np.log(np.asarray(fit["fitted"], dtype=float))
    for (_, seg) in fit["segments"].iterrows():
        mid = (seg["start_year"] + seg["end_year"]) / 2
        x = float(frame.fx(mid))
        baseline = float(frame.fy(np.exp(np.interp(mid, year, log_fitted)))) - NOTE_RISE
        text = write(seg["apc"], "*" if seg["p_value"] < alpha else "")
        _white_box(frame.svg, x, baseline, text, size)
        frame.svg.text(x, baseline, text, size=size, colour=INK, anchor="middle")


def _white_box(svg: Svg, x: float, baseline: float, text: str, size: float) -> None:
    """The box behind a text centred at ``x`` on ``baseline``, as matplotlib's ``round,pad=0.15``: the text's
    extent (its width; 0.76 em above the baseline, 0.24 below) plus 0.15 em around, the corners rounded by
    that pad, white at 80 % opacity."""
    pad = 0.15 * size
    half = text_width(text, size) / 2 + pad
    x0, x1 = x - half, x + half
    y0, y1 = baseline - 0.76 * size - pad, baseline + 0.24 * size + pad
    r = pad
    d = (f"M{num(x0 + r)} {num(y0)}H{num(x1 - r)}A{num(r)} {num(r)} 0 0 1 {num(x1)} {num(y0 + r)}"
         f"V{num(y1 - r)}A{num(r)} {num(r)} 0 0 1 {num(x1 - r)} {num(y1)}H{num(x0 + r)}"
         f"A{num(r)} {num(r)} 0 0 1 {num(x0)} {num(y1 - r)}V{num(y0 + r)}A{num(r)} {num(r)} 0 0 1 "
         f"{num(x0 + r)} {num(y0)}Z")
    svg.path(d, fill="#ffffff", opacity=0.8)
