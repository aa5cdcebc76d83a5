"""``brecha ingest table FILE[=VARIABLE] ...``: CSV/Excel/Parquet tables (long or wide) into a panel file."""
from __future__ import annotations

import warnings

from ..errors import BrechaWarning
from ..i18n import Catalog
from .common import add_output_argument, write_output

MSG = Catalog({
    "help": ("tablas CSV/Excel/Parquet (largas o anchas) a un archivo de panel",
             "CSV/Excel/Parquet tables (long or wide) into a panel file"),
    "files_help": ("archivos; para tablas anchas (una columna por año) escriba ARCHIVO=variable, "
                   "p. ej. nacimientos.xlsx=births",
                   "files; for wide tables (one column per year) write FILE=variable, e.g. births.xlsx=births"),
    "col_help": ("nombre de la columna de {role} en los archivos", "name of the {role} column in the files"),
    "country_help": ("registro de unidades: auto (por defecto), CL, BR o none",
                     "unit registry: auto (default), CL, BR or none"),
    "name_help": ("columna con nombres de unidad, cuando no hay códigos (coincidencia tolerante: tildes, "
                  "mayúsculas, variantes como Aysén/Aisén)",
                  "column of unit names, when there are no codes (tolerant matching: accents, case, variants "
                  "such as Aysén/Aisén)"),
    "sheet_help": ("hoja de Excel (nombre o número, desde 0)", "Excel sheet (name or number, from 0)"),
    "warnings": ("Avisos:", "Warnings:"),
    "no_sheet": ("no hay hoja {sheet} (el archivo tiene {n}: {names})",
                 "there is no sheet {sheet} (the file has {n}: {names})"),
    "no_sheet_hint": ("indique --sheet con un nombre de esa lista o un número desde 0",
                      "give --sheet a name from that list or a number from 0"),
    "done": ("Panel: {units} unidades, años {years}, {rows} filas",
             "Panel: {units} units, years {years}, {rows} rows"),
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
    p.add_argument("--sheet", default="0", help=MSG("sheet_help"))
    add_output_argument(p, required=True)
    p.set_defaults(func=run)


def run(args) -> int:
    from ..ingest.tables import read_tables

    mapping = {role: getattr(args, f"{option}_col") for option, role in ROLE_OPTIONS
               if getattr(args, f"{option}_col")}
    if args.name_col:
        mapping["name"] = args.name_col
        mapping["country"] = None if args.country.lower() in ("auto", "none") else args.country
    sheet = int(args.sheet) if str(args.sheet).isdigit() else args.sheet
    for spec in args.files:
        _check_sheet(str(spec).partition("=")[0], sheet)
    country = None if args.country.lower() == "none" else args.country
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BrechaWarning)  # the panel keeps its warnings; printed once below
        panel = read_tables(args.files, mapping, country=country, sheet=sheet)
    years = panel.years
    print(MSG("done", units=len(panel.unit_codes), years=f"{years[0]}-{years[-1]}", rows=len(panel.data)))
    if panel.warnings:
        print(MSG("warnings"))
        for w in panel.warnings:
            print(f"  - {w}")
    write_output(panel.data, args)
    return 0


def _check_sheet(path: str, sheet) -> None:
    """--sheet names a sheet the workbook has (else pandas' ValueError would end in a traceback)."""
    from pathlib import Path

    from ..errors import InputError

    if Path(path).suffix.lower() not in (".xlsx", ".xlsm") or not Path(path).is_file():
        return  # other formats have no sheets; a missing file is reported by the reader
    from openpyxl import load_workbook

    try:
        book = load_workbook(path, read_only=True)
        names = list(book.sheetnames)
        book.close()
    except Exception:  # not a readable workbook: the reader says so, with the file named
        return
    if (isinstance(sheet, int) and sheet >= len(names)) or (isinstance(sheet, str) and sheet not in names):
        raise InputError(MSG("no_sheet", sheet=sheet, n=len(names), names=", ".join(names)), file=path,
                         hint=MSG("no_sheet_hint"))
