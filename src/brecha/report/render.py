"""Drawing the report's figures to bytes, in parallel where it pays: each figure is drawn once, in a forked
child process (:mod:`brecha.report.forked`, which has the rule: ``BRECHA_JOBS``, or a core idle), while the
report goes on computing; the bytes are collected before the files are written.

A child made by ``fork`` already holds the figure (and matplotlib's settings of that moment,
``figures._rc``) exactly as the report built it, so it draws the same bytes as a serial run and nothing is
copied to it.

A figure in a child is drawn from the same objects as in a serial run. Drawing changes a figure, so a map
canvas drawn again later (:class:`brecha.report.figures.MapCanvas`) is also laid out in the parent without
painting (``kept`` in :func:`draw`): its next map starts from the same state in both paths, and the files
are the same bytes (``tests/report/test_render.py``). Warnings a drawing raises are raised again in the
parent when its bytes are collected. A child that fails or dies stops the report with :class:`FigureError`,
naming the figure and the reason (a full disk stops it as in a serial run, naming the folder); Ctrl-C (or
any error) ends the children still drawing and removes their files.
"""
from __future__ import annotations

import contextlib

from ..errors import BrechaError
from ..i18n import Catalog
from . import forked
from .forked import default_jobs, parallel_possible, pays  # noqa: F401 - importable from here

MSG = Catalog({
    "failed": ("no se pudo dibujar la figura {name}: {reason}", "figure {name} could not be drawn: {reason}"),
    "died": ("el proceso que dibujaba la figura {name} terminó sin resultado (código {code})",
             "the process drawing figure {name} ended without a result (code {code})"),
})


class FigureError(BrechaError):
    """A figure could not be drawn (in a child process of the parallel path)."""


BATCH = 3  # figures drawn by one child: fewer forks, and each child's text caches serve several figures


def draw(to_bytes, fig, fmt: str, dpi: int, kept: bool = False):
    """``to_bytes(fig, fmt, dpi)``: the figure's bytes now (serial), or a :class:`Pending` a child will draw
    while a parallel :func:`session` is open.

    The figures are handed to children :data:`BATCH` at a time: a figure waits in the open batch with a copy
    of matplotlib's settings of this moment (``figures._rc``, which ``savefig`` and the text renderer read),
    and the child draws each under its own copy, so the bytes are a serial run's. The figures still waiting
    when the report collects them (:func:`session`'s function) are drawn here, where the report would
    otherwise only wait.

    ``kept``: the caller draws this figure again later (a map canvas recoloured for the next map). Drawing
    changes a figure (the layout engine places the axes, equal-aspect maps adjust their limits), and the next
    map starts from those changes; so its batch goes to a child now, while the figure is as it is, and here
    the parent makes the same changes without painting a pixel (``draw_without_rendering`` at the same dpi):
    the next map is the same bytes as in a serial run."""
    children = forked.current()
    if children is None:
        return to_bytes(fig, fmt, dpi)
    import matplotlib

    batch = children.shared.get("figures")
    if batch is None or batch.child is not None:
        batch = children.shared["figures"] = _Batch()
    pending = Pending(batch, len(batch.items))
    rc = dict(matplotlib.rcParams.copy())  # as matplotlib.rc_context copies them
    del rc["backend"]
    batch.items.append((to_bytes, fig, fmt, dpi, rc))
    if kept or len(batch.items) >= BATCH:
        batch.child = children.submit(_draw_batch, batch.items)
    if kept:
        saved = fig.dpi
        fig.dpi = dpi
        try:
            fig.draw_without_rendering()
        finally:
            fig.dpi = saved
    return pending


@contextlib.contextmanager
def _settings(rc: dict):
    """matplotlib's settings as they were copied, set as matplotlib.rc_context restores its own copy (without
    validating again: they were valid then)."""
    import matplotlib

    with matplotlib.rc_context():
        dict.update(matplotlib.rcParams, rc)
        yield


def _draw_batch(items) -> list:
    """In a child: each figure's ``(True, bytes)`` or ``(False, error)``; an error that is not the
    environment's (a full disk) travels as its text, which always pickles."""
    from .calls import environment_failure

    out = []
    for to_bytes, fig, fmt, dpi, rc in items:
        try:
            with _settings(rc):
                out.append((True, to_bytes(fig, fmt, dpi)))
        except Exception as exc:  # noqa: BLE001 - reported to the parent, naming the figure
            out.append((False, exc if environment_failure(exc) else f"{type(exc).__name__}: {exc}"))
    return out


class _Batch:
    """Figures handed to one child (``child``, once submitted), or still waiting."""

    def __init__(self):
        self.items: list = []
        self.child: forked.Pending | None = None
        self.drawn: list | None = None  # each figure's (ok, bytes or error), once known

    def outcome(self, index: int, name: str):
        if self.drawn is None:
            if self.child is None:  # never handed to a child: drawn here, as in a serial run
                self.drawn = []
                for to_bytes, fig, fmt, dpi, rc in self.items:
                    with _settings(rc):
                        self.drawn.append((True, to_bytes(fig, fmt, dpi)))
            else:
                try:
                    ok, payload, warned = self.child.outcome()
                except forked.ChildDied as exc:
                    raise FigureError(MSG("died", name=name, code=exc.code)) from None
                forked.raise_warnings(warned)  # the drawings' warnings, as a serial run raises them
                self.drawn = payload if ok else [(False, payload)] * len(self.items)
        return self.drawn[index]


class Pending:
    """The bytes of a figure a child is drawing (or will draw); :meth:`result` waits for them."""

    def __init__(self, batch: _Batch, index: int):
        self.batch, self.index = batch, index
        self._value = None

    def result(self, name: str = "") -> bytes:
        """The bytes; ``name`` (the figure's file name) for the messages."""
        if self._value is None:
            ok, payload = self.batch.outcome(self.index, name)
            if not ok:
                from .calls import environment_failure

                if isinstance(payload, BaseException) and environment_failure(payload):
                    raise payload  # a full disk stops the report as in a serial run, naming the folder
                reason = f"{type(payload).__name__}: {payload}" if isinstance(payload, BaseException) else payload
                raise FigureError(MSG("failed", name=name, reason=reason))
            self._value = payload
        return self._value


@contextlib.contextmanager
def session(jobs: int | None = None):
    """Draw the figures made inside this block in forked children (when it pays; :mod:`brecha.report.forked`).
    Yields a function that turns every :class:`Pending` of a list of ``Figure`` s into its bytes."""
    with forked.session(jobs):
        yield _resolve


def _resolve(figures) -> None:
    for fig in figures:
        if isinstance(fig.data, Pending):
            fig.data = fig.data.result(fig.filename)
