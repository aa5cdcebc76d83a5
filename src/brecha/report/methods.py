"""The methods section of the report: formulas and references for every calculation that ran.

The markup here is fixed text written by brecha (no data goes into it), so it is trusted HTML.
"""
from __future__ import annotations

from .blocks import Block
from .labels import L

# key -> (analysis that must have been asked for, or "" for always), Spanish, English
TEXTS = [
    ("", "Tasas", "Rates",
     "<p>TMI<sub>i,t</sub> = D<sub>i,t</sub> / NV<sub>i,t</sub> × 1.000: defunciones de menores de un año sobre "
     "nacidos vivos del mismo año y unidad de residencia. La tasa de un grupo o del país es ΣD/ΣNV (la media de "
     "las tasas ponderada por nacimientos). IC exacto de Poisson (Garwood 1936): "
     "<span class=formula>[χ²<sub>α/2</sub>(2D)/2 , χ²<sub>1−α/2</sub>(2D+2)/2] / NV × 1.000</span>; "
     "con 0 defunciones el límite inferior es 0. Con 0 nacimientos la tasa no está definida y se marca.</p>",
     "<p>IMR<sub>i,t</sub> = D<sub>i,t</sub> / LB<sub>i,t</sub> × 1,000: deaths under one year over live births of "
     "the same year and unit of residence. The rate of a group or the country is ΣD/ΣLB (the births-weighted "
     "mean of unit rates). Exact Poisson CI (Garwood 1936): "
     "<span class=formula>[χ²<sub>α/2</sub>(2D)/2 , χ²<sub>1−α/2</sub>(2D+2)/2] / LB × 1,000</span>; the lower "
     "limit is 0 when D = 0. With 0 births the rate is undefined and flagged.</p>"),
    ("", "Brecha de los hallazgos principales", "The headline gap",
     "<p>Las unidades se ordenan por su tasa del período (suavizada por Bayes empírico si se calculó) y se cortan "
     "en quintos de nacimientos. La brecha es la razón entre la tasa del quinto de mayor y del de menor tasa "
     "(Kunst y Mackenbach 1994). Su dirección es el cambio porcentual anual de esa razón, "
     "<span class=formula>CPA = (e<sup>b</sup> − 1) × 100</span>, con b la pendiente de MCO de ln(razón) sobre el "
     "año e IC t con n − 2 gl: se cierra si todo el IC está bajo 0. Los grupos fijos según la tasa de todo el "
     "período exageran algo la brecha (regresión a la media); la suavización lo atenúa. IC de la razón del "
     "período: <span class=formula>exp(ln RR ± 1,96·√(1/D<sub>1</sub> + 1/D<sub>0</sub>))</span> (Rothman y "
     "cols. 2008), condicional a los grupos. Si la contracción media ponderada por nacimientos del suavizado "
     "pasa de 50 %, el informe advierte que la mayor parte de la variación entre unidades es azar. Junto a las "
     "unidades de mayor y menor tasa va su intervalo posterior de 95 % y el número de unidades sobre el límite "
     "de 99,8 % del gráfico de embudo.</p>",
     "<p>Units are sorted by their rate over the period (empirical-Bayes smoothed when available) and cut into "
     "fifths of births. The gap is the ratio of the rate of the highest fifth to the lowest fifth (Kunst & "
     "Mackenbach 1994). Its direction is the annual percent change of that ratio, "
     "<span class=formula>APC = (e<sup>b</sup> − 1) × 100</span>, b the OLS slope of ln(ratio) on year, with a "
     "t CI on n − 2 df: the gap is closing when the whole CI is below 0. Groups fixed by the whole-period rate "
     "overstate the gap a little (regression to the mean); smoothing reduces this. CI of the period's ratio: "
     "<span class=formula>exp(ln RR ± 1.96·√(1/D<sub>1</sub> + 1/D<sub>0</sub>))</span> (Rothman et al. 2008), "
     "conditional on the groups. When the smoothing's births-weighted mean shrinkage exceeds 50 %, the report "
     "warns that most of the variation between units is chance. The worst and best units carry their 95 % "
     "posterior interval, and the number of units above the funnel plot's 99.8 % limit is given.</p>"),
    ("disparity", "Brecha frente a la referencia", "Gap against the reference",
     "<p>Razón de tasas RR = TMI<sub>i</sub>/TMI<sub>r</sub>, IC por el método logarítmico "
     "(SE = √(1/D<sub>i</sub> + 1/D<sub>r</sub>)); riesgo atribuible RA = TMI<sub>i</sub> − TMI<sub>r</sub> (IC de "
     "Wald); RA% = (RR − 1)/RR × 100. Riesgo atribuible poblacional "
     "<span class=formula>RAP = TMI<sub>total</sub> − TMI<sub>r</sub></span> y "
     "<span class=formula>RAP% = RAP / TMI<sub>total</sub> × 100</span> (Schneider y cols. 2002, OPS); el IC del "
     "RAP usa el método delta que tiene en cuenta que la referencia es parte del total. Signo OPS: positivo "
     "cuando la referencia está mejor (HEAT de la OMS usa el signo contrario).</p>",
     "<p>Rate ratio RR = IMR<sub>i</sub>/IMR<sub>r</sub>, log-method CI (SE = √(1/D<sub>i</sub> + 1/D<sub>r</sub>)); "
     "attributable risk AR = IMR<sub>i</sub> − IMR<sub>r</sub> (Wald CI); AR% = (RR − 1)/RR × 100. Population "
     "attributable risk <span class=formula>PAR = IMR<sub>total</sub> − IMR<sub>r</sub></span> and "
     "<span class=formula>PAR% = PAR / IMR<sub>total</sub> × 100</span> (Schneider et al. 2002, PAHO); the PAR CI "
     "uses the delta method that accounts for the reference being part of the total. PAHO sign: positive when "
     "the reference does better (WHO HEAT uses the opposite sign).</p>"),
    ("smoothing", "Tasas suavizadas", "Smoothed rates",
     "<p>Bayes empírico Poisson-gamma (Clayton y Kaldor 1987; momentos de Marshall 1991): cada tasa se acerca a la "
     "media en proporción a su imprecisión, <span class=formula>θ̂<sub>i</sub> = w<sub>i</sub>·TMI<sub>i</sub> + "
     "(1 − w<sub>i</sub>)·m</span>, w<sub>i</sub> = s²/(s² + m/NV<sub>i</sub>).</p>",
     "<p>Poisson-gamma empirical Bayes (Clayton & Kaldor 1987; Marshall 1991 moments): each rate is pulled towards "
     "the mean in proportion to its imprecision, <span class=formula>θ̂<sub>i</sub> = w<sub>i</sub>·IMR<sub>i</sub> "
     "+ (1 − w<sub>i</sub>)·m</span>, w<sub>i</sub> = s²/(s² + m/LB<sub>i</sub>).</p>"),
    ("funnel", "Gráfico de embudo", "Funnel plot",
     "<p>Límites de control exactos de Poisson alrededor de la tasa global para cada número de nacimientos, al 95 % "
     "y 99,8 % (Spiegelhalter 2005). Una unidad sobre el límite de 99,8 % tiene una tasa difícil de explicar por "
     "el azar.</p>",
     "<p>Exact Poisson control limits around the overall rate for each number of births, at 95 % and 99.8 % "
     "(Spiegelhalter 2005). A unit above the 99.8 % limit has a rate hard to explain by chance.</p>"),
    ("trends", "Tendencias", "Trends",
     "<p>Regresión de Prais-Winsten de log<sub>10</sub>(TMI) sobre el año con errores AR(1), iterada hasta "
     "|Δρ| ≤ 10<sup>−6</sup> y conservando la primera observación (compatible con R <i>prais</i> y Stata "
     "<i>prais</i>). <span class=formula>CPA = (10<sup>b</sup> − 1) × 100</span>, IC (10<sup>b ± t·SE</sup> − 1) × 100; "
     "en aumento / en descenso si p &lt; 0,05, estacionaria si no (Antunes y Cardoso 2015). Años con 0 "
     "defunciones: se suma 0,5 (regla indicada en la tabla).</p>",
     "<p>Prais-Winsten regression of log<sub>10</sub>(IMR) on year with AR(1) errors, iterated to "
     "|Δρ| ≤ 10<sup>−6</sup>, keeping the first observation (compatible with R <i>prais</i> and Stata "
     "<i>prais</i>). <span class=formula>APC = (10<sup>b</sup> − 1) × 100</span>, CI (10<sup>b ± t·SE</sup> − 1) × 100; "
     "increasing / decreasing when p &lt; 0.05, stationary otherwise (Antunes & Cardoso 2015). Years with 0 "
     "deaths: 0.5 is added (the rule is stated in the table).</p>"),
    ("inequality", "Medidas de desigualdad", "Inequality measures",
     "<p>Medidas resumen de la OMS (HEAT, <i>healthequal</i>) con las correcciones documentadas en docs/inequality.md: "
     "índice de Theil <span class=formula>T = Σ p<sub>j</sub> r<sub>j</sub> ln r<sub>j</sub></span>, desviación "
     "logarítmica media <span class=formula>MLD = Σ p<sub>j</sub>(−ln r<sub>j</sub>)</span> con r<sub>j</sub> = "
     "y<sub>j</sub>/μ, índice de Gini ponderado por nacimientos, índices de pendiente y relativo de desigualdad "
     "(SII, RII) y de concentración cuando las unidades se ordenan por una covariable, y las diferencias entre "
     "percentiles de unidades de HEAT (Schlotheuber y Hosseinpoor 2022). Entre unidades, D, R, RAP y FAP se miden "
     "frente a la referencia del estudio (la de la brecha), de modo que la FAP es el RAP% de esa sección: "
     "<span class=formula>FAP = (μ − y<sub>ref</sub>)/μ × 100</span>; IC de Walter (1978).</p>",
     "<p>WHO summary measures (HEAT, <i>healthequal</i>) with the corrections documented in docs/inequality.md: "
     "Theil index <span class=formula>T = Σ p<sub>j</sub> r<sub>j</sub> ln r<sub>j</sub></span>, mean log "
     "deviation <span class=formula>MLD = Σ p<sub>j</sub>(−ln r<sub>j</sub>)</span> with r<sub>j</sub> = "
     "y<sub>j</sub>/μ, births-weighted Gini, slope and relative indices of inequality (SII, RII) and the "
     "concentration index when units are ranked by a covariate, and HEAT's many-subgroup percentile differences "
     "(Schlotheuber & Hosseinpoor 2022). Between units, D, R, PAR and PAF are measured against the study's "
     "reference (that of the gap section), so PAF is that section's PAR%: "
     "<span class=formula>PAF = (μ − y<sub>ref</sub>)/μ × 100</span>; Walter (1978) CI.</p>"),
    ("covariate_inequality", "Co-movimiento", "Co-movement",
     "<p>Las mismas medidas para la covariable por año, y la correlación de Pearson y de Spearman entre la serie "
     "anual de desigualdad de la TMI y la de la covariable (IC por la transformación z de Fisher). Con pocos "
     "años la correlación es imprecisa.</p>",
     "<p>The same measures for the covariate per year, and the Pearson and Spearman correlations between the "
     "yearly IMR inequality series and the covariate's (Fisher-z CI). With few years the correlation is "
     "imprecise.</p>"),
    ("models", "Modelos de panel", "Panel models",
     "<p>Modelos lineales de la TMI: agrupado (MCO), efectos fijos (within), efectos aleatorios de Swamy-Arora "
     "(compatibles con R <i>plm</i> en paneles desbalanceados) y prueba de Hausman "
     "<span class=formula>H = (b<sub>EF</sub> − b<sub>EA</sub>)′[V<sub>EF</sub> − V<sub>EA</sub>]<sup>−1</sup>"
     "(b<sub>EF</sub> − b<sub>EA</sub>)</span> (Baltagi 2013; Wooldridge 2010). Errores estándar agrupados por "
     "unidad salvo que el estudio diga otra cosa.</p>",
     "<p>Linear models of the IMR: pooled OLS, fixed effects (within), Swamy-Arora random effects (matching R "
     "<i>plm</i> on unbalanced panels) and the Hausman test "
     "<span class=formula>H = (b<sub>FE</sub> − b<sub>RE</sub>)′[V<sub>FE</sub> − V<sub>RE</sub>]<sup>−1</sup>"
     "(b<sub>FE</sub> − b<sub>RE</sub>)</span> (Baltagi 2013; Wooldridge 2010). Standard errors clustered by unit "
     "unless the study says otherwise.</p>"),
]

REFERENCES = [
    "Antunes JLF, Cardoso MRA (2015). Uso da análise de séries temporais em estudos epidemiológicos. "
    "Epidemiol Serv Saúde 24(3):565-576.",
    "Baltagi BH (2013). Econometric Analysis of Panel Data, 5th ed. Wiley.",
    "Clayton D, Kaldor J (1987). Empirical Bayes estimates of age-standardized relative risks for use in disease "
    "mapping. Biometrics 43:671-681.",
    "Garwood F (1936). Fiducial limits for the Poisson distribution. Biometrika 28:437-442.",
    "Kunst AE, Mackenbach JP (1994). Measuring socioeconomic inequalities in health. WHO Regional Office for Europe.",
    "Marshall RJ (1991). Mapping disease and mortality rates using empirical Bayes estimators. Appl Stat 40:283-294.",
    "Rothman KJ, Greenland S, Lash TL (2008). Modern Epidemiology, 3rd ed. Lippincott Williams & Wilkins.",
    "Schlotheuber A, Hosseinpoor AR (2022). Summary measures of health inequality: a review of existing measures "
    "and their application. Int J Environ Res Public Health 19:3697.",
    "Schneider MC, Castillo-Salgado C, Bacallao J, et al. (2002). Métodos de medición de las desigualdades de "
    "salud. Rev Panam Salud Pública 12(6):398-414.",
    "Spiegelhalter DJ (2005). Funnel plots for comparing institutional performance. Stat Med 24:1185-1202.",
    "Szwarcwald CL, Leal MC, Andrade CLT, Souza PRB (2002). Estimação da mortalidade infantil no Brasil: o que "
    "dizem as informações sobre óbitos e nascimentos do Ministério da Saúde? Cad Saúde Pública 18(6):1725-1736.",
    "Walter SD (1976). The estimation and interpretation of attributable risk in health research. "
    "Biometrics 32:829-849.",
    "Walter SD (1978). Calculation of attributable risks from epidemiological data. Int J Epidemiol 7:175-182.",
    "Wooldridge JM (2010). Econometric Analysis of Cross Section and Panel Data, 2nd ed. MIT Press.",
]


OUTCOME_NOTE = {
    "neonatal": ("Resultado de este informe: mortalidad neonatal (defunciones de menores de 28 días por 1.000 nacidos "
                 "vivos); donde las fórmulas dicen TMI y D, léase la tasa neonatal y las defunciones neonatales.",
                 "Outcome of this report: neonatal mortality (deaths under 28 days per 1,000 live births); where the "
                 "formulas say IMR and D, read the neonatal rate and neonatal deaths."),
    "postneonatal": ("Resultado de este informe: mortalidad posneonatal (defunciones de 28 días a menos de un año por "
                     "1.000 nacidos vivos); donde las fórmulas dicen TMI y D, léase la tasa posneonatal.",
                     "Outcome of this report: post-neonatal mortality (deaths from 28 days to under one year per "
                     "1,000 live births); where the formulas say IMR and D, read the post-neonatal rate."),
}


from .methods_gap_where import REFERENCES as _GW_REFERENCES, TEXTS as _GW_TEXTS  # noqa: E402  (issue 14)

TEXTS += _GW_TEXTS
REFERENCES = sorted(REFERENCES + _GW_REFERENCES)
from .methods_joinpoint import REFERENCES as _JP_REFERENCES, TEXTS as _JP_TEXTS  # noqa: E402  (issue 13)

TEXTS += _JP_TEXTS
REFERENCES = sorted(set(REFERENCES + _JP_REFERENCES))
from .methods_spatial import REFERENCES as _SP_REFERENCES, TEXTS as _SP_TEXTS  # noqa: E402  (issue 15)

TEXTS += _SP_TEXTS
REFERENCES = sorted(set(REFERENCES + _SP_REFERENCES))


def methods_blocks(study, lang: str) -> list:
    blocks = [Block("text", text=L("methods_intro", lang))]
    outcomes = study.outcomes or ["infant"]
    for i, outcome in enumerate(outcomes):  # the formulas below are written for the IMR; say what stands in
        if outcome != "infant":
            text = OUTCOME_NOTE[outcome][0 if lang == "es" else 1]
            if i:  # a further outcome, analysed in its own section
                text = text.replace("Resultado de este informe", "Otro resultado de este informe").replace(
                    "Outcome of this report", "Further outcome of this report")
            blocks.append(Block("text", text=text))
    for needs, title_es, title_en, es, en in TEXTS:
        if needs and not study.wants(needs):
            continue
        blocks.append(Block("html", title=title_es if lang == "es" else title_en, text=es if lang == "es" else en))
    items = "".join(f"<li>{_escape(r)}</li>" for r in REFERENCES)
    blocks.append(Block("html", title="Referencias" if lang == "es" else "References",
                        text=f'<ol class="refs">{items}</ol>'))
    return blocks


def _escape(text: str) -> str:
    import html

    return html.escape(text)
