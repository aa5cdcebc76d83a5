"""The report's charts written as SVG text by brecha (issue 19: no matplotlib in the report's charts).

Every check reads the SVG back with ``xml.etree`` and recovers the axes' scales from the tick labels the
chart wrote (a label's value and its position), never from the code that drew it; then each mark (line
vertex, band, box, dot, bar, error bar) must sit where those scales put its data value, to 0.01 pt.
matplotlib is the independent reference for the tick rule (``MaxNLocator``) and the box plot's whiskers
(``boxplot_stats``).
"""
import math
import xml.etree.ElementTree as ET

import numpy as np
import pandas as pd
import pytest

from brecha.report import figures as F
from brecha.report import figures_gap_where as G
from brecha.report.svg_axes import log_ticks, nice_ticks, tick_labels
from svg_read import NS, lang, matplotlib_loaded_by, number, parse, paths, pieces, texts  # noqa: F401 - lang: a fixture
from svg_read import dots as circles

CENTER, TOP = 0.36, 0.76  # a text's baseline below its centre / its top, in ems (brecha.report.svg)
TOL = 0.02  # coordinates are written to 0.01 pt: a position and the tick scale each rounded


# ------------------------------------------------------------------------------------------ reading


def y_scale(root):
    """value -> y of the y axis, from its tick labels (right-aligned, centred on their ticks)."""
    ticks = [(number(t["text"]), t["y"] - CENTER * t["size"]) for t in texts(root)
             if t["anchor"] == "end" and not t["rotated"]]
    return _line_through(ticks)


def x_scale(root, *, log: bool = False, numeric: bool = True):
    """value -> x of the x axis, from its tick labels (centred under their ticks)."""
    ticks = [(number(t["text"]), t["x"]) for t in x_ticks(root)] if numeric else []
    if log:
        ticks = [(math.log10(v), x) for v, x in ticks]
        to_x = _line_through(ticks)
        return lambda v: to_x(np.log10(v))
    return _line_through(ticks)


def x_ticks(root) -> list[dict]:
    """The x tick labels: the lowest row of centred texts above the axis title (those with the same y)."""
    middle = [t for t in texts(root) if t["anchor"] == "middle" and not t["rotated"]]
    first_row = min(t["y"] for t in middle)
    return [t for t in middle if abs(t["y"] - first_row) < 0.01]


def _line_through(ticks):
    assert len(ticks) >= 2, ticks
    (v0, p0), (v1, p1) = ticks[0], ticks[-1]
    slope = (p1 - p0) / (v1 - v0)
    for v, p in ticks:  # every tick on the same straight line: a linear axis
        assert p == pytest.approx(p0 + (v - v0) * slope, abs=0.02)
    return lambda v: p0 + (np.asarray(v, dtype=float) - v0) * slope


def rects(root, fill: str) -> list[dict]:
    return [{k: float(r.get(k)) for k in ("x", "y", "width", "height")} for r in root.iter(NS + "rect")
            if r.get("fill") == fill]


# --------------------------------------------------------------------------------------------- ticks

def test_nice_ticks_by_hand():
    assert nice_ticks(0, 9.6, 6).tolist() == [0, 2, 4, 6, 8]
    assert nice_ticks(0, 100, 4).tolist() == [0, 25, 50, 75, 100]
    assert nice_ticks(-0.027, 0.0046, 7).tolist() == pytest.approx([-0.025, -0.02, -0.015, -0.01, -0.005, 0])
    assert nice_ticks(0.1, 0.35, 5).tolist() == [0.1, 0.15, 0.2, 0.25, 0.3, 0.35]
    assert nice_ticks(5, 5, 4).tolist() == [5]
    assert len(nice_ticks(np.nan, 1, 4)) == 0


@pytest.mark.parametrize("lo, hi, bins", [(0, 9.6, 6), (0, 11.3, 4), (-153.2, 121.9, 5), (0.1981, 0.2387, 4),
                                          (2.31, 2.87, 6), (-0.0272, 0.0046, 4), (0, 100, 5), (3, 2e5, 9),
                                          (1.7, 7.3, 7), (0.003, 0.0171, 5)])
def test_nice_ticks_as_matplotlib(lo, hi, bins):
    from matplotlib.ticker import MaxNLocator

    theirs = MaxNLocator(bins, steps=[1, 2, 2.5, 5, 10]).tick_values(lo, hi)
    theirs = theirs[(theirs >= lo - 1e-12) & (theirs <= hi + 1e-12)]
    assert nice_ticks(lo, hi, bins) == pytest.approx(theirs, abs=1e-12)


def test_log_ticks_by_hand():
    labelled, minor = log_ticks(30, 90_000)  # 3.5 decades: only the powers of ten labelled
    assert labelled.tolist() == [100, 1000, 10_000]
    assert minor.tolist()[:3] == [30, 40, 50] and minor.tolist()[-1] == 90_000 and len(minor) == 7 + 8 * 3
    labelled, minor = log_ticks(20, 800)  # fewer than three decades: 1, 2 and 5 times them too
    assert labelled.tolist() == [20, 50, 100, 200, 500]
    assert minor.tolist() == [30, 40, 60, 70, 80, 90, 300, 400, 600, 700, 800]
    assert [len(a) for a in log_ticks(0, 10)] == [0, 0]


def test_tick_labels_in_both_languages():
    assert tick_labels([0, 2.5, 5, 7.5], lang="es") == ["0,0", "2,5", "5,0", "7,5"]
    assert tick_labels([0, 2.5, 5, 7.5], lang="en") == ["0.0", "2.5", "5.0", "7.5"]
    assert tick_labels([100, 1000, 10_000], lang="es") == ["100", "1.000", "10.000"]
    assert tick_labels([100, 1000, 10_000], lang="en") == ["100", "1,000", "10,000"]
    assert tick_labels([-0.02, 0, 0.02], lang="es") == ["−0,02", "0,00", "0,02"]


# -------------------------------------------------------------------------------------------- charts

def _series():
    """Two labels over 2005-2012; the first with its lower bound missing in 2008 (the band broken there)."""
    years = np.arange(2005, 2013)
    a = pd.DataFrame({"label": "Quinto <&> alto", "year": years, "estimate": np.linspace(9, 6, 8)})
    b = pd.DataFrame({"label": "Quinto bajo", "year": years, "estimate": np.linspace(5, 4.3, 8)})
    out = pd.concat([a, b], ignore_index=True)
    out["lower"], out["upper"] = out["estimate"] - 0.8, out["estimate"] + 1.1
    out.loc[3, "lower"] = np.nan
    return out


@pytest.mark.parametrize("language", ["es", "en"])
def test_line_chart_draws_each_value_where_the_ticks_say(lang, language):
    lang(language)
    series = _series()
    root = parse(F.line_chart("t", series, ylabel="TMI", title="Título", note="Nota al pie"))
    assert (root.get("width"), root.get("height")) == ("460.8pt", "230.4pt")
    fy, fx = y_scale(root), x_scale(root)
    labels = [t["text"] for t in texts(root)]
    assert [t["text"] for t in x_ticks(root)] == [str(y) for y in range(2005, 2013)]
    decimal = [t["text"] for t in texts(root) if t["anchor"] == "end"]
    assert not any(("." if language == "es" else ",") in d for d in decimal)  # no value reaches 1.000
    assert {"Título", "Nota al pie", "TMI", "Quinto <&> alto", "Quinto bajo"} <= set(labels)
    assert number(decimal[0]) == 0  # y from 0: no negative value
    for colour, (label, g) in zip((F.ACCENT, F.BLUE), series.groupby("label", sort=False)):
        line = [p for p in paths(root, stroke=colour, stroke_width="2") if p.get("fill") == "none"]
        (vertices,) = pieces(line[0].get("d"))
        assert vertices[:, 0] == pytest.approx(fx(g["year"]), abs=TOL)
        assert vertices[:, 1] == pytest.approx(fy(g["estimate"]), abs=TOL)
        assert circles(root, colour)[:len(g)] == pytest.approx(vertices, abs=TOL)  # then the legend's dot
        band = paths(root, fill=colour, fill_opacity="0.15")
        runs = [g.iloc[:3], g.iloc[4:]] if label.startswith("Quinto <") else [g]
        polygons = [piece for p in band for piece in pieces(p.get("d"))]
        assert len(polygons) == len(runs)
        for run, polygon in zip(runs, polygons):  # along the lower bounds, back on the upper
            n = len(run)
            assert polygon[:n, 1] == pytest.approx(fy(run["lower"]), abs=TOL)
            assert polygon[n:, 1] == pytest.approx(fy(run["upper"])[::-1], abs=TOL)
            assert polygon[:n, 0] == pytest.approx(fx(run["year"]), abs=TOL)


def test_line_chart_with_negative_values_draws_the_zero_line():
    series = pd.DataFrame({"label": "PAR", "year": [2000, 2001, 2002], "estimate": [30.0, -12.0, 8.0]})
    root = parse(F.line_chart("t", series, ylabel="PAR %"))
    fy = y_scale(root)
    zero = [p for p in paths(root, stroke=F.MUTED, stroke_width="0.8") if len(pieces(p.get("d"))) == 1
            and pieces(p.get("d"))[0][0, 1] == pieces(p.get("d"))[0][1, 1]]
    assert [pieces(p.get("d"))[0][0, 1] for p in zero] == pytest.approx([float(fy(0))], abs=TOL)
    assert not any(t["text"] == "PAR" for t in texts(root) if not t["rotated"])  # one label: no legend


def test_distribution_chart_boxes_are_the_percentiles():
    from matplotlib.cbook import boxplot_stats

    rng = np.random.default_rng(3)
    rates = pd.DataFrame({"year": np.repeat([2010, 2011, 2012], 57), "estimate": rng.gamma(3, 3, 171)})
    rates.loc[5, "estimate"] = np.nan
    national = pd.DataFrame({"year": [2010, 2011, 2012], "estimate": [8.0, 7.5, 7.0]})
    root = parse(F.distribution_chart("d", rates, ylabel="TMI", national=national, national_label="País"))
    fy, fx = y_scale(root), x_scale(root)
    boxes = sorted(rects(root, "#fde0c5"), key=lambda r: r["x"])
    medians = [pieces(p.get("d"))[0] for p in paths(root, stroke=F.INK, stroke_width="1.2")]
    whiskers = [pieces(p.get("d")) for p in paths(root, stroke=F.MUTED, stroke_width="1")]  # per box: 2 + caps
    assert len(boxes) == 3 and len(medians) == 3
    for i, year in enumerate([2010, 2011, 2012]):
        values = rates.loc[rates["year"] == year, "estimate"].dropna().to_numpy()
        q1, median, q3 = np.percentile(values, [25, 50, 75])  # numpy's linear interpolation
        box = boxes[i]
        assert (box["y"], box["y"] + box["height"]) == pytest.approx((fy(q3), fy(q1)), abs=TOL)
        assert (box["x"], box["x"] + box["width"]) == pytest.approx((fx(year - 0.3), fx(year + 0.3)), abs=TOL)
        assert medians[i][:, 1] == pytest.approx([fy(median)] * 2, abs=TOL)
        stats = boxplot_stats(values, whis=(5, 95))[0]  # matplotlib's rule: the extreme values inside 5-95
        low_end, high_end = whiskers[i][0][1, 1], whiskers[i][1][1, 1]
        assert (low_end, high_end) == pytest.approx((fy(stats["whislo"]), fy(stats["whishi"])), abs=TOL)
        p5, p95 = np.percentile(values, [5, 95])
        assert fy(p5) + 0.01 >= low_end and high_end >= fy(p95) - 0.01
    assert circles(root, F.ACCENT)[:3, 1] == pytest.approx(fy(national["estimate"]), abs=TOL)  # + legend
    assert "País" in [t["text"] for t in texts(root)]


def _funnel_table():
    births = np.geomspace(40, 60_000, 60)
    rate = 8 + 40 / np.sqrt(births) * np.sin(np.arange(60) * 1.7) * 3
    upper, lower = 8 + 50 / np.sqrt(births), 8 - 50 / np.sqrt(births)
    return pd.DataFrame({"births": births, "estimate": rate, "target": 8.0, "lower_95": lower, "upper_95": upper,
                         "lower_998": 8 - 80 / np.sqrt(births), "upper_998": 8 + 80 / np.sqrt(births),
                         "flag": np.where(rate > upper, "high", np.where(rate < lower, "low", "")),
                         "name": [f"Comuna {i}" for i in range(60)]})


@pytest.mark.parametrize("language, thousands", [("es", ["1.000", "10.000"]), ("en", ["1,000", "10,000"])])
def test_funnel_plot_on_a_log_axis(lang, language, thousands):
    lang(language)
    table = _funnel_table()
    root = parse(F.funnel_plot("f", table, xlabel="Nacimientos", ylabel="TMI", highlight=3))
    assert [t["text"] for t in x_ticks(root)] == ["100", *thousands]
    fx, fy = x_scale(root, log=True), y_scale(root)
    high, low = table["flag"] == "high", table["flag"] == "low"
    grey = ~high & ~low
    assert circles(root, "#9aa5b1") == pytest.approx(np.c_[fx(table.births[grey]), fy(table.estimate[grey])],
                                                      abs=TOL)
    assert circles(root, F.ACCENT) == pytest.approx(np.c_[fx(table.births[high]), fy(table.estimate[high])],
                                                     abs=TOL)
    assert circles(root, F.BLUE)[:, 0] == pytest.approx(fx(table.births[low]), abs=TOL)
    assert len(paths(root, stroke=F.MUTED, stroke_dasharray="3.7,1.6")) == 2 + 1  # two limits, the legend's
    solid = [p for p in paths(root, stroke=F.MUTED, stroke_width="1") if p.get("stroke-dasharray") is None]
    assert len(solid) == 2 + 1
    upper = pieces(paths(root, stroke=F.MUTED, stroke_dasharray="3.7,1.6")[1].get("d"))[0]
    assert upper[:, 1] == pytest.approx(fy(table["upper_95"]), abs=TOL)
    expected = table[high].sort_values("estimate", ascending=False)["name"].head(3).tolist()
    assert [t["text"] for t in texts(root) if t["size"] == 6.5] == expected
    assert {"95%", "99.8%"} <= {t["text"] for t in texts(root)}
    top = number([t for t in texts(root) if t["anchor"] == "end"][-1]["text"])
    assert top <= max(np.percentile(table["estimate"], 99.5) * 1.1, 1)


def test_funnel_names_near_the_right_edge_stay_inside_the_plot():
    """A flagged unit with the most births sits at the plot's right edge: its name, written to the right of
    its dot, ran past the picture's edge; it is written to the left of the dot instead."""
    from brecha.report.svg import text_width

    table = _funnel_table()
    biggest = table["births"].idxmax()
    table.loc[biggest, ["estimate", "flag", "name"]] = [30.0, "high", "Pedro Aguirre Cerda del Norte"]
    root = parse(F.funnel_plot("f", table, xlabel="Nacimientos", ylabel="TMI", highlight=3))
    fx, fy = x_scale(root, log=True), y_scale(root)
    width = float(root.get("viewBox").split()[2])
    name = next(t for t in texts(root) if t["text"] == "Pedro Aguirre Cerda del Norte")
    right = name["x"] + text_width(name["text"], 6.5)
    assert right <= width and right == pytest.approx(fx(table.births[biggest]) - 3, abs=TOL)
    assert name["y"] == pytest.approx(fy(30.0) - 2, abs=TOL)
    others = [t for t in texts(root) if t["size"] == 6.5 and t is not name]
    assert all(t["x"] + text_width(t["text"], 6.5) <= width for t in others)


def test_stacked_shares_add_up_to_the_total():
    shares = pd.DataFrame({"year": [2010, 2011, 2012], "between": [0.2, 0.35, np.nan], "within": [0.8, 0.65, 0.9]})
    root = parse(G.stacked_shares("s", shares, labels={"between": "Entre", "within": "Dentro"}, ylabel="%"))
    fy, fx = y_scale(root), x_scale(root)
    between, within = rects(root, F.ACCENT), rects(root, F.BLUE)
    legend_patches = 1
    assert len(between) == 2 + legend_patches and len(within) == 3 + legend_patches
    for year, b, w, total in zip([2010, 2011], between, within, [100, 100]):
        assert b["height"] + w["height"] == pytest.approx(fy(0) - fy(total), abs=0.02)
        assert b["y"] + b["height"] == pytest.approx(fy(0), abs=TOL)
        assert w["y"] + w["height"] == pytest.approx(b["y"], abs=TOL)
        assert b["x"] + b["width"] / 2 == pytest.approx(fx(year), abs=TOL)
    assert within[2]["height"] == pytest.approx(fy(0) - fy(90), abs=TOL)  # a missing share counts 0
    legend = [t for t in texts(root) if t["text"] in ("Entre", "Dentro")]
    assert len({round(t["y"], 2) for t in legend}) == 1  # one row: a column per component
    assert min(t["y"] for t in legend) > max(t["y"] for t in x_ticks(root))  # under the axis


@pytest.mark.parametrize("language, ticks", [
    ("es", ["−0,025", "−0,020", "−0,015", "−0,010", "−0,005", "0,000", "0,005"]),
    ("en", ["−0.025", "−0.020", "−0.015", "−0.010", "−0.005", "0.000", "0.005"])])
def test_contributions_bars_and_intervals(lang, language, ticks):
    lang(language)
    table = pd.DataFrame({"label": ["pobreza (%)", "escolaridad", "Residuo"], "contribution": [-0.013, 0.004, 0.001],
                          "lower": [-0.025, 0.001, np.nan], "upper": [-0.001, 0.006, np.nan]})
    figure = G.contributions_chart("c", table, xlabel="Aporte")
    root = parse(figure)
    assert root.get("height") == f"{(0.45 * 3 + 1) * 72:g}pt"
    assert [t["text"] for t in x_ticks(root)] == ticks  # the decimal mark of the report's language
    fx = x_scale(root)
    negative, positive = rects(root, F.ACCENT), rects(root, F.BLUE)
    assert len(negative) == 1 and len(positive) == 2
    assert (negative[0]["x"], negative[0]["x"] + negative[0]["width"]) == pytest.approx((fx(-0.013), fx(0)), abs=TOL)
    assert positive[0]["width"] == pytest.approx(fx(0.004) - fx(0), abs=TOL)
    bars = [pieces(p.get("d")) for p in paths(root, stroke=F.INK, stroke_width="1")]
    assert len(bars) == 3  # the third has no interval: a line of no length at its value
    for (line, left_cap, right_cap), row in zip(bars[:2], table.itertuples()):
        assert line[:, 0] == pytest.approx([fx(row.lower), fx(row.upper)], abs=TOL)
        assert left_cap[1, 1] - left_cap[0, 1] == pytest.approx(6)
    assert bars[2][0][:, 0] == pytest.approx([fx(0.001)] * 2, abs=TOL)
    category = sorted((t for t in texts(root) if t["anchor"] == "end"), key=lambda t: t["y"])
    assert [t["text"] for t in category] == table["label"].tolist()  # the first at the top
    from brecha.report.svg import text_width

    assert min(t["x"] - text_width(t["text"], t["size"]) for t in category) >= 0  # none cut off


def test_scatter_points_and_their_years():
    x, y = [0.16, 0.23, 0.29], [0.226, 0.233, 0.198]
    root = parse(F.scatter_chart("s", x, y, xlabel="Gini x", ylabel="Gini y", labels=[2006, 2007, 2008]))
    fx, fy = x_scale(root), y_scale(root)
    points = circles(root, F.ACCENT)
    assert points == pytest.approx(np.c_[fx(x), fy(y)], abs=TOL)
    years = [t for t in texts(root) if t["size"] == 7]
    assert [t["text"] for t in years] == ["2006", "2007", "2008"]
    assert np.c_[[t["x"] for t in years], [t["y"] for t in years]] == pytest.approx(points + [3, -2], abs=TOL)


def test_empty_or_missing_inputs_draw_empty_frames():
    empty = pd.DataFrame({"label": [], "year": [], "estimate": []})
    figures = [
        F.line_chart("a", empty, ylabel="Tasa"),
        F.line_chart("b", pd.DataFrame({"label": "x", "year": [2001, 2002], "estimate": [np.nan, np.nan]}),
                     ylabel="Tasa"),
        F.distribution_chart("c", pd.DataFrame({"year": [], "estimate": []}), ylabel="Tasa"),
        F.funnel_plot("d", pd.DataFrame({"births": [], "estimate": []}), xlabel="Nacimientos", ylabel="Tasa"),
        F.scatter_chart("e", [np.nan], [np.nan], xlabel="x", ylabel="Tasa"),
        G.stacked_shares("f", pd.DataFrame({"year": [], "between": []}), labels={"between": "Entre"}, ylabel="Tasa"),
        G.contributions_chart("g", pd.DataFrame({"label": [], "contribution": []}), xlabel="Aporte"),
    ]
    for figure in figures:
        root = parse(figure)
        assert "Tasa" in [t["text"] for t in texts(root)] or "Aporte" in [t["text"] for t in texts(root)]


def test_no_matplotlib_when_drawing_the_charts():
    code = """
import numpy as np, pandas as pd
from brecha.report import figures as F, figures_gap_where as G
s = pd.DataFrame({"label": ["a", "a", "b", "b"], "year": [2001, 2002, 2001, 2002], "estimate": [1.0, 2, 3, 4],
                  "lower": [0.5, 1, 2, 3], "upper": [2.0, 3, 4, 5]})
F.line_chart("a", s, ylabel="y", title="t", note="n")
F.distribution_chart("b", s, ylabel="y", national=s, national_label="n")
b = np.geomspace(10, 1e4, 30)
F.funnel_plot("c", pd.DataFrame({"births": b, "estimate": 8 + np.sin(b), "target": 8.0, "lower_95": 7.0,
                                 "upper_95": 9.0, "flag": "high", "name": "x"}), xlabel="x", ylabel="y")
F.scatter_chart("d", [1, 2], [3, 4], xlabel="x", ylabel="y", labels=[2001, 2002])
G.stacked_shares("e", pd.DataFrame({"year": [2001], "a": [0.5], "b": [0.5]}), labels={"a": "A", "b": "B"},
                 ylabel="%")
G.contributions_chart("f", pd.DataFrame({"label": ["a"], "contribution": [0.1], "lower": [0.0],
                                         "upper": [0.2]}), xlabel="x")
"""
    assert matplotlib_loaded_by(code) == []


def test_points_along_a_line_every_step_segment_by_segment():
    """svg_axes.along (vectorised over segments) against the same points made one segment at a time."""
    from brecha.report.svg_axes import along

    def one_by_one(xs, ys, step=3.0):
        keep = np.isfinite(xs) & np.isfinite(ys)
        out_x, out_y = [xs[keep]], [ys[keep]]
        for x0, y0, x1, y1 in zip(xs[:-1], ys[:-1], xs[1:], ys[1:]):
            if np.isfinite([x0, y0, x1, y1]).all():
                t = np.linspace(0, 1, int(math.hypot(x1 - x0, y1 - y0) // step) + 2)
                out_x.append(x0 + t * (x1 - x0))
                out_y.append(y0 + t * (y1 - y0))
        return np.concatenate(out_x), np.concatenate(out_y)

    rng = np.random.default_rng(2)
    for n in (0, 1, 2, 7, 300):
        xs, ys = np.cumsum(rng.random(n) * 10), rng.random(n) * 100
        if n > 4:
            xs[3] = np.nan  # a missing point breaks the line
        got, want = along(xs, ys), one_by_one(xs, ys)
        assert len(got[0]) == len(want[0])
        assert np.allclose(got[0], want[0]) and np.allclose(got[1], want[1])


def test_control_characters_in_a_name_keep_the_svg_valid():
    """A unit's name read from a user's file may hold a control character XML forbids (a vertical tab): it is
    left out of the figure's text, which stays well-formed; "<" and "&" are escaped."""
    from brecha.report.svg import Svg

    svg = Svg(100, 50, title="Comuna\x0b <1> & co")
    svg.text(10, 10, "San\x0bJuan <&> \x01")
    root = ET.fromstring(svg.to_bytes())
    texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert texts == ["SanJuan <&> "]
    assert root.find("{http://www.w3.org/2000/svg}title").text == "Comuna <1> & co"
