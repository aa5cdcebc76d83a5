"""Queen and rook contiguity of GeoJSON polygons by matching their vertices in numpy (issue 19).

The rule is libpysal's (``libpysal.weights.Queen`` / ``Rook`` ``from_iterable``, its
``ContiguityWeightsLists``), computed on the same coordinates:

- the boundary points of a unit are the coordinates of every ring of its polygons (exterior, then holes,
  part after part), x and y as float64, as shapely's ``boundary`` gives them to libpysal;
- ``queen``: two units are neighbours when they have a boundary point with exactly equal coordinates;
- ``rook``: when they have a segment in common: a segment is two consecutive points of the unit's boundary
  point sequence (libpysal joins the rings of a unit into one sequence, so the segment from the last point
  of one ring to the first of the next counts too; kept here, for the same neighbours), the two points in
  sorted order (x, then y).

libpysal does this with a Python dict of coordinate tuples after building a shapely geometry per unit: 0.35 s
of CPU for Chile's 345 communes (88,000 points), a fifth of the report's spatial step. Here the points are
sorted and compared as arrays (about 0.03 s). The neighbour sets are the same, and they become
:class:`brecha.spatial.links.Links` (tests/spatial/test_contiguity.py compares every unit's neighbours with
libpysal's on the Chilean polygons, and on made-up polygons with holes, shared corners and shared edges).

Geometries other than Polygon and MultiPolygon return None: :mod:`brecha.spatial.neighbours` then refuses
contiguity for them, naming the unit (points have no boundary to share; k nearest neighbours apply).
"""
from __future__ import annotations

import numpy as np


def _rings(geometry) -> list | None:
    """The rings of a Polygon or MultiPolygon in GeoJSON order; None for any other geometry."""
    kind = geometry.get("type")
    coordinates = geometry.get("coordinates") or []
    if kind == "Polygon":
        return list(coordinates)
    if kind == "MultiPolygon":
        return [ring for polygon in coordinates for ring in polygon]
    return None


def _points(geometries) -> tuple | None:
    """Every unit's boundary points (float64 x, y) concatenated, and each point's unit number."""
    parts, owners = [], []
    for k, geometry in enumerate(geometries):
        rings = _rings(geometry)
        if rings is None:
            return None
        rings = [ring for ring in rings if len(ring)]
        if not rings:
            continue
        xy = np.concatenate([np.asarray([point[:2] for point in ring], dtype=float) for ring in rings])
        parts.append(xy)
        owners.append(np.full(len(xy), k, dtype=np.int64))
    if not parts:
        return np.zeros((0, 2)), np.zeros(0, dtype=np.int64)
    return np.concatenate(parts), np.concatenate(owners)


def _group_ids(columns) -> np.ndarray:
    """Per row, a number shared by exactly the rows whose values are equal in every column (sorted, then
    compared with the previous row: equal floats compare equal, 0.0 and -0.0 too, as tuples do)."""
    order = np.lexsort(columns[::-1])
    new = np.zeros(len(order), dtype=bool)
    new[0] = True
    for column in columns:
        s = column[order]
        new[1:] |= s[1:] != s[:-1]
    ids = np.empty(len(order), dtype=np.int64)
    ids[order] = np.cumsum(new) - 1
    return ids


def _pairs_sharing(keys: np.ndarray, owners: np.ndarray) -> np.ndarray:
    """Distinct (i, j), i != j, of the owners of rows of ``keys`` (n x m floats) that are exactly equal."""
    if not len(keys):
        return np.zeros((0, 2), dtype=np.int64)
    point = _group_ids([keys[:, k] for k in range(keys.shape[1])])
    order = np.lexsort((owners, point))  # by point, then unit
    point, unit = point[order], owners[order]
    once = np.ones(len(point), dtype=bool)  # each (point, unit) once
    once[1:] = (point[1:] != point[:-1]) | (unit[1:] != unit[:-1])
    point, unit = point[once], unit[once]
    pairs = []
    for gap in range(1, len(point)):  # units of one point are consecutive rows: pair each with the next ones
        same = point[gap:] == point[:-gap]
        if not same.any():
            break
        pairs.append(np.column_stack([unit[:-gap][same], unit[gap:][same]]))
    if not pairs:
        return np.zeros((0, 2), dtype=np.int64)
    both = np.concatenate(pairs)
    both = np.concatenate([both, both[:, ::-1]])
    both = both[both[:, 0] != both[:, 1]]
    both = both[np.lexsort((both[:, 1], both[:, 0]))]
    keep = np.ones(len(both), dtype=bool)
    keep[1:] = (both[1:] != both[:-1]).any(axis=1)
    return both[keep]


def contiguity_neighbours(geometries, ids, kind: str) -> dict | None:
    """``{id: [neighbour ids]}`` for the GeoJSON ``geometries`` (one per id, same order) by ``queen`` or
    ``rook`` contiguity (module docstring); every id is a key (an island has ``[]``). None when a geometry is
    not a Polygon or MultiPolygon."""
    found = _points(geometries)
    if found is None:
        return None
    xy, owner = found
    if kind == "queen":
        pairs = _pairs_sharing(xy, owner)
    else:
        same_unit = owner[1:] == owner[:-1]
        a, b = xy[:-1][same_unit], xy[1:][same_unit]
        # each segment's two points in sorted order, as sorted((x, y) tuples)
        swap = (b[:, 0] < a[:, 0]) | ((b[:, 0] == a[:, 0]) & (b[:, 1] < a[:, 1]))
        first, second = np.where(swap[:, None], b, a), np.where(swap[:, None], a, b)
        pairs = _pairs_sharing(np.column_stack([first, second]), owner[1:][same_unit])
    out = {u: [] for u in ids}
    for i, j in pairs.tolist():
        out[ids[i]].append(ids[j])
    return out
