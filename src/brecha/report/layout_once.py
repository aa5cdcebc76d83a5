"""A matplotlib figure whose constrained layout is computed once per drawing, not twice.

``savefig`` of a figure with a layout engine draws it twice: a first pass with painting disabled, in which
the engine places the axes (and every tick, label and legend is laid out), then the real drawing with the
engine switched off (``FigureCanvasBase.print_figure``). The first pass only serves the layout, and the
layout alone needs far less: the engine measures each axes' tight box itself. This figure keeps its
:class:`~matplotlib.layout_engine.ConstrainedLayoutEngine` to itself (``layout``) and runs it at the start of
each drawing, so ``savefig`` sees no layout engine and draws once. The axes are placed by the same engine
from the same state (nothing is drawn between the two in either path), so the files are the same bytes as
with ``Figure(layout="constrained")`` (checked on every figure of the default Chilean report; about 10-20 %
less CPU per chart, issue 19, docs/performance.md "Drawing the report's figures").
"""
from __future__ import annotations

from matplotlib.figure import Figure
from matplotlib.layout_engine import ConstrainedLayoutEngine


class OneLayoutFigure(Figure):
    """``Figure(layout=None)`` whose ``draw`` first runs its own constrained layout (``self.layout``; its
    pads set with ``self.layout.set(...)`` as ``get_layout_engine().set(...)`` would)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, layout=None, **kwargs)
        self.layout = ConstrainedLayoutEngine()

    def draw(self, renderer):
        if self.get_visible() and self.axes:
            try:
                self.layout.execute(self)
            except ValueError:  # as Figure.draw: a figure too small for its decorations is drawn as it is
                pass
        super().draw(renderer)
