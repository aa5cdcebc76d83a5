"""What a report is made of: a :class:`Report` holds its tables, figures, headline facts and an ordered list
of :class:`Section`; a section is a list of :class:`Block` (a table named in ``Report.tables``, a figure,
a sentence, a list ...). The section modules (:mod:`brecha.report.sections`) produce them and
:mod:`brecha.report.html` renders them; nothing here computes or formats."""
from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd


@dataclass
class Block:
    kind: str  # "table" | "figure" | "text" | "unavailable" | "list" | "pre" | "heading" | "html"
    title: str = ""
    table: str = ""  # name in Report.tables
    figure: object = None
    text: str = ""
    items: list = field(default_factory=list)
    max_rows: int = 400
    columns: list | None = None
    outcome: str = ""  # set on the blocks of a further outcome's section: its labels name that outcome's rate
    column_labels: dict | None = None  # headers of columns named from data (e.g. ``poverty_2015``)


@dataclass
class Section:
    key: str
    title: str
    blocks: list[Block] = field(default_factory=list)

    def add(self, *blocks: Block) -> None:
        self.blocks.extend(blocks)


@dataclass
class Report:
    study: object
    lang: str
    title: str
    panel: object = None
    tables: dict = field(default_factory=dict)  # name -> (DataFrame, title)
    figures: list = field(default_factory=list)
    sections: list[Section] = field(default_factory=list)
    headline: dict = field(default_factory=dict)
    excluded: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    timings: dict = field(default_factory=dict)
    files: dict = field(default_factory=dict)
    reference_label: str = ""

    def table(self, name: str) -> pd.DataFrame | None:
        item = self.tables.get(name)
        return None if item is None else item[0]
