"""``brecha decompose``: where the gap lives (between/within groups) and what explains it (determinants).

``brecha decompose PANEL --by region [--measures theil,mld,ge2,gini] [--years ..] [--pool]
[--bootstrap N --seed S] -o OUT`` decomposes Theil T, MLD, GE(α) and the Gini into between and within groups
(:func:`brecha.inequality.decompose_table.decompose`); ``brecha decompose PANEL --rank-by poverty
--determinants poverty,schooling,... -o OUT`` decomposes the concentration index by its determinants
(:func:`brecha.inequality.ci_decompose.ci_decompose`). ``--change Y0,Y1`` adds the change between two years
split into its parts.
"""
from __future__ import annotations

from ..i18n import Catalog
from .common import add_output_argument, add_panel_argument, add_region_argument, add_years_argument

MSG = Catalog({
    "help": ("descomponer la desigualdad: entre y dentro de grupos (Theil, MLD, GE, Gini) o por determinantes "
             "(índice de concentración)", "decompose inequality: between and within groups (Theil, MLD, GE, "
             "Gini) or by determinants (concentration index)"),
    "by": ("agrupar las unidades por region, province, una columna del panel o COVARIABLE:K (K clases de "
           "nacimientos iguales)", "group the units by region, province, a column of the panel or COVARIATE:K (K "
           "classes of equal births)"),
    "measures": ("medidas: theil, mld, ge2, gini (por defecto las cuatro) o geA (p. ej. ge0.5)",
                 "measures: theil, mld, ge2, gini (default: all four) or geA (e.g. ge0.5)"),
    "scale": ("escala de los índices: 1 (por defecto) o 1000 (como WHO HEAT)",
              "scale of the indices: 1 (default) or 1000 (as WHO HEAT)"),
    "smoothed": ("descomponer las tasas suavizadas (Bayes empírico): MLD y GE(α ≤ 0) quedan definidas con tasas 0",
                 "decompose the smoothed rates (empirical Bayes): MLD and GE(α ≤ 0) are defined with zero rates"),
    "rank_by": ("covariable que ordena las unidades para el índice de concentración (p. ej. poverty)",
                "covariate that orders the units for the concentration index (e.g. poverty)"),
    "determinants": ("determinantes separados por comas (p. ej. poverty,schooling,sapu,health_spending_pc,"
                     "distance_hospital_km)", "determinants separated by commas (e.g. poverty,schooling,sapu,"
                     "health_spending_pc,distance_hospital_km)"),
    "advantaged": ("qué extremo de --rank-by es el aventajado: high o low (por defecto low para pobreza y "
                   "distancia)", "which end of --rank-by is better off: high or low (default low for poverty "
                   "and distance)"),
    "bootstrap": ("réplicas bootstrap para los IC (0 = sin IC)", "bootstrap replicates for the CIs (0 = no CIs)"),
    "seed": ("semilla del bootstrap", "bootstrap seed"),
    "conf_level": ("nivel de confianza", "confidence level"),
    "outcome": ("resultado: infant, neonatal o postneonatal", "outcome: infant, neonatal or postneonatal"),
    "pool": ("sumar los años en un solo período", "sum the years into one period"),
    "change": ("dos años, p. ej. 2001,2011: el cambio entre ellos separado en sus partes",
               "two years, e.g. 2001,2011: the change between them split into its parts"),
    "one_mode": ("use --by (entre y dentro de grupos) o --rank-by con --determinants (índice de concentración), "
                 "no ambos", "use --by (between and within groups) or --rank-by with --determinants "
                 "(concentration index), not both"),
    "no_mode": ("indique --by (p. ej. --by region) o --rank-by con --determinants",
                "give --by (e.g. --by region) or --rank-by with --determinants"),
    "need_rank": ("--determinants necesita --rank-by (la covariable que ordena las unidades)",
                  "--determinants needs --rank-by (the covariate that orders the units)"),
    "need_determinants": ("--rank-by necesita --determinants (p. ej. --determinants poverty,schooling)",
                          "--rank-by needs --determinants (e.g. --determinants poverty,schooling)"),
    "bad_bootstrap": ("--bootstrap debe ser 0 (sin IC) o un número positivo de réplicas, no {n}",
                      "--bootstrap must be 0 (no CIs) or a positive number of replicates, not {n}"),
    "few_replicates": ("--bootstrap {n} son muy pocas réplicas para un IC de {level} %",
                       "--bootstrap {n} is too few replicates for a {level} % CI"),
    "few_replicates_hint": ("use al menos --bootstrap {minimum} (1000 es lo habitual)",
                            "use at least --bootstrap {minimum} (1000 is usual)"),
    "bad_seed": ("--seed debe ser un entero no negativo, no {seed}", "--seed must be a non-negative whole number, "
                 "not {seed}"),
    "bad_change": ("--change espera dos años separados por coma (p. ej. 2001,2011), no '{text}'",
                   "--change expects two years separated by a comma (e.g. 2001,2011), not '{text}'"),
    "scale_line": ("Escala: ×{scale:g} ({other})", "Scale: ×{scale:g} ({other})"),
    "scale_1": ("--scale 1000 da la escala de WHO HEAT", "--scale 1000 gives WHO HEAT's scale"),
    "scale_1000": ("como WHO HEAT; --scale 1 da los índices sin escalar", "as WHO HEAT; --scale 1 gives the "
                   "indices unscaled"),
    "no_ci": ("Sin intervalos: use --bootstrap 1000 para obtenerlos", "No intervals: use --bootstrap 1000 to get "
              "them"),
})

GROUP_COLUMNS = ["period", "outcome", "measure", "component", "group", "estimate", "lower", "upper", "share"]
DETERMINANT_COLUMNS = ["period", "outcome", "term", "coefficient", "mean", "elasticity", "concentration_index",
                       "contribution", "percent", "lower", "upper"]


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("decompose", help=MSG("help"), description=MSG("help"))
    add_panel_argument(p)
    p.add_argument("--outcome", default="infant", help=MSG("outcome"))
    p.add_argument("--by", metavar="GROUPING", help=MSG("by"))
    p.add_argument("--measures", default="theil,mld,ge2,gini", help=MSG("measures"))
    p.add_argument("--scale", type=float, default=1.0, choices=[1.0, 1000.0], metavar="1|1000", help=MSG("scale"))
    p.add_argument("--smoothed", action="store_true", help=MSG("smoothed"))
    p.add_argument("--rank-by", dest="rank_by", metavar="COVARIATE", help=MSG("rank_by"))
    p.add_argument("--determinants", metavar="NAMES", help=MSG("determinants"))
    p.add_argument("--advantaged", choices=["high", "low"], default=None, help=MSG("advantaged"))
    p.add_argument("--bootstrap", type=int, default=0, metavar="N", help=MSG("bootstrap"))
    p.add_argument("--seed", type=int, default=20240601, help=MSG("seed"))
    p.add_argument("--conf-level", dest="conf_level", type=float, default=0.95, help=MSG("conf_level"))
    add_years_argument(p)
    p.add_argument("--pool", action="store_true", help=MSG("pool"))
    p.add_argument("--change", metavar="Y0,Y1", help=MSG("change"))
    add_region_argument(p)
    add_output_argument(p)
    p.set_defaults(func=run)


def _change(text):
    from ..errors import InputError

    if not text:
        return None
    parts = [t.strip() for t in str(text).split(",") if t.strip()]
    if len(parts) != 2 or not all(t.isdigit() for t in parts):
        raise InputError(MSG("bad_change", text=text), argument="change")
    return tuple(parts)


def run(args) -> int:
    from ..errors import InputError
    from ..inequality.bootstrap import minimum_replicates
    from ..intervals import check_conf_level
    from .common import load_region_subset
    from .rates import write_result

    if args.by and (args.rank_by or args.determinants):
        raise InputError(MSG("one_mode"))
    if not args.by and not args.rank_by and not args.determinants:
        raise InputError(MSG("no_mode"))
    if args.determinants and not args.rank_by:
        raise InputError(MSG("need_rank"))
    if args.rank_by and not args.determinants:
        raise InputError(MSG("need_determinants"))
    if args.bootstrap < 0:
        raise InputError(MSG("bad_bootstrap", n=args.bootstrap))
    if args.seed < 0:
        raise InputError(MSG("bad_seed", seed=args.seed))
    level = check_conf_level(args.conf_level)
    if 0 < args.bootstrap < minimum_replicates(level):
        raise InputError(MSG("few_replicates", n=args.bootstrap, level=f"{100 * level:g}"),
                         hint=MSG("few_replicates_hint", minimum=minimum_replicates(level)))
    change = _change(args.change)
    panel = load_region_subset(args)
    if args.by:
        from ..inequality.decompose_table import decompose

        table = decompose(panel, by=args.by, measures=args.measures, outcome=args.outcome, years=args.years,
                          pool=args.pool, bootstrap=args.bootstrap, seed=args.seed, conf_level=level,
                          smoothed=args.smoothed, scale=args.scale, change=change)
        print(MSG("scale_line", scale=args.scale, other=MSG("scale_1" if args.scale == 1 else "scale_1000")))
        first = GROUP_COLUMNS
    else:
        from ..inequality.ci_decompose import ci_decompose

        table = ci_decompose(panel, args.rank_by, args.determinants, outcome=args.outcome, years=args.years,
                             pool=args.pool, bootstrap=args.bootstrap, seed=args.seed, conf_level=level,
                             advantaged=args.advantaged, change=change)
        first = DETERMINANT_COLUMNS
    if not args.bootstrap:
        print(MSG("no_ci"))
    write_result(table, args, first)
    return 0
