"""Reading and writing tables, the format chosen by the file extension (.csv .parquet .xlsx .json)."""
from __future__ import annotations

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
})


def _suffix(path) -> str:
    suffix = Path(path).suffix.lower()
    if suffix in (".xls",):
        suffix = ".xlsx"
    return suffix


def read_table(path, *, sheet=0, dtype=None) -> pd.DataFrame:
    """Read a CSV (separator sniffed, UTF-8 or Latin-1), Excel, Parquet or JSON table.

    Wholly empty rows are dropped; ``table.attrs["rows"]`` holds each remaining row's number in the file as
    a spreadsheet shows it (header = row 1), so error messages can point at the file's real rows.
    """
    path = Path(path)
    if not path.exists():
        raise InputError(MSG("not_found"), file=str(path), hint=MSG("not_found_hint"))
    suffix = _suffix(path)
    if path.stat().st_size == 0:
        raise InputError(MSG("empty"), file=str(path), hint=MSG("empty_hint"))
    if suffix in (".csv", ".txt", ".tsv"):
        raw = path.read_bytes()
        try:
            text_head = raw[:65536].decode("utf-8")
            encoding = "utf-8-sig" if raw.startswith(b"\xef\xbb\xbf") else "utf-8"
        except UnicodeDecodeError:
            # a multi-byte character cut at the 64 KiB boundary is still UTF-8
            try:
                raw.decode("utf-8")
                encoding = "utf-8"
            except UnicodeDecodeError:
                encoding = "latin-1"
            text_head = raw[:65536].decode(encoding, errors="replace")
        first = text_head.splitlines()[0] if text_head else ""
        sep = max([",", ";", "\t", "|"], key=first.count)
        # blank lines kept (as empty rows) so that row numbers stay the file's; dropped below
        table = pd.read_csv(path, sep=sep, encoding=encoding, dtype=dtype, skip_blank_lines=False)
    elif suffix == ".parquet":
        table = pd.read_parquet(path)
    elif suffix == ".xlsx":
        table = pd.read_excel(path, sheet_name=sheet, dtype=dtype)
    elif suffix == ".json":
        # precise_float: the shortest-repr floats written by write_table read back bit for bit
        table = pd.read_json(path, orient="records", dtype=dtype, precise_float=True)
    else:
        raise InputError(MSG("unknown_input", suffix=suffix), file=str(path), hint=MSG("unknown_input_hint"))
    rows = pd.RangeIndex(len(table)) + 2
    empty = table.isna().all(axis=1).to_numpy() if len(table.columns) else None
    if empty is not None and empty.any():
        table = table.loc[~empty].reset_index(drop=True)
        rows = rows[~empty]
    # a tuple, not an array: pandas compares attrs when it combines frames (concat, merge), and an array
    # there makes that comparison raise on pandas >= 3
    table.attrs["rows"] = tuple(int(r) for r in rows)
    return table


def write_table(df: pd.DataFrame, path, *, sheets: dict[str, pd.DataFrame] | None = None) -> Path:
    """Write one table (or several sheets for .xlsx) in the format given by the extension."""
    path = Path(path)
    suffix = _suffix(path)
    if suffix not in FORMATS:
        raise InputError(MSG("unknown_output", suffix=suffix), file=str(path), hint=MSG("unknown_output_hint"))
    if path.parent and not path.parent.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
    if suffix == ".csv":
        df.to_csv(path, index=False)
    elif suffix == ".parquet":
        df.to_parquet(path, index=False)
    elif suffix == ".xlsx":
        with pd.ExcelWriter(path, engine="openpyxl") as writer:
            for name, table in (sheets or {"results": df}).items():
                table.to_excel(writer, sheet_name=str(name)[:31], index=False)
    else:
        _write_json(df, path)
    return path


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
    records = [dict(zip(names, row)) for row in zip(*columns)]
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(records, handle, ensure_ascii=False, indent=1, default=_json_value)
