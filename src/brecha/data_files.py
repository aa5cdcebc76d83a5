"""The tables shipped in ``brecha/data``, as tidy DataFrames, each read once per process.

This is the layer below the Panel and below the covariates: ``brecha.covariates`` builds its commune x
year covariates from these tables, and ``brecha.datasets`` turns the panel tables into validated Panels
with their notes and standard covariates. Both read the files here, so neither needs the other (data
flows one way: shipped files -> covariates -> example Panels). Every name is importable from
``brecha.datasets`` too, where users find them.

    >>> from brecha import data_files
    >>> data_files.chile_table("poverty").columns[:2].tolist()
    ['unit', 'year']
"""
from __future__ import annotations

import functools

import pandas as pd

from .errors import InputError
from .i18n import Catalog

MSG = Catalog({
    "unknown_table": ("tabla '{name}' desconocida", "unknown table '{name}'"),
    "table_hint": ("tablas disponibles: {names}", "available tables: {names}"),
    "bad_split": ("split debe ser 'keep' o 'merge', no '{split}'", "split must be 'keep' or 'merge', not '{split}'"),
})

CHILE_TABLES = {
    "population": "INE population 2002-2035 (base 2017) by commune and year, summed over sex",
    "population_base2002": "INE population 1990-2020 (base 2002) by commune and year, summed over sex",
    "poverty": "CASEN small-area poverty estimates 2009-2022, in percent (income and multidimensional)",
    "sinim_2006_2012": "SINIM municipal indicators 2006-2012 (health spending, education, poverty, rurality)",
    "sinim_2019_2023": "SINIM selection 2019-2023, long format (variable_id, variable, value)",
    "health_facilities": "DEIS establishment register with type (SAPU/SAR/SUR), opening date, coordinates",
    "hospitals": "DEIS hospitals with complexity level and coordinates",
    "census_2017": "Census 2017 commune aggregates: education level, schooling, age, migrants, work (counts)",
    "rurality": "PNDR rural/urban classification of communes (Urbana/Mixta/Rural)",
}
BRAZIL_TABLES = {
    "census": "Atlas Brasil census indicators 1991/2000/2010: gini, income per capita, % poor, population",
    "causes": "Infant deaths by ICD-10 chapter and primary-care-sensitive deaths, municipality x year",
}
ARGENTINA_TABLES = {
    "neonatal_days": "Neonatal deaths split into 0-6 and 7-27 days by province and year (empty in 2016 and 2024)",
}
LEDGERS = ("chile", "brazil", "argentina")
# the raw rows of the Araucanía 2021 example (brecha.datasets.araucania): shipped file -> name written out
ARAUCANIA_FILES = {"deaths": "araucania_2021_defunciones_deis.csv", "births": "araucania_2021_nacidos_vivos_ine.csv"}


@functools.lru_cache(maxsize=None)
def read(name: str) -> pd.DataFrame:
    """A shipped Parquet file (cached: the files do not change in a process; callers copy before changing)."""
    from .registry import read_embedded

    return read_embedded(name)


def chile_data(split: str = "keep", covariates: bool = True) -> pd.DataFrame:
    """The Chilean panel as a long DataFrame (unit, year, births, deaths[, population, population_age0]).

    ``split="merge"`` counts the communes created in 2004 under their parent in every year (registry
    ``merge_target``): every column is a count, so they are summed, and all-missing stays missing.
    """
    if split not in ("keep", "merge"):
        raise InputError(MSG("bad_split", split=split))
    data = read("cl_panel.parquet").copy()
    if split == "merge":
        from .registry import get_registry

        data["unit"] = get_registry("CL").merge_target(data["unit"], "merge").astype(str)
        # every column is a count (births, deaths, population): sums; all-missing stays missing
        data = data.groupby(["unit", "year"], as_index=False).sum(min_count=1)
        data["births"] = data["births"].astype("Int64")
        data["deaths"] = data["deaths"].astype("Int64")
    if not covariates:
        data = data[["unit", "year", "births", "deaths"]]
    return data.sort_values(["unit", "year"]).reset_index(drop=True)


def brazil_data(covariates: bool = True) -> pd.DataFrame:
    """The Brazilian panel as a long DataFrame."""
    data = read("br_panel.parquet").copy()
    if not covariates:
        data = data[["unit", "year", "births", "deaths"]]
    return data.reset_index(drop=True)


def argentina_data() -> pd.DataFrame:
    """The Argentine panel as a long DataFrame: unit (INDEC province code), year 2005-2024, births, deaths,
    deaths_neonatal, deaths_postneonatal (Int64)."""
    return read("ar_panel.parquet").copy().reset_index(drop=True)


def argentina_table_names() -> list[str]:
    """Names of the Argentine tables (see :data:`ARGENTINA_TABLES`)."""
    return list(ARGENTINA_TABLES)


def argentina_table(name: str) -> pd.DataFrame:
    """An Argentine table: ``neonatal_days`` (unit, year, deaths_neonatal, deaths_neonatal_early (0-6 days),
    deaths_neonatal_late (7-27 days); <NA> where the source has no split: 2016 and 2024)."""
    return _table("ar", ARGENTINA_TABLES, name)


def araucania_births() -> pd.DataFrame:
    """INE live births 2021 by commune of Araucanía (unit, name, year, births) with the DEIS counts the
    source table gives (check_deaths, check_deaths_neonatal, check_deaths_postneonatal), for checking."""
    return read("cl_araucania_2021_births.parquet").copy()


def write_araucania_files(folder) -> dict:
    """Write the Araucanía 2021 example's raw inputs into ``folder`` and return their paths: ``deaths``, the
    DEIS death rows exactly as DEIS publishes them (27 columns, ';', Latin-1, no header; 8,619 rows), and
    ``births``, the INE births table (codigo_comuna, nombre_comuna, anio, nacidos_vivos). The inputs of
    ``brecha ingest deis --deaths DEATHS --births-table BIRTHS``. Written atomically (brecha.outputs)."""
    import gzip
    from pathlib import Path

    from .outputs import write_file
    from .registry import data_path

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    with data_path("cl_araucania_2021_deis_deaths.csv.gz").open("rb") as handle:
        raw = gzip.decompress(handle.read())
    paths = {key: folder / name for key, name in ARAUCANIA_FILES.items()}
    write_file(paths["deaths"], lambda target: Path(target).write_bytes(raw))
    births = araucania_births().rename(columns={"unit": "codigo_comuna", "name": "nombre_comuna", "year": "anio",
                                                "births": "nacidos_vivos"})
    text = births[["codigo_comuna", "nombre_comuna", "anio", "nacidos_vivos"]].to_csv(index=False)
    write_file(paths["births"], lambda target: Path(target).write_text(text, encoding="utf-8"))
    return paths


def _table(prefix: str, tables: dict, name: str) -> pd.DataFrame:
    key = str(name).strip().lower()
    if key not in tables:
        raise InputError(MSG("unknown_table", name=name), hint=MSG("table_hint", names=", ".join(tables)))
    return read(f"{prefix}_table_{key}.parquet").copy()


def chile_table_names() -> list[str]:
    """Names of the Chilean covariate source tables (see :data:`CHILE_TABLES` for what each holds)."""
    return list(CHILE_TABLES)


def chile_table(name: str) -> pd.DataFrame:
    """A Chilean covariate source table, tidy, with a 5-digit 2018 ``unit`` column (and ``year`` where it
    varies by year). Values as published, except: poverty in percent in both files, SINIM 2006-2012 codes
    harmonised to 2018 and text cells ("Costo Fijo") made NaN, facility opening dates converted from Excel
    serials. Details in PROVENANCE.md."""
    return _table("cl", CHILE_TABLES, name)


def brazil_table_names() -> list[str]:
    return list(BRAZIL_TABLES)


def brazil_table(name: str) -> pd.DataFrame:
    """A Brazilian table: ``census`` (unit, year 1991/2000/2010, gini, income_per_capita, poor_percent,
    population_census, existed) or ``causes`` (unit, year, deaths and deaths by ICD-10 chapter of the underlying
    cause, plus deaths_primary_care_sensitive)."""
    return _table("br", BRAZIL_TABLES, name)


def ledger(name: str) -> pd.DataFrame:
    """Row accounting of the embedded dataset ``"chile"``, ``"brazil"`` or ``"argentina"``.

    One line per source file, year, status and reason: ``status`` is "read" (rows in the source), "kept",
    "excluded" (with the reason), "filled" (rows added, e.g. births 0 where the source has no row) or "note"
    (a subset of kept rows worth knowing about). ``rows``, ``births`` and ``deaths`` are sums over the lines'
    source rows, so for each source: read = kept + excluded.
    """
    key = str(name).strip().lower()
    if key not in LEDGERS:
        raise InputError(MSG("unknown_table", name=name), hint=MSG("table_hint", names=", ".join(LEDGERS)))
    book = read("ledger.parquet")
    return book[book["dataset"] == key].drop(columns="dataset").reset_index(drop=True)
