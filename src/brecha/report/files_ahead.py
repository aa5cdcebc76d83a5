"""The files of the report's first tables (their CSV files and workbook sheets) written in a child while
the report still computes (issue 19).

Writing the tables is most of the time spent writing a report (Brazil: 1.1 s of CPU for the workbook's
sheets and 0.55 s for the CSV files, about half of each for the 111,400 unit-years' rates), and nearly all
their cells belong to tables the analyses made long before the files are written; meanwhile the report's
second core is often idle (Brazil: after the analyses started ahead end, while the report's own process
runs the other analyses and the figures; Chile: while it waits for the spatial analysis). So the tables made
so far are written, in one forked child (:meth:`brecha.report.forked.Children.start`), into the children's
folder: their CSV files (:func:`brecha.csv_text.write_csv`) and a zip of their workbook sheets
(:func:`brecha.report.excel.write_sheets`). The child starts at the first of these moments:

- the tables made so far hold :data:`MANY_CELLS` cells or more (about half a second of writing);
- the report is about to wait for an analysis a child is computing ahead (a core is about to go idle), and
  the tables hold :data:`SOME_CELLS` or more (a short wait for a small analysis should not spend the one
  child on a few tables: on the default Chilean report the wait worth it is the spatial analysis', with
  the yearly gaps' 440,000 cells made by then);
- every analysis started ahead has ended (a core is idle while the report computes the next one), and the
  tables hold :data:`SOME_CELLS` or more (a study without the long analyses: the national analyses of
  ``benchmarks/r/national.toml``, whose yearly gaps are ready while the inequality measures are computed);
- the analyses are done (the figures and the further outcomes add few cells), and the tables hold
  :data:`FEW_CELLS` or more.

When the report writes its files (:func:`brecha.report.build.write_report`), those CSV files are moved into
its folder instead of written, and the workbook is that zip with the remaining sheets, the contents sheet
and the workbook's parts added (:func:`brecha.report.excel.write_xlsx`, ``written``): the same files as
written in one go. One child only: a zip's compressed parts cannot be moved into another zip with the
standard library, so a second child could not add to the first child's zip without waiting for it.

Used only when the report writes files and children pay (:mod:`brecha.report.forked`). What the child wrote
is checked against the report's tables when used: the tables in the same order, each the same object as
when the child started (otherwise everything is written again, as in a serial run). A child that failed or
died is not an error here: its files are simply written again with the rest (a full disk then stops the
report there, as it would have).
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

from . import excel, forked

MANY_CELLS = 1_000_000  # about half a second of writing (Brazil's unit-years' rates: 1.9 M cells)
SOME_CELLS = 250_000  # about a tenth of a second
FEW_CELLS = 50_000  # below this, a child costs more than it saves (forking, files to move)


def write_tables(names, frames, folder, csv: bool = True, sheets: bool = True) -> int:
    """In the child: ``frames`` as CSV files ``folder/tables/NAME.csv`` (``csv``) and as the workbook's
    sheets after the first, in ``folder/sheets.zip`` (``sheets``); returns how many tables."""
    from ..csv_text import write_csv

    if csv:
        tables = Path(folder) / "tables"
        tables.mkdir()
        for name, df in zip(names, frames):
            write_csv(df, tables / f"{name}.csv")
    return excel.write_sheets(frames, Path(folder) / "sheets.zip") if sheets else len(frames)


class FilesAhead:
    """The files of the report's first tables, written in a child (:meth:`offer`; used by :meth:`written`
    and :meth:`move_csv`)."""

    def __init__(self, report, children: forked.Children, csv: bool = True, sheets: bool = True):
        self.report = report
        self.children = children
        self.csv, self.sheets = csv, sheets  # the CSV files and the workbook's sheets: those the study writes
        self.pending: forked.Pending | None = None
        self.names: list[str] = []
        self.frames: list = []
        self.folder = os.path.join(children.folder, "ahead")
        self._usable: bool | None = None

    @classmethod
    def when_useful(cls, report, write: bool):
        """A :class:`FilesAhead` for a report that writes its tables' files (CSV, workbook or both:
        :mod:`brecha.report_files`) with children, else None."""
        from ..report_files import wanted

        children = forked.current()
        csv, sheets = wanted(report, "tables"), wanted(report, "workbook")
        return cls(report, children, csv, sheets) if write and children is not None and (csv or sheets) else None

    def offer(self, *, waiting: bool = False, idle: bool = False, last: bool = False) -> None:
        """Start the child now if it pays: many cells to write, or the report about to wait for a child
        (``waiting``) or with no child at work (``idle``), or the analyses done (``last``); at most one child
        per report."""
        if self.pending is not None:
            return
        tables = list(self.report.tables.items())
        cells = sum(df.size for _name, (df, _title) in tables)
        if not (cells >= MANY_CELLS or ((waiting or idle) and cells >= SOME_CELLS) or (last and cells >= FEW_CELLS)):
            return
        self.names = [name for name, _item in tables]
        self.frames = [df for _name, (df, _title) in tables]
        os.mkdir(self.folder)
        self.pending = self.children.start(write_tables, self.names, self.frames, self.folder, self.csv,
                                           self.sheets)

    def usable(self) -> bool:
        """Waits for the child: whether it wrote every file it was given and the report's tables are still
        those (the same names first, in order, each the same object)."""
        if self._usable is None:
            self._usable = self._check()
        return self._usable

    def _check(self) -> bool:
        if self.pending is None:
            return False
        try:
            ok, count, warned = self.pending.outcome()  # Ctrl-C in the child: KeyboardInterrupt here
        except forked.ChildDied:  # its files are written again with the rest, where an error shows
            return False
        if not ok:
            return False
        forked.raise_warnings(warned)
        tables = self.report.tables
        return (count == len(self.names) and list(tables)[:len(self.names)] == self.names
                and all(tables[name][0] is df for name, df in zip(self.names, self.frames)))

    def ended(self) -> bool:
        """Whether no child was started or it has ended (without waiting for it)."""
        return self.pending is None or self.pending.done()

    def written(self) -> tuple[str, int] | None:
        """``(zip, number of sheets)`` for :func:`brecha.report.excel.write_xlsx`, or None (:meth:`usable`)."""
        return (os.path.join(self.folder, "sheets.zip"), len(self.names)) if self.sheets and self.usable() else None

    def move_csv(self, name: str, path: Path) -> bool:
        """Move the child's CSV file of table ``name`` to ``path``; False when it has none to give."""
        if not self.csv or name not in self.names or not self.usable():
            return False
        source = os.path.join(self.folder, "tables", f"{name}.csv")
        try:
            os.replace(source, path)
        except OSError:  # another file system (the children's folder is the system's temporary one)
            shutil.copyfile(source, path)
        return True
