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
lines as ``blank_line``. That reading half lives in :mod:`brecha.ingest.deis_reader`; this module
harmonises the codes, classifies every count for the ledger and builds the panel.
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from .. import progress
from ..errors import InputError, warn
from ..i18n import Catalog
from .deis_layout import (BIRTHS_COLUMNS, DEATHS_COLUMNS, BirthsLayout, FileSpec,  # noqa: F401
                          inspect_births, inspect_deaths)
# the reading half (files -> (year, code, k) counts); its public names stay importable from here
from .deis_reader import (AGE_CLASSES, BIRTH, CSV_CHUNK_BYTES, CSV_CHUNK_VARIABLE, FILTERED,  # noqa: F401
                          MAX_LINE_EXAMPLES, read_counts)
from .ledger import Ledger, LedgerError

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
    "unrecognised": ("{n} {n:registro con código de comuna no reconocido en ningún período excluido|registros con "
                     "códigos de comuna no reconocidos en ningún período excluidos}: {codes}",
                     "{n} {n:record with a commune code|records with commune codes} not recognised in any period "
                     "excluded: {codes}"),
    "overlap": ("{first} y {second} tienen registros de {n} {n:comuna-año|comuna-años} en común ({cells}); si un "
                "archivo contiene registros del otro, se cuentan dos veces (vea el ledger)",
                "{first} and {second} both hold records of the same {n} {n:commune-year|commune-years} ({cells}); "
                "if one file holds records of the other, they are counted twice (see the ledger)"),
    "totals_differ": ("los totales del panel (nacimientos {births}, defunciones infantiles {deaths}) difieren de "
                      "los registros contados del ledger ({ledger_births}, {ledger_deaths})",
                      "panel totals (births {births}, infant deaths {deaths}) differ from the ledger's counted "
                      "records ({ledger_births}, {ledger_deaths})"),
    "note_source": ("Microdatos DEIS por comuna de residencia y año ({files})",
                    "DEIS microdata by commune of residence and year ({files})"),
    "note_split_keep": ("Códigos comunales armonizados a la división de 2018; comunas creadas por división "
                        "(2004) se cuentan aparte desde su creación (split=keep)",
                        "Commune codes harmonised to the 2018 division; communes created by a split (2004) "
                        "are counted apart from their creation year (split=keep)"),
    "note_split_merge": ("Códigos comunales armonizados a la división de 2018; comunas creadas por división "
                         "(2004) se suman a su comuna madre en toda la serie (split=merge)",
                         "Commune codes harmonised to the 2018 division; communes created by a split (2004) "
                         "are counted under their parent for the whole series (split=merge)"),
    "note_unknown_group": ("{n} {n:defunción infantil|defunciones infantiles} sin grupo de edad ({n:anotada|anotadas} "
                           "0 años o 0 meses) {n:está|están} en 'deaths' pero no en neonatal ni posneonatal",
                           "{n} infant {n:death|deaths} without age group (written as 0 years or 0 months) {n:is|are} "
                           "in 'deaths' but in neither neonatal nor post-neonatal"),
    "note_no_births": ("sin archivo de nacimientos para {years}: births = <NA>",
                       "no births file covers {years}: births = <NA>"),
    "note_no_births_cells": ("{n} {n:comuna-año|comuna-años} que ningún archivo de nacimientos incluye (comunas "
                             "ausentes de los archivos que cubren ese año): births = <NA>",
                             "{n} {n:commune-year|commune-years} no births file includes (communes absent from "
                             "the files that cover that year): births = <NA>"),
    "note_no_deaths_cells": ("{n} {n:comuna-año|comuna-años} que ningún archivo de defunciones incluye (comunas "
                             "ausentes de los archivos que cubren ese año): deaths = <NA>",
                             "{n} {n:commune-year|commune-years} no deaths file includes (communes absent from "
                             "the files that cover that year): deaths = <NA>"),
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
    # plain numpy booleans (a nullable column's isin gives a BooleanArray, object under .to_numpy() on pandas 2)
    year_missing = t["year"].isna().to_numpy(dtype=bool)
    outside = (~t["year"].isin(list(years)).to_numpy(dtype=bool, na_value=False) if years is not None
               else np.zeros(len(t), bool))
    code_missing = t["code"].isna().to_numpy(dtype=bool)
    unit_missing = t["unit"].isna().to_numpy(dtype=bool)
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
