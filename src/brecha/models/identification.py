"""Which models a panel can identify, checked before any fit (:func:`check_panel`): a model that cannot be
estimated on these data is refused with what is wrong and what to do, never left to divide by zero inside a
fit ("unexpected internal error") or to return a number that means nothing.

- **No death** in the rows used: the rate is 0 everywhere, so no count model, nor any linear one; an outcome
  that never changes has no variation to model.
- **One year per unit** (a one-year panel, or units each seen once): fixed and random effects, first
  differences and the fixed-effects count models rest on change within units (``NEEDS_YEARS``); with too
  few years per unit the within regression has no residual degrees of freedom (N − n − K_W ≤ 0; with year
  effects, less T − 1 more).
- **One unit**: no unit effects and no comparison of units (``NEEDS_UNITS``), no standard errors clustered
  by unit (one cluster: the sandwich is 0, a SE of 1e-15 before), no year effects (one row a year).
- **Fixed-effects count models with one unit with deaths**: a unit without any death carries no
  information in a model with unit effects (Cameron & Trivedi 2013, §9.3); with one left there is nothing
  to compare.

The tests of unit effects (F, Breusch-Pagan, Hausman) then say why they were not run. Reference for the
degrees of freedom: Wooldridge (2010), *Econometric Analysis of Cross Section and Panel Data*, §10.5.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..errors import InputError
from ..i18n import Catalog
from ._design import Design
LINEAR_MODELS = ("pooled", "fe", "fe2", "re", "between", "fd", "cre")
COUNT_MODELS = ("poisson", "negbin", "poisson_fe", "poisson_re", "negbin_fe")
# models whose unit effects (or differences) rest on change within units: several years per unit needed
# (not poisson_re: with one year per unit its gamma-mixed likelihood is the NB2 one, well defined)
NEEDS_YEARS = ("fe", "fe2", "re", "cre", "fd", "poisson_fe", "negbin_fe")
# models with unit effects, or that compare units (between): at least two units needed
NEEDS_UNITS = ("fe", "fe2", "re", "cre", "between", "poisson_fe", "negbin_fe", "poisson_re")
FE_COUNT_MODELS = ("poisson_fe", "negbin_fe")

MSG = Catalog({
    "more": (" y {n} más", " and {n} more"),
    "one_year": ("el panel tiene un solo año ({year}): los efectos fijos y aleatorios necesitan al menos dos años "
                 "por unidad; no se estiman: {models}",
                 "the panel has one year ({year}): fixed and random effects need at least two years per unit; "
                 "not estimated: {models}"),
    "one_year_per_unit": ("cada unidad tiene un solo año (años {years}): los efectos fijos y aleatorios necesitan al "
                          "menos dos años por unidad; no se estiman: {models}",
                          "each unit has one year only (years {years}): fixed and random effects need at least "
                          "two years per unit; not estimated: {models}"),
    "few_years": ("solo {k} de {n} {n:unidad|unidades} {k:tiene|tienen} más de un año: {rows} "
                  "{rows:unidad-año no alcanza|unidad-años no alcanzan} para la regresión dentro de las unidades con "
                  "{p} {p:covariable que varía|covariables que varían} en el tiempo; no se estiman: {models}",
                  "only {k} of {n} {n:unit|units} {k:has|have} more than one year: {rows} "
                  "{rows:unit-year is|unit-years are} too few for the within-unit regression with {p} time-varying "
                  "{p:covariate|covariates}; not estimated: {models}"),
    "more_years_hint": ("use --models {models}, o un panel con más años",
                        "use --models {models}, or a panel with more years"),
    "one_unit": ("el panel tiene una sola unidad ({unit}){left}: los modelos con efectos de unidad o que comparan "
                 "unidades necesitan al menos dos unidades; no se estiman: {models}",
                 "the panel has one unit ({unit}){left}: models with unit effects or that compare units need at "
                 "least two units; not estimated: {models}"),
    "more_units_hint": ("use --models {models}{se}, o un panel con más unidades",
                        "use --models {models}{se}, or a panel with more units"),
    "one_unit_years": ("el panel tiene una sola unidad ({unit}){left}: con una fila por año, los efectos de año "
                       "absorben toda la variación y no queda nada que estimar",
                       "the panel has one unit ({unit}){left}: with one row per year, year effects absorb all the "
                       "variation and nothing is left to estimate"),
    "one_unit_years_hint": ("quite --time-effects", "leave out --time-effects"),
    "one_cluster": ("el panel tiene una sola unidad ({unit}){left}: los errores estándar agrupados por unidad "
                    "necesitan al menos dos unidades",
                    "the panel has one unit ({unit}){left}: standard errors clustered by unit need at least two "
                    "units"),
    "one_cluster_hint": ("use --se robust o unadjusted (o driscoll-kraay en los modelos lineales)",
                         "use --se robust or unadjusted (or driscoll-kraay for linear models)"),
    "no_deaths": ("no hay defunciones en el panel (ni en las unidades y años que se usan): un modelo de conteo no "
                  "se puede estimar, ni uno lineal de una tasa que vale 0 en todas partes; no se estiman: {models}",
                  "no deaths in the panel (or in the units and years kept): a count model cannot be estimated, nor "
                  "a linear model of a rate that is 0 everywhere; not estimated: {models}"),
    "no_deaths_hint": ("use un panel, años (--years) o resultado (--outcome infant en vez de neonatal o "
                       "postneonatal) con defunciones",
                       "use a panel, years (--years) or outcome (--outcome infant instead of neonatal or "
                       "postneonatal) with deaths"),
    "constant_outcome": ("el resultado ({outcome}) vale {value:g} en todas las filas usadas: no hay variación que "
                         "modelar; no se estiman: {models}",
                         "the outcome ({outcome}) is {value:g} in every row used: there is no variation to model; "
                         "not estimated: {models}"),
    "constant_outcome_hint": ("use otro resultado, otros años u otras unidades",
                              "use another outcome, other years or other units"),
    "one_unit_with_deaths": ("solo una unidad tiene defunciones ({unit}): los modelos de conteo con efectos fijos "
                             "necesitan al menos dos unidades con defunciones (las unidades sin ninguna no aportan "
                             "información: {none}); no se estiman: {models}",
                             "only one unit has deaths ({unit}): fixed-effects count models need at least two units "
                             "with deaths (units with none carry no information: {none}); not estimated: {models}"),
    "deaths_hint": ("use --models {models}, o un panel con más unidades o años",
                    "use --models {models}, or a panel with more units or years"),
    "why_one_unit": ("el panel tiene una sola unidad ({unit}){left}", "the panel has one unit ({unit}){left}"),
    "few_units": ("solo {n} unidades{left}: los efectos aleatorios estiman la varianza entre unidades con la "
                  "regresión de las medias de las unidades, que necesita más unidades que términos ({k}); no se "
                  "estiman: {models}",
                  "only {n} units{left}: random effects estimate the variance between units from the regression "
                  "of the units' means, which needs more units than terms ({k}); not estimated: {models}"),
    "why_few_units": ("solo {n} unidades{left}: las pruebas de Hausman y de Mundlak necesitan más unidades que "
                      "términos ({k})",
                      "only {n} units{left}: the Hausman and Mundlak tests need more units than terms ({k})"),
    "units_left": (" con filas utilizables (de {n} unidades leídas: {why})",
                   " with usable rows (of {n} units read: {why})"),
    "why_one_year": ("el panel tiene un solo año ({year})", "the panel has one year ({year})"),
    "why_few_years": ("muy pocos años por unidad para la regresión dentro de las unidades",
                      "too few years per unit for the within-unit regression"),
})


def _listed(names, lang, limit: int = 10) -> str:
    """Up to ``limit`` names separated by commas, then 'and N more'."""
    names = [str(n) for n in names]
    text = ", ".join(names[:limit])
    return text + (MSG("more", lang, n=len(names) - limit) if len(names) > limit else "")


def no_death_units(design: Design, lang) -> str:
    """The units of the design with no death in any of their years (named in the notes, never dropped quietly)."""
    deaths = design.frame.groupby("unit", sort=True)[design.counts[0]].sum()
    return _listed(deaths.index[~(deaths > 0)], lang)


def _left(design: Design, n: int, lang) -> str:
    """'' or, when exclusions left fewer units than were read (a region whose other communes lack births or a
    covariate), how many there were and why rows were excluded."""
    if design.units_read > n and design.excluded:
        return MSG("units_left", lang, n=design.units_read, why="; ".join(design.excluded))
    return ""


def check_panel(design: Design, wanted, se: str, time_effects: bool, lang) -> str:
    """Refuse the models the panel cannot identify, naming them and those that can be estimated:

    - no death in the rows used (the rate is 0 everywhere: no count model, nor any linear one), or an outcome
      that never changes;
    - one year per unit (a one-year panel): no within-unit change for fe, fe2, re, cre, fd, poisson_fe and
      negbin_fe; too few years per unit for the within regression's residual variance (fe, fe2, re, cre);
    - one unit: no unit effects or comparison of units (fe, fe2, re, cre, between, poisson_fe, negbin_fe,
      poisson_re), and no standard errors clustered by unit;
    - fixed-effects count models with a single unit with deaths (units with none carry no information).

    Returns why the tests of unit effects (F, Breusch-Pagan, Hausman) cannot be computed ("" when they can).
    """
    frame = design.frame
    # unit codes as the fits number them: the call's arrays' when a linear model builds them anyway (issue 19:
    # no second factorisation of the unit labels on large panels)
    if any(m in LINEAR_MODELS for m in wanted):
        codes = design.arrays().units
    else:
        codes = design.unit_index
    t_i = np.bincount(codes)
    labels = pd.Index(np.sort(frame["unit"].unique())) if len(t_i) < 2 else None

    def named(mask) -> pd.Index:
        """The unit labels of a boolean mask over the unit codes (sorted like the codes)."""
        return pd.Index(np.sort(frame["unit"].unique()))[mask]
    n, N = len(t_i), len(frame)
    years = np.sort(frame["year"].unique())
    k_w = len(design.time_varying)

    def others(blocked) -> str:
        """The models asked that can be estimated, or the simplest ones that can (pooled, poisson)."""
        ok = [m for m in wanted if m not in blocked]
        if not ok:
            ok = (["pooled"] if any(m in LINEAR_MODELS for m in blocked) else []) + \
                 (["poisson"] if any(m in COUNT_MODELS for m in blocked) else [])
        return ",".join(ok)

    # deaths and the outcome: nothing to model when there is no death, or the outcome never changes
    if design.counts is not None and not frame[design.counts[0]].to_numpy(float).sum() > 0:
        raise InputError(MSG("no_deaths", lang, models=", ".join(wanted)), hint=MSG("no_deaths_hint", lang))
    y = frame[design.outcome].to_numpy(float)
    if y.min() == y.max():
        raise InputError(MSG("constant_outcome", lang, outcome=design.outcome, value=float(y[0]),
                             models=", ".join(wanted)), hint=MSG("constant_outcome_hint", lang))
    # years per unit
    df_one = N - n - k_w                      # residual df of the within regression (sum of T_i - 1, less K_W)
    df_two = df_one - (len(years) - 1)        # with year effects
    if t_i.max() < 2:
        blocked = [m for m in wanted if m in NEEDS_YEARS]
        if blocked:
            if len(years) == 1:
                problem = MSG("one_year", lang, year=int(years[0]), models=", ".join(blocked))
            else:
                from ._design import _span

                problem = MSG("one_year_per_unit", lang, years=_span(years), models=", ".join(blocked))
            raise InputError(problem, hint=MSG("more_years_hint", lang, models=others(blocked)), argument="models")
    else:
        blocked = [m for m in wanted if (m in ("fe", "re", "cre") and (df_two if time_effects else df_one) <= 0)
                   or (m == "fe2" and df_two <= 0)]
        if blocked:
            raise InputError(MSG("few_years", lang, k=int((t_i > 1).sum()), n=n, rows=N, p=k_w,
                                 models=", ".join(blocked)),
                             hint=MSG("more_years_hint", lang, models=others(blocked)), argument="models")
    # units
    if n < 2:
        clustered = se == "clustered" or (se == "driscoll-kraay" and any(m in COUNT_MODELS for m in wanted))
        blocked = [m for m in wanted if m in NEEDS_UNITS]
        if blocked:
            raise InputError(MSG("one_unit", lang, unit=labels[0], left=_left(design, n, lang),
                                 models=", ".join(blocked)),
                             hint=MSG("more_units_hint", lang, models=others(blocked),
                                      se=" --se robust" if clustered else ""), argument="models")
        if clustered:
            raise InputError(MSG("one_cluster", lang, unit=labels[0], left=_left(design, n, lang)),
                             hint=MSG("one_cluster_hint", lang), argument="se")
        if time_effects:
            raise InputError(MSG("one_unit_years", lang, unit=labels[0], left=_left(design, n, lang)),
                             hint=MSG("one_unit_years_hint", lang), argument="time_effects")
    # few units: the between regression of Swamy-Arora (re; cre adds the units' means of the time-varying
    # covariates) has no residual degree of freedom with as many units as terms (Baltagi 2021, §2.3)
    terms = len(design.covariates) + 1
    if 2 <= n <= terms:
        blocked = [m for m in wanted if m == "re" or (m == "cre" and n <= len(design.time_varying) + terms)]
        if blocked:
            raise InputError(MSG("few_units", lang, n=n, k=terms, left=_left(design, n, lang),
                                 models=", ".join(blocked)),
                             hint=MSG("more_units_hint", lang, models=others(blocked), se=""), argument="models")
    counted = [m for m in wanted if m in COUNT_MODELS]
    if counted:
        deaths = frame[design.counts[0]].to_numpy(float)
        blocked = [m for m in counted if m in FE_COUNT_MODELS]
        per_unit = np.bincount(codes, weights=deaths, minlength=n)
        if blocked and (per_unit > 0).sum() < 2:
            ok = [m for m in wanted if m not in blocked] or ["poisson", "negbin"]
            raise InputError(MSG("one_unit_with_deaths", lang, unit=named(per_unit > 0)[0],
                                 none=_listed(named(~(per_unit > 0)), lang), models=", ".join(blocked)),
                             hint=MSG("deaths_hint", lang, models=",".join(ok)), argument="models")
    if n < 2:
        return MSG("why_one_unit", lang, unit=labels[0], left=_left(design, n, lang))
    if n <= terms:
        return MSG("why_few_units", lang, n=n, k=terms, left=_left(design, n, lang))
    if t_i.max() < 2 and len(years) == 1:
        return MSG("why_one_year", lang, year=int(years[0]))
    if t_i.max() < 2 or (df_two if time_effects else df_one) <= 0:
        return MSG("why_few_years", lang)
    return ""
