"""``brecha smooth PANEL``: empirical-Bayes smoothed rates (Poisson-gamma, Marshall 1991)."""
from __future__ import annotations

from ..i18n import Catalog
from ..smoothing import SMOOTH_COLUMNS
from .rates import add_common, load_subset, write_result

MSG = Catalog({
    "help": ("tasas suavizadas por Bayes empírico (Poisson-gamma, Marshall 1991)",
             "empirical-Bayes smoothed rates (Poisson-gamma, Marshall 1991)"),
    "prior_help": ("distribución a priori: global (por defecto) o region (una por región)",
                   "prior: global (default) or region (one per region)"),
    "conf_help": ("nivel del intervalo a posteriori (0.95 por defecto)", "posterior interval level (default 0.95)"),
})



def add_parser(subparsers) -> None:
    p = subparsers.add_parser("smooth", help=MSG("help"), description=MSG("help"))
    add_common(p)
    p.add_argument("--prior", choices=["global", "region"], default="global", help=MSG("prior_help"))
    p.add_argument("--conf-level", type=float, default=0.95, help=MSG("conf_help"))
    p.set_defaults(func=run)


def run(args) -> int:
    from ..smoothing import smooth

    panel = load_subset(args)
    table = smooth(panel, outcome=args.outcome, years=args.years, pool=args.pool, prior=args.prior,
                   conf_level=args.conf_level)
    write_result(table, args, SMOOTH_COLUMNS)
    return 0
