"""``brecha panel PANEL``: validate a panel file and summarise it (units, years, totals, warnings)."""
from __future__ import annotations

import warnings

from ..i18n import Catalog
from .common import (add_output_argument, add_panel_argument, add_region_argument, add_years_argument, load_panel,
                     panel_sheet, print_notes, write_output)

MSG = Catalog({
    "help": ("valida y resume un archivo de panel", "validate and summarise a panel file"),
    "country_help": ("registro de unidades: auto (por defecto), CL, BR o none",
                     "unit registry: auto (default), CL, BR or none"),
    "header": ("Panel {source}: {units} {units:unidad|unidades}, años {years}, {rows} {rows:fila|filas}, país {country}",
               "Panel {source}: {units} {units:unit|units}, years {years}, {rows} {rows:row|rows}, country {country}"),
    "outcomes": ("Resultados disponibles: {outcomes}", "Outcomes available: {outcomes}"),
    "covariates": ("Covariables: {covariates}", "Covariates: {covariates}"),
    "none": ("ninguna", "none"),
    "notes": ("Notas:", "Notes:"),
    "warnings": ("Avisos:", "Warnings:"),
    "totals": ("Totales por año (tasa por 1.000 nacidos vivos):", "Totals per year (rate per 1,000 live births):"),
    "valid": ("Panel válido.", "Panel is valid."),
    "example_country": ("--example {example} es del país {country}; --country {given} no se aplica",
                        "--example {example} is country {country}; --country {given} does not apply"),
    "example_country_hint": ("use --country con un archivo de panel", "use --country with a panel file"),
})


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("panel", help=MSG("help"), description=MSG("help"))
    add_panel_argument(p)
    p.add_argument("--country", default="auto", help=MSG("country_help"))
    add_years_argument(p)
    add_region_argument(p)
    add_output_argument(p)
    p.set_defaults(func=run)


EXAMPLE_COUNTRY = {"chile": "CL", "brazil": "BR", "argentina": "AR", "araucania": "CL"}


def run(args) -> int:
    country = EXAMPLE_COUNTRY.get(args.example or "")
    if country and args.country.lower() not in ("auto", country.lower()):
        from ..errors import InputError

        raise InputError(MSG("example_country", example=args.example, country=country, given=args.country),
                         hint=MSG("example_country_hint"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the panel keeps its warnings; they are printed below
        if args.panel and not args.example and args.country != "auto":
            from ..panel import read_panel

            panel = read_panel(args.panel, country=None if args.country.lower() == "none" else args.country,
                               decimal=args.decimal, sheet=panel_sheet(args))
        else:
            panel = load_panel(args)
        if args.years or args.region:  # summarise only those years / regions, as the analyses would use them
            from .analysed_rows import wanted_regions

            panel = panel.subset(years=args.years, region=wanted_regions(args))
    years = panel.years
    print(MSG("header", source=panel.source or "-", units=len(panel.unit_codes),
              years=f"{years[0]}-{years[-1]}" if years else "-", rows=len(panel.data),
              country=panel.country or "-"))
    print(MSG("outcomes", outcomes=", ".join(panel.outcomes)))
    print(MSG("covariates", covariates=", ".join(panel.covariates) or MSG("none")))
    print_notes(panel.notes)
    if panel.warnings:
        print(MSG("warnings"))
        for w in panel.warnings:
            print(f"  - {w}")
    if not args.output:
        print(MSG("totals"))
    summary = panel.summary()
    write_output(summary, args)
    print(MSG("valid"))
    return 0
