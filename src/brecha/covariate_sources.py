"""What each covariate brecha builds is, in Spanish and English: its source, the years observed, its
segments (the methodology or definition breaks filling never crosses), how it is filled and its caveat.

:func:`covariate_sources` lists them as a table; :mod:`brecha.covariates` writes them into the notes of a
panel. The numbers themselves are built in :mod:`brecha.covariates` (and filled by
:mod:`brecha.covariate_filling`): this module holds only the texts, so the two can be read apart.

    >>> covariate_sources("CL", lang="en")["covariate"].tolist()[:2]
    ['poverty', 'poverty_new']
"""
from __future__ import annotations

import pandas as pd

from .i18n import Catalog, get_language

MSG = Catalog({
    "segments": ("segmentos: {segments}", "segments: {segments}"),
    "fill_option": ("opción fill= (por defecto interpolate: {rule})", "fill= option (default interpolate: {rule})"),
})

RULE_TEXT = {
    "interpolate": ("interpolación lineal entre años observados del mismo segmento; después del último año "
                    "observado se arrastra el último valor; sin valor antes del primero",
                    "linear interpolation between observed years of the same segment, last value carried "
                    "forward after the last observed year, missing before the first"),
    "carry-forward": ("se arrastra el último valor observado del mismo segmento; sin valor antes del primero",
                      "last observed value of the same segment carried forward, missing before the first"),
    "none": ("solo años observados", "observed years only"),
    "constant": ("constante (sin variación en el tiempo)", "constant (time-invariant)"),
    "sapu": ("0/1 según el año de apertura; los establecimientos con fecha ficticia o sin fecha se suponen "
             "abiertos (marcados)",
             "0/1 by opening year; placeholder or undated facilities assumed open (flagged)"),
    "not_filled": ("sin relleno (solo valores observados)", "not filled (observed values only)"),
}

# every field a (Spanish, English) pair
CHILE_SOURCES = {
    "poverty": dict(
        source=("estimaciones comunales para áreas pequeñas de la CASEN (MDSF) 2009 y 2011 (línea tradicional) y "
                "2013-2022 (nueva línea); estimación comunal CASEN 2006 tal como la registra el SINIM, para 2006",
                "CASEN small-area estimates (MDSF) 2009, 2011 (traditional line) and 2013-2022 (new line); "
                "CASEN 2006 commune estimate as carried by SINIM for 2006"),
        years_observed=("2006, 2009, 2011 | 2013, 2015, 2017, 2020, 2022",) * 2,
        segments=("hasta 2012 línea de pobreza tradicional; desde 2013 nueva línea (sin relleno entre 2012 y 2013)",
                  "<=2012 traditional poverty line; >=2013 new line (no filling across 2012/2013)"),
        caveat=("porcentaje de personas; el cambio de metodología de 2013 sube los niveles (en 2011 la nueva línea "
                "supera a la tradicional en la mayoría de las comunas): use efectos de año o quédese a un lado de "
                "2013; la columna pobreza del SINIM repite el mismo valor en 2006-2012 y solo se usa para 2006",
                "percent of persons; the 2013 methodology change raises levels (2011: new line above traditional "
                "in most communes), so use year effects or stay on one side of 2013; SINIM's pobreza column is "
                "the same value in 2006-2012 and is used for 2006 only"),
        short=("pobreza por ingresos %, CASEN, sin puente entre las líneas de 2012 y 2013",
               "income poverty %, CASEN, not bridged across the 2012/2013 poverty lines")),
    "poverty_new": dict(
        source=("estimaciones para áreas pequeñas de la CASEN (MDSF), nueva línea de pobreza",
                "CASEN small-area estimates (MDSF), new poverty line"),
        years_observed=("2011 (reestimada), 2013, 2015, 2017, 2020, 2022",
                        "2011 (re-estimated), 2013, 2015, 2017, 2020, 2022"),
        segments=("desde 2011", ">=2011"),
        caveat=("porcentaje de personas; sin valor antes de 2011", "percent of persons; missing before 2011"),
        short=("pobreza por ingresos %, nueva línea, desde 2011", "income poverty %, new line, from 2011")),
    "poverty_multidimensional": dict(
        source=("estimaciones para áreas pequeñas de la CASEN (MDSF), pobreza multidimensional",
                "CASEN small-area estimates (MDSF), multidimensional poverty"),
        years_observed=("2015, 2017, 2022",) * 2,
        segments=("desde 2015", ">=2015"),
        caveat=("porcentaje de personas; sin valor antes de 2015", "percent of persons; missing before 2015"),
        short=("pobreza multidimensional %, desde 2015", "multidimensional poverty %, from 2015")),
    "health_spending_pc": dict(
        source=("SINIM (SUBDERE): saludtotalpc 2006-2012; variable 1134 'gasto anual del área salud por habitante "
                "inscrito validado' 2019-2022",
                "SINIM (SUBDERE): saludtotalpc 2006-2012; variable 1134 'gasto anual del área salud por habitante "
                "inscrito validado' 2019-2022"),
        years_observed=("2006-2012 | 2019-2022",) * 2,
        segments=("2006-2012 por habitante; 2019-2022 por inscrito validado",
                  "2006-2012 per inhabitant; 2019-2022 per enrolled (validated) inhabitant"),
        caveat=("miles de pesos nominales (M$), sin corrección por inflación; 2013-2018 sin dato; las celdas "
                "publicadas como texto ('Costo Fijo', comunas pequeñas) quedan sin valor y se rellenan según la "
                "regla; las filas con el código 99 de SINIM en todos los campos del área salud (sin dato: 144 "
                "comuna-años, todas las comunas de Aysén y algunas de las regiones 13, 05, 12, 02, 06, 10 y 04) "
                "quedan sin valor, no como M$ 99; en 2006-2012 hay valores extremos (10207 en 2011: 1.421 M$; 10401 en 2008: 989 M$) y dos "
                "ceros; la variable 1134 tiene valores extremos (hasta 1,1 millones de M$ por persona) en "
                "algunas comunas",
                "thousands of nominal pesos (M$), no inflation correction; 2013-2018 missing; cells published as "
                "text ('Costo Fijo', small communes) are missing and filled by the rule; rows with SINIM's code 99 "
                "in every field of the health area (no data: 144 commune-years, every Aysén commune and some in "
                "regions 13, 05, 12, 02, 06, 10 and 04) are missing, not M$ 99; 2006-2012 has extreme "
                "values (10207 in 2011: 1,421 M$; 10401 in 2008: 989 M$) and two zeros; variable 1134 has "
                "extreme outliers (up to 1.1 million M$ per person) in a few communes"),
        short=("gasto municipal en salud por habitante, M$ nominales, SINIM 2006-2012 y 2019-2022",
               "municipal health spending per head, nominal M$, SINIM 2006-2012 and 2019-2022")),
    "schooling": dict(
        source=("Censo 2017 (INE), nivel educacional más alto (conteos NivelEducacional)",
                "Census 2017 (INE), highest education level (NivelEducacional counts)"),
        years_observed=("2017 (usado en todos los años)", "2017 (used for every year)"),
        segments=("constante en el tiempo", "time-invariant"),
        caveat=("porcentaje de personas con nivel declarado cuyo nivel más alto es secundario (científico-"
                "humanista, técnico-profesional, humanidades, técnica comercial/industrial/normalista) o superior; "
                "el denominador incluye a niños que aún estudian; constante en el tiempo, por lo que desaparece "
                "con efectos fijos (use re o cre)",
                "percent of persons with a declared level whose highest level is secondary (científico-humanista, "
                "técnico-profesional, humanidades, técnica comercial/industrial/normalista) or higher; includes "
                "children still at school in the denominator; constant over years, so it vanishes under fixed "
                "effects (use re or cre)"),
        short=("% con secundaria o más, censo 2017, constante", "% with secondary or higher, census 2017, constant")),
    "sapu": dict(
        source=("registro de establecimientos del DEIS (foto 2022-2023): SAPU y SAR con fecha de inicio",
                "DEIS establishment register (2022-2023 snapshot): SAPU and SAR with opening dates"),
        years_observed=("fechas de inicio 1992-2021", "opening dates 1992-2021"),
        segments=("un segmento", "one segment"),
        caveat=("175 de 312 SAPU/SAR tienen la fecha ficticia 2009-01-01 y 79 no tienen fecha: se cuentan como "
                "abiertos en todos los años y los comuna-años que dependen de ellos quedan marcados; los servicios "
                "cerrados antes de la foto no aparecen; casi todas las fechas reales son posteriores a 2012, de modo "
                "que en 2000-2015 solo 5 comunas cambian de valor y un modelo de efectos fijos descansa en ellas",
                "175 of 312 SAPU/SAR carry the placeholder date 2009-01-01 and 79 have no date: they are counted "
                "as open in every year and the commune-years resting on them are flagged; services closed before "
                "the snapshot are absent; almost all real dates are after 2012, so in 2000-2015 only 5 communes "
                "change value and a fixed-effects model rests on them"),
        short=("SAPU/SAR abierto ese año, registro DEIS, fechas ficticias supuestas abiertas",
               "SAPU/SAR open that year, DEIS register, placeholder dates assumed open")),
    "distance_hospital_km": dict(
        source=("registro de hospitales del DEIS (NIVEL_COM 'Alta Complejidad', 81 hospitales) y coordenadas de la "
                "cabecera comunal del registro (BCN)",
                "DEIS hospital register (NIVEL_COM 'Alta Complejidad', 81 hospitals) and the commune seat "
                "coordinates of the registry (BCN)"),
        years_observed=("red 2022-2023 (usada en todos los años)", "2022-2023 network (used for every year)"),
        segments=("constante en el tiempo", "time-invariant"),
        caveat=("distancia en línea recta (haversine), no tiempo de viaje; la red actual se aplica a años pasados; "
                "Isla de Pascua y Juan Fernández quedan a cientos o miles de km; constante en el tiempo, por lo que "
                "desaparece con efectos fijos (use re o cre)",
                "straight-line (haversine) distance, not travel time; today's network applied to past years; "
                "Isla de Pascua and Juan Fernández are hundreds or thousands of km away; time-invariant, so it "
                "vanishes under fixed effects (use re or cre)"),
        short=("km en línea recta al hospital de alta complejidad más cercano, red actual, constante",
               "straight-line km to the nearest high-complexity hospital, current network, constant")),
}
BRAZIL_SOURCES = {
    "health_spending_pc": dict(
        source=("gasto público municipal en salud por habitante del SIOPS (en el panel de Brasil)",
                "SIOPS municipal public health spending per inhabitant (in the Brazil panel)"),
        years_observed=("2000-2019",) * 2, segments=("un segmento", "one segment"),
        caveat=("reales nominales, sin corrección por inflación; sin relleno",
                "nominal reais, no inflation correction; not filled"),
        short=("gasto en salud por habitante, SIOPS, R$ nominales", "health spending per head, SIOPS, nominal R$")),
    "poverty": dict(
        source=("Atlas Brasil (PNUD/IPEA/FJP) de los censos 1991, 2000 y 2010: % de pobres",
                "Atlas Brasil (PNUD/IPEA/FJP) from the 1991, 2000 and 2010 censuses: % poor"),
        years_observed=("1991, 2000, 2010",) * 2, segments=("un segmento", "one segment"),
        caveat=("solo años censales; entre censos los valores son una recta, así que un modelo de efectos fijos "
                "descansa en esas tendencias interpoladas; después de 2010 se arrastra el valor de 2010 (marcado)",
                "census years only; between censuses the values are a straight line, so a fixed-effects model "
                "rests on those interpolated trends; values after 2010 are carried forward (flagged)"),
        short=("% de pobres, censos (Atlas Brasil)", "% poor, censuses (Atlas Brasil)")),
    "income_pc": dict(
        source=("Atlas Brasil: ingreso per cápita (R$ de agosto de 2010)",
                "Atlas Brasil: income per capita (R$ of August 2010)"),
        years_observed=("1991, 2000, 2010",) * 2, segments=("un segmento", "one segment"),
        caveat=("solo años censales; entre censos los valores son una recta (interpolados); después de 2010 se "
                "arrastra (marcado)",
                "census years only; between censuses the values are a straight line (interpolated); after 2010 "
                "carried forward (flagged)"),
        short=("ingreso per cápita, censos (Atlas Brasil)", "income per capita, censuses (Atlas Brasil)")),
    "gini": dict(
        source=("Atlas Brasil: índice de Gini del ingreso per cápita",
                "Atlas Brasil: Gini index of income per capita"),
        years_observed=("1991, 2000, 2010",) * 2, segments=("un segmento", "one segment"),
        caveat=("solo años censales; entre censos los valores son una recta (interpolados); después de 2010 se "
                "arrastra (marcado)",
                "census years only; between censuses the values are a straight line (interpolated); after 2010 "
                "carried forward (flagged)"),
        short=("Gini del ingreso, censos (Atlas Brasil)", "income Gini, censuses (Atlas Brasil)")),
}
TIME_INVARIANT = {"schooling", "distance_hospital_km"}
SOURCE_FIELDS = ("source", "years_observed", "segments", "caveat")


def in_language(pair, lang: str | None = None) -> str:
    """The Spanish or English member of a (es, en) pair."""
    return pair[1] if (lang or get_language()) == "en" else pair[0]


def sources_of(country: str) -> dict:
    """The covariates brecha builds for a country ("CL" or "BR"), each with its texts."""
    return CHILE_SOURCES if country == "CL" else BRAZIL_SOURCES


def rule_text(name: str, country: str, fill: str | None, lang: str | None = None) -> str:
    """How ``name`` is filled, in words: its own rule (constant, SAPU, not filled) or ``fill`` with its
    segments; ``fill=None`` describes the option and its default (for :func:`covariate_sources`)."""
    if name in TIME_INVARIANT:
        return in_language(RULE_TEXT["constant"], lang)
    if name == "sapu" and country == "CL":
        return in_language(RULE_TEXT["sapu"], lang)
    if name == "health_spending_pc" and country == "BR":
        return in_language(RULE_TEXT["not_filled"], lang)
    segments = MSG("segments", lang, segments=in_language(sources_of(country)[name]["segments"], lang))
    if fill is None:
        return MSG("fill_option", lang, rule=in_language(RULE_TEXT["interpolate"], lang)) + "; " + segments
    return f"{fill} ({in_language(RULE_TEXT[fill], lang)}); {segments}"


def covariate_sources(country: str = "CL", lang: str | None = None) -> pd.DataFrame:
    """One row per covariate: ``covariate, source, years_observed, segments, filling_rule, caveat``
    (texts in ``lang``)."""
    country = "CL" if str(country).upper() == "CL" else "BR"
    rows = []
    for name, s in sources_of(country).items():
        row = {"covariate": name}
        row.update({f: in_language(s[f], lang) for f in SOURCE_FIELDS[:3]})
        row["filling_rule"] = rule_text(name, country, None, lang)
        row["caveat"] = in_language(s["caveat"], lang)
        rows.append(row)
    return pd.DataFrame(rows, columns=["covariate", *SOURCE_FIELDS[:3], "filling_rule", "caveat"])
