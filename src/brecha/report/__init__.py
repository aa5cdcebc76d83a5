"""The report: run a study's analyses and write one self-contained HTML file, an Excel workbook with every
table, the tables as CSV and the figures.

    >>> from brecha.study import example_study                       # doctest: +SKIP
    >>> from brecha.report import build_report                       # doctest: +SKIP
    >>> report = build_report(example_study("chile"), "out", lang="en")   # doctest: +SKIP
    >>> report.headline["gap"]["text"]                               # doctest: +SKIP

Modules: ``build`` (load, run the steps, assemble, write), ``analyses`` (the analyses' tables and facts),
``sections/`` (one module per section: ``build(results, page)``; the registry ``sections.STEPS``), ``page``
(the report being assembled), ``blocks`` (Report, Section, Block), ``html`` (the page, Jinja2 templates in
``templates/``), ``figures`` and ``figures_*`` (the charts), ``polygon_map`` and ``symbol_maps`` (the maps),
all SVG written by ``svg`` and ``svg_axes``, ``excel`` (the workbook), ``labels``
(Spanish/English text), ``methods`` (formulas and references). See docs/report.md and docs/ARCHITECTURE.md.
"""
from .build import Report, build_report  # noqa: F401
