"""The user's files of the mistake catalogue, built from the embedded real data, and the checks on outputs.

The base panel is La Araucanía (region 09, 32 communes) 2010-2014 from ``brecha.datasets.chile()``: 160
commune-years whose true totals are known, so every "ok" case can say exactly what the output must hold.
"""
from __future__ import annotations

import json
import os
import shutil
import tempfile
import unicodedata
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd

REGION = "09"
YEARS = list(range(2010, 2015))


@lru_cache(maxsize=None)
def chile():
    import warnings

    from brecha import datasets

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the example's own caveats; the runs under test show theirs
        return datasets.chile()


@lru_cache(maxsize=None)
def _base() -> pd.DataFrame:
    p = chile()
    codes = p.units.loc[p.units["region"].astype(str) == REGION, "unit"]
    d = p.data[p.data["unit"].isin(codes) & p.data["year"].isin(YEARS)][["unit", "year", "births", "deaths"]]
    d = d.astype({"births": "int64", "deaths": "int64"}).reset_index(drop=True)
    assert len(d) == 160 and d["births"].gt(0).all(), "the base panel changed: 32 communes x 5 years expected"
    return d


def base() -> pd.DataFrame:
    """unit, year, births, deaths: 160 true commune-years (a fresh copy each time)."""
    return _base().copy()


@lru_cache(maxsize=None)
def names() -> dict:
    units = chile().units
    return dict(zip(units["unit"], units["name"]))


def totals(df: pd.DataFrame | None = None) -> tuple[int, int]:
    df = base() if df is None else df
    return int(df["births"].sum()), int(df["deaths"].sum())


def chile_counts() -> pd.DataFrame:
    """The whole embedded Chilean panel, counts only (what a user's own file holds)."""
    d = chile().data[["unit", "year", "births", "deaths"]].copy()
    return d.reset_index(drop=True)


def with_names(df: pd.DataFrame | None = None) -> pd.DataFrame:
    """comuna (official name), anio, nacidos_vivos, defunciones_infantiles: a names-only file as INE/DEIS print them."""
    df = base() if df is None else df
    return pd.DataFrame({"comuna": df["unit"].map(names()), "anio": df["year"],
                         "nacidos_vivos": df["births"], "defunciones_infantiles": df["deaths"]})


def plain(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def es_thousands(n) -> str:
    """1234567 -> '1.234.567' (Spanish and Portuguese exports)."""
    return f"{int(n):,}".replace(",", ".")


def es_decimal(x, digits: int = 1) -> str:
    """1234.5 -> '1.234,5'."""
    text = f"{x:,.{digits}f}"
    return text.replace(",", "_").replace(".", ",").replace("_", ".")


# ------------------------------------------------------------------------------------------ studies
SMALL_STUDY = '''title = "{title}"
period = "2010-2014"
[data]
{data}
[units]
all = true
[reference]
rule = "{reference}"
{covariates}
[analyses.rates]
{more}
'''


def study(title="Tiny", data='panel = "panel.csv"', reference="best", covariates="", more="") -> str:
    return SMALL_STUDY.format(title=title, data=data, reference=reference, covariates=covariates, more=more)


# ------------------------------------------------------------------------------------------ writers
def write(folder: Path, name: str, df: pd.DataFrame, **kw) -> Path:
    """Write ``df`` as the user's tool would, by extension (csv options: sep, encoding, bom)."""
    path = Path(folder) / name
    path.parent.mkdir(parents=True, exist_ok=True)
    suffix = path.suffix.lower()
    if suffix in (".csv", ".txt", ".tsv"):
        sep = kw.get("sep", ",")
        text = df.to_csv(index=False, sep=sep, lineterminator=kw.get("newline", "\n"))
        encoding = kw.get("encoding", "utf-8")
        data = text.encode(encoding)
        if kw.get("bom"):
            data = b"\xef\xbb\xbf" + data
        path.write_bytes(data)
    elif suffix == ".parquet":
        df.to_parquet(path, index=False)
    elif suffix == ".xlsx":
        sheets = kw.get("sheets") or {"Sheet1": df}
        with pd.ExcelWriter(path, engine="openpyxl") as writer:
            for sheet, table in sheets.items():
                table.to_excel(writer, sheet_name=sheet, index=False)
    elif suffix == ".json":
        path.write_text(df.to_json(orient="records"), encoding="utf-8")
    else:
        raise ValueError(suffix)
    return path


def text_file(folder: Path, name: str, text: str, encoding: str = "utf-8") -> Path:
    path = Path(folder) / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode(encoding))
    return path


def csv_lines(df: pd.DataFrame, sep: str = ",") -> list[str]:
    return df.to_csv(index=False, sep=sep).splitlines()


# ------------------------------------------------------------------------------------------ reading outputs
def read_any(path) -> pd.DataFrame:
    """An output read back with pandas alone (not brecha: a reader bug must not hide a writer bug)."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix == ".csv":
        return pd.read_csv(path, dtype={"unit": str})
    if suffix == ".parquet":
        return pd.read_parquet(path)
    if suffix == ".xlsx":
        return pd.read_excel(path, dtype={"unit": str})
    if suffix == ".json":
        return pd.DataFrame(json.loads(path.read_text(encoding="utf-8")))
    raise ValueError(suffix)


def panel_totals(out: str, births: int, deaths: int, rows: int | None = None, **columns):
    """Check: the panel file ``out`` holds these totals (and rows, and column sums given as name=value)."""
    def check(folder, run):
        path = Path(folder) / out
        if not path.exists():
            return f"{out} was not written"
        d = read_any(path)
        problems = []
        for col, want in (("births", births), ("deaths", deaths), *columns.items()):
            if col not in d.columns:
                problems.append(f"no column {col} in {out} (has {', '.join(map(str, d.columns))})")
                continue
            got = pd.to_numeric(d[col], errors="coerce").sum()
            if not np.isclose(got, want, rtol=1e-9):
                problems.append(f"{col} total {got:g}, intended {want:g}")
        if rows is not None and len(d) != rows:
            problems.append(f"{len(d)} rows, intended {rows}")
        return "; ".join(problems) or None
    return check


def rates_totals(out: str, births: int, deaths: int, rows: int):
    """Check: a ``brecha rates -o`` table holds these births and events (deaths) over its rows."""
    def check(folder, run):
        path = Path(folder) / out
        if not path.exists():
            return f"{out} was not written"
        d = read_any(path)
        got = (int(d["births"].sum()), int(d["events"].sum()), len(d))
        return None if got == (births, deaths, rows) else f"births, events, rows = {got}, intended {(births, deaths, rows)}"
    return check


def summary_totals(out: str, births: int, deaths: int):
    """Check: a ``brecha panel -o`` summary (totals per year) adds up to these totals."""
    return panel_totals(out, births, deaths)


def output_rows(out: str, rows: int):
    def check(folder, run):
        path = Path(folder) / out
        if not path.exists():
            return f"{out} was not written"
        n = len(read_any(path))
        return None if n == rows else f"{out} has {n} rows, intended {rows}"
    return check


def all_checks(*checks):
    def check(folder, run):
        found = [c(folder, run) for c in checks]
        return "; ".join(f for f in found if f) or None
    return check


def stdout_lacks(*words):
    def check(folder, run):
        bad = [w for w in words if w in run.stdout]
        return f"printed {bad} before refusing (the work ran first)" if bad else None
    return check


# ------------------------------------------------------------------------------------------ the examples
_REFERENCE: dict = {}


def reference_output(command: tuple) -> pd.DataFrame:
    """``brecha <command> --example chile -o ref.csv`` once per command, read back (the numbers to match)."""
    if command not in _REFERENCE:
        from mistake_harness import run_in_process

        folder = Path(tempfile.mkdtemp(prefix="brecha-e2e-ref-"))
        out = folder / "ref.csv"
        try:
            run = run_in_process(["--lang", "en", *command, "--example", "chile", "-o", str(out)])
            if run.rc != 0 or not out.exists():
                raise RuntimeError(f"the example itself fails: {' '.join(command)}: {run.stderr[-300:]}")
            _REFERENCE[command] = read_any(out)
        finally:  # read into memory: the folder is not left in the system's temporary folder
            shutil.rmtree(folder, ignore_errors=True)
    return _REFERENCE[command].copy()


IGNORED = ("source", "file")


def compare(got: pd.DataFrame, want: pd.DataFrame, what: str) -> str | None:
    """Same columns, rows and values (numbers to 1e-9 relative)."""
    got_cols = [c for c in got.columns if c not in IGNORED]
    want_cols = [c for c in want.columns if c not in IGNORED]
    if got_cols != want_cols:
        lost = [c for c in want_cols if c not in got_cols]
        extra = [c for c in got_cols if c not in want_cols]
        return f"{what}: columns differ from the example (missing {lost}, extra {extra})"
    if len(got) != len(want):
        return f"{what}: {len(got)} rows, the example gives {len(want)}"
    for col in want_cols:
        a, b = got[col], want[col]
        if pd.api.types.is_numeric_dtype(b) and pd.api.types.is_numeric_dtype(a):
            x, y = a.to_numpy(float), b.to_numpy(float)
            bad = ~np.isclose(x, y, rtol=1e-9, atol=1e-12, equal_nan=True)
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                return f"{what}: column {col} row {i + 2}: {x[i]!r}, the example gives {y[i]!r} ({bad.sum()} cells)"
        else:
            sa = a.astype(object).where(a.notna(), "").astype(str).to_numpy()
            sb = b.astype(object).where(b.notna(), "").astype(str).to_numpy()
            bad = sa != sb
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                return f"{what}: column {col} row {i + 2}: {sa[i]!r}, the example gives {sb[i]!r}"
    return None


def same_as_example(command: tuple, out: str = "out.csv"):
    """Check: the output of the command on the user's file equals that of ``--example chile``."""
    def check(folder, run):
        path = Path(folder) / out
        if not path.exists():
            return f"{out} was not written"
        return compare(read_any(path), reference_output(tuple(command)), " ".join(command))
    return check


def tables_as_example(folder_name: str, example_folder: str):
    """Check: a report built from the user's panel file has the tables of the same study on the example."""
    def check(folder, run):
        mine, theirs = Path(folder) / folder_name / "tables", Path(folder) / example_folder / "tables"
        # the example's ledger.csv is the embedded data's record ledger; a user's panel file has none
        a = sorted(p.name for p in mine.glob("*.csv") if p.name != "ledger.csv")
        b = sorted(p.name for p in theirs.glob("*.csv") if p.name != "ledger.csv")
        if a != b:
            return f"report tables differ from the example's: missing {sorted(set(b) - set(a))}, extra {sorted(set(a) - set(b))}"
        for name in b:
            if name == "ledger.csv":
                continue
            found = compare(_numeric(pd.read_csv(mine / name)), _numeric(pd.read_csv(theirs / name)), name)
            if found:
                return found
        return None
    return check


def _numeric(df: pd.DataFrame) -> pd.DataFrame:
    return df


def is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0
