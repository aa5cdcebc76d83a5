"""The report's polygon maps written as SVG (brecha.report.polygon_map): what each panel shows, where, and in
which colour; checked against the GeoJSON and against the dashboard's own projection of it."""
import math
import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from brecha.registry import get_registry
from brecha.report import figures as F
from brecha.report.dashboard.shapes import polygon_paths
from brecha.report.polygon_map import PolygonMap, rings_of
from svg_read import matplotlib_loaded_by

NS = {"s": "http://www.w3.org/2000/svg"}


@pytest.fixture(scope="module")
def chile():
    reg = get_registry("CL")
    units = reg.units["unit"].astype(str).tolist()
    inset = reg.units.loc[reg.units["region"].astype(str) == "13", "unit"].astype(str).tolist()
    return reg, units, inset, PolygonMap(reg.polygons(), units, inset_region_units=inset, offshore=F.CHILE_OFFSHORE)


def _panels(svg_bytes):
    """Each clipped panel: its clip rectangle, its transform matrix, and its paths (fill, d)."""
    root = ET.fromstring(svg_bytes)
    clips = {c.get("id"): c.find("s:rect", NS) for c in root.iter("{http://www.w3.org/2000/svg}clipPath")}
    out = []
    for g in root.findall("s:g", NS):
        if not g.get("clip-path"):
            continue
        rect = clips[g.get("clip-path")[5:-1]]
        inner = g.find("s:g", NS)
        matrix = [float(v) for v in re.findall(r"[-\d.e]+", inner.get("transform"))]
        paths = [(p.get("fill"), p.get("d")) for p in inner.findall("s:path", NS)]
        out.append(({k: float(rect.get(k)) for k in ("x", "y", "width", "height")}, matrix, paths))
    return root, out


def test_every_commune_is_painted_in_its_colour(chile):
    reg, units, inset, canvas = chile
    rng = np.random.default_rng(3)
    colours = {u: F.SEQUENTIAL[i] for u, i in zip(units, rng.integers(0, 5, len(units)))}
    del colours[canvas.drawn[0]]  # a unit without a colour is light grey
    fig = canvas.render("m", colours, list(zip(F.SEQUENTIAL, "abcde")), title="T", legend_title="L",
                        inset_title="I")
    assert fig.format == "svg" and fig.filename == "m.svg"
    root, panels = _panels(fig.data)
    assert len(panels) == 4  # three latitude bands and the Santiago inset
    paths = {d: fill for _, _, shown in panels for fill, d in shown}
    by_unit = dict(zip(canvas.drawn, [None] * len(canvas.drawn)))
    expected = polygon_paths(reg.polygons(), units, offshore=F.CHILE_OFFSHORE)["paths"]
    for unit, d in expected.items():  # the dashboard's projection of the same polygons: the same path text
        assert d in paths, unit
        by_unit[unit] = paths[d]
    assert by_unit[canvas.drawn[0]] == F.MISSING
    assert all(by_unit[u] == colours[u] for u in canvas.drawn[1:])
    assert set(canvas.offshore) == set(F.CHILE_OFFSHORE)
    assert len(canvas.drawn) + len(canvas.missing_shapes) + 2 == len(units) and len(canvas.drawn) >= 340
    assert set(canvas.missing_shapes) == set(units) - set(expected) - set(F.CHILE_OFFSHORE)
    band_counts = [len(shown) for _, _, shown in panels[:3]]
    assert all(0 < n < len(canvas.drawn) for n in band_counts)  # each band paints a part of the country only
    texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert texts[:1] == ["I"] and {"L", "a", "e", "T"} <= set(texts)
    legend = [r.get("fill") for r in root.findall("s:rect", NS)][1:]  # after the white ground
    assert F.SEQUENTIAL == [c for c in legend if c in F.SEQUENTIAL]


def test_projection_and_panels_follow_the_polygons(chile):
    """A commune's first point is where the projection puts it, and the inset's transform puts every
    Santiago commune inside the inset's frame, filling its width or its height (2 % margin)."""
    reg, units, inset, canvas = chile
    geo = reg.polygons()
    rings = {}
    for f in geo["features"]:
        code = str(f["properties"].get("unit", "")).zfill(5)
        if code in canvas.drawn:
            rings.setdefault(code, []).extend(rings_of(f["geometry"]))
    pts = np.concatenate([r for rs in rings.values() for r in rs])
    lon0, lat1 = pts[:, 0].min(), pts[:, 1].max()
    k = math.cos(math.radians((pts[:, 1].min() + lat1) / 2))
    fig = canvas.render("m", {}, [], title="T")
    _, panels = _panels(fig.data)
    box, matrix, shown = panels[3]
    scale, tx = matrix[0], matrix[4]
    starts = {d: tuple(int(v) for v in re.match(r"M(-?\d+) (-?\d+)", d).groups()) for _, d in shown}
    for unit in inset:
        ring = rings[unit][0]
        x, y = round((ring[0, 0] - lon0) * k * 1000), round((lat1 - ring[0, 1]) * 1000)
        d = next(d for d, s in starts.items() if s == (x, y))
        every = np.array([[float(a), float(b)] for a, b in re.findall(r"(-?\d+) (-?\d+)", d)])
        absolute = np.cumsum(every, axis=0)  # M then relative steps, each ring restarting with its M
        assert (absolute[:, 0] * scale + tx >= box["x"] - 1).all() or len(rings[unit]) > 1
    sx = box["width"] / scale
    sy = box["height"] / scale
    b = np.array([[(r[:, 0].min() - lon0) * k, lat1 - r[:, 1].max(), (r[:, 0].max() - lon0) * k, lat1 - r[:, 1].min()]
                  for u in inset for r in rings[u]]) * 1000
    span_x, span_y = b[:, 2].max() - b[:, 0].min(), b[:, 3].max() - b[:, 1].min()
    fill = max(span_x * 1.04 / sx, span_y * 1.04 / sy)
    assert fill == pytest.approx(1.0, abs=2e-3)  # the region, with its margin, fills the frame one way
    left = b[:, 0].min() * scale + tx
    right = b[:, 2].max() * scale + tx
    assert box["x"] - 0.5 <= left and right <= box["x"] + box["width"] + 0.5


def test_a_region_alone_is_one_panel_without_inset():
    reg = get_registry("CL")
    units = reg.units.loc[reg.units["region"].astype(str) == "09", "unit"].astype(str).tolist()
    canvas = PolygonMap(reg.polygons(), units, inset_region_units=[], offshore=F.CHILE_OFFSHORE)
    fig = canvas.render("m", {u: "#7f2704" for u in units}, [("#7f2704", "x")], title="Araucanía")
    _, panels = _panels(fig.data)
    assert len(panels) == 1 and len(panels[0][2]) == len(units) == 32
    assert panels[0][0]["width"] <= 6 * 72 + 1e-6
    assert {fill for fill, _ in panels[0][2]} == {"#7f2704"}


def test_no_polygons_for_the_units_draws_nothing():
    reg = get_registry("CL")
    canvas = PolygonMap(reg.polygons(), ["99999"], offshore=F.CHILE_OFFSHORE)
    assert canvas.fig is None and canvas.missing_shapes == ["99999"]
    assert canvas.render("m", {}, []) is None


def test_maps_are_drawn_without_matplotlib():
    code = ("from brecha.registry import get_registry\n"
            "from brecha.report import figures as F\n"
            "from brecha.report.polygon_map import PolygonMap\n"
            "reg = get_registry('CL')\n"
            "u = reg.units['unit'].astype(str).tolist()\n"
            "fig = PolygonMap(reg.polygons(), u, offshore=F.CHILE_OFFSHORE).render('m', {}, [('#fff', 'a')])\n"
            "assert fig.data.startswith(b'<?xml')\n")
    assert matplotlib_loaded_by(code) == []


def _text_extents(svg_bytes):
    """Each unrotated text's left and right ends in points (anchor and DejaVu Sans widths), and the width."""
    from brecha.report.svg import text_width

    root = ET.fromstring(svg_bytes)
    out = []
    for t in root.iter("{http://www.w3.org/2000/svg}text"):
        w = text_width(t.text, float(t.get("font-size")), t.get("font-weight") == "bold")
        x = float(t.get("x")) - {"start": 0, "middle": w / 2, "end": w}[t.get("text-anchor", "start")]
        out.append((t.text, x, x + w))
    return out, float(root.get("viewBox").split()[2])


def test_a_long_legend_label_or_title_widens_the_map(chile):
    """The trend map's "sin clasificar (demasiados años sin muertes)" passed the picture's right edge."""
    reg, units, inset, canvas = chile
    legend = [("#2f6690", "decreciente"), ("#f7e9c6", "sin clasificar (demasiados años sin muertes)")]
    fig = canvas.render("m", {}, legend, title="Tendencia 2000-2015")
    texts, width = _text_extents(fig.data)
    assert width > canvas.width
    assert all(right <= width for _, _, right in texts)
    long_title = "Probabilidad de que la tasa suavizada supere la tasa nacional de referencia 2000-2015 " * 2
    fig = canvas.render("m", {}, [("#fff", "a")], title=long_title)
    texts, width = _text_extents(fig.data)
    assert all(right <= width for _, _, right in texts)
