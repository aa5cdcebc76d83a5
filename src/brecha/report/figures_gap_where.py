"""Figures of the "Where is the gap?" section: the between/within shares of inequality per year (stacked
bars) and the determinants' contributions to the concentration index (bars with their intervals). Drawn
with the report's matplotlib style (:mod:`brecha.report.figures`)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from .figures import ACCENT, BLUE, MUTED, Figure, _new_figure, _rc, _save, _year_ticks


def stacked_shares(name: str, shares: pd.DataFrame, *, labels: dict, ylabel: str, caption: str = "",
                   alt: str = "") -> Figure:
    """``shares``: columns ``year`` and one column per component (e.g. ``between``, ``within``) holding its
    share of the total (0-1); ``labels`` names each component for the legend."""
    colours = [ACCENT, BLUE, "#c4a35a", MUTED]
    with _rc():
        fig = _new_figure(6.4, 3.2)
        ax = fig.add_subplot()
        x = shares["year"].astype(float).to_numpy()
        bottom = np.zeros(len(x))
        for i, (column, label) in enumerate(labels.items()):
            values = np.nan_to_num(shares[column].astype(float).to_numpy(), nan=0.0) * 100
            ax.bar(x, values, bottom=bottom, width=0.8, color=colours[i % len(colours)], label=label)
            bottom = bottom + values
        ax.set_ylim(0, max(100.0, float(bottom.max()) if len(bottom) else 100.0))
        ax.set_ylabel(ylabel)
        _year_ticks(ax, shares["year"])
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=len(labels), fontsize=8)
        return Figure(name, "svg", _save(fig, "svg"), caption, alt or caption)


def contributions_chart(name: str, table: pd.DataFrame, *, xlabel: str, caption: str = "", alt: str = "") -> Figure:
    """Horizontal bars: ``label``, ``contribution``, optional ``lower``/``upper`` (error bars)."""
    with _rc():
        fig = _new_figure(6.4, 0.45 * len(table) + 1.0)
        ax = fig.add_subplot()
        y = np.arange(len(table))[::-1]
        value = table["contribution"].astype(float).to_numpy()
        ax.barh(y, value, color=[ACCENT if v < 0 else BLUE for v in value], height=0.6)
        if {"lower", "upper"} <= set(table.columns) and table["lower"].notna().any():
            lo = np.clip(value - table["lower"].astype(float).to_numpy(), 0, None)
            hi = np.clip(table["upper"].astype(float).to_numpy() - value, 0, None)
            ax.errorbar(value, y, xerr=[np.nan_to_num(lo), np.nan_to_num(hi)], fmt="none", ecolor="#1f2933",
                        capsize=3, linewidth=1)
        ax.axvline(0, color=MUTED, linewidth=0.8)
        ax.set_yticks(y)
        ax.set_yticklabels(table["label"].astype(str).tolist())
        ax.set_xlabel(xlabel)
        ax.grid(axis="y", visible=False)
        return Figure(name, "svg", _save(fig, "svg"), caption, alt or caption)
