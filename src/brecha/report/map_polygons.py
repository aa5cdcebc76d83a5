"""The units' polygons of a map panel, painted only where the panel shows them.

A map canvas (:class:`brecha.report.figures.MapCanvas`) draws the same polygons in several panels (Chile:
three latitude bands and the Santiago inset), each panel showing a part of the country. matplotlib clips
every polygon to its panel but still transforms and rasterises all of them in every panel (611 rings x 4
panels for Chile's 346 communes, about a third of a map's drawing time). :class:`VisiblePolygons` hands
the renderer only the polygons whose bounding box meets the panel's view (its limits at drawing time, after
the equal-aspect adjustment, widened by 1 % so that no edge stroke at the border is lost); the others are
entirely outside the clip box and would paint no pixel. The polygons and their colours are not changed; the
paths are made once and shared by every panel (the data and the exported GeoJSON are untouched).
"""
from __future__ import annotations

import numpy as np
from matplotlib.collections import PathCollection
from matplotlib.path import Path


def closed_paths(rings: list[np.ndarray]) -> tuple[list[Path], np.ndarray]:
    """A closed path per ring (as ``PolyCollection`` makes them) and the rings' boxes
    (``xmin, ymin, xmax, ymax`` per row)."""
    paths = [Path(np.concatenate([r, r[:1]]), closed=True) for r in rings]
    boxes = np.array([[r[:, 0].min(), r[:, 1].min(), r[:, 0].max(), r[:, 1].max()] for r in rings]).reshape(-1, 4)
    return paths, boxes


class VisiblePolygons(PathCollection):
    """A ``PathCollection`` of polygons (``paths``, their ``boxes``) that draws only those in its axes' view."""

    MARGIN = 0.01  # of the view's width and height

    def __init__(self, paths: list[Path], boxes: np.ndarray, **kwargs):
        super().__init__(paths, **kwargs)
        self._every_path, self._boxes = paths, boxes

    def visible(self) -> np.ndarray:
        """Which polygons meet the axes' current view (widened by ``MARGIN``)."""
        (x0, x1), (y0, y1) = sorted(self.axes.get_xlim()), sorted(self.axes.get_ylim())
        dx, dy = (x1 - x0) * self.MARGIN, (y1 - y0) * self.MARGIN
        b = self._boxes
        return (b[:, 2] >= x0 - dx) & (b[:, 0] <= x1 + dx) & (b[:, 3] >= y0 - dy) & (b[:, 1] <= y1 + dy)

    def draw(self, renderer):
        if self.axes is None or len(self._every_path) == 0:
            return super().draw(renderer)
        keep = self.visible()
        if keep.all():
            return super().draw(renderer)
        n = len(self._every_path)
        faces, edges = self.get_facecolor(), self.get_edgecolor()
        self.set_paths([p for p, k in zip(self._every_path, keep) if k])
        if len(faces) == n:
            self.set_facecolor(faces[keep])
        if len(edges) == n:
            self.set_edgecolor(edges[keep])
        try:
            return super().draw(renderer)
        finally:
            self.set_paths(self._every_path)
            self.set_facecolor(faces)
            self.set_edgecolor(edges)
