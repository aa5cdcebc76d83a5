"""Methods text and references of the spatial section (issue 15), appended to
:data:`brecha.report.methods.TEXTS` and ``REFERENCES``. Fixed text written by brecha."""
from __future__ import annotations

TEXTS = [
    ("spatial", "Patrón espacial", "Spatial pattern",
     "<p>Vecindad queen (polígonos que se tocan), rook o k vecinos más cercanos; las unidades sin vecinos (islas, "
     "sin polígono) quedan fuera del I de Moran y de los clústeres y se nombran. I de Moran de las tasas "
     "estandarizadas por Bayes empírico "
     "<span class=formula>z<sub>i</sub> = (r<sub>i</sub> − b)/√(a + b/NV<sub>i</sub>)</span> (Assunção y Reis "
     "1999), pesos estandarizados por fila, inferencia analítica y por permutaciones. LISA (Anselin 1995) con "
     "valores p por permutación condicional y control de la tasa de falsos descubrimientos (Benjamini y Hochberg "
     "1995); Gi* de Getis-Ord (Ord y Getis 1995) de las tasas suavizadas por Bayes empírico. BYM2 (Riebler y "
     "cols. 2016): D<sub>i</sub> ~ Poisson(NV<sub>i</sub>·e<sup>α + b<sub>i</sub></sup>), "
     "<span class=formula>b = (√(1−φ)v + √φ u)/√τ</span>, u ICAR escalado por componente conexa, priors PC; "
     "aproximación de Laplace anidada (Rue, Martino y Chopin 2009).</p>",
     "<p>Queen (polygons that touch), rook or k-nearest neighbours; units without neighbours (islands, no "
     "polygon) are left out of Moran's I and the clusters and named. Moran's I of the empirical-Bayes "
     "standardised rates <span class=formula>z<sub>i</sub> = (r<sub>i</sub> − b)/√(a + b/LB<sub>i</sub>)</span> "
     "(Assunção & Reis 1999), row-standardised weights, analytic and permutation inference. LISA (Anselin 1995) "
     "with conditional-permutation p-values and false-discovery-rate control (Benjamini & Hochberg 1995); "
     "Getis-Ord Gi* (Ord & Getis 1995) of the empirical-Bayes smoothed rates. BYM2 (Riebler et al. 2016): "
     "D<sub>i</sub> ~ Poisson(LB<sub>i</sub>·e<sup>α + b<sub>i</sub></sup>), "
     "<span class=formula>b = (√(1−φ)v + √φ u)/√τ</span>, u the ICAR field scaled per connected component, PC "
     "priors; nested Laplace approximation (Rue, Martino & Chopin 2009).</p>"),
]

REFERENCES = [
    "Anselin L (1995). Local indicators of spatial association — LISA. Geographical Analysis 27:93-115.",
    "Assunção RM, Reis EA (1999). A new proposal to adjust Moran's I for population density. Statistics in "
    "Medicine 18:2147-2162.",
    "Benjamini Y, Hochberg Y (1995). Controlling the false discovery rate. JRSS B 57:289-300.",
    "Ord JK, Getis A (1995). Local spatial autocorrelation statistics. Geographical Analysis 27:286-306.",
    "Riebler A, Sørbye SH, Simpson D, Rue H (2016). An intuitive Bayesian spatial model for disease mapping "
    "that accounts for scaling. Statistical Methods in Medical Research 25:1145-1165.",
    "Rue H, Martino S, Chopin N (2009). Approximate Bayesian inference for latent Gaussian models by using "
    "integrated nested Laplace approximations. JRSS B 71:319-392.",
]
