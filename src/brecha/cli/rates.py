"""``brecha rates PANEL``: rates per 1,000 live births with confidence intervals, per unit and period."""
from __future__ import annotations

from ..i18n import Catalog
from .choices import CI_METHODS
from .common import (add_output_argument, add_panel_argument, add_suppress_argument, add_years_argument, load_panel,
                     print_notes, write_output)
from .streamed import can_stream, check_sheet_rows, order, write_streamed  # noqa: F401  (order: cli.rates.order stays)

MSG = Catalog({
    "help": ("tasas por 1.000 nacidos vivos con intervalos de confianza",
             "rates per 1,000 live births with confidence intervals"),
    "outcome_help": ("resultado: infant, neonatal o postneonatal", "outcome: infant, neonatal or postneonatal"),
    "pool_help": ("sumar defunciones y nacimientos de todos los años (una fila por unidad)",
                  "pool deaths and births over the years (one row per unit)"),
    "ci_help": ("método del intervalo: exact (Garwood, por defecto), byar (PHE), byar-epitools, phe, wilson, "
                "clopper-pearson",
                "interval method: exact (Garwood, default), byar (PHE), byar-epitools, phe, wilson, "
                "clopper-pearson"),
    "level_help": ("agregar antes a province, region o country", "aggregate first to province, region or country"),
    "conf_help": ("nivel de confianza (0.95 por defecto)", "confidence level (default 0.95)"),
    "region_help": ("analizar solo esta(s) región(es), p. ej. 13 o 13,05", "analyse only this region (or regions), e.g. 13 or 13,05"),
    "notes": ("Notas:", "Notes:"),
})

COLUMNS = ["unit", "period", "outcome", "events", "births", "estimate", "lower", "upper", "method"]
# rows per piece of a streamed output (cli/streamed.py): the interval arithmetic, the reliability column
# and the text pandas formats are made for one piece at a time, never for the whole table
BLOCK_ROWS = 500_000


def add_common(p, pool_default=False) -> None:
    add_panel_argument(p)
    p.add_argument("--outcome", default="infant", help=MSG("outcome_help"))
    add_years_argument(p)
    p.add_argument("--pool", action="store_true", default=pool_default, help=MSG("pool_help"))
    p.add_argument("--region", help=MSG("region_help"))
    add_output_argument(p)
    add_suppress_argument(p)


def regions(args) -> list[str] | None:
    """The codes of --region (:func:`brecha.cli.analysed_rows.wanted_regions`)."""
    from .analysed_rows import wanted_regions

    return wanted_regions(args)


def load_subset(args):
    """The panel, restricted to --region when given."""
    panel = load_panel(args)
    wanted = regions(args)
    return panel.subset(region=wanted) if wanted else panel


def add_level(p, text: str | None = None) -> None:
    p.add_argument("--level", choices=["province", "region", "country"], help=text or MSG("level_help"))


def write_result(table, args, first) -> None:
    """Print the caveats that travel with the result, then write it (contract columns first).

    An ``.xlsx`` output gets the notes in a second sheet; the text columns are plain text in every format.
    """
    import pandas as pd

    from .common import publish

    table = publish(table, args)  # --suppress (cli.publish): the notes below include the policy's
    notes = list(dict.fromkeys(table.attrs.get("notes", ())))
    table = order(table, first)
    categorical = [c for c in table.columns if isinstance(table[c].dtype, pd.CategoricalDtype)]
    # CSV writes a categorical's text as it is; converting first would spell out one string per row
    # (a 300-character reference label × 3.5 M disparity rows is 1 GB+)
    if categorical and getattr(args, "output", None) and not str(args.output).lower().endswith(".csv"):
        table = table.astype({c: "str" for c in categorical})
    print_notes(notes)
    out = str(getattr(args, "output", None) or "")
    check_sheet_rows(len(table), args)
    if notes and out.lower().endswith(".xlsx"):
        write_output(table, args, sheets={"results": table, "notes": pd.DataFrame({"note": notes})})
    else:
        write_output(table, args)


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("rates", help=MSG("help"), description=MSG("help"))
    add_common(p)
    p.add_argument("--ci", default="exact", metavar="|".join(CI_METHODS), help=MSG("ci_help"))
    add_level(p)
    p.add_argument("--conf-level", type=float, default=0.95, help=MSG("conf_help"))
    p.set_defaults(func=run)


def run(args) -> int:
    from ..rates import RateParts

    panel = load_subset(args)
    options = dict(outcome=args.outcome, years=args.years, pool=args.pool, ci=args.ci, conf_level=args.conf_level,
                   level=args.level)
    parts = RateParts(panel, **options)
    if can_stream(args):  # .csv, .parquet, .json or printed: computed and written piece by piece (issue 19)
        write_streamed(parts, args, COLUMNS, BLOCK_ROWS)
        return 0
    check_sheet_rows(parts.n_rows, args)  # .xlsx: a table longer than a sheet is refused before it is computed
    write_result(parts.whole(), args, COLUMNS)
    return 0
