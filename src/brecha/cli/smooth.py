"""``brecha smooth PANEL``: empirical-Bayes smoothed rates (Poisson-gamma, Marshall 1991)."""
from __future__ import annotations

from ..i18n import Catalog
from .rates import add_common, load_subset, write_result

MSG = Catalog({
    "help": ("tasas suavizadas por Bayes empírico (Poisson-gamma, Marshall 1991)",
             "empirical-Bayes smoothed rates (Poisson-gamma, Marshall 1991)"),
    "prior_help": ("distribución a priori: global (por defecto) o region (una por región)",
                   "prior: global (default) or region (one per region)"),
    "method_help": ("eb: Bayes empírico (por defecto); bym2: modelo espacial BYM2 (Riebler 2016), las comunas "
                    "vecinas comparten riesgo", "eb: empirical Bayes (default); bym2: the BYM2 spatial model "
                    "(Riebler 2016), neighbouring units share risk"),
    "neighbours_help": ("vecindad para bym2: queen (por defecto), rook o knn:K",
                        "neighbours for bym2: queen (default), rook or knn:K"),
    "conf_help": ("nivel del intervalo a posteriori (0.95 por defecto)", "posterior interval level (default 0.95)"),
})



def add_parser(subparsers) -> None:
    p = subparsers.add_parser("smooth", help=MSG("help"), description=MSG("help"))
    add_common(p)
    p.add_argument("--prior", choices=["global", "region"], default="global", help=MSG("prior_help"))
    p.add_argument("--conf-level", type=float, default=0.95, help=MSG("conf_help"))
    p.add_argument("--method", choices=["eb", "bym2"], default="eb", help=MSG("method_help"))
    p.add_argument("--neighbours", default="queen", metavar="queen|rook|knn:K", help=MSG("neighbours_help"))
    p.set_defaults(func=run)


def run(args) -> int:
    from ..smoothing import SMOOTH_COLUMNS, smooth

    panel = load_subset(args)
    if args.method == "bym2":  # the spatial model (brecha.spatial.bym2); --prior is the EB method's
        from ..spatial.bym2 import BYM2_COLUMNS, bym2

        table = bym2(panel, outcome=args.outcome, years=args.years, pool=args.pool, neighbours=args.neighbours,
                     conf_level=args.conf_level)
        write_result(table, args, BYM2_COLUMNS)
        return 0
    table = smooth(panel, outcome=args.outcome, years=args.years, pool=args.pool, prior=args.prior,
                   conf_level=args.conf_level)
    write_result(table, args, SMOOTH_COLUMNS)
    return 0
