"""DEIS death and birth microdata -> a commune x year :class:`~brecha.panel.Panel` and a record ledger.

    >>> from brecha.ingest.deis import ingest_deis
    >>> panel, ledger = ingest_deis(deaths=["DEFUNCIONES_FUENTE_DEIS_1990_2021.csv"],
    ...                             births=["NAC_1992_2021.csv"], years=range(2000, 2022))  # doctest: +SKIP
    >>> print(ledger)                                                                     # doctest: +SKIP

What is counted
---------------
Deaths by commune of residence (``CODIGO_COMUNA_RESIDENCIA``) and year of death (``ANO_DEF``); age from
``EDAD_TIPO`` (1 years, 2 months, 3 days, 4 hours, 9 unknown) and ``EDAD_CANT``:

==========================  ===================================================  =============================
age as written              brecha                                               ledger reason
==========================  ===================================================  =============================
hours 0-23, days 0-6        infant, neonatal, early neonatal (< 7 days)          infant_neonatal_early
days 7-27                   infant, neonatal (late)                              infant_neonatal_late
hours 24-671                infant, neonatal (read as hours // 24 days)          infant_neonatal_hours_24_plus
days 28-364, months 1-11    infant, post-neonatal                                infant_postneonatal
hours 672-8759              infant, post-neonatal (read as days)                 infant_postneonatal_hours
years 0, months 0           infant, age group unknown (in ``deaths`` only)        infant_age_group_unknown
years >= 1                  not an infant death                                  not_infant
months >= 12, days >= 365,  not an infant death                                  not_infant_other_units
hours >= 8760
EDAD_TIPO 9                 age unknown, excluded                                age_unknown
anything else / empty       age invalid, excluded                                age_invalid
==========================  ===================================================  =============================

Neonatal = under 28 days, post-neonatal = 28 days to 11 months (WHO, ICD-10 definitions; DEIS coding as in
the DEIS death-file documentation). A record is excluded for the first of: malformed row, year empty,
outside the requested years, age (deaths), the layout's filter (births), commune empty, commune 99999,
commune code unknown in every period. Commune codes of any period are mapped to the 2018 division by the
registry (:meth:`brecha.registry.Registry.harmonise_codes`), once per distinct code (and per year only for
a code that means different communes in different periods), never per row.

A commune-year is 0 only where a file covers it: a file holding records of at least half of the communes
(national) covers every commune in its years, an extract only the communes it holds; elsewhere the counts
are <NA>, with a note. Two files of one kind with records of the same commune-year are warned about.

How it reads millions of rows in seconds
----------------------------------------
Only the numeric columns are parsed (polars' lazy CSV scan, streaming engine, two files at a time; the
Latin-1 text columns are skipped without decoding) and records are aggregated to (year, commune, age
class) counts inside the scan. At the same time another thread counts the separators of each file: with
exactly ``columns - 1`` separators per record, every row has the right number of columns. Otherwise the
file is read again by a strict reader (pyarrow, one thread) that rejects every row with a wrong number of
columns and reports its line number; those rows go to the ledger as ``malformed_columns``, and blank
lines as ``blank_line``.
"""
from __future__ import annotations

import mmap
import os
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from .. import progress
from ..errors import InputError, warn
from ..i18n import Catalog
from .deis_layout import (BIRTHS_COLUMNS, DEATHS_COLUMNS, BirthsLayout, FileSpec,  # noqa: F401
                          inspect_births, inspect_deaths)
from .ledger import Ledger, LedgerError

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
    "no_input": ("indique al menos un archivo de defunciones o de nacimientos",
                 "give at least one deaths or births file"),
    "repeated": ("el mismo archivo se entregó más de una vez: {files}",
                 "the same file was given more than once: {files}"),
    "repeated_hint": ("entregue cada archivo una sola vez (sus registros se contarían dos veces)",
                      "give each file once (its records would be counted twice)"),
    "bad_split": ("split debe ser 'keep' o 'merge', no '{value}'", "split must be 'keep' or 'merge', not '{value}'"),
    "nothing_counted": ("ningún registro cae en los años pedidos (vea el ledger):\n{ledger}",
                        "no record falls in the requested years (see the ledger):\n{ledger}"),
    "nothing_hint": ("revise los años pedidos y los archivos", "check the requested years and the files"),
    "malformed": ("{file}: {n} filas mal formadas excluidas (líneas {lines}); están en el ledger",
                  "{file}: {n} malformed rows excluded (lines {lines}); they are in the ledger"),
    "unrecognised": ("{n} registros con códigos de comuna no reconocidos en ningún período excluidos: {codes}",
                     "{n} records with commune codes not recognised in any period excluded: {codes}"),
    "overlap": ("{first} y {second} tienen registros de {n} comuna-años en común ({cells}); si un archivo "
                "contiene registros del otro, se cuentan dos veces (vea el ledger)",
                "{first} and {second} both hold records of the same {n} commune-years ({cells}); if one file "
                "holds records of the other, they are counted twice (see the ledger)"),
    "totals_differ": ("los totales del panel (nacimientos {births}, defunciones infantiles {deaths}) difieren de "
                      "los registros contados del ledger ({ledger_births}, {ledger_deaths})",
                      "panel totals (births {births}, infant deaths {deaths}) differ from the ledger's counted "
                      "records ({ledger_births}, {ledger_deaths})"),
    "note_source": ("Microdatos DEIS por comuna de residencia y año ({files})",
                    "DEIS microdata by commune of residence and year ({files})"),
    "columns_expected": ("se esperan {n} columnas", "{n} columns expected"),
    "note_split_keep": ("Códigos comunales armonizados a la división de 2018; comunas creadas por división "
                        "(2004) se cuentan aparte desde su creación (split=keep)",
                        "Commune codes harmonised to the 2018 division; communes created by a split (2004) "
                        "are counted apart from their creation year (split=keep)"),
    "note_split_merge": ("Códigos comunales armonizados a la división de 2018; comunas creadas por división "
                         "(2004) se suman a su comuna madre en toda la serie (split=merge)",
                         "Commune codes harmonised to the 2018 division; communes created by a split (2004) "
                         "are counted under their parent for the whole series (split=merge)"),
    "note_unknown_group": ("{n} defunciones infantiles sin grupo de edad (anotadas 0 años o 0 meses) están en "
                           "'deaths' pero no en neonatal ni posneonatal",
                           "{n} infant deaths without age group (written as 0 years or 0 months) are in "
                           "'deaths' but in neither neonatal nor post-neonatal"),
    "note_no_births": ("sin archivo de nacimientos para {years}: births = <NA>",
                       "no births file covers {years}: births = <NA>"),
    "note_no_births_cells": ("{n} comuna-años que ningún archivo de nacimientos incluye (comunas ausentes de "
                             "los archivos que cubren ese año): births = <NA>",
                             "{n} commune-years no births file includes (communes absent from the files that "
                             "cover that year): births = <NA>"),
    "note_no_deaths_cells": ("{n} comuna-años que ningún archivo de defunciones incluye (comunas ausentes de "
                             "los archivos que cubren ese año): deaths = <NA>",
                             "{n} commune-years no deaths file includes (communes absent from the files that "
                             "cover that year): deaths = <NA>"),
    "note_no_deaths": ("sin archivo de defunciones para {years}: deaths = <NA>",
                       "no deaths file covers {years}: deaths = <NA>"),
})


@dataclass
class DeisIngest:
    """The result of :func:`ingest_deis`: ``panel``, ``ledger``, plus the detail tables.

    ``deaths_by_age``: unit, year, early_neonatal (< 7 days), late_neonatal (7-27 days), postneonatal,
    age_group_unknown. ``codes``: every distinct (code as written, year) with its 2018 unit, status and
    the number of records. Unpacks as ``panel, ledger = ingest_deis(...)``.
    """
    panel: object
    ledger: Ledger
    deaths_by_age: pd.DataFrame = None
    codes: pd.DataFrame = None
    files: list = field(default_factory=list)

    def __iter__(self):
        yield self.panel
        yield self.ledger

    def save(self, output) -> list[Path]:
        """Write the panel file and the ledger (``<stem>.ledger.csv``/``.json``) beside it: the three appear
        together or not at all (:func:`brecha.outputs.together`)."""
        from ..outputs import together

        output = Path(output)
        with together():
            self.panel.to_file(output)
            ledger_paths = self.ledger.save(output)
        return [output, *ledger_paths]


# ------------------------------------------------------------------------------------------ reading
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


# ------------------------------------------------------------------------------------------ ledger
# AGE_CLASSES as arrays indexed by the class k: ledger reason, panel group, early neonatal, counted
_AGE_REASON = np.array([AGE_CLASSES.get(k, ("age_invalid",))[0] for k in range(max(AGE_CLASSES) + 1)],
                       dtype=object)
_AGE_GROUP = np.array([AGE_CLASSES.get(k, (None, None, False))[1] for k in range(max(AGE_CLASSES) + 1)],
                      dtype=object)
_AGE_EARLY = np.array([AGE_CLASSES.get(k, (None, None, False))[2] for k in range(max(AGE_CLASSES) + 1)])
_AGE_COUNTED = np.array([group is not None for group in _AGE_GROUP])


def _classify(table: pd.DataFrame, kind: str, years, harmonised: pd.DataFrame) -> pd.DataFrame:
    """Attach the ledger reason and the 2018 unit to each (year, code, k) count.

    The first reason that applies wins: year empty, outside the years, age (deaths) or filter (births),
    commune empty, commune 99999, commune unknown in every period; otherwise counted.
    """
    t = table.copy()
    t["year"] = t["year"].astype("Int64")
    t["code"] = t["code"].astype("Int64")
    t = t.merge(harmonised[["code", "year", "unit"]], how="left", on=["code", "year"])
    year_missing = t["year"].isna().to_numpy()
    outside = (~t["year"].isin(list(years)).to_numpy()) if years is not None else np.zeros(len(t), bool)
    code_missing = t["code"].isna().to_numpy()
    unit_missing = t["unit"].isna().to_numpy()
    unknown_code = (t["code"] == 99999).fillna(False).to_numpy(dtype=bool)
    k = t["k"].to_numpy(dtype=np.int64)
    if kind == "deaths":
        age_excluded, counted = ~_AGE_COUNTED[k], _AGE_REASON[k]
    else:
        age_excluded, counted = k == FILTERED, np.full(len(t), "birth", dtype=object)
    age_reason = _AGE_REASON[k] if kind == "deaths" else np.full(len(t), "filtered", dtype=object)
    t["reason"] = np.select(
        [year_missing, outside, age_excluded, code_missing, unit_missing & unknown_code, unit_missing],
        [np.full(len(t), r, dtype=object) for r in ("year_invalid", "outside_years")] + [age_reason] +
        [np.full(len(t), r, dtype=object) for r in ("commune_missing", "commune_unknown", "commune_unrecognised")],
        default=counted)
    return t


def _harmonise(tables: list[pd.DataFrame], registry, split: str) -> pd.DataFrame:
    """The 2018 unit of every distinct (code, year), from a few registry calls (never per record).

    Each distinct code is looked up once in every code system; only a code that means different communes
    in different periods ("ambiguous") is looked up again with the year of each record.
    """
    pairs = pd.concat([t[["code", "year"]] for t in tables], ignore_index=True).dropna().drop_duplicates()
    if not len(pairs):
        return pd.DataFrame({"code": pd.array([], "Int64"), "year": pd.array([], "Int64"),
                             "unit": pd.array([], "string"), "status": [], "note": []})
    pairs = pairs.astype("int64").reset_index(drop=True)
    codes = pd.Series(pairs["code"].unique())
    once = registry.harmonise_codes(codes.astype(str).tolist(), year=None, system="auto", split=split)
    once["code"] = codes.values
    out = pairs.merge(once[["code", "unit", "status", "note"]], on="code", how="left")
    ambiguous = out["note"].astype(str).str.startswith("ambiguous")
    if ambiguous.any():
        again = registry.harmonise_codes(out.loc[ambiguous, "code"].astype(str).tolist(),
                                         year=out.loc[ambiguous, "year"].tolist(), system="auto", split=split)
        for column in ("unit", "status", "note"):
            out.loc[ambiguous, column] = again[column].to_numpy()
    return pd.DataFrame({"code": out["code"].astype("Int64"), "year": out["year"].astype("Int64"),
                         "unit": out["unit"].astype("string").values, "status": out["status"].values,
                         "note": out["note"].values})


# ------------------------------------------------------------------------------------------ API
def ingest_deis(deaths=(), births=(), years=None, split: str = "keep", births_layout=None,
                country: str = "CL") -> DeisIngest:
    """Read DEIS death and birth microdata into a commune x year Panel, with a record ledger.

    Parameters
    ----------
    deaths, births : a path or a list of paths (files are added up; either may be empty).
    years : iterable of int, optional. Records of other years are excluded (ledger ``outside_years``);
        by default every year present is kept.
    split : "keep" (communes created by a split in 2004 counted apart from their creation year) or
        "merge" (counted under their parent for the whole series).
    births_layout : :class:`~brecha.ingest.deis_layout.BirthsLayout`, its text form
        (``"year=ANO_NAC,commune=COMUNA"``) or None to detect.

    Returns
    -------
    DeisIngest with ``panel`` (columns unit, year, births, deaths, deaths_neonatal, deaths_postneonatal, all
    Int64) and ``ledger``; unpacks as ``panel, ledger``.

    Reference: WHO, ICD-10 vol. 2 (2016), §5.7 definitions of neonatal and infant deaths; DEIS, "Defunciones
    por causa" open-data layout.
    """
    from ..panel import Panel
    from ..registry import get_registry

    if split not in ("keep", "merge"):
        raise InputError(MSG("bad_split", value=split))
    deaths = [deaths] if isinstance(deaths, (str, Path)) else list(deaths or ())
    births = [births] if isinstance(births, (str, Path)) else list(births or ())
    if not deaths and not births:
        raise InputError(MSG("no_input"))
    seen = [Path(p).resolve() for p in deaths + births]
    repeated = sorted({str(p) for p in seen if seen.count(p) > 1})
    if repeated:
        raise InputError(MSG("repeated", files=", ".join(repeated)), hint=MSG("repeated_hint"))
    years = sorted({int(y) for y in years}) if years is not None else None
    layout = BirthsLayout.parse(births_layout)
    # check every file's first lines before the long reads
    specs = [inspect_deaths(p) for p in deaths] + [inspect_births(p, layout) for p in births]

    ledger = Ledger()
    # the registry loads (Python) while polars reads the files (outside the GIL)
    # the longest step (one polars read we cannot divide): a bar with a running clock on a terminal
    reading = progress.task("deis_read", files=", ".join(Path(p).name for p in deaths + births))
    with ThreadPoolExecutor(max_workers=1) as pool, reading:
        loading = pool.submit(get_registry, country)
        tables = list(zip(specs, read_counts(specs, ledger, years)))
        registry = loading.result()
    harmonised = _harmonise([t for _, t in tables], registry, split)

    classified = []
    for spec, table in tables:
        t = _classify(table, spec.kind, years, harmonised)
        name = str(spec.path)
        problem = table.attrs.get("problem_lines", {})
        for reason, rows in t.groupby("reason", sort=False)["n"].sum().items():
            detail = _codes_detail(t[t["reason"] == reason]) if reason == "commune_unrecognised" else ""
            ledger.add(name, reason, int(rows), lines=problem.get(reason, ()), detail=detail)
        t["kind"] = spec.kind
        t["file"] = name
        classified.append(t)
    ledger.check()
    records = pd.concat(classified, ignore_index=True)
    _warn_unrecognised(records)
    _warn_overlap(records)

    # a file of adult deaths only is a valid zero; records all outside the period are not
    in_period = ~records["reason"].isin(["year_invalid", "outside_years"])
    if not in_period.any():
        raise InputError(MSG("nothing_counted", ledger=ledger.format()), hint=MSG("nothing_hint"))
    with progress.task("deis_panel"):
        panel_data, by_age, notes = _build_panel_table(records, years, split, registry, deaths, births)
    codes = (records[records["code"].notna()].groupby(["code", "year"], as_index=False)["n"].sum()
             .merge(harmonised, on=["code", "year"], how="left"))
    source = ", ".join(Path(p).name for p in deaths + births)
    ledger.notes = list(notes)
    _check_totals(panel_data, ledger)
    panel = Panel(panel_data, country=country, source=source, notes=tuple(notes), registry=registry)
    return DeisIngest(panel=panel, ledger=ledger, deaths_by_age=by_age, codes=codes,
                      files=[str(s.path) for s in specs])


def _check_totals(panel_data: pd.DataFrame, ledger: Ledger) -> None:
    """The panel's totals must equal the ledger's counted records (nothing lost between them)."""
    counted = ledger.to_frame("en")
    counted = counted[counted["status"] == "counted"]
    births = int(counted.loc[counted["reason"] == "birth", "rows"].sum())
    deaths = int(counted.loc[counted["reason"].str.startswith("infant_"), "rows"].sum())
    got_births = int(panel_data["births"].sum())
    got_deaths = int(panel_data["deaths"].sum())
    if (got_births, got_deaths) != (births, deaths):
        raise LedgerError(MSG("totals_differ", births=got_births, deaths=got_deaths, ledger_births=births,
                              ledger_deaths=deaths))


def _codes_detail(rows: pd.DataFrame, limit: int = 10) -> str:
    """'12999 (8), 77 (1)': the codes of some records with their number, most frequent first."""
    per_code = rows.groupby("code")["n"].sum().sort_values(ascending=False)
    shown = ", ".join(f"{int(c)} ({int(n)})" for c, n in per_code.head(limit).items())
    return shown + (" ..." if len(per_code) > limit else "")


def _warn_unrecognised(records: pd.DataFrame) -> None:
    bad = records[records["reason"] == "commune_unrecognised"]
    if len(bad):
        warn(MSG("unrecognised", n=int(bad["n"].sum()), codes=_codes_detail(bad, limit=15)))


def _warn_overlap(records: pd.DataFrame) -> None:
    """Warn when two files of the same kind hold records of the same commune and year (e.g. a commune's
    extract given beside its region's file): if one holds the other's records, they are counted twice."""
    dated = records[records["unit"].notna() & records["year"].notna()]
    for kind, part in dated.groupby("kind", sort=False):
        cells = {f: set(zip(g["unit"].astype(str), g["year"].astype(int)))
                 for f, g in part.groupby("file", sort=False)}
        names = list(cells)
        for i, first in enumerate(names):
            for second in names[i + 1:]:
                shared = sorted(cells[first] & cells[second])
                if shared:
                    shown = ", ".join(f"{u} {y}" for u, y in shared[:5]) + (" ..." if len(shared) > 5 else "")
                    warn(MSG("overlap", first=Path(first).name, second=Path(second).name, n=len(shared),
                             cells=shown))


def _build_panel_table(records: pd.DataFrame, years, split: str, registry, deaths, births):
    is_counted = (records["reason"].to_numpy() == "birth") | records["reason"].str.startswith("infant_").to_numpy()
    valid_year = records["year"].notna()
    kinds_years = {kind: set(records.loc[(records["kind"] == kind) & valid_year, "year"].astype(int))
                   for kind in ("deaths", "births")}
    all_years = list(years) if years is not None else sorted(kinds_years["deaths"] | kinds_years["births"])
    # the grid: every unit with at least one record in the files (any age, counted or not), so that a
    # regional extract gives its own communes; split children only from their creation year ("keep")
    units = sorted(records["unit"].dropna().astype(str).unique())
    grid = pd.MultiIndex.from_product([units, all_years], names=["unit", "year"]).to_frame(index=False)
    splits = registry.splits
    if len(splits):
        created = grid["unit"].map(dict(zip(splits["child"], splits["created_year"])))
        if split == "merge":
            grid = grid[created.isna()]
        else:
            grid = grid[created.isna() | (grid["year"] >= created.fillna(0))]
    c = records[is_counted]
    n = c["n"].to_numpy(dtype=np.int64)
    k = c["k"].to_numpy(dtype=np.int64)
    death = (c["kind"] == "deaths").to_numpy()
    group, early = _AGE_GROUP[k], _AGE_EARLY[k]
    neonatal = death & (group == "neonatal")
    columns = {
        "births": ~death, "deaths": death, "deaths_neonatal": neonatal,
        "deaths_postneonatal": death & (group == "postneonatal"), "early_neonatal": neonatal & early,
        "late_neonatal": neonatal & ~early, "age_group_unknown": death & (group == "unknown"),
    }
    wide = pd.DataFrame({name: np.where(mask, n, 0) for name, mask in columns.items()})
    wide["unit"] = c["unit"].astype(str).to_numpy()
    wide["year"] = c["year"].astype("int64").to_numpy()
    sums = wide.groupby(["unit", "year"], sort=False).sum().reset_index()
    # records coded to a split child before its creation year stay where the file put them
    grid = pd.concat([grid, sums[["unit", "year"]]]).drop_duplicates()
    table = grid.merge(sums, on=["unit", "year"], how="left")
    count_cols = list(columns)
    table[count_cols] = table[count_cols].fillna(0).astype("int64").astype("Int64")
    notes = [MSG("note_source", files=", ".join(Path(p).name for p in list(deaths) + list(births))),
             MSG("note_split_keep" if split == "keep" else "note_split_merge")]
    # years no file of a kind covers: not available rather than zero
    death_cols = ["deaths", "deaths_neonatal", "deaths_postneonatal", "early_neonatal", "late_neonatal",
                  "age_group_unknown"]
    for kind, cols, key in (("births", ["births"], "note_no_births"), ("deaths", death_cols, "note_no_deaths")):
        missing = sorted(set(all_years) - kinds_years[kind])
        if missing:
            table.loc[table["year"].isin(missing), cols] = pd.NA
            notes.append(MSG(key, years=_span(missing)))
        # a commune no national file covers and no extract holds, in the years the files cover, is not
        # covered either (a regional extract beside a file of other communes or years): not available
        uncovered = (~_covered(records[records["kind"] == kind], table, len(registry.units))
                     & ~table["year"].isin(missing).to_numpy())
        if kinds_years[kind] and uncovered.any():
            table.loc[uncovered, cols] = pd.NA
            notes.append(MSG(f"{key}_cells", n=int(uncovered.sum())))
    unknown_group = int(table["age_group_unknown"].sum())
    if unknown_group:
        notes.append(MSG("note_unknown_group", n=unknown_group))
    table = table.sort_values(["unit", "year"]).reset_index(drop=True)
    by_age = table[["unit", "year", "early_neonatal", "late_neonatal", "deaths_postneonatal", "age_group_unknown"]]
    by_age = by_age.rename(columns={"deaths_postneonatal": "postneonatal"})
    panel_data = table[["unit", "year", "births", "deaths", "deaths_neonatal", "deaths_postneonatal"]]
    return panel_data, by_age.reset_index(drop=True), notes


def _covered(records: pd.DataFrame, table: pd.DataFrame, n_units: int) -> np.ndarray:
    """Whether each (unit, year) of ``table`` is covered by one of the files of ``records``.

    A file that holds records (of any age, counted or not) of at least half of the country's ``n_units``
    communes is national: it covers every commune in every year it holds, so a commune-year without
    records there is a true zero. A smaller file (a regional or one-commune extract) covers only the
    communes it holds, in the years it holds.
    """
    dated = records[records["year"].notna()]
    covered, national_years = set(), set()
    for _, part in dated.groupby("file", sort=False):
        units = part["unit"].dropna().astype(str).unique()
        years = [int(y) for y in part["year"].astype(int).unique()]
        if 2 * len(units) >= n_units:
            national_years.update(years)
        else:
            covered.update((u, y) for u in units for y in years)
    keys = zip(table["unit"].astype(str), table["year"].astype(int))
    return np.fromiter((y in national_years or (u, y) in covered for u, y in keys), dtype=bool,
                       count=len(table))


def _span(years) -> str:
    years = sorted(years)
    if not years:
        return ""
    runs, start, prev = [], years[0], years[0]
    for y in years[1:] + [None]:
        if y is not None and y == prev + 1:
            prev = y
            continue
        runs.append(str(start) if start == prev else f"{start}-{prev}")
        if y is not None:
            start = prev = y
    return ", ".join(runs)
