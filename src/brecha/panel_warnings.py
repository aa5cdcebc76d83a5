"""A panel's warnings for the rows analysed, not for the whole file.

A Panel keeps two kinds of warnings in ``panel.warnings``. Those about its rows
(:func:`brecha.panel_checks.row_warnings`: deaths above births, counts left empty, 0 births, neonatal +
post-neonatal above the infant deaths) count unit-years and name some; those about the file (a text column
set aside when reading, notes beside the file that do not apply) do not. Someone who analyses some years or
some regions (``--years``, ``--region``, :meth:`brecha.panel.Panel.subset`) must read the first kind for
the rows she analyses: under ``--years 2010-2015``, "43 unit-years with 0 births (e.g. 02202 2001, ...)"
names years she left out and a count that is not hers. So:

- :func:`warnings_for_rows` is the list of warnings of a subset: each row warning said again for the rows
  kept (gone when none of them has the problem), in the place the row warnings had; the others as they were.
  ``Panel.subset`` uses it, so the Python API and every command see the same list.
- :func:`read_for_rows` holds the Python warnings a file emits while it is read and :func:`say_for_rows`
  shows them again that way: a command reads the whole file before it knows which rows it analyses.

Cost: the row checks are a handful of numpy comparisons (0.2 ms for a year of Chile), and a panel without
any row warning skips them (a subset cannot have a problem its panel lacks). Measured (best of 7): a subset
of the Chilean example by year 4.3 ms before, 4.5 ms with them; of the Brazilian (111,400 rows) by year
49.5 and 50.0 ms, most of it spent finding the rows.

>>> import pandas as pd, warnings
>>> from brecha.panel import Panel
>>> with warnings.catch_warnings():
...     warnings.simplefilter("ignore")
...     p = Panel(pd.DataFrame({"unit": ["A", "A", "B"], "year": [2010, 2011, 2011],
...                             "births": [0, 10, 0], "deaths": [0, 1, 0]}))
>>> len(p.warnings), len(p.subset(years=[2010]).warnings), len(p.subset(units=["A"], years=[2011]).warnings)
(1, 1, 0)
"""
from __future__ import annotations

import warnings as _warnings

import pandas as pd

from .errors import warn
from .panel_checks import RowWarning, row_warnings


def warnings_for_rows(said: list, data: pd.DataFrame, given: pd.DataFrame) -> list:
    """The warnings ``said`` of a panel whose table is ``given``, for its rows ``data`` (a subset of them):
    the row warnings replaced by those of ``data``, where the first of them stood; the others kept."""
    if not any(isinstance(w, RowWarning) for w in said):
        return list(said)  # nothing to say again (and nothing to compute: a loop of subsets stays as fast)
    fresh = row_warnings(data, given)
    out = []
    for w in said:
        if isinstance(w, RowWarning):
            out += fresh
            fresh = []
        else:
            out.append(w)
    return out


def say_for_rows(caught, panel=None, kept=None) -> None:
    """Show again the Python warnings ``caught`` (``warnings.catch_warnings(record=True)``) while ``panel``
    was read, as they apply to ``kept``, the part of it analysed (a Panel made by ``panel.subset``): its row
    warnings in place of the panel's, every other warning as it was (the file's, and any a library emitted).
    Without ``kept``, the row warnings are not said (the caller lists those of the panel it analyses); without
    ``panel`` either (the reading failed), every warning is said as it was."""
    whole = {str(w) for w in panel.warnings if isinstance(w, RowWarning)} if panel is not None else set()
    fresh = [w for w in kept.warnings if isinstance(w, RowWarning)] if kept is not None else []
    seen: dict = {}  # as one reading would show them: a repeated warning once, under the default filter
    for w in caught:
        if str(w.message) in whole:
            for message in fresh:
                warn(message)
            fresh = []
        else:
            _warnings.warn_explicit(w.message, w.category, w.filename, w.lineno, registry=seen, source=w.source)


def read_for_rows(read, analysed=None):
    """``read()`` (reads a panel file), the warnings it emits said as they apply to ``analysed(panel)``, the
    part of it analysed (:func:`say_for_rows`). Without ``analysed``, its row warnings are not said at all:
    for a caller that lists the warnings of the panel it analyses (the report). When the reading fails, what
    it said before failing is said as it was."""
    caught: list = []
    try:
        with _warnings.catch_warnings(record=True) as caught:
            _warnings.simplefilter("always")
            panel = read()
    except BaseException:
        say_for_rows(caught)
        raise
    rows = any(isinstance(w, RowWarning) for w in panel.warnings)  # else nothing to count again: no subset
    say_for_rows(caught, panel, analysed(panel) if analysed is not None and rows else None)
    return panel
