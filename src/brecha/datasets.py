"""Real data shipped with brecha, one call each.

    >>> from brecha import datasets
    >>> chile = datasets.chile()              # 346 communes x 2000-2015, a validated Panel
    >>> brazil = datasets.brazil()            # 5,570 municipalities x 2000-2019
    >>> datasets.chile_table("poverty")       # covariate source tables, tidy, with a 5-digit `unit`
    >>> datasets.ledger("chile")              # every source row: kept or excluded, and why

Chile: infant deaths 2000-2015 by commune of residence (INE); live births 2000-2009 from DEIS birth records
of mothers aged 15-49 (Bentancor & Clarke 2017), 2-5 % below the official totals, and 2010-2015 from the
INE anuario; population from INE's 2017-based estimates (2002 on). Brazil: SIM infant deaths and SINASC
live births by residence, IBGE population and SIOPS health spending per head. Sources, transformations
and row accounting: ``brecha/data/PROVENANCE.md``. The files are built by ``tools/build_data.py``.
"""
from __future__ import annotations

import functools

import pandas as pd

from .errors import InputError
from .i18n import Catalog, format_count

MSG = Catalog({
    "births_1549": (
        "Nacimientos 2000-2009: nacidos vivos DEIS de madres de 15 a 49 años solamente (Bentancor y Clarke 2017), "
        "2-5 % bajo los totales oficiales; las tasas de esos años quedan algo altas y no son del todo comparables "
        "con 2010-2015 (nacidos vivos INE, todas las edades)",
        "Births 2000-2009: DEIS live births to mothers aged 15-49 only (Bentancor & Clarke 2017), 2-5 % short of "
        "official totals; rates for those years are slightly high and not fully comparable with 2010-2015 "
        "(INE live births, all ages)"),
    "deaths_cl": (
        "Defunciones infantiles 2000-2015: INE, comuna de residencia; sin separación neonatal/posneonatal",
        "Infant deaths 2000-2015: INE, commune of residence; no neonatal/post-neonatal split"),
    "zero_births": (
        "{n} comuna-años pequeños sin fila de nacimientos en la fuente DEIS (2000-2009) se cuentan con 0 "
        "nacimientos (todos con 0 defunciones): {examples}",
        "{n} small commune-years with no births row in the DEIS source (2000-2009) are counted as 0 births "
        "(all with 0 deaths): {examples}"),
    "split_keep": (
        "Comunas creadas en 2004 (Alto Hospicio, Hualpén, Alto Biobío, Cholchol): separadas desde su creación "
        "(split='keep'); antes de 2004 su territorio está en la comuna madre, y en 2004 sus nacimientos aparecen "
        "solo en parte: use split='merge' para series que cruzan 2004",
        "Communes created in 2004 (Alto Hospicio, Hualpén, Alto Biobío, Cholchol): kept apart from their "
        "creation (split='keep'); before 2004 their territory is inside the parent commune, and in 2004 their "
        "births appear only in part: use split='merge' for series that cross 2004"),
    "split_merge": (
        "Comunas creadas en 2004 sumadas a su comuna madre en toda la serie (split='merge'): Alto Hospicio en "
        "Iquique, Hualpén en Talcahuano, Alto Biobío en Santa Bárbara, Cholchol en Nueva Imperial",
        "Communes created in 2004 merged into their parent for the whole series (split='merge'): Alto Hospicio "
        "into Iquique, Hualpén into Talcahuano, Alto Biobío into Santa Bárbara, Cholchol into Nueva Imperial"),
    "population_cl": (
        "Población: estimaciones INE base censo 2017, disponibles desde 2002 (2000-2001 sin dato)",
        "Population: INE estimates based on the 2017 census, available from 2002 (2000-2001 missing)"),
    "births_br": (
        "Brasil: defunciones infantiles SIM y nacidos vivos SINASC por residencia; {n} municipio-años sin "
        "nacimientos y {m} sin defunciones quedan sin dato (<NA>), no en 0",
        "Brazil: SIM infant deaths and SINASC live births by residence; {n} municipality-years without births "
        "and {m} without deaths are left missing (<NA>), not zero"),
    "excluded_br": (
        "Excluidas del panel {deaths} defunciones infantiles de municipio ignorado (UF0000) o código 431453 "
        "(ver brecha.datasets.ledger('brazil'))",
        "Left out of the panel: {deaths} infant deaths of unknown municipality (UF0000) or code 431453 "
        "(see brecha.datasets.ledger('brazil'))"),
    "spending_br": ("Gasto en salud por habitante: SIOPS, reales nominales",
                    "Health spending per head: SIOPS, nominal reais"),
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
LEDGERS = ("chile", "brazil")


def _embedded_panel(data: pd.DataFrame, country: str, source: str, notes):
    """A Panel of shipped data. Its data warnings (e.g. 0 births in small communes) are known, explained in
    the notes and kept in ``panel.warnings`` (``brecha panel`` prints them), but not re-emitted as Python
    warnings on every load: a user's own file still warns."""
    import warnings

    from .errors import BrechaWarning
    from .panel import Panel

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BrechaWarning)
        return Panel(data, country=country, source=source, notes=tuple(notes))


@functools.lru_cache(maxsize=None)
def _read(name: str) -> pd.DataFrame:
    from .registry import read_embedded

    return read_embedded(name)


def chile_data(split: str = "keep", covariates: bool = True) -> pd.DataFrame:
    """The Chilean panel as a long DataFrame (unit, year, births, deaths[, population, population_age0])."""
    if split not in ("keep", "merge"):
        raise InputError(MSG("bad_split", split=split))
    data = _read("cl_panel.parquet").copy()
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


def chile(split: str = "keep", covariates: bool = True):
    """Chile, 346 communes (2018 division) x 2000-2015: births, infant deaths, population and the standard
    covariates (poverty, health_spending_pc, schooling, sapu, distance_hospital_km; see brecha.covariates) (a Panel).

    ``split="keep"``: Alto Hospicio, Hualpén, Alto Biobío and Cholchol (created in 2004) have rows from 2004;
    before that their territory is in the parent. ``split="merge"``: they are counted under the parent in
    every year (342 units). The panel notes say which, and carry the births caveat (2000-2009: mothers 15-49).
    """
    data = chile_data(split, covariates)
    filled = ledger("chile")
    filled = filled[filled["status"] == "filled"]
    zero = _read("cl_panel.parquet")
    zero = zero[(zero["births"] == 0) & (zero["year"] <= 2009)]
    notes = [MSG("births_1549"), MSG("deaths_cl"), MSG("split_keep" if split == "keep" else "split_merge"),
             MSG("zero_births", n=int(filled["rows"].sum()),
                 examples=", ".join(f"{u} {y}" for u, y in zip(zero["unit"], zero["year"]))
                 if len(zero) <= 8 else ", ".join(f"{u} {y}" for u, y in zip(zero["unit"][:8], zero["year"][:8]))
                 + f" ... (brecha.datasets.ledger('chile'))")]
    if covariates:
        from .covariates import add_standard  # lazy: covariates reads these tables through this module

        notes.append(MSG("population_cl"))
        data, note = add_standard(data, split=split)
        notes.append(note)
    return _embedded_panel(data, "CL", "brecha.datasets.chile", notes)


def brazil_data(covariates: bool = True) -> pd.DataFrame:
    """The Brazilian panel as a long DataFrame."""
    data = _read("br_panel.parquet").copy()
    if not covariates:
        data = data[["unit", "year", "births", "deaths"]]
    return data.reset_index(drop=True)


def brazil(covariates: bool = True):
    """Brazil, 5,570 municipalities x 2000-2019: births, infant deaths, health spending per head, population."""
    data = brazil_data(covariates)
    book = ledger("brazil")
    excluded = int(book.loc[book["status"] == "excluded", "deaths"].sum())
    notes = [MSG("births_br", n=int(data["births"].isna().sum()), m=int(data["deaths"].isna().sum())),
             MSG("excluded_br", deaths=format_count(excluded))]
    if covariates:
        notes.append(MSG("spending_br"))
    return _embedded_panel(data, "BR", "brecha.datasets.brazil", notes)


def _table(prefix: str, tables: dict, name: str) -> pd.DataFrame:
    key = str(name).strip().lower()
    if key not in tables:
        raise InputError(MSG("unknown_table", name=name), hint=MSG("table_hint", names=", ".join(tables)))
    return _read(f"{prefix}_table_{key}.parquet").copy()


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
    """Row accounting of the embedded dataset ``"chile"`` or ``"brazil"``.

    One line per source file, year, status and reason: ``status`` is "read" (rows in the source), "kept",
    "excluded" (with the reason), "filled" (rows added, e.g. births 0 where the source has no row) or "note"
    (a subset of kept rows worth knowing about). ``rows``, ``births`` and ``deaths`` are sums over the lines'
    source rows, so for each source: read = kept + excluded.
    """
    key = str(name).strip().lower()
    if key not in LEDGERS:
        raise InputError(MSG("unknown_table", name=name), hint=MSG("table_hint", names=", ".join(LEDGERS)))
    book = _read("ledger.parquet")
    return book[book["dataset"] == key].drop(columns="dataset").reset_index(drop=True)
