"""The report's figures drawn with less CPU keep their content (issue 19; docs/performance.md "Drawing the
report's figures"):

- small multiples drawn without an Axes per panel: every panel's title and tick labels are in the SVG, and
  every data point is drawn where its panel's own tick labels say that value is (checked point by point
  from the SVG's text and marker positions, not from the code that drew them);
- map panels that paint only the polygons in their view: the same PNG pixels as painting every polygon in
  every panel, every commune painted in some panel;
- PNG written as RGB (no alpha channel where every pixel is opaque): the same pixels as matplotlib's own PNG;
- the constrained layout run once per drawing: the same SVG bytes as ``Figure(layout="constrained")``.
"""
import io
import re

import numpy as np
import pandas as pd
import pytest

from brecha.registry import get_registry
from brecha.report import figures as F
from brecha.report import map_polygons
from brecha.report.figures_multiples import small_multiples

TEXT = re.compile(r'<text style="([^"]*)" x="([-\d.e]+)" y="([-\d.e]+)"[^>]*>([^<]*)</text>')
MARKER = re.compile(r'<use xlink:href="#(m[0-9a-f]+)" x="([-\d.e]+)" y="([-\d.e]+)"')


def _bold(style: str) -> bool:
    """A bold text: matplotlib >= 3.9 writes ``font-weight: 700``, 3.8 ``font: 700 8.5px ...``."""
    return "font-weight: 700" in style or re.search(r"font: (700|bold) ", style) is not None


def _texts(svg: str):
    return [(body, float(x), float(y), style) for style, x, y, body in TEXT.findall(svg)]


def _table():
    """Three measures: a plain series, one with a missing estimate and a missing band year, one negative."""
    years = np.arange(2005, 2017)
    rows = []
    rng = np.random.default_rng(7)
    for measure, base in (("gini", 0.2), ("ti", 110.0), ("par", -3.0)):
        est = base + rng.normal(0, abs(base) * 0.1, len(years))
        for i, (y, e) in enumerate(zip(years, est)):
            lo, hi = e - abs(base) * 0.05, e + abs(base) * 0.05
            if measure == "ti" and i == 3:
                e = np.nan
            if measure == "ti" and i == 6:
                lo = hi = np.nan
            rows.append({"measure": measure, "year": int(y), "estimate": e, "lower": lo, "upper": hi})
    return pd.DataFrame(rows)


def _panel_of(x: float, lefts: list[float]) -> int:
    return max(i for i, left in enumerate(lefts) if x >= left - 1e-6)


@pytest.mark.parametrize("sharey", [False, True])
def test_small_multiples_draw_every_point_where_the_axis_says(sharey):
    table = _table()
    labels = {"gini": "Gini (weighted)", "ti": "Theil ×1000", "par": "PAR"}
    fig = small_multiples("t", table, labels=labels, ncols=3, sharey=sharey)
    assert (fig.name, fig.format) == ("t", "svg")
    svg = fig.data.decode()
    texts = _texts(svg)
    titles = [t for t in texts if _bold(t[3])]
    assert [t[0] for t in titles] == ["Gini (weighted)", "Theil ×1000", "PAR"]
    lefts = [t[1] for t in titles]  # a title starts at its panel's left edge
    # x tick labels: the first and last year under every panel
    years = [t for t in texts if "text-anchor: middle" in t[3]]
    assert [t[0] for t in years] == ["2005", "2016"] * 3
    # y tick labels: right-aligned numbers left of a panel (only the first column's when sharey)
    yticks = [t for t in texts if "text-anchor: end" in t[3]]
    by_panel = {}
    for body, x, y, _ in yticks:
        by_panel.setdefault(_panel_of(x + 10, lefts), []).append((float(body.replace("−", "-")), y))
    assert sorted(by_panel) == ([0] if sharey else [0, 1, 2])
    assert all(len(v) >= 3 for v in by_panel.values())
    # the markers: one per drawn estimate, in data order, each at the height its panel's ticks give
    marks = [(float(x), float(y)) for _, x, y in MARKER.findall(svg)]
    data = [(m, g.sort_values("year")) for m, g in table.groupby("measure", sort=False)]
    expected = [(i, yr, e) for i, (_, g) in enumerate(data) for yr, e in zip(g["year"], g["estimate"])
                if np.isfinite(e)]
    assert len(marks) == len(expected) == 35
    gaps = []
    for (panel, year, value), (mx, my) in zip(expected, marks):
        assert _panel_of(mx, lefts) == panel
        ticks = np.array(by_panel[0 if sharey else panel])
        slope, intercept = np.polyfit(ticks[:, 0], ticks[:, 1], 1)  # a label's SVG y for a value
        assert np.allclose(ticks[:, 1], slope * ticks[:, 0] + intercept, atol=1e-3)
        # a label's y is its baseline, the same distance below its tick for every label (same font): so the
        # marker of a value sits that same distance above where a label of the value would be written
        gaps.append(slope * value + intercept - my)
        first, last = [t[1] for t in years[2 * panel:2 * panel + 2]]  # SVG x of 2005 and 2016
        assert mx == pytest.approx(first + (year - 2005) / 11 * (last - first), abs=0.02)
    assert 0 < np.mean(gaps) < 7 * 0.5 and np.ptp(gaps) < 0.02  # 7 px labels: half their size at most
    if sharey:  # one scale for all: its ticks span every panel's values (within one tick step)
        values = np.sort([v for v, _ in by_panel[0]])
        step = values[1] - values[0]
        assert values[0] <= table["lower"].min() + step and values[-1] >= table["upper"].max() - step


def test_small_multiples_reference_line_and_long_titles():
    table = _table()
    table = table[table["measure"] != "par"]
    reference = pd.DataFrame({"year": np.arange(2003, 2019), "estimate": np.linspace(0.3, 0.1, 16)})
    long = "A measure with a name far longer than a panel is wide"
    fig = small_multiples("r", table, labels={"gini": long}, ncols=2, reference=reference)
    svg = fig.data.decode()
    titles = [t[0] for t in _texts(svg) if _bold(t[3])]
    assert titles == [long[:33] + "…", "ti"]
    assert svg.count("stroke-dasharray") >= 1  # the reference line, dashed
    # the reference is cut at each panel's x range: no vertex left of a panel's first year tick - 0.5 year
    years = [t for t in _texts(svg) if "text-anchor: middle" in t[3]]
    per_year = (years[1][1] - years[0][1]) / 11
    dashed = re.search(r'<path d="([^"]+)"[^>]*\n?[^>]*stroke-dasharray', svg)
    assert dashed is not None
    xs = [float(v) for v in re.findall(r"[ML] ?([-\d.]+) ", dashed.group(1))]
    assert min(xs) >= years[0][1] - 0.5 * per_year - 0.01


def test_visible_polygons_paint_the_same_pixels_as_every_polygon(monkeypatch):
    reg = get_registry("CL")
    units = reg.units["unit"].astype(str).tolist()
    inset = reg.units.loc[reg.units["region"].astype(str) == "13", "unit"].astype(str).tolist()
    canvas = F.MapCanvas(reg.polygons(), units, inset_region_units=inset, offshore=F.CHILE_OFFSHORE)
    rng = np.random.default_rng(3)
    colours = {u: F.SEQUENTIAL[i] for u, i in zip(units, rng.integers(0, 5, len(units)))}
    legend = list(zip(F.SEQUENTIAL, "abcde"))
    fast = canvas.render("m", colours, legend, title="T", legend_title="L", inset_title="I")
    shown = [coll.visible() for coll in canvas.collections]
    assert len(shown) == 4 and all(0 < k.sum() < len(k) for k in shown)  # each panel paints a part only
    painted = set(np.asarray(canvas._poly_unit, dtype=object)[np.logical_or.reduce(shown)])
    assert painted == set(canvas.drawn) and len(canvas.drawn) >= 340  # every commune on the map is painted
    slow_canvas = F.MapCanvas(reg.polygons(), units, inset_region_units=inset, offshore=F.CHILE_OFFSHORE)
    monkeypatch.setattr(map_polygons.VisiblePolygons, "visible", lambda self: np.ones(len(self._boxes), bool))
    slow = slow_canvas.render("m", colours, legend, title="T", legend_title="L", inset_title="I")
    assert fast.data == slow.data


def test_png_bytes_are_matplotlibs_pixels():
    from PIL import Image

    from brecha.report.png_bytes import png_bytes

    fig = F._new_figure(4, 3)
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
        with F._rc():
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


def test_joinpoint_multiples_draw_every_rate_segment_and_joinpoint_where_the_axes_say():
    """The joinpoint small multiples (`trends --plot`, the report's regions) drawn without an Axes per panel:
    titles, the first and last year under each panel, y labels on the first column only; every observed rate
    at the height its row's tick labels give and at its year; each segment's APC (starred when p < alpha); a
    dotted line at each joinpoint's year, the panel's full height."""
    from brecha.report.figures_joinpoint import joinpoint_multiples

    fits, names = _brazil_region_fits()
    codes = list(fits)
    assert sum(len(f["joinpoints"]) for f in fits.values()) >= 5
    fig = joinpoint_multiples("j", fits, labels=names, apc_label="APC", fmt=lambda v: f"{v:.1f}", alpha=0.05)
    svg = fig.data.decode()
    texts = _texts(svg)
    titles = [t for t in texts if _bold(t[3])]
    assert [t[0] for t in titles] == [names[c] for c in codes]
    lefts = sorted({round(t[1], 3) for t in titles})
    years = [t for t in texts if "text-anchor: middle" in t[3] and re.fullmatch(r"\d{4}", t[0])]
    assert [t[0] for t in years] == ["2000", "2019"] * len(codes)
    notes = [t[0] for t in texts if "text-anchor: middle" in t[3] and not re.fullmatch(r"\d{4}", t[0])]
    want = [f"{a:.1f}{'*' if p < 0.05 else ''}" for c in codes
            for a, p in zip(fits[c]["segments"]["apc"], fits[c]["segments"]["p_value"])]
    assert notes == want
    # y labels: left of the first column only, one set per row (ncols = 4: rows of panels 0-3 and 4)
    yticks = [t for t in texts if "text-anchor: end" in t[3]]
    assert {_panel_of(x + 10, lefts) for _, x, _, _ in yticks} == {0}
    row_tops = sorted({round(t[2], 1) for t in titles})
    rows = {}
    for body, _, y, _ in yticks:
        rows.setdefault(sum(y > top for top in row_tops) - 1, []).append((float(body.replace("−", "-")), y))
    assert sorted(rows) == [0, 1]
    marks = [(float(x), float(y)) for _, x, y in MARKER.findall(svg)]
    assert len(marks) == sum(len(f["rate"]) for f in fits.values())
    gaps, k = [], 0
    for i, code in enumerate(codes):
        ticks = np.array(rows[i // 4])
        slope, intercept = np.polyfit(ticks[:, 0], ticks[:, 1], 1)
        first, last = years[2 * i][1], years[2 * i + 1][1]
        for year, rate in zip(fits[code]["observed_year"], fits[code]["rate"]):
            mx, my = marks[k]
            k += 1
            assert _panel_of(mx, lefts) == i % 4
            assert mx == pytest.approx(first + (year - 2000) / 19 * (last - first), abs=0.02)
            gaps.append(slope * rate + intercept - my)
    assert 0 < np.mean(gaps) < 7 * 0.5 and np.ptp(gaps) < 0.02
    # the joinpoints: dotted vertical lines at their years, as tall as the panel's y axis
    dotted = re.findall(r'<path d="M ([-\d.]+) ([-\d.]+) \s*L ([-\d.]+) ([-\d.]+) \s*" style="[^"]*stroke-dasharray',
                        svg)
    want_x, spans, k = [], [], 0
    for i, code in enumerate(codes):
        first, last = years[2 * i][1], years[2 * i + 1][1]
        want_x += [first + (jp - 2000) / 19 * (last - first) for jp in fits[code]["joinpoints"]]
        ys = [y for _, y in marks[k:k + len(fits[code]["rate"])]]
        k += len(fits[code]["rate"])
        spans += [(min(ys), max(ys))] * len(fits[code]["joinpoints"])
    assert len(dotted) == len(want_x)
    lengths = []
    for (x0, y0, x1, y1), x, (low, high) in zip(dotted, want_x, spans):
        x0, y0, x1, y1 = map(float, (x0, y0, x1, y1))
        assert x0 == pytest.approx(x, abs=0.02) and x1 == x0
        assert min(y0, y1) < low and max(y0, y1) > high  # past every rate of its panel, above and below
        lengths.append(abs(y1 - y0))
    assert np.ptp(lengths) < 1e-3  # every panel's full height, the same for all
