"""Opening a table file (.csv .xlsx .parquet .json) so that every problem is one clear message.

``read_cells(path, sheet)`` returns the cells as the file holds them (CSV cells as text, Excel and JSON cells
as typed values, Parquet columns typed), the file's row number of each data row (spreadsheet numbering:
the header is row 1, a blank line is a row) and, for CSV, the separator. Numbers written as text are left to
:mod:`brecha.number_formats`.

What is checked, each an :class:`~brecha.errors.InputError` naming the file (and rows, columns) and what to do:
missing file, a folder, an unreadable file (permissions), an empty file; a file whose content is another
format than its name says (an Excel workbook named ``.csv``, a CSV named ``.xlsx``, an old ``.xls``);
binary content and text in mixed encodings; ragged CSV rows (all listed in one message); malformed JSON
(line and column); truncated or damaged Parquet and Excel files; a missing or empty sheet; a header with no
data rows; repeated or blank column names. CSV text may be UTF-8 (with or without BOM), UTF-16 with BOM
(Excel's "Unicode text") or Windows-1252/Latin-1; a first line ``sep=;`` (Excel) names the separator.

Where the table sits is :mod:`brecha.table_layout`'s: the header below a title block (CSV and Excel), the
sheet ``sheet`` names, an error on one sheet of several naming the others, a sheet asked of a CSV.
"""
from __future__ import annotations

import csv
import io
import json
import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from .errors import InputError
from .i18n import Catalog
from .number_formats import NA_TOKENS
from .table_layout import chosen_sheet, header_index, sheet_ignored, with_sheets

SEPARATORS = (",", ";", "\t", "|")
MAGIC = {b"PK\x03\x04": ".xlsx", b"\xd0\xcf\x11\xe0": ".xls", b"PAR1": ".parquet"}
KIND_NAMES = {".xlsx": "Excel (.xlsx)", ".xls": "Excel 97-2003 (.xls)", ".parquet": "Parquet", ".csv": "CSV",
              ".json": "JSON", "binary": "binary"}

MSG = Catalog({
    "not_found": ("no se encuentra el archivo", "file not found"),
    "not_found_hint": ("revise la ruta", "check the path"),
    "folder": ("es una carpeta, no un archivo", "is a folder, not a file"),
    "folder_hint": ("indique el archivo dentro de la carpeta", "give the file inside the folder"),
    "not_regular": ("no es un archivo común", "is not a regular file"),
    "denied": ("no se puede leer el archivo (permiso denegado)", "cannot read the file (permission denied)"),
    "denied_hint": ("pida permiso de lectura o copie el archivo a una carpeta suya",
                    "ask for read permission or copy the file to a folder of yours"),
    "os_error": ("no se puede leer el archivo: {reason}", "cannot read the file: {reason}"),
    "empty": ("el archivo está vacío", "the file is empty"),
    "empty_hint": ("use un archivo con una fila de encabezado y datos", "give a file with a header row and data"),
    "other_kind": ("el contenido es de tipo {kind}, pero el nombre termina en {suffix}",
                   "the content is of type {kind}, but the name ends in {suffix}"),
    "other_kind_hint": ("cambie la extensión a {right} (o vuelva a guardar el archivo como {suffix})",
                        "rename it to end in {right} (or save the file again as {suffix})"),
    "xls_hint": ("ábralo en Excel o LibreOffice y guárdelo como .xlsx o .csv",
                 "open it in Excel or LibreOffice and save it as .xlsx or .csv"),
    "binary": ("no es un archivo de texto (CSV): contiene bytes binarios",
               "is not a text (CSV) file: it holds binary bytes"),
    "binary_hint": ("exporte la tabla como CSV, .xlsx, .parquet o .json",
                    "export the table as CSV, .xlsx, .parquet or .json"),
    "mixed_encoding": ("el texto mezcla codificaciones: casi todo es UTF-8, pero la línea {line} no (byte {byte})",
                       "the text mixes encodings: most is UTF-8, but line {line} is not (byte {byte})"),
    "mixed_encoding_hint": ("vuelva a guardar el archivo como UTF-8 (en Excel: «CSV UTF-8»)",
                            "save the file again as UTF-8 (in Excel: \"CSV UTF-8\")"),
    "csv_error": ("no se puede leer como CSV: {reason}", "cannot be read as CSV: {reason}"),
    "csv_error_hint": ("revise las comillas y separadores de esa zona del archivo",
                       "check the quotes and separators around that part of the file"),
    "ragged": ("filas con {counts} {counts:valor|valores}, pero el encabezado tiene {n} {n:columna|columnas}",
               "rows with {counts} {counts:value|values}, but the header has {n} {n:column|columns}"),
    "ragged_hint": ("revise separadores sobrantes o faltantes en esas filas (un separador dentro de un texto "
                    "va entre comillas)",
                    "look for extra or missing separators in those rows (a separator inside a text goes "
                    "between quotes)"),
    "no_header": ("no hay fila de encabezado (todas las filas están vacías)",
                  "there is no header row (every row is empty)"),
    "header_only": ("el archivo tiene encabezado ({columns}) pero ninguna fila de datos",
                    "the file has a header ({columns}) but no data rows"),
    "header_only_hint": ("agregue los datos bajo el encabezado o use otro archivo",
                         "add the data below the header or use another file"),
    "duplicate_columns": ("nombres de columna repetidos: {names}", "repeated column names: {names}"),
    "duplicate_columns_hint": ("deje cada nombre una sola vez (renombre o borre las columnas repetidas)",
                               "keep each name once (rename or delete the repeated columns)"),
    "at_columns": ("'{name}' (columnas {letters})", "'{name}' (columns {letters})"),
    "blank_column": ("la columna {letter} tiene datos pero no tiene nombre",
                     "column {letter} has data but no name"),
    "blank_column_hint": ("escriba un nombre en la fila de encabezado (fila {row})",
                          "write a name in the header row (row {row})"),
    "bad_excel": ("no es un libro Excel legible (dañado, incompleto o de otro tipo): {reason}",
                  "is not a readable Excel workbook (damaged, incomplete or of another kind): {reason}"),
    "bad_excel_hint": ("ábralo en Excel o LibreOffice y vuelva a guardarlo como .xlsx",
                       "open it in Excel or LibreOffice and save it again as .xlsx"),
    "empty_sheet": ("la hoja '{sheet}' está vacía", "sheet '{sheet}' is empty"),
    "empty_sheet_hint": ("elija la hoja con los datos (--sheet)", "choose the sheet with the data (--sheet)"),
    "bad_parquet": ("no es un archivo Parquet legible (truncado o dañado): {reason}",
                    "is not a readable Parquet file (truncated or damaged): {reason}"),
    "bad_parquet_hint": ("vuelva a copiar o a generar el archivo", "copy or write the file again"),
    "parquet_truncated": ("falta la marca final PAR1", "the closing PAR1 marker is missing"),
    "bad_json": ("JSON no válido en la línea {line}, columna {col}: {reason}",
                 "invalid JSON at line {line}, column {col}: {reason}"),
    "bad_json_hint": ("corrija el archivo o vuelva a exportarlo; se espera una lista de registros "
                      "[{\"unit\": ..., \"year\": ...}, ...]",
                      "correct the file or export it again; a list of records [{\"unit\": ..., \"year\": ...}, "
                      "...] is expected"),
    "json_shape": ("el JSON no es una lista de registros (objetos con las mismas claves)",
                   "the JSON is not a list of records (objects with the same keys)"),
    "json_nested": ("valores anidados (listas u objetos) en la clave '{name}'",
                    "nested values (lists or objects) under key '{name}'"),
    "json_nested_hint": ("cada valor debe ser un número, un texto o null",
                         "each value must be a number, a text or null"),
    "json_duplicate": ("la clave '{name}' se repite en un mismo registro", "key '{name}' is repeated in one record"),
    "json_encoding": ("el JSON no está en UTF-8 (byte {byte} en la línea {line})",
                      "the JSON is not UTF-8 (byte {byte} at line {line})"),
    "json_encoding_hint": ("vuelva a guardar el archivo en UTF-8", "save the file again as UTF-8"),
})


class _JsonDuplicate(ValueError):
    pass


def letter(index: int) -> str:
    """Spreadsheet column letter of a 0-based column index: 0 -> A, 26 -> AA."""
    text = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        text = chr(65 + rest) + text
    return text


def _kind(raw: bytes) -> str:
    """The format the bytes themselves say ('.xlsx', '.xls', '.parquet', '.json', '.csv' or 'binary')."""
    for magic, kind in MAGIC.items():
        if raw.startswith(magic):
            return kind
    if raw.startswith((b"\xff\xfe", b"\xfe\xff", b"\xef\xbb\xbf")):
        return ".csv"
    head = raw[:65536]
    if b"\x00" in head:
        return "binary"
    text = head.lstrip()
    if text[:1] in (b"[", b"{"):
        return ".json"
    return ".csv"


def read_bytes(path: Path) -> bytes:
    """The file's bytes; a missing, folder, unreadable or empty file is an InputError."""
    file = str(path)
    try:
        if not path.exists():
            raise InputError(MSG("not_found"), file=file, hint=MSG("not_found_hint"))
        if path.is_dir():
            raise InputError(MSG("folder"), file=file, hint=MSG("folder_hint"))
        if not path.is_file():
            raise InputError(MSG("not_regular"), file=file, hint=MSG("binary_hint"))
        raw = path.read_bytes()
    except PermissionError:
        raise InputError(MSG("denied"), file=file, hint=MSG("denied_hint")) from None
    except OSError as exc:
        raise InputError(MSG("os_error", reason=exc.strerror or exc), file=file, hint=MSG("not_found_hint")) from None
    if not raw.strip():
        raise InputError(MSG("empty"), file=file, hint=MSG("empty_hint"))
    return raw


def read_cells(path, *, sheet=0) -> tuple[pd.DataFrame, np.ndarray, str | None]:
    """(cells, file row numbers, CSV separator or None) of a table file; see the module docstring."""
    path = Path(path)
    suffix = path.suffix.lower()
    raw = read_bytes(path)
    kind = _kind(raw)
    expected = {".xls": ".xlsx", ".xlsm": ".xlsx", ".txt": ".csv", ".tsv": ".csv"}.get(suffix, suffix)
    if kind == ".xls":
        raise InputError(MSG("other_kind", kind=KIND_NAMES[kind], suffix=suffix), file=str(path),
                         hint=MSG("xls_hint"))
    if kind in (".xlsx", ".parquet") and kind != expected:
        raise InputError(MSG("other_kind", kind=KIND_NAMES[kind], suffix=suffix), file=str(path),
                         hint=MSG("other_kind_hint", right=kind, suffix=suffix))
    if expected in (".xlsx", ".parquet") and kind != expected:
        right = ".csv" if kind == ".csv" else ".json" if kind == ".json" else None
        if right:
            raise InputError(MSG("other_kind", kind=KIND_NAMES[kind], suffix=suffix), file=str(path),
                             hint=MSG("other_kind_hint", right=right, suffix=suffix))
    if kind == "binary" and expected in (".csv", ".json"):
        raise InputError(MSG("binary"), file=str(path), hint=MSG("binary_hint"))
    if expected != ".xlsx":
        sheet_ignored(str(path), sheet)
    if expected == ".csv":
        return _csv(raw, str(path))
    if expected == ".xlsx":
        return _excel(path, sheet)
    if expected == ".parquet":
        return _parquet(raw, path)
    return _json(raw, str(path))


# ---- CSV ------------------------------------------------------------------------------------------------

def _decode(raw: bytes, file: str) -> str:
    """UTF-8 (BOM or not), UTF-16 with BOM, else Windows-1252 (Latin-1 for its five unused bytes). A text that
    is mostly UTF-8 with a few other bytes mixes encodings: refused, since either reading garbles names."""
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return raw.decode("utf-16")
        except UnicodeDecodeError as exc:
            raise InputError(MSG("binary"), file=file, hint=MSG("binary_hint")) from exc
    if b"\x00" in raw:
        raise InputError(MSG("binary"), file=file, hint=MSG("binary_hint"))
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        if re.search(rb"[\xc3\xc2\xe2][\x80-\xbf]", raw):
            line = raw[:exc.start].count(b"\n") + 1
            raise InputError(MSG("mixed_encoding", line=line, byte=f"0x{raw[exc.start]:02X}"), file=file,
                             rows=[line], hint=MSG("mixed_encoding_hint")) from None
    try:
        text = raw.decode("cp1252")
    except UnicodeDecodeError:
        text = raw.decode("latin-1")
    controls = sum(1 for ch in text[:65536] if ord(ch) < 32 and ch not in "\t\r\n")
    if controls > max(2, len(text[:65536]) // 1000):
        raise InputError(MSG("binary"), file=file, hint=MSG("binary_hint"))
    return text


def _separator(lines: list[str]) -> tuple[str, int]:
    """The separator and how many first lines to skip: Excel's 'sep=;' line, else the most frequent of
    , ; tab | in the first non-blank line that holds one (the header), among the first ten. A title line
    above the header (brecha.table_layout) may hold none, or a comma the lines below never hold: then the
    separator every line below holds."""
    filled = [(i, line) for i, line in enumerate(lines) if line.strip()][:10]
    for n, (i, line) in enumerate(filled):
        m = re.fullmatch(r'"?sep=(.)"?\s*', line)
        if m and n == 0:
            return m.group(1), i + 1
        if any(s in line for s in SEPARATORS):
            sep, rest = max(SEPARATORS, key=line.count), [text for _, text in filled[n + 1:]]
            below = [s for s in SEPARATORS if rest and all(s in text for text in rest)]
            if below and not any(sep in text for text in rest):
                return max(below, key=rest[0].count), 0
            return sep, 0
    return ",", 0


def _csv(raw: bytes, file: str):
    text = _decode(raw, file)
    head = text[:65536].splitlines()
    sep, skip = _separator(head)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=sep)
    try:
        every = list(reader)[skip:]
    except csv.Error as exc:
        raise InputError(MSG("csv_error", reason=exc), file=file, rows=[reader.line_num - skip],
                         hint=MSG("csv_error_hint")) from None
    # rows with some text (blank rows are skipped); record numbers count from 1 after the skipped lines
    filled = np.fromiter(map(bool, map(str.strip, map("".join, every))), dtype=bool, count=len(every))
    rows = (np.flatnonzero(filled) + 1).tolist()
    records = [every[i - 1] for i in rows]
    if not records:
        raise InputError(MSG("no_header"), file=file, hint=MSG("empty_hint"))
    k = header_index(records, rows, file)  # below a title block, if any (brecha.table_layout)
    header, data, header_row, rows = records[k], records[k + 1:], rows[k], np.asarray(rows[k + 1:], dtype=int)
    width = len(header)
    while width and not header[width - 1].strip():
        width -= 1  # trailing separators after the last name: columns without a name, checked below
    n = len(header)
    bad = [(r, len(rec)) for r, rec in zip(rows, data)
           if len(rec) < width or (len(rec) > n and "".join(rec[n:]).strip())]
    if bad:
        counts = ", ".join(str(n) for n in sorted({n for _, n in bad}))
        raise InputError(MSG("ragged", counts=counts, n=width), file=file, rows=[r for r, _ in bad],
                         hint=MSG("ragged_hint"))
    if any(len(rec) != n for rec in data):  # short rows padded with blanks, blank extra fields cut
        data = [rec[:n] + [""] * (n - len(rec)) for rec in data]
    # column by column: what _cell does to each field, without a Python call per field
    columns = [_trimmed(column) for column in zip(*data)] if data else []
    table = _framed(header, columns, rows, file, header_row, by_column=True)
    table.attrs["header_row"] = header_row  # below a title block, not row 1 (the ledger counts from it)
    return table, rows, sep


def _trimmed(fields) -> np.ndarray:
    """A column's fields stripped, missing-value tokens as None (``_cell`` of each), as an object array."""
    stripped = list(map(str.strip, fields))
    if not NA_TOKENS.isdisjoint(stripped):
        stripped = [None if v in NA_TOKENS else v for v in stripped]
    out = np.empty(len(stripped), dtype=object)
    out[:] = stripped
    return out


def _cell(value):
    if isinstance(value, str):
        value = value.strip()
        return None if value in NA_TOKENS else value
    return value


def _framed(header: list, cells: list, rows: np.ndarray, file: str, header_row: int = 1,
            by_column: bool = False) -> pd.DataFrame:
    """The data rows under their column names: blank names drop their column when it is empty (and are an
    error when it is not); repeated names are an error listing the columns' letters. ``cells`` is a list of
    rows, or with ``by_column`` a list of columns (object arrays of equal length)."""
    names = [_name(h) for h in header]
    seen: dict[str, list[int]] = {}
    for i, name in enumerate(names):
        if name:
            seen.setdefault(name, []).append(i)
    repeated = {n: idx for n, idx in seen.items() if len(idx) > 1}
    if repeated:
        shown = ", ".join(MSG("at_columns", name=n, letters=", ".join(letter(i) for i in idx))
                          for n, idx in repeated.items())
        raise InputError(MSG("duplicate_columns", names=shown), file=file, rows=[header_row],
                         hint=MSG("duplicate_columns_hint"))
    if not cells:
        shown = ", ".join(n for n in names if n)
        raise InputError(MSG("header_only", columns=shown), file=file, hint=MSG("header_only_hint"))
    if by_column:
        table = pd.DataFrame(dict(enumerate(cells)), columns=range(len(names)), dtype=object)
    else:
        table = pd.DataFrame(cells, columns=range(len(names)), dtype=object)
    keep = []
    for i, name in enumerate(names):
        if name:
            keep.append(i)
        elif table[i].notna().any():
            rows_with = rows[table[i].notna().to_numpy()]
            raise InputError(MSG("blank_column", letter=letter(i)), file=file, rows=rows_with,
                             hint=MSG("blank_column_hint", row=header_row))
    table = table[keep]
    table.columns = [names[i] for i in keep]
    return table.reset_index(drop=True)


def _name(value) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return str(value).strip()


# ---- Excel ----------------------------------------------------------------------------------------------

def _excel(path: Path, sheet):
    from openpyxl import load_workbook

    file = str(path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # openpyxl's notes on styles and extensions are not the user's problem
        try:
            book = load_workbook(path, read_only=True, data_only=True)
        except Exception as exc:  # zip, XML and workbook errors all mean "not a readable workbook"
            raise InputError(MSG("bad_excel", reason=_reason(exc)), file=file, hint=MSG("bad_excel_hint")) from None
        try:
            names = list(book.sheetnames)
            chosen = chosen_sheet(names, sheet, file)  # a name, or a number from 0 (brecha.table_layout)
            ws = book[chosen]
            ws.reset_dimensions()
            records, rows = [], []
            for number, values in enumerate(ws.iter_rows(values_only=True), start=1):
                values = [_cell(v) for v in values]
                if any(v is not None for v in values):
                    records.append(values)
                    rows.append(number)
        except InputError:
            raise
        except Exception as exc:
            raise InputError(MSG("bad_excel", reason=_reason(exc)), file=file, hint=MSG("bad_excel_hint")) from None
        finally:
            book.close()
    if not records:
        raise InputError(MSG("empty_sheet", sheet=chosen), file=file, hint=MSG("empty_sheet_hint"))
    width = max(len(r) for r in records)
    records = [list(r) + [None] * (width - len(r)) for r in records]
    try:
        k = header_index(records, rows, file)  # below a title block, if any (brecha.table_layout)
        header, data, header_row, rows = records[k], records[k + 1:], rows[k], np.asarray(rows[k + 1:], dtype=int)
        table = _framed(header, data, rows, file, header_row)
    except InputError as exc:  # on a notes sheet, say the workbook's other sheets
        raise with_sheets(exc, chosen, names) from None
    # the header's row for the ledger; the sheets for a message naming the workbook's other sheets
    table.attrs.update(header_row=header_row, sheet=chosen, sheets=tuple(names))
    return table, rows, None


def _reason(exc: Exception) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return text[:200]


# ---- Parquet --------------------------------------------------------------------------------------------

def _parquet(raw: bytes, path: Path):
    file = str(path)
    if len(raw) < 12 or not raw.endswith(b"PAR1"):
        raise InputError(MSG("bad_parquet", reason=MSG("parquet_truncated")), file=file,
                         hint=MSG("bad_parquet_hint"))
    try:
        table = pd.read_parquet(io.BytesIO(raw))
    except Exception as exc:  # pyarrow raises several types for damaged files; all mean the same to a user
        raise InputError(MSG("bad_parquet", reason=_reason(exc)), file=file, hint=MSG("bad_parquet_hint")) from None
    if not isinstance(table.index, pd.RangeIndex):
        table = table.reset_index()
    table = table.reset_index(drop=True)
    names = [_name(c) for c in table.columns]
    rows = np.arange(len(table)) + 2
    if len(set(names)) < len(names) or not all(names):
        cells = table.astype(object).where(table.notna(), None).to_numpy().tolist()
        return _framed(names, cells, rows, file), rows, None
    if len(table) == 0:
        raise InputError(MSG("header_only", columns=", ".join(names)), file=file, hint=MSG("header_only_hint"))
    table.columns = names
    return table, rows, None


# ---- JSON -----------------------------------------------------------------------------------------------

def _no_duplicates(pairs):
    keys = [k for k, _ in pairs]
    for key in keys:
        if keys.count(key) > 1:
            raise _JsonDuplicate(key)
    return dict(pairs)


def _json(raw: bytes, file: str):
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[:exc.start].count(b"\n") + 1
        raise InputError(MSG("json_encoding", byte=f"0x{raw[exc.start]:02X}", line=line), file=file,
                         hint=MSG("json_encoding_hint")) from None
    try:
        data = json.loads(text, object_pairs_hook=_no_duplicates)
    except json.JSONDecodeError as exc:
        raise InputError(MSG("bad_json", line=exc.lineno, col=exc.colno, reason=exc.msg), file=file,
                         hint=MSG("bad_json_hint")) from None
    except _JsonDuplicate as exc:
        raise InputError(MSG("json_duplicate", name=exc.args[0]), file=file,
                         hint=MSG("duplicate_columns_hint")) from None
    except RecursionError:
        raise InputError(MSG("json_shape"), file=file, hint=MSG("bad_json_hint")) from None
    if isinstance(data, dict) and data and all(isinstance(v, (dict, list)) for v in data.values()):
        try:  # pandas' default "columns" layout: {"unit": {"0": ...}, ...}
            data = pd.DataFrame(data).to_dict(orient="records")
        except Exception:
            raise InputError(MSG("json_shape"), file=file, hint=MSG("bad_json_hint")) from None
    if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
        raise InputError(MSG("json_shape"), file=file, hint=MSG("bad_json_hint"))
    names = list(dict.fromkeys(str(k) for r in data for k in r))
    if not data or not names:
        raise InputError(MSG("header_only", columns=", ".join(names)), file=file, hint=MSG("header_only_hint"))
    rows = np.arange(len(data)) + 2
    cells = []
    for row, record in zip(rows, data):
        values = {str(k): v for k, v in record.items()}
        for key, value in values.items():
            if isinstance(value, (dict, list)):
                raise InputError(MSG("json_nested", name=key), file=file, rows=[row], column=key,
                                 hint=MSG("json_nested_hint"))
        cells.append([_cell(values.get(n)) for n in names])
    return _framed(names, cells, rows, file), rows, None
