"""The canvas every unit map of the report is drawn on: the shipped polygons (with the Santiago region as an
inset on Chile's maps and the far islands set aside), or, for a country without polygons, proportional symbols
at the unit seats or a tile grid (:mod:`brecha.report.symbol_maps`). Used by the maps and spatial sections."""
from __future__ import annotations

from . import figures as F
from .calls import Unavailable
from .formatting import localise
from .labels import LABELS as F_LABELS
from .polygon_map import PolygonMap


def unit_map_canvas(res, page):
    """``(canvas, inset_title, note)`` for the study's units; ``note`` is the caption's sentence on what the map
    shows besides the units (symbols, tiles, the islands set aside). Raises :class:`Unavailable` when no map
    can be drawn (no polygons, no seats, no units)."""
    L, lang, panel = page.L, page.lang, res.panel
    reg = getattr(panel, "registry", None)
    geo = reg.polygons() if reg is not None and hasattr(reg, "polygons") else None
    inset = []
    offshore = ""
    if geo:
        if panel.country == "CL" and panel.units is not None:
            inset = panel.units.loc[panel.units["region"].astype(str) == "13", "unit"].astype(str).tolist()
        canvas = PolygonMap(geo, panel.unit_codes, inset_region_units=inset,
                            offshore=F.CHILE_OFFSHORE if panel.country == "CL" else ())
    else:   # no polygons shipped: proportional symbols at the unit seats, or a tile grid (symbol_maps.py)
        from .symbol_maps import canvas_without_polygons

        kind, canvas = canvas_without_polygons(panel, res.pooled.set_index("unit")["births"],
                                               size_title=L("size_births"),
                                               size_format=lambda v: localise(f"{int(v):,}", lang))
        if canvas is None:
            raise Unavailable(L("ex_no_polygons", country=panel.country or "-"))
        country = L(f"country_{panel.country}") if f"country_{panel.country}" in F_LABELS else panel.country
        offshore = L("cap_map_symbols" if kind == "symbols" else "cap_map_tiles", country=country, unit=page.unit,
                     period=res.period)
    if canvas.fig is None:
        raise Unavailable(L("ex_no_polygons", country=panel.country or "-"))
    if canvas.offshore:
        names = res.names
        offshore = L("cap_map_offshore", names=", ".join(names.get(u, u) for u in canvas.offshore))
    inset_title = L("map_inset_CL") if inset else ""
    return canvas, inset_title, offshore
