"""The report's figures drawn with less CPU keep their content (issue 19; docs/performance.md "Drawing the
report's figures"):

- the joinpoint small multiples of Brazil's regions written as SVG by brecha (no matplotlib): every panel's
  title and tick labels are in the SVG, and every rate is drawn where its panel's own tick labels say that
  value is (checked point by point from the SVG's text and marker positions, not from the code that drew
  them; the small multiples of the inequality measures: tests/report/test_svg_multiples.py);
- (the maps are SVG written by brecha: tests/report/test_polygon_map.py and test_symbol_maps.py);
- for the PNG files of ``brecha trends --plot``: PNG written as RGB (no alpha channel where every pixel is
  opaque): the same pixels as matplotlib's own PNG;
- the constrained layout run once per drawing: the same SVG bytes as ``Figure(layout="constrained")``.
"""
import io
import re

import numpy as np
import pytest

from brecha.report import figures as F
from brecha.report import matplotlib_style
from svg_read import NS, dots, pieces, texts
from svg_read import panels as panels_of

CENTER = 0.36  # a y tick label's baseline below its tick, in ems of its size (centred on the tick)


@pytest.fixture
def spanish():
    """The report in Spanish (tick labels 0,25 and 1.000) for one test; the former language back after it."""
    from brecha.i18n import get_language, set_language

    before = get_language()
    set_language("es")
    yield
    set_language(before)


def _y_ticks(panel) -> list[tuple[float, float]]:
    """(value, tick y) of a panel's y tick labels (Spanish): right-aligned numbers centred on their ticks."""
    return [(float(t["text"].replace("−", "-").replace(".", "").replace(",", ".")), t["y"] - CENTER * t["size"])
            for t in texts(panel) if t["anchor"] == "end"]


def _line(pairs):
    """value -> position through the (value, position) pairs, checked to lie on one straight line."""
    pairs = np.array(pairs)
    slope, intercept = np.polyfit(pairs[:, 0], pairs[:, 1], 1)
    assert np.allclose(pairs[:, 1], slope * pairs[:, 0] + intercept, atol=0.01)
    return lambda v: slope * np.asarray(v, dtype=float) + intercept


def _years(panel) -> list[dict]:
    return [t for t in texts(panel) if t["anchor"] == "middle" and re.fullmatch(r"\d{4}", t["text"])]


def test_png_bytes_are_matplotlibs_pixels():
    from PIL import Image

    from brecha.report.png_bytes import png_bytes

    fig = matplotlib_style.new_figure(4, 3)
    ax = fig.add_subplot()
    ax.plot([1, 2, 3], [3, 1, 2], color=F.ACCENT)
    ax.fill_between([1, 2, 3], [1, 0, 1], [4, 3, 3], alpha=0.2)
    ax.set_title("ñandú")
    ours = png_bytes(fig, 100)
    theirs = io.BytesIO()
    fig.savefig(theirs, format="png", dpi=100, facecolor="white")
    a, b = Image.open(io.BytesIO(ours)), Image.open(theirs)
    assert a.format == "PNG" and a.mode == "RGB" and a.info["dpi"] == pytest.approx((100, 100), abs=1e-3)
    assert np.array_equal(np.asarray(a.convert("RGBA")), np.asarray(b.convert("RGBA")))
    fig.patch.set_alpha(0.0)  # a transparent figure keeps its alpha channel
    see_through = Image.open(io.BytesIO(png_bytes(fig, 100, facecolor="none")))
    assert see_through.mode == "RGBA" and np.asarray(see_through)[0, 0, 3] == 0


def test_one_layout_figure_draws_the_bytes_of_a_constrained_figure():
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from brecha.report.layout_once import OneLayoutFigure

    def chart(fig):
        FigureCanvasAgg(fig)
        ax = fig.add_subplot()
        ax.plot(np.arange(2000, 2016), np.linspace(9, 6, 16), marker="o", label="Chile")
        ax.plot(np.arange(2000, 2016), np.linspace(12, 7, 16), label="Aysén del General Carlos Ibáñez")
        ax.set_ylabel("Tasa de mortalidad infantil (por 1.000)")
        ax.set_title("Un título largo")
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=2)
        out = io.BytesIO()
        with matplotlib_style.style():
            fig.savefig(out, format="svg", metadata={"Date": None})
        return out.getvalue()

    once = chart(OneLayoutFigure(figsize=(6.4, 3.2)))
    assert once == chart(Figure(figsize=(6.4, 3.2), layout="constrained"))
    assert b"Un t\xc3\xadtulo largo" in once


def _brazil_region_fits():
    """Brazil's five regions, 2000-2019, joinpoint fits as `brecha trends --plot` draws them (two or three
    segments each, with joinpoints): the fits, the titles and the observed rates."""
    from brecha import datasets
    from brecha.trends import trends
    from brecha.trends.apc import _event_table

    panel = datasets.brazil()
    fits = {}
    trends(panel, method="joinpoint", level="region", fits=fits)
    table, names, _, _ = _event_table(panel, "infant", None, "region")
    unit = np.asarray(table["unit"]).astype(str)
    for code, fit in fits.items():
        keep = unit == code
        order = np.argsort(np.asarray(table["year"])[keep])
        rate = 1000 * np.asarray(table["events"], float)[keep] / np.asarray(table["births"], float)[keep]
        fit["observed_year"] = np.asarray(table["year"], float)[keep][order]
        fit["rate"] = rate[order]
    return fits, names


def test_joinpoint_multiples_draw_every_rate_segment_and_joinpoint_where_the_axes_say(spanish):
    """The joinpoint small multiples (`trends --plot`, the report's regions) written as SVG: titles, the first
    and last year under each panel, y labels on the first column only; every observed rate at the height its
    row's tick labels give and at its year; each segment's APC (starred when p < alpha); a dotted line at each
    joinpoint's year, the panel's full height."""
    from brecha.report.figures_joinpoint import joinpoint_multiples

    fits, names = _brazil_region_fits()
    codes = list(fits)
    assert sum(len(f["joinpoints"]) for f in fits.values()) >= 5
    fig = joinpoint_multiples("j", fits, labels=names, apc_label="APC", fmt=lambda v: f"{v:.1f}", alpha=0.05)
    panels = panels_of(fig.data)
    assert [t["text"] for p in panels for t in texts(p) if t["bold"]] == [names[c] for c in codes]
    assert [[t["text"] for t in _years(p)] for p in panels] == [["2000", "2019"]] * len(codes)
    notes = [t["text"] for p in panels for t in texts(p) if t["anchor"] == "middle" and t not in _years(p)]
    want = [f"{a:.1f}{'*' if p < 0.05 else ''}" for c in codes
            for a, p in zip(fits[c]["segments"]["apc"], fits[c]["segments"]["p_value"])]
    assert notes == want
    # y labels: left of the first column only, one set per row (ncols = 4: rows of panels 0-3 and 4)
    ticks = [_y_ticks(p) for p in panels]
    assert [bool(t) for t in ticks] == [True, False, False, False, True]
    lengths = []
    for i, (code, panel) in enumerate(zip(codes, panels)):
        to_y = _line(ticks[i - i % 4])
        first, last = [t["x"] for t in _years(panel)]
        marks = np.array(dots(panel, F.MUTED))
        fit = fits[code]
        assert len(marks) == len(fit["rate"])
        assert np.allclose(marks[:, 0], first + (fit["observed_year"] - 2000) / 19 * (last - first), atol=0.01)
        assert np.allclose(marks[:, 1], to_y(fit["rate"]), atol=0.01)
        # the joinpoints: dotted vertical lines at their years, past every rate of the panel above and below
        dotted = [s for p in panel.iter(NS + "path") if p.get("stroke-dasharray") for s in pieces(p.get("d"))]
        assert len(dotted) == len(fit["joinpoints"])
        for line, jp in zip(dotted, fit["joinpoints"]):
            assert np.allclose(line[:, 0], first + (jp - 2000) / 19 * (last - first), atol=0.01)
            assert line[:, 1].min() < marks[:, 1].min() and line[:, 1].max() > marks[:, 1].max()
            lengths.append(np.ptp(line[:, 1]))
    assert np.ptp(lengths) < 0.01  # every panel's full height, the same for all
