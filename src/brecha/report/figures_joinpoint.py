"""Joinpoint figures a paper can use: the observed rate per year (with its CI), the fitted segments, the
joinpoints marked and each segment's APC written on it; one chart, or small multiples (one per region).
Drawn with matplotlib in the report's style (:mod:`brecha.report.figures`)."""
from __future__ import annotations

import numpy as np

from .figures import ACCENT, BLUE, INK, MUTED, Figure, _new_figure, _rc, _save
from .figures_multiples import _Drawing


def _apc_text(apc: float, lang_apc: str, fmt) -> str:
    return f"{lang_apc} {fmt(apc)} %"


def _draw(ax, fit, apc_label, fmt, lower=None, upper=None, small=False, alpha=0.05):
    x, fitted = fit["year"], fit["fitted"]
    seen, rate = fit.get("observed_year", x), fit["rate"]
    if lower is not None and upper is not None:
        ax.errorbar(seen, rate, yerr=[rate - lower, upper - rate], fmt="o", color=MUTED, markersize=3 if not small
                    else 2, elinewidth=0.8, capsize=0)
    else:
        ax.plot(seen, rate, "o", color=MUTED, markersize=3 if not small else 2)
    segs = fit["segments"]
    for _, s in segs.iterrows():
        inside = (x >= s["start_year"]) & (x <= s["end_year"])
        xs = np.concatenate([[s["start_year"]], x[inside & (x > s["start_year"]) & (x < s["end_year"])],
                             [s["end_year"]]])
        ys = np.exp(np.interp(xs, x, np.log(fitted)))
        ax.plot(xs, ys, color=ACCENT, linewidth=2 if not small else 1.5)
        mid = (s["start_year"] + s["end_year"]) / 2
        star = "*" if s["p_value"] < alpha else ""
        ax.annotate(f"{fmt(s['apc'])}{star}" if small else _apc_text(s["apc"], apc_label, fmt) + star,
                    (mid, float(np.exp(np.interp(mid, x, np.log(fitted))))), textcoords="offset points",
                    xytext=(0, 7), ha="center", fontsize=7 if small else 8, color=INK,
                    bbox={"boxstyle": "round,pad=0.15", "facecolor": "white", "edgecolor": "none", "alpha": 0.8})
    for jp in fit["joinpoints"]:
        ax.axvline(jp, color=BLUE, linewidth=0.8, linestyle=":")


def joinpoint_chart(name: str, fit: dict, *, ylabel: str, apc_label: str, fmt, lower=None, upper=None,
                    caption: str = "", alt: str = "", fmt_out: str = "svg", alpha: float = 0.05) -> Figure:
    """One series: ``fit`` has ``year, rate, fitted, segments, joinpoints`` (analyses_joinpoint), and
    ``observed_year`` when the observed rates are not on the fitted years; a segment's APC is starred when
    its p-value is below ``alpha``."""
    with _rc():
        fig = _new_figure(6.4, 3.4)
        ax = fig.add_subplot()
        _draw(ax, fit, apc_label, fmt, lower, upper, alpha=alpha)
        ax.set_ylabel(ylabel)
        ax.set_ylim(bottom=0)
        years = [int(v) for v in fit["year"]]
        step = 1 if len(years) <= 10 else 2 if len(years) <= 20 else 5
        ax.set_xticks(years[::step])
        return Figure(name, fmt_out, _save(fig, fmt_out, dpi=110 if fmt_out == "svg" else 200), caption,
                      alt or caption)


def joinpoint_multiples(name: str, fits: dict, *, labels: dict, apc_label: str, fmt, ncols: int = 4,
                        caption: str = "", alt: str = "", fmt_out: str = "svg", alpha: float = 0.05) -> Figure:
    """Small multiples: ``fits`` maps a code to a fit, ``labels`` the code to its panel title.

    Drawn as :mod:`brecha.report.figures_multiples` draws the report's small multiples (issue 19): a few
    artists for the whole figure instead of an ``Axes`` per panel (16 Chilean regions: 1.3 s of CPU with
    Axes), the panels on the same grid, the y axis shared (its limits from every panel's observed rates
    and fitted segments, widened by ``axes.ymargin``), each x axis the panel's years widened by
    ``axes.xmargin`` (``Axes.autoscale_view``), ticks at the first and the last year, y tick labels on the
    first column only."""
    import matplotlib

    from .figures_multiples import _nonsingular_margins, panel_grid

    codes = list(fits)
    n = len(codes)
    ncols = min(ncols, n)
    curves = {code: _curves(fits[code]) for code in codes}
    with _rc():
        rc = matplotlib.rcParams
        fig, boxes, width, height = panel_grid(n, ncols, row_height=2.0, wspace=0.25)
        values = np.concatenate([np.concatenate([fits[c]["rate"], *[ys for _, ys in curves[c]]]) for c in codes])
        values = values[np.isfinite(values)]
        ylim = _nonsingular_margins(float(values.min()), float(values.max())) if len(values) else (0.0, 1.0)
        drawing = _JoinpointDrawing(fig, width, height, rc)
        for i, (code, box) in enumerate(zip(codes, boxes)):
            title = labels.get(code, code)
            drawing.joinpoint_panel(fits[code], curves[code], box, ylim, title if len(title) <= 30 else title[:29] + "…",
                                    ylabels=i % ncols == 0, fmt=fmt, alpha=alpha)
        drawing.finish()
        return Figure(name, fmt_out, _save(fig, fmt_out, dpi=110 if fmt_out == "svg" else 200), caption,
                      alt or caption)


def _curves(fit: dict) -> list:
    """Each segment's fitted line as ``(years, rates)``: its ends and the fitted years inside it, the rate
    interpolated on the log scale (as :func:`_draw`)."""
    x, fitted = fit["year"], fit["fitted"]
    out = []
    for start, end in zip(fit["segments"]["start_year"], fit["segments"]["end_year"]):
        xs = np.concatenate([[start], x[(x > start) & (x < end)], [end]])
        out.append((xs, np.exp(np.interp(xs, x, np.log(fitted)))))
    return out


class _JoinpointDrawing(_Drawing):
    """:class:`brecha.report.figures_multiples._Drawing` with a joinpoint panel: observed rates (dots), the
    fitted segments, the joinpoints (dotted) and each segment's APC in a white box 7 points above its middle."""

    def __init__(self, fig, width, height, rc):
        super().__init__(fig, width, height, rc)
        self.dots_x, self.dots_y, self.segments, self.dotted = [], [], [], []
        self.xmargin = rc["axes.xmargin"]

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

    def add_data(self, transform) -> None:
        from matplotlib.collections import LineCollection
        from matplotlib.lines import Line2D

        fig = self.fig
        if self.dots_x:
            fig.add_artist(Line2D(np.concatenate(self.dots_x), np.concatenate(self.dots_y), color=MUTED,
                                  linestyle="none", marker="o", markersize=2, transform=transform, zorder=2))
        if self.segments:
            fig.add_artist(LineCollection(self.segments, colors=ACCENT, linewidths=1.5, transform=transform,
                                          zorder=2))
        if self.dotted:
            fig.add_artist(LineCollection(self.dotted, colors=BLUE, linewidths=0.8, linestyles=":",
                                          transform=transform, zorder=2))
