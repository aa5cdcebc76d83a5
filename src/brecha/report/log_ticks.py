"""Tick labels of a logarithmic axis as plain text ("10³", "2×10³") instead of matplotlib's mathtext.

matplotlib labels a log axis with mathtext (``$\\mathdefault{10^{3}}$``); the first mathtext label of a
process builds its TeX-like parser (pyparsing), about 0.35 s of CPU, and every label is laid out by it
again in each drawing (the funnel plot was the report's slowest figure: 1.0 s of CPU, 0.5 s after; issue 19).
:class:`PlainLogFormatter` makes the same choice of which ticks get a label and what number it shows
(it is matplotlib's :class:`~matplotlib.ticker.LogFormatterSciNotation`), and only writes the label with
Unicode superscripts, which the report's font (DejaVu Sans) has: the picture stays the same.
"""
from __future__ import annotations

import re

from matplotlib.ticker import LogFormatterSciNotation

_SUPERSCRIPT = str.maketrans("0123456789-−+", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁻⁺")
_POWER = re.compile(r"\^\{([^{}]*)\}")


def plain_label(label: str) -> str:
    """A mathtext label of a log axis in plain text: ``$\\mathdefault{2\\times10^{-3}}$`` -> ``2×10⁻³``.
    Anything else (plain text, or mathtext beyond powers and ``\\times``) is returned unchanged."""
    if len(label) < 2 or not (label.startswith("$") and label.endswith("$")):
        return label
    body = label[1:-1]
    if body.startswith("\\mathdefault{") and body.endswith("}"):
        body = body[len("\\mathdefault{"):-1]
    body = body.replace("\\times", "×")
    body = _POWER.sub(lambda m: m.group(1).translate(_SUPERSCRIPT), body)
    if any(ch in body for ch in "\\{}^$_"):
        return label  # not a form this knows: matplotlib draws it as before
    return body.replace("-", "−")  # mathtext drew a minus sign


class PlainLogFormatter(LogFormatterSciNotation):
    """matplotlib's log-axis formatter, its labels in plain text (:func:`plain_label`)."""

    def __call__(self, x, pos=None):
        return plain_label(super().__call__(x, pos))


def plain_log_labels(axis) -> None:
    """Give a log-scaled ``axis`` (``ax.xaxis``) the formatters matplotlib's log scale sets (the major, and
    the minor one labelling between decades when they are few), writing plain text."""
    axis.set_major_formatter(PlainLogFormatter(10))
    axis.set_minor_formatter(PlainLogFormatter(10, labelOnlyBase=False))
