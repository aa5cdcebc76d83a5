"""Labels of the report's "Where is the gap?" section and of the excess-deaths headline (issue 14), merged
into :data:`brecha.report.labels.LABELS`."""
from __future__ import annotations

from ..i18n import Catalog

LABELS = Catalog({
    "s_gap_where": ("¿Dónde está la brecha?", "Where is the gap?"),
    "gw_intro": ("La desigualdad entre {units} se separa en la parte entre grupos ({by}: cuánto difieren las tasas "
                 "medias de los grupos) y la parte dentro de ellos (cuánto difieren las {units} de un mismo grupo), "
                 "ponderando por nacimientos. Theil T y el Gini son índices sin escala (×1; HEAT usa ×1000).",
                 "Inequality between {units} splits into a between-group part ({by}: how far the groups' mean "
                 "rates differ) and a within-group part (how far the {units} of one group differ), weighting by "
                 "births. Theil T and the Gini are scale-free indices (×1; HEAT uses ×1000)."),
    "gw_summary": ("En {period}, {within} % de la desigualdad (Theil T = {total}) está dentro de los grupos y "
                   "{between} % entre ellos.",
                   "Over {period}, {within} % of the inequality (Theil T = {total}) lies within the groups and "
                   "{between} % between them."),
    "gw_summary_ci": (" IC 95 % de la parte entre grupos: {lo}–{hi}.", " 95 % CI of the between part: {lo}–{hi}."),
    "gw_share_ylabel": ("% de Theil T", "% of Theil T"),
    "gw_between": ("Entre grupos", "Between groups"),
    "gw_within": ("Dentro de los grupos", "Within groups"),
    "cap_gw_shares": ("Parte de la desigualdad de la {rate} entre {units} (Theil T) entre y dentro de los grupos "
                      "({by}), por año.", "Share of the inequality of the {rate} between {units} (Theil T) between "
                      "and within the groups ({by}), per year."),
    "t_gw_year": ("Descomposición entre y dentro de grupos ({by}), por año",
                  "Between/within decomposition by {by}, per year"),
    "t_gw_groups": ("Aporte de cada grupo a la parte dentro de los grupos, {period}",
                    "Each group's contribution to the within-group part, {period}"),
    "gw_no_years": ("ningún año del estudio entre los años de los determinantes ({years})",
                    "no year of the study among the determinants' years ({years})"),
    "gw_det_text": ("Índice de concentración de la {rate} según {rank}: {c} en {period} (negativo: las defunciones "
                    "se concentran en las {units} desaventajadas). Cada barra es el aporte de un determinante "
                    "(elasticidad × su propio índice de concentración; Wagstaff, van Doorslaer y Watanabe 2003); "
                    "los aportes y el residuo suman el índice.",
                    "Concentration index of the {rate} by {rank}: {c} in {period} (negative: deaths concentrate in "
                    "the disadvantaged {units}). Each bar is one determinant's contribution (elasticity × its own "
                    "concentration index; Wagstaff, van Doorslaer & Watanabe 2003); the contributions and the "
                    "residual add up to the index."),
    "gw_no_ci": ("Sin bootstrap (analyses.decompose.bootstrap = 0) los aportes no tienen intervalos.",
                 "Without a bootstrap (analyses.decompose.bootstrap = 0) the contributions have no intervals."),
    "gw_excluded": ("{n} {units} sin valor de algún determinante quedan fuera de la descomposición por "
                    "determinantes.", "{n} {units} without a value of some determinant are left out of the "
                    "decomposition by determinants."),
    "cap_gw_determinants": ("Aporte de cada determinante al índice de concentración, {period}; barras: IC 95 % "
                            "bootstrap.", "Each determinant's contribution to the concentration index, {period}; "
                            "bars: 95 % bootstrap CI."),
    "gw_contribution": ("Aporte al índice de concentración", "Contribution to the concentration index"),
    "gw_residual": ("Residuo", "Residual"),
    "t_gw_determinants": ("Descomposición del índice de concentración por determinantes, {period}",
                          "Concentration index decomposed by determinants, {period}"),
    # column headers and cell values of the section's tables
    "c_component": ("Componente", "Component"), "c_share": ("Parte del total", "Share of total"),
    "c_group_index": ("Índice del grupo", "Group's own index"), "c_group_rate": ("TMI del grupo", "Group IMR"),
    "c_group_births_share": ("Parte de los nacimientos", "Share of births"),
    "c_coefficient": ("Coeficiente", "Coefficient"), "c_elasticity": ("Elasticidad", "Elasticity"),
    "c_concentration_index": ("Índice de concentración", "Concentration index"),
    "c_contribution": ("Aporte", "Contribution"), "c_percent": ("% del índice", "% of the index"),
    "c_term": ("Término", "Term"),
    "v_component_total": ("total", "total"), "v_component_between": ("entre grupos", "between groups"),
    "v_component_within": ("dentro de los grupos", "within groups"), "v_component_overlap": ("solapamiento",
                                                                                              "overlap"),
    "v_measure_theil": ("Theil T", "Theil T"), "v_measure_mld": ("MLD (Theil L)", "MLD (Theil L)"),
    "v_measure_ge2": ("GE(2)", "GE(2)"), "v_measure_gini": ("Gini", "Gini"),
    "v_measure_excess_deaths": ("defunciones en exceso", "excess deaths"),
    "v_term_residual": ("residuo", "residual"), "v_term_total": ("total (índice de concentración)",
                                                                 "total (concentration index)"),
    # excess deaths
    "h_excess": ("Muertes evitables", "Avoidable deaths"),
    "h_excess_value": ("al año", "a year"),
    "h_excess_text": ("{n} defunciones infantiles al año no habrían ocurrido con la tasa de la referencia ({ref}) "
                      "(IC 95 %: {lo}–{hi}); {total} en {period}.",
                      "{n} infant deaths a year would not have happened at the reference's rate ({ref}) "
                      "(95 % CI {lo}–{hi}); {total} over {period}."),
    "h_excess_more": ("Muertes con la tasa de la referencia", "Deaths at the reference's rate"),
    "h_excess_more_value": ("más al año", "more a year"),
    "h_excess_text_none": ("La tasa de la referencia ({ref}) supera la del conjunto: con ella habría habido {n} "
                           "defunciones infantiles más al año, no menos (IC 95 %: {lo}–{hi}); {total} en {period}.",
                           "The reference's rate ({ref}) is above the whole area's: at it there would have been {n} "
                           "more infant deaths a year, not fewer (95 % CI {lo}–{hi}); {total} over {period}."),
    "gw_excess_title": ("Defunciones en exceso frente a la referencia", "Excess deaths against the reference"),
    "gw_excess_text": ("Defunciones en exceso = defunciones observadas − nacimientos × tasa de la referencia "
                       "({ref}). En {period}: {total} (IC 95 %: {lo}–{hi}), {n} al año. Una cifra negativa: la "
                       "{unit} tuvo menos defunciones que las esperadas con la tasa de la referencia.",
                       "Excess deaths = observed deaths − births × the reference's rate ({ref}). Over {period}: "
                       "{total} (95 % CI {lo}–{hi}), {n} a year. A negative number: the {unit} had fewer deaths "
                       "than expected at the reference's rate."),
    "t_gw_excess_year": ("Defunciones en exceso por año", "Excess deaths per year"),
    "t_gw_excess_units": ("Defunciones en exceso por {unit}, {period}", "Excess deaths per {unit}, {period}"),
    "ex_gw_excess": ("defunciones en exceso: requieren el análisis disparity del estudio",
                     "excess deaths: they need the study's disparity analysis"),
})
