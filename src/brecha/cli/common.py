"""Argument helpers shared by every command: the PANEL argument, --years, -o output."""
from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from ..errors import InputError
from ..i18n import Catalog, get_language
from .publish import add_suppress_argument, publish, remember_panel  # noqa: F401  (--suppress: issue 17)

if TYPE_CHECKING:  # pandas only inside the functions that use it: `brecha --help` stays light (issue 19)
    import pandas as pd

MSG = Catalog({
    "panel_help": ("archivo de panel (.csv, .parquet, .xlsx, .json) o nada si se usa --example",
                   "panel file (.csv, .parquet, .xlsx, .json), or nothing with --example"),
    "sheet_help": ("hoja de un libro Excel (.xlsx): nombre o número desde 0, como en 'ingest table --sheet'; por "
                   "defecto la primera",
                   "sheet of an Excel workbook (.xlsx): a name or a number from 0, as in 'ingest table --sheet'; "
                   "the first by default"),
    "example_sheet": ("--sheet elige la hoja de un archivo de panel .xlsx; --example no tiene hojas",
                      "--sheet chooses the sheet of an .xlsx panel file; --example has no sheets"),
    "example_help": ("usar los datos reales incluidos (chile, brazil, argentina o araucania)",
                     "use the embedded real data (chile, brazil, argentina or araucania)"),
    "decimal_help": ("signo decimal de los números escritos como texto, cuando el archivo no lo deja claro: "
                     "',' para 1.234,5 o '.' para 1,234.5",
                     "decimal mark of numbers written as text, when the file leaves it unclear: ',' for 1.234,5 "
                     "or '.' for 1,234.5"),
    "years_help": ("años, p. ej. 2005-2014 o 2005,2007,2010", "years, e.g. 2005-2014 or 2005,2007,2010"),
    "output_help": ("archivo de salida; el formato sale de la extensión (.csv .parquet .xlsx .json)",
                    "output file; the format follows the extension (.csv .parquet .xlsx .json)"),
    "need_panel": ("indique un archivo de panel o --example chile|brazil|argentina|araucania",
                   "give a panel file or --example chile|brazil|argentina|araucania"),
    "both_panel": ("indique un archivo de panel o --example, no ambos",
                   "give a panel file or --example, not both"),
    "bad_years": ("no se entiende '{text}' como años", "cannot read '{text}' as years"),
    "saved": ("Guardado: {path} ({rows} {rows:fila|filas})", "Saved: {path} ({rows} {rows:row|rows})"),
    "notes": ("Notas:", "Notes:"),
    "years_missing": ("años pedidos que no están en el panel ({have}): {years}; se usan los demás",
                      "requested years not in the panel ({have}): {years}; the others are used"),
    "region_help": ("analizar solo esta(s) región(es), p. ej. 13 o 13,05",
                    "analyse only this region (or regions), e.g. 13 or 13,05"),
})


def add_panel_argument(parser: argparse.ArgumentParser) -> None:
    """PANEL positional (optional) plus --example chile|brazil, --decimal and --sheet."""
    parser.add_argument("panel", nargs="?", metavar="PANEL", help=MSG("panel_help"))
    parser.add_argument("--example", choices=["chile", "brazil", "argentina", "araucania"], help=MSG("example_help"))
    add_decimal_argument(parser)
    parser.add_argument("--sheet", type=sheet_argument, metavar="NAME|NUMBER", help=MSG("sheet_help"))


def sheet_argument(text: str):
    """--sheet as ``ingest table`` reads it: digits are a number (from 0), anything else a sheet's name
    (:func:`brecha.table_layout.chosen_sheet`, where a number no sheet has but a sheet is named, 2015, is
    that sheet)."""
    return int(text) if text.strip().isdigit() else text


def add_decimal_argument(parser: argparse.ArgumentParser) -> None:
    """--decimal {.,,}: how the panel file writes numbers as text (brecha.number_formats)."""
    parser.add_argument("--decimal", choices=[".", ","], help=MSG("decimal_help"))


def add_years_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--years", type=parse_years, help=MSG("years_help"))


def add_output_argument(parser: argparse.ArgumentParser, required: bool = False) -> None:
    parser.add_argument("-o", "--output", required=required, metavar="OUT", help=MSG("output_help"))


def parse_years(text: str) -> list[int]:
    """'2005-2014' -> [2005..2014]; '2005,2007' -> [2005, 2007]; '2010' -> [2010] (``brecha.panel.parse_years``)."""
    from ..panel import parse_years as years_from_text

    try:
        return years_from_text(text)
    except InputError as exc:  # years outside 1900..next year: the message says which
        raise argparse.ArgumentTypeError(str(exc)) from None
    except ValueError:
        raise argparse.ArgumentTypeError(MSG("bad_years", text=text)) from None


def load_panel(args, *, also_units=()):
    """The Panel named by the PANEL argument or --example. With --years or --region, a file's warnings about
    rows (0 births...) are shown for the rows analysed, those years of the region's units and of
    ``also_units`` (:mod:`brecha.cli.analysed_rows`); its warnings about the file as they are."""
    from ..datasets import example
    from ..panel import read_panel
    from .analysed_rows import read_for_rows

    if getattr(args, "example", None) and getattr(args, "panel", None):
        raise InputError(MSG("both_panel"))
    if getattr(args, "example", None) and getattr(args, "sheet", None) is not None:
        raise InputError(MSG("example_sheet"), argument="sheet")
    if getattr(args, "example", None):
        panel = example(args.example)
    elif not getattr(args, "panel", None):
        raise InputError(MSG("need_panel"))
    else:
        panel = read_for_rows(lambda: read_panel(args.panel, decimal=getattr(args, "decimal", None),
                                                 sheet=panel_sheet(args)), args, also_units)
    warn_missing_years(panel, getattr(args, "years", None))
    remember_panel(args, panel)  # for the totals a --suppress table is published with
    return panel


def panel_sheet(args):
    """The sheet --sheet asks for, or 0 (the first, which a file without sheets has too)."""
    sheet = getattr(args, "sheet", None)
    return 0 if sheet is None else sheet


def warn_missing_years(panel, years) -> None:
    """--years 2014-2016 on a panel that ends in 2015: say that 2016 is not there (the analyses use the
    years they find; none at all is an error raised by the analysis)."""
    if not years:
        return
    have = set(panel.years)
    missing = [y for y in years if y not in have]
    if missing and len(missing) < len(years):
        from ..errors import warn

        span = f"{min(have)}-{max(have)}" if have else "-"
        warn(MSG("years_missing", have=span, years=", ".join(map(str, missing))))


def print_notes(notes) -> None:
    """The caveats that travel with a result, printed the same way by every command:
    a "Notas:"/"Notes:" line, then one "  - note" line each (duplicates dropped, order kept)."""
    notes = [str(n) for n in dict.fromkeys(notes or ()) if n]
    if notes:
        print(MSG("notes"))
        for note in notes:
            print(f"  - {note}")


def prose_number(value, spec: str = "g") -> str:
    """A number for a sentence: '0,05' in Spanish, '0.05' in English (tables keep '.')."""
    text = format(value, spec)
    return text.replace(".", ",") if get_language() == "es" else text


def prose_count(value) -> str:
    """A whole number for a sentence, thousands grouped as the ledger does: '27.281' in Spanish, '27,281' in
    English."""
    text = f"{int(value):,}"
    return text.replace(",", ".") if get_language() == "es" else text


def add_region_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--region", help=MSG("region_help"))


def load_region_subset(args):
    """The panel of PANEL/--example, restricted to --region (codes separated by commas) when given."""
    from .analysed_rows import wanted_regions

    panel = load_panel(args)
    wanted = wanted_regions(args)
    return panel.subset(region=wanted) if wanted else panel


def write_output(df: pd.DataFrame, args, *, sheets=None) -> None:
    """Write to -o if given (format by extension) and say where; print the table otherwise."""
    from ..io import write_table

    df = publish(df, args)  # --suppress and the reliability column, where every table is written
    sheets = {name: publish(sheet, args, say=False) for name, sheet in sheets.items()} if sheets else sheets
    out = getattr(args, "output", None)
    if out:
        path = write_table(df, out, sheets=sheets)
        print(MSG("saved", path=path, rows=len(df)))
    else:
        import pandas as pd

        with pd.option_context("display.max_rows", 60, "display.width", 160, "display.max_columns", 20):
            print(df.to_string(index=False, max_rows=60))


# arguments that name input files, in any command (``files`` items may read FILE=VARIABLE)
INPUT_ARGUMENTS = ("panel", "files", "deaths", "births", "births_table", "study")


def input_paths(args) -> list:
    """The input files the command line names, each with the ledger and notes that may sit beside it."""
    from pathlib import Path

    from ..ingest.ledger import Ledger
    from ..panel_notes import notes_path

    names = []
    for attr in INPUT_ARGUMENTS:
        value = getattr(args, attr, None)
        for item in value if isinstance(value, (list, tuple)) else [value]:
            if isinstance(item, str) and item:
                names += [item, item.partition("=")[0]] if "=" in item else [item]
    return [p for name in dict.fromkeys(names) for p in (Path(name), *Ledger.paths_beside(name), notes_path(name))]


def declare_outputs(parser: argparse.ArgumentParser, *, folder: bool = False, companions=None) -> None:
    """How a command's -o is checked before it runs (:func:`check_output_paths`): a folder (``report``), or
    a file plus the files written beside it, ``companions(out) -> [paths]`` (a ledger, sibling tables)."""
    parser.set_defaults(output_kind="folder" if folder else "file", output_companions=companions)


def check_output_paths(args) -> None:
    """Run by ``brecha`` before any command does its work: -o (and --curve) name a file of a known type
    (or a folder, for ``report``) that can be written and that is none of the inputs or their ledgers;
    otherwise an InputError that says why (``brecha.outputs``)."""
    from ..io import check_output_name
    from ..outputs import check_file_targets

    out = getattr(args, "output", None)
    inputs = input_paths(args)
    if getattr(args, "output_kind", "file") == "folder":
        if out:
            from ..report.folder import check_folder_target

            check_folder_target(out, inputs)
        return
    targets = [out] if out else []
    companions = getattr(args, "output_companions", None)
    if out and companions:
        targets += list(companions(out))
    if getattr(args, "curve", None):
        targets.append(args.curve)
    check_file_targets(targets, inputs)  # first: "-o names a folder" says more than "unknown type ''"
    if getattr(args, "output_kind", "file") == "page":  # one HTML page (brecha dashboard): its own check
        for target in targets:
            args.output_check(target)
        return
    for target in targets:
        check_output_name(target)
