"""``brecha disparity PANEL --reference ...``: RR, AR, AR% of each unit and PAR, PAR% of the total."""
from __future__ import annotations

from ..i18n import Catalog
from .common import load_panel
from .rates import add_common, add_level, load_subset, regions, write_result
from .streamed import can_stream, check_sheet_rows, write_streamed

MSG = Catalog({
    "help": ("brecha de cada unidad y del total frente a una referencia (RR, RA, RA%, RAP, RAP%)",
             "gap of each unit and of the total against a reference (RR, AR, AR%, PAR, PAR%)"),
    "reference_help": ("referencia: CODIGO, CODIGO,CODIGO (agrupadas), best (menor tasa entre las unidades con "
                       "nacimientos para 20 defunciones esperadas), best:N (mínimo N nacimientos; best:0 sin "
                       "mínimo), lowest-quintile:COVARIABLE o highest-quintile:COVARIABLE (p. ej. "
                       "lowest-quintile:poverty; las covariables de Chile y Brasil se agregan solas)",
                       "reference: CODE, CODE,CODE (pooled), best (lowest rate among units with births for 20 "
                       "expected deaths), best:N (at least N births; best:0 no minimum), "
                       "lowest-quintile:COVARIATE or highest-quintile:COVARIATE (e.g. lowest-quintile:poverty; "
                       "Chilean and Brazilian covariates are added when needed)"),
    "level_help": ("agregar antes a province, region o country: cada región frente a una región de referencia",
                   "aggregate first to province, region or country: each region against a reference region"),
    "rr_help": ("método de la razón de tasas y familia de varianza: poisson (por defecto), binomial, exact, midp",
                "rate-ratio method and variance family: poisson (default), binomial, exact, midp"),
    "par_help": ("IC del RAP y RAP%: delta (por defecto), walter, jewell, wald, sullivan",
                 "CI of PAR and PAR%: delta (default), walter, jewell, wald, sullivan"),
    "units_help": ("analizar solo estas unidades (códigos separados por comas)",
                   "analyse only these units (codes separated by commas)"),
    "conf_help": ("nivel de confianza (0.95 por defecto)", "confidence level (default 0.95)"),
    "reference": ("Referencia: {label}", "Reference: {label}"),
})

COLUMNS = ["unit", "period", "outcome", "measure", "estimate", "lower", "upper", "method"]
# unit-periods per piece of a streamed output (four rows each: about 35 MB of table, 90 MB as Parquet text):
# cli/streamed.py
BLOCK_ROWS = 50_000


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("disparity", help=MSG("help").replace("%", "%%"), description=MSG("help"))
    add_common(p)
    p.add_argument("--reference", required=True, help=MSG("reference_help"))
    p.add_argument("--rr-method", default="poisson", help=MSG("rr_help"))
    p.add_argument("--par-method", default="delta", help=MSG("par_help").replace("%", "%%"))
    p.add_argument("--units", help=MSG("units_help"))
    add_level(p, MSG("level_help"))
    p.add_argument("--conf-level", type=float, default=0.95, help=MSG("conf_help"))
    p.set_defaults(func=run)


def reference_codes(text: str) -> list[str]:
    """The unit codes a --reference names (``13101`` or ``13101,13102``); none for ``best`` and the
    quintiles, chosen among the analysed units."""
    key = str(text or "").strip().lower()
    if key == "best" or key.startswith(("best:", "lowest-quintile:", "highest-quintile:")):
        return []
    return [c.strip() for c in str(text).split(",") if c.strip()]


def run(args) -> int:
    from ..disparity_parts import DisparityParts

    units = [u.strip() for u in args.units.split(",") if u.strip()] if args.units else None
    if args.level:
        # aggregates: the region's provinces (or the regions asked) against a reference at that level
        panel = load_subset(args)
    else:
        # the rows analysed: the region's, and those of a reference named by its codes (the warnings say so)
        panel = load_panel(args, also_units=reference_codes(args.reference) if regions(args) else ())
        if regions(args):
            # --region analyses that region's units; an explicit reference may lie outside it
            in_region = panel.subset(region=regions(args)).unit_codes
            region_units = set(in_region)
            units = [u for u in units if u in region_units] if units else in_region
    options = dict(outcome=args.outcome, years=args.years, pool=args.pool, conf_level=args.conf_level,
                   rr_method=args.rr_method, par_method=args.par_method, units=units, level=args.level)
    parts = DisparityParts(panel, args.reference, **options)  # the reference, the sums, every input error
    label = parts.plan.label

    def say_reference():
        if parts.n_rows:
            print(MSG("reference", label=label))

    if can_stream(args):  # .csv, .parquet, .json or printed: computed and written piece by piece (issue 19)
        write_streamed(parts, args, COLUMNS, BLOCK_ROWS, before=say_reference)
        return 0
    check_sheet_rows(parts.n_rows, args)  # .xlsx: a table longer than a sheet is refused before it is computed
    table = parts.whole()
    say_reference()
    write_result(table, args, COLUMNS)
    return 0
