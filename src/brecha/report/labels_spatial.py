"""Labels of the report's spatial section (issue 15), merged into :data:`brecha.report.labels.LABELS`."""
from __future__ import annotations

from ..i18n import Catalog

LABELS = Catalog({
    "s_spatial": ("Patrón espacial", "Spatial pattern"),
    "sp_moran": ("I de Moran de las tasas estandarizadas por Bayes empírico (Assunção-Reis), {period}: {value} "
                 "(esperado sin patrón {expected}; p por permutaciones = {p}). Un valor positivo significa que "
                 "las {units} vecinas tienden a tener tasas parecidas.",
                 "Moran's I of the empirical-Bayes standardised rates (Assunção-Reis), {period}: {value} "
                 "(expected without pattern {expected}; permutation p = {p}). A positive value means that "
                 "neighbouring {units} tend to have similar rates."),
    "sp_clusters": ("Clústeres LISA con control de la tasa de falsos descubrimientos (q ≤ 0,05): {counts}.",
                    "LISA clusters under false-discovery-rate control (q ≤ 0.05): {counts}."),
    "sp_none": ("ninguna {unit} forma un clúster significativo", "no {unit} forms a significant cluster"),
    "sp_isolated": ("Sin vecinos (no entran en el I de Moran ni en los clústeres; en BYM2 reciben solo el efecto "
                    "no estructurado): {names}.",
                    "Without neighbours (not in Moran's I nor in the clusters; in BYM2 they get only the "
                    "unstructured effect): {names}."),
    "sp_caveat": ("Los clústeres describen dónde hay tasas parecidas juntas; no explican por qué. Una zona "
                  "alta-alta no prueba una causa común, y con cientos de {units} algunos clústeres aparecen por "
                  "azar (por eso el control de falsos descubrimientos).",
                  "Clusters describe where similar rates sit together; they do not explain why. A high-high area "
                  "does not prove a common cause, and with hundreds of {units} some clusters arise by chance "
                  "(hence the false-discovery-rate control)."),
    "sp_bym2": ("BYM2 (Riebler et al. 2016): las {units} vecinas comparten riesgo; proporción espacial de la "
                "varianza φ = {phi}, desviación estándar del efecto total σ = {sigma}.",
                "BYM2 (Riebler et al. 2016): neighbouring {units} share risk; spatial share of the variance "
                "φ = {phi}, standard deviation of the total effect σ = {sigma}."),
    "sp_map_lisa": ("Clústeres LISA", "LISA clusters"),
    "sp_map_bym2": ("Tasa suavizada BYM2", "BYM2 smoothed rate"),
    "sp_map_prob": ("Probabilidad de superar la tasa del país", "Probability of exceeding the country's rate"),
    "sp_cap_lisa": ("Clústeres LISA de las tasas estandarizadas, {period} ({neighbours}; q de Benjamini-Hochberg "
                    "≤ 0,05). Describen, no explican.",
                    "LISA clusters of the standardised rates, {period} ({neighbours}; Benjamini-Hochberg q "
                    "≤ 0.05). They describe, they do not explain."),
    "sp_cap_bym2": ("Tasa BYM2 (media a posteriori, por 1.000 nacidos vivos), {period}.",
                    "BYM2 rate (posterior mean, per 1,000 live births), {period}."),
    "sp_cap_prob": ("Probabilidad a posteriori (BYM2) de que la tasa de la {unit} supere la del conjunto, {period}.",
                    "Posterior probability (BYM2) that the {unit}'s rate exceeds the overall rate, {period}."),
    "sp_high-high": ("alta-alta", "high-high"),
    "sp_low-low": ("baja-baja", "low-low"),
    "sp_high-low": ("alta-baja", "high-low"),
    "sp_low-high": ("baja-alta", "low-high"),
    "sp_not_significant": ("no significativa", "not significant"),
    "sp_island": ("isla, sin vecinos", "island, no neighbours"),
    "sp_no_polygon": ("sin polígono", "no polygon"),
    "sp_no_seat": ("sin ubicación", "no location"),
    "sp_no_births": ("sin nacimientos", "no births"),
    "sp_all_neighbours": ("vecina de todas las demás (sin prueba)", "neighbour of every other unit (no test)"),
    "sp_all_neighbours_text": ("{names}: vecina de todas las demás {units}, así que la prueba de permutación "
                               "condicional de LISA no puede decir nada (sin p, fuera de los clústeres).",
                               "{names}: neighbour of every other one of the {units}, so LISA's conditional "
                               "permutation test cannot tell anything (no p-value, not among the clusters)."),
    "sp_no_statistic": ("sin clúster: sin vecinos, sin datos o sin prueba",
                        "no cluster: no neighbours, no data or no test"),
    "sp_no_variation": ("misma tasa en todas las unidades", "the same rate in every unit"),
    "sp_no_variation_text": ("Todas las {units} tienen la misma tasa en {period}: el I de Moran, los clústeres LISA "
                             "y Gi* no están definidos (sin variación que comparar entre vecinos).",
                             "Every one of the {units} has the same rate in {period}: Moran's I, the LISA clusters "
                             "and Gi* are undefined (no variation to compare between neighbours)."),
    "sp_prob_low": ("< 0,2", "< 0.2"),
    "sp_prob_mid": ("0,2 – 0,8", "0.2 – 0.8"),
    "sp_prob_high": ("≥ 0,8", "≥ 0.8"),
    "t_spatial_global": ("I de Moran global, {period}", "Global Moran's I, {period}"),
    "t_spatial_local": ("LISA y Gi* por unidad, {period}", "LISA and Gi* per unit, {period}"),
    "t_spatial_bym2": ("Tasas BYM2 por unidad, {period}", "BYM2 rates per unit, {period}"),
})
