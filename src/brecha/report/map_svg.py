"""What every map of the report shares, written as SVG (:mod:`brecha.report.svg`): the title, the legend of
colours (and of sizes), and :class:`ColouredMap`, the canvas laid out once and recoloured for every map.

A map canvas (:class:`brecha.report.polygon_map.PolygonMap`, and the symbol and tile maps of
:mod:`brecha.report.symbol_maps`) computes its geometry once: the units' shapes as SVG text, placed on the
page. :meth:`ColouredMap.render` then only writes each shape with its unit's colour (``unit -> colour``,
light grey for a unit without one), the map's title and its legend, and returns the SVG
:class:`~brecha.report.figures.Figure`. Drawn as matplotlib did before (issue 19): the same layout, colours,
sizes (inches x 72 points) and texts; the maps are now vector drawings instead of 100-dpi PNG pictures.
"""
from __future__ import annotations

from .figures import INK, MUTED, Figure
from .svg import Svg, text_width

TITLE_SIZE = 13.0


def draw_legend(svg: Svg, x: float, middle: float, entries: list[tuple[str, str]], title: str = "", *,
                size: float = 11.0) -> float:
    """A legend of colour swatches (``(colour, label)``) starting at ``x``, centred vertically on ``middle``,
    as matplotlib's legend set it (a 1.6 x 1.1 em swatch edged in grey, labels 0.8 em after it, rows 0.5 em
    apart, the title 0.05 em larger above). Returns its width."""
    row = size * 1.6  # a row: the swatch's 1.1 em and 0.5 em between rows
    title_size = size + 0.5
    height = len(entries) * row + (title_size * 1.6 if title else 0)
    y = middle - height / 2
    if title:
        svg.text(x, y, title, size=title_size, colour=INK, valign="top")
        y += title_size * 1.6
    for colour, label in entries:
        svg.rect(x, y + size * 0.25, size * 1.6, size * 1.1, fill=colour, stroke=MUTED, width=0.4)
        svg.text(x + size * 2.4, y + size * 0.8, label, size=size, colour=INK, valign="center")
        y += row
    return legend_width(entries, title, size=size)


def legend_width(entries: list[tuple[str, str]], title: str = "", *, size: float = 11.0) -> float:
    """The width in points of :func:`draw_legend`'s legend: its title or its widest swatch and label."""
    widths = [text_width(title, size + 0.5)] if title else []
    return max(widths + [size * 2.4 + text_width(label, size) for _, label in entries], default=0.0)


class ColouredMap:
    """A map drawn once and recoloured: subclasses set ``width``, ``height`` (points), ``drawn`` (the units
    shown), ``legend_box`` (``x, top, bottom`` of the legend's room) and write :meth:`shapes`."""

    width: float = 0.0
    height: float = 0.0
    legend_size = 11.0
    drawn: list[str]
    missing_shapes: list[str]
    offshore: list[str]

    @property
    def fig(self):
        """Something to draw (kept from the matplotlib canvases: None when no unit has a shape)."""
        return self if self.drawn else None

    def shapes(self, svg: Svg, colours: dict[str, str], inset_title: str) -> None:
        raise NotImplementedError

    def extra_legend(self, svg: Svg) -> None:
        """Anything drawn beside the colour legend (the symbol map's sizes)."""

    def render(self, name: str, colours_by_unit: dict[str, str], legend: list[tuple[str, str]], *,
               title: str = "", legend_title: str = "", inset_title: str = "", caption: str = "",
               alt: str = "", dpi: int = 100) -> Figure | None:
        """The map with each unit in its colour (``unit -> colour``; others light grey), ``legend`` of
        ``(colour, label)``, the title and the inset's title. The picture is widened when the legend's
        longest label (or the title) would pass its right edge. ``dpi`` is accepted for the callers of the
        raster maps and not used: the map is a vector drawing."""
        if not self.drawn:
            return None
        x, top, bottom = self.legend_box
        width = max(self.width, x + legend_width(legend, legend_title, size=self.legend_size) + 6,
                    self.width * 0.01 + text_width(title, TITLE_SIZE, bold=True) + 6)
        svg = Svg(width, self.height, title=title)
        self.shapes(svg, {str(u): c for u, c in colours_by_unit.items()}, inset_title)
        draw_legend(svg, x, (top + bottom) / 2, legend, legend_title, size=self.legend_size)
        self.extra_legend(svg)
        svg.text(self.width * 0.01, 4.0, title, size=TITLE_SIZE, colour=INK, bold=True, valign="top")
        return Figure(name, "svg", svg.to_bytes(), caption, alt or caption)

