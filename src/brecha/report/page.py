"""The report being assembled: where the section modules put their tables, figures and blocks.

A :class:`Page` is made for one outcome of a study. ``add_table`` registers a table in ``Report.tables``
(its CSV file and Excel sheet) with its title, and, when a section is named, shows it there;
``add_figure`` does the same for a figure; ``section(key)`` is that section, created on first use with its
title from the labels. A further outcome's page names its tables and figures with the outcome
(``rates_national_neonatal``) so they sit beside the first outcome's.
"""
from __future__ import annotations

import pandas as pd

from .blocks import Block, Report, Section
from .data import _unit_word, _units_word
from .labels import L, covariate_label, covariate_with_code
from .formatting import fmt, fmt_int


class Page:
    def __init__(self, report: Report, study, panel, lang: str, outcome: str | None = None):
        self.report = report
        self.study = study
        self.panel = panel
        self.lang = lang
        self.outcome = outcome or study.outcomes[0]
        self.first = self.outcome == study.outcomes[0]  # the report's main outcome (its first screen)
        self.suffix = "" if self.first else f"_{self.outcome}"
        self.unit = _unit_word(panel, lang)
        self.units = _units_word(panel, lang)
        self.sections: dict[str, Section] = {}
        # the births caveat of the embedded Chilean data, repeated wherever rates of 2000-2009 show
        self.caveat = ""
        if any(("15-49" in str(n) or "15 a 49" in str(n)) for n in panel.notes) and min(panel.years) <= 2009:
            self.caveat = " " + L("births_caveat_short", lang)

    @property
    def publication(self):
        """The study's ``[publication]`` protection of this outcome's tables (None without one): the same
        cells hidden in every table and map (:mod:`brecha.publication_linked`)."""
        if not hasattr(self, "_publication"):
            from ..publication import study_policy
            from ..publication_linked import Protection

            policy = study_policy(self.study)
            self._publication = Protection(self.panel, policy, self.outcome, getattr(self.study, "years", None)) \
                if policy is not None else None
            if policy is not None:  # the rules in the report's caveats (the data section and the summary)
                from ..publication import notes

                self.report.notes.extend(n for n in notes(policy, self.lang) if n not in self.report.notes)
        return self._publication

    # text ---------------------------------------------------------------------------------------
    def L(self, key: str, **fields) -> str:  # noqa: N802 - the labels' own name
        """A label of :mod:`brecha.report.labels` in the report's language."""
        return L(key, self.lang, **fields)

    def fmt(self, value, digits: int = 1) -> str:
        return fmt(value, digits, self.lang)

    def count(self, value) -> str:
        return fmt_int(value, self.lang)

    def cov_label(self, name) -> str:
        """A covariate's name for reading (``poverty`` -> income poverty (%))."""
        return covariate_label(name, self.lang, getattr(self.panel, "country", None))

    def cov_code(self, name) -> str:
        """A covariate's label with its column name, where a reader may want both."""
        return covariate_with_code(name, self.lang, getattr(self.panel, "country", None))

    # content ------------------------------------------------------------------------------------
    def section(self, key: str) -> Section:
        if key not in self.sections:
            self.sections[key] = Section(key, L(f"s_{key}", self.lang))
        return self.sections[key]

    def add_table(self, name: str, df: pd.DataFrame, title: str, section: str | None = None, columns=None,
                  max_rows: int = 400, column_labels: dict | None = None) -> None:
        name = name + self.suffix
        df = self.publication.apply(df, name) if self.publication else df  # a study's [publication] (issue 17)
        self.report.tables[name] = (df, title)
        if section:
            self.section(section).add(Block("table", title=title, table=name, columns=columns, max_rows=max_rows,
                                            column_labels=column_labels))

    def add_figure(self, fig, section: str) -> None:
        if fig is None:
            return
        if self.suffix and not fig.name.endswith(self.suffix):
            fig.name += self.suffix
        self.report.figures.append(fig)
        self.section(section).add(Block("figure", figure=fig))

    def text(self, section: str, text: str, title: str = "") -> None:
        self.section(section).add(Block("text", title=title, text=text))

    def exclude(self, text: str) -> None:
        """Something the report leaves out, and why (the data section and the command's summary list it)."""
        self.report.excluded.append(text)
