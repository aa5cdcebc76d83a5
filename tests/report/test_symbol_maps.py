"""Maps without polygons (brecha.report.symbol_maps): proportional symbols and the tile grid."""
import io

import numpy as np
import pandas as pd

from brecha import datasets
from brecha.registry import get_registry
from brecha.report.symbol_maps import (BRAZIL_STATE_TILES, SymbolCanvas, TileCanvas, canvas_without_polygons,
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
    assert fig.data[:8] == b"\x89PNG\r\n\x1a\n"
    faces = canvas.collection.get_facecolors()
    i = canvas.order.index("34")
    assert np.allclose(faces[i][:3], [0x7f / 255, 0x27 / 255, 0x04 / 255])
    # drawn from the largest to the smallest: Buenos Aires (06) first, Tierra del Fuego (94) last
    assert canvas.order[0] == "06" and canvas.order[-1] == "94"


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
    fig = canvas.render("m", {}, [("#f2f2f2", "no data")])
    assert fig.format == "png" and len(io.BytesIO(fig.data).getvalue()) > 1000
