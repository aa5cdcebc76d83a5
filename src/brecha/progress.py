"""Progress of long work: bars on a terminal when asked for, nothing otherwise.

Code that may run for more than about a second announces its work::

    from brecha import progress

    with progress.task("bootstrap", total=len(periods)) as step:
        for period in periods:
            ...
            step()            # one more done (step(5): five more)

``task`` prints nothing and costs nothing unless progress was switched on for the current context with
:func:`shown` (or :func:`for_terminal`). So the Python API is silent by default, analyses stay pure (they
never decide to print), and a notebook user opts in::

    from brecha import progress
    with progress.shown():
        inequality(panel, bootstrap=2000)

The CLI switches progress on with ``for_terminal(sys.stderr, quiet=args.quiet)``: only when stderr is a
terminal and ``--quiet`` was not given. Bars go to stderr and are erased when their task ends, so stdout
holds only results and a pipe or a file never receives progress bytes or terminal escape codes.

The first argument of ``task`` is the name of a label in :data:`LABELS` (bilingual, formatted with the
keyword arguments), or any text, shown as given.

Why a context variable (:mod:`contextvars`) and not a module flag: switching progress on in one thread,
one asyncio task or one ``with`` block does not leak into another, and leaving the block always restores
the previous state.

The bars are rich's (``rich.progress``), imported only when the first bar is drawn, so a run with progress
off (a pipe, a file, ``--quiet``, the Python API) never pays for the import. Measured on this project's
machine, on top of ``import pandas, numpy`` (15 runs each): tqdm 28 ms (median 77 ms), ``rich.progress``
133 ms (median 163 ms). tqdm is lighter, but it redraws a bar only when the code reports a step: during
one long call we cannot divide (polars reading a DEIS file: 12.5 of the 17 s of a 3-million-record
ingest; a report's maps or models) its clock would stand still and the run would look hung. rich redraws
from its own thread (spinner and elapsed time keep moving) and also renders in Jupyter; 0.1 s more, only
when bars are shown, buys that.
"""
from __future__ import annotations

import sys
from contextlib import contextmanager
from contextvars import ContextVar

from .i18n import Catalog

LABELS = Catalog({
    "report": ("Informe", "Report"),
    "bootstrap": ("Bootstrap ({replicates} {replicates:réplica|réplicas} por período)",
                  "Bootstrap ({replicates} {replicates:replicate|replicates} per period)"),
    "permutations": ("Joinpoint: pruebas de permutación por unidad", "Joinpoint: permutation tests per unit"),
    "models": ("Modelos", "Models"),
    "deis_read": ("Microdatos DEIS: leyendo {files}", "DEIS microdata: reading {files}"),
    "deis_panel": ("Microdatos DEIS: armando el panel", "DEIS microdata: building the panel"),
    "synthetic": ("Escribiendo {file} (filas)", "Writing {file} (rows)"),
})

# The Bars object of the current context, or None: progress off (the default).
_CURRENT: ContextVar["Bars | None"] = ContextVar("brecha_progress", default=None)


class Bars:
    """Where bars are drawn (``stream``, a terminal) and the rich display holding them: one display for all
    open tasks (a task inside another gets its own line below), started with the first task and erased when
    the last one ends."""

    def __init__(self, stream=None, refresh_per_second: float = 8):
        self.stream = stream if stream is not None else sys.stderr
        self.refresh_per_second = refresh_per_second
        self.display = None  # rich.progress.Progress while a task is open
        self.open = 0

    def bar(self, label: str, total):
        if self.display is None:
            self.display = self._start()
        self.open += 1
        return _Bar(self.display, self.display.add_task(label, total=total))

    def closed(self, bar) -> None:
        self.open -= 1
        if self.open:
            self.display.remove_task(bar.task)
        else:  # the last one: drawn once more as it ended, then erased (transient): results stay, bars go
            self.display.stop()
            self.display = None

    def _start(self):
        from rich.console import Console  # here, not at the top: a run without bars never imports rich
        from rich.progress import (BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn,
                                   TimeElapsedColumn)

        console = Console(file=self.stream, highlight=False)
        # stdout and stderr are left alone: results printed meanwhile must stay on stdout (a pipe, a file)
        display = Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                           TimeElapsedColumn(), console=console, transient=True, redirect_stdout=False,
                           redirect_stderr=False, refresh_per_second=self.refresh_per_second)
        display.start()
        return display

    def print(self, text: str) -> None:
        """A line above the bars (on their stream)."""
        self.display.console.print(text, markup=False, highlight=False, soft_wrap=True)


class _Bar:
    def __init__(self, display, task):
        self.display = display
        self.task = task

    def update(self, advance: float) -> None:
        self.display.advance(self.task, advance)

    def set_description(self, text: str) -> None:
        # drawn now: a step shorter than the refresh interval is still named once (few calls: one per step)
        self.display.update(self.task, description=text, refresh=True)


class _Step:
    """What ``task`` yields: call it to advance; ``describe(text)`` names what is being done now."""

    def __init__(self, bar=None, label: str = ""):
        self._bar = bar
        self._label = label

    def __call__(self, advance: float = 1) -> None:
        if self._bar is not None:
            self._bar.update(advance)

    def describe(self, text: str) -> None:
        if self._bar is not None:
            self._bar.set_description(f"{self._label}: {text}" if text else self._label)


_SILENT = _Step()


def label(name: str, **fields) -> str:
    """The text of label ``name`` of :data:`LABELS` in the current language; other text as given."""
    return LABELS(name, **fields) if name in LABELS.messages else name


@contextmanager
def task(name: str, total: float | None = None, **fields):
    """A unit of long work: yields a callable ``step(advance=1)`` (with ``step.describe(text)``).

    ``total`` is the number of steps (None when unknown: the bar then shows the label and the time).
    A no-op unless progress is on in this context (:func:`shown`)."""
    bars = _CURRENT.get()
    if bars is None:
        yield _SILENT
        return
    text = label(name, **fields)
    bar = bars.bar(text, total)
    try:
        yield _Step(bar, text)
    finally:
        bars.closed(bar)


def track(iterable, name: str, total: float | None = None, *, describe=None, size=None, **fields):
    """``iterable`` itself when progress is off; otherwise its items, each counted as done when its work
    ends (when the next item is asked for, so a ``continue`` counts too). ``describe(item)`` names the item
    under way on the bar; ``size(item)`` is how much it counts (1 by default; e.g. the rows of a chunk).
    Lets a loop show progress by changing only its ``for`` line."""
    if _CURRENT.get() is None:
        return iterable
    return _tracked(iterable, name, total, describe, size, fields)


def _tracked(iterable, name, total, describe, size, fields):
    with task(name, total, **fields) as step:
        for item in iterable:
            if describe is not None:
                step.describe(str(describe(item)))
            yield item
            step(1 if size is None else size(item))


def enabled() -> bool:
    """True when progress is on in this context."""
    return _CURRENT.get() is not None


@contextmanager
def shown(stream=None):
    """Switch progress on (bars to ``stream``, stderr by default) until the block ends."""
    token = _CURRENT.set(Bars(stream))
    try:
        yield
    finally:
        _CURRENT.reset(token)


@contextmanager
def hidden():
    """Switch progress off until the block ends (e.g. inside a step whose output must stay clean)."""
    token = _CURRENT.set(None)
    try:
        yield
    finally:
        _CURRENT.reset(token)


def is_terminal(stream) -> bool:
    """True when ``stream`` is an interactive terminal (a pipe, a file or a closed stream is not)."""
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def for_terminal(stream=None, *, quiet: bool = False):
    """The CLI's rule: progress on ``stream`` (stderr by default) when it is a terminal and not ``quiet``."""
    stream = stream if stream is not None else sys.stderr
    return shown(stream) if is_terminal(stream) and not quiet else hidden()


def write(text: str, file=None) -> None:
    """Print a line (to ``file``, stdout by default) without breaking the bars on screen: a line for the
    bars' own stream goes above them; anything else is a plain ``print``."""
    file = file if file is not None else sys.stdout
    bars = _CURRENT.get()
    if bars is not None and bars.open and file is bars.stream:
        bars.print(text)
    else:
        print(text, file=file, flush=True)


def note(text: str) -> None:
    """A message about the work itself (e.g. "Trends (3.2 s)"): shown above the bars on their stream when
    progress is on, dropped otherwise (it describes progress, not the result)."""
    bars = _CURRENT.get()
    if bars is not None:
        write(text, file=bars.stream)
