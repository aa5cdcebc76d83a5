"""Reading and writing tables, the format chosen by the file extension (.csv .parquet .xlsx .json)."""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from .errors import InputError

FORMATS = (".csv", ".parquet", ".xlsx", ".json")


def _suffix(path) -> str:
    suffix = Path(path).suffix.lower()
    if suffix in (".xls",):
        suffix = ".xlsx"
    return suffix


def read_table(path, *, sheet=0, dtype=None) -> pd.DataFrame:
    """Read a CSV (separator sniffed, UTF-8 or Latin-1), Excel or Parquet table."""
    path = Path(path)
    if not path.exists():
        raise InputError("file not found", file=str(path), hint="check the path")
    suffix = _suffix(path)
    if path.stat().st_size == 0:
        raise InputError("the file is empty", file=str(path), hint="give a file with a header row and data")
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
        return pd.read_csv(path, sep=sep, encoding=encoding, dtype=dtype)
    if suffix == ".parquet":
        return pd.read_parquet(path)
    if suffix == ".xlsx":
        return pd.read_excel(path, sheet_name=sheet, dtype=dtype)
    if suffix == ".json":
        return pd.read_json(path, orient="records", dtype=dtype)
    raise InputError(f"unknown file type '{suffix}'", file=str(path),
                     hint="use .csv, .parquet, .xlsx or .json")


def write_table(df: pd.DataFrame, path, *, sheets: dict[str, pd.DataFrame] | None = None) -> Path:
    """Write one table (or several sheets for .xlsx) in the format given by the extension."""
    path = Path(path)
    suffix = _suffix(path)
    if suffix not in FORMATS:
        raise InputError(f"unknown output type '{suffix}'", file=str(path),
                         hint="end the output name with .csv, .parquet, .xlsx or .json")
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
        df.to_json(path, orient="records", indent=1, force_ascii=False)
    return path
