"""Choropleth maps from the registry's polygons, written as SVG: one path per unit, laid out once and
recoloured for every map (:class:`PolygonMap`).

Projection: plate carrée with the longitude scaled by the cosine of the map's middle latitude, φ₀
(x = (lon − lon_min) · cos φ₀, y = lat_max − lat), kept as integers of 1/1000 degree of latitude (about
110 m, finer than the shipped polygons) and written with relative moves, as the dashboard's map
(:mod:`brecha.report.dashboard.shapes`). Outer rings only: the polygons are simplified and holes are tiny
at the report's scale.

Layout, as the matplotlib canvas had it: a long thin country (its latitude span over three times its
longitude span: Chile) is cut into three latitude bands side by side, each band's units being those whose
ring centres fall in it, each panel showing its band widened by 1 degree of latitude at both ends; when the
map holds part of an inset region (Chile's Santiago Metropolitan Region, many small communes) that region
is drawn again, larger, at the top of the right-hand column, with the legend below it. Otherwise one panel,
at most 6 inches wide. Each panel shows its box enlarged to the panel's proportions (2 % margin) and clips
to it; a unit's path is written in a panel only when its bounding box meets that view.
"""
from __future__ import annotations

import math

import numpy as np

from .dashboard.shapes import ring_path as _ring_path, rings_of  # the same rings and paths as the dashboard's map
from .figures import MISSING, MUTED
from .map_svg import ColouredMap
from .svg import Svg, num

SCALE = 1000.0          # projected units per degree
INCH = 72.0
EDGE = 0.2              # white border between units, points


class PolygonMap(ColouredMap):
    """The units' polygons on one page (see the module's docstring). ``geojson``: a FeatureCollection whose
    features carry ``properties.unit`` (Chile's older files: ``COMUNA``); ``units``: those to draw;
    ``inset_region_units``: the units of the inset; ``offshore``: units left off the map."""

    def __init__(self, geojson: dict, units: list[str], *, inset_region_units: list[str] | None = None,
                 offshore: tuple = ()):
        self.units = [str(u) for u in units]
        wanted = set(self.units)
        shapes: dict[str, list[np.ndarray]] = {}
        chile = geojson.get("_country", "CL") == "CL"
        for feature in geojson.get("features", []):
            props = feature.get("properties") or {}
            code = str(props.get("unit", props.get("COMUNA", ""))).strip()
            if code.isdigit() and len(code) < 5 and chile:
                code = code.zfill(5)
            if code in wanted and code not in offshore and feature.get("geometry"):
                shapes.setdefault(code, []).extend(rings_of(feature["geometry"]))
        shapes = {u: r for u, r in shapes.items() if r}
        self.drawn = [u for u in self.units if u in shapes]
        self.missing_shapes = [u for u in self.units if u not in shapes and u not in offshore]
        self.offshore = [u for u in self.units if u in offshore]
        self.panels: list[tuple] = []
        if self.drawn:
            self._layout(shapes, [u for u in (inset_region_units or []) if u in shapes])

    def _layout(self, shapes: dict, inset: list[str]) -> None:
        every = np.concatenate([r for u in self.drawn for r in shapes[u]])
        lon0, lat0 = every.min(axis=0)
        lon1, lat1 = every.max(axis=0)
        k = math.cos(math.radians((lat0 + lat1) / 2))
        paths, boxes, centre = {}, {}, {}
        for u in self.drawn:
            projected = [np.rint(np.column_stack([(r[:, 0] - lon0) * k, lat1 - r[:, 1]]) * SCALE).astype(np.int64)
                         for r in shapes[u]]
            paths[u] = "".join(_ring_path(p) for p in projected)
            pts = np.concatenate(projected)
            boxes[u] = (*pts.min(axis=0), *pts.max(axis=0))
            centre[u] = [float(r[:, 1].mean()) for r in shapes[u]]
        tall = (lat1 - lat0) > 3.0 * (lon1 - lon0)
        use_inset = tall and 0 < len(inset) < len(self.drawn)
        views = self._views(shapes, centre, tall, lon0, lat1, k) if tall else \
            [(0.0, 0.0, (lon1 - lon0) * k * SCALE, (lat1 - lat0) * SCALE)]
        height = 5.4 if tall else 5.0
        top, bottom = 0.45 * INCH, height * INCH - 0.1 * INCH
        side = 2.9 * INCH
        widths = [max((v[2] - v[0]) / max(v[3] - v[1], 1e-6), 0.25) * (bottom - top) for v in views]
        if not tall:
            widths = [min(widths[0], 6.0 * INCH)]
        x = 0.1 * INCH
        for view, w in zip(views, widths):
            self.panels.append(self._panel(paths, boxes, view, (x, top, x + w, bottom), frame=False))
            x += w + 0.05 * INCH
        self.width, self.height = x + side + 0.1 * INCH, height * INCH
        column = x + 0.1 * INCH
        self.inset_title_at = None
        if use_inset:
            b = np.array([boxes[u] for u in inset], dtype=float)
            view = (b[:, 0].min(), b[:, 1].min(), b[:, 2].max(), b[:, 3].max())
            split = top + (bottom - top) / 2.1
            box = (column, top + 0.2 * INCH, x + side, split)
            self.panels.append(self._panel(paths, boxes, view, box, frame=True))
            self.inset_title_at = (column, top + 0.2 * INCH - 4)
            self.legend_box = (column + 6, split, bottom)
        else:
            self.legend_box = (column + 6, top, bottom)

    def _views(self, shapes, centre, tall, lon0, lat1, k) -> list[tuple]:
        """Three latitude bands: ``(x0, y0, x1, y1)`` in projected units, each the box of the rings whose
        centres fall in it, widened by 1 degree of latitude at both ends (within the band's rings)."""
        lats = np.array([c for u in self.drawn for c in centre[u]])
        rings = [r for u in self.drawn for r in shapes[u]]
        cuts = np.linspace(lats.max() + 1e-9, lats.min() - 1e-9, 4)
        views = []
        for i in range(3):
            inside = [r for r, c in zip(rings, lats) if cuts[i + 1] <= c <= cuts[i]]
            if not inside:
                continue
            pts = np.concatenate(inside)
            north = min(pts[:, 1].max(), cuts[i] + 1.0)
            south = max(pts[:, 1].min(), cuts[i + 1] - 1.0)
            views.append(((pts[:, 0].min() - lon0) * k * SCALE, (lat1 - north) * SCALE,
                          (pts[:, 0].max() - lon0) * k * SCALE, (lat1 - south) * SCALE))
        return views

    @staticmethod
    def _panel(paths: dict, boxes: dict, view, box, *, frame: bool) -> tuple:
        """``(box, transform, units shown, frame)``: the view widened by 2 % and to the box's proportions,
        centred; the units whose bounding boxes meet it."""
        x0, y0, x1, y1 = view
        mx, my = (x1 - x0) * 0.02, (y1 - y0) * 0.02
        x0, x1, y0, y1 = x0 - mx, x1 + mx, y0 - my, y1 + my
        left, top, right, bottom = box
        scale = min((right - left) / max(x1 - x0, 1e-9), (bottom - top) / max(y1 - y0, 1e-9))
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        half_w, half_h = (right - left) / scale / 2, (bottom - top) / scale / 2
        vx0, vx1, vy0, vy1 = cx - half_w, cx + half_w, cy - half_h, cy + half_h
        shown = [u for u, (a, b, c, d) in boxes.items() if c >= vx0 and a <= vx1 and d >= vy0 and b <= vy1]
        transform = f"matrix({scale:.6g} 0 0 {scale:.6g} {num(left - vx0 * scale)} {num(top - vy0 * scale)})"
        return box, transform, [(u, paths[u]) for u in shown], frame, EDGE / scale

    def shapes(self, svg: Svg, colours: dict[str, str], inset_title: str) -> None:
        for box, transform, shown, frame, edge in self.panels:
            left, top, right, bottom = box
            svg.open(clip=svg.clip(left, top, right - left, bottom - top))
            svg.open(transform=transform, stroke="#ffffff", stroke_width=f"{edge:.4g}", stroke_linejoin="round")
            svg.parts.extend(f'<path fill="{colours.get(u, MISSING)}" d="{d}"/>' for u, d in shown)
            svg.close()
            svg.close()
            if frame:
                svg.rect(left, top, right - left, bottom - top, stroke=MUTED, width=0.8)
        if self.inset_title_at is not None and inset_title:
            svg.text(*self.inset_title_at, inset_title, size=11.0, bold=True)
