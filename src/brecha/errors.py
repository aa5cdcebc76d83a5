"""Errors and warnings that tell the user where the problem is and what to do.

Every problem with user input is an :class:`InputError` naming the file, the row (1-based, as a
spreadsheet shows it, header = row 1) and the column, plus a hint; in Spanish or English as the rest
of the session (``brecha --lang``).
"""
from __future__ import annotations

import warnings

from .i18n import Catalog

MSG = Catalog({
    "file": ("archivo {file}", "file {file}"),
    "row": ("fila {rows}", "row {rows}"),
    "rows": ("filas {rows}", "rows {rows}"),
    "more": (" (y {n} más)", " (+{n} more)"),
    "column": ("columna '{column}'", "column '{column}'"),
    "argument": ("argumento {name}", "argument {name}"),
    "option": ("opción {name}", "option {name}"),
    "todo": ("Qué hacer", "What to do"),
})


class BrechaError(Exception):
    """Base class of brecha's own errors."""


class InputError(BrechaError, ValueError):
    """Bad input data: says where (file, rows, column, or the function ``argument`` given a wrong value),
    what is wrong, and what to do.

    ``argument`` is the Python name (``conf_level``); the CLI shows the option the user typed instead
    (``--conf-level``) by calling :meth:`as_option`, so one message serves both."""

    def __init__(self, message: str, *, file: str | None = None, rows=None, column: str | None = None,
                 hint: str | None = None, argument: str | None = None):
        self.file = file
        self.rows = [int(r) for r in rows] if rows is not None else None
        self.column = column
        self.hint = hint
        self.problem = message
        self.argument = argument
        self.option = None
        super().__init__(self._format())

    def as_option(self, option: str) -> "InputError":
        """The same error naming the command-line ``option`` (e.g. '--alpha') instead of the argument."""
        self.option = option
        self.args = (self._format(),)
        return self

    def _format(self) -> str:
        where = []
        if self.file:
            where.append(MSG("file", file=self.file))
        if self.rows:
            shown = ", ".join(str(r) for r in self.rows[:20])
            if len(self.rows) > 20:
                shown += MSG("more", n=len(self.rows) - 20)
            where.append(MSG("rows" if len(self.rows) > 1 else "row", rows=shown))
        if self.column:
            where.append(MSG("column", column=self.column))
        if self.option or self.argument:
            where.append(MSG("option", name=self.option) if self.option else MSG("argument", name=self.argument))
        text = self.problem
        if where:
            text = f"{'; '.join(where)}: {text}"
        if self.hint:
            text += f". {MSG('todo')}: {self.hint}"
        return text


class BrechaWarning(UserWarning):
    """A data problem that does not stop the analysis (e.g. deaths above births)."""


def warn(message: str) -> None:
    warnings.warn(message, BrechaWarning, stacklevel=3)
