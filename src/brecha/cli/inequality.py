"""``brecha inequality``: summary measures of inequality between all units, per year or pooled."""
from __future__ import annotations

from ..i18n import Catalog
from .common import (add_output_argument, add_suppress_argument, add_panel_argument, add_region_argument, add_years_argument,
                     load_region_subset, print_notes, write_output)

# The output columns are a contract (issue 5): these first, in this order.
CONTRACT = ["period", "outcome", "measure", "estimate", "lower", "upper", "se", "method"]

MSG = Catalog({
    "help": ("medidas resumen de desigualdad entre todas las unidades (OMS, Gini, concentración)",
             "summary measures of inequality between all units (WHO, Gini, concentration)"),
    "outcome": ("resultado: infant, neonatal o postneonatal", "outcome: infant, neonatal or postneonatal"),
    "rank_by": ("covariable que ordena las unidades (p. ej. poverty); activa ACI, RCI, SII, RII",
                "covariate that orders the units (e.g. poverty); enables ACI, RCI, SII, RII"),
    "advantaged": ("qué extremo de la covariable es el aventajado: high (ingreso) o low (pobreza); por defecto "
                   "low para pobreza, distancia, ruralidad, gini, y high para las demás",
                   "which end of the covariate is better off: high (income) or low (poverty); by default low "
                   "for poverty, distance, rurality, gini, high otherwise"),
    "groups": ("número de grupos cuantiles (p. ej. 5 = quintiles de nacimientos); sin él, cada unidad",
               "number of quantile groups (e.g. 5 = quintiles of births); without it, each unit"),
    "measures": ("medidas: all, who, extra o una lista separada por comas (d,r,sii,...)",
                 "measures: all, who, extra or a comma-separated list (d,r,sii,...)"),
    "reference": ("unidad(es) de referencia (códigos separados por comas) o número de grupo",
                  "reference unit(s) (comma-separated codes) or group number"),
    "favourable": ("el indicador es favorable (por defecto: adverso, como la mortalidad)",
                   "the indicator is favourable (default: adverse, like mortality)"),
    "bootstrap": ("réplicas bootstrap (0 = IC analíticos)", "bootstrap replicates (0 = analytic CIs)"),
    "seed": ("semilla del bootstrap", "bootstrap seed"),
    "draws": ("cómo se re-sortean las defunciones dados los nacimientos", "how deaths are redrawn given births"),
    "bootstrap_ci": ("intervalo bootstrap: percentile o basic (percentil inverso)",
                     "bootstrap interval: percentile or basic (reverse percentile)"),
    "conf_level": ("nivel de confianza", "confidence level"),
    "pool": ("sumar los años en un solo período", "sum the years into one period"),
    "covariate": ("medir la desigualdad de esta covariable entre unidades en vez de la del resultado (p. ej. "
                  "health_spending_pc, que brecha agrega para Chile y Brasil)",
                  "measure the inequality of this covariate between units instead of the outcome's (e.g. "
                  "health_spending_pc, which brecha attaches for Chile and Brazil)"),
    "weight": ("peso de cada unidad para --covariate: none (cada unidad igual), population, births u otra columna",
               "weight of each unit for --covariate: none (every unit the same), population, births or another "
               "column"),
    "comovement": ("con --covariate: correlación entre años (Pearson y Spearman, IC de Fisher) de la desigualdad "
                   "del resultado y la de la covariable, medida por medida (por defecto gini, cov, ti, idisw)",
                   "with --covariate: correlation over years (Pearson and Spearman, Fisher CIs) between the "
                   "inequality of the outcome and that of the covariate, measure by measure (default gini, cov, "
                   "ti, idisw)"),
    "ignored": ("con --covariate no se usan: {flags} (los valores de la covariable se toman como exactos)",
                "not used with --covariate: {flags} (covariate values are taken as exact)"),
    "bad_bootstrap": ("--bootstrap debe ser 0 (IC analíticos) o un número positivo de réplicas, no {n}",
                      "--bootstrap must be 0 (analytic CIs) or a positive number of replicates, not {n}"),
    "few_replicates": ("--bootstrap {n} son muy pocas réplicas para un IC de {level} % (cada límite descansaría en "
                       "menos de 5 réplicas)", "--bootstrap {n} is too few replicates for a {level} % CI (each limit "
                       "would rest on fewer than 5 replicates)"),
    "few_replicates_hint": ("use --bootstrap 0 (IC analíticos) o al menos --bootstrap {minimum} (1000 o más es lo "
                            "habitual)", "use --bootstrap 0 (analytic CIs) or at least --bootstrap {minimum} (1000 or "
                            "more is usual)"),
    "need_covariate": ("--comovement y --weight requieren --covariate", "--comovement and --weight need --covariate"),
    "comovement_hint": ("p. ej. brecha inequality --example chile --covariate health_spending_pc --comovement",
                        "e.g. brecha inequality --example chile --covariate health_spending_pc --comovement"),
    "no_common": ("ninguna de las medidas pedidas se aplica a la vez al resultado y a la covariable: {names}",
                  "none of the measures asked for applies to both the outcome and the covariate: {names}"),
    "common_hint": ("use algunas de: {names}", "use some of: {names}"),
})

# Scale-free measures: a covariate in nominal money (health spending) trends with inflation, and an
# absolute measure of it would co-move with anything that trends.
COMOVEMENT_MEASURES = "gini,cov,ti,idisw"


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("inequality", help=MSG("help"), description=MSG("help"))
    add_panel_argument(p)
    p.add_argument("--outcome", default="infant", help=MSG("outcome"))
    p.add_argument("--rank-by", dest="rank_by", metavar="COVARIATE", help=MSG("rank_by"))
    p.add_argument("--advantaged", choices=["high", "low"], default=None, help=MSG("advantaged"))
    p.add_argument("--groups", type=int, help=MSG("groups"))
    p.add_argument("--measures", default="all", help=MSG("measures"))
    p.add_argument("--reference", help=MSG("reference"))
    p.add_argument("--favourable", action="store_true", help=MSG("favourable"))
    p.add_argument("--bootstrap", type=int, default=0, metavar="N", help=MSG("bootstrap"))
    p.add_argument("--seed", type=int, default=20240601, help=MSG("seed"))
    p.add_argument("--draws", choices=["poisson", "binomial"], default="poisson", help=MSG("draws"))
    p.add_argument("--bootstrap-ci", dest="bootstrap_ci", choices=["percentile", "basic"], default="percentile",
                   help=MSG("bootstrap_ci"))
    p.add_argument("--conf-level", dest="conf_level", type=float, default=0.95, help=MSG("conf_level"))
    add_years_argument(p)
    p.add_argument("--pool", action="store_true", help=MSG("pool"))
    add_region_argument(p)
    p.add_argument("--covariate", metavar="NAME", help=MSG("covariate"))
    p.add_argument("--weight", metavar="WEIGHT", help=MSG("weight"))
    p.add_argument("--comovement", action="store_true", help=MSG("comovement"))
    add_output_argument(p)
    add_suppress_argument(p)
    p.set_defaults(func=run)


def write_result(table, args, first) -> None:
    """Print the data's caveats like every command, then write (an .xlsx gets them in a 'notes' sheet)."""
    from .rates import write_result as write_with_notes

    write_with_notes(table, args, first)


def run(args) -> int:
    from ..errors import InputError
    from ..inequality import inequality

    from ..inequality.bootstrap import minimum_replicates
    from ..intervals import check_conf_level

    if args.bootstrap < 0:
        raise InputError(MSG("bad_bootstrap", n=args.bootstrap))
    level = check_conf_level(args.conf_level)
    if 0 < args.bootstrap < minimum_replicates(level) and not args.covariate:
        raise InputError(MSG("few_replicates", n=args.bootstrap, level=f"{100 * level:g}"),
                         hint=MSG("few_replicates_hint", minimum=minimum_replicates(level)))
    if (args.comovement or args.weight) and not args.covariate:
        raise InputError(MSG("need_covariate"), hint=MSG("comovement_hint"))
    panel = load_region_subset(args)
    if args.covariate:
        return _covariate(panel, args)
    reference = None
    if args.reference:
        parts = [r.strip() for r in args.reference.split(",") if r.strip()]
        if not args.groups:  # unit codes written as the country writes them (7-digit IBGE, 4-digit CUT)
            parts = _as_panel_codes(panel, parts)
        reference = parts[0] if len(parts) == 1 else parts
    result = inequality(panel, outcome=args.outcome, years=args.years, pool=args.pool, rank_by=args.rank_by,
                        groups=args.groups, measures=args.measures, reference=reference,
                        bootstrap=args.bootstrap, seed=args.seed, conf_level=args.conf_level,
                        favourable=args.favourable, advantaged=args.advantaged, draws=args.draws,
                        bootstrap_ci=args.bootstrap_ci)
    write_result(result, args, CONTRACT)
    return 0


def _as_panel_codes(panel, codes: list[str]) -> list[str]:
    """Reference codes as the panel writes them, as `brecha disparity --reference` reads them: a Brazilian
    7-digit IBGE code (3550308) is the registry's 6-digit one (355030), a Chilean 4-digit code (9101) gets
    its leading zero back. Codes already in the panel, and codes the registry cannot read, stay as given."""
    import pandas as pd

    known = set(panel.unit_codes)
    registry = getattr(panel, "registry", None)
    out = []
    for code in codes:
        if code not in known and registry is not None:
            try:
                normal = str(registry.normalise_codes(pd.Series([code], dtype=str)).iloc[0])
            except Exception:  # not a code of that country: the analysis names it in its error
                normal = code
            code = normal if normal in known else code
        out.append(code)
    return out


def _covariate(panel, args) -> int:
    """--covariate: the covariate's inequality per year; with --comovement, its correlation over years
    with the outcome's inequality (measure by measure). An .xlsx output gets all three tables."""
    from ..errors import InputError
    from ..inequality import comovement, covariate_inequality, inequality
    from ..inequality.covariates import COVARIATE_MEASURES

    from ..errors import warn

    ignored = [flag for flag, used in (("--rank-by", args.rank_by), ("--groups", args.groups),
                                       ("--reference", args.reference), ("--bootstrap", args.bootstrap),
                                       ("--pool", args.pool and args.comovement)) if used]
    if ignored:
        warn(MSG("ignored", flags=", ".join(ignored)))
    weight = None if args.weight in (None, "none") else args.weight
    if not args.comovement:
        table = covariate_inequality(panel, args.covariate, weight=weight, years=args.years,
                                     measures=args.measures, pool=args.pool)
        write_result(table, args, CONTRACT)
        return 0
    from ..inequality import parse_measures

    asked = parse_measures(COMOVEMENT_MEASURES if args.measures == "all" else args.measures)
    names = [m for m in asked if m in COVARIATE_MEASURES and m != "mean"]
    if not names:
        raise InputError(MSG("no_common", names=", ".join(asked)),
                         hint=MSG("common_hint", names=", ".join(m for m in COVARIATE_MEASURES if m != "mean")))
    money = covariate_inequality(panel, args.covariate, weight=weight, years=args.years, measures=names)
    years = args.years or sorted({int(p) for p in money["period"]})
    outcome = inequality(panel, outcome=args.outcome, years=years, measures=names, favourable=args.favourable,
                         conf_level=args.conf_level)
    table = comovement(outcome, money, conf_level=args.conf_level, pairs="same")
    table.insert(0, "outcome", outcome["outcome"].iloc[0] if len(outcome) else args.outcome)
    table.insert(1, "covariate", args.covariate)
    table.insert(2, "weight", weight or "none")
    print_notes(outcome.attrs.get("notes") or money.attrs.get("notes") or [])
    write_output(table, args, sheets={"comovement": table, "outcome": outcome, "covariate": money})
    return 0
