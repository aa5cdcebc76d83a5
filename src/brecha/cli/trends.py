"""``brecha trends PANEL``: trend per unit (Prais-Winsten APC and class, or joinpoint segments and AAPC)."""
from __future__ import annotations

import warnings

from ..i18n import Catalog
from .common import (add_output_argument, add_panel_argument, add_region_argument, add_years_argument,
                     load_region_subset, parse_years, prose_number, warn_missing_years)

# The output columns are a contract: these first, in this order.
CONTRACT = ["unit", "outcome", "n_years", "slope", "se", "p_value", "rho", "apc", "apc_lower", "apc_upper",
            "trend", "method"]
JOINPOINT_COLUMNS = ["row", "segment", "start_year", "end_year", "joinpoints"]
# `period` (the years asked, e.g. "2005-2014") as in the rates, disparity and inequality tables, so results
# of several commands join on (unit, period, outcome).
FLAG_COLUMNS = ["trend_label", "name", "period", "first_year", "last_year", "zero_rule", "zero_years", "sparse",
                "note"]

MSG = Catalog({
    "help": ("tendencia por unidad: Prais-Winsten (VPA) o joinpoint",
             "trend per unit: Prais-Winsten (APC) or joinpoint"),
    "outcome_help": ("resultado: infant (por defecto), neonatal, postneonatal",
                     "outcome: infant (default), neonatal, postneonatal"),
    "method_help": ("método: prais-winsten (por defecto) o joinpoint", "method: prais-winsten (default) or joinpoint"),
    "rho_help": ("cálculo de rho de Prais-Winsten (regress por defecto, como Stata y R prais)",
                 "Prais-Winsten rho rule (regress by default, as Stata and R prais)"),
    "zero_help": ("años sin muertes: add-half suma 0,5 (por defecto), pool-years agrupa años, skip omite la unidad",
                  "years without deaths: add-half adds 0.5 (default), pool-years pools years, skip leaves the unit out"),
    "level_help": ("agregar antes a province, region o country", "aggregate first to province, region or country"),
    "alpha_help": ("nivel de significación para clasificar (0,05 por defecto); IC al 1-alpha",
                   "significance level of the class (default 0.05); CI at 1-alpha"),
    "df_help": ("grados de libertad de la t: n-2 (por defecto) o n-1", "degrees of freedom of the t: n-2 (default) or n-1"),
    "min_years_help": ("mínimo de años utilizables por unidad (3 por defecto)", "minimum usable years per unit (default 3)"),
    "two_step_help": ("Prais-Winsten en dos etapas (sin iterar rho)", "two-step Prais-Winsten (rho not iterated)"),
    "max_jp_help": ("joinpoint: máximo de puntos de cambio (2 por defecto)", "joinpoint: most joinpoints (default 2)"),
    "selection_help": ("joinpoint: selección por bic (por defecto) o permutation",
                       "joinpoint: selection by bic (default) or permutation"),
    "weights_help": ("joinpoint: pesos de Poisson (peso = defunciones)", "joinpoint: Poisson weights (weight = deaths)"),
    "permutations_help": ("joinpoint: número de permutaciones (999)", "joinpoint: number of permutations (999)"),
    "conf_help": ("nivel de confianza del IC del VPA, como en los demás comandos (equivale a --alpha 1-NIVEL)",
                  "confidence level of the APC CI, as in the other commands (same as --alpha 1-LEVEL)"),
    "alpha_and_conf": ("--alpha {alpha} y --conf-level {level} no concuerdan", "--alpha {alpha} and --conf-level "
                       "{level} disagree"),
    "bad_conf": ("el nivel de confianza debe estar entre 0 y 1, no {value}", "the confidence level must be "
                 "between 0 and 1, not {value}"),
    "bad_count": ("{option} debe ser un entero >= {minimum}, no {value}",
                  "{option} must be a whole number >= {minimum}, not {value}"),
    "alpha_and_conf_hint": ("indique solo uno de los dos", "give only one of them"),
    "seed_help": ("semilla de las permutaciones", "seed of the permutations"),
    "aapc_help": ("joinpoint: periodo del AAPC, p. ej. 2010-2015 (todo el periodo por defecto)",
                  "joinpoint: AAPC period, e.g. 2010-2015 (whole period by default)"),
    "all_help": ("todas las columnas (gl, t, Durbin-Watson, iteraciones, ...)",
                 "all columns (df, t, Durbin-Watson, iterations, ...)"),
    "zero_share_help": ("proporción máxima de años sin muertes para clasificar una unidad (0,5 por defecto); "
                        "por encima se dan las estimaciones sin clase",
                        "largest share of years without deaths for a unit to be classified (default 0.5); above it "
                        "the estimates are given without a class"),
    "incomplete_help": ("con --level: sum suma las unidades con dato y lo anota (por defecto); drop omite el año "
                        "si falta alguna unidad",
                        "with --level: sum adds up the units with data and notes it (default); drop leaves the year "
                        "out when any unit is missing"),
    "summary": ("{units} unidades ({method}): {decreasing} {l_decreasing}s, {increasing} {l_increasing}s, "
                "{stationary} {l_stationary}s, {sparse} sin clasificar por escasez de muertes, {missing} sin "
                "estimación (alpha {alpha})",
                "{units} units ({method}): {decreasing} {l_decreasing}, {increasing} {l_increasing}, "
                "{stationary} {l_stationary}, {sparse} not classified for lack of deaths, {missing} without "
                "estimate (alpha {alpha})"),
    "zero_summary": ("Regla para años sin muertes: {rule}; {count} unidades con al menos un año sin muertes; "
                     "{sparse} con más de {share} % de años sin muertes quedan sin clase",
                     "Rule for years without deaths: {rule}; {count} units with at least one year without deaths; "
                     "{sparse} with more than {share} % of years without deaths get no class"),
    "jp_basis": ("clase de cada unidad según el AAPC", "class of each unit from its AAPC"),
    "seed": ("semilla {seed}, {n} permutaciones", "seed {seed}, {n} permutations"),
})


def add_parser(subparsers) -> None:
    from ..trends import RHO_METHODS, ZERO_RULES

    p = subparsers.add_parser("trends", help=MSG("help"), description=MSG("help"))
    add_panel_argument(p)
    p.add_argument("--outcome", default="infant", help=MSG("outcome_help"))
    add_years_argument(p)
    p.add_argument("--method", choices=["prais-winsten", "joinpoint"], default="prais-winsten",
                   help=MSG("method_help"))
    p.add_argument("--rho", choices=list(RHO_METHODS), default="regress", help=MSG("rho_help"))
    p.add_argument("--zero", choices=list(ZERO_RULES), default="add-half", help=MSG("zero_help"))
    p.add_argument("--level", choices=["province", "region", "country"], help=MSG("level_help"))
    add_region_argument(p)
    p.add_argument("--alpha", type=float, default=None, help=MSG("alpha_help"))
    p.add_argument("--conf-level", type=float, default=None, help=MSG("conf_help"))
    p.add_argument("--df", choices=["n-2", "n-1"], default="n-2", help=MSG("df_help"))
    p.add_argument("--min-years", type=int, default=3, help=MSG("min_years_help"))
    p.add_argument("--max-zero-share", type=float, default=0.5, help=MSG("zero_share_help"))
    p.add_argument("--incomplete", choices=["sum", "drop"], default="sum", help=MSG("incomplete_help"))
    p.add_argument("--two-step", action="store_true", help=MSG("two_step_help"))
    p.add_argument("--max-joinpoints", type=int, default=2, help=MSG("max_jp_help"))
    p.add_argument("--selection", choices=["bic", "permutation"], default="bic", help=MSG("selection_help"))
    p.add_argument("--weights", choices=["poisson"], help=MSG("weights_help"))
    p.add_argument("--permutations", type=int, default=999, help=MSG("permutations_help"))
    p.add_argument("--seed", type=int, default=2024, help=MSG("seed_help"))
    p.add_argument("--aapc-years", type=parse_years, help=MSG("aapc_help"))
    p.add_argument("--all-columns", action="store_true", help=MSG("all_help"))
    add_output_argument(p)
    p.set_defaults(func=run)


def _alpha(args) -> float:
    """--alpha, or 1 - --conf-level (the option the other commands take); 0.05 by default."""
    from ..errors import InputError

    if args.conf_level is None:
        return 0.05 if args.alpha is None else args.alpha
    if not 0 < args.conf_level < 1:
        from ..intervals import conf_level_hint

        raise InputError(MSG("bad_conf", value=args.conf_level), hint=conf_level_hint(args.conf_level),
                         argument="conf_level")
    from_level = round(1 - args.conf_level, 12)
    if args.alpha is not None and abs(args.alpha - from_level) > 1e-12:
        raise InputError(MSG("alpha_and_conf", alpha=args.alpha, level=args.conf_level),
                         hint=MSG("alpha_and_conf_hint"))
    return from_level


def run(args) -> int:
    from ..trends import trend_label, trend_labels, trends

    from ..errors import InputError

    args.alpha = _alpha(args)
    for option, value, minimum in (("--permutations", args.permutations, 1),
                                   ("--max-joinpoints", args.max_joinpoints, 0),
                                   ("--min-years", args.min_years, 2),
                                   ("--seed", args.seed, 0)):  # numpy: "expected non-negative integer"
        if value < minimum:  # caught here: the estimators would fail with a numpy error
            raise InputError(MSG("bad_count", option=option, minimum=minimum, value=value))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # panel warnings are shown by `brecha panel`
        panel = load_region_subset(args)
    warn_missing_years(panel, args.years)  # not a panel warning: about what was asked
    result = trends(panel, outcome=args.outcome, years=args.years, method=args.method, rho=args.rho,
                    zero=args.zero, alpha=args.alpha, level=args.level, df=args.df, min_years=args.min_years,
                    iterate=not args.two_step, max_joinpoints=args.max_joinpoints, selection=args.selection,
                    weights=args.weights, n_permutations=args.permutations, seed=args.seed,
                    aapc_years=(args.aapc_years[0], args.aapc_years[-1]) if args.aapc_years else None,
                    max_zero_share=args.max_zero_share, incomplete=args.incomplete)
    result.insert(result.columns.get_loc("method") + 1, "trend_label", result["trend"].map(trend_label))
    for col in ("start_year", "end_year"):  # years are whole numbers in every table (2005, not 2005.0)
        if col in result.columns:
            values = result[col].astype("float64")
            if ((values % 1 == 0) | values.isna()).all():
                result[col] = values.astype("Int64")
    if args.all_columns:
        table = result
    else:
        extra = JOINPOINT_COLUMNS if args.method == "joinpoint" else []
        table = result[CONTRACT + extra + [c for c in FLAG_COLUMNS if c in result.columns]]
    per_unit = result if args.method != "joinpoint" else result[result["row"].isin(["aapc", "unit"])]
    counts = per_unit["trend"].value_counts()
    sparse = int(per_unit["sparse"].sum())
    labels = {f"l_{code}": label for code, label in trend_labels().items()}
    print(MSG("summary", units=len(per_unit), method=args.method, decreasing=int(counts.get("decreasing", 0)),
              increasing=int(counts.get("increasing", 0)), stationary=int(counts.get("stationary", 0)),
              sparse=sparse, missing=int(per_unit["trend"].isna().sum()) - sparse, alpha=prose_number(args.alpha), **labels)
          + (f" ({MSG('jp_basis')})" if args.method == "joinpoint" else "")
          + (f"; {MSG('seed', seed=args.seed, n=args.permutations)}"
             if args.method == "joinpoint" and args.selection == "permutation" else ""))
    zero_units = per_unit.loc[per_unit["zero_years"] > 0, "unit"].nunique()
    print(MSG("zero_summary", rule=args.zero, count=zero_units, sparse=sparse,
              share=f"{100 * args.max_zero_share:g}"))
    from .rates import write_result

    table.attrs["notes"] = list(result.attrs.get("notes") or [])
    write_result(table, args, list(table.columns))  # notes printed as everywhere; .xlsx: a 'notes' sheet
    return 0
