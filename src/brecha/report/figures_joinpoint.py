"""Joinpoint figures a paper can use: the observed rate per year (with its CI), the fitted segments, the
joinpoints marked and each segment's APC written on it; one chart, or small multiples (one per region).
Drawn with matplotlib in the report's style (:mod:`brecha.report.figures`)."""
from __future__ import annotations

import numpy as np

from .figures import ACCENT, BLUE, INK, MUTED, Figure, _new_figure, _rc, _save


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
    """Small multiples: ``fits`` maps a code to a fit, ``labels`` the code to its panel title."""
    codes = list(fits)
    n = len(codes)
    ncols = min(ncols, n)
    nrows = int(np.ceil(n / ncols))
    with _rc():
        fig = _new_figure(2.6 * ncols + 0.3, 2.0 * nrows + 0.1, layout=None)
        axes = fig.subplots(nrows, ncols, squeeze=False, sharey=True)
        fig.subplots_adjust(left=0.07, right=0.98, bottom=0.1 / nrows, top=1 - 0.16 / nrows, wspace=0.25,
                            hspace=0.6)
        for ax, code in zip(axes.flat, codes):
            _draw(ax, fits[code], apc_label, fmt, small=True, alpha=alpha)
            title = labels.get(code, code)
            ax.set_title(title if len(title) <= 30 else title[:29] + "…", fontsize=8.5)
            years = [int(v) for v in fits[code]["year"]]
            ax.set_xticks([years[0], years[-1]])
            ax.tick_params(labelsize=7)
        for ax in list(axes.flat)[n:]:
            ax.set_visible(False)
        return Figure(name, fmt_out, _save(fig, fmt_out, dpi=110 if fmt_out == "svg" else 200), caption,
                      alt or caption)
