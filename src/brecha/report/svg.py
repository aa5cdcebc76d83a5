"""Figures written as SVG text by brecha itself: the primitives (lines, polygons, circles, texts, clipping) and
the width of a text in the report's font.

Why not matplotlib (issue 19): the report's figures are lines, bars, dots and coloured polygons. matplotlib
drew them through its artist tree and layout engine: importing it took about 0.75 s of CPU, and drawing the
default Chilean report's 18 figures about 3-4 s more (its maps rasterised to PNG), about a quarter of the
report's CPU. Written here, a figure is a list of SVG elements computed with numpy: milliseconds. matplotlib
is still used where brecha writes PNG files for print (``brecha trends --method joinpoint --plot x.png``).

Coordinates are points (1/72 inch), the SVG's ``viewBox`` and its ``width``/``height`` in ``pt``, as
matplotlib's SVGs; font sizes are points too. Texts are placed from the font's metrics (DejaVu Sans, the
report's font, with Verdana/sans-serif as fallbacks in a browser that lacks it): :func:`text_width` sums the
characters' advance widths, read once from DejaVu Sans's files (regular and bold; thousandths of an em) and
kept below as numbers. A character not listed counts as 0.6 em.
"""
from __future__ import annotations

import math
import re
from html import escape as _escape

import numpy as np

FONT = "DejaVu Sans, Verdana, sans-serif"
# advance widths of DejaVu Sans (thousandths of an em): characters 32-126, then others the report writes
REGULAR_ASCII = (318, 401, 460, 838, 636, 950, 780, 275, 390, 390, 500, 838, 318, 361, 318, 337, 636, 636, 636, 636, 636, 636, 636, 636, 636, 636, 337, 337, 838, 838, 838, 531, 1000, 684, 686, 698, 770, 632, 575, 775, 752, 295, 295, 656, 557, 863, 748, 787, 603, 787, 695, 635, 611, 732, 684, 989, 685, 611, 685, 390, 337, 390, 838, 500, 500, 613, 635, 550, 635, 615, 352, 635, 634, 278, 278, 579, 278, 974, 634, 612, 635, 635, 411, 521, 392, 634, 592, 818, 592, 592, 525, 636, 337, 636, 838)
REGULAR_MORE = {'á': 613, 'é': 615, 'í': 278, 'ó': 612, 'ú': 634, 'ñ': 634, 'Á': 684, 'É': 632, 'Í': 295, 'Ó': 787, 'Ú': 732, 'Ñ': 748, 'ü': 634, 'Ü': 732, 'ç': 550, 'ã': 613, 'õ': 612, 'â': 613, 'ê': 615, 'ô': 612, 'à': 613, 'Ç': 698, 'Ã': 684, 'Õ': 787, 'Â': 684, 'Ê': 632, 'Ô': 787, '–': 500, '—': 1000, '…': 1000, '·': 318, '×': 838, '°': 500, '’': 318, '≥': 838, '≤': 838, '−': 838}
BOLD_ASCII = (348, 456, 521, 838, 696, 1002, 872, 306, 457, 457, 523, 838, 380, 415, 380, 365, 696, 696, 696, 696, 696, 696, 696, 696, 696, 696, 400, 400, 838, 838, 838, 580, 1000, 774, 762, 734, 830, 683, 683, 821, 837, 372, 372, 775, 637, 995, 837, 850, 733, 850, 770, 720, 682, 812, 774, 1103, 771, 724, 725, 457, 365, 457, 838, 500, 500, 675, 716, 593, 716, 678, 435, 716, 712, 343, 343, 665, 343, 1042, 712, 687, 716, 716, 493, 595, 478, 712, 652, 924, 645, 652, 582, 712, 365, 712, 838)
BOLD_MORE = {'á': 675, 'é': 678, 'í': 343, 'ó': 687, 'ú': 712, 'ñ': 712, 'Á': 774, 'É': 683, 'Í': 372, 'Ó': 850, 'Ú': 812, 'Ñ': 837, 'ü': 712, 'Ü': 812, 'ç': 593, 'ã': 675, 'õ': 687, 'â': 675, 'ê': 678, 'ô': 687, 'à': 675, 'Ç': 734, 'Ã': 774, 'Õ': 850, 'Â': 774, 'Ê': 683, 'Ô': 850, '–': 500, '—': 1000, '…': 1000, '·': 380, '×': 838, '°': 500, '’': 380, '≥': 838, '≤': 838, '−': 838}
UNKNOWN_WIDTH = 600
_NOT_XML = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")  # characters XML 1.0 does not allow at all


def escape(text: str) -> str:
    """Text for an SVG element: ``&``, ``<`` and ``>`` escaped, control characters XML forbids (a vertical tab
    in a unit's name read from a user's file) left out, so the figure stays valid XML."""
    return _escape(_NOT_XML.sub("", str(text)), quote=False)
# where a text's baseline sits from the point it is aligned on, in ems of its size (DejaVu Sans: capital
# height 0.73, descent 0.24): centred on the digits' middle, hanging from the capitals' top, resting on the
# descenders' bottom
BASELINE_SHIFT = {"baseline": 0.0, "center": 0.36, "top": 0.76, "bottom": -0.24}


def text_width(text: str, size: float, bold: bool = False) -> float:
    """The width in points of ``text`` set in DejaVu Sans at ``size`` points (no kerning)."""
    ascii_, more = (BOLD_ASCII, BOLD_MORE) if bold else (REGULAR_ASCII, REGULAR_MORE)
    total = 0
    for ch in str(text):
        code = ord(ch)
        total += ascii_[code - 32] if 32 <= code < 127 else more.get(ch, UNKNOWN_WIDTH)
    return total * size / 1000


def num(value: float) -> str:
    """A coordinate as short text: two decimals (1/7200 inch), trailing zeros dropped."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _style(fill=None, stroke=None, width=None, dash=None, opacity=None, fill_opacity=None) -> str:
    out = [f'fill="{fill or "none"}"']
    if stroke:
        out.append(f'stroke="{stroke}"')
        if width is not None:
            out.append(f'stroke-width="{num(width)}"')
        if dash:
            out.append(f'stroke-dasharray="{dash}"')
    if opacity is not None:
        out.append(f'opacity="{num(opacity)}"')
    if fill_opacity is not None:
        out.append(f'fill-opacity="{num(fill_opacity)}"')
    return " ".join(out)


def path_data(xs, ys, *, close: bool = False) -> str:
    """``M x y L x y ...`` through the points, a new ``M`` after every missing (NaN) point (a broken line);
    ``close`` ends each piece with ``Z``."""
    xs, ys = np.asarray(xs, dtype=float), np.asarray(ys, dtype=float)
    ok = np.isfinite(xs) & np.isfinite(ys)
    out, start = [], True
    for x, y, good in zip(xs.tolist(), ys.tolist(), ok.tolist()):
        if not good:
            if close and not start:
                out.append("Z")
            start = True
            continue
        out.append(f"{'M' if start else 'L'}{num(x)} {num(y)}")
        start = False
    if close and not start:
        out.append("Z")
    return "".join(out)


class Svg:
    """An SVG picture ``width`` x ``height`` points on a white ground; elements are added in drawing order
    (later on top) and :meth:`to_bytes` writes the file."""

    def __init__(self, width: float, height: float, *, title: str = ""):
        self.width, self.height = float(width), float(height)
        self.parts: list[str] = []
        self.defs: list[str] = []
        self.title = title
        self._clips = 0

    def add(self, element: str) -> None:
        self.parts.append(element)

    def clip(self, x: float, y: float, w: float, h: float) -> str:
        """A clipping rectangle; returns the value for ``clip-path``."""
        self._clips += 1
        name = f"c{self._clips}"
        self.defs.append(f'<clipPath id="{name}"><rect x="{num(x)}" y="{num(y)}" width="{num(w)}" '
                         f'height="{num(h)}"/></clipPath>')
        return f"url(#{name})"

    def open(self, *, clip: str | None = None, transform: str | None = None, **style) -> None:
        """A group: what is added until :meth:`close` is clipped, transformed and styled alike."""
        attrs = []
        if clip:
            attrs.append(f'clip-path="{clip}"')
        if transform:
            attrs.append(f'transform="{transform}"')
        attrs += [f'{key.replace("_", "-")}="{value}"' for key, value in style.items() if value is not None]
        self.parts.append(f"<g {' '.join(attrs)}>" if attrs else "<g>")

    def close(self) -> None:
        self.parts.append("</g>")

    def rect(self, x, y, w, h, *, fill=None, stroke=None, width=None, opacity=None) -> None:
        self.parts.append(f'<rect x="{num(x)}" y="{num(y)}" width="{num(w)}" height="{num(h)}" '
                          f'{_style(fill, stroke, width, None, opacity)}/>')

    def line(self, x1, y1, x2, y2, *, stroke, width=0.8, dash=None) -> None:
        self.lines([((x1, y1), (x2, y2))], stroke=stroke, width=width, dash=dash)

    def lines(self, segments, *, stroke, width=0.8, dash=None) -> None:
        """Separate straight segments ``((x1, y1), (x2, y2))`` as one path."""
        d = "".join(f"M{num(a[0])} {num(a[1])}L{num(b[0])} {num(b[1])}" for a, b in segments)
        if d:
            self.parts.append(f'<path d="{d}" {_style(None, stroke, width, dash)}/>')

    def polyline(self, xs, ys, *, stroke, width=1.0, dash=None, opacity=None) -> None:
        """A line through the points, broken where a point is missing."""
        d = path_data(xs, ys)
        if d:
            self.parts.append(f'<path d="{d}" {_style(None, stroke, width, dash, opacity)} '
                              f'stroke-linejoin="round"/>')

    def polygon(self, xs, ys, *, fill, opacity=None, stroke=None, width=None) -> None:
        d = path_data(xs, ys, close=True)
        if d:
            self.parts.append(f'<path d="{d}" {_style(fill, stroke, width, None, None, opacity)}/>')

    def path(self, d: str, *, fill=None, stroke=None, width=None, dash=None, opacity=None) -> None:
        if d:
            self.parts.append(f'<path d="{d}" {_style(fill, stroke, width, dash, opacity)}/>')

    def circles(self, xs, ys, r, *, fill, stroke=None, width=None, opacity=None) -> None:
        """Circles of radius ``r`` (one number, or one per point) at the points; missing points skipped."""
        xs, ys = np.asarray(xs, dtype=float), np.asarray(ys, dtype=float)
        radii = np.broadcast_to(np.asarray(r, dtype=float), xs.shape)
        ok = np.isfinite(xs) & np.isfinite(ys) & np.isfinite(radii)
        if not ok.any():
            return
        self.open(**{"fill": fill, "stroke": stroke, "stroke_width": None if width is None else num(width),
                     "fill_opacity": None if opacity is None else num(opacity)})
        self.parts.extend(f'<circle cx="{num(x)}" cy="{num(y)}" r="{num(rr)}"/>'
                          for x, y, rr in zip(xs[ok].tolist(), ys[ok].tolist(), radii[ok].tolist()))
        self.close()

    def text(self, x, y, text, *, size=9.0, colour="#1f2933", anchor="start", valign="baseline", bold=False,
             rotate: float | None = None, halo: bool = False) -> None:
        """``text`` at ``(x, y)``: ``anchor`` start/middle/end, ``valign`` baseline/center/top/bottom (placed from
        the font's metrics, not the viewer's baseline rules); ``rotate`` degrees clockwise about the point;
        ``halo`` a white outline behind the letters, readable over lines."""
        if text is None or str(text) == "":
            return
        shift = BASELINE_SHIFT[valign] * size
        if rotate:  # the shift is along the rotated text's vertical
            rad = math.radians(rotate)
            tx, ty = x - math.sin(rad) * shift, y + math.cos(rad) * shift
        else:
            tx, ty = x, y + shift
        attrs = [f'x="{num(tx)}" y="{num(ty)}" font-size="{num(size)}" fill="{colour}"']
        if anchor != "start":
            attrs.append(f'text-anchor="{anchor}"')
        if bold:
            attrs.append('font-weight="bold"')
        if rotate:
            attrs.append(f'transform="rotate({num(rotate)} {num(tx)} {num(ty)})"')
        if halo:
            attrs.append('stroke="#ffffff" stroke-width="2.5" paint-order="stroke" stroke-linejoin="round"')
        self.parts.append(f"<text {' '.join(attrs)}>{escape(text)}</text>")

    def to_bytes(self) -> bytes:
        w, h = num(self.width), num(self.height)
        head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}pt" height="{h}pt" viewBox="0 0 {w} {h}" '
                f'font-family="{FONT}">')
        title = f"<title>{escape(self.title)}</title>" if self.title else ""
        defs = f"<defs>{''.join(self.defs)}</defs>" if self.defs else ""
        ground = f'<rect width="{w}" height="{h}" fill="#ffffff"/>'
        return "\n".join(['<?xml version="1.0" encoding="utf-8"?>', head + title + defs + ground,
                          *self.parts, "</svg>", ""]).encode("utf-8")
