"""The report's small multiples and joinpoint figures written as SVG by brecha (issue 19: no matplotlib).

Every check reads the SVG back with ``xml.etree`` and recovers each panel's scales from the tick labels it
wrote (a y label's value and the tick it is centred on; the first and last year under the panel), never from
the code that drew it; each mark (marker, band, reference line, fitted segment, joinpoint, APC note) must sit
where those scales put its data, to 0.01 pt. matplotlib is the independent reference for the panels' grid
(``GridSpec.get_grid_positions``).
"""
import re

import numpy as np
import pandas as pd
import pytest

from brecha.report.figures import ACCENT, BLUE, MUTED
from brecha.report.figures_joinpoint import joinpoint_chart, joinpoint_multiples
from brecha.report.figures_multiples import panel_grid, small_multiples
from svg_read import lang, matplotlib_loaded_by, number, panels, parse, paths, pieces, texts  # noqa: F401 - lang: a fixture
from svg_read import dots as markers

CENTER = 0.36  # a centred text's baseline below its middle, in ems (brecha.report.svg)
TOL = 0.01


# ------------------------------------------------------------------------------------------ reading


def line_through(pairs):
    """value -> position, the straight line through (value, position) pairs (checked to lie on it)."""
    pairs = np.array(pairs, dtype=float)
    assert len(pairs) >= 2
    slope, intercept = np.polyfit(pairs[:, 0], pairs[:, 1], 1)
    assert np.allclose(pairs[:, 1], slope * pairs[:, 0] + intercept, atol=TOL)
    return lambda v: slope * np.asarray(v, dtype=float) + intercept


def y_ticks(panel) -> list[tuple[float, float]]:
    """(value, tick y) of a panel's y labels: right-aligned, centred on their ticks."""
    return [(number(t["text"]), t["y"] - CENTER * t["size"]) for t in texts(panel) if t["anchor"] == "end"]


def year_labels(panel) -> list[dict]:
    return [t for t in texts(panel) if t["anchor"] == "middle" and re.fullmatch(r"\d{4}", t["text"] or "")]


def x_scale(panel):
    """year -> x, from the panel's year labels (centred under their ticks)."""
    return line_through([(int(t["text"]), t["x"]) for t in year_labels(panel)])


def frame(panel) -> tuple[float, float, float, float]:
    """(left, top, right, bottom) of a panel's plot area, from its spines (the MUTED left and bottom lines)."""
    segs = [p for path in paths(panel, stroke=MUTED) for p in pieces(path.get("d"))]
    vertical = max((s for s in segs if s[0, 0] == s[1, 0]), key=lambda s: abs(s[1, 1] - s[0, 1]))
    horizontal = max((s for s in segs if s[0, 1] == s[1, 1]), key=lambda s: abs(s[1, 0] - s[0, 0]))
    return (vertical[0, 0], min(vertical[:, 1]), max(horizontal[:, 0]), max(vertical[:, 1]))


def grid_heights(panel) -> list[float]:
    """The y of the panel's horizontal grid lines, from the panel's top."""
    top = frame(panel)[1]
    segs = [s for path in paths(panel, stroke="#e3e7eb") for s in pieces(path.get("d"))]
    return np.sort([s[0, 1] - top for s in segs if s[0, 1] == s[1, 1]])


def same_heights(found) -> bool:
    """Every panel's horizontal grid lines at the same heights from its top (to 0.01 pt)."""
    heights = [grid_heights(p) for p in found]
    return all(len(h) == len(heights[0]) and np.allclose(h, heights[0], atol=TOL) for h in heights)


# ------------------------------------------------------------------------------------------ small multiples

def _table() -> pd.DataFrame:
    """Four measures 2005-2016: a plain one, one with a missing estimate (2008) and a missing band (2011),
    a negative one, and one with every value missing."""
    years = np.arange(2005, 2017)
    wave = np.sin(np.arange(12) * 1.3)
    rows = []
    for measure, base in (("gini", 0.2), ("ti", 110.0), ("par", -3.0), ("none", np.nan)):
        for i, (y, w) in enumerate(zip(years, wave)):
            e = base + abs(base) * 0.1 * w
            lo, hi = e - abs(base) * 0.05, e + abs(base) * 0.05
            if measure == "ti" and i == 3:
                e = np.nan
            if measure == "ti" and i == 6:
                lo = hi = np.nan
            rows.append({"measure": measure, "year": int(y), "estimate": e, "lower": lo, "upper": hi})
    return pd.DataFrame(rows)


def _y_scales(found, ncols: int, sharey: bool):
    """Each panel's value -> y: from its own labels, or (``sharey``) from its row's first panel's labels."""
    out = []
    for i, panel in enumerate(found):
        own = y_ticks(panel)
        if sharey:
            assert bool(own) == (i % ncols == 0)  # labels on the first column only
        source = found[i - i % ncols] if sharey else panel
        out.append(line_through(y_ticks(source)) if len(y_ticks(source)) >= 2 else None)
    return out


@pytest.mark.parametrize("sharey", [False, True])
def test_every_point_and_band_lies_where_the_panels_tick_labels_say(sharey):
    table = _table()
    labels = {"gini": "Gini (weighted)", "ti": "Theil ×1000", "par": "PAR"}
    fig = small_multiples("t", table, labels=labels, ncols=3, sharey=sharey)
    found = panels(parse(fig))
    assert len(found) == 4
    assert [[t["text"] for t in texts(p) if t["bold"]] for p in found] == [["Gini (weighted)"], ["Theil ×1000"],
                                                                          ["PAR"], ["none"]]
    scales = _y_scales(found, 3, sharey)
    for panel, to_y, (measure, rows) in zip(found, scales, table.groupby("measure", sort=False)):
        assert [t["text"] for t in year_labels(panel)] == ["2005", "2016"]
        to_x = x_scale(panel)
        rows = rows.sort_values("year")
        seen = rows[rows["estimate"].notna()]
        dots = markers(panel, ACCENT)
        assert len(dots) == len(seen)
        if not len(seen):
            assert not paths(panel, fill=ACCENT)  # the all-missing panel: no dot, no band, no line
            continue
        assert np.allclose(dots[:, 0], to_x(seen["year"]), atol=TOL)
        assert np.allclose(dots[:, 1], to_y(seen["estimate"]), atol=TOL)
        line = pieces(paths(panel, stroke=ACCENT)[0].get("d"))
        assert len(line) == (2 if measure == "ti" else 1)  # broken at the missing estimate
        assert np.allclose(np.concatenate(line), dots, atol=1e-9)
        bands = [pieces(p.get("d"))[0] for p in paths(panel, fill=ACCENT)]
        runs = [rows.iloc[:6], rows.iloc[7:]] if measure == "ti" else [rows]
        assert len(bands) == len(runs)
        for band, run in zip(bands, runs):
            n = len(run)
            assert np.allclose(band[:n, 0], to_x(run["year"]), atol=TOL)
            assert np.allclose(band[:n, 1], to_y(run["upper"]), atol=TOL)
            assert np.allclose(band[n:, 0], to_x(run["year"][::-1]), atol=TOL)
            assert np.allclose(band[n:, 1], to_y(run["lower"][::-1]), atol=TOL)
    if sharey:  # one y axis: the same tick heights in every panel, spanning every panel's values
        assert same_heights(found)
        values = [v for v, _ in y_ticks(found[0])]
        step = values[1] - values[0]
        assert values[0] <= table["lower"].min() + step and values[-1] >= table["upper"].max() - step
    else:  # the all-missing panel: axis 0-1
        assert [v for v, _ in y_ticks(found[3])][0] == 0 and [v for v, _ in y_ticks(found[3])][-1] == 1


def test_titles_cut_at_34_characters_and_the_reference_line_clipped_to_each_panel():
    table = _table()
    table = table[table["measure"].isin(["gini", "ti"])]
    reference = pd.DataFrame({"year": np.arange(2003, 2019), "estimate": np.linspace(0.3, 0.1, 16)})
    long = "A measure with a name far longer than a panel is wide"
    found = panels(parse(small_multiples("r", table, labels={"gini": long}, ncols=2, reference=reference)))
    titles = [t for p in found for t in texts(p) if t["bold"]]
    assert [t["text"] for t in titles] == [long[:33] + "…", "ti"] and len(titles[0]["text"]) == 34
    for panel, title in zip(found, titles):
        left, top, _, _ = frame(panel)
        assert title["x"] == pytest.approx(left, abs=TOL) and title["y"] < top  # above the panel, at its left
        to_x, to_y = x_scale(panel), line_through(y_ticks(panel))
        dashed = [p for p in paths(panel, stroke=MUTED) if p.get("stroke-dasharray")]
        assert len(dashed) == 1
        line = pieces(dashed[0].get("d"))[0]
        years = (line[:, 0] - to_x(0)) / (to_x(1) - to_x(0))  # the x scale read backwards
        assert years[0] == pytest.approx(2004.5, abs=1e-3) and years[-1] == pytest.approx(2016.5, abs=1e-3)
        assert np.allclose(years[1:-1], np.arange(2005, 2017), atol=1e-3)
        want = np.interp(years, reference["year"], reference["estimate"])
        assert np.allclose(line[:, 1], to_y(want), atol=TOL)


@pytest.mark.parametrize("language, decimal, thousands", [("es", r"0,\d+", r"\d\.\d{3}"),
                                                          ("en", r"0\.\d+", r"\d,\d{3}")])
def test_tick_labels_in_the_reports_language(lang, language, decimal, thousands):
    lang(language)
    table = _table()
    table = table[table["measure"] == "gini"]
    big = table.assign(measure="births", estimate=table["estimate"] * 10_000, lower=np.nan, upper=np.nan)
    found = panels(parse(small_multiples("l", pd.concat([table, big]), ncols=2)))
    first = [t["text"] for t in texts(found[0]) if t["anchor"] == "end"]
    second = [t["text"] for t in texts(found[1]) if t["anchor"] == "end"]
    assert len(first) >= 3 and all(re.fullmatch(decimal, t) for t in first)
    assert len(second) >= 3 and all(re.fullmatch(thousands, t) for t in second)
    assert all(re.fullmatch(r"\d{4}", t["text"]) for p in found for t in year_labels(p))  # no thousands mark


@pytest.mark.parametrize("n, ncols, row_height, wspace", [(3, 3, 1.9, 0.35), (16, 4, 1.9, 0.35), (5, 4, 2.0, 0.25),
                                                         (1, 1, 1.9, 0.35)])
def test_panel_boxes_are_matplotlibs_grid(n, ncols, row_height, wspace):
    from matplotlib.figure import Figure
    from matplotlib.gridspec import GridSpec

    width, height, boxes = panel_grid(n, ncols, row_height=row_height, wspace=wspace)
    nrows = -(-n // ncols)
    assert (width, height) == pytest.approx(((2.6 * ncols + 0.3) * 72, (row_height * nrows + 0.1) * 72))
    fig = Figure(figsize=(width / 72, height / 72))
    grid = GridSpec(nrows, ncols, left=0.07, right=0.98, bottom=0.1 / nrows, top=1 - 0.16 / nrows, wspace=wspace,
                    hspace=0.6)
    bottoms, tops, lefts, rights = grid.get_grid_positions(fig)
    want = [(lefts[i % ncols] * width, (1 - tops[i // ncols]) * height, rights[i % ncols] * width,
             (1 - bottoms[i // ncols]) * height) for i in range(n)]
    assert np.allclose(boxes, want, atol=1e-9)
    if n == 3:  # and the spines are drawn on those boxes
        found = panels(parse(small_multiples("g", _table()[lambda t: t["measure"] != "none"], ncols=3)))
        assert np.allclose([frame(p) for p in found], want, atol=TOL)


def _extents(root) -> list[tuple[str, float, float]]:
    """Each unrotated text's left and right ends in points (its anchor and DejaVu Sans widths)."""
    from brecha.report.svg import text_width

    out = []
    for t in texts(root):
        if not t["rotated"]:
            w = text_width(t["text"], t["size"], t["bold"])
            left = t["x"] - {"start": 0, "middle": w / 2, "end": w}[t["anchor"]]
            out.append((t["text"], left, left + w))
    return out


def test_one_panel_keeps_its_y_labels_and_the_last_column_its_titles_inside_the_picture():
    """One panel (a study with one measure): the grid's 7 % left margin of a 2.9-in figure is 14.6 pt, and
    the y labels "10,0" and "12,5" started left of the picture; a 34-character title in the last column of
    three ran past its right edge."""
    table = pd.DataFrame({"measure": "gini", "year": np.arange(2000, 2015), "estimate": np.arange(15.0)})
    root = parse(small_multiples("one", table))
    width = float(root.get("viewBox").split()[2])
    ticks = y_ticks(panels(root)[0])
    assert [v for v, _ in ticks][-1] == 12.5
    assert all(left >= 0 and right <= width for _, left, right in _extents(root))
    assert width > (2.6 + 0.3) * 72  # widened for its labels
    long = {m: f"Región de {m} con un nombre muy largo, casi" for m in "abc"}
    table = pd.concat([table.assign(measure=m) for m in "abc"])
    root = parse(small_multiples("three", table, labels=long, ncols=3))
    width = float(root.get("viewBox").split()[2])
    titles = [t for t in _extents(root) if t[0].startswith("Región")]
    assert len(titles) == 3 and [t[0] for t in titles[:2]] == [long[m][:33] + "…" for m in "ab"]
    assert titles[2][0].endswith("…") and len(titles[2][0]) < 34
    assert all(left >= 0 and right <= width for _, left, right in _extents(root))


def test_no_matplotlib_is_imported_to_draw_the_svg_figures():
    code = (
        "import numpy as np, pandas as pd\n"
        "from brecha.report.figures_multiples import small_multiples\n"
        "from brecha.report.figures_joinpoint import joinpoint_chart, joinpoint_multiples\n"
        "t = pd.DataFrame({'measure': ['a'] * 3, 'year': [2000, 2001, 2002], 'estimate': [1.0, 2.0, 1.5]})\n"
        "small_multiples('s', t, reference=t[['year', 'estimate']])\n"
        "seg = pd.DataFrame({'start_year': [2000.0], 'end_year': [2002.0], 'apc': [-1.0], 'p_value': [0.01]})\n"
        "fit = {'year': np.array([2000.0, 2001, 2002]), 'rate': np.array([3.0, 2.9, 2.8]),\n"
        "       'fitted': np.array([3.0, 2.9, 2.8]), 'segments': seg, 'joinpoints': []}\n"
        "joinpoint_chart('c', fit, ylabel='y', apc_label='APC', fmt=str)\n"
        "joinpoint_multiples('m', {'a': fit, 'b': fit}, labels={}, apc_label='APC', fmt=str)\n")
    assert matplotlib_loaded_by(code) == []


# ------------------------------------------------------------------------------------------ joinpoint

def _fit(shift: float = 0.0) -> dict:
    """A fit 2000-2015: -5 %/year to 2005 (p 0.001), -1 % to 2011 (p 0.05: not below alpha), +2 % after (p 0.2);
    the observed rates around the fitted ones."""
    years = np.arange(2000, 2016, dtype=float)
    log_rate = np.log(20 + shift) + np.log(0.95) * np.minimum(years - 2000, 5) \
        + np.log(0.99) * np.clip(years - 2005, 0, 6) + np.log(1.02) * np.maximum(years - 2011, 0)
    fitted = np.exp(log_rate)
    segments = pd.DataFrame({"start_year": [2000.0, 2005.0, 2011.0], "end_year": [2005.0, 2011.0, 2015.0],
                             "apc": [-5.0, -1.0, 2.0], "p_value": [0.001, 0.05, 0.2]})
    return {"year": years, "fitted": fitted, "rate": fitted * (1 + 0.03 * np.sin(years)), "segments": segments,
            "joinpoints": [2005.0, 2011.0]}


def _check_fit(panel, fit, to_y, notes: list[str]) -> None:
    """The panel's rates, segments (ends at the fitted values), APC notes and joinpoints (dotted, full
    height) where its scales put them."""
    to_x = x_scale(panel)
    left, top, right, bottom = frame(panel)
    dots = markers(panel, MUTED)
    assert np.allclose(dots, np.column_stack([to_x(fit["year"]), to_y(fit["rate"])]), atol=TOL)
    lines = [pieces(p.get("d"))[0] for p in paths(panel, stroke=ACCENT)]
    assert len(lines) == len(fit["segments"])
    for line, (_, seg) in zip(lines, fit["segments"].iterrows()):
        inside = fit["year"][(fit["year"] >= seg["start_year"]) & (fit["year"] <= seg["end_year"])]
        assert np.allclose(line[:, 0], to_x(inside), atol=TOL)
        assert np.allclose(line[:, 1], to_y(np.interp(inside, fit["year"], fit["fitted"])), atol=TOL)
    written = [t for t in texts(panel) if t["anchor"] == "middle" and not t["rotated"] and t not in year_labels(panel)]
    assert [t["text"] for t in written] == notes
    for t, (_, seg) in zip(written, fit["segments"].iterrows()):
        mid = (seg["start_year"] + seg["end_year"]) / 2
        at = np.exp(np.interp(mid, fit["year"], np.log(fit["fitted"])))
        assert t["x"] == pytest.approx(float(to_x(mid)), abs=TOL)
        assert t["y"] == pytest.approx(float(to_y(at)) - 7, abs=TOL)  # its baseline 7 pt above the segment
    dotted = [s for p in paths(panel, stroke=BLUE) if p.get("stroke-dasharray") for s in pieces(p.get("d"))]
    assert len(dotted) == len(fit["joinpoints"])
    for line, jp in zip(dotted, fit["joinpoints"]):
        assert np.allclose(line[:, 0], to_x(jp), atol=TOL)
        assert sorted(line[:, 1]) == pytest.approx([top, bottom], abs=TOL)


def test_joinpoint_chart_draws_rates_segments_notes_and_joinpoints_where_its_axes_say(lang):
    lang("en")
    fit = _fit()
    lower, upper = fit["rate"] * 0.9, fit["rate"] * 1.1
    root = parse(joinpoint_chart("c", fit, ylabel="IMR", apc_label="APC", fmt=lambda v: f"{v:.1f}", lower=lower,
                                 upper=upper, alpha=0.05))
    assert float(root.get("width").removesuffix("pt")) == pytest.approx(6.4 * 72)
    assert float(root.get("height").removesuffix("pt")) == pytest.approx(3.4 * 72)
    ticks = y_ticks(root)
    to_y = line_through(ticks)
    assert ticks[0][0] == 0 and ticks[0][1] == pytest.approx(frame(root)[3], abs=TOL)  # y from 0
    assert [t["text"] for t in year_labels(root)] == [str(y) for y in range(2000, 2016, 2)]
    _check_fit(root, fit, to_y, ["APC -5.0 %*", "APC -1.0 %", "APC 2.0 %"])
    bars = [s for p in paths(root, stroke=MUTED) if not p.get("stroke-dasharray") for s in pieces(p.get("d"))
            if len(s) == 2 and s[0, 0] == s[1, 0] and s[0, 1] != s[1, 1]]
    left, _, _, bottom = frame(root)
    bars = [s for s in bars if s[0, 0] > left and s[:, 1].min() < bottom - TOL]  # not the spine, nor a tick
    assert len(bars) == len(fit["year"])
    to_x = x_scale(root)
    for bar, x, lo, hi in zip(bars, fit["year"], lower, upper):
        assert bar[0, 0] == pytest.approx(float(to_x(x)), abs=TOL)
        assert sorted(bar[:, 1]) == pytest.approx(sorted([float(to_y(lo)), float(to_y(hi))]), abs=TOL)


def test_joinpoint_multiples_share_one_y_axis_and_draw_every_fit_where_it_says():
    fits = {f"r{i}": _fit(shift=3.0 * i) for i in range(5)}
    labels = {"r0": "A region with a very long name indeed", "r1": "North"}
    root = parse(joinpoint_multiples("m", fits, labels=labels, apc_label="APC", fmt=lambda v: f"{v:.1f}",
                                     alpha=0.05))
    found = panels(root)
    titles = [t["text"] for p in found for t in texts(p) if t["bold"]]
    assert titles == ["A region with a very long nam…", "North", "r2", "r3", "r4"] and len(titles[0]) == 30
    assert same_heights(found)
    scales = _y_scales(found, 4, sharey=True)
    for panel, to_y, fit in zip(found, scales, fits.values()):
        assert [t["text"] for t in year_labels(panel)] == ["2000", "2015"]
        _check_fit(panel, fit, to_y, ["-5.0*", "-1.0", "2.0"])


def test_joinpoint_figures_for_print_are_matplotlibs_png():
    fit = _fit()
    chart = joinpoint_chart("c", fit, ylabel="IMR", apc_label="APC", fmt=str, fmt_out="png")
    many = joinpoint_multiples("m", {"a": fit, "b": _fit(2.0)}, labels={}, apc_label="APC", fmt=str, fmt_out="png")
    for figure in (chart, many):
        assert figure.format == "png" and figure.data[:8] == b"\x89PNG\r\n\x1a\n"
