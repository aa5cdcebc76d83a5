"""``brecha models PANEL``: panel and count models of a mortality rate on commune characteristics.

Writes the coefficient table to ``-o OUT`` (``model, term, estimate, se, statistic, p_value, lower,
upper`` first), the tests table next to it (``OUT`` with suffix ``.tests``: ``test, statistic, df,
p_value``) and the notes (``.notes``: rows used, covariate sources and filling rules); an ``.xlsx``
output gets the three as sheets. The readable summary goes to the screen.
"""
from __future__ import annotations

from pathlib import Path

from ..errors import InputError
from ..i18n import Catalog, get_language
from .common import (add_output_argument, add_suppress_argument, add_panel_argument, add_region_argument,
                     add_years_argument, declare_outputs, load_region_subset, write_output)

MSG = Catalog({
    "help": ("modelos de panel (EF, EA, Hausman) y de conteo de la mortalidad sobre covariables",
             "panel (FE, RE, Hausman) and count models of mortality on covariates"),
    "outcome_help": ("resultado: imr/infant, neonatal o postneonatal (tasa por 1.000)",
                     "outcome: imr/infant, neonatal or postneonatal (rate per 1,000)"),
    "covariates_help": ("covariables separadas por comas (columnas del panel, o de Chile: poverty, poverty_new, "
                        "poverty_multidimensional, health_spending_pc, schooling, sapu, distance_hospital_km; "
                        "Brasil: health_spending_pc, poverty, income_pc, gini)",
                        "comma-separated covariates (panel columns, or for Chile: poverty, poverty_new, "
                        "poverty_multidimensional, health_spending_pc, schooling, sapu, distance_hospital_km; "
                        "Brazil: health_spending_pc, poverty, income_pc, gini)"),
    "models_help": ("modelos separados por comas: pooled, fe, fe2, re, between, fd, cre, poisson, negbin, "
                    "poisson_fe, poisson_re, negbin_fe (por defecto pooled,fe,re)",
                    "comma-separated models: pooled, fe, fe2, re, between, fd, cre, poisson, negbin, poisson_fe, "
                    "poisson_re, negbin_fe (default pooled,fe,re)"),
    "se_help": ("errores estándar: unadjusted, robust, clustered (por unidad, por defecto) o driscoll-kraay",
                "standard errors: unadjusted, robust, clustered (by unit, default) or driscoll-kraay"),
    "weights_help": ("ponderar por nacimientos los modelos lineales", "weight linear models by births"),
    "time_help": ("efectos de año (fe pasa a dos vías; indicadores de año en los demás)",
                  "year effects (fe becomes two-way; year indicators elsewhere)"),
    "fill_help": ("regla de relleno de covariables construidas: interpolate (por defecto), carry-forward o none",
                  "filling rule for built covariates: interpolate (default), carry-forward or none"),
    "conf_help": ("nivel de confianza (0.95 por defecto)", "confidence level (default 0.95)"),
    "no_covariates": ("indique --covariates", "give --covariates"),
    "saved_extra": ("Guardado: {path}", "Saved: {path}"),
})

COLUMNS = ["model", "term", "estimate", "se", "statistic", "p_value", "lower", "upper"]
TEST_COLUMNS = ["test", "statistic", "df", "p_value"]


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("models", help=MSG("help"), description=MSG("help"))
    add_panel_argument(p)
    p.add_argument("--outcome", default="infant", help=MSG("outcome_help"))
    p.add_argument("--covariates", required=False, help=MSG("covariates_help"))
    p.add_argument("--models", default="pooled,fe,re", help=MSG("models_help"))
    p.add_argument("--se", default="clustered", help=MSG("se_help"))
    p.add_argument("--weights", choices=["births"], help=MSG("weights_help"))
    p.add_argument("--time-effects", action="store_true", help=MSG("time_help"))
    p.add_argument("--fill", default="interpolate", choices=["interpolate", "carry-forward", "none"],
                   help=MSG("fill_help"))
    p.add_argument("--conf-level", type=float, default=0.95, help=MSG("conf_help"))
    add_years_argument(p)
    add_region_argument(p)
    add_output_argument(p)
    add_suppress_argument(p)
    declare_outputs(p, companions=siblings)
    p.set_defaults(func=run)


def order(table, first):
    return table[[c for c in first if c in table.columns] + [c for c in table.columns if c not in first]]


SIBLINGS = ("tests", "notes", "fit_info")


def _sibling(out: str, suffix: str) -> Path:
    path = Path(out)
    return path.with_name(f"{path.stem}.{suffix}{path.suffix}")


def siblings(out: str) -> list[Path]:
    """The files written beside ``-o OUT`` (none for .xlsx, whose sheets hold them)."""
    if Path(out).suffix.lower() in (".xlsx", ".xls"):
        return []
    return [_sibling(out, suffix) for suffix in SIBLINGS]


def run(args) -> int:
    import pandas as pd

    from ..covariates import resolve_names
    from ..io import write_table
    from ..models import fit_models
    from ..outputs import together

    if not args.covariates:
        raise InputError(MSG("no_covariates"))
    # --region: the region's communes only, before the covariates are attached (the shipped sources are keyed
    # by commune, so they attach to any subset) and before identification.py checks what the units can identify
    panel = load_region_subset(args)
    # a column of the user's panel wins over an alias of a shipped covariate (spending, pobreza, ...)
    names = resolve_names([c for c in args.covariates.split(",") if c.strip()], panel.data.columns)
    # covariates the panel lacks and brecha can build are attached by fit_models (with --fill), for the
    # years asked, so their notes count the rows modelled
    res = fit_models(panel, outcome=args.outcome, covariates=names, models=args.models, se=args.se,
                     years=args.years, weights=args.weights, time_effects=args.time_effects,
                     conf_level=args.conf_level, fill=args.fill)
    lang = get_language()
    print(res.summary(lang))
    print()
    coefficients = order(res.coefficients, COLUMNS)
    tests = order(res.tests, TEST_COLUMNS)
    notes = pd.DataFrame({"note": res.notes})
    out = getattr(args, "output", None)
    if out and Path(out).suffix.lower() in (".xlsx", ".xls"):
        write_output(coefficients, args, sheets={"coefficients": coefficients, "tests": tests,
                                                 "fit_info": res.fit_info, "notes": notes})
    elif not out:
        shown = [c for c in COLUMNS + ["rate_ratio", "rr_lower", "rr_upper"] if c in coefficients.columns]
        write_output(coefficients[shown], args)
    else:
        with together():  # the coefficients and their sibling tables appear together or not at all
            write_output(coefficients, args)
            paths = [write_table(table, _sibling(out, suffix))
                     for suffix, table in zip(SIBLINGS, (tests, notes, res.fit_info))]
        for path in paths:
            print(MSG("saved_extra", path=path))
    return 0
