"""Work done in forked child processes while the report goes on, when a core is idle (issue 19).

Two kinds of the report's work run in children: the analyses computed ahead of their turn
(:mod:`brecha.report.ahead`: the gap against the reference, the decompositions of "Where is the gap?" and the
spatial analysis, which need only the Panel) and the Excel workbook and the dashboard
(:func:`brecha.report.build.write_report`, written while the parent writes the CSV files, the figures and the
page). (The figures were drawn in children too while matplotlib drew them; written as SVG by brecha they take
milliseconds and are made where the report builds them.) This module is what they share:
the rule deciding whether children pay, the children of one report (:class:`Children`) and a child's result
(:class:`Pending`).

Why forked children and not a pool fed with pickles: a child made by ``fork`` already holds the Panel or the
report's tables exactly as the parent has them, so nothing is copied to it and it computes the same bytes as
a serial run; a pool would have to pickle every input (measured on the default Chilean report, when the
figures were drawn in children: 0.8 s of CPU to pickle and 1.8 s to unpickle its 18 figures, against 4.1 s
to draw them). The analyses hold the GIL most of the time, so threads are out.

The rule (``jobs``):

- ``BRECHA_JOBS=1`` (or ``jobs=1``), a machine with one core, or a platform without ``fork`` (Windows; macOS,
  where forking after the GUI libraries load is unsafe): everything is done in the report's own process, in
  the serial order.
- ``BRECHA_JOBS=N`` (N > 1): at most N children at once; when all are busy the next one waits for the
  oldest. (The one rule of :func:`brecha.threads.worker_count`, which the bootstraps' threads follow too.)
- ``BRECHA_JOBS`` not set: as many children as the cores this process may use, but only when a core was
  free beside the report's own while it ran (:func:`pays`, :mod:`brecha.cores`): children have a cost (forking a
  450 MB process copies its page tables; each child's caches start cold) that only pays
  back when they get a core of their own.

A child writes ``(ok, payload, warnings)`` into a file of the report's temporary folder and ends without
running the parent's exit handlers. Its result is read by :meth:`Pending.outcome`: a child stopped by Ctrl-C
raises KeyboardInterrupt there; a child that ended without a result raises :class:`ChildDied` (the callers
turn both into their own clear message). Ctrl-C or any error in the parent ends the children still running
and removes their files (:meth:`Children.close`).
"""
from __future__ import annotations

import contextlib
import contextvars
import gc
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
    "died": ("el proceso que escribía {name} terminó sin resultado (código {code})",
             "the process writing {name} ended without a result (code {code})"),
    "failed": ("no se pudo escribir {name}: {reason}", "{name} could not be written: {reason}"),
})

INTERRUPTED = 130  # a child's exit code after Ctrl-C (as the command line's)

_CURRENT: contextvars.ContextVar = contextvars.ContextVar("brecha_children", default=None)


def default_jobs() -> int:
    """How many children may run at once: ``BRECHA_JOBS``, else the cores this process may use; the one
    rule of :func:`brecha.threads.worker_count`, so ``BRECHA_JOBS=1`` makes the whole report serial."""
    from ..threads import worker_count

    return worker_count()


def parallel_possible() -> bool:
    """Forking is available and safe here (Linux and other Unix, not macOS)."""
    return hasattr(os, "fork") and sys.platform != "darwin"


SPARE_ENOUGH = 0.5  # cores other processes left free beside the report's own: children get one of them


def pays(jobs: int) -> bool:
    """Whether children will run: asked for (``BRECHA_JOBS`` > 1), or else a core was free beside the
    report's own while it ran (:func:`brecha.cores.spare_cores` at least :data:`SPARE_ENOUGH`; where that
    cannot be measured, the one-minute load average below the cores minus one). On a machine whose cores are
    busy children only queue behind the report (measured at load 2 on 2 cores: no wall time gained, about
    5 s more CPU for the default Chilean report's figures), so there it would be a loss
    (docs/performance.md)."""
    if jobs <= 1 or not parallel_possible():
        return False
    if os.environ.get("BRECHA_JOBS", "").strip():
        return True
    from .. import cores

    spare = cores.spare_cores()
    if spare is not None:
        return spare >= SPARE_ENOUGH
    try:
        return os.getloadavg()[0] < jobs - 1
    except OSError:  # pragma: no cover - no load average: count on the cores
        return True


class WriteError(BrechaError):
    """A file written in a child (the workbook) ended without a result, or with an error that could not
    travel back."""


class ChildDied(Exception):
    """A child ended without leaving a result (killed, or ``os._exit`` in the work itself)."""

    def __init__(self, code):
        super().__init__(code)
        self.code = code


class Pending:
    """The result of work a child is doing; :meth:`outcome` waits for it."""

    def __init__(self, group: list, pid: int, path: str):
        self.group, self.pid, self.path = group, pid, path  # group: the list of running children it is in
        self.code = None  # the child's exit status, once reaped
        self._outcome = None

    def reap(self, wait: bool = True) -> bool:
        """Wait for the child to end (once; ``wait=False``: only if it has ended); it then leaves its group
        of running children. Returns whether it has ended."""
        if self.code is None:
            pid, status = os.waitpid(self.pid, 0 if wait else os.WNOHANG)
            if pid == 0:
                return False
            self.code = os.waitstatus_to_exitcode(status)
            self.group.remove(self)
        return True

    def done(self) -> bool:
        """Whether the child has ended (then reaped), without waiting for it."""
        return self.reap(wait=False)

    def outcome(self) -> tuple:
        """``(ok, payload, warnings)``: ``ok`` and the work's return value, or ``False`` and the exception it
        raised (its text when the exception does not pickle); ``warnings``: ``(message, category)`` pairs the
        work raised, for the caller to raise again. KeyboardInterrupt when Ctrl-C reached the child first,
        :class:`ChildDied` when it left nothing."""
        if self._outcome is None:
            self.reap()
            try:
                with open(self.path, "rb") as f:
                    self._outcome = pickle.load(f)
            except (OSError, EOFError, pickle.UnpicklingError):
                if self.code in (INTERRUPTED, -signal.SIGINT):
                    raise KeyboardInterrupt from None
                raise ChildDied(self.code) from None
        return self._outcome


class Children:
    """The children of one report, their results in one temporary folder: at most ``jobs`` queued ones (the
    workbook, the dashboard) at once, and the few analyses started ahead (:meth:`start`) beside
    them."""

    def __init__(self, jobs: int):
        self.jobs = jobs
        self.folder = tempfile.mkdtemp(prefix="brecha-children-")
        self.running: list[Pending] = []  # queued children not reaped yet
        self.ahead: list[Pending] = []  # children started ahead, not reaped yet
        self.count = 0

    def submit(self, work, *args) -> Pending:
        """``work(*args)`` in a new child; waits for the oldest queued child first when every slot is busy."""
        while len(self.running) >= self.jobs:
            self.running[0].reap()
        return self._fork(self.running, work, args)

    def start(self, work, *args) -> Pending:
        """``work(*args)`` in a new child at once, outside the queue: for the analyses started ahead, which
        must not hold back the figures the report makes meanwhile (one child per analysis, at most
        :data:`brecha.report.ahead` 's few)."""
        return self._fork(self.ahead, work, args)

    def _fork(self, group: list, work, args) -> Pending:
        self.count += 1
        path = os.path.join(self.folder, f"{self.count}.pickle")
        # the child's garbage collector leaves the parent's objects alone: a full collection in the child would
        # write to every one of them and so copy every page of the parent's heap (gc.freeze's documented use)
        gc.freeze()
        pid = -1
        try:
            with warnings.catch_warnings():  # Python 3.12+ warns on fork in a process with threads (BLAS)
                warnings.simplefilter("ignore", DeprecationWarning)
                pid = os.fork()
        finally:
            if pid != 0:
                gc.unfreeze()  # the parent collects as before
        if pid == 0:  # the child: work, leave the result in a file, end without running the parent's exits
            _child(work, args, path)
        pending = Pending(group, pid, path)
        group.append(pending)
        return pending

    def close(self, failed: bool) -> None:
        for child in [*self.running, *self.ahead]:
            if failed:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(child.pid, signal.SIGKILL)
            with contextlib.suppress(ChildProcessError):
                child.reap()
        shutil.rmtree(self.folder, ignore_errors=True)


def _child(work, args, path) -> None:
    code = 0
    try:
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C: the parent cleans up, the child just ends
        from .. import progress

        try:
            with warnings.catch_warnings(record=True) as caught, progress.hidden():  # bars are the parent's
                warnings.simplefilter("always")
                result = (True, work(*args))
        except Exception as exc:  # noqa: BLE001 - reported to the parent, which raises it in its own terms
            result, caught = (False, exc), []
        warned = [(w.message, w.category) for w in caught]
        try:
            blob = pickle.dumps((*result, warned), protocol=pickle.HIGHEST_PROTOCOL)
            if not result[0]:
                pickle.loads(blob)  # an exception whose class cannot be made again from its arguments
        except Exception:  # noqa: BLE001 - an error or warning that does not pickle travels as its text
            blob = pickle.dumps((False, f"{type(result[1]).__name__}: {result[1]}", []) if not result[0]
                                else (True, result[1], [(str(m), UserWarning) for m, _c in warned]))
        with open(path + ".part", "wb") as f:
            f.write(blob)
        os.replace(path + ".part", path)
    except KeyboardInterrupt:  # the parent stops as on its own Ctrl-C
        code = INTERRUPTED
    except BaseException:  # noqa: BLE001 - anything else: no result file; the parent names the work
        code = 1
    finally:
        os._exit(code)


def current() -> Children | None:
    """The children of the report being built, or None when everything is done in this process."""
    return _CURRENT.get()


@contextlib.contextmanager
def session(jobs: int | None = None):
    """Work submitted inside this block (:func:`current`) runs in forked children, when it pays (the module's
    rule). Yields the :class:`Children`, or None (serial; also inside an open session, which keeps its own)."""
    jobs = default_jobs() if jobs is None else jobs
    if not pays(jobs) or _CURRENT.get() is not None:
        yield None
        return
    children = Children(jobs)
    token = _CURRENT.set(children)
    failed = True
    try:
        yield children
        failed = False
    finally:
        _CURRENT.reset(token)
        children.close(failed)


@contextlib.contextmanager
def joined():
    """The children of the session already open (the report's, when it writes its files), else those of a
    session of its own (:func:`session`): work a caller submits joins the report's children, and its files
    can use what they left in the session's folder."""
    children = _CURRENT.get()
    if children is not None:
        yield children
        return
    with session() as own:
        yield own


def value_of(pending: Pending, died, failed):
    """What ``pending``'s work returned, as if it had run here: its warnings raised here, its error raised
    here; ``died(code)`` and ``failed(text)`` make the error for a child that left no result and for an error
    that could not travel back (the caller's own error class and words)."""
    try:
        ok, payload, warned = pending.outcome()
    except ChildDied as exc:
        raise died(exc.code) from None
    raise_warnings(warned)
    if not ok:
        if isinstance(payload, BaseException):
            raise payload
        raise failed(payload)
    return payload


def raise_warnings(warned) -> None:
    """Raise again, here, the warnings a child's work raised (as a serial run would have raised them)."""
    for message, category in warned:
        warnings.warn(message, category, stacklevel=3)
