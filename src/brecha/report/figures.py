"""The report's figures, drawn with matplotlib (Agg, no pyplot state): trend charts, the funnel plot,
inequality over time, the distribution per year, and choropleth maps from the registry's GeoJSON polygons
(polygons built once and recoloured for every map, each panel painting those in its view: map_polygons.py).
The small multiples (inequality over time, regions) are in :mod:`brecha.report.figures_multiples`.

Every function returns a :class:`Figure`: a file name, the format (``svg`` for charts, ``png`` for
maps), the bytes, and the caption and alt text the HTML shows.
"""
from __future__ import annotations

import io
from dataclasses import dataclass

import numpy as np
import pandas as pd

# A calm palette that prints well in grey: ink, accent, and a colour-blind-safe sequential ramp.
INK = "#1f2933"
MUTED = "#6b7785"
GRID = "#e3e7eb"
ACCENT = "#b5332e"
BLUE = "#2f6690"
SEQUENTIAL = ["#fff5eb", "#fdd0a2", "#fd8d3c", "#d94801", "#7f2704"]
MISSING = "#f2f2f2"
# trend classes, plus the two non-classes of brecha.report.labels.trend_codes
TREND_COLOURS = {"decreasing": "#2f6690", "stationary": "#c9ced6", "increasing": "#b5332e",
                 "sparse": "#f7e9c6", "no_trend": MISSING}
# Chile: islands far out in the Pacific are left off the mainland map (named in the caption).
CHILE_OFFSHORE = ("05201", "05104")


@dataclass
class Figure:
    name: str
    format: str
    data: bytes
    caption: str = ""
    alt: str = ""

    @property
    def filename(self) -> str:
        return f"{self.name}.{self.format}"

    @property
    def mime(self) -> str:
        return "image/svg+xml" if self.format == "svg" else "image/png"


def _rc():
    import matplotlib

    return matplotlib.rc_context({
        "font.family": ["DejaVu Sans"], "font.size": 9, "axes.edgecolor": MUTED, "axes.labelcolor": INK,
        "xtick.color": MUTED, "ytick.color": MUTED, "axes.spines.top": False, "axes.spines.right": False,
        "axes.grid": True, "grid.color": GRID, "grid.linewidth": 0.8, "axes.axisbelow": True,
        "svg.fonttype": "none", "svg.hashsalt": "brecha", "legend.frameon": False,
        "axes.titlesize": 10, "axes.titleweight": "bold", "axes.titlelocation": "left",
    })


def _new_figure(width: float, height: float, layout: str | None = "constrained"):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure as MplFigure

    if layout == "constrained":  # laid out once per drawing, not twice (layout_once.py)
        from .layout_once import OneLayoutFigure

        fig = OneLayoutFigure(figsize=(width, height))
    else:
        fig = MplFigure(figsize=(width, height), layout=layout)
    FigureCanvasAgg(fig)
    return fig


def _save(fig, fmt: str, dpi: int = 110, kept: bool = False) -> bytes:
    """The figure's bytes; while the report draws in parallel (:mod:`brecha.report.render`), a ``Pending``
    a forked child is drawing, which the report turns into these bytes before writing its files. ``kept``:
    the figure is drawn again later (a map canvas, recoloured), so its layout must advance here too."""
    from .render import draw

    return draw(_draw_bytes, fig, fmt, dpi, kept=kept)


def _draw_bytes(fig, fmt: str, dpi: int) -> bytes:
    if fmt == "png":  # the same pixels, compressed faster (png_bytes.py)
        from .png_bytes import png_bytes

        return png_bytes(fig, dpi)
    buf = io.BytesIO()
    kwargs = {"metadata": {"Date": None}} if fmt == "svg" else {"metadata": {"Software": None}}
    fig.savefig(buf, format=fmt, dpi=dpi, facecolor="white", **kwargs)
    return buf.getvalue()


# ------------------------------------------------------------------------------------------ charts

def line_chart(name: str, series: pd.DataFrame, *, ylabel: str, title: str = "", caption: str = "",
               alt: str = "", ymin0: bool = True, width: float = 6.4, height: float = 3.2,
               note: str = "") -> Figure:
    """Lines over years with optional CI bands. ``series``: columns ``label, year, estimate`` and optionally
    ``lower, upper``. The first label is drawn in the accent colour, the others in blue/grey tones."""
    colours = [ACCENT, BLUE, "#5b8e7d", "#8c6d9b", "#c4a35a", MUTED]
    with _rc():
        fig = _new_figure(width, height)
        ax = fig.add_subplot()
        for i, (label, group) in enumerate(series.groupby("label", sort=False)):
            g = group.sort_values("year")
            colour = colours[i % len(colours)]
            x = g["year"].astype(float).to_numpy()
            y = g["estimate"].astype(float).to_numpy()
            if {"lower", "upper"} <= set(g.columns) and g["lower"].notna().any():
                ax.fill_between(x, g["lower"].astype(float), g["upper"].astype(float), color=colour,
                                alpha=0.15, linewidth=0)
            ax.plot(x, y, color=colour, linewidth=2, marker="o", markersize=3, label=str(label))
        ax.set_ylabel(ylabel)
        if title:
            ax.set_title(title)
        values = [series[c].astype(float).to_numpy() for c in ("estimate", "lower") if c in series]
        lowest = float(np.nanmin(np.concatenate(values))) if values and np.isfinite(np.concatenate(values)).any() \
            else 0.0
        if ymin0 and lowest >= 0:
            ax.set_ylim(bottom=0)
        elif lowest < 0:  # measures that can be negative (PAR%, AR): show them, with the zero line
            ax.axhline(0, color=MUTED, linewidth=0.8)
        _year_ticks(ax, series["year"])
        if series["label"].nunique() > 1:
            ax.legend(loc="best", fontsize=8)
        if note:
            fig.text(0.01, 0.0, note, fontsize=7, color=MUTED, ha="left", va="bottom")
        return Figure(name, "svg", _save(fig, "svg"), caption, alt or caption)


def _year_ticks(ax, years) -> None:
    years = sorted(int(y) for y in pd.unique(pd.Series(years).dropna()))
    if not years:
        return
    step = 1 if len(years) <= 10 else 2 if len(years) <= 20 else 5
    ax.set_xticks(years[::step])
    ax.set_xlim(years[0] - 0.5, years[-1] + 0.5)


def distribution_chart(name: str, rates: pd.DataFrame, *, ylabel: str, caption: str = "", alt: str = "",
                       national: pd.DataFrame | None = None, national_label: str = "") -> Figure:
    """Box plots of the unit rates per year (the spread between units), with the national rate on top.
    ``rates``: ``year, estimate``; ``national``: ``year, estimate``."""
    years = sorted(int(y) for y in rates["year"].dropna().unique())
    data = [rates.loc[rates["year"] == y, "estimate"].dropna().astype(float).to_numpy() for y in years]
    with _rc():
        fig = _new_figure(6.4, 3.3)
        ax = fig.add_subplot()
        ax.boxplot(data, positions=years, widths=0.6, whis=(5, 95), showfliers=False, patch_artist=True,
                   manage_ticks=False,
                   boxprops={"facecolor": "#fde0c5", "edgecolor": MUTED, "linewidth": 0.8},
                   medianprops={"color": INK, "linewidth": 1.2}, whiskerprops={"color": MUTED},
                   capprops={"color": MUTED})
        if national is not None and len(national):
            g = national.sort_values("year")
            ax.plot(g["year"].astype(float), g["estimate"].astype(float), color=ACCENT, linewidth=2,
                    marker="o", markersize=3, label=national_label)
            ax.legend(loc="upper right", fontsize=8)
        ax.set_ylabel(ylabel)
        ax.set_ylim(bottom=0)
        _year_ticks(ax, years)
        return Figure(name, "svg", _save(fig, "svg"), caption, alt or caption)


def funnel_plot(name: str, table: pd.DataFrame, *, xlabel: str, ylabel: str, caption: str = "", alt: str = "",
                labels: dict | None = None, highlight: int = 6) -> Figure:
    """Funnel plot: unit rates against births, with the target line and the control limits.

    ``table``: ``births, estimate`` and the limit columns found among ``lower_95, upper_95, lower_998,
    upper_998`` (or ``lower2, upper2, lower3, upper3``), ``target``, and optionally ``flag`` and ``name``.
    """
    t = table.dropna(subset=["births", "estimate"]).copy()
    t = t[t["births"].astype(float) > 0]
    x = t["births"].astype(float).to_numpy()
    y = t["estimate"].astype(float).to_numpy()
    order = np.argsort(x)
    with _rc():
        fig = _new_figure(6.4, 3.8)
        ax = fig.add_subplot()
        ax.set_xscale("log")
        from .log_ticks import plain_log_labels

        plain_log_labels(ax.xaxis)  # its labels as text, not mathtext (0.5 s of CPU less; log_ticks.py)
        limit_styles = [(("lower_95", "upper_95"), "--", "95%"), (("lower_998", "upper_998"), "-", "99.8%")]
        for (lo, hi), style, lab in limit_styles:
            if lo in t and hi in t:
                ax.plot(x[order], t[lo].astype(float).to_numpy()[order], style, color=MUTED, linewidth=1)
                ax.plot(x[order], t[hi].astype(float).to_numpy()[order], style, color=MUTED, linewidth=1,
                        label=lab)
        if "target" in t:
            ax.axhline(float(t["target"].astype(float).iloc[0]), color=INK, linewidth=1)
        flag = t["flag"].astype(str).to_numpy() if "flag" in t else np.array([""] * len(t))
        high = np.isin(flag, ["high", "above", "alto", "upper"])
        low = np.isin(flag, ["low", "below", "bajo", "lower"])
        ax.scatter(x[~high & ~low], y[~high & ~low], s=10, color="#9aa5b1", alpha=0.7, linewidths=0)
        ax.scatter(x[high], y[high], s=16, color=ACCENT, linewidths=0)
        ax.scatter(x[low], y[low], s=16, color=BLUE, linewidths=0)
        if "name" in t and highlight:
            idx = np.where(high)[0]
            idx = idx[np.argsort(-y[idx])][:highlight]
            for i in idx:
                ax.annotate(str(t["name"].iloc[i]), (x[i], y[i]), fontsize=6.5, color=INK,
                            xytext=(3, 2), textcoords="offset points")
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        top = np.nanpercentile(y, 99.5) if len(y) else 1
        ax.set_ylim(0, max(top * 1.1, 1))
        ax.legend(loc="upper right", fontsize=8)
        return Figure(name, "svg", _save(fig, "svg"), caption, alt or caption)


def scatter_chart(name: str, x, y, *, xlabel: str, ylabel: str, labels=None, caption: str = "",
                  alt: str = "") -> Figure:
    """A scatter of two yearly series (co-movement), each point labelled with its year."""
    with _rc():
        fig = _new_figure(4.6, 3.4)
        ax = fig.add_subplot()
        ax.scatter(x, y, color=ACCENT, s=18)
        if labels is not None:
            for xi, yi, lab in zip(x, y, labels):
                ax.annotate(str(lab), (xi, yi), fontsize=7, color=MUTED, xytext=(3, 2), textcoords="offset points")
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        return Figure(name, "svg", _save(fig, "svg"), caption, alt or caption)


# -------------------------------------------------------------------------------------------- maps

def _rings(geometry: dict) -> list[np.ndarray]:
    kind = geometry.get("type")
    coords = geometry.get("coordinates") or []
    polys = coords if kind == "MultiPolygon" else [coords] if kind == "Polygon" else []
    # outer rings only: the polygons are simplified and holes are tiny at report scale
    return [np.asarray(poly[0], dtype=float)[:, :2] for poly in polys if poly and len(poly[0]) >= 3]


class MapCanvas:
    """A map layout drawn once; :meth:`render` recolours the units and returns PNG bytes.

    For a long thin country (Chile) the mainland is cut into three latitude bands side by side, with an
    inset of the Santiago Metropolitan Region (many small communes) when it is on the map.
    """

    def __init__(self, geojson: dict, units: list[str], *, inset_region_units: list[str] | None = None,
                 offshore: tuple = ()):
        self.units = [str(u) for u in units]
        wanted = set(self.units)
        shapes: dict[str, list[np.ndarray]] = {}
        for feature in geojson.get("features", []):
            props = feature.get("properties") or {}
            code = str(props.get("unit", props.get("COMUNA", ""))).strip()
            if code.isdigit() and len(code) < 5 and geojson.get("_country", "CL") == "CL":
                code = code.zfill(5)
            if code in wanted and code not in offshore and feature.get("geometry"):
                shapes.setdefault(code, []).extend(_rings(feature["geometry"]))
        self.drawn = [u for u in self.units if u in shapes]
        self.missing_shapes = [u for u in self.units if u not in shapes and u not in offshore]
        self.offshore = [u for u in self.units if u in offshore]
        self._poly_unit: list[str] = []
        self._polys: list[np.ndarray] = []
        for u in self.drawn:
            for ring in shapes[u]:
                self._polys.append(ring)
                self._poly_unit.append(u)
        self._poly_unit_arr = np.asarray(self._poly_unit, dtype=object)
        self._build(inset_region_units or [])

    def _build(self, inset_units: list[str]) -> None:
        from .map_polygons import VisiblePolygons, closed_paths

        with _rc():
            if not self._polys:
                self.fig = None
                return
            allpts = np.concatenate(self._polys)
            lon0, lon1 = allpts[:, 0].min(), allpts[:, 0].max()
            lat0, lat1 = allpts[:, 1].min(), allpts[:, 1].max()
            aspect = 1 / np.cos(np.deg2rad((lat0 + lat1) / 2))
            tall = (lat1 - lat0) > 3.0 * (lon1 - lon0)
            inset = [u for u in inset_units if u in set(self.drawn)]
            use_inset = tall and len(inset) > 0 and len(inset) < len(self.drawn)
            self.collections = []
            paths, path_boxes = closed_paths(self._polys)  # made once, shared by every panel
            centre_lat = np.array([p[:, 1].mean() for p in self._polys])
            boxes = []
            if tall:
                # three latitude bands side by side, each as tall as the figure
                cuts = np.linspace(lat1, lat0, 4)
                for i in range(3):
                    inside = (centre_lat <= cuts[i]) & (centre_lat >= cuts[i + 1])
                    if not inside.any():
                        continue
                    pts = np.concatenate([p for p, k in zip(self._polys, inside) if k])
                    boxes.append((pts[:, 0].min(), pts[:, 0].max(), max(pts[:, 1].min(), cuts[i + 1] - 1.0),
                                  min(pts[:, 1].max(), cuts[i] + 1.0)))
                if use_inset:
                    pts = np.concatenate([p for p, u in zip(self._polys, self._poly_unit) if u in set(inset)])
                    boxes.append((pts[:, 0].min(), pts[:, 0].max(), pts[:, 1].min(), pts[:, 1].max()))
            else:
                boxes = [(lon0, lon1, lat0, lat1)]
            inset_box = boxes.pop() if (tall and use_inset) else None
            ratios = [max((b[1] - b[0]) * aspect / max(b[3] - b[2], 1e-6), 0.25) for b in boxes]
            height = 5.4 if tall else 5.0
            widths = [r * (height - 0.4) for r in ratios]
            if not tall:
                widths = [min(widths[0], 6.0)]
            side = 2.9
            self.fig = _new_figure(sum(widths) + side + 0.2, height)
            grid = self.fig.add_gridspec(2, len(boxes) + 1, width_ratios=widths + [side],
                                         height_ratios=[1, 1.1])
            map_axes = [self.fig.add_subplot(grid[:, i]) for i in range(len(boxes))]
            if inset_box is not None:
                map_axes.append(self.fig.add_subplot(grid[0, -1]))
                boxes.append(inset_box)
                self.legend_ax = self.fig.add_subplot(grid[1, -1])
            else:
                self.legend_ax = self.fig.add_subplot(grid[:, -1])
            self.fig.layout.set(w_pad=0.02, h_pad=0.02, wspace=0.03)
            self.legend_ax.axis("off")
            self.inset_ax = map_axes[-1] if (tall and use_inset) else None
            for ax, (x0, x1, y0, y1) in zip(map_axes, boxes):
                coll = VisiblePolygons(paths, path_boxes, facecolors=MISSING, edgecolors="white", linewidths=0.15)
                ax.add_collection(coll, autolim=False)
                ax.update_datalim([(x0, y0), (x1, y1)])
                ax.margins(0.02)
                ax.autoscale_view()
                ax.set_aspect(aspect, adjustable="datalim")
                ax.set_axis_off()
                self.collections.append(coll)
            if self.inset_ax is not None:
                for side in self.inset_ax.spines.values():
                    side.set_visible(True)
                self.inset_ax.set_axis_on()
                self.inset_ax.set_xticks([])
                self.inset_ax.set_yticks([])
                self.inset_ax.grid(False)
            self.title_artist = self.fig.suptitle("", x=0.01, ha="left", fontsize=13, fontweight="bold",
                                                  color=INK)

    def render(self, name: str, colours_by_unit: dict[str, str], legend: list[tuple[str, str]], *,
               title: str = "", legend_title: str = "", inset_title: str = "", caption: str = "",
               alt: str = "", dpi: int = 100) -> Figure | None:
        """Colour the units (unit -> hex colour; others in light grey) and draw a legend of (colour, label)."""
        from matplotlib.colors import to_rgba_array
        from matplotlib.patches import Patch

        if self.fig is None:
            return None
        with _rc():
            faces = to_rgba_array([colours_by_unit.get(u, MISSING) for u in self._poly_unit])  # once, not per panel
            for coll in self.collections:
                coll.set_facecolors(faces)
            self.title_artist.set_text(title)
            ax = self.legend_ax
            if ax.get_legend():
                ax.get_legend().remove()
            handles = [Patch(facecolor=c, edgecolor=MUTED, linewidth=0.4, label=lab) for c, lab in legend]
            ax.legend(handles=handles, loc="center left", title=legend_title, fontsize=11, title_fontsize=11.5,
                      alignment="left", handlelength=1.6, handleheight=1.1, borderaxespad=0)
            if self.inset_ax is not None:
                self.inset_ax.set_title(inset_title, fontsize=11, loc="left")
            return Figure(name, "png", _save(self.fig, "png", dpi=dpi, kept=True), caption, alt or caption)


def quantile_classes(values: pd.Series, k: int = 5, digits: int = 1) -> tuple[np.ndarray, list[str]]:
    """Class breaks at the quantiles of the values (rounded), and a label per class ("4.1 – 6.0")."""
    v = values.dropna().astype(float).to_numpy()
    if len(v) == 0:
        return np.array([0.0, 1.0]), ["-"]
    edges = np.unique(np.round(np.quantile(v, np.linspace(0, 1, k + 1)), digits))
    if len(edges) < 2:
        edges = np.array([edges[0], edges[0] + 10 ** -digits])
    fmt = f"{{:.{digits}f}}"
    labels = [f"{fmt.format(edges[i])} – {fmt.format(edges[i + 1])}" for i in range(len(edges) - 1)]
    return edges, labels


def sequential_colours(values: pd.Series, edges: np.ndarray) -> dict[str, str]:
    """unit -> colour of its class (values indexed by unit)."""
    ramp = _ramp(len(edges) - 1)
    v = values.dropna().astype(float)
    idx = np.clip(np.searchsorted(edges, v.to_numpy(), side="right") - 1, 0, len(edges) - 2)
    return {str(u): ramp[i] for u, i in zip(v.index, idx)}


def _ramp(n: int) -> list[str]:
    if n <= len(SEQUENTIAL):
        picks = np.round(np.linspace(0, len(SEQUENTIAL) - 1, n)).astype(int)
        return [SEQUENTIAL[i] for i in picks]
    from matplotlib import colormaps
    from matplotlib.colors import to_hex

    cmap = colormaps["Oranges"]
    return [to_hex(cmap(x)) for x in np.linspace(0.08, 0.95, n)]


def legend_for(edges: np.ndarray, labels: list[str]) -> list[tuple[str, str]]:
    return list(zip(_ramp(len(edges) - 1), labels))
