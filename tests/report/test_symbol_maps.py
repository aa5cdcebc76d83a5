"""Maps without polygons (brecha.report.symbol_maps): proportional symbols and the tile grid."""
import xml.etree.ElementTree as ET

import numpy as np
import pandas as pd
import pytest

from brecha import datasets
from brecha.registry import get_registry
from brecha.report.symbol_maps import (BRAZIL_STATE_TILES, MAX_AREA, SymbolCanvas, TileCanvas, canvas_without_polygons,
                                       seats, symbol_areas, tile_positions)


def test_areas_are_proportional_to_births():
    births = pd.Series([100.0, 400.0, 0.0, np.nan], index=list("abcd"))
    areas = symbol_areas(births, max_area=800)
    assert areas.tolist() == [200.0, 800.0, 0.0, 0.0]
    assert areas["b"] / areas["a"] == births["b"] / births["a"]


def test_symbol_map_colours_each_unit():
    panel = datasets.argentina()
    points = seats(panel.units, panel.unit_codes)
    assert len(points) == 24
    births = panel.data.groupby("unit")["births"].sum().astype(float)
    canvas = SymbolCanvas(points, births, size_title="Births")
    colours = {u: "#7f2704" if u == "34" else "#fff5eb" for u in panel.unit_codes}
    fig = canvas.render("map_rate", colours, [("#7f2704", "high"), ("#fff5eb", "low")], title="IMR")
    assert fig.format == "svg" and fig.data.startswith(b"<?xml")
    root = ET.fromstring(fig.data)
    circles = list(root.iter("{http://www.w3.org/2000/svg}circle"))[:len(canvas.order)]  # then the size legend
    assert len(circles) == 24
    i = canvas.order.index("34")
    assert [c.get("fill") for c in circles].count("#7f2704") == 1 and circles[i].get("fill") == "#7f2704"
    # drawn from the largest to the smallest: Buenos Aires (06) first, Tierra del Fuego (94) last
    assert canvas.order[0] == "06" and canvas.order[-1] == "94"
    # areas proportional to births: (2 r)² is the circle's area in points², the largest MAX_AREA
    diameters = pd.Series([2 * float(c.get("r")) for c in circles], index=canvas.order)
    assert diameters["06"] ** 2 == pytest.approx(MAX_AREA, rel=1e-3)
    expected = np.sqrt(MAX_AREA * births.reindex(canvas.order) / births.max())
    assert np.abs(diameters - expected).max() <= 0.011  # radii written to 1/100 point
    texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert {"IMR", "high", "low", "Births"} <= set(texts)


def test_tiles_one_square_per_unit_inside_its_state():
    units = get_registry("BR").units
    pos = tile_positions(units, units["unit"], BRAZIL_STATE_TILES)
    assert len(pos) == 5570 and pos["unit"].is_unique
    assert len(set(BRAZIL_STATE_TILES.values())) == 27 == units["province"].nunique()
    state = pos["unit"].str[:2]
    for code, (col, row) in BRAZIL_STATE_TILES.items():
        mine = pos[state == code]
        assert (mine["x"] >= col).all() and (mine["x"] + mine["size"] <= col + 1 + 1e-9).all()
        assert (mine["y"] <= -row).all() and (mine["y"] >= -row - 1 - 1e-9).all()
        # no two squares of a state overlap
        keys = set(zip((mine["x"] / mine["size"]).round(6), (mine["y"] / mine["size"]).round(6)))
        assert len(keys) == len(mine)


def test_brazil_gets_tiles_argentina_symbols():
    births = pd.Series(dtype=float)
    kind, canvas = canvas_without_polygons(datasets.argentina(), births)
    assert kind == "symbols"

    class Small:   # a panel-like object: 60 Brazilian municipalities of two states, no seats
        country = "BR"
        units = get_registry("BR").units.query("province in ['11', '12']").head(60)
        unit_codes = units["unit"].tolist()

    kind, canvas = canvas_without_polygons(Small, births)
    assert kind == "tiles" and isinstance(canvas, TileCanvas) and len(canvas.units) == 60
    fig = canvas.render("m", {canvas.units[0]: "#7f2704"}, [("#f2f2f2", "no data")])
    assert fig.format == "svg"
    squares = [r for r in ET.fromstring(fig.data).iter("{http://www.w3.org/2000/svg}rect")
               if r.get("width") == r.get("height")]  # not the white ground nor the legend's swatch (oblong)
    assert len(squares) == 60 and [r.get("fill") for r in squares].count("#7f2704") == 1
    # each unit's square sits where tile_positions puts it: equal sides, the same left-to-right order
    pos = tile_positions(Small.units, Small.unit_codes, BRAZIL_STATE_TILES)
    xs = np.array([float(r.get("x")) for r in squares])
    assert np.argsort(xs, kind="stable").tolist() == np.argsort(pos["x"].to_numpy(), kind="stable").tolist()
    assert len({float(r.get("width")) for r in squares}) == pos["size"].nunique()
