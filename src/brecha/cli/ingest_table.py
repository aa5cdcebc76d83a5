"""``brecha ingest table FILE[=VARIABLE] ...``: CSV/Excel/Parquet tables (long or wide) into a panel file,
with a record ledger beside it (``OUT.ledger.csv`` and ``.json``, as ``brecha ingest deis``).

    brecha ingest table comunas.csv --name-col comuna -o panel.parquet
    brecha ingest table comunas.csv --name-col comuna --match approximate -o panel.parquet
    brecha ingest table defunciones.csv=deaths:defunciones nacidos.xlsx=births:nacidos -o panel.parquet

What a ``=`` after a file may say is parsed and checked in :mod:`brecha.ingest.table_specs`.
"""
from __future__ import annotations

import warnings

from ..errors import BrechaWarning
from ..i18n import Catalog
from .common import add_decimal_argument, add_output_argument, declare_outputs

MSG = Catalog({
    "help": ("tablas CSV/Excel/Parquet (largas o anchas) a un archivo de panel",
             "CSV/Excel/Parquet tables (long or wide) into a panel file"),
    "files_help": ("archivos; para tablas anchas (una columna por año) escriba ARCHIVO=variable, "
                   "p. ej. nacimientos.xlsx=births. Las columnas de un solo archivo: ARCHIVO=ROL:COLUMNA, varias "
                   "separadas por comas, p. ej. defunciones.csv=deaths:defunciones o "
                   "nacidos.xlsx=births:nacidos,unit:cod_com (ROL: unit, name, year, births, deaths, neonatal, "
                   "postneonatal; reemplaza --ROL-col en ese archivo). En una tabla larga (con columna de año), "
                   "ARCHIVO=births lee como nacimientos su única columna que no es unidad, año ni otro conteo",
                   "files; for wide tables (one column per year) write FILE=variable, e.g. births.xlsx=births. "
                   "The columns of one file only: FILE=ROLE:COLUMN, several separated by commas, e.g. "
                   "deaths.csv=deaths:defunciones or births.xlsx=births:nacidos,unit:cod_com (ROLE: unit, name, "
                   "year, births, deaths, neonatal, postneonatal; replaces --ROLE-col for that file). In a long "
                   "table (with a year column), FILE=births reads as births its one column that is not the "
                   "unit, the year or another count"),
    "col_help": ("nombre de la columna de {role} en todos los archivos (en uno solo: ARCHIVO={role}:COLUMNA)",
                 "name of the {role} column in every file (in one file only: FILE={role}:COLUMN)"),
    "country_help": ("registro de unidades: auto (por defecto), CL, BR, AR o none",
                     "unit registry: auto (default), CL, BR, AR or none"),
    "name_help": ("columna con nombres de unidad, cuando no hay códigos (sin importar tildes, mayúsculas, "
                  "espacios y puntuación, más variantes oficiales como Aysén/Aisén)",
                  "column of unit names, when there are no codes (regardless of accents, case, spaces and "
                  "punctuation, plus official variants such as Aysén/Aisén)"),
    "match_help": ("exact (por defecto): solo nombres oficiales y variantes conocidas; approximate: acepta "
                   "además un nombre con un error de tipeo o dentro de una etiqueta más larga cuando apunta a "
                   "una sola unidad (cada caso se avisa y queda en el ledger)",
                   "exact (default): only official names and known variants; approximate: also accept a name "
                   "with a typo or inside a longer label when it points to one unit (each one is reported and "
                   "kept in the ledger)"),
    "quiet_help": ("no imprimir el ledger", "do not print the ledger"),
    "saved": ("Guardado: {paths}", "Saved: {paths}"),
    "sheet_help": ("hoja de Excel (nombre o número, desde 0)", "Excel sheet (name or number, from 0)"),
    "warnings": ("Avisos:", "Warnings:"),
    "done": ("Panel: {units} {units:unidad|unidades}, años {years}, {rows} {rows:fila|filas}",
             "Panel: {units} {units:unit|units}, years {years}, {rows} {rows:row|rows}"),
})

ROLE_OPTIONS = (("unit", "unit"), ("year", "year"), ("births", "births"), ("deaths", "deaths"),
                ("neonatal", "deaths_neonatal"), ("postneonatal", "deaths_postneonatal"))


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("table", help=MSG("help"), description=MSG("help"))
    p.add_argument("files", nargs="+", metavar="FILE[=VARIABLE]", help=MSG("files_help"))
    for option, _ in ROLE_OPTIONS:
        p.add_argument(f"--{option}-col", help=MSG("col_help", role=option))
    p.add_argument("--name-col", help=MSG("name_help"))
    p.add_argument("--country", default="auto", help=MSG("country_help"))
    p.add_argument("--match", choices=["exact", "approximate"], default="exact", help=MSG("match_help"))
    p.add_argument("--sheet", default="0", help=MSG("sheet_help"))
    add_decimal_argument(p)
    p.add_argument("-q", "--quiet", action="store_true", help=MSG("quiet_help"))
    add_output_argument(p, required=True)
    declare_outputs(p, companions=ledger_paths)  # checked with -o before any work (cli.main)
    p.set_defaults(func=run)


def ledger_paths(out) -> list:
    """The ledger files written beside the panel ``out``."""
    from ..ingest.ledger import Ledger

    return list(Ledger.paths_beside(out))


def run(args) -> int:
    from ..ingest.tables import ingest_tables
    from ..io import write_table
    from ..outputs import together

    mapping = {role: getattr(args, f"{option}_col") for option, role in ROLE_OPTIONS
               if getattr(args, f"{option}_col")}
    if args.name_col:
        mapping["name"] = args.name_col
        mapping["country"] = None if args.country.lower() in ("auto", "none") else args.country
    if args.decimal:
        mapping["decimal"] = args.decimal  # numbers written as text: '1.234,5' (',') or '1,234.5' ('.')
    sheet = int(args.sheet) if str(args.sheet).isdigit() else args.sheet
    country = None if args.country.lower() == "none" else args.country
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", BrechaWarning)  # printed once, below, with the panel's own warnings
        result = ingest_tables(args.files, mapping, country=country, sheet=sheet, match=args.match)
    panel = result.panel
    if not args.quiet:
        print(result.ledger.format())  # with its notes: columns read as percentages, columns set aside
        print()
    else:
        for note in result.ledger.notes:  # never a column left out without a word, even when quiet
            print(f"* {note}")
    years = panel.years
    print(MSG("done", units=len(panel.unit_codes), years=f"{years[0]}-{years[-1]}", rows=len(panel.data)))
    messages = [str(w.message) for w in caught if issubclass(w.category, BrechaWarning)] + list(panel.warnings)
    if messages:
        print(MSG("warnings"))
        for m in dict.fromkeys(messages):
            print(f"  - {m}")
    with together():  # the panel and its ledger appear together or not at all
        written = [write_table(panel.data, args.output), *result.ledger.save(args.output)]
    print(MSG("saved", paths=", ".join(str(p) for p in written)))
    return 0
