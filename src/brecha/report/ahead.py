"""Analyses computed ahead of their turn, in forked children, while the report runs its other steps (issue 19).

Two of the report's analyses need only the Panel and the study, and take most of its analysis time: the
decompositions of "Where is the gap?" (bootstrapped, about 0.75 s of CPU on the default Chilean report) and
the spatial analysis (Moran's I, LISA, BYM2: about 0.85 s; 3.5-4 s before it stopped importing esda and
libpysal). Five shorter ones need only the Panel too (below). A step of
:data:`brecha.report.sections.STEPS` that names the results it sets (``Step.ahead``) is started in a child
(:meth:`brecha.report.forked.Children.start`) as soon as the Panel is loaded; when its turn comes, the
report takes the results from the child (:func:`collect`) instead of computing them, and builds its section
as in a serial run. Nothing else changes: the child runs the same function on the same objects (it is a
fork of the report's process), so the tables are the same bytes (``tests/report/test_ahead.py``).

Which start ahead (:func:`chosen`): the long analyses (``Step.long``: the decompositions and the spatial step)
always; the short ones (the smoothing, the gap against the reference, the trends, the funnel plot, the panel
models: 0.01-0.1 s of CPU each on the default Chilean report, 0.03-0.3 s on the Brazilian) only when a core is
left beyond the report's own and one per long analysis (3 or more cores when both long ones run; 2 when
neither does). On two cores the long analyses keep the second core busy already, and a short analysis's
child only adds its cost: the fork, and the pages it copies (3,000-6,000 page faults, about 30-40 % of its
CPU). Measured on the default Chilean report, 16 interleaved runs on 2 cores: 23,000 fewer page faults,
0.12 s less system time, the wall time's median 0.21 s lower (12 of 16 pairs faster; docs/performance.md,
part P).

When children do not pay (:func:`brecha.report.forked.pays`: ``BRECHA_JOBS=1``, or no core idle), nothing
starts ahead and every step computes in its turn.

What travels back: the results' attributes the step names, the caveats it noted (``results.notes``) and the
warnings it raised, in that order of the serial run. An error the analysis raised is raised again in the
parent, at the step's turn, so the section shows "not available" and why, as in a serial run; a child that
ended without a result is a :class:`AnalysisError` naming the analysis.
"""
from __future__ import annotations

from ..errors import BrechaError
from ..i18n import Catalog
from . import forked

MSG = Catalog({
    "died": ("el proceso que calculaba {name} terminó sin resultado (código {code})",
             "the process computing {name} ended without a result (code {code})"),
    "failed": ("el cálculo de {name} falló: {reason}", "computing {name} failed: {reason}"),
})


class AnalysisError(BrechaError):
    """An analysis computed ahead ended without a result, or with an error that could not travel back."""


# Imported by the report's own process in its first steps (the rates' intervals) and by the analyses ahead
# (the gap against the reference, the spatial analysis): imported once before the children are forked, they
# are shared instead of imported again in each child (0.25-0.35 s of CPU each; measured in
# docs/performance.md, part G). scipy.linalg only for a study with an analysis that factors matrices
# (LINEAR_ALGEBRA): no other analysis imports it, and on the Brazilian report, which has none, it was 0.07 s
# of the report's start for nothing (issue 19).
SHARED_MODULES = ("scipy.special", "scipy.linalg")
LINEAR_ALGEBRA = ("spatial", "models")  # BYM2's factorisations; the panel models' least squares


def start(steps, results) -> dict:
    """Start, in children, the steps of ``steps`` that can run ahead (they name their results in ``ahead``,
    the study wants them and they depend on no earlier step: no ``when``). Returns ``{step key: pending}``;
    empty when children do not pay."""
    children = forked.current()
    if children is None:
        return {}
    ahead = chosen(steps, results.study, children.jobs)
    if ahead:
        import_shared(results.study)
        remember_events(results)
    # the last first: the registry lists the long analyses last (the decompositions' bootstraps, the spatial
    # step), and the report needs them last; started first, they get the head start of the others' forks
    return {step.key: children.start(_compute, step, results) for step in reversed(ahead)}


def remember_events(results) -> None:
    """The study's events tables per year and pooled, made here once before the children are forked, so that
    each child finds them in the Panel's memory (:meth:`brecha.panel.Panel.events_remembered`, open while the
    report runs its steps) instead of making them again: every analysis starts from one of them, and the
    report's first step (the rates) needs both anyway. Measured (issue 19): the Brazilian report made events tables
    (111,400 unit-years) 10 times in 5 processes, 4 times in a serial run; the Chilean 8 times in 3.
    An outcome the Panel lacks is left to the analyses, which say so in their own words."""
    panel = getattr(results, "panel", None)
    if not getattr(panel, "remembers_events", False):
        return  # outside events_remembered() a table made here would not be kept: nothing to share
    for pool in (False, True):
        try:
            panel.events(results.outcome, years=results.years, pool=pool)
        except Exception:  # noqa: BLE001 - the analyses meet the same error at their turn and report it
            return


def chosen(steps, study, jobs: int) -> list:
    """The steps of ``steps`` computed ahead with ``jobs`` cores: those that can be (they name their results
    in ``ahead``, the study wants them, they depend on no earlier step: no ``when``), the long ones always,
    the others only when a core is left beyond the report's own and one per long analysis (module
    docstring), in the registry's order."""
    can = [step for step in steps
           if step.ahead and step.compute is not None and step.when is None and step.wanted(study)]
    spare = jobs - 1 - sum(step.long for step in can)
    return [step for step in can if step.long or spare > 0]


def shared_modules(study=None) -> tuple:
    """The :data:`SHARED_MODULES` ``study`` needs: scipy.linalg only when it wants one of
    :data:`LINEAR_ALGEBRA` (every one without a study, or a study that cannot say)."""
    wants = getattr(study, "wants", None)
    if wants is None or any(wants(name) for name in LINEAR_ALGEBRA):
        return SHARED_MODULES
    return tuple(name for name in SHARED_MODULES if name != "scipy.linalg")


def import_shared(study=None) -> None:
    """Import :func:`shared_modules` of ``study`` (once: later calls find them imported)."""
    import importlib

    for name in shared_modules(study):
        importlib.import_module(name)


def _compute(step, results):
    """In the child: the step's analysis; the results it set of those it names (one it left as it was is not
    sent: the parent may have set it meanwhile, e.g. the reference), and the caveats it noted."""
    from ..threads import one_thread

    before = {name: getattr(results, name) for name in step.ahead}
    noted = len(results.notes)
    with one_thread():  # this child is one of several computing at once: the cores are taken (threads.py)
        step.compute(results)
    changed = {name: getattr(results, name) for name, value in before.items() if getattr(results, name) is not value}
    return changed, results.notes[noted:]


def collect(pending: forked.Pending, step, results) -> None:
    """Put what the child computed for ``step`` on ``results``, as ``step.compute(results)`` would have; raise
    its warnings and its error here."""
    values, notes = forked.value_of(pending, died=lambda code: AnalysisError(MSG("died", name=step.key, code=code)),
                                    failed=lambda text: AnalysisError(MSG("failed", name=step.key, reason=text)))
    for name, value in values.items():
        setattr(results, name, value)
    results.notes.extend(notes)
