"""Methods text and references of the "Where is the gap?" section and of the excess deaths (issue 14),
appended to :data:`brecha.report.methods.TEXTS` and ``REFERENCES``. Fixed text written by brecha."""
from __future__ import annotations

TEXTS = [
    ("disparity", "Defunciones en exceso", "Excess deaths",
     "<p><span class=formula>Exceso = ΣD − ΣNV × TMI<sub>r</sub></span> = RAP × ΣNV: las defunciones que no "
     "habrían ocurrido con la tasa de la referencia; por unidad, D<sub>i</sub> − NV<sub>i</sub> × TMI<sub>r</sub> "
     "(suman el total). IC: el del RA o del RAP por los nacimientos. En los hallazgos principales, el exceso del "
     "período dividido por el número de años.</p>",
     "<p><span class=formula>Excess = ΣD − ΣLB × IMR<sub>r</sub></span> = PAR × ΣLB: the deaths that would not "
     "have happened at the reference's rate; per unit, D<sub>i</sub> − LB<sub>i</sub> × IMR<sub>r</sub> (they add "
     "up to the total). CI: that of the AR or PAR times the births. On the first screen, the period's excess "
     "divided by the number of years.</p>"),
    ("decompose", "¿Dónde está la brecha?", "Where is the gap?",
     "<p>Entropía generalizada ponderada por nacimientos: "
     "Theil T = Σ p<sub>i</sub>(y<sub>i</sub>/μ)ln(y<sub>i</sub>/μ); "
     "<span class=formula>dentro = Σ<sub>g</sub> P<sub>g</sub>(μ<sub>g</sub>/μ)<sup>α</sup>GE<sub>g</sub></span>, "
     "entre = GE de las medias de los grupos (Shorrocks 1980). Gini = dentro + entre + solapamiento (Dagum 1997). "
     "Índice de concentración C = 2 cov<sub>p</sub>(y, R)/μ con R el rango fraccional; descomposición "
     "<span class=formula>C = Σ<sub>k</sub> (β<sub>k</sub>x̄<sub>k</sub>/μ) C<sub>k</sub> + GC<sub>ε</sub>/μ</span> "
     "con β de mínimos cuadrados ponderados por nacimientos (Wagstaff, van Doorslaer y Watanabe 2003). IC "
     "bootstrap paramétrico de percentiles (defunciones Poisson, nacimientos fijos).</p>",
     "<p>Births-weighted generalised entropy: Theil T = Σ p<sub>i</sub>(y<sub>i</sub>/μ)ln(y<sub>i</sub>/μ); "
     "<span class=formula>within = Σ<sub>g</sub> P<sub>g</sub>(μ<sub>g</sub>/μ)<sup>α</sup>GE<sub>g</sub></span>, "
     "between = GE of the group means (Shorrocks 1980). Gini = within + between + overlap (Dagum 1997). "
     "Concentration index C = 2 cov<sub>p</sub>(y, R)/μ with R the fractional rank; decomposition "
     "<span class=formula>C = Σ<sub>k</sub> (β<sub>k</sub>x̄<sub>k</sub>/μ) C<sub>k</sub> + GC<sub>ε</sub>/μ</span> "
     "with β from least squares weighted by births (Wagstaff, van Doorslaer & Watanabe 2003). Parametric "
     "percentile bootstrap CIs (Poisson deaths, births fixed).</p>"),
]

REFERENCES = [
    "Dagum C (1997). A new approach to the decomposition of the Gini income inequality ratio. Empirical "
    "Economics 22:515-531.",
    "Mookherjee D, Shorrocks A (1982). A decomposition analysis of the trend in UK income inequality. "
    "Economic Journal 92:886-902.",
    "Shorrocks AF (1980). The class of additively decomposable inequality measures. Econometrica 48:613-625.",
    "Wagstaff A, van Doorslaer E, Watanabe N (2003). On decomposing the causes of health sector inequalities "
    "with an application to malnutrition inequalities in Vietnam. Journal of Econometrics 112:207-223.",
]
