"""Drawing the report's figures to bytes, in parallel where it pays: each figure is drawn once, in a forked
child process, while the report goes on computing; the bytes are collected before the files are written.

Why forked children and not a pool fed with pickles: a child made by ``fork`` already holds the figure (and
matplotlib's settings of that moment, ``figures._rc``) exactly as the report built it, so it draws the same
bytes as a serial run and nothing is copied to it; a pool would have to pickle every figure (measured on the
default Chilean report: 0.8 s of CPU to pickle and 1.8 s to unpickle its 18 figures, against 4.1 s to draw
them). matplotlib is not thread-safe, so threads are out.

The rule (``jobs``):

- ``BRECHA_JOBS=1`` (or ``jobs=1``), a machine with one core, or a platform without ``fork`` (Windows; macOS,
  where forking after the GUI libraries load is unsafe): every figure is drawn here, when it is made.
- ``BRECHA_JOBS=N`` (N > 1): at most N children draw at once; when all are busy the next figure waits for
  the oldest one. (The one rule of :func:`brecha.threads.worker_count`, which the bootstraps' threads follow
  too.)
- ``BRECHA_JOBS`` not set: as many children as the cores this process may use, but only when a core is
  idle (the one-minute load average below the cores minus one, :func:`pays`): children have a cost (about
  5 s more CPU for the default Chilean report) that only pays back when they get a core of their own.

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
import contextvars
import os
import pickle
import shutil
import signal
import sys
import tempfile
import warnings

from ..errors import BrechaError
from ..i18n import Catalog

MSG = Catalog({
    "failed": ("no se pudo dibujar la figura {name}: {reason}", "figure {name} could not be drawn: {reason}"),
    "died": ("el proceso que dibujaba la figura {name} terminó sin resultado (código {code})",
             "the process drawing figure {name} ended without a result (code {code})"),
})

_SESSION: contextvars.ContextVar = contextvars.ContextVar("brecha_figure_session", default=None)


class FigureError(BrechaError):
    """A figure could not be drawn (in a child process of the parallel path)."""


def default_jobs() -> int:
    """How many children may draw at once: ``BRECHA_JOBS``, else the cores this process may use; the one
    rule of :func:`brecha.threads.worker_count`, so ``BRECHA_JOBS=1`` makes the whole report serial."""
    from ..threads import worker_count

    return worker_count()


def parallel_possible() -> bool:
    """Forking is available and safe here (Linux and other Unix, not macOS)."""
    return hasattr(os, "fork") and sys.platform != "darwin"


def draw(to_bytes, fig, fmt: str, dpi: int, kept: bool = False):
    """``to_bytes(fig, fmt, dpi)``: the figure's bytes now (serial), or a :class:`Pending` drawn by a child
    while a parallel :func:`session` is open.

    ``kept``: the caller draws this figure again later (a map canvas recoloured for the next map). Drawing
    changes a figure (the layout engine places the axes, equal-aspect maps adjust their limits), and the next
    map starts from those changes; so here the parent makes them too, without painting a pixel
    (``draw_without_rendering`` at the same dpi): the next map is the same bytes as in a serial run."""
    current = _SESSION.get()
    if current is None:
        return to_bytes(fig, fmt, dpi)
    pending = current.submit(to_bytes, fig, fmt, dpi)
    if kept:
        saved = fig.dpi
        fig.dpi = dpi
        try:
            fig.draw_without_rendering()
        finally:
            fig.dpi = saved
    return pending


INTERRUPTED = 130  # a child's exit code after Ctrl-C (as the command line's)


class Pending:
    """The bytes of a figure a child is drawing; :meth:`result` waits for them."""

    def __init__(self, session, pid: int, path: str):
        self.session, self.pid, self.path = session, pid, path
        self.code = None  # the child's exit status, once reaped
        self._value = None

    def reap(self, block: bool = True) -> bool:
        if self.code is None:
            pid, status = os.waitpid(self.pid, 0 if block else os.WNOHANG)
            if pid == 0:
                return False
            self.code = os.waitstatus_to_exitcode(status)
            self.session.running.remove(self)
        return True

    def result(self, name: str = "") -> bytes:
        """The bytes; ``name`` (the figure's file name) for the messages."""
        if self._value is None:
            self.reap()
            try:
                with open(self.path, "rb") as f:
                    ok, payload, caught = pickle.load(f)
            except (OSError, EOFError, pickle.UnpicklingError):
                if self.code in (INTERRUPTED, -signal.SIGINT):  # Ctrl-C reached the child first
                    raise KeyboardInterrupt from None
                raise FigureError(MSG("died", name=name, code=self.code)) from None
            for message, category in caught:  # the drawing's warnings, as a serial run raises them
                warnings.warn(message, category, stacklevel=2)
            if not ok:
                from .calls import environment_failure

                if isinstance(payload, BaseException) and environment_failure(payload):
                    raise payload  # a full disk stops the report as in a serial run, naming the folder
                reason = f"{type(payload).__name__}: {payload}" if isinstance(payload, BaseException) else payload
                raise FigureError(MSG("failed", name=name, reason=reason))
            self._value = payload
        return self._value


class _Session:
    def __init__(self, jobs: int):
        self.jobs = jobs
        self.folder = tempfile.mkdtemp(prefix="brecha-figures-")
        self.running: list[Pending] = []
        self.count = 0

    def submit(self, to_bytes, fig, *args) -> Pending:
        while len(self.running) >= self.jobs:  # every slot busy: wait for the oldest child
            self.running[0].reap()
        self.count += 1
        path = os.path.join(self.folder, f"{self.count}.pickle")
        with warnings.catch_warnings():  # Python 3.12+ warns on fork in a process with threads (BLAS)
            warnings.simplefilter("ignore", DeprecationWarning)
            pid = os.fork()
        if pid == 0:  # the child: draw, leave the result in a file, end without running the parent's exits
            _child(to_bytes, fig, args, path)
        pending = Pending(self, pid, path)
        self.running.append(pending)
        return pending

    def close(self, failed: bool) -> None:
        for child in list(self.running):
            if failed:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(child.pid, signal.SIGKILL)
            with contextlib.suppress(ChildProcessError):
                child.reap()
        shutil.rmtree(self.folder, ignore_errors=True)


def _child(to_bytes, fig, args, path) -> None:
    code = 0
    try:
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C: the parent cleans up, the child just ends
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                result = (True, to_bytes(fig, *args))
        except Exception as exc:  # noqa: BLE001 - reported to the parent (a FigureError, or a full disk as is)
            result, caught = (False, exc), []
        warned = [(w.message, w.category) for w in caught]
        try:
            blob = pickle.dumps((*result, warned), protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:  # noqa: BLE001 - an error or warning that does not pickle travels as its text
            blob = pickle.dumps((False, f"{type(result[1]).__name__}: {result[1]}", []) if not result[0]
                                else (True, result[1], [(str(m), UserWarning) for m, _c in warned]))
        with open(path + ".part", "wb") as f:
            f.write(blob)
        os.replace(path + ".part", path)
    except KeyboardInterrupt:  # the parent stops as on its own Ctrl-C
        code = INTERRUPTED
    except BaseException:  # noqa: BLE001 - anything else: no result file; the parent names the figure
        code = 1
    finally:
        os._exit(code)


def pays(jobs: int) -> bool:
    """Whether children will draw: asked for (``BRECHA_JOBS`` > 1), or else a core is idle. Children cost
    the default Chilean report about 5 s more CPU (each starts with matplotlib's text caches cold; forking a
    470 MB process 18 times copies page tables and pages written after it); on a machine whose cores are
    busy they only queue behind the report (measured at load 2 on 2 cores: no wall time gained), so there
    it would be a loss (docs/performance.md)."""
    if jobs <= 1 or not parallel_possible():
        return False
    if os.environ.get("BRECHA_JOBS", "").strip():
        return True
    try:
        return os.getloadavg()[0] < jobs - 1
    except OSError:  # pragma: no cover - no load average: count on the cores
        return True


@contextlib.contextmanager
def session(jobs: int | None = None):
    """Draw the figures made inside this block in forked children (when it pays; see the module's rule).
    Yields a function that turns every :class:`Pending` of a list of ``Figure`` s into its bytes."""
    jobs = default_jobs() if jobs is None else jobs
    if not pays(jobs) or _SESSION.get() is not None:
        yield _resolve
        return
    current = _Session(jobs)
    token = _SESSION.set(current)
    failed = True
    try:
        yield _resolve
        failed = False
    finally:
        _SESSION.reset(token)
        current.close(failed)


def _resolve(figures) -> None:
    for fig in figures:
        if isinstance(fig.data, Pending):
            fig.data = fig.data.result(fig.filename)
