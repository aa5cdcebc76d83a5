"""Real data shipped with brecha, one call each.

    >>> from brecha import datasets
    >>> chile = datasets.chile()              # 346 communes x 2000-2015, a validated Panel
    >>> brazil = datasets.brazil()            # 5,570 municipalities x 2000-2019
    >>> argentina = datasets.argentina()      # 24 provinces x 2005-2024, infant, neonatal, post-neonatal
    >>> araucania = datasets.araucania()      # 32 communes, 2021: raw DEIS rows -> ingest_deis, INE births
    >>> datasets.chile_table("poverty")       # covariate source tables, tidy, with a 5-digit `unit`
    >>> datasets.ledger("chile")              # every source row: kept or excluded, and why
    >>> datasets.read_panel("example:chile")  # = brecha.read_panel: an example, or a panel file

Chile: infant deaths 2000-2015 by commune of residence (INE); live births 2000-2009 from DEIS birth records
of mothers aged 15-49 (Bentancor & Clarke 2017), 2-5 % below the official totals, and 2010-2015 from the
INE anuario; population from INE's 2017-based estimates (2002 on). Brazil: SIM infant deaths and SINASC
live births by residence, IBGE population and SIOPS health spending per head. Argentina: DEIS Argentina's
vital statistics by province of residence (births, infant, neonatal and post-neonatal deaths). Araucanía
2021: the raw DEIS death rows of the region and INE's births by commune. Sources, transformations
and row accounting: ``brecha/data/PROVENANCE.md``. The files are built by ``tools/build_data.py``.

The shipped tables themselves are read by ``brecha.data_files`` (their names are importable from here too);
this module sits above the Panel and the covariates: it builds the example Panels from those tables.
"""
from __future__ import annotations

import warnings

import pandas as pd

from .covariates import add_standard
from .data_files import (ARGENTINA_TABLES, BRAZIL_TABLES, CHILE_TABLES, LEDGERS, argentina_data,  # noqa: F401
                         argentina_table, argentina_table_names, araucania_births, brazil_data, brazil_table,
                         brazil_table_names, chile_data, chile_table, chile_table_names, ledger,
                         write_araucania_files)
from .data_files import read as _read
from .errors import BrechaWarning, InputError
from .i18n import Catalog, format_count
from .panel import Panel
from .panel import read_panel as read_panel_file

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
    "unknown_example": ("ejemplo '{name}' desconocido", "unknown example '{name}'"),
    "unknown_example_hint": ("use example:chile, example:brazil, example:argentina o example:araucania (en la "
                             "línea de comandos: --example chile|brazil|argentina|araucania)",
                             "use example:chile, example:brazil, example:argentina or example:araucania (on the "
                             "command line: --example chile|brazil|argentina|araucania)"),
    "source_ar": ("Argentina: DEIS (Ministerio de Salud), Estadísticas vitales, por provincia de residencia, "
                  "2005-2024: nacidos vivos y defunciones infantiles, neonatales (0-27 días) y posneonatales",
                  "Argentina: DEIS (Ministry of Health), vital statistics by province of residence, 2005-2024: "
                  "live births and infant, neonatal (0-27 days) and post-neonatal deaths"),
    "excluded_ar": ("Filas que no son provincias, excluidas y contadas (brecha.datasets.ledger('argentina')): total "
                    "del país (00), residencia en otro país (98) o ignorada (99; {deaths} defunciones infantiles "
                    "en 2005-2024) y Gran Buenos Aires (GBA, un agregado que se superpone a 02 y 06)",
                    "Rows that are not provinces, excluded and counted (brecha.datasets.ledger('argentina')): the "
                    "country total (00), residence abroad (98) or unknown (99; {deaths} infant deaths in "
                    "2005-2024) and Gran Buenos Aires (GBA, an aggregate overlapping 02 and 06)"),
    "y2016_ar": ("2016: la fuente no trae filas de residencia en otro país o ignorada; las provincias suman "
                 "menos que el total del país ese año",
                 "2016: the source has no rows of residence abroad or unknown; the provinces add up to less "
                 "than the country total that year"),
    "split_days_ar": ("2016 y 2024: sin la división de las defunciones neonatales en 0-6 y 7-27 días "
                      "(brecha.datasets.argentina_table('neonatal_days')); neonatal y posneonatal sí están",
                      "2016 and 2024: no split of neonatal deaths into 0-6 and 7-27 days "
                      "(brecha.datasets.argentina_table('neonatal_days')); neonatal and post-neonatal are given"),
    "regions_ar": ("Regiones: las regiones estadísticas del INDEC; Gran Buenos Aires incluye solo la Ciudad "
                   "Autónoma, y toda la provincia de Buenos Aires (con los 24 partidos del GBA) queda en Pampeana",
                   "Regions: INDEC's statistical regions; Gran Buenos Aires holds only the Ciudad Autónoma, and "
                   "the whole province of Buenos Aires (with the 24 partidos of GBA) is in Pampeana"),
    "source_araucania": ("Araucanía 2021: defunciones de las filas crudas DEIS (archivo preliminar del "
                         "2022-10-06) y nacidos vivos del Anuario de Estadísticas Vitales 2021 del INE",
                         "Araucanía 2021: deaths from the raw DEIS rows (preliminary file of 2022-10-06) and live "
                         "births from INE's Anuario de Estadísticas Vitales 2021"),
})


def _embedded_panel(data: pd.DataFrame, country: str, source: str, notes):
    """A Panel of shipped data. Its data warnings (e.g. 0 births in small communes) are known, explained in
    the notes and kept in ``panel.warnings`` (``brecha panel`` prints them), but not re-emitted as Python
    warnings on every load: a user's own file still warns."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BrechaWarning)
        return Panel(data, country=country, source=source, notes=tuple(notes))


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
                 + " ... (brecha.datasets.ledger('chile'))")]
    if covariates:
        notes.append(MSG("population_cl"))
        data, note = add_standard(data, split=split)
        notes.append(note)
    return _embedded_panel(data, "CL", "brecha.datasets.chile", notes)


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


def argentina():
    """Argentina, 24 provinces x 2005-2024: births, infant, neonatal and post-neonatal deaths (a Panel;
    DEIS Argentina by province of residence). The notes carry the source's caveats: 2016 without the rows of
    unknown residence, no 0-6 / 7-27 days split in 2016 and 2024, the aggregate rows left out."""
    book = ledger("argentina")
    unknown = book[(book["status"] == "excluded") & book["reason"].str.contains(r"\(prov 9[89]\)")]
    notes = [MSG("source_ar"), MSG("excluded_ar", deaths=format_count(int(unknown["deaths"].sum()))),
             MSG("y2016_ar"), MSG("split_days_ar"), MSG("regions_ar")]
    return _embedded_panel(argentina_data(), "AR", "brecha.datasets.argentina", notes)


def araucania():
    """Chile's Araucanía region, 32 communes, 2021, built the way a user builds a panel from DEIS microdata:
    the shipped raw DEIS death rows (8,619, every death of 2021 with residence in the region) go through
    :func:`brecha.ingest.deis.ingest_deis`, and INE's births by commune through
    :func:`brecha.ingest.births_table.attach_births` (a few seconds). Region totals: 9,860 births, 56 infant
    deaths (41 neonatal, 15 post-neonatal): IMR 5.68, NMR 4.16, PNMR 1.52 per 1,000."""
    import tempfile

    from .ingest.births_table import attach_births
    from .ingest.deis import ingest_deis

    with tempfile.TemporaryDirectory() as folder, warnings.catch_warnings():
        warnings.simplefilter("ignore", BrechaWarning)
        paths = write_araucania_files(folder)
        result = attach_births(ingest_deis(deaths=[paths["deaths"]]), paths["births"])
    notes = [MSG("source_araucania"), *result.panel.notes]
    return _embedded_panel(result.panel.data, "CL", "brecha.datasets.araucania", notes)


EXAMPLES = {"chile": chile, "cl": chile, "brazil": brazil, "brasil": brazil, "br": brazil,
            "argentina": argentina, "ar": argentina, "araucania": araucania, "araucanía": araucania}


def example(name: str) -> Panel:
    """The embedded example called ``name``: ``chile`` (or ``cl``), ``brazil`` (``brasil``, ``br``),
    ``argentina`` (``ar``) or ``araucania``, with the defaults of :func:`chile`, :func:`brazil`,
    :func:`argentina` and :func:`araucania`; what ``--example NAME`` loads on the command line."""
    key = str(name).strip().lower()
    if key not in EXAMPLES:
        raise InputError(MSG("unknown_example", name=key), hint=MSG("unknown_example_hint"))
    return EXAMPLES[key]()


def read_panel(source, *, country: str | None = "auto", decimal: str | None = None, sheet=0) -> Panel:
    """A Panel from ``"example:chile"`` / ``"example:brazil"`` (:func:`example`) or from a panel file
    (:func:`brecha.panel.read_panel`, with its ``country``, ``decimal`` and ``sheet``). This is
    ``brecha.read_panel``.

    The examples live here, above the Panel, so that ``brecha.panel`` never imports the shipped data.
    """
    text = str(source)
    if text.startswith("example:"):
        return example(text.split(":", 1)[1])
    return read_panel_file(source, country=country, decimal=decimal, sheet=sheet)
