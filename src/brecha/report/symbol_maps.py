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

Both keep :class:`brecha.report.figures.MapCanvas`'s interface: built once, :meth:`render` recolours
(``unit -> colour``) and returns a PNG :class:`~brecha.report.figures.Figure`.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .figures import INK, MISSING, MUTED, Figure, _new_figure, _rc, _save

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
    u = u[u["unit"].isin({str(w) for w in wanted})]
    return u.dropna(subset=["lat", "lon"]).reset_index(drop=True)


def symbol_areas(births: pd.Series, max_area: float = MAX_AREA) -> pd.Series:
    """Circle areas proportional to births: ``area = max_area * births / max(births)`` (0 for no births)."""
    b = births.astype(float).clip(lower=0).fillna(0)
    top = b.max()
    return b * (max_area / top) if top > 0 else b * 0


class _ColouredCanvas:
    """What both canvases share: colour the drawn shapes (in ``self.drawn`` order) and redraw the legend."""

    drawn: list[str]

    def render(self, name: str, colours_by_unit: dict[str, str], legend: list[tuple[str, str]], *,
               title: str = "", legend_title: str = "", inset_title: str = "", caption: str = "",
               alt: str = "", dpi: int = 100) -> Figure | None:
        from matplotlib.patches import Patch

        if self.fig is None:
            return None
        with _rc():
            self.collection.set_facecolors([colours_by_unit.get(u, MISSING) for u in self.drawn])
            self.title_artist.set_text(title)
            if self.legend_ax.get_legend():
                self.legend_ax.get_legend().remove()
            handles = [Patch(facecolor=c, edgecolor=MUTED, linewidth=0.4, label=lab) for c, lab in legend]
            self.legend_ax.legend(handles=handles, loc="center left", title=legend_title, fontsize=10,
                                  title_fontsize=10.5, alignment="left", borderaxespad=0)
            return Figure(name, "png", _save(self.fig, "png", dpi=dpi, kept=True), caption, alt or caption)


class SymbolCanvas(_ColouredCanvas):
    """Proportional circles at the units' seats (``points``: unit, lat, lon; ``births``: indexed by unit)."""

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
        lat = points.set_index(points["unit"].astype(str))["lat"].astype(float)
        lon = points.set_index(points["unit"].astype(str))["lon"].astype(float)
        self.fig = None
        if not self.units:
            return
        with _rc():
            lat0, lat1, lon0, lon1 = lat.min(), lat.max(), lon.min(), lon.max()
            aspect = 1 / max(np.cos(np.deg2rad((lat0 + lat1) / 2)), 0.2)
            span_x, span_y = max(lon1 - lon0, 0.5) * aspect, max(lat1 - lat0, 0.5)
            height = 6.0
            width = min(max(height * span_x / span_y, 2.6), 7.0)
            self.fig = _new_figure(width + 3.1, height)
            grid = self.fig.add_gridspec(2, 2, width_ratios=[width, 3.0], height_ratios=[1.3, 1])
            ax = self.fig.add_subplot(grid[:, 0])
            ax.set_aspect(aspect, adjustable="datalim")
            ax.set_axis_off()
            self.collection = ax.scatter(lon[self.order].to_numpy(), lat[self.order].to_numpy(),
                                         s=self.areas[self.order].to_numpy(), c=[MISSING] * len(self.order),
                                         edgecolors=MUTED, linewidths=0.5, zorder=2)
            if names and len(self.units) <= 40:     # few units: name them beside their circle
                for u in self.units:
                    ax.annotate(names.get(u, u), (lon[u], lat[u]), xytext=(4, 3), textcoords="offset points",
                                fontsize=6.5, color=MUTED, zorder=3)
            pad = 0.06 * max(lat1 - lat0, 1.0)
            ax.update_datalim([(lon0 - pad, lat0 - pad), (lon1 + pad, lat1 + pad)])
            ax.autoscale_view()
            self.legend_ax = self.fig.add_subplot(grid[0, 1])
            self.legend_ax.axis("off")
            size_ax = self.fig.add_subplot(grid[1, 1])
            size_ax.axis("off")
            self._size_legend(size_ax, b, size_title, size_format)
            self.title_artist = self.fig.suptitle("", x=0.01, ha="left", fontsize=13, fontweight="bold", color=INK)

    def _size_legend(self, ax, births: pd.Series, title: str, size_format) -> None:
        top = float(births.max())
        if top <= 0:
            return
        steps = [v for v in _nice_steps(top) if v > 0]
        handles = [ax.scatter([], [], s=MAX_AREA * v / top, facecolors="none", edgecolors=MUTED, linewidths=0.8)
                   for v in steps]
        ax.legend(handles, [size_format(v) for v in steps], title=title, loc="center left", fontsize=10,
                  title_fontsize=10.5, labelspacing=1.6, borderpad=1.0, alignment="left", frameon=False,
                  scatterpoints=1)



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
    u = u[u["unit"].isin({str(w) for w in wanted})].sort_values(["province", "unit"])
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
        for i, unit in enumerate(group["unit"]):
            rows.append((unit, col + 0.12 + (i % k) * side, -row - 0.2 - (i // k + 1) * side, side))
    return pd.DataFrame(rows, columns=["unit", "x", "y", "size"])


class TileCanvas(_ColouredCanvas):
    """A tile grid: one square per unit, grouped by province (see :func:`tile_positions`)."""

    def __init__(self, units: pd.DataFrame, wanted, *, layout: dict | None = None, tile_labels: dict | None = None):
        from matplotlib.collections import PolyCollection

        pos = tile_positions(units, wanted, layout)
        self.units = pos["unit"].tolist()
        self.drawn = self.units
        self.missing_shapes: list[str] = []
        self.offshore: list[str] = []
        self.fig = None
        if not self.units:
            return
        squares = [np.array([[x, y], [x + s, y], [x + s, y + s], [x, y + s]])
                   for x, y, s in zip(pos["x"], pos["y"], pos["size"])]
        with _rc():
            cols = pos["x"].max() + 1
            rows = -pos["y"].min()
            height = 6.0
            self.fig = _new_figure(height * cols / rows + 3.1, height)
            grid = self.fig.add_gridspec(1, 2, width_ratios=[height * cols / rows, 3.0])
            ax = self.fig.add_subplot(grid[0, 0])
            self.collection = PolyCollection(squares, facecolors=MISSING, edgecolors="white", linewidths=0.05)
            ax.add_collection(self.collection, autolim=False)
            ax.update_datalim([(0, 0), (cols, -rows)])
            ax.autoscale_view()
            ax.set_aspect(1)
            ax.set_axis_off()
            u = units.astype({"unit": str, "province": str}).set_index("unit")
            shown = set(u.loc[u.index.isin(self.units), "province"])  # once: not per province (2.4 s for Brazil)
            for province, (col, row) in (layout or {}).items():
                label = (tile_labels or {}).get(province)
                if label and province in shown:
                    ax.text(col + 0.5, -row - 0.03, label, ha="center", va="top", fontsize=7, color=INK)
            self.legend_ax = self.fig.add_subplot(grid[0, 1])
            self.legend_ax.axis("off")
            self.title_artist = self.fig.suptitle("", x=0.01, ha="left", fontsize=13, fontweight="bold", color=INK)



def canvas_without_polygons(panel, births: pd.Series, *, size_title: str = "", size_format=str):
    """``("symbols", SymbolCanvas)`` when at least half of the panel's units have seats, else
    ``("tiles", TileCanvas)``; ``(None, None)`` without units."""
    units = panel.units
    if units is None or not len(units):
        return None, None
    points = seats(units, panel.unit_codes)
    if len(points) >= max(1, len(panel.unit_codes) / 2):
        names = dict(zip(units["unit"].astype(str), units["name"].astype(str))) if "name" in units else {}
        return "symbols", SymbolCanvas(points, births, size_title=size_title, size_format=size_format, names=names)
    layout = BRAZIL_STATE_TILES if panel.country == "BR" else None
    labels = {}
    if "province_name" in units:
        labels = dict(zip(units["province"].astype(str), units["province_name"].astype(str)))
    return "tiles", TileCanvas(units, panel.unit_codes, layout=layout, tile_labels=labels)
