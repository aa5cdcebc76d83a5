"""Reading and writing tables, the format chosen by the file extension (.csv .parquet .xlsx .json)."""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from .errors import InputError
from .i18n import Catalog

FORMATS = (".csv", ".parquet", ".xlsx", ".json")

MSG = Catalog({
    "not_found": ("no se encuentra el archivo", "file not found"),
    "not_found_hint": ("revise la ruta", "check the path"),
    "empty": ("el archivo está vacío", "the file is empty"),
    "empty_hint": ("use un archivo con una fila de encabezado y datos", "give a file with a header row and data"),
    "unknown_input": ("tipo de archivo '{suffix}' desconocido", "unknown file type '{suffix}'"),
    "unknown_input_hint": ("use .csv, .parquet, .xlsx o .json", "use .csv, .parquet, .xlsx or .json"),
    "unknown_output": ("tipo de salida '{suffix}' desconocido", "unknown output type '{suffix}'"),
    "unknown_output_hint": ("termine el nombre de salida en .csv, .parquet, .xlsx o .json",
                            "end the output name with .csv, .parquet, .xlsx or .json"),
    "xls_output": ("brecha no escribe el formato antiguo de Excel 97-2003 (.xls)",
                   "brecha does not write the old Excel 97-2003 format (.xls)"),
    "xls_output_hint": ("use .xlsx (p. ej. -o {name}), que abre cualquier Excel desde 2007",
                        "use .xlsx (e.g. -o {name}), which any Excel since 2007 opens"),
})


class FileRows(Sequence):
    """The file row number of each row of a table read from a file (``table.attrs["rows"]``): an immutable
    sequence of whole numbers held in one int64 array, equal to the tuple of the same numbers.

    Why not a plain tuple (issue 19): pandas deep-copies ``attrs`` into the result of nearly every operation,
    and a tuple of 692,000 Python ints made each copy cost about a second (reading that panel spent 41 of
    its 48 s there); the ints also took 36 bytes a row (125 MB for 3.5 M rows, kept for the whole command
    in ``Panel.row_numbers``). This sequence is never changed, so a copy hands on the same object; it takes 8
    bytes a row. Why not a numpy array: pandas compares ``attrs`` when it combines frames (concat, merge), and
    an array there makes that comparison raise on pandas >= 3; ``==`` here gives one bool.
    """

    __slots__ = ("_values",)

    def __init__(self, rows=()):
        import numpy as np

        values = np.array(rows, dtype=np.int64).reshape(-1)
        values.flags.writeable = False
        self._values = values

    def __len__(self) -> int:
        return len(self._values)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return FileRows(self._values[index])
        return int(self._values[index])

    def __iter__(self):
        return iter(self._values.tolist())

    def __array__(self, dtype=None, copy=None):
        return self._values if dtype is None else self._values.astype(dtype)

    def __eq__(self, other) -> bool:
        import numpy as np

        if isinstance(other, FileRows):
            return bool(np.array_equal(self._values, other._values))
        if isinstance(other, (tuple, list)):
            return len(other) == len(self) and bool(np.array_equal(self._values, np.asarray(other)))
        return NotImplemented

    __hash__ = None

    def __repr__(self) -> str:
        shown = ", ".join(map(str, self._values[:5].tolist())) + (", ..." if len(self) > 5 else "")
        return f"FileRows([{shown}], {len(self)} rows)"

    def __deepcopy__(self, memo):
        return self

    def __copy__(self):
        return self

    def __reduce__(self):
        return (FileRows, (self._values.tolist(),))


def file_rows(rows) -> FileRows:
    """:class:`FileRows` from any sequence or array of whole numbers."""
    return rows if isinstance(rows, FileRows) else FileRows(rows)


def _suffix(path) -> str:
    suffix = Path(path).suffix.lower()
    if suffix in (".xls",):
        suffix = ".xlsx"
    return suffix


def read_table(path, *, sheet=0, dtype=None, decimal: str | None = None, whole_columns=None) -> pd.DataFrame:
    """Read a CSV, Excel, Parquet or JSON table; every problem with the file is one InputError.

    The file is opened by :func:`brecha.table_files.read_cells` (content checked against the name, encoding,
    separator, ragged rows, repeated column names, header without data...). Numbers written as text are read
    in their convention per column, ``1.234.567,8`` or ``1,234,567.8``, by
    :func:`brecha.number_formats.parse_numbers`: ``decimal`` ('.' or ',') states it where the cells alone do
    not; ``whole_columns`` names the columns that hold whole numbers (default: by name, births, deaths,
    population...). ``dtype=str`` keeps every cell as text; ``dtype={"unit": str}`` keeps those columns as text
    (names matched ignoring case and accents).

    Wholly empty rows are dropped; ``table.attrs["rows"]`` holds each remaining row's number in the file as
    a spreadsheet shows it (header = row 1), so error messages can point at the file's real rows (a
    :class:`FileRows`, equal to the tuple of those numbers);
    ``table.attrs["decimal"]`` names the columns read with a decimal comma. A workbook's ``sheet`` is a name or
    a number from 0 (:func:`brecha.table_layout.chosen_sheet`); ``table.attrs["sheet"]`` and ``["sheets"]`` name
    the sheet read and all the workbook's. A title block above the header is skipped with a warning
    (:func:`brecha.table_layout.header_index`); the rows keep their numbers in the file and
    ``table.attrs["header_row"]`` (CSV, Excel) holds the header's.
    """
    from .number_formats import parse_numbers
    from .table_files import read_cells

    path = Path(path)
    suffix = _suffix(path)
    if suffix not in FORMATS + (".txt", ".tsv", ".xlsm"):
        raise InputError(MSG("unknown_input", suffix=suffix), file=str(path), hint=MSG("unknown_input_hint"))
    cells, rows, separator = read_cells(path, sheet=sheet)
    # where the header was (below a title block, brecha.table_layout) and an .xlsx's sheets
    layout = {key: cells.attrs[key] for key in ("header_row", "sheet", "sheets") if key in cells.attrs}
    if dtype is str or dtype == "str":
        text_columns = list(cells.columns)
    elif isinstance(dtype, dict):
        text_columns = [name for name, kind in dtype.items() if kind is str or kind == "str"]
    else:
        text_columns = []
    table = parse_numbers(cells, file=str(path), rows=rows, decimal=decimal, separator=separator,
                          text_columns=text_columns, whole_columns=whole_columns)
    decimals = table.attrs.get("decimal", {})
    table = _settled(table, as_text=dtype is str or dtype == "str")
    # FileRows, not an array (pandas compares attrs when it combines frames) nor a tuple (copied at every step)
    table.attrs = {"rows": file_rows(rows), "decimal": dict(decimals), "separator": separator, **layout}
    return table


def _settled(table: pd.DataFrame, as_text: bool) -> pd.DataFrame:
    """Cells left as Python objects get pandas' usual dtypes: numbers numeric, texts 'str', booleans bool;
    with ``as_text`` every cell becomes text (a number cell of a spreadsheet as its shortest form)."""
    out = {}
    for name in table.columns:
        col = table[name]
        if col.dtype != object:
            out[name] = col.astype(str).where(col.notna(), None) if as_text else col
            continue
        present = [v for v in col.tolist() if v is not None and not (isinstance(v, float) and v != v)]
        if as_text or any(isinstance(v, str) for v in present):
            text = [None if (v is None or (isinstance(v, float) and v != v)) else _text(v) for v in col.tolist()]
            out[name] = pd.Series(text, index=col.index, dtype="str")
        elif present and all(isinstance(v, bool) for v in present) and len(present) == len(col):
            out[name] = col.astype(bool)
        elif all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in present):
            out[name] = pd.to_numeric(col)
        else:
            out[name] = col
    return pd.DataFrame(out, index=table.index)


def _text(value) -> str:
    """A cell as text: 1101.0 (a code Excel stored as a number) -> '1101'."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def check_output_name(path) -> None:
    """Refuse an output whose extension names no format ``write_table`` writes (checked before any work)."""
    if Path(path).suffix.lower() == ".xls":  # an .xlsx named .xls makes Excel warn the file may be damaged
        raise InputError(MSG("xls_output"), file=str(path),
                         hint=MSG("xls_output_hint", name=Path(path).with_suffix(".xlsx").name))
    suffix = _suffix(path)
    if suffix not in FORMATS:
        raise InputError(MSG("unknown_output", suffix=suffix), file=str(path), hint=MSG("unknown_output_hint"))


def write_table(df: pd.DataFrame, path, *, sheets: dict[str, pd.DataFrame] | None = None) -> Path:
    """Write one table (or several sheets for .xlsx) in the format given by the extension.

    Atomic (:func:`brecha.outputs.write_file`): a temporary file beside ``path`` replaces it once complete, so
    an error, a full disk or Ctrl-C leaves the earlier file as it was; missing folders are created."""
    import os

    from .outputs import write_file

    path = Path(path)
    if not os.path.isdir(path):  # a folder: write_file says so, which helps more than "unknown type ''"
        check_output_name(path)
    return write_file(path, lambda temp: _write_now(df, temp, _suffix(path), sheets))


def _write_now(df: pd.DataFrame, path: Path, suffix: str, sheets) -> None:
    if suffix == ".csv":
        from .csv_text import write_csv

        write_csv(df, path)  # df.to_csv(path, index=False)'s bytes, faster
    elif suffix == ".parquet":
        df.to_parquet(path, index=False)
    elif suffix == ".xlsx":
        with pd.ExcelWriter(path, engine="openpyxl") as writer:
            for name, table in (sheets or {"results": df}).items():
                table.to_excel(writer, sheet_name=str(name)[:31], index=False)
    else:
        _write_json(df, path)


def _json_value(value):
    """JSON encoder fallback: numpy scalars, dates."""
    if hasattr(value, "isoformat"):
        return value.isoformat()
    if hasattr(value, "item"):
        return value.item()
    return str(value)


def _write_json(df: pd.DataFrame, path: Path) -> None:
    """Records with floats in their shortest exact form (pandas' to_json keeps only 10 decimals), missing
    values (NaN, <NA>, None, +-inf) as null."""
    import json

    with open(path, "w", encoding="utf-8") as handle:
        json.dump(json_records(df), handle, **JSON_FORMAT)


# how a .json table is written (cli/streamed.py writes a big one piece by piece in the same form)
JSON_FORMAT = dict(ensure_ascii=False, indent=1, default=_json_value)


def json_records(df: pd.DataFrame) -> list[dict]:
    """The table's rows as JSON-ready records (:func:`_write_json`)."""
    import numpy as np

    columns = []
    for name in df.columns:
        col = df[name]
        if pd.api.types.is_float_dtype(col.dtype) and not isinstance(col.dtype, pd.api.extensions.ExtensionDtype):
            values = col.to_numpy()
            items = values.tolist()
            for i in np.flatnonzero(~np.isfinite(values)):
                items[i] = None
        else:
            items = col.to_numpy(dtype=object, na_value=None).tolist()
            items = [None if (isinstance(v, float) and not np.isfinite(v)) else v for v in items]
        columns.append(items)
    names = [str(c) for c in df.columns]
    return [dict(zip(names, row)) for row in zip(*columns)]
