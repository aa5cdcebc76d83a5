"""Methods text of the joinpoint parts of the report (issue 13), merged into
:data:`brecha.report.methods.TEXTS` and ``REFERENCES``: trusted HTML written by brecha, never from data."""
from __future__ import annotations

TEXTS = [
    ("trends", "Joinpoint", "Joinpoint",
     "<p>Con <i>method = \"joinpoint\"</i>: segmentos log-lineales conectados, "
     "<span class=formula>ln(TMI) = b<sub>0</sub> + b<sub>1</sub>x + Σ d<sub>j</sub>(x − τ<sub>j</sub>)<sub>+</sub></span>, "
     "con las reglas de NCI Joinpoint 5: al menos 2 observaciones entre un punto de cambio y cada extremo y entre "
     "dos puntos; número de puntos por BIC ponderado (WBIC, Kim et al. 2023) salvo otra selección; VPA por segmento "
     "con IC t en n − 2k − 2 gl y AAPC (Clegg et al. 2009) con IC por el método delta.</p>",
     "<p>With <i>method = \"joinpoint\"</i>: connected log-linear segments, "
     "<span class=formula>ln(IMR) = b<sub>0</sub> + b<sub>1</sub>x + Σ d<sub>j</sub>(x − τ<sub>j</sub>)<sub>+</sub></span>, "
     "with NCI Joinpoint 5's rules: at least 2 observations between a joinpoint and either end and between two "
     "joinpoints; the number of joinpoints by the weighted BIC (WBIC, Kim et al. 2023) unless another selection "
     "is set; APC per segment with a t CI on n − 2k − 2 df and AAPC (Clegg et al. 2009) with a delta-method "
     "CI.</p>"),
    ("", "¿Se cierra la brecha? Prueba formal", "Is the gap closing? Formal test",
     "<p>Los quintos extremos de nacimientos según la covariable de orden del estudio (o, sin ella, según la tasa) "
     "se comparan con las pruebas de comparabilidad de joinpoint (Kim et al. 2004): <i>paralelismo</i> (mismos "
     "puntos de cambio y pendientes, distinto nivel: razón de tasas constante) y <i>coincidencia</i> (tendencias "
     "idénticas); <span class=formula>F = {(SCR<sub>0</sub> − SCR<sub>1</sub>)/(p<sub>1</sub> − p<sub>0</sub>)} / "
     "{SCR<sub>1</sub>/(2n − p<sub>1</sub>)}</span>, valor p por 4.499 permutaciones (intercambio de los dos grupos "
     "año a año, semilla fija). La brecha cambia si se rechaza el paralelismo; el sentido lo da el cambio anual de "
     "la razón de tasas.</p>",
     "<p>The extreme fifths of births by the study's rank covariate (or, without one, by rate) are compared with "
     "joinpoint comparability tests (Kim et al. 2004): <i>parallelism</i> (same joinpoints and slopes, a different "
     "level: a constant rate ratio) and <i>coincidence</i> (identical trends); <span class=formula>F = "
     "{(SSE<sub>0</sub> − SSE<sub>1</sub>)/(p<sub>1</sub> − p<sub>0</sub>)} / {SSE<sub>1</sub>/(2n − "
     "p<sub>1</sub>)}</span>, p-value from 4,499 permutations (the two groups swapped year by year, fixed seed). "
     "The gap changes when parallelism is rejected; the annual change of the rate ratio gives the direction.</p>"),
]

REFERENCES = [
    "Clegg LX, Hankey BF, Tiwari R, Feuer EJ, Edwards BK (2009). Estimating average annual per cent change in "
    "trend analysis. Stat Med 28:3670-3682.",
    "Kim HJ, Chen HS, Midthune D, et al. (2023). Data-driven choice of a model selection method in joinpoint "
    "regression. J Appl Stat 50:1992-2013.",
    "Kim HJ, Fay MP, Yu B, Barrett MJ, Feuer EJ (2004). Comparability of segmented line regression models. "
    "Biometrics 60:1005-1014.",
]
