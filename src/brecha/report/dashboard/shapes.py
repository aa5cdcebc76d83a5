"""The dashboard's map geometry: the registry's polygons as SVG path strings, or the units' seats.

Projection: plate carrée with the longitude scaled by the cosine of the map's middle latitude
(x = (lon - lon_min) · cos φ₀, y = lat_max - lat), multiplied by :data:`SCALE` and rounded to integers
(1/1000 of a degree of latitude, about 110 m, finer than the simplified polygons). Each ring is written as
a move and relative line commands (``M x y l dx dy ...z``), which keeps the Chilean map near 125 kB.
The browser only recolours these paths; it never projects. Outer rings only, as the report's maps
(:func:`rings_of`). Units listed in ``offshore`` (Easter Island, Juan Fernández) are left
off the map and named below it, as in the report.

Without polygons, as the static report's maps (:mod:`brecha.report.symbol_maps`): :func:`seats` projects
the units' seats (``panel.units`` ``lat``, ``lon``; Argentina) the same way for proportional symbols, and
:func:`tiles` draws the report's schematic tile grid where seats are missing (Brazil); with neither, the
dashboard shows the table only.
"""
from __future__ import annotations

import math

import numpy as np

SCALE = 1000  # projected units per degree of latitude


def rings_of(geometry: dict | None) -> list[np.ndarray]:
    """The outer rings of a GeoJSON Polygon or MultiPolygon, as (lon, lat) arrays (the report's maps read
    them with it too)."""
    kind = (geometry or {}).get("type")
    coords = (geometry or {}).get("coordinates") or []
    polys = coords if kind == "MultiPolygon" else [coords] if kind == "Polygon" else []
    return [np.asarray(poly[0], dtype=float)[:, :2] for poly in polys if poly and len(poly[0]) >= 3]


def _frame(points) -> tuple[float, float, float, float]:
    lons = [p[0] for p in points]
    lats = [p[1] for p in points]
    lon0, lat1 = min(lons), max(lats)
    k = math.cos(math.radians((min(lats) + lat1) / 2))
    return lon0, lat1, k, max(lons)


def _project(lon: float, lat: float, frame) -> tuple[int, int]:
    lon0, lat1, k, _ = frame
    return round((lon - lon0) * k * SCALE), round((lat1 - lat) * SCALE)


def ring_path(points: np.ndarray) -> str:
    """``M x y l dx dy ... z`` of a projected ring (integers, one row per point), repeated points dropped;
    "" for a ring of fewer than two steps. (The report's maps write their paths with it too:
    :mod:`brecha.report.polygon_map`.)"""
    steps = np.diff(points, axis=0)
    steps = steps[(steps != 0).any(axis=1)]
    if len(steps) < 2:
        return ""
    return f"M{points[0, 0]} {points[0, 1]}l" + " ".join(f"{dx} {dy}" for dx, dy in steps.tolist()) + "z"


def polygon_paths(geojson: dict | None, units, offshore=()) -> dict | None:
    """``{"kind": "polygons", "paths": {unit: d}, "box": [0, 0, w, h], "missing": [...], "offshore": [...]}``
    for the units of ``units`` that have a polygon; None without polygons.

    Every ring projected at once in numpy (``np.rint``, round half to even as Python's ``round``, on the same
    products in the same order): the Chilean map's 45,000 points took 0.05-0.1 s one by one (issue 19)."""
    if not geojson:
        return None
    wanted = {str(u) for u in units}
    country = geojson.get("_country", "CL")
    rings: dict[str, list] = {}
    for feature in geojson.get("features", []):
        props = feature.get("properties") or {}
        code = str(props.get("unit", props.get("COMUNA", ""))).strip()
        if code.isdigit() and len(code) < 5 and country == "CL":
            code = code.zfill(5)
        if code in wanted and code not in offshore:
            rings.setdefault(code, []).extend(rings_of(feature.get("geometry")))
    rings = {u: r for u, r in rings.items() if r}
    if not rings:
        return None
    every = np.concatenate([ring for rs in rings.values() for ring in rs])
    lon0, lat1 = float(every[:, 0].min()), float(every[:, 1].max())
    k = math.cos(math.radians((float(every[:, 1].min()) + lat1) / 2))
    projected = np.rint(np.column_stack([(every[:, 0] - lon0) * k * SCALE, (lat1 - every[:, 1]) * SCALE]))
    projected = projected.astype(np.int64)
    paths, start = {}, 0
    for u, rs in rings.items():
        parts = []
        for ring in rs:
            parts.append(ring_path(projected[start:start + len(ring)]))
            start += len(ring)
        paths[u] = "".join(parts)
    width = round((float(every[:, 0].max()) - lon0) * k * SCALE)
    height = int(projected[:, 1].max())
    ordered = [str(u) for u in units]
    return {"kind": "polygons", "paths": paths, "box": [0, 0, width, height],
            "missing": [u for u in ordered if u not in paths and u not in offshore],
            "offshore": [u for u in ordered if u in offshore]}


def seats(units_table) -> dict | None:
    """``{"kind": "seats", "xy": {unit: [x, y]}, "box": [...], "missing": [...]}`` from ``lat, lon``; None
    when the table has no seats."""
    if units_table is None or not {"lat", "lon"} <= set(units_table.columns):
        return None
    rows = [(str(u), float(la), float(lo)) for u, la, lo in
            zip(units_table["unit"].tolist(), units_table["lat"], units_table["lon"])
            if la is not None and lo is not None and math.isfinite(float(la)) and math.isfinite(float(lo))]
    if not rows:
        return None
    frame = _frame([(lo, la) for _, la, lo in rows])
    xy = {u: list(_project(lo, la, frame)) for u, la, lo in rows}
    width = max(x for x, _ in xy.values())
    height = max(y for _, y in xy.values())
    have = set(xy)
    pad = SCALE // 4
    return {"kind": "seats", "xy": xy, "box": [-pad, -pad, width + 2 * pad, height + 2 * pad],
            "missing": [str(u) for u in units_table["unit"] if str(u) not in have], "offshore": []}


def tiles(units_table, country=None) -> dict | None:
    """The report's fallback without polygons or seats (:func:`brecha.report.symbol_maps.tile_positions`):
    one square per unit, grouped in one tile per province (state) on a schematic grid, as the static report's
    maps draw it. ``{"kind": "tiles", "paths": {unit: d}, "box": [...], "tiles": [[x, y, name], ...]}``;
    None without a ``province`` column."""
    if units_table is None or "province" not in units_table.columns or not len(units_table):
        return None
    from ..symbol_maps import BRAZIL_STATE_TILES, tile_positions

    units = units_table.assign(province=units_table["province"].astype(str))
    units = units[units["province"].str.len() > 0]
    if units.empty:
        return None
    pos = tile_positions(units, units["unit"], BRAZIL_STATE_TILES if country == "BR" else None)
    paths = {}
    for unit, x, y, side in zip(pos["unit"].tolist(), pos["x"].tolist(), pos["y"].tolist(), pos["size"].tolist()):
        left, top, s = round(x * SCALE), round(-(y + side) * SCALE), max(1, round(side * SCALE))
        paths[str(unit)] = f"M{left} {top}h{s}v{s}h{-s}z"
    names = dict(zip(units["province"].tolist(),
                     units.get("province_name", units["province"]).astype(str).tolist()))
    corner = pos.assign(province=pos["unit"].map(dict(zip(units["unit"].astype(str).tolist(),
                                                          units["province"].tolist()))))
    labels = [[round(math.floor(g["x"].min()) * SCALE + 0.12 * SCALE), round(math.floor(-g["y"].max()) * SCALE
               + 0.15 * SCALE), names.get(p, p)] for p, g in corner.groupby("province")]
    width = round((pos["x"] + pos["size"]).max() * SCALE) + SCALE // 10
    height = round(-pos["y"].min() * SCALE) + SCALE // 10
    return {"kind": "tiles", "paths": paths, "box": [0, 0, width, height], "tiles": labels,
            "missing": [str(u) for u in units_table["unit"].tolist() if str(u) not in paths], "offshore": []}
