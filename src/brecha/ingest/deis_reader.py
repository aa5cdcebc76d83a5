"""Reading DEIS microdata files fast: each file aggregated to (year, commune code, class k) counts.

:func:`read_counts` is the reading half of :func:`brecha.ingest.deis.ingest_deis` (which then harmonises the
codes, classifies every count for the ledger and builds the panel). The class ``k`` of a record is its age
class for deaths (:data:`AGE_CLASSES`: the ledger reason, the panel group and whether it is early
neonatal) or ``BIRTH`` / ``FILTERED`` for births (the layout's filter).

Only the numeric columns are parsed (polars' lazy CSV scan, streaming engine, two files at a time; the
Latin-1 text columns are skipped without decoding) and records are aggregated inside the scan. At the same
time another thread counts the separators of each file: with exactly ``columns - 1`` separators per
record, every row has the right number of columns. Otherwise the file is read again by a strict reader
(pyarrow, one thread) that rejects every row with a wrong number of columns and reports its line number;
those rows go to the ledger as ``malformed_columns``, and blank lines as ``blank_line``.
"""
from __future__ import annotations

import mmap
import os
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import warn
from ..i18n import Catalog
from .deis_layout import FileSpec
from .ledger import Ledger

# age class (deaths) -> ledger reason; group for the panel; early neonatal (< 7 days) or not
AGE_CLASSES = {
    0: ("not_infant", None, False),
    1: ("infant_neonatal_early", "neonatal", True),
    2: ("infant_neonatal_late", "neonatal", False),
    3: ("infant_neonatal_hours_24_plus", "neonatal", True),     # 24-167 hours
    4: ("infant_postneonatal", "postneonatal", False),
    5: ("infant_age_group_unknown", "unknown", False),
    6: ("not_infant_other_units", None, False),
    7: ("age_unknown", None, False),
    8: ("age_invalid", None, False),
    9: ("infant_postneonatal_hours", "postneonatal", False),   # 672-8759 hours
    10: ("infant_neonatal_hours_24_plus", "neonatal", False),  # 168-671 hours
}
BIRTH = 0
FILTERED = 1
MAX_LINE_EXAMPLES = 20

MSG = Catalog({
    "malformed": ("{file}: {n} {n:fila mal formada excluida|filas mal formadas excluidas} ({n:línea|líneas} {lines}); "
                  "{n:está|están} en el ledger",
                  "{file}: {n} malformed {n:row|rows} excluded ({n:line|lines} {lines}); {n:it is|they are} in the "
                  "ledger"),
    "columns_expected": ("se esperan {n} columnas", "{n} columns expected"),
})


def _count_byte(path: Path, byte: str, window: int = 16 << 20) -> int:
    """How many times a byte occurs in the file.

    The file is mapped 16 MiB at a time (no copy; each window is unmapped before the next, so the
    mapped pages do not pile up in the resident memory); numpy releases the GIL while it compares.
    """
    value = ord(byte)
    size = path.stat().st_size
    total = 0
    with open(path, "rb") as handle:
        for offset in range(0, size, window):
            view = mmap.mmap(handle.fileno(), min(window, size - offset), access=mmap.ACCESS_READ, offset=offset)
            try:
                total += int(np.count_nonzero(np.frombuffer(view, np.uint8) == value))
            finally:
                view.close()
    return total


def _physical_lines(path: Path) -> int:
    """Lines in the file (a last line without a newline counts)."""
    size = path.stat().st_size
    if size == 0:
        return 0
    with open(path, "rb") as handle:
        handle.seek(size - 1)
        last = handle.read(1)
    return _count_byte(path, "\n") + (0 if last == b"\n" else 1)


def _age_class_expr(pl, tipo: str, cant: str):
    t, c = pl.col(tipo), pl.col(cant)
    return (pl.when(t == 9).then(7)
            .when(t.is_null() | c.is_null() | (c < 0)).then(8)
            .when(t == 1).then(pl.when(c == 0).then(5).otherwise(0))
            .when(t == 2).then(pl.when(c == 0).then(5).when(c < 12).then(4).otherwise(6))
            .when(t == 3).then(pl.when(c < 7).then(1).when(c < 28).then(2).when(c < 365).then(4).otherwise(6))
            .when(t == 4).then(pl.when(c < 24).then(1).when(c < 168).then(3).when(c < 672).then(10)
                               .when(c < 8760).then(9).otherwise(6))
            .otherwise(8)).cast(pl.Int8).alias("k")


def _class_exprs(pl, spec: FileSpec):
    """Expressions giving year, commune and class k from the needed columns (named r_<role>, k_<i>)."""
    if spec.kind == "deaths":
        k = _age_class_expr(pl, "r_age_type", "r_age_count")
    else:
        keep = pl.lit(True)
        for index, allowed in spec.keep.items():
            keep = keep & pl.col(f"k_{index}").is_in(sorted(allowed)).fill_null(False)
        k = pl.when(keep).then(BIRTH).otherwise(FILTERED).cast(pl.Int8).alias("k")
    return [pl.col("r_year").alias("year"), pl.col("r_commune").alias("code"), k]


def _problem_expr(pl, spec: FileSpec, years):
    """Per record (columns year, code, k): the ledger reason when it is one that needs line numbers
    (year empty or not a number; commune empty or not a number on a record that would be counted)."""
    year_ok = pl.col("year").is_not_null()
    if years is not None:
        year_ok = year_ok & pl.col("year").is_in(list(years))
    if spec.kind == "deaths":
        countable = pl.col("k").is_in([k for k, v in AGE_CLASSES.items() if v[1] is not None])
    else:
        countable = pl.col("k") == BIRTH
    return (pl.when(pl.col("year").is_null()).then(pl.lit("year_invalid"))
            .when(year_ok & countable & pl.col("code").is_null()).then(pl.lit("commune_missing"))
            .otherwise(pl.lit(None, dtype=pl.String)).alias("problem"))


def _problem_lines(frame, first_row: int = 0) -> dict:
    """{reason: [row index, ...]} (first few per reason) from a frame with columns i and problem."""
    out: dict = {}
    for reason, index in zip(frame["problem"].to_list(), frame["i"].to_list()):
        rows = out.setdefault(reason, [])
        if len(rows) < MAX_LINE_EXAMPLES:
            rows.append(int(index) + first_row)
    return out


def _needed(spec: FileSpec) -> dict:
    """0-based column index -> internal name of each column that is parsed."""
    needed = {index: f"r_{role}" for role, index in spec.roles.items()}
    for index in spec.keep:
        needed.setdefault(index, f"k_{index}")
    return needed


def _scan(spec: FileSpec, **options):
    """polars lazy scan of the file: the needed columns as integers (unparsable -> null), the rest as text."""
    import polars as pl

    needed = _needed(spec)
    schema = {needed.get(i, f"c{i}"): (pl.Int64 if i in needed else pl.String) for i in range(spec.ncols)}
    # without quotes in the file's head, quote handling is off: every separator splits, as the
    # separator count assumes (a quoted separator further down makes the counts disagree)
    return pl.scan_csv(spec.path, separator=spec.sep, has_header=False, skip_rows=1 if spec.header else 0,
                       schema=schema, encoding="utf8-lossy", ignore_errors=True,
                       quote_char='"' if spec.has_quotes else None, missing_columns="insert", **options)


def _fast_query(spec: FileSpec):
    """The file aggregated to (year, code, k) counts inside the scan."""
    import polars as pl

    lf = _scan(spec, raise_if_empty=False)
    return lf.select(_class_exprs(pl, spec)).group_by(["year", "code", "k"]).agg(pl.len().alias("n"))


def _scan_strict(spec: FileSpec, years=None) -> tuple[pd.DataFrame, int, list, dict]:
    """pyarrow single-thread read that rejects rows with a wrong number of columns, with line numbers.

    Returns counts (year, code, k, n), the number of well-formed records, the malformed rows
    [(line, text)], and {reason: [line, ...]} for records with an empty or non-numeric year or commune.
    """
    import polars as pl
    import pyarrow as pa
    import pyarrow.csv as pacsv

    needed = _needed(spec)
    names = [needed.get(i, f"c{i}") for i in range(spec.ncols)]
    bad: list = []

    def on_invalid(row):
        bad.append((row.number, row.text))
        return "skip"

    reader = pacsv.open_csv(
        spec.path,
        read_options=pacsv.ReadOptions(column_names=names, skip_rows=1 if spec.header else 0, use_threads=False,
                                       block_size=2 << 20, encoding="latin-1"),
        parse_options=pacsv.ParseOptions(delimiter=spec.sep, quote_char='"', invalid_row_handler=on_invalid),
        convert_options=pacsv.ConvertOptions(include_columns=list(needed.values()),
                                             column_types={n: pa.string() for n in needed.values()}))
    parts, good = [], 0
    problems: dict = {}
    for batch in reader:
        frame = pl.from_arrow(pa.Table.from_batches([batch]))
        # numbers as the fast reader reads them: leading spaces allowed, anything else makes them empty
        frame = frame.select(pl.col(n).str.strip_chars_start(" ").cast(pl.Int64, strict=False)
                             for n in needed.values())
        classed = frame.select(_class_exprs(pl, spec))
        flagged = (classed.with_row_index("i").with_columns(_problem_expr(pl, spec, years))
                   .filter(pl.col("problem").is_not_null()))
        for reason, rows in _problem_lines(flagged, good).items():
            problems.setdefault(reason, []).extend(rows)
        parts.append(classed.group_by(["year", "code", "k"]).agg(pl.len().alias("n")))
        if len(parts) >= 32:       # keep the partial counts small: fold them every 32 blocks
            parts = [pl.concat(parts).group_by(["year", "code", "k"]).agg(pl.col("n").sum())]
        good += batch.num_rows
    counts = pl.concat(parts).group_by(["year", "code", "k"]).agg(pl.col("n").sum()) if parts else None
    table = counts.to_pandas() if counts is not None else pd.DataFrame(columns=["year", "code", "k", "n"])
    # the line of the i-th good record: physical lines minus the header and the malformed lines
    first = 2 if spec.header else 1
    bad_lines = sorted(int(b[0]) for b in bad if b[0] is not None)
    lines = {reason: [_nth_good_line(i, first, bad_lines) for i in rows[:MAX_LINE_EXAMPLES]]
             for reason, rows in problems.items()}
    return table, good, bad, lines


def _nth_good_line(i: int, first: int, bad_lines: list) -> int:
    line = first + i
    for b in bad_lines:            # few malformed lines: a walk is enough
        if b <= line:
            line += 1
    return line


CSV_CHUNK_VARIABLE = "POLARS_CSV_CHUNK_SIZE"
CSV_CHUNK_BYTES = 4 << 20


@contextmanager
def _csv_chunk_size(size: int = CSV_CHUNK_BYTES):
    """Bound the memory of polars' streaming CSV scans for the duration of the block only.

    polars (2.x) offers no argument for its CSV chunk size: it reads the environment variable
    ``POLARS_CSV_CHUNK_SIZE`` each time a query is collected (measured: one scan of the 1 GB synthetic
    deaths file peaks at about 245 MB RSS with 4 MiB, 425-460 MB with polars' default). The variable is
    set only while the scans run and the previous state is put back afterwards, so the rest of the
    process (and the user's own polars code) is left as it was; a value the user set is respected.
    """
    previous = os.environ.get(CSV_CHUNK_VARIABLE)
    if previous is None:
        os.environ[CSV_CHUNK_VARIABLE] = str(size)
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop(CSV_CHUNK_VARIABLE, None)


def _value_problem_lines(spec: FileSpec, years=None) -> dict:
    """{reason: [line, ...]} for records with an empty or non-numeric year or commune (fast path, run only
    when the counts show such records)."""
    import polars as pl

    lf = _scan(spec, row_index_name="i")
    found = (lf.select(pl.col("i"), *_class_exprs(pl, spec)).with_columns(_problem_expr(pl, spec, years))
             .filter(pl.col("problem").is_not_null()).select("i", "problem"))
    with _csv_chunk_size():
        found = found.collect(engine="streaming")
    return _problem_lines(found, 2 if spec.header else 1)


def read_counts(specs: list, ledger: Ledger, years=None) -> list[pd.DataFrame]:
    """Read the files: one (year, code, k, n) table per file; malformed rows and blank lines are put in the
    ledger here (the other reasons later, once codes are harmonised).

    Fast path: polars scans two files at a time while one thread counts each file's separators; a file
    whose count is not exactly ``(columns - 1)`` per record (header included) is read again strictly.
    """
    import polars as pl

    tables: list = [None] * len(specs)
    with ThreadPoolExecutor(max_workers=1) as pool:
        seps = [pool.submit(_count_byte, spec.path, spec.sep) for spec in specs]
        for start in range(0, len(specs), 2):
            group = specs[start:start + 2]
            try:
                with _csv_chunk_size():    # polars' chunk size bounds the memory of each scan
                    frames = pl.collect_all([_fast_query(spec) for spec in group], engine="streaming")
            except pl.exceptions.PolarsError:
                frames = [None] * len(group)      # anything the fast reader cannot take: strict reader
            for i, frame in enumerate(frames):
                tables[start + i] = frame.to_pandas() if frame is not None else None
        separators = [f.result() for f in seps]
    for i, spec in enumerate(specs):
        table = tables[i]
        rows = int(table["n"].sum()) if table is not None and len(table) else 0
        records = rows + (1 if spec.header else 0)
        name = str(spec.path)
        if table is not None and separators[i] == (spec.ncols - 1) * records:
            problems = table[["year", "code"]].isna().any(axis=None)
            # an empty year or code might be a quoted number further down the file than the head checked
            if not (problems and not spec.has_quotes and _count_byte(spec.path, '"') > 0):
                ledger.start_file(name, spec.kind, rows)
                if problems:
                    table.attrs["problem_lines"] = _value_problem_lines(spec, years)
                continue
        tables[i] = _read_strict(spec, ledger, years)
    return tables


def _read_strict(spec: FileSpec, ledger: Ledger, years=None) -> pd.DataFrame:
    name = str(spec.path)
    table, good, bad, problem_lines = _scan_strict(spec, years)
    table.attrs["problem_lines"] = problem_lines
    # blank lines: physical lines that are neither the header, a record nor a malformed row
    blank = max(_physical_lines(spec.path) - (1 if spec.header else 0) - good - len(bad), 0)
    ledger.start_file(name, spec.kind, good + len(bad) + blank)
    if bad:
        lines = [b[0] for b in bad if b[0] is not None]
        ledger.add(name, "malformed_columns", len(bad), lines=lines[:MAX_LINE_EXAMPLES],
                   detail=MSG("columns_expected", n=spec.ncols))
        shown = ", ".join(str(x) for x in lines[:10]) + (" ..." if len(lines) > 10 else "")
        warn(MSG("malformed", file=name, n=len(bad), lines=shown))
    if blank:
        ledger.add(name, "blank_line", blank)
    return table
