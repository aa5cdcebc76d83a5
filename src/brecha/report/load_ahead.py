"""The study's data loaded in a forked child while the report's own process imports what its analyses need
(issue 19).

At the start of a report only one core works: Python imports pandas, numpy and pyarrow, the study's Panel is
loaded (the embedded Chilean data with their covariates: about 0.15-0.2 s of CPU), and then scipy's special
functions and, when the study factors matrices, its linear algebra are imported
(:func:`brecha.report.ahead.shared_modules`, about 0.16 s), which the analyses and every child need. Those
two pieces do not depend on each other, so when children pay
(:func:`brecha.report.forked.pays`) the Panel is loaded in a child (:meth:`brecha.report.forked.Children.start`)
while the report's process imports; the analyses then start about that much earlier (default Chilean report:
at 0.62 s instead of 0.76 s).

What travels back: the Panel and what loading it wrote on the report (:data:`FIELDS`: the ledger's table, the
exclusions, notes and warnings it listed), set on the report's own lists and dicts, so everything that holds
them (the progress clock holds the timings) still does. The warnings raised while loading are raised again
in the parent, in their order, and an error (a study that names a covariate or years the data lack) is
raised again there: the same message as in a serial run. A child that ended without a result is a
:class:`LoadError`. Without children (``BRECHA_JOBS=1``, no idle core, Windows), and for DEIS microdata (read
by polars, whose threads do not survive a fork: :func:`_fork_safe`), the Panel is loaded in the report's
process, as before. The Panel and the report's fields are those of loading in the process
(``tests/report/test_load_ahead.py``), and the report's files the same bytes either way (the serial and
parallel reports compared in ``tests/report/test_ahead.py``).

The Panel returned is a copy made by pickle (its registry too); what the child computed on the way and kept
in its own caches (the standard covariates' table) is not kept: the report does not ask for it again.
"""
from __future__ import annotations

from ..errors import BrechaError
from ..i18n import Catalog
from . import ahead, forked
from .data import load_study_panel

MSG = Catalog({
    "died": ("el proceso que cargaba los datos terminó sin resultado (código {code})",
             "the process loading the data ended without a result (code {code})"),
    "failed": ("la carga de los datos falló: {reason}", "loading the data failed: {reason}"),
})

# the report's fields that loading may write (every field but the study, language, title, Panel and timings)
FIELDS = ("tables", "figures", "sections", "headline", "excluded", "notes", "warnings", "files", "reference_label")


class LoadError(BrechaError):
    """The child loading the data ended without a result, or with an error that could not travel back."""


def load(study, report, meanwhile=None):
    """:func:`brecha.report.data.load_study_panel` ``(study, report)``: in a child while this process imports
    :func:`brecha.report.ahead.shared_modules` and then runs ``meanwhile()`` (work that needs no Panel) when
    children pay and the data can be read in a child (:func:`_fork_safe`), else here (``meanwhile`` is then
    not run)."""
    children = forked.current()
    if children is None or not _fork_safe(study):
        return load_study_panel(study, report)
    pending = children.start(_load, study, report)
    ahead.import_shared(study)
    if meanwhile is not None:  # the imports end before the child has loaded the data (default Chilean report:
        meanwhile()            # 0.05-0.1 s with a core idle before, the report waiting)
    panel, written = forked.value_of(pending, died=lambda code: LoadError(MSG("died", code=code)),
                                     failed=lambda text: LoadError(MSG("failed", reason=text)))
    for name, value in written.items():
        _put(report, name, value)
    return panel


def _fork_safe(study) -> bool:
    """Whether the study's data can be read in a forked child: the embedded examples and panel files are read
    by pandas, pyarrow (whose thread pools are made again after a fork) and the csv module; DEIS microdata are
    read by polars, whose worker threads a forked child does not have, so a child would wait for them forever
    once polars has run in the report's process (it did, in the test suite): those are loaded here."""
    data = getattr(study, "data", None) or {}
    return "deis" not in data


def _load(study, report):
    """In the child: the Panel and the report's :data:`FIELDS` after loading it."""
    panel = load_study_panel(study, report)
    return panel, {name: getattr(report, name) for name in FIELDS}


def _put(report, name: str, value) -> None:
    """``report.name = value``, a list or dict filled in place (whoever holds it sees the values)."""
    mine = getattr(report, name)
    if isinstance(mine, list):
        mine[:] = value
    elif isinstance(mine, dict):
        mine.clear()
        mine.update(value)
    else:
        setattr(report, name, value)
