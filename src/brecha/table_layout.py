"""Where a table sits in a file: the header row below a title block, and the sheet of a workbook.

**A title above the header.** Tables exported from Excel by ministry staff often start with a title
(``Mortalidad infantil por comuna, 2010-2015``), a blank row, and only then the header. Read as the header,
the title names one column and leaves every other one without a name, which sends the user to the wrong
problem ("column B has data but no name"). :func:`header_index` finds the header below such a title block:

- the rows above it (blank rows aside) each hold one cell, a text with a letter: a title, a source, a date;
- the first row below them holding two cells or more is taken as the header when it looks like one: each
  cell a name with a letter, or a year (``2010``, the columns of a wide table); a warning names the file,
  the title rows and the row read as the header;
- when that row does not look like a header (numbers, codes: data without a header above them), the file is
  refused naming the rows and what to do, rather than reading data as column names; one word right above
  the data (``unit``, no blank row between) is taken for a lone column's name, and the ordinary reading says
  what is wrong.

Why finding it, rather than always refusing: the rule can only change the reading of a file that fails
today. Such a row of two cells or more, under a first row of one cell, always has a cell in a column the
first row leaves without a name, which is an error when the first row is the header. A file that reads
without the rule reads the same with it; a file the rule reads had no other reading. A row of one cell
below a title (a one-column table) is left to the ordinary reading.

**The sheet of a workbook.** :func:`chosen_sheet` gives the sheet that ``sheet`` names, as every command's
``--sheet`` means it (a name, or a number counted from 0), refusing a sheet the workbook does not have with
the list of those it has; :func:`sheets_holding` finds the sheets whose first rows hold given column names,
so that a message can say which sheet to give. A sheet asked of a file that has none (CSV, Parquet, JSON)
is a warning, not a silent no-op: :func:`sheet_ignored`.
"""
from __future__ import annotations

import re

from .errors import InputError, warn
from .i18n import Catalog

MSG = Catalog({
    "title_one": ("archivo {file}: la fila 1 parece un título ('{text}'): el encabezado se leyó de la fila {row}",
                  "file {file}: row 1 looks like a title ('{text}'): the header was read from row {row}"),
    "title_many": ("archivo {file}: las filas 1-{last} parecen un título ('{text}'): el encabezado se leyó de la "
                   "fila {row}",
                   "file {file}: rows 1-{last} look like a title ('{text}'): the header was read from row {row}"),
    "no_header": ("{above} y la fila {row}, debajo, no parece un encabezado (nombres de columna) sino datos: {cells}",
                  "{above} and row {row}, below, does not look like a header (column names) but like data: "
                  "{cells}"),
    "above_one": ("la fila 1 parece un título ('{text}')", "row 1 looks like a title ('{text}')"),
    "above_many": ("las filas 1-{last} parecen un título ('{text}')", "rows 1-{last} look like a title ('{text}')"),
    "no_header_hint": ("inserte justo encima de la fila {row}, donde empiezan los datos, una fila con los nombres de "
                       "las columnas (p. ej. unit, year, births, deaths)",
                       "insert a row with the column names (e.g. unit, year, births, deaths) just above row {row}, "
                       "where the data start"),
    "no_sheet": ("no hay hoja {sheet} (el archivo tiene {n}: {names})",
                 "there is no sheet {sheet} (the file has {n}: {names})"),
    "no_sheet_hint": ("indique --sheet con un nombre de esa lista o un número desde 0",
                      "give --sheet a name from that list or a number from 0"),
    "number_and_name": ("archivo {file}: --sheet {sheet} leyó la hoja número {sheet} (desde 0), '{read}'; otra hoja "
                        "se llama '{sheet}': para leerla use --sheet {position}",
                        "file {file}: --sheet {sheet} read sheet number {sheet} (from 0), '{read}'; another sheet is "
                        "named '{sheet}': to read that one give --sheet {position}"),
    "missing_on_sheet": ("la hoja '{sheet}' no tiene las columnas obligatorias {missing} (columnas presentes: "
                         "{present}); el libro tiene {n} hojas: {names}",
                         "sheet '{sheet}' lacks the required columns {missing} (columns present: {present}); the "
                         "workbook has {n} sheets: {names}"),
    "sheet_found_hint": ("indique la hoja de los datos con --sheet: la hoja '{found}' tiene esas columnas "
                         "(--sheet {option}; también un número desde 0)",
                         "give the sheet of the data with --sheet: sheet '{found}' has those columns "
                         "(--sheet {option}; a number from 0 works too)"),
    "sheet_hint": ("indique la hoja de los datos con --sheet NOMBRE o un número desde 0 (p. ej. --sheet {option}), "
                   "o renombre las columnas",
                   "give the sheet of the data with --sheet NAME or a number from 0 (e.g. --sheet {option}), or "
                   "rename the columns"),
    "other_sheets": ("el libro tiene {n} hojas ({names}) y se leyó '{sheet}': si los datos están en otra, "
                     "indíquela con --sheet, p. ej. --sheet {other}",
                     "the workbook has {n} sheets ({names}) and '{sheet}' was read: if the data are on another, "
                     "give it with --sheet, e.g. --sheet {other}"),
    "sheet_ignored": ("archivo {file}: no es un libro Excel (.xlsx) y no tiene hojas: --sheet {sheet} no se aplica; "
                      "se lee su única tabla",
                      "file {file}: it is not an Excel workbook (.xlsx) and has no sheets: --sheet {sheet} does not "
                      "apply; its one table is read"),
})

TITLE_ROWS = 20  # a title block taller than this is not a title: the rows are read as they are
SHOWN = 60       # characters of a title shown in a message
HEADER_YEAR = re.compile(r"(?:19|20)\d\d")
LETTER = re.compile(r"[^\W\d_]")


def _filled(value) -> bool:
    return value is not None and not (isinstance(value, str) and not value.strip()) and value == value


def _is_name(value) -> bool:
    """A cell that reads as a name: a text with a letter."""
    return isinstance(value, str) and bool(LETTER.search(value))


def _is_year(value) -> bool:
    """A cell that reads as a year column's name (a wide table's ``2010``), stored as text or as a number."""
    if isinstance(value, bool):
        return False
    if isinstance(value, (int, float)) and value == value and float(value).is_integer():
        return 1900 <= value <= 2100
    return isinstance(value, str) and bool(HEADER_YEAR.fullmatch(value.strip()))


def header_index(records: list, rows, file: str) -> int:
    """The index in ``records`` (the non-blank rows, as lists of cells; ``rows`` their row numbers) of the
    header row: 0, or the first row below a title block (module docstring), with a warning that says so."""
    titles = 0
    for record in records[:TITLE_ROWS]:
        cells = [v for v in record if _filled(v)]
        if len(cells) != 1 or not _is_name(cells[0]):
            break
        titles += 1
    if titles == 0 or titles >= min(len(records), TITLE_ROWS):
        return 0
    below = [v for v in records[titles] if _filled(v)]
    if len(below) < 2:
        return 0  # a one-column table under its own name: the ordinary reading
    row = int(rows[titles])
    text = str(next(v for v in records[0] if _filled(v))).strip()
    text = text if len(text) <= SHOWN else text[:SHOWN - 3].rstrip() + "..."
    if all(_is_name(v) or _is_year(v) for v in below) and any(_is_name(v) for v in below):
        if row == 2:
            warn(MSG("title_one", file=file, text=text, row=row))
        else:
            warn(MSG("title_many", file=file, text=text, row=row, last=row - 1))
        return titles
    if titles == 1 and row == int(rows[0]) + 1 and " " not in text:
        return 0  # one word right above the data is a lone column's name, not a title: the ordinary reading
    above = MSG("above_one", text=text) if row == 2 else MSG("above_many", text=text, last=row - 1)
    cells = ", ".join(str(v).strip() for v in below[:6]) + (", ..." if len(below) > 6 else "")
    raise InputError(MSG("no_header", above=above, row=row, cells=cells), file=file, rows=[row],
                     hint=MSG("no_header_hint", row=row))


def chosen_sheet(names: list[str], sheet, file: str) -> str:
    """The name of the sheet ``sheet`` gives among the workbook's ``names``: a text is a sheet's name; a number
    (or a text of digits no sheet is named) is a position from 0, as ``--sheet`` has always counted. A number
    past the last sheet that some sheet is named (sheets named by year, ``--sheet 2015``) is that sheet; a
    position that is also another sheet's name reads the position, with a warning naming the other sheet."""
    if isinstance(sheet, str) and sheet in names:
        return sheet
    if isinstance(sheet, str) and sheet.strip().isdigit():
        sheet = int(sheet)
    if isinstance(sheet, int) and not isinstance(sheet, bool):
        if 0 <= sheet < len(names):
            read = names[sheet]
            if str(sheet) in names and read != str(sheet):
                warn(MSG("number_and_name", file=file, sheet=sheet, read=read, position=names.index(str(sheet))))
            return read
        if str(sheet) in names:
            return str(sheet)
    elif str(sheet) in names:
        return str(sheet)
    raise InputError(MSG("no_sheet", sheet=sheet, n=len(names), names=", ".join(names)), file=file,
                     hint=MSG("no_sheet_hint"))


def sheet_ignored(file: str, sheet) -> None:
    """Warn that a file without sheets (CSV, Parquet, JSON) was asked for one: its one table is its sheet 0,
    so ``sheet`` 0 (the default) says nothing."""
    if sheet is not None and str(sheet).strip() != "0":
        warn(MSG("sheet_ignored", file=file, sheet=sheet))


def sheets_holding(path, columns, among) -> list[str]:
    """The sheets of ``among`` (names of the workbook at ``path``) that hold every name of ``columns`` in one
    of their first rows (a header, perhaps below a title): the sheet a message can point to."""
    from openpyxl import load_workbook

    wanted = {str(c).strip() for c in columns}
    found = []
    try:
        book = load_workbook(path, read_only=True, data_only=True)
    except Exception:  # noqa: BLE001 - a courtesy to a message; the reader itself reports a damaged file
        return []
    try:
        for name in among:
            for values in book[name].iter_rows(max_row=TITLE_ROWS + 1, values_only=True):
                if wanted <= {str(v).strip() for v in values if v is not None}:
                    found.append(name)
                    break
    except Exception:  # noqa: BLE001
        return found
    finally:
        book.close()
    return found


def check_sheet_columns(table, columns, file: str) -> None:
    """A table read from one sheet of a workbook of several that lacks some of ``columns`` (a notes sheet
    first, the data second): an InputError listing the sheets and saying which to give with ``--sheet``.
    Anything else is left to the caller's own check of the columns."""
    import shlex

    sheets = list(table.attrs.get("sheets") or ())
    present = [str(c).strip() for c in table.columns]
    missing = [c for c in columns if c not in present]
    if len(sheets) < 2 or not missing:
        return
    read = table.attrs.get("sheet")
    others = [name for name in sheets if name != read]
    found = sheets_holding(file, columns, others)
    shown = dict(sheet=read, missing=", ".join(missing), present=", ".join(present), n=len(sheets),
                 names=", ".join(f"'{name}'" for name in sheets))
    hint = (MSG("sheet_found_hint", found=found[0], option=shlex.quote(found[0])) if found
            else MSG("sheet_hint", option=shlex.quote(others[0])))
    raise InputError(MSG("missing_on_sheet", **shown), file=file, hint=hint)


def with_sheets(error: InputError, read: str, names) -> InputError:
    """``error``, met reading sheet ``read`` of a workbook of several, with a hint that names the other sheets:
    a notes sheet before the data gives "a header but no data rows" or a title and no header, and the way out
    is --sheet, not editing the notes."""
    import shlex

    if len(names) < 2:
        return error
    other = next(name for name in names if name != read)
    note = MSG("other_sheets", n=len(names), names=", ".join(f"'{name}'" for name in names), sheet=read,
               other=shlex.quote(other))
    return InputError(error.problem, file=error.file, rows=error.rows, column=error.column,
                      hint=f"{error.hint}; {note}" if error.hint else note)
