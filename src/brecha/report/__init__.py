"""The report: run a study's analyses and write one self-contained HTML file, an Excel workbook with every
table, the tables as CSV and the figures.

    >>> from brecha.study import example_study                       # doctest: +SKIP
    >>> from brecha.report import build_report                       # doctest: +SKIP
    >>> report = build_report(example_study("chile"), "out", lang="en")   # doctest: +SKIP
    >>> report.headline["gap"]["text"]                               # doctest: +SKIP

Modules: ``build`` (orchestration, headline numbers), ``figures`` (matplotlib charts and maps), ``html``
(the page), ``excel`` (the workbook), ``labels`` (Spanish/English text), ``methods`` (formulas and
references). See docs/report.md.
"""
from .build import Report, build_report  # noqa: F401
