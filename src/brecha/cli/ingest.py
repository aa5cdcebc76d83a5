"""``brecha ingest SOURCE ...``: read raw sources into a panel file.

Sub-commands: ``deis`` (DEIS death and birth microdata, with a record ledger) and, when present,
``table`` (ordinary CSV/Excel/Parquet tables, :mod:`brecha.cli.ingest_table`). Other sources register
themselves by adding a module to :data:`SUBCOMMANDS` with an ``add_parser(subparsers)`` function.

    brecha ingest deis --deaths DEFUNCIONES.csv --births NACIMIENTOS.csv -o panel.parquet --years 2000-2021
"""
from __future__ import annotations

import importlib
import warnings

from ..i18n import Catalog, get_language
from .common import add_years_argument, declare_outputs, prose_count

# modules of brecha.cli that add an ``ingest`` sub-command (besides ``deis``, defined here)
SUBCOMMANDS = ("ingest_table",)

MSG = Catalog({
    "help": ("lee fuentes (microdatos DEIS, tablas) y escribe un archivo de panel",
             "read sources (DEIS microdata, tables) and write a panel file"),
    "source": ("fuente", "source"),
    "deis_help": ("microdatos DEIS de defunciones y nacimientos a un panel comuna x año, con registro de filas",
                  "DEIS death and birth microdata to a commune x year panel, with a record ledger"),
    "deaths_help": ("archivos de defunciones DEIS (27 columnas; ';' y Latin-1 como los publica DEIS, o ',' y "
                    "UTF-8; un encabezado se detecta)",
                    "DEIS deaths files (27 columns; ';' and Latin-1 as DEIS publishes them, or ',' and UTF-8; "
                    "a header row is detected)"),
    "births_help": ("archivos de nacimientos DEIS (con o sin encabezado; ver --births-layout)",
                    "DEIS births files (with or without a header; see --births-layout)"),
    "split_help": ("comunas creadas por división (2004): keep = aparte desde su creación (por defecto); "
                   "merge = sumadas a la comuna madre en toda la serie",
                   "communes created by a split (2004): keep = apart from their creation year (default); "
                   "merge = counted under the parent for the whole series"),
    "layout_help": ("formato de nacimientos, p. ej. \"year=ANO_NAC,commune=COMUNA\" o, sin encabezado, "
                    "\"year=4,commune=25\" (posiciones desde 1); también header=yes|no, sep=semicolon|comma, "
                    "keep=COLUMNA:1|2",
                    "births layout, e.g. \"year=ANO_NAC,commune=COMUNA\" or, without a header, "
                    "\"year=4,commune=25\" (positions from 1); also header=yes|no, sep=semicolon|comma, "
                    "keep=COLUMN:1|2"),
    "output_help": ("archivo de panel de salida (.parquet, .csv, .xlsx); el ledger se guarda al lado "
                    "(<nombre>.ledger.csv y .json)",
                    "output panel file (.parquet, .csv, .xlsx); the ledger is saved beside it "
                    "(<name>.ledger.csv and .json)"),
    "quiet_help": ("no imprimir el ledger", "do not print the ledger"),
    "births_table_help": ("tabla de nacidos vivos ya contados por comuna y año (columnas comuna, año, "
                          "nacimientos; p. ej. del anuario INE) en lugar de microdatos --births",
                          "table of live births already counted by commune and year (columns commune, year, "
                          "births; e.g. from INE's yearbook) instead of --births microdata"),
    "cover_help": ("con --births-table: 'births-table' dice que los archivos de defunciones contienen toda "
                   "defunción infantil de las comunas de la tabla en los años que cubren (un extracto solo de "
                   "defunciones infantiles): una comuna-año de la tabla sin registro cuenta 0 defunciones; "
                   "'records' (por defecto): solo las comunas-año con algún registro",
                   "with --births-table: 'births-table' says the deaths files hold every infant death of the "
                   "table's communes in the years they cover (an extract of infant deaths only): a commune-year "
                   "of the table without a record counts 0 deaths; 'records' (default): only the commune-years "
                   "with some record"),
    "doubtful": ("Aviso: {n} {n:registro excluido que podría ser una defunción infantil o un nacimiento|registros "
                 "excluidos que podrían ser defunciones infantiles o nacimientos} ({detail}); detalle en {ledger}",
                 "Warning: {n} {n:record|records} excluded that may have been {n:an infant death or a birth|infant "
                 "deaths or births} ({detail}); details in {ledger}"),
    "cover_needs_table": ("--deaths-cover births-table necesita --births-table",
                          "--deaths-cover births-table needs --births-table"),
    "done": ("Panel: {units} {units:comuna|comunas}, años {years}, {births} {births:nacido vivo|nacidos vivos}, "
             "{deaths} {deaths:defunción infantil|defunciones infantiles} ({neo} {neo:neonatal|neonatales}, {post} "
             "{post:posneonatal|posneonatales})",
             "Panel: {units} {units:commune|communes}, years {years}, {births} {births:live birth|live births}, "
             "{deaths} {deaths:infant death|infant deaths} ({neo} neonatal, {post} post-neonatal)"),
    "saved": ("Guardado: {paths}", "Saved: {paths}"),
    "warnings": ("Avisos:", "Warnings:"),
})


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("ingest", help=MSG("help"), description=MSG("help"))
    sources = p.add_subparsers(dest="source", metavar=MSG("source").upper())
    add_deis_parser(sources)
    for name in SUBCOMMANDS:
        try:
            module = importlib.import_module(f"{__package__}.{name}")
        except ModuleNotFoundError as exc:   # a source still being built in this checkout
            if exc.name == f"{__package__}.{name}":
                continue
            raise
        module.add_parser(sources)
    p.set_defaults(func=lambda args: p.print_help() or 0)


def add_deis_parser(sources) -> None:
    p = sources.add_parser("deis", help=MSG("deis_help"), description=MSG("deis_help"))
    p.add_argument("--deaths", nargs="+", default=[], metavar="FILE", help=MSG("deaths_help"))
    p.add_argument("--births", nargs="+", default=[], metavar="FILE", help=MSG("births_help"))
    p.add_argument("-o", "--output", required=True, metavar="OUT", help=MSG("output_help"))
    add_years_argument(p)
    p.add_argument("--split", choices=["keep", "merge"], default="keep", help=MSG("split_help"))
    p.add_argument("--births-layout", metavar="LAYOUT", help=MSG("layout_help"))
    p.add_argument("--births-table", metavar="FILE", help=MSG("births_table_help"))
    p.add_argument("--deaths-cover", choices=["records", "births-table"], default="records", help=MSG("cover_help"))
    p.add_argument("-q", "--quiet", action="store_true", help=MSG("quiet_help"))
    declare_outputs(p, companions=ledger_paths)
    p.set_defaults(func=run_deis)


# exclusions that say nothing about the record being out of scope: it may have been an infant death or a birth
# (a record of an adult, of another year or filtered out by the layout is out of scope, and not repeated here)
DOUBTFUL = ("commune_unknown", "commune_unrecognised", "commune_missing", "age_unknown", "age_invalid",
            "year_invalid", "malformed_columns")


def _say_doubtful_exclusions(ledger, output) -> None:
    """``--quiet``: one line on stderr when records were excluded for a reason that does not put them out of
    scope (commune or age unknown or invalid, a malformed row), with the counts and where the ledger is."""
    import sys

    from ..ingest.ledger import REASONS, Ledger

    found = {}
    for entry in ledger.entries:
        if entry["reason"] in DOUBTFUL:
            found[entry["reason"]] = found.get(entry["reason"], 0) + int(entry["rows"])
    if not found:
        return
    english = get_language() == "en"
    detail = "; ".join(f"{REASONS[r][2 if english else 1]}: {found[r]}" for r in DOUBTFUL if r in found)
    print(MSG("doubtful", n=sum(found.values()), detail=detail, ledger=Ledger.paths_beside(output)[0]), file=sys.stderr)


def ledger_paths(out) -> list:
    """The ledger and notes files written beside the panel ``out`` (checked with it before the work)."""
    from ..ingest.ledger import Ledger
    from ..panel_notes import notes_path

    return [*Ledger.paths_beside(out), notes_path(out)]


def run_deis(args) -> int:
    import pandas as pd

    from ..ingest.deis import ingest_deis

    if args.deaths_cover == "births-table" and not args.births_table:
        from ..errors import InputError

        raise InputError(MSG("cover_needs_table"), argument="deaths_cover")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = ingest_deis(deaths=args.deaths, births=args.births, years=args.years, split=args.split,
                             births_layout=args.births_layout)
        if args.births_table:
            from ..ingest.births_table import attach_births

            result = attach_births(result, args.births_table, cover=args.deaths_cover == "births-table")
    panel = result.panel
    d = panel.data
    years = panel.years

    def total(column):
        value = d[column].sum(min_count=1)
        return "-" if pd.isna(value) else prose_count(value)

    if not args.quiet:
        print(result.ledger.format())
        print()
    else:  # without the ledger, still say what may have been an infant death or a birth and was left out
        _say_doubtful_exclusions(result.ledger, args.output)
    print(MSG("done", units=len(panel.unit_codes), years=f"{years[0]}-{years[-1]}", births=total("births"),
              deaths=total("deaths"), neo=total("deaths_neonatal"), post=total("deaths_postneonatal")))
    messages = [str(w.message) for w in caught] + [w for w in panel.warnings if w not in
                                                   {str(c.message) for c in caught}]
    if messages:
        print(MSG("warnings"))
        for m in dict.fromkeys(messages):
            print(f"  - {m}")
    paths = result.save(args.output)
    print(MSG("saved", paths=", ".join(str(p) for p in paths)))
    return 0

