"""The report's style in matplotlib, for the figures brecha writes as PNG or PDF files: ``brecha trends --method
joinpoint --plot x.png`` (:mod:`brecha.report.figures_print`). The report's own figures are SVG written by
brecha (:mod:`brecha.report.figures`) and do not load matplotlib.

:func:`style` is the report's look (DejaVu Sans 9 pt, grey axes on the left and bottom, a light grid under the
data); :func:`new_figure` a figure on the Agg canvas (no pyplot state), laid out once per drawing
(:mod:`brecha.report.layout_once`); :func:`figure_bytes` its file's bytes.
"""
from __future__ import annotations

import io

from .figures import GRID, INK, MUTED


def style():
    import matplotlib

    return matplotlib.rc_context({
        "font.family": ["DejaVu Sans"], "font.size": 9, "axes.edgecolor": MUTED, "axes.labelcolor": INK,
        "xtick.color": MUTED, "ytick.color": MUTED, "axes.spines.top": False, "axes.spines.right": False,
        "axes.grid": True, "grid.color": GRID, "grid.linewidth": 0.8, "axes.axisbelow": True,
        "svg.fonttype": "none", "svg.hashsalt": "brecha", "legend.frameon": False,
        "axes.titlesize": 10, "axes.titleweight": "bold", "axes.titlelocation": "left",
    })


def new_figure(width: float, height: float, layout: str | None = "constrained"):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure as MplFigure

    if layout == "constrained":  # laid out once per drawing, not twice (layout_once.py)
        from .layout_once import OneLayoutFigure

        fig = OneLayoutFigure(figsize=(width, height))
    else:
        fig = MplFigure(figsize=(width, height), layout=layout)
    FigureCanvasAgg(fig)
    return fig


def figure_bytes(fig, fmt: str, dpi: int = 110) -> bytes:
    """The figure written as ``fmt`` (png, pdf, svg, ...) at ``dpi``, without a date or software stamp (the
    same figure gives the same bytes); PNG through :func:`brecha.report.png_bytes.png_bytes`."""
    if fmt == "png":  # the same pixels, compressed faster (png_bytes.py)
        from .png_bytes import png_bytes

        return png_bytes(fig, dpi)
    buf = io.BytesIO()
    kwargs = {"metadata": {"Date": None}} if fmt == "svg" else {"metadata": {"Software": None}}
    fig.savefig(buf, format=fmt, dpi=dpi, facecolor="white", **kwargs)
    return buf.getvalue()
