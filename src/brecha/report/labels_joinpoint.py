"""Labels of the joinpoint parts of the report (issue 13): the formal "is the gap closing?" test and the
joinpoint figures, merged into :data:`brecha.report.labels.LABELS`."""
from __future__ import annotations

from ..i18n import Catalog

LABELS = Catalog({
    "gt_groups_cov": ("los quintos de nacimientos con menor y con mayor {cov}",
                      "the fifths of births with the lowest and the highest {cov}"),
    "gt_groups_rate": ("los quintos de nacimientos con menor y con mayor mortalidad",
                       "the fifths of births with the lowest and the highest mortality"),
    "gt_closing": ("Prueba formal (comparabilidad de joinpoint, Kim et al. 2004): las tendencias de {groups} no "
                   "son paralelas (p {p_par}); la razón de sus tasas baja {gap} % por año ({y0}-{y1}): la brecha "
                   "se cierra. AAPC {aapc_a} % y {aapc_b} %.",
                   "Formal test (joinpoint comparability, Kim et al. 2004): the trends of {groups} are not "
                   "parallel (p {p_par}); the ratio of their rates falls by {gap} % a year ({y0}-{y1}): the gap "
                   "is closing. AAPC {aapc_a} % and {aapc_b} %."),
    "gt_widening": ("Prueba formal (comparabilidad de joinpoint, Kim et al. 2004): las tendencias de {groups} no "
                    "son paralelas (p {p_par}); la razón de sus tasas sube {gap} % por año ({y0}-{y1}): la "
                    "brecha se amplía. AAPC {aapc_a} % y {aapc_b} %.",
                    "Formal test (joinpoint comparability, Kim et al. 2004): the trends of {groups} are not "
                    "parallel (p {p_par}); the ratio of their rates rises by {gap} % a year ({y0}-{y1}): the gap "
                    "is widening. AAPC {aapc_a} % and {aapc_b} %."),
    "gt_flat": ("Prueba formal (comparabilidad de joinpoint, Kim et al. 2004): no se rechaza que las tendencias "
                "de {groups} sean paralelas (p {p_par}, {y0}-{y1}): no hay evidencia de que la brecha cambie. "
                "AAPC {aapc_a} % y {aapc_b} %; ¿tendencias idénticas? p {p_coin}.",
                "Formal test (joinpoint comparability, Kim et al. 2004): parallel trends of {groups} are not "
                "rejected (p {p_par}, {y0}-{y1}): no evidence that the gap is changing. AAPC {aapc_a} % and "
                "{aapc_b} %; identical trends? p {p_coin}."),
    "gt_detail": ("paralelismo p {p}", "parallelism p {p}"),
    "gt_method": ("{n} {n:permutación|permutaciones} (semilla {seed}); joinpoints por {selection}: {k_a} y {k_b}.",
                  "{n} {n:permutation|permutations} (seed {seed}); joinpoints by {selection}: {k_a} and {k_b}."),
    "t_gap_test": ("¿Se cierra la brecha? Pruebas de paralelismo y coincidencia", "Is the gap closing? Tests of "
                   "parallelism and coincidence"),
    "t_aapc": ("AAPC por {unit} (joinpoint)", "AAPC per {unit} (joinpoint)"),
    "cap_joinpoint_national": ("Tasa observada por año (IC 95 %), segmentos ajustados por joinpoint "
                               "(selección {selection}) y VPA de cada segmento; los puntos de cambio marcados.",
                               "Observed rate per year (95 % CI), joinpoint segments (selection {selection}) and "
                               "each segment's APC; the joinpoints marked."),
    "cap_joinpoint_regions": ("Regiones: tasa observada y segmentos de joinpoint (selección {selection}); VPA "
                              "de cada segmento.",
                              "Regions: observed rate and joinpoint segments (selection {selection}); each "
                              "segment's APC."),
    "jp_apc": ("VPA", "APC"),
    "jp_observed": ("observada", "observed"),
    "jp_fitted": ("joinpoint", "joinpoint"),
    # column headers (brecha.report.html.column_label)
    "c_unit_a": ("Grupo A", "Group A"),
    "c_unit_b": ("Grupo B", "Group B"),
    "c_k_a": ("Joinpoints A", "Joinpoints A"),
    "c_k_b": ("Joinpoints B", "Joinpoints B"),
    "c_aapc_a": ("AAPC A (%)", "AAPC A (%)"),
    "c_aapc_b": ("AAPC B (%)", "AAPC B (%)"),
    "c_gap_apc": ("Cambio anual de la razón (%)", "Annual change of the ratio (%)"),
    "c_aapc": ("AAPC (%)", "AAPC (%)"),
    "c_aapc_lower": ("AAPC, límite inferior", "AAPC, lower limit"),
    "c_aapc_upper": ("AAPC, límite superior", "AAPC, upper limit"),
    "c_n_segments": ("Segmentos", "Segments"),
    "c_start": ("Desde", "From"),
    "c_end": ("Hasta", "To"),
})
