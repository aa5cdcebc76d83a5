"""Maps for countries without polygons: proportional symbols at the units' seats, or a tile grid.

:class:`SymbolCanvas` draws one circle per unit at its ``lat, lon`` (the registry's unit seats or
centroids: Chile's commune seats, Argentina's province centroids), its **area** proportional to the unit's
live births over the period (Flannery's perceptual scaling is deliberately not applied: area stays exactly
proportional, so the legend's circles can be read), coloured like the choropleth maps. Large circles are
drawn first so that small units stay visible on top.

:class:`TileCanvas` is the fallback where no seats are shipped (Brazil's 5,570 municipalities: see
docs/data.md for why): every unit is one equal square, grouped in one tile per province (state), the tiles
laid out on a schematic grid (:data:`BRAZIL_STATE_TILES` for Brazil, otherwise in code order). Position
inside a tile follows the unit code, not geography; the caption says so.

Both are :class:`brecha.report.map_svg.ColouredMap` s, as the polygon maps: laid out once, :meth:`render`
recolours (``unit -> colour``) and returns an SVG :class:`~brecha.report.figures.Figure`.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..compat import isin
from .figures import INK, MISSING, MUTED
from .map_svg import ColouredMap
from .svg import Svg, num, text_width

INCH = 72.0

# Brazil's 27 states on a schematic grid (column, row from the top), close to their relative positions.
BRAZIL_STATE_TILES = {
    "14": (2, 0), "16": (4, 0),
    "13": (1, 1), "15": (3, 1), "21": (5, 1), "23": (6, 1), "24": (7, 1),
    "12": (0, 2), "11": (1, 2), "51": (2, 2), "17": (4, 2), "22": (5, 2), "26": (6, 2), "25": (7, 2),
    "52": (3, 3), "53": (4, 3), "29": (5, 3), "28": (6, 3), "27": (7, 3),
    "50": (2, 4), "31": (4, 4), "32": (5, 4),
    "41": (3, 5), "35": (4, 5), "33": (5, 5),
    "42": (3, 6),
    "43": (3, 7),
}
MAX_AREA = 900.0          # points^2 of the largest circle


def seats(units: pd.DataFrame | None, wanted) -> pd.DataFrame:
    """``unit, lat, lon`` of the wanted units that have both coordinates."""
    if units is None or not {"lat", "lon"} <= set(units.columns):
        return pd.DataFrame(columns=["unit", "lat", "lon"])
    u = units[["unit", "lat", "lon"]].copy()
    u["unit"] = u["unit"].astype(str)
    u = u[isin(u["unit"], {str(w) for w in wanted})]
    return u.dropna(subset=["lat", "lon"]).reset_index(drop=True)


def symbol_areas(births: pd.Series, max_area: float = MAX_AREA) -> pd.Series:
    """Circle areas proportional to births: ``area = max_area * births / max(births)`` (0 for no births)."""
    b = births.astype(float).clip(lower=0).fillna(0)
    top = b.max()
    return b * (max_area / top) if top > 0 else b * 0


class SymbolCanvas(ColouredMap):
    """Proportional circles at the units' seats (``points``: unit, lat, lon; ``births``: indexed by unit),
    projected as the polygon maps (longitude scaled by the cosine of the middle latitude), largest first."""

    legend_size = 10.0

    def __init__(self, points: pd.DataFrame, births: pd.Series, *, size_title: str = "", size_format=str,
                 names: dict | None = None):
        self.units = points["unit"].astype(str).tolist()
        self.missing_shapes: list[str] = []
        self.offshore: list[str] = []
        b = births.reindex(self.units).astype(float).fillna(0)
        self.areas = symbol_areas(b)
        order = np.argsort(-self.areas.to_numpy(), kind="stable")
        self.order = [self.units[i] for i in order]
        self.drawn = self.order
        if not self.units:
            return
        lat = points.set_index(points["unit"].astype(str))["lat"].astype(float)
        lon = points.set_index(points["unit"].astype(str))["lon"].astype(float)
        lat0, lat1, lon0, lon1 = lat.min(), lat.max(), lon.min(), lon.max()
        k = max(np.cos(np.deg2rad((lat0 + lat1) / 2)), 0.2)
        pad = 0.06 * max(lat1 - lat0, 1.0)
        span_x, span_y = max(lon1 - lon0, 0.5) * k + 2 * pad * k, max(lat1 - lat0, 0.5) + 2 * pad
        height = 6.0 * INCH
        width = min(max(height * span_x / span_y, 2.6 * INCH), 7.0 * INCH)
        box = (0.1 * INCH, 0.45 * INCH, width, height - 0.1 * INCH)
        scale = min((box[2] - box[0]) / span_x, (box[3] - box[1]) / span_y)
        cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
        mid_lon, mid_lat = (lon0 + lon1) / 2, (lat0 + lat1) / 2
        self.x = {u: cx + (lon[u] - mid_lon) * k * scale for u in self.units}
        self.y = {u: cy - (lat[u] - mid_lat) * scale for u in self.units}
        # a circle's area in points² is ``areas`` (its diameter squared, as matplotlib's marker sizes)
        self.radius = dict(zip(self.units, (np.sqrt(self.areas.to_numpy()) / 2).tolist()))
        self.names = names if names and len(self.units) <= 40 else {}  # few units: named beside their circle
        # the names written right of the easternmost circles must not reach the legend's column
        overhang = max((self.x[u] + 4 + text_width(n, 6.5) for u, n in self.names.items()), default=0.0) - width
        width += max(overhang, 0.0)
        self.width, self.height = width + 3.1 * INCH, height
        column = width + 0.2 * INCH
        self.legend_box = (column, 0.45 * INCH, 0.45 * INCH + (height - 0.55 * INCH) * 1.3 / 2.3)
        self.size_box = (column, self.legend_box[2], height - 0.1 * INCH)
        self.size_entries = _size_entries(b, size_format)
        self.size_title = size_title

    def shapes(self, svg: Svg, colours: dict[str, str], inset_title: str) -> None:
        svg.open(stroke=MUTED, stroke_width="0.5")
        svg.parts.extend(f'<circle cx="{num(self.x[u])}" cy="{num(self.y[u])}" r="{num(self.radius[u])}" '
                         f'fill="{colours.get(u, MISSING)}"/>' for u in self.order)
        svg.close()
        for u in self.units:
            if u in self.names:
                svg.text(self.x[u] + 4, self.y[u] - 3, self.names[u], size=6.5, colour=MUTED)

    def extra_legend(self, svg: Svg) -> None:
        """The sizes: circles of round numbers of births, their areas on the map's scale."""
        if not self.size_entries:
            return
        x, top, bottom = self.size_box
        rows = [math.sqrt(area) for area, _ in self.size_entries]
        height = sum(max(d, 10.0) + 12 for d in rows) + (16 if self.size_title else 0)
        y = (top + bottom - height) / 2
        if self.size_title:
            svg.text(x, y, self.size_title, size=10.5, colour=INK, valign="top")
            y += 16
        widest = max(rows)
        for (area, label), d in zip(self.size_entries, rows):
            middle = y + max(d, 10.0) / 2
            svg.circles([x + widest / 2], [middle], d / 2, fill="none", stroke=MUTED, width=0.8)
            svg.text(x + widest + 8, middle, label, size=10.0, colour=INK, valign="center")
            y += max(d, 10.0) + 12


def _size_entries(births: pd.Series, size_format) -> list[tuple[float, str]]:
    """``(area in points², label)`` of the size legend's circles: three round numbers of births."""
    top = float(births.max()) if len(births) else 0.0
    if top <= 0:
        return []
    return [(MAX_AREA * v / top, size_format(v)) for v in _nice_steps(top) if v > 0]


def _nice_steps(top: float) -> list[float]:
    """Three round values up to ``top`` for the size legend (e.g. 1,000,000 / 500,000 / 100,000)."""
    magnitude = 10 ** math.floor(math.log10(top))
    first = math.floor(top / magnitude) * magnitude
    return sorted({first, first / 2, first / 10}, reverse=True)


def tile_positions(units: pd.DataFrame, wanted, layout: dict | None = None) -> pd.DataFrame:
    """``unit, x, y, size``: the lower-left corner and side of each unit's square. Units are grouped by
    ``province``; each province is a 1 x 1 tile at ``layout[province]`` (column, row from the top) or, for
    provinces not in the layout, in code order on extra rows below; inside a tile the units fill a
    ceil(sqrt(n)) grid in code order, below a strip for the province's label."""
    u = units[["unit", "province"]].astype(str)
    wanted = wanted.tolist() if hasattr(wanted, "tolist") else wanted  # not item by item: ~1 µs each (pandas 3)
    u = u[isin(u["unit"], {str(w) for w in wanted})].sort_values(["province", "unit"])
    layout = dict(layout or {})
    spare = [p for p in sorted(u["province"].unique()) if p not in layout]
    width = max([c for c, _ in layout.values()], default=-1) + 1 or max(1, math.ceil(math.sqrt(len(spare))))
    width = max(width, 1)
    first_row = max([r for _, r in layout.values()], default=-1) + 1
    for i, p in enumerate(spare):
        layout[p] = (i % width, first_row + i // width)
    rows = []
    for province, group in u.groupby("province", sort=False):
        col, row = layout[province]
        n = len(group)
        k = max(1, math.ceil(math.sqrt(n)))
        side = 0.76 / k       # the top fifth of each tile holds the province's label
        for i, unit in enumerate(group["unit"].tolist()):
            rows.append((unit, col + 0.12 + (i % k) * side, -row - 0.2 - (i // k + 1) * side, side))
    return pd.DataFrame(rows, columns=["unit", "x", "y", "size"])


class TileCanvas(ColouredMap):
    """A tile grid: one square per unit, grouped by province (see :func:`tile_positions`), the provinces'
    names above their tiles."""

    def __init__(self, units: pd.DataFrame, wanted, *, layout: dict | None = None, tile_labels: dict | None = None):
        pos = tile_positions(units, wanted, layout)
        self.units = pos["unit"].tolist()
        self.drawn = self.units
        self.missing_shapes: list[str] = []
        self.offshore: list[str] = []
        if not self.units:
            return
        cols = float(pos["x"].max()) + 1
        rows = float(-pos["y"].min())
        height = 6.0 * INCH
        map_width = height * cols / rows
        box = (0.1 * INCH, 0.45 * INCH, map_width, height - 0.1 * INCH)
        scale = min((box[2] - box[0]) / cols, (box[3] - box[1]) / rows)
        left = box[0] + ((box[2] - box[0]) - cols * scale) / 2
        top = box[1]
        # each square's text up to its fill, made once for the maps drawn on this canvas (three for Brazil)
        self._rects = [(u, f'<rect x="{num(left + x * scale)}" y="{num(top - (y + s) * scale)}" '
                           f'width="{num(s * scale)}" height="{num(s * scale)}" fill="')
                       for u, x, y, s in zip(pos["unit"].tolist(), pos["x"].tolist(), pos["y"].tolist(),
                                             pos["size"].tolist())]
        u = units.astype({"unit": str, "province": str}).set_index("unit")
        shown = set(u.loc[isin(u.index, self.units), "province"].tolist())  # once: not per province (2.4 s for Brazil)
        self.tile_texts = [(left + (col + 0.5) * scale, top + (row + 0.03) * scale, label)
                           for province, (col, row) in (layout or {}).items()
                           if (label := (tile_labels or {}).get(province)) and province in shown]
        self.width, self.height = map_width + 3.1 * INCH, height
        self.legend_box = (map_width + 0.2 * INCH, 0.45 * INCH, height - 0.1 * INCH)

    def shapes(self, svg: Svg, colours: dict[str, str], inset_title: str) -> None:
        svg.open(stroke="#ffffff", stroke_width="0.05")
        svg.parts.extend(f'{rect}{colours.get(u, MISSING)}"/>' for u, rect in self._rects)
        svg.close()
        for x, y, label in self.tile_texts:
            svg.text(x, y, label, size=7.0, colour=INK, anchor="middle", valign="top")


def canvas_without_polygons(panel, births: pd.Series, *, size_title: str = "", size_format=str):
    """``("symbols", SymbolCanvas)`` when at least half of the panel's units have seats, else
    ``("tiles", TileCanvas)``; ``(None, None)`` without units."""
    units = panel.units
    if units is None or not len(units):
        return None, None
    points = seats(units, panel.unit_codes)
    if len(points) >= max(1, len(panel.unit_codes) / 2):
        names = dict(zip(units["unit"].astype(str).tolist(), units["name"].astype(str).tolist())) \
            if "name" in units else {}
        return "symbols", SymbolCanvas(points, births, size_title=size_title, size_format=size_format, names=names)
    layout = BRAZIL_STATE_TILES if panel.country == "BR" else None
    labels = {}
    if "province_name" in units:
        labels = dict(zip(units["province"].astype(str).tolist(), units["province_name"].astype(str).tolist()))
    return "tiles", TileCanvas(units, panel.unit_codes, layout=layout, tile_labels=labels)
