"""Determinants: panel and count models of infant mortality on commune characteristics.

>>> from brecha import datasets, covariates, models                       # doctest: +SKIP
>>> panel = covariates.attach(datasets.chile(), ["poverty", "health_spending_pc"])  # doctest: +SKIP
>>> res = models.fit_models(panel, "infant", ["poverty", "health_spending_pc"],
...                         models=("pooled", "fe", "re"), se="clustered", years=range(2006, 2013))  # doctest: +SKIP
>>> print(res.summary("en"))                                               # doctest: +SKIP

Linear models (the rate per 1,000): ``pooled``, ``fe`` (unit effects), ``fe2`` (unit and year effects),
``re`` (Swamy-Arora, plm-compatible on unbalanced panels), ``between``, ``fd`` (first differences),
``cre`` (correlated random effects, Mundlak). Count models (deaths with a log(births) offset):
``poisson``, ``negbin``, ``poisson_fe`` (conditional), ``poisson_re`` (gamma), ``negbin_fe`` (NB2 with unit
indicators, Allison & Waterman 2002). See docs/models.md.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .. import progress
from ..errors import InputError, warn
from ..i18n import Catalog
from ._design import Design, design_from_frame, design_from_panel
from .identification import COUNT_MODELS, LINEAR_MODELS, check_panel, no_death_units
from .results import Fit, ModelResults, model_label

__all__ = ["fit_models", "fit_frame", "ModelResults", "Fit", "model_label", "MODELS", "LINEAR_MODELS", "COUNT_MODELS"]

MODELS = LINEAR_MODELS + COUNT_MODELS  # the two kinds are listed in identification.py, which checks them
MODEL_ALIASES = {"ols": "pooled", "within": "fe", "fixed": "fe", "twoways": "fe2", "twoway": "fe2",
                 "random": "re", "mundlak": "cre", "nb": "negbin", "nbreg": "negbin",
                 "poisson-fe": "poisson_fe", "poisson-re": "poisson_re",
                 "negbin-fe": "negbin_fe", "nb_fe": "negbin_fe", "nbreg_fe": "negbin_fe", "be": "between"}

MSG = Catalog({
    "unknown_model": ("modelo desconocido '{name}'; modelos: {models}", "unknown model '{name}'; models: {models}"),
    "no_models": ("indique al menos un modelo", "give at least one model"),
    "dropped_model": ("{model}: sin covariables que varíen en el tiempo, no se estima",
                      "{model}: no time-varying covariate, not estimated"),
    "weights_ignored": ("{models}: sin ponderación por nacimientos (no tiene forma ponderada aquí)",
                        "{models}: not weighted by births (no weighted form here)"),
    "count_needs_counts": ("los modelos de conteo necesitan defunciones y nacimientos (un Panel)",
                           "count models need deaths and births (a Panel)"),
    "hausman_conventional": ("la prueba de Hausman clásica usa las varianzas convencionales de EF y EA; la "
                             "versión robusta es la regresión auxiliar de Mundlak",
                             "the classic Hausman test uses the conventional FE and RE variances; the robust "
                             "version is the Mundlak auxiliary regression"),
    "dk_counts": ("modelos de conteo: Driscoll-Kraay no disponible, se usan errores agrupados por unidad",
                  "count models: Driscoll-Kraay not available, clustered-by-unit errors used"),
    "fe_dropped": ("la Poisson de efectos fijos descarta {n} {n:unidad|unidades} sin ninguna defunción ({units}): no "
                   "{n:aporta|aportan} información a un modelo con efectos de unidad",
                   "fixed-effects Poisson drops {n} {n:unit|units} with no death at all ({units}): {n:it carries|they "
                   "carry} no information in a model with unit effects"),
    "nb_fe_dropped": ("la binomial negativa de efectos fijos descarta {n} {n:unidad|unidades} sin ninguna defunción "
                      "({units}): no {n:aporta|aportan} información a un modelo con efectos de unidad",
                      "fixed-effects negative binomial drops {n} {n:unit|units} with no death at all ({units}): "
                      "{n:it carries|they carry} no information in a model with unit effects"),
    "nothing_estimated": ("ningún modelo pedido se pudo estimar: {reasons}", "none of the models asked could be "
                          "estimated: {reasons}"),
    "nothing_estimated_hint": ("use re o cre (Mundlak), que estiman covariables constantes en el tiempo, o pooled; o "
                               "agregue una covariable que cambie en el tiempo",
                               "use re or cre (Mundlak), which estimate time-invariant covariates, or pooled; or "
                               "add a covariate that changes over time"),
    "tests_skipped": ("pruebas de efectos de unidad (F, Breusch-Pagan, Hausman) no calculadas: {why}",
                      "tests of unit effects (F, Breusch-Pagan, Hausman) not run: {why}"),
    "nb_alpha_zero": ("negbin: la sobredispersión estimada es nula (alfa < 1e-6); el modelo se reduce a la Poisson "
                      "y alfa se fija en 0", "negbin: the estimated overdispersion is nil (alpha < 1e-6); the model "
                      "reduces to the Poisson and alpha is set to 0"),
    "nb_fe_alpha_zero": ("negbin_fe: la sobredispersión estimada es nula (alfa < 1e-6); el modelo se reduce a la "
                         "Poisson con efectos fijos y alfa se fija en 0",
                         "negbin_fe: the estimated overdispersion is nil (alpha < 1e-6); the model reduces to the "
                         "fixed-effects Poisson and alpha is set to 0"),
    "nb_fe_method": ("negbin_fe: binomial negativa NB2 no condicional con un indicador por unidad (Allison y Waterman "
                     "2002), no la NB condicional de Hausman-Hall-Griliches (xtnbreg, fe), cuyos efectos no son "
                     "efectos fijos verdaderos",
                     "negbin_fe: unconditional NB2 with one indicator per unit (Allison & Waterman 2002), not the "
                     "Hausman-Hall-Griliches conditional NB (xtnbreg, fe), whose effects are not true fixed effects"),
    "lr_overdispersion": ("RV sobredispersión (negbin_fe vs poisson_fe)",
                          "LR overdispersion (negbin_fe vs poisson_fe)"),
    "lr_overdispersion_note": ("H0: alfa = 0 (Poisson con efectos fijos); alfa en el borde: p = P(chi2(1) > RV)/2",
                               "H0: alpha = 0 (fixed-effects Poisson); alpha on the boundary: p = P(chi2(1) > LR)/2"),
    "bad_conf": ("el nivel de confianza debe estar entre 0 y 1 (p. ej. 0.95), no {value}",
                 "the confidence level must be between 0 and 1 (e.g. 0.95), not {value}"),
    "fit_problem": ("{model}: el ajuste no es fiable ({what}); no use los errores estándar de las filas marcadas "
                    "en la columna flag; pruebe con menos covariables, otros años u otro modelo",
                    "{model}: the fit cannot be trusted ({what}); do not use the standard errors of the rows "
                    "marked in the flag column; try fewer covariates, other years or another model"),
    "not_converged": ("el optimizador no convergió", "the optimiser did not converge"),
    "hessian_not_negative_definite": ("la hessiana de la log-verosimilitud no es definida negativa: no hay un "
                                      "máximo propio y la covarianza no está definida",
                                      "the log-likelihood Hessian is not negative definite: there is no proper "
                                      "maximum and the covariance is undefined"),
    "bad_se": ("error estándar 0 o no definido para {terms}", "standard error 0 or undefined for {terms}"),
    "re_truncated": ("la varianza del efecto de unidad estimada fue negativa ({value:.4g}) y se fijó en 0",
                     "the estimated unit-effect variance was negative ({value:.4g}) and was set to 0"),
})


def _resolve_models(models, lang: str | None = None) -> list[str]:
    if isinstance(models, str):
        models = [m for m in models.split(",")]
    out = []
    for m in models:
        text = str(m).strip().lower()
        if not text:
            continue
        key = MODEL_ALIASES.get(text, text.replace("-", "_"))
        if key not in MODELS:
            raise InputError(MSG("unknown_model", lang, name=m, models=", ".join(MODELS)))
        if key not in out:
            out.append(key)
    if not out:
        raise InputError(MSG("no_models", lang))
    return out


def fit_models(panel, outcome: str = "infant", covariates=(), models=("pooled", "fe", "re"),
               se: str = "clustered", years=None, weights: str | None = None, time_effects: bool = False,
               conf_level: float = 0.95, tests: bool = True, fill: str = "interpolate",
               lang: str | None = None) -> ModelResults:
    """Fit panel (rate per 1,000) and count (deaths, log-births offset) models of one outcome.

    Parameters
    ----------
    panel : Panel
        Births, deaths and the covariate columns (``brecha.covariates.attach`` adds Chilean ones).
    outcome : str
        ``infant`` (IMR), ``neonatal`` or ``postneonatal`` (aliases imr, nmr, pnmr accepted).
    covariates : list of str
        Panel columns. Time-invariant ones vanish under ``fe``/``fe2``/``fd``/``poisson_fe``/``negbin_fe``
        (noted).
    models : sequence of str
        Any of pooled, fe, fe2, re, between, fd, cre, poisson, negbin, poisson_fe, poisson_re, negbin_fe.
    se : str
        unadjusted, robust, clustered (by unit) or driscoll-kraay.
    years : iterable of int, optional
        Restrict to these years.
    weights : None or "births"
        Births-weighted linear models (pooled, fe, fe2, between).
    time_effects : bool
        Year effects: ``fe`` becomes two-way; other models get year indicators (not shown).
    fill : str
        Filling rule for covariates the panel lacks and brecha builds (``brecha.covariates``; their
        notes say so): interpolate, carry-forward or none.

    Returns
    -------
    ModelResults with ``.coefficients``, ``.tests`` (Hausman, robust Hausman, F for unit effects,
    Breusch-Pagan LM), ``.fit_info``, ``.notes`` and ``.summary(lang)``.

    Rows with zero or missing births, missing deaths or missing covariates are excluded and counted in
    the notes. References: see docs/models.md (Baltagi 2013; Wooldridge 2010; Cameron & Trivedi 2013).
    """
    wanted = _resolve_models(models, lang)
    if isinstance(covariates, str):
        covariates = covariates.split(",")
    covariates = [str(c).strip() for c in (covariates or []) if str(c).strip()]
    rebuilt = False
    if hasattr(panel, "data") and covariates:
        from .. import covariates as builder

        covariates = builder.resolve_names(covariates, panel.data.columns)   # the panel's own column wins

        build = builder.buildable(panel, covariates)
        if build:
            # built (or, on an embedded panel, rebuilt) for the years modelled and with the filling rule
            # asked, so that each one's note states its source and rule and counts the rows modelled
            if years is not None:
                panel = panel.subset(years=list(years))
            panel = builder.attach(panel, build, fill=fill, lang=lang)
            rebuilt = True
    design = design_from_panel(panel, outcome, covariates, years, weights, lang)
    panel_notes = [str(n) for n in getattr(panel, "notes", ())]
    if rebuilt:
        panel_notes = [n for n in panel_notes if not builder.is_standard_note(n)]
    notes = list(design.notes) + panel_notes
    from ..panel import resolve_outcome
    from ._design import MSG as DESIGN_MSG, outcome_label

    label = DESIGN_MSG("outcome_title", lang, outcome=outcome_label(resolve_outcome(outcome), lang))
    if any(m in COUNT_MODELS for m in wanted):
        label += DESIGN_MSG("outcome_counts", lang)
    return _run(design, wanted, se, time_effects, conf_level, tests, notes, lang, outcome_label=label)


def fit_frame(frame: pd.DataFrame, outcome: str, covariates, *, unit: str = "unit", year: str = "year",
              models=("pooled", "fe", "re"), se: str = "unadjusted", weights: str | None = None,
              time_effects: bool = False, conf_level: float = 0.95, tests: bool = True,
              lang: str | None = None) -> ModelResults:
    """Linear panel models of any long table (the outcome is used as it is, not as a rate).

    >>> import pandas as pd                                                  # doctest: +SKIP
    >>> g = pd.read_csv("grunfeld.csv")                                      # doctest: +SKIP
    >>> fit_frame(g, "inv", ["value", "capital"], unit="firm", models=["fe", "re"]).tests  # doctest: +SKIP
    """
    design = design_from_frame(frame, outcome, covariates, unit=unit, year=year, weights=weights, lang=lang)
    wanted = _resolve_models(models, lang)
    if any(m in COUNT_MODELS for m in wanted):
        raise InputError(MSG("count_needs_counts", lang))
    return _run(design, wanted, se, time_effects, conf_level, tests, list(design.notes), lang,
                outcome_label=outcome)


def _run(design: Design, wanted, se, time_effects, conf_level, run_tests, notes, lang, outcome_label):
    from . import count, linear, negbin_fe, random_effects
    from . import tests as spec

    if not 0 < float(conf_level) < 1:
        from ..intervals import conf_level_hint

        raise InputError(MSG("bad_conf", lang, value=conf_level), hint=conf_level_hint(conf_level, lang),
                         argument="conf_level")

    se = linear.resolve_se(se, lang)
    fits: dict[str, Fit] = {}
    cache: dict = {}

    def components():
        if "sa" not in cache:
            cache["sa"] = random_effects.components_of(design, time_effects)
        return cache["sa"]

    # The conventional covariance of a fit (from the same residuals when se is not "unadjusted") is used
    # by the classic Hausman test only, on the FE fit (FE2 with year effects; none when weighted, which is
    # compared unweighted) and the RE fit: the other fits skip it. Every linear fit but between and fd is
    # OLS of the arrays design.arrays() builds once (issue 19: transforms computed once, no refits).
    hausman = bool(run_tests and design.time_varying and any(m in LINEAR_MODELS for m in wanted))
    builders = {
        "pooled": lambda s: linear.fit_pooled(design, s, time_effects),
        "fe": lambda s: linear.fit_within(design, s, time_effects, unadjusted=hausman and not design.weights),
        "fe2": lambda s: linear.fit_within(design, s, True,
                                           unadjusted=hausman and time_effects and not design.weights),
        "between": lambda s: linear.fit_between(design, s),
        "fd": lambda s: linear.fit_first_difference(design, s, time_effects),
        "re": lambda s: random_effects.fit_random(design, s, time_effects, components=components(),
                                                  unadjusted=hausman),
        "cre": lambda s: random_effects.fit_random(design, s, time_effects, mundlak=True,
                                                   components=components(), unadjusted=False),
        "poisson": lambda s: count.fit_poisson(design, s, time_effects),
        "negbin": lambda s: count.fit_negbin(design, s, time_effects),
        "poisson_fe": lambda s: count.fit_poisson_fe(design, s, time_effects),
        "poisson_re": lambda s: count.fit_poisson_re(design, s, time_effects),
        "negbin_fe": lambda s: negbin_fe.fit_negbin_fe(design, s, time_effects),
    }
    if any(m in COUNT_MODELS for m in wanted) and design.counts is None:
        raise InputError(MSG("count_needs_counts", lang))
    # one year, one unit, no deaths: refused here with what to do, before any fit divides by zero
    no_tests = check_panel(design, wanted, se, time_effects, lang)
    # a bar on a terminal (brecha.progress): count models take tens of seconds on thousands of units
    for key in progress.track(wanted, "models", total=len(wanted), describe=str):
        fit = builders[key](se)
        if fit is None:
            notes.append(MSG("dropped_model", lang, model=key))
            continue
        if key == "fe" and time_effects:
            fit.model = "fe"
        fits[key] = fit
    if design.weights:
        unweighted = [m for m in wanted if m in ("re", "cre", "fd") or m in COUNT_MODELS]
        if unweighted:
            notes.append(MSG("weights_ignored", lang, models=", ".join(unweighted)))
    if se == "driscoll-kraay" and any(m in COUNT_MODELS for m in wanted):
        notes.append(MSG("dk_counts", lang))
    if not fits:   # every model asked was dropped (no time-varying covariate): say so, not an empty table
        raise InputError(MSG("nothing_estimated", lang, reasons="; ".join(
            MSG("dropped_model", lang, model=m) for m in wanted)), hint=MSG("nothing_estimated_hint", lang),
            argument="models")
    if "poisson_fe" in fits and fits["poisson_fe"].info.get("units_dropped_no_events"):
        notes.append(MSG("fe_dropped", lang, n=fits["poisson_fe"].info["units_dropped_no_events"],
                         units=no_death_units(design, lang)))
    if "negbin" in fits and fits["negbin"].info.get("alpha_at_zero"):
        notes.append(MSG("nb_alpha_zero", lang))
    if "negbin_fe" in fits:
        info = fits["negbin_fe"].info
        if info.get("units_dropped_no_events"):
            notes.append(MSG("nb_fe_dropped", lang, n=info["units_dropped_no_events"],
                             units=no_death_units(design, lang)))
        if info.get("alpha_at_zero"):
            notes.append(MSG("nb_fe_alpha_zero", lang))
        notes.append(MSG("nb_fe_method", lang))
    for key, fit in fits.items():
        message = _problem_message(key, fit, conf_level, lang)
        if message:
            notes.append(message)
            warn(message)
    if any(m in ("re", "cre") for m in fits) and components()["truncated"]:
        notes.append(MSG("re_truncated", lang, value=components()["sigma2_u_raw"]))

    rows = []
    linear_wanted = [m for m in wanted if m in LINEAR_MODELS]
    tests_note = ""
    if run_tests and linear_wanted and no_tests:
        tests_note = MSG("tests_skipped", lang, why=no_tests)
        notes.append(tests_note)
    elif run_tests and linear_wanted and design.time_varying:
        rows = _linear_tests(design, fits, se, time_effects, builders, lang, spec)
        if any(r["test"] for r in rows if "Hausman" in r["test"]):
            notes.append(MSG("hausman_conventional", lang))
    if run_tests and "negbin_fe" in fits:
        lr, p_value = negbin_fe.overdispersion_lr_test(fits["negbin_fe"])
        rows.append({"test": MSG("lr_overdispersion", lang), "statistic": lr, "df": 1.0, "p_value": p_value,
                     "df_denominator": np.nan, "note": MSG("lr_overdispersion_note", lang)})
    table = pd.DataFrame(rows, columns=["test", "statistic", "df", "p_value", "df_denominator", "note"])
    return ModelResults(fits, table, notes, outcome=outcome_label, se=se, conf_level=conf_level,
                        tests_note=tests_note)


def _problem_message(key: str, fit: Fit, conf_level: float, lang) -> str:
    """One bilingual sentence when a fit failed its checks or shows an SE of 0 or NaN, else ""."""
    table = fit.table(conf_level)
    bad = table[table["flag"].str.contains("se_", regex=False)]["term"].tolist()
    what = [MSG(code, lang) for code in fit.problems if code in MSG.messages]
    if bad:
        what.append(MSG("bad_se", lang, terms=", ".join(map(str, bad))))
    return MSG("fit_problem", lang, model=key, what="; ".join(what)) if what else ""


def _linear_tests(design, fits, se, time_effects, builders, lang, spec) -> list[dict]:
    """F for unit effects and BP LM (from pooled and within), Hausman classic and Mundlak."""
    rows = []
    if not time_effects:   # the F test compares the one-way fits (none is made for it with year effects)
        pooled = fits.get("pooled") or builders["pooled"]("unadjusted")
        fe = fits.get("fe") or builders["fe"]("unadjusted")
        rows.append(spec.f_test_effects(pooled.info["ssr"], fe.info["ssr"], design.nobs, design.n_units,
                                        len(design.time_varying), len(design.covariates), lang))
    # Breusch-Pagan on unweighted pooled OLS residuals (the call's arrays)
    a = design.arrays()
    X = np.column_stack([np.ones(a.nobs), a.X])
    beta, *_ = np.linalg.lstsq(X, a.y, rcond=None)
    rows.append(spec.breusch_pagan(a.y - X @ beta, a.units, lang))
    del X
    re_h = fits.get("re") or builders["re"]("unadjusted")
    if design.weights is None:
        # with year effects fe is the two-way fit too (one of them is made, never a second one for the test)
        fe_h = (fits.get("fe2") or fits.get("fe") if time_effects else fits.get("fe")) \
            or builders["fe2" if time_effects else "fe"]("unadjusted")
    else:
        # weighted FE against unweighted RE is not a Hausman comparison: the unweighted FE, from the call's
        # own unweighted within arrays (the RE components computed them already)
        from . import linear

        fe_h = linear.fit_within(design, "unadjusted", time_effects, weighted=False)
    if fe_h is not None:
        rows.append(spec.hausman(fe_h, re_h, lang))
    cre = fits.get("cre") or builders["cre"](se)
    rows.append(spec.hausman_mundlak(cre, lang))
    return rows
