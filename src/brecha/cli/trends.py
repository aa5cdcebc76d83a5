"""``brecha trends PANEL``: trend per unit (Prais-Winsten APC and class, or joinpoint segments and AAPC)."""
from __future__ import annotations

import warnings

from ..i18n import Catalog
from .trends_plot import MSG as PLOT_MSG
from .common import (add_output_argument, add_suppress_argument, add_panel_argument, add_region_argument, add_years_argument,
                     declare_outputs, load_region_subset, parse_years, prose_number, warn_missing_years)

# The output columns are a contract: these first, in this order.
CONTRACT = ["unit", "outcome", "n_years", "slope", "se", "p_value", "rho", "apc", "apc_lower", "apc_upper",
            "trend", "method"]
JOINPOINT_COLUMNS = ["row", "segment", "start_year", "end_year", "joinpoints"]
# the AAPC table written beside -o (OUT.aapc.csv) and the comparison table of --compare: contracts too
AAPC_COLUMNS = ["unit", "outcome", "start", "end", "aapc", "aapc_lower", "aapc_upper", "ci_method", "n_segments"]
COMPARE_COLUMNS = ["test", "unit_a", "unit_b", "statistic", "p_value", "method"]
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
    "selection_help": ("joinpoint: número de joinpoints por wbic (por defecto, como Joinpoint 5), bic, bic3 o "
                       "permutation (pruebas de Kim et al. 2000)",
                       "joinpoint: number of joinpoints by wbic (default, as Joinpoint 5), bic, bic3 or permutation "
                       "(Kim et al. 2000 tests)"),
    "continuous_help": ("joinpoint: puntos de cambio en cualquier lugar entre años (no solo en años con dato)",
                        "joinpoint: joinpoints anywhere between years (not only at data years)"),
    "min_end_help": ("joinpoint: mínimo de observaciones entre un joinpoint y cada extremo (2, como NCI)",
                     "joinpoint: fewest observations between a joinpoint and either end (2, as NCI)"),
    "min_between_help": ("joinpoint: mínimo de observaciones entre dos joinpoints (2, como NCI)",
                         "joinpoint: fewest observations between two joinpoints (2, as NCI)"),
    "aapc_ci_help": ("joinpoint: IC del AAPC: parametric (por defecto), empirical-quantile (remuestreo, "
                     "--resamples) o muggeo (con --continuous, por defecto entonces)",
                     "joinpoint: AAPC CI: parametric (default), empirical-quantile (resampling, --resamples) or "
                     "muggeo (with --continuous, then the default)"),
    "resamples_help": ("joinpoint: remuestreos del IC empirical-quantile (1000)",
                       "joinpoint: resamples of the empirical-quantile CI (1000)"),
    "compare_help": ("joinpoint: compara dos tendencias, A,B: códigos de unidad, o quintos q1,q5 con --rank-by; "
                     "pruebas de paralelismo y coincidencia por permutaciones; -o recibe esa tabla",
                     "joinpoint: compare two trends, A,B: unit codes, or fifths q1,q5 with --rank-by; permutation "
                     "tests of parallelism and coincidence; -o receives that table"),
    "rank_help": ("covariable que ordena las unidades en quintos de nacimientos para --compare q1,q5",
                  "covariate that ranks the units into fifths of births for --compare q1,q5"),
    "jump_help": ("joinpoint: estima un salto (razón de comparabilidad) desde ese año, p. ej. un cambio de "
                  "fuente; se escribe junto a -o como OUT.jump.csv",
                  "joinpoint: estimate a jump (comparability ratio) from that year, e.g. a change of source; "
                  "written beside -o as OUT.jump.csv"),
    "compare_summary": ("{a} frente a {b} ({first}-{last}, {k_a} y {k_b} joinpoints): paralelismo p = {p_par}, "
                        "coincidencia p = {p_coin} ({n} {n:permutación|permutaciones}, semilla {seed}); AAPC {a} "
                        "{aapc_a} %, "
                        "{b} {aapc_b} %; cambio anual de la razón de tasas {gap} %",
                        "{a} versus {b} ({first}-{last}, {k_a} and {k_b} joinpoints): parallelism p = {p_par}, "
                        "coincidence p = {p_coin} ({n} {n:permutation|permutations}, seed {seed}); AAPC {a} "
                        "{aapc_a} %, "
                        "{b} {aapc_b} %; annual change of the rate ratio {gap} %"),
    "jump_summary": ("salto en {year}: {n} {n:unidad|unidades} con estimación; razón de comparabilidad de {unit}: {cr} "
                     "(IC {lo} a {hi})",
                     "jump at {year}: {n} {n:unit|units} with an estimate; comparability ratio of {unit}: {cr} "
                     "(CI {lo} to {hi})"),
    "needs_joinpoint": ("{option} es una opción de --method joinpoint", "{option} is an option of --method joinpoint"),
    "needs_joinpoint_hint": ("agregue --method joinpoint", "add --method joinpoint"),
    "rank_needs_compare": ("--rank-by forma los quintos de --compare q1,q5: agregue --compare",
                           "--rank-by forms the fifths of --compare q1,q5: add --compare"),
    "not_with_compare": ("{option} no se combina con --compare (cuya tabla recibe -o)",
                         "{option} does not go with --compare (whose table -o receives)"),
    "family_alone": ("{option} usa el ajuste de mínimos cuadrados: no con --family poisson",
                     "{option} uses the least-squares fit: not with --family poisson"),
    "saved_extra": ("Guardado: {path}", "Saved: {path}"),
    "family_help": ("joinpoint: gaussian (mínimos cuadrados del log de la tasa, por defecto) o poisson (conteos "
                    "con los nacimientos como offset: los años sin muertes no necesitan 0,5)",
                    "joinpoint: gaussian (least squares on the log rate, default) or poisson (counts with the "
                    "births as offset: years without deaths need no 0.5)"),
    "weights_help": ("joinpoint: pesos de Poisson (peso = defunciones)", "joinpoint: Poisson weights (weight = deaths)"),
    "permutations_help": ("joinpoint: número de permutaciones (4499, como NCI)",
                          "joinpoint: number of permutations (4499, as NCI)"),
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
    "summary": ("{units} {units:unidad|unidades} ({method}): {decreasing} {l_decreasing}{decreasing:|s}, {increasing} "
                "{l_increasing}{increasing:|s}, {stationary} {l_stationary}{stationary:|s}, {sparse} sin clasificar "
                "por escasez de muertes, {missing} sin estimación (alpha {alpha})",
                "{units} {units:unit|units} ({method}): {decreasing} {l_decreasing}, {increasing} {l_increasing}, "
                "{stationary} {l_stationary}, {sparse} not classified for lack of deaths, {missing} without "
                "estimate (alpha {alpha})"),
    "zero_summary": ("Regla para años sin muertes: {rule}; {count} {count:unidad|unidades} con al menos un año sin "
                     "muertes; {sparse} con más de {share} % de años sin muertes {sparse:queda|quedan} sin clase",
                     "Rule for years without deaths: {rule}; {count} {count:unit|units} with at least one year without "
                     "deaths; {sparse} with more than {share} % of years without deaths {sparse:gets|get} no class"),
    "jp_basis": ("clase de cada unidad según el AAPC", "class of each unit from its AAPC"),
    "seed": ("semilla {seed}, {n} {n:permutación|permutaciones}", "seed {seed}, {n} {n:permutation|permutations}"),
})


def add_parser(subparsers) -> None:
    from .choices import RHO_METHODS, ZERO_RULES

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
    p.add_argument("--selection", choices=["wbic", "bic", "bic3", "permutation"], default="wbic",
                   help=MSG("selection_help"))
    p.add_argument("--continuous", action="store_true", help=MSG("continuous_help"))
    p.add_argument("--min-end", type=int, default=2, help=MSG("min_end_help"))
    p.add_argument("--min-between", type=int, default=2, help=MSG("min_between_help"))
    p.add_argument("--aapc-ci", choices=["parametric", "empirical-quantile", "muggeo"], help=MSG("aapc_ci_help"))
    p.add_argument("--resamples", type=int, default=1000, help=MSG("resamples_help"))
    p.add_argument("--compare", metavar="A,B", help=MSG("compare_help"))
    p.add_argument("--rank-by", metavar="COVARIATE", help=MSG("rank_help"))
    p.add_argument("--jump-year", type=int, metavar="YEAR", help=MSG("jump_help"))
    p.add_argument("--plot", metavar="FILE", help=PLOT_MSG("plot_help"))
    p.add_argument("--weights", choices=["poisson"], help=MSG("weights_help"))
    p.add_argument("--family", choices=["gaussian", "poisson"], default="gaussian", help=MSG("family_help"))
    p.add_argument("--permutations", type=int, default=4499, help=MSG("permutations_help"))
    p.add_argument("--seed", type=int, default=2024, help=MSG("seed_help"))
    p.add_argument("--aapc-years", type=parse_years, help=MSG("aapc_help"))
    p.add_argument("--all-columns", action="store_true", help=MSG("all_help"))
    add_output_argument(p)
    add_suppress_argument(p)
    declare_outputs(p, companions=companions)
    p.set_defaults(func=run)


def sibling(out: str, suffix: str):
    """OUT.<suffix>.csv beside -o (``results.csv`` -> ``results.aapc.csv``; always CSV, as the contract says)."""
    from pathlib import Path

    path = Path(out)
    return path.with_name(f"{path.stem}.{suffix}.csv")


def companions(out: str) -> list:
    """The files that may be written beside -o: the AAPC table (joinpoint) and the jump table (--jump-year)."""
    return [sibling(out, "aapc"), sibling(out, "jump")]


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
                                   ("--min-end", args.min_end, 1),
                                   ("--min-between", args.min_between, 1),
                                   ("--resamples", args.resamples, 10),
                                   ("--seed", args.seed, 0)):  # numpy: "expected non-negative integer"
        if value < minimum:  # caught here: the estimators would fail with a numpy error
            raise InputError(MSG("bad_count", option=option, minimum=minimum, value=value))
    if args.method != "joinpoint":
        for option, given in (("--compare", args.compare), ("--jump-year", args.jump_year),
                              ("--continuous", args.continuous), ("--aapc-ci", args.aapc_ci),
                              ("--rank-by", args.rank_by), ("--family", args.family != "gaussian"),
                              ("--plot", args.plot)):
            if given:
                raise InputError(MSG("needs_joinpoint", option=option), hint=MSG("needs_joinpoint_hint"))
    if args.rank_by and not args.compare:
        raise InputError(MSG("rank_needs_compare"), argument="rank_by")
    if args.compare:  # -o receives the tests' table: the options of the per-unit table do not apply
        for option, given in (("--jump-year", args.jump_year is not None), ("--aapc-ci", args.aapc_ci),
                              ("--plot", args.plot), ("--all-columns", args.all_columns)):
            if given:
                raise InputError(MSG("not_with_compare", option=option), argument="compare")
    if args.family != "gaussian" and (args.compare or args.jump_year is not None):
        raise InputError(MSG("family_alone", option="--compare" if args.compare else "--jump-year"),
                         argument="family")
    if args.plot:
        from .trends_plot import check_plot

        check_plot(args.plot, args.family)
    if args.compare:
        return _run_compare(args)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # panel warnings are shown by `brecha panel`
        panel = load_region_subset(args)
    warn_missing_years(panel, args.years)  # not a panel warning: about what was asked
    fits = {} if args.plot else None  # the fits behind the table's rows, for --plot
    result = trends(panel, outcome=args.outcome, years=args.years, method=args.method, rho=args.rho,
                    zero=args.zero, alpha=args.alpha, level=args.level, df=args.df, min_years=args.min_years,
                    iterate=not args.two_step, max_joinpoints=args.max_joinpoints, selection=args.selection,
                    weights=args.weights, n_permutations=args.permutations, seed=args.seed,
                    aapc_years=(args.aapc_years[0], args.aapc_years[-1]) if args.aapc_years else None,
                    max_zero_share=args.max_zero_share, incomplete=args.incomplete, continuous=args.continuous,
                    min_end=args.min_end, min_between=args.min_between, aapc_ci=args.aapc_ci,
                    n_resamples=args.resamples, family=args.family, fits=fits)
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
    jump = _jump_table(args) if args.jump_year is not None else None
    if args.plot:
        from .trends_plot import write_plot

        write_plot(args, panel, result, fits)
    if args.method != "joinpoint" or not getattr(args, "output", None):
        write_result(table, args, list(table.columns))  # notes printed as everywhere; .xlsx: a 'notes' sheet
        if jump is not None:
            print(jump.to_string(index=False, max_rows=60))
        return 0
    from ..io import write_table
    from ..outputs import together

    aapc = aapc_table(result)
    with together():  # the unit rows, their AAPC table (and the jump table) appear together or not at all
        write_result(table, args, list(table.columns))
        extra = [write_table(aapc, sibling(args.output, "aapc"))]
        if jump is not None:
            extra.append(write_table(jump, sibling(args.output, "jump")))
    for path in extra:
        print(MSG("saved_extra", path=path))
    return 0


def aapc_table(result):
    """OUT.aapc.csv: one row per unit (``AAPC_COLUMNS`` then ``p_value, se, selection, joinpoints``);
    units without an estimate keep their row, empty, so every unit is accounted for."""
    rows = result[result["row"].isin(["aapc", "unit"])]
    out = rows.rename(columns={"apc": "aapc", "apc_lower": "aapc_lower", "apc_upper": "aapc_upper"})
    out = out.assign(start=out["start_year"], end=out["end_year"],
                     n_segments=(out["n_joinpoints"] + 1).astype("Int64"))
    extra = [c for c in ("p_value", "se", "trend", "selection", "joinpoints", "name", "note") if c in out.columns]
    return out[AAPC_COLUMNS + extra].reset_index(drop=True)


def _jump_table(args):
    from ..trends.joinpoint_jump import jumps

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        panel = load_region_subset(args)
    table = jumps(panel, args.jump_year, outcome=args.outcome, years=args.years, level=args.level,
                  incomplete=args.incomplete, zero=args.zero, alpha=args.alpha, min_years=max(args.min_years, 5),
                  max_joinpoints=args.max_joinpoints, selection=args.selection, weights=args.weights,
                  min_end=args.min_end, min_between=args.min_between, continuous=args.continuous)
    done = table.dropna(subset=["comparability_ratio"])
    if len(done):
        first = done.iloc[0]
        print(MSG("jump_summary", year=args.jump_year, n=len(done), unit=first["unit"],
                  cr=prose_number(round(float(first["comparability_ratio"]), 3)),
                  lo=prose_number(round(float(first["cr_lower"]), 3)), hi=prose_number(round(float(first["cr_upper"]), 3))))
    return table


def _run_compare(args) -> int:
    """--compare A,B: the comparability tests; -o receives their table (``COMPARE_COLUMNS`` first)."""
    from ..trends.compare_panel import compare_trends, parse_pair
    from .rates import write_result

    a, b = parse_pair(args.compare)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        panel = load_region_subset(args)
    warn_missing_years(panel, args.years)
    table = compare_trends(panel, a, b, outcome=args.outcome, years=args.years, level=args.level,
                           rank_by=args.rank_by, incomplete=args.incomplete, selection=args.selection,
                           max_joinpoints=args.max_joinpoints, weights=args.weights, zero=args.zero,
                           n_permutations=args.permutations, seed=args.seed, min_end=args.min_end,
                           min_between=args.min_between, continuous=args.continuous, alpha=args.alpha,
                           min_years=max(args.min_years, 5))
    by = table.set_index("test")
    print(MSG("compare_summary", a=a, b=b, first=int(table["first_year"].iloc[0]),
              last=int(table["last_year"].iloc[0]), k_a=int(table["k_a"].iloc[0]), k_b=int(table["k_b"].iloc[0]),
              p_par=prose_number(round(float(by.loc["parallelism", "p_value"]), 4)),
              p_coin=prose_number(round(float(by.loc["coincidence", "p_value"]), 4)), n=args.permutations,
              seed=args.seed, aapc_a=prose_number(round(float(table["aapc_a"].iloc[0]), 2)),
              aapc_b=prose_number(round(float(table["aapc_b"].iloc[0]), 2)),
              gap=prose_number(round(float(table["gap_apc"].iloc[0]), 2))))
    write_result(table, args, COMPARE_COLUMNS)
    return 0
