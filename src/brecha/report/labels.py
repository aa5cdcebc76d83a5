"""Spanish and English labels of the report (headings, captions, column names, sentences)."""
from __future__ import annotations

from ..i18n import Catalog

LABELS = Catalog({
    # document
    "report": ("Informe", "Report"),
    "generated": ("Generado con brecha {version} el {date}", "Generated with brecha {version} on {date}"),
    "footer_about": ("desigualdad de la mortalidad infantil", "infant mortality inequality"),
    "contents": ("Contenido", "Contents"),
    "not_available": ("No disponible: {reason}", "Not available: {reason}"),
    "module_missing": ("el módulo {module} no está instalado en esta versión",
                       "the module {module} is not present in this version"),
    "failed": ("el análisis falló ({error})", "the analysis failed ({error})"),
    "download": ("Descargar", "Download"),
    "caveats": ("Advertencias sobre los datos", "Caveats about the data"),
    "per_1000": ("por 1.000 nacidos vivos", "per 1,000 live births"),
    "imr": ("Tasa de mortalidad infantil", "Infant mortality rate"),
    "imr_short": ("TMI", "IMR"),
    "rate_infant": ("Tasa de mortalidad infantil", "Infant mortality rate"),
    "rate_neonatal": ("Tasa de mortalidad neonatal", "Neonatal mortality rate"),
    "rate_postneonatal": ("Tasa de mortalidad posneonatal", "Post-neonatal mortality rate"),
    "outcome_infant": ("mortalidad infantil", "infant mortality"),
    "outcome_neonatal": ("mortalidad neonatal", "neonatal mortality"),
    "outcome_postneonatal": ("mortalidad posneonatal (infantil tardía)", "post-neonatal mortality"),
    "units_word_CL": ("comunas", "communes"),
    "unit_word_CL": ("comuna", "commune"),
    "units_word_BR": ("municipios", "municipalities"),
    "unit_word_BR": ("municipio", "municipality"),
    "units_word": ("unidades", "units"),
    "unit_word": ("unidad", "unit"),
    "country_CL": ("Chile", "Chile"),
    "country_BR": ("Brasil", "Brazil"),
    "country_total": ("Total del país", "Whole country"),
    # headline
    "headline": ("Hallazgos principales", "Key findings"),
    "h_national": ("{outcome} en {country}", "{outcome} in {country}"),
    "h_national_text": ("{last} por 1.000 en {y1} (IC 95 %: {lo}–{hi}); {first} en {y0}: {change}.",
                        "{last} per 1,000 in {y1} (95 % CI {lo}–{hi}); {first} in {y0}: {change}."),
    "h_national_text_one": ("{last} por 1.000 en {y1} (IC 95 %: {lo}–{hi}).", "{last} per 1,000 in {y1} (95 % CI "
                            "{lo}–{hi})."),
    "h_change_down": ("un descenso de {pct} %", "a fall of {pct} %"),
    "h_change_up": ("un aumento de {pct} %", "a rise of {pct} %"),
    "h_gap": ("¿Cuán desigual?", "How unequal?"),
    "h_gap_text": ("En {period}, el quinto de los nacimientos en las {units} de mayor tasa tuvo una TMI {ratio} "
                   "veces (IC 95 %: {lo_ci}–{hi_ci}) la del quinto en las {units} de menor tasa ({hi} frente a {lo} "
                   "por 1.000). Los grupos se eligen con estos mismos datos, lo que exagera algo la razón.",
                   "In {period}, the fifth of births in the {units} with the highest rates had an IMR {ratio} "
                   "times (95 % CI {lo_ci}–{hi_ci}) that of the fifth in the {units} with the lowest rates ({hi} "
                   "against {lo} per 1,000). The groups are chosen from these same data, which overstates the "
                   "ratio somewhat."),
    "h_gap_zero": ("En {period}, el quinto de los nacimientos en las {units} de menor tasa no tuvo ninguna defunción "
                   "infantil: la razón entre los quintos no está definida. El quinto en las {units} de mayor tasa tuvo "
                   "{hi} por 1.000, {diff} por 1.000 más. Los grupos se eligen con estos mismos datos, lo que exagera "
                   "algo la diferencia.",
                   "In {period}, the fifth of births in the {units} with the lowest rates had no infant death: the "
                   "ratio between the fifths is not defined. The fifth in the {units} with the highest rates had "
                   "{hi} per 1,000, {diff} per 1,000 more. The groups are chosen from these same data, which "
                   "overstates the difference somewhat."),
    "h_gap_zero_detail": ("por 1.000 de diferencia; razón no definida", "per 1,000 apart; ratio not defined"),
    "h_gap_par": ("Si todas las {units} tuvieran la tasa de la referencia ({ref}), la TMI del conjunto sería "
                  "{par_pct} % menor (RAP% {period}, IC 95 %: {lo}–{hi} %).",
                  "If every {unit} had the reference's rate ({ref}), the IMR of the whole area would be {par_pct} % "
                  "lower (PAR% {period}, 95 % CI {lo}–{hi} %)."),
    "h_gap_par_up": ("La tasa de la referencia ({ref}) supera la del conjunto: si todas las {units} la tuvieran, la "
                     "TMI del conjunto sería {par_pct} % mayor (RAP% {period}: {par}, IC 95 %: {lo}–{hi} %).",
                     "The reference's rate ({ref}) is above the whole area's: if every {unit} had it, the IMR of the "
                     "whole area would be {par_pct} % higher (PAR% {period}: {par}, 95 % CI {lo}–{hi} %)."),
    "h_gap_noise": ("Atención: el suavizado atribuye al azar el {pct} % de la variación de las tasas (media "
                    "ponderada de la contracción); la diferencia real entre {units} es mucho menor que esta razón.",
                    "Caution: smoothing attributes {pct} % of the variation of the rates to chance (births-weighted "
                    "mean shrinkage); the true difference between {units} is much smaller than this ratio."),
    "br_underreg": ("Tasas directas SIM/SINASC: el subregistro de defunciones, sobre todo en el Norte y el Nordeste y "
                    "en los primeros años, las deja por debajo de las estimaciones corregidas de IBGE/RIPSA; las "
                    "diferencias entre municipios y su descenso en el tiempo mezclan mortalidad y registro "
                    "(Szwarcwald et al. 2002).",
                    "Direct SIM/SINASC rates: under-registration of deaths, mainly in the North and Northeast and in "
                    "the early years, puts them below IBGE/RIPSA's corrected estimates; differences between "
                    "municipalities and their fall over time mix mortality and registration (Szwarcwald et al. "
                    "2002)."),
    "h_ci": ("IC 95 %: {lo}–{hi}", "95 % CI {lo}–{hi}"),
    "h_rank_overlap": ("Los intervalos de 95 % de las dos listas se superponen: el orden es incierto.",
                       "The 95 % intervals of the two lists overlap: the ranking is uncertain."),
    "h_rank_apart": ("Los intervalos de 95 % de la primera lista quedan sobre los de la segunda; dentro de cada lista "
                     "se superponen, así que el orden exacto es incierto.",
                     "The 95 % intervals of the first list lie above those of the second; within each list they "
                     "overlap, so the exact order is uncertain."),
    "h_funnel": ("{n} de {total} {units} superan el límite de 99,8 % del gráfico de embudo (más muertes de las que "
                 "explica el azar): {names}{more}.",
                 "{n} of {total} {units} lie above the 99.8 % funnel limit (more deaths than chance explains): "
                 "{names}{more}."),
    "h_more": (" y {n} más", " and {n} more"),
    "h_funnel_none": ("Ninguna de las {units} supera el límite de 99,8 % del gráfico de embudo.",
                      "None of the {units} lies above the 99.8 % funnel limit."),
    "c_interval": ("IC 95 %", "95 % CI"),
    "h_trend": ("¿Se cierra la brecha?", "Is the gap closing?"),
    "h_per_year": (" %/año", " %/yr"),  # after the APC of the gap's ratio on the first screen
    "h_closing": ("La razón entre el quinto de mayor y el de menor mortalidad baja {apc} % por año "
                  "(IC 95 %: {lo} a {hi}), de {first} en {y0} a {last} en {y1}.",
                  "The ratio between the highest and lowest fifths falls by {apc} % a year "
                  "(95 % CI {lo} to {hi}), from {first} in {y0} to {last} in {y1}."),
    "h_widening": ("La razón entre el quinto de mayor y el de menor mortalidad sube {apc} % por año "
                   "(IC 95 %: {lo} a {hi}), de {first} en {y0} a {last} en {y1}.",
                   "The ratio between the highest and lowest fifths rises by {apc} % a year "
                   "(95 % CI {lo} to {hi}), from {first} in {y0} to {last} in {y1}."),
    "h_flat": ("La razón entre el quinto de mayor y el de menor mortalidad pasó de {first} en "
               "{y0} a {last} en {y1} (cambio anual {apc} %, IC 95 %: {lo} a {hi}, incluye 0).",
               "The ratio between the highest and lowest fifths went from {first} in {y0} to "
               "{last} in {y1} (annual change {apc} %, 95 % CI {lo} to {hi}, includes 0)."),
    "h_closing_word": ("Sí, se cierra", "Yes, closing"),
    "h_widening_word": ("No, se amplía", "No, widening"),
    "h_flat_word": ("Sin cambio claro", "No clear change"),
    "h_abs_gap": ("La diferencia absoluta pasó de {first} a {last} por 1.000.",
                  "The absolute difference went from {first} to {last} per 1,000."),
    "h_worst": ("Mayor mortalidad", "Highest mortality"),
    "h_best": ("Menor mortalidad", "Lowest mortality"),
    "h_rank_note": ("Tasas {period} suavizadas (Bayes empírico) para no premiar ni castigar el azar de las "
                    "{units} pequeñas; entre paréntesis, la tasa observada.",
                    "Rates {period}, smoothed (empirical Bayes) so that chance in small {units} does not decide "
                    "the ranking; in brackets, the observed rate."),
    "h_rank_note_raw": ("Tasas observadas {period} de las {units} con al menos {min} nacimientos.",
                        "Observed rates {period} of the {units} with at least {min} births."),
    "h_map": ("Mapa de la TMI {period}", "Map of the IMR {period}"),
    "h_scope": ("{n} {units}, {period}; {births} nacimientos y {deaths} defunciones {kind}.",
                "{n} {units}, {period}; {births} live births and {deaths} {kind} deaths."),
    "deaths_infant": ("infantiles", "infant"), "deaths_neonatal": ("neonatales", "neonatal"),
    "deaths_postneonatal": ("posneonatales", "post-neonatal"),
    "ex_outcome_absent": ("resultado {outcome}: los datos no tienen esas defunciones (tienen: {have})",
                          "outcome {outcome}: the data have no such deaths (they have: {have})"),
    "s_outcome": ("Otro resultado: {outcome}", "Other outcome: {outcome}"),
    "h_others": ("Otros resultados del estudio", "The study's other outcomes"),
    "h_other_text": ("{rate}: {last} por 1.000 en {y1} ({first} en {y0}); tendencia del conjunto: {trend} "
                     "(CPA {apc} %, IC 95 %: {lo} a {hi}). Véase la sección «{section}».",
                     "{rate}: {last} per 1,000 in {y1} ({first} in {y0}); trend of the whole area: {trend} "
                     "(APC {apc} %, 95 % CI {lo} to {hi}). See the section '{section}'."),
    "h_other_text_notrend": ("{rate}: {last} por 1.000 en {y1} ({first} en {y0}). Véase la sección «{section}».",
                             "{rate}: {last} per 1,000 in {y1} ({first} in {y0}). See the section '{section}'."),
    "births_caveat_short": ("Nacimientos 2000-2009: solo de madres de 15 a 49 años (2-5 % bajo el total oficial; "
                            "tasas algo altas en esos años).",
                            "Births 2000-2009: mothers aged 15-49 only (2-5 % below the official total; rates of "
                            "those years slightly high)."),
    "quintile_series": ("Quintos de nacimientos por tasa", "Fifths of births by rate"),
    "q5": ("Quinto de mayor tasa", "Highest-rate fifth"),
    "q1": ("Quinto de menor tasa", "Lowest-rate fifth"),
    # sections
    "s_rates": ("Tasas", "Rates"),
    "s_disparity": ("Brecha frente a la referencia", "Gap against the reference"),
    "s_trends": ("Tendencias", "Trends"),
    "s_maps": ("Mapas", "Maps"),
    "s_funnel": ("Gráfico de embudo", "Funnel plot"),
    "s_distribution": ("Distribución por año", "Distribution per year"),
    "s_inequality": ("Desigualdad en el tiempo", "Inequality over time"),
    "s_covariate": ("Desigualdad del gasto municipal en salud", "Inequality of municipal health spending"),
    "s_models": ("Modelos de panel", "Panel models"),
    "s_data": ("Datos, registro de filas y procedencia", "Data, record ledger and provenance"),
    "s_methods": ("Métodos", "Methods"),
    # captions
    "cap_national": ("TMI del país por año, con IC 95 % ({method}).",
                     "National IMR per year, with 95 % CI ({method})."),
    "cap_quintiles": ("TMI por año en el quinto de nacimientos de las {units} de mayor y de menor tasa "
                      "(grupos fijos, según la tasa {period}).",
                      "IMR per year in the fifth of births in the highest-rate and lowest-rate {units} "
                      "(fixed groups, by the rate over {period})."),
    "cap_regions": ("TMI por año en cada región (línea discontinua: el país).",
                    "IMR per year in each region (dashed line: the whole country)."),
    "cap_map_rate": ("TMI observada {period} por {unit}. Clases por quintiles.",
                     "Observed IMR {period} by {unit}. Classes by quintiles."),
    "cap_map_smooth": ("TMI {period} suavizada por Bayes empírico ({method}).",
                       "IMR {period} smoothed by empirical Bayes ({method})."),
    "cap_map_trend": ("Clase de tendencia {period} ({method}, p < {alpha}); sin clasificar: {unit} con más de la "
                      "mitad de los años sin muertes.",
                      "Trend class {period} ({method}, p < {alpha}); not classified: {unit} with more than half of "
                      "the years without deaths."),
    "cap_map_offshore": (" No se muestran: {names}.", " Not shown: {names}."),
    "map_inset_CL": ("Región Metropolitana", "Región Metropolitana"),  # the inset of Chile's maps: a proper name
    "cap_funnel": ("TMI {period} frente al número de nacimientos; límites de control {method}. Marcadas las "
                   "{units} sobre el límite superior de 99,8 %.",
                   "IMR {period} against the number of births; control limits {method}. Marked: the {units} "
                   "above the upper 99.8 % limit."),
    "cap_distribution": ("Distribución de la TMI de las {units} por año (caja: cuartiles; bigotes: percentiles "
                         "5 y 95) y TMI del país.",
                         "Distribution of the {unit} IMRs per year (box: quartiles; whiskers: 5th and 95th "
                         "percentiles) and the national IMR."),
    "cap_inequality": ("Medidas de desigualdad por año ({method}).", "Inequality measures per year ({method})."),
    "cap_disparity": ("RAP% del país frente a la referencia, por año, con IC 95 %. La tasa anual de la referencia "
                      "descansa en pocas defunciones, de ahí el ruido: el período agrupado (tabla siguiente) es más "
                      "fiable.",
                      "PAR% of the country against the reference, per year, with 95 % CI. The reference's yearly "
                      "rate rests on few deaths, hence the noise: the pooled period (next table) is more reliable."),
    "cap_comovement": ("Desigualdad de la TMI frente a desigualdad de {covariate}, por año.",
                       "IMR inequality against inequality of {covariate}, per year."),
    "s_covariate_of": ("Desigualdad de {covariate}", "Inequality of {covariate}"),
    "gini_of": ("Gini de {covariate}", "Gini of {covariate}"),
    "cap_trend_national": ("Tendencia de la TMI del país: cambio porcentual anual (CPA) {apc} % "
                           "(IC 95 %: {lo} a {hi}), {trend}.",
                           "Trend of the national IMR: annual percent change (APC) {apc} % "
                           "(95 % CI {lo} to {hi}), {trend}."),
    "ineq_units_note": ("Medidas entre todas las {units} con las tasas de cada año: en las unidades pequeñas la tasa "
                        "anual varía mucho por azar, y eso infla estas medidas (vea los IC); la tendencia importa más "
                        "que el nivel.",
                        "Measures between all {units} on each year's rates: in small units the yearly rate varies a "
                        "lot by chance, which inflates these measures (see the CIs); the trend matters more than "
                        "the level."),
    "ineq_ordered_title": ("Desigualdad según {covariate}", "Inequality by {covariate}"),
    "cap_inequality_ordered": ("Medidas ordenadas por año: {groups} grupos de igual número de nacimientos según "
                               "{covariate} (índices de pendiente y relativo de desigualdad, concentración).",
                               "Ordered measures per year: {groups} groups of equal births by {covariate} (slope "
                               "and relative indices of inequality, concentration)."),
    "ineq_rank_note": ("Dimensión ordenada: cada año las unidades se ordenan por su {covariate} de ese año (observada o "
                       "rellenada con la regla '{fill}' del estudio) y se agrupan en {groups} grupos de igual número de "
                       "nacimientos. Años sin {covariate} en ninguna unidad, sin medidas ordenadas: {missing}.",
                       "Ordered dimension: each year the units are ranked by that year's {covariate} (observed or "
                       "filled by the study's '{fill}' rule) and put into {groups} groups of equal births. Years "
                       "with no {covariate} for any unit, so no ordered measures: {missing}."),
    "mshort_gini": ("Gini (ponderado)", "Gini (weighted)"), "mshort_ti": ("Theil ×1000", "Theil ×1000"),
    "mshort_mld": ("Desv. log. media ×1000", "Mean log deviation ×1000"),
    "mshort_cov": ("Coef. de variación %", "Coeff. of variation %"),
    "mshort_bgsd": ("DE entre unidades", "SD between units"),
    "mshort_mdmw": ("Dif. media a la media", "Mean diff. from mean"),
    "mshort_d_q5q1": ("Quinto sup. − inf. (unidades)", "Top − bottom fifth (units)"),
    "mshort_sii": ("Índice de pendiente (SII)", "Slope index (SII)"),
    "mshort_rii": ("Índice relativo (RII)", "Relative index (RII)"),
    "mshort_rci": ("Índice de concentración", "Concentration index"),
    "mshort_kunst_mackenbach": ("Kunst-Mackenbach", "Kunst-Mackenbach"),
    "mshort_d": ("Diferencia extremos", "Difference of extremes"), "mshort_r": ("Razón extremos", "Ratio of extremes"),
    "mshort_ratio_p90p10": ("Razón p90/p10", "Ratio p90/p10"), "mshort_paf": ("PAF %", "PAF %"),
    "mshort_par": ("PAR", "PAR"),
    "mshort_d_ref": ("Diferencia máx. − referencia", "Highest − reference"),
    "mshort_r_ref": ("Razón máx. / referencia", "Highest / reference ratio"),
    "ineq_reference_note": ("D, R, las diferencias medias respecto de la referencia (MDRU, MDRW), el RAP (PAR) y la "
                            "FAP (PAF) se miden frente a la referencia del estudio, la misma de la sección «{section}»: "
                            "{ref}. Sin ella, la OMS toma la {unit} de menor tasa, que con {units} pequeñas es 0 "
                            "(FAP = 100 %).",
                            "D, R, the mean differences from the reference (MDRU, MDRW), PAR and PAF are measured "
                            "against the study's reference, the same as in the section '{section}': {ref}. Without "
                            "it WHO takes the {unit} with the lowest rate, which with small {units} is 0 (PAF = "
                            "100 %)."),
    "ineq_reference_fallback": ("D, R, RAP y FAP frente a la {unit} de menor tasa de cada período (criterio de la OMS): "
                                "la referencia del estudio ({ref}) no está en todos los períodos ({reason}).",
                                "D, R, PAR and PAF against the {unit} with the lowest rate of each period (WHO's "
                                "rule): the study's reference ({ref}) is not in every period ({reason})."),
    "c_label": ("Descripción", "Description"), "c_mean": ("Media", "Mean"), "c_std": ("DE", "SD"), "c_min": ("Mín.", "Min"),
    "c_max": ("Máx.", "Max"),
    # trend classes: the class words themselves come from brecha.trends.trend_labels (one vocabulary)
    "sparse": ("sin clasificar (demasiados años sin muertes)", "not classified (too many years without deaths)"),
    "no_trend": ("sin estimación", "no estimate"),
    "missing": ("sin dato", "no data"),
    # tables
    "t_national": ("TMI del país por año", "National IMR per year"),
    "t_units_pooled": ("TMI por {unit}, {period}", "IMR by {unit}, {period}"),
    "t_units_year": ("TMI por {unit} y año", "IMR by {unit} and year"),
    "t_regions": ("TMI por región y año", "IMR by region and year"),
    "t_disparity_total": ("Medidas globales del país frente a la referencia", "Global measures: the country against the reference"),
    "t_disparity_units": ("RR, RA y RA% de cada {unit} frente a la referencia, {period}",
                          "RR, AR and AR% of each {unit} against the reference, {period}"),
    "t_focus": ("Riesgo atribuible de las {units} seleccionadas frente a la referencia",
                "Attributable risk of the selected {units} against the reference"),
    "t_smoothed": ("TMI suavizada (Bayes empírico), {period}", "Smoothed IMR (empirical Bayes), {period}"),
    "t_funnel": ("Límites del gráfico de embudo y clasificación", "Funnel limits and flags"),
    "t_trends": ("Tendencia de cada {unit} (Prais-Winsten)", "Trend of each {unit} (Prais-Winsten)"),
    "t_trend_classes": ("{units} por clase de tendencia", "{units} by trend class"),
    "t_inequality": ("Medidas de desigualdad por año", "Inequality measures per year"),
    "t_inequality_pooled": ("Medidas de desigualdad, período agrupado", "Inequality measures, pooled period"),
    "t_distribution": ("Distribución de la TMI de las {units} por año", "Distribution of the {unit} IMRs per year"),
    "t_covariate": ("Desigualdad de {covariate} por año", "Inequality of {covariate} per year"),
    "t_comovement": ("Correlación entre las series de desigualdad", "Correlation between the inequality series"),
    "comovement_text": ("Correlación de Pearson entre la serie anual de {measure} de la TMI y la de {covariate}: "
                        "r = {r} (IC 95 %: {lo} a {hi}; {n} años).",
                        "Pearson correlation between the yearly {measure} series of the IMR and that of {covariate}: "
                        "r = {r} (95 % CI {lo} to {hi}; {n} years)."),
    "t_coefficients": ("Coeficientes", "Coefficients"),
    "t_tests": ("Pruebas", "Tests"),
    "t_ledger": ("Registro de filas de las fuentes", "Record ledger of the sources"),
    "t_excluded": ("Excluido del análisis", "Excluded from the analysis"),
    "t_quintiles": ("TMI por año de los quintos de mayor y menor tasa", "IMR per year in the highest and lowest fifths"),
    "more_rows": ("Se muestran {shown} de {total} filas; la tabla completa está en {file}.",
                  "Showing {shown} of {total} rows; the full table is in {file}."),
    "more_rows_unwritten": ("Se muestran {shown} de {total} filas; la tabla completa no se escribió (agregue "
                            "\"tables\" a files en [output] del estudio).",
                            "Showing {shown} of {total} rows; the full table was not written (add \"tables\" to "
                            "files in the study's [output])."),
    # columns
    "c_unit": ("Código", "Code"), "c_name": ("Nombre", "Name"), "c_period": ("Período", "Period"),
    "c_year": ("Año", "Year"), "c_events": ("Defunciones", "Deaths"), "c_births": ("Nacimientos", "Births"),
    "c_estimate": ("Estimación", "Estimate"), "c_rate": ("TMI", "IMR"), "c_lower": ("IC inf.", "Lower"),
    "c_upper": ("IC sup.", "Upper"), "c_method": ("Método", "Method"), "c_measure": ("Medida", "Measure"),
    "c_region": ("Región", "Region"), "c_smoothed": ("TMI suavizada", "Smoothed IMR"),
    "c_observed": ("(observada)", "(observed)"),
    "c_apc": ("CPA %", "APC %"), "c_trend": ("Tendencia", "Trend"), "c_p_value": ("p", "p"),
    "c_n": ("N", "N"), "c_n_years": ("Años", "Years"), "c_apc_lower": ("CPA inf.", "APC lower"),
    "c_apc_upper": ("CPA sup.", "APC upper"), "c_rho": ("ρ", "ρ"), "c_raw_rate": ("TMI observada", "Observed IMR"),
    "c_shrinkage": ("Contracción", "Shrinkage"), "c_outcome": ("Resultado", "Outcome"),
    "c_conf_level": ("Nivel", "Level"), "c_rr": ("RR", "RR"), "c_rr_lower": ("RR inf.", "RR lower"),
    "c_rr_upper": ("RR sup.", "RR upper"), "c_ar": ("RA", "AR"), "c_ar_lower": ("RA inf.", "AR lower"),
    "c_ar_upper": ("RA sup.", "AR upper"), "c_ar_pct": ("RA %", "AR %"), "c_ar_pct_lower": ("RA % inf.", "AR % lower"),
    "c_ar_pct_upper": ("RA % sup.", "AR % upper"), "c_model": ("Modelo", "Model"), "c_term": ("Término", "Term"),
    "c_se": ("EE", "SE"), "c_statistic": ("Estadístico", "Statistic"), "c_test": ("Prueba", "Test"),
    "c_df": ("gl", "df"), "c_n_units": ("Unidades", "Units"),
    "c_rate_highest_fifth": ("Quinto de mayor tasa", "Highest-rate fifth"),
    "c_rate_lowest_fifth": ("Quinto de menor tasa", "Lowest-rate fifth"), "c_ratio": ("Razón", "Ratio"),
    "c_difference": ("Diferencia", "Difference"), "c_status": ("Estado", "Status"), "c_rows": ("Filas", "Rows"), "c_note": ("Nota", "Note"),
    "c_row": ("Fila", "Row"), "c_start_year": ("Desde", "From"), "c_end_year": ("Hasta", "To"),
    "c_deaths": ("Defunciones", "Deaths"), "c_source": ("Fuente", "Source"), "c_flag": ("Marca", "Flag"), "c_reason": ("Motivo", "Reason"),
    "c_measure_a": ("Medida (TMI)", "Measure (IMR)"), "c_measure_b": ("Medida (covariable)", "Measure (covariate)"),
    "c_ci_method": ("Método del IC", "CI method"), "c_periods": ("Años usados", "Years used"),
    "c_df_denominator": ("gl del denominador", "Denominator df"), "c_file": ("Archivo", "File"),
    "c_kind": ("Tipo", "Kind"), "c_lines": ("Líneas", "Lines"), "c_detail": ("Detalle", "Detail"),
    "c_group": ("Grupo", "Group"), "c_n_groups": ("Grupos", "Groups"), "c_reference": ("Referencia", "Reference"),
    "c_rank_by": ("Ordenado por", "Ranked by"), "c_advantaged": ("Extremo favorecido", "Advantaged end"),
    "c_bootstrap": ("Réplicas bootstrap", "Bootstrap replicates"), "c_seed": ("Semilla", "Seed"),
    "c_code": ("Código", "Code"), "c_reference_rate": ("TMI de la referencia", "Reference IMR"),
    # cell values shown for reading (the CSV and Excel tables keep the codes)
    "v_flag_high": ("sobre el límite superior de 99,8 %", "above the upper 99.8 % limit"),
    "v_flag_low": ("bajo el límite inferior de 99,8 %", "below the lower 99.8 % limit"),
    "v_flag_zero_births": ("0 nacimientos (tasa no definida)", "0 births (rate undefined)"),
    "v_flag_missing": ("sin dato", "missing"),
    "v_flag_events_exceed_births": ("más defunciones que nacimientos", "more deaths than births"),
    "v_flag_lower_clipped": ("límite inferior recortado en 0", "lower limit clipped at 0"),
    "v_method_exact": ("exacto de Poisson", "exact Poisson"),
    "v_method_delta-poisson": ("delta (Poisson)", "delta (Poisson)"),
    "v_method_exact-poisson": ("exactos de Poisson", "exact Poisson"),
    "v_method_prais-winsten": ("Prais-Winsten", "Prais-Winsten"), "v_method_joinpoint": ("joinpoint", "joinpoint"),
    "v_method_eb-poisson-gamma-mm (Marshall 1991, global prior)": (
        "Poisson-gamma por momentos, Marshall 1991, a priori de todas las unidades",
        "Poisson-gamma by moments, Marshall 1991, prior from all units"),
    "v_method_eb-poisson-gamma-mm (Marshall 1991, region prior)": (
        "Poisson-gamma por momentos, Marshall 1991, a priori de cada región",
        "Poisson-gamma by moments, Marshall 1991, prior of each region"),
    "v_method_pearson": ("Pearson", "Pearson"), "v_method_spearman": ("Spearman", "Spearman"),
    "v_ci_method_Fisher z": ("z de Fisher", "Fisher z"),
    "v_ci_method_Fisher z (variance 1.06/(n-3))": ("z de Fisher (varianza 1,06/(n−3))",
                                                    "Fisher z (variance 1.06/(n−3))"),
    "v_status_read": ("leídas", "read"), "v_status_kept": ("conservadas", "kept"),
    "v_status_excluded": ("excluidas", "excluded"), "v_status_filled": ("agregadas", "filled"),
    "v_status_note": ("nota", "note"), "v_status_counted": ("contadas", "counted"),
    "v_term_intercept": ("constante", "intercept"),
    # covariates: short names for headings, captions, axes and table cells (docs/covariates.md has the sources)
    "cov_poverty": ("pobreza por ingresos (%)", "income poverty (%)"),
    "cov_poverty_new": ("pobreza por ingresos, nueva línea (%)", "income poverty, new line (%)"),
    "cov_poverty_multidimensional": ("pobreza multidimensional (%)", "multidimensional poverty (%)"),
    "cov_health_spending_pc": ("gasto municipal en salud por habitante (M$)",
                               "municipal health spending per head (M$)"),
    "cov_health_spending_pc_BR": ("gasto municipal en salud por habitante (R$)",
                                  "municipal health spending per head (R$)"),
    "cov_schooling": ("escolaridad: secundaria o más (%)", "schooling: secondary or higher (%)"),
    "cov_sapu": ("SAPU/SAR abierto en la comuna (0/1)", "SAPU/SAR open in the commune (0/1)"),
    "cov_distance_hospital_km": ("distancia al hospital de alta complejidad (km)",
                                 "distance to a high-complexity hospital (km)"),
    "cov_health_spending_per_capita": ("gasto municipal en salud por habitante (R$)",
                                       "municipal health spending per head (R$)"),
    "cov_population": ("población", "population"),
    "cov_income_pc": ("ingreso por habitante (R$ de 2010)", "income per head (2010 R$)"),
    "cov_gini": ("Gini del ingreso", "income Gini"),
    "cov_with_code": ("{label} ({name})", "{label} ({name})"),
    # measures
    "m_rate_ratio": ("Razón de tasas (RR)", "Rate ratio (RR)"),
    "m_attributable_risk": ("Riesgo atribuible (RA)", "Attributable risk (AR)"),
    "m_attributable_risk_percent": ("RA %", "AR %"),
    "m_par": ("Riesgo atribuible poblacional (RAP)", "Population attributable risk (PAR)"),
    "m_par_percent": ("RAP %", "PAR %"),
    # data section
    "d_source": ("Fuente del panel: {source}.", "Panel source: {source}."),
    "d_units": ("Unidades analizadas: {n} {units}; años: {years}.", "Units analysed: {n} {units}; years: {years}."),
    "d_reference": ("Referencia: {ref}.", "Reference: {ref}."),
    "d_reference_best": ("la {unit} de menor TMI {period} entre las que tienen al menos {min} nacimientos: {name}",
                         "the {unit} with the lowest IMR {period} among those with at least {min} births: {name}"),
    "d_covariates": ("Covariables: {names} (relleno: {fill}).", "Covariates: {names} (filling: {fill})."),
    "d_provenance": ("Procedencia de los datos incluidos", "Provenance of the embedded data"),
    "d_warnings": ("Avisos de los datos", "Data warnings"),
    "d_study": ("Archivo de estudio", "Study file"),
    "ex_years_missing": ("años pedidos sin datos: {years}", "requested years with no data: {years}"),
    "ex_zero_births": ("{n} {unit}-años con 0 nacimientos (tasa no definida): {examples}",
                       "{n} {unit}-years with 0 births (rate undefined): {examples}"),
    "ex_missing_births": ("{n} {unit}-años sin dato de nacimientos: {examples}",
                          "{n} {unit}-years with missing births: {examples}"),
    "ex_no_births_units": ("{n} {units} sin nacimientos en todo el período (fuera de los mapas y rankings): {names}",
                           "{n} {units} with no births over the whole period (left off maps and rankings): {names}"),
    "ex_covariate": ("covariable {name} no disponible: {reason}", "covariate {name} not available: {reason}"),
    "ex_analysis": ("{analysis}: {reason}", "{analysis}: {reason}"),
    "ex_no_polygons": ("sin polígonos para {country}: no se dibujan mapas", "no polygons for {country}: no maps drawn"),
    "ex_trend_skipped": ("{n} {units} sin tendencia estimada ({reason})", "{n} {units} without an estimated trend ({reason})"),
    "none": ("ninguno", "none"),
    "per_year": ("por año", "per year"),
    "ex_large_table": ("tabla de RR/RA por unidad y año omitida ({n} unidades, más de {limit}); la del período "
                       "agrupado y las medidas globales por año sí están",
                       "table of RR/AR per unit and year left out ({n} units, more than {limit}); the pooled-period "
                       "table and the global measures per year are included"),
    # methods
    "methods_intro": ("Fórmulas y referencias de cada cálculo del informe.",
                      "Formulas and references of every calculation in the report."),
    # progress
    "p_load": ("Cargando datos", "Loading data"),
    "p_analysis": ("Análisis: {name}", "Analysis: {name}"),
    "p_figures": ("Figuras", "Figures"),
    "p_write": ("Escribiendo archivos", "Writing files"),
    "p_done": ("{step} ({seconds} s)", "{step} ({seconds} s)"),
})
from .labels_symbols import LABELS as _SYMBOL_LABELS  # noqa: E402  (Argentina, maps without polygons)
LABELS.messages.update(_SYMBOL_LABELS.messages)
from .labels_publication import LABELS as _PUBLICATION_LABELS  # noqa: E402  (hidden cells: issue 17)
LABELS.messages.update(_PUBLICATION_LABELS.messages)
from .labels_gap_where import LABELS as _GAP_WHERE_LABELS  # noqa: E402  ("Where is the gap?": issue 14)
LABELS.messages.update(_GAP_WHERE_LABELS.messages)
from .labels_joinpoint import LABELS as _JOINPOINT_LABELS  # noqa: E402  (joinpoint, gap test: issue 13)
LABELS.messages.update(_JOINPOINT_LABELS.messages)
from .labels_spatial import LABELS as _SPATIAL_LABELS  # noqa: E402  (Moran, LISA, BYM2: issue 15)
LABELS.messages.update(_SPATIAL_LABELS.messages)


TREND_KEYS = ("decreasing", "stationary", "increasing", "sparse", "no_trend")


# The Spanish sentences are written for feminine units (comunas, unidades); Brazil's municipios are masculine.
_MASCULINE = (("todas las municipios", "todos los municipios"), ("Ninguna de las municipios", "Ninguno de los municipios"),
              ("las municipios", "los municipios"), ("municipios pequeñas", "municipios pequeños"),
              ("municipios seleccionadas", "municipios seleccionados"), ("la municipio", "el municipio"),
              ("entre las que tienen", "entre los que tienen"))


# The labels name the infant mortality rate (IMR / TMI); a report on another outcome renames it everywhere.
OUTCOME = {"name": "infant"}
_RATE_NAMES = {"neonatal": {"IMR": "NMR", "TMI": "TMN", "Infant mortality rate": "Neonatal mortality rate",
                            "Tasa de mortalidad infantil": "Tasa de mortalidad neonatal"},
               "postneonatal": {"IMR": "PNMR", "TMI": "TMPN", "Infant mortality rate": "Post-neonatal mortality rate",
                                "Tasa de mortalidad infantil": "Tasa de mortalidad posneonatal"}}


def set_outcome(name: str) -> str:
    """Set the outcome the labels name (``infant``, ``neonatal``, ``postneonatal``); returns the previous one."""
    previous = OUTCOME["name"]
    OUTCOME["name"] = name
    return previous


def _rename_rate(text: str) -> str:
    import re

    names = _RATE_NAMES.get(OUTCOME["name"])
    if not names:
        return text
    pattern = re.compile(r"\b(" + "|".join(re.escape(k) for k in sorted(names, key=len, reverse=True)) + r")\b")
    return pattern.sub(lambda m: names[m.group(1)], text)


def L(key: str, lang: str, **fields) -> str:
    text = _rename_rate(LABELS(key, lang=lang, **fields))
    if lang == "es" and (fields.get("units") == "municipios" or fields.get("unit") == "municipio"):
        for feminine, masculine in _MASCULINE:
            text = text.replace(feminine, masculine)
    return text


def trend_word(code, lang: str) -> str:
    """Label of a trend class: ``increasing`` / ``decreasing`` / ``stationary`` in the words of
    :func:`brecha.trends.trend_labels` (creciente / decreciente / estacionaria), and the report's two
    non-classes ``sparse`` (too many years without deaths) and ``no_trend`` (no estimate)."""
    try:
        from ..trends import trend_labels
    except ImportError:  # the report still renders without the trends module (its section says why)
        words = {}
    else:
        words = trend_labels(lang)
    if code in words:
        return words[code]
    if code in ("sparse", "no_trend"):
        return L(code, lang)
    return str(code)


def trend_codes(table) -> "pd.Series":
    """One class code per row of a trends table: its ``trend`` where classified, ``sparse`` where the
    trends module withheld the class (too many zero-death years), ``no_trend`` where there is no estimate."""
    import pandas as pd

    trend = table["trend"].astype("object").where(table["trend"].notna(), None)
    sparse = table["sparse"].fillna(False).astype(bool) if "sparse" in table else pd.Series(False, index=table.index)
    out = trend.where(trend.notna(), "no_trend")
    return out.mask(trend.isna() & sparse, "sparse").astype(str)


def covariate_label(name, lang: str, country: str | None = None) -> str:
    """Name of a covariate for reading (headings, captions, axes, table cells): a ``label`` pair in
    :mod:`brecha.covariates`' source tables when it has one, else ours (``cov_<name>``; Brazil's
    spending in R$), else the first clause of the source table's ``short`` description, else the name
    itself. CSV and Excel tables keep the column name, which scripts need."""
    name = str(name)
    try:
        from .. import covariates as C

        sources = C.BRAZIL_SOURCES if country == "BR" else C.CHILE_SOURCES
        entry = sources.get(name) or C.CHILE_SOURCES.get(name) or {}
    except (ImportError, AttributeError):
        entry = {}
    if entry.get("label"):
        return entry["label"][1 if lang == "en" else 0]
    for key in ((f"cov_{name}_BR", f"cov_{name}") if country == "BR" else (f"cov_{name}",)):
        if key in LABELS:
            return L(key, lang)
    if entry.get("short"):
        return entry["short"][1 if lang == "en" else 0].split(",")[0].strip()
    return name


def covariate_with_code(name, lang: str, country: str | None = None) -> str:
    """``label (name)``: where the reader may want the column name too (data section, exclusions)."""
    label = covariate_label(name, lang, country)
    return label if label == str(name) else L("cov_with_code", lang, label=label, name=name)


def cell_label(column: str, text: str, lang: str, covariates=(), country: str | None = None) -> str:
    """A table cell's text for reading: funnel and rate flags, CI methods, ledger statuses, model names
    and terms (covariates by their label), the measures of the co-movement table. Unknown values stay."""
    if not text:
        return text
    if column == "flag":
        parts = [p for p in text.split(";") if p]
        return "; ".join(L(f"v_flag_{p}", lang) if f"v_flag_{p}" in LABELS else p for p in parts)
    if column in ("method", "ci_method", "status"):
        key = f"v_{column}_{text}"
        if key in LABELS:
            return L(key, lang)
        code, sep, rest = text.partition(" (")  # "exact-poisson (Spiegelhalter 2005)": the code, then the source
        if sep and f"v_{column}_{code}" in LABELS:
            return f"{L(f'v_{column}_{code}', lang)} ({rest}"
        return text
    if column == "model":
        try:
            from ..models import model_label
        except ImportError:
            return text
        return model_label(text, lang)
    if column == "term":
        if f"v_term_{text}" in LABELS:
            return L(f"v_term_{text}", lang)
        return covariate_label(text, lang, country) if text in covariates else text
    if column == "periods":  # 2006,2007,...,2012 -> 2006-2012
        return _year_spans(text)
    if column in ("measure_a", "measure_b"):
        return L(f"mshort_{text}", lang) if f"mshort_{text}" in LABELS else text
    if f"v_{column}_{text}" in LABELS:  # e.g. v_component_between (labels_gap_where)
        return L(f"v_{column}_{text}", lang)
    return text


def relabel_covariates(text: str, covariates, lang: str, country: str | None = None) -> str:
    """Put the covariates' labels for their column names in a sentence written by an analysis module
    (model notes: "compares poverty, health_spending_pc")."""
    import re

    names = sorted({str(c) for c in covariates if c}, key=len, reverse=True)
    if not names or not text:
        return text
    pattern = re.compile(r"(?<![\w.'])(" + "|".join(re.escape(n) for n in names) + r")(?![\w'])")
    return pattern.sub(lambda m: covariate_label(m.group(1), lang, country), str(text))


def _year_spans(text: str) -> str:
    """'2006,2007,2008,2010' -> '2006-2008, 2010' (text that is not a list of years stays as it is)."""
    parts = [p.strip() for p in str(text).split(",")]
    if not parts or not all(p.isdigit() for p in parts):
        return text
    years = sorted({int(p) for p in parts})
    spans, start = [], years[0]
    for prev, year in zip(years, years[1:] + [None]):
        if year != prev + 1 if year is not None else True:
            spans.append(str(start) if start == prev else f"{start}-{prev}")
            start = year
    return ", ".join(spans)
