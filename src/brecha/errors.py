"""Errors and warnings that tell the user where the problem is and what to do.

Every problem with user input is an :class:`InputError` naming the file, the row (1-based, as a
spreadsheet shows it, header = row 1) and the column, plus a hint.
"""
from __future__ import annotations

import warnings


class BrechaError(Exception):
    """Base class of brecha's own errors."""


class InputError(BrechaError, ValueError):
    """Bad input data: says where (file, rows, column), what is wrong, and what to do."""

    def __init__(self, message: str, *, file: str | None = None, rows=None, column: str | None = None,
                 hint: str | None = None):
        self.file = file
        self.rows = list(rows) if rows is not None else None
        self.column = column
        self.hint = hint
        self.problem = message
        super().__init__(self._format())

    def _format(self) -> str:
        where = []
        if self.file:
            where.append(f"file {self.file}")
        if self.rows:
            shown = ", ".join(str(r) for r in self.rows[:20])
            more = f" (+{len(self.rows) - 20} more)" if len(self.rows) > 20 else ""
            where.append(f"row{'s' if len(self.rows) > 1 else ''} {shown}{more}")
        if self.column:
            where.append(f"column '{self.column}'")
        text = self.problem
        if where:
            text = f"{'; '.join(where)}: {text}"
        if self.hint:
            text += f". What to do: {self.hint}"
        return text


class BrechaWarning(UserWarning):
    """A data problem that does not stop the analysis (e.g. deaths above births)."""


def warn(message: str) -> None:
    warnings.warn(message, BrechaWarning, stacklevel=3)
