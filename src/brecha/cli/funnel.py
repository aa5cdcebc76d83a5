"""``brecha funnel PANEL``: funnel-plot control limits (95 %, 99.8 %) and the outlier flag of each unit."""
from __future__ import annotations

from ..i18n import Catalog
from .common import add_output_argument, add_panel_argument, add_suppress_argument, add_years_argument
from .rates import MSG as RATES_MSG
from .rates import load_subset, write_result

MSG = Catalog({
    "help": ("límites de control del gráfico de embudo (95 % y 99,8 %) y unidades fuera de ellos",
             "funnel-plot control limits (95 % and 99.8 %) and the units outside them"),
    "outcome_help": ("resultado: infant, neonatal o postneonatal", "outcome: infant, neonatal or postneonatal"),
    "by_year_help": ("un embudo por año (por defecto se suman los años)",
                     "one funnel per year (by default the years are pooled)"),
    "pool_help": ("sumar los años en un solo embudo (lo que se hace por defecto; aceptado como en los demás "
                  "comandos)", "pool the years into one funnel (the default; accepted as in the other commands)"),
    "pool_and_by_year": ("--pool y --by-year se excluyen", "--pool and --by-year exclude each other"),
    "over_help": ("ajuste por sobredispersión: none (por defecto), additive o multiplicative",
                  "overdispersion adjustment: none (default), additive or multiplicative"),
    "target_help": ("tasa objetivo por 1.000 (por defecto la tasa total)",
                    "target rate per 1,000 (default: the overall rate)"),
    "curve_help": ("guardar también las curvas de los límites para graficar (archivo)",
                   "also save the limit curves for plotting (file)"),
    "summary": ("{above} {above:unidad|unidades} sobre y {below} bajo el límite de 99,8 % (de {n})",
                "{above} {above:unit|units} above and {below} below the 99.8 % limit (of {n})"),
})



def add_parser(subparsers) -> None:
    p = subparsers.add_parser("funnel", help=MSG("help").replace("%", "%%"), description=MSG("help"))
    add_panel_argument(p)
    p.add_argument("--outcome", default="infant", help=MSG("outcome_help"))
    add_years_argument(p)
    p.add_argument("--by-year", action="store_true", help=MSG("by_year_help"))
    p.add_argument("--pool", action="store_true", help=MSG("pool_help"))
    p.add_argument("--overdispersion", default="none", choices=["none", "additive", "multiplicative"],
                   help=MSG("over_help"))
    p.add_argument("--target", type=float, help=MSG("target_help"))
    p.add_argument("--region", help=RATES_MSG("region_help"))
    p.add_argument("--curve", metavar="FILE", help=MSG("curve_help"))
    add_output_argument(p)
    add_suppress_argument(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from ..io import write_table
    from ..outputs import together
    from ..smoothing import FUNNEL_COLUMNS, funnel, funnel_curve

    if args.pool and args.by_year:
        from ..errors import InputError

        raise InputError(MSG("pool_and_by_year"))
    panel = load_subset(args)
    table = funnel(panel, outcome=args.outcome, years=args.years, pool=not args.by_year,
                   overdispersion=None if args.overdispersion == "none" else args.overdispersion,
                   target=args.target)
    print(MSG("summary", above=int((table["flag"] == "above").sum()), below=int((table["flag"] == "below").sum()),
              n=int((table["flag"] != "undefined").sum())))
    with together():  # -o and --curve appear together or not at all
        write_result(table, args, FUNNEL_COLUMNS)
        if args.curve:
            write_table(funnel_curve(table), args.curve)
    return 0
