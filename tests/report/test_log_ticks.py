"""Log-axis tick labels as plain text (brecha.report.log_ticks): the same ticks labelled with the same numbers
as matplotlib's mathtext labels, in glyphs the report's font has."""
import numpy as np
import pandas as pd
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties, findfont, get_font
from matplotlib.ticker import LogFormatterSciNotation

from brecha.report import figures as F
from brecha.report.log_ticks import PlainLogFormatter, plain_label
from brecha.report.svg_axes import tick_labels


@pytest.mark.parametrize("mathtext, plain", [
    (r"$\mathdefault{10^{3}}$", "10³"),
    (r"$\mathdefault{10^{0}}$", "10⁰"),
    (r"$\mathdefault{10^{-2}}$", "10⁻²"),
    (r"$\mathdefault{2\times10^{3}}$", "2×10³"),
    (r"$\mathdefault{10^{15}}$", "10¹⁵"),
    (r"$\mathdefault{1}$", "1"),
    ("", ""),
    ("1,000", "1,000"),
    (r"$\alpha$", r"$\alpha$"),  # a form it does not know: left to matplotlib
])
def test_plain_label(mathtext, plain):
    assert plain_label(mathtext) == plain


@pytest.mark.parametrize("low, high", [(3, 2e5), (40, 300), (1200, 5000), (0.01, 10)])
def test_same_ticks_and_numbers_as_matplotlib(low, high):
    """Between decades (few decades: minor ticks labelled, 2×10³) and over many: every tick gets
    matplotlib's label, written as plain text."""
    fig = Figure()
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    ax.set_xscale("log")
    ax.set_xlim(low, high)
    fig.canvas.draw()
    for ticks, theirs in ((ax.xaxis.get_majorticklocs(), ax.xaxis.get_major_formatter()),
                          (ax.xaxis.get_minorticklocs(), ax.xaxis.get_minor_formatter())):
        assert isinstance(theirs, LogFormatterSciNotation)
        ours = PlainLogFormatter(10, labelOnlyBase=theirs.labelOnlyBase)
        ours.set_axis(ax.xaxis)
        ours.set_locs(ticks)
        expected = [plain_label(label) for label in theirs.format_ticks(ticks)]
        assert ours.format_ticks(ticks) == expected
        assert not any("$" in label for label in expected)


def test_the_font_has_the_superscripts():
    font = get_font(findfont(FontProperties(family=["DejaVu Sans"])))
    for ch in "⁰¹²³⁴⁵⁶⁷⁸⁹⁻×":
        assert font.get_char_index(ord(ch)) != 0, ch


def test_funnel_plot_labels_births_without_mathtext():
    rng = np.random.default_rng(1)
    births = np.geomspace(30, 90_000, 200)
    table = pd.DataFrame({"births": births, "estimate": rng.gamma(4, 2, 200), "target": 8.0,
                          "lower_95": 8 - 50 / np.sqrt(births), "upper_95": 8 + 50 / np.sqrt(births)})
    svg = F.funnel_plot("funnel", table, xlabel="Births", ylabel="IMR").data.decode("utf-8")
    assert "mathdefault" not in svg
    # written by brecha (svg_axes.log_ticks): plain numbers in the report's language, not powers of ten
    for label in tick_labels([100, 1000, 10_000]):
        assert f">{label}</text>" in svg
    assert "10³" not in svg
