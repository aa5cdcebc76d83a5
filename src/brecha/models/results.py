"""Results of the panel and count models: one fitted model (:class:`Fit`) and a set of them
(:class:`ModelResults`) with tidy tables and a readable summary in Spanish or English.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..i18n import Catalog, get_language

MSG = Catalog({
    "title": ("Modelos de {outcome}", "Models of {outcome}"),
    "se": ("errores estándar: {se}", "standard errors: {se}"),
    "nobs": ("observaciones {nobs}, unidades {units}", "observations {nobs}, units {units}"),
    "tests": ("Pruebas", "Tests"),
    "notes": ("Notas:", "Notes:"),
    "no_tests": ("(ninguna prueba: pida fe y re, o pooled y fe)", "(no tests: ask for fe and re, or pooled and fe)"),
    "rr": ("RR = razón de tasas por unidad de la covariable", "RR = rate ratio per unit of the covariate"),
    "conf": ("IC {level:g}%", "{level:g}% CI"),
    "head_term": ("término", "term"),
    "head_estimate": ("estimación", "estimate"),
    "head_se": ("ee", "se"),
    "head_stat": ("estad.", "stat"),
})

# The method and standard-error descriptions travel in English in the tables (``method``, ``se_type``:
# stable across languages, like every brecha result table); on screen and in notes they are shown in the
# user's language through this phrase list (applied in order, longer phrases first).
PHRASES_ES = (
    ("Swamy-Arora (plm ercomp 'swar'; Baltagi-Chang 1994 for unbalanced panels)",
     "Swamy-Arora (plm ercomp 'swar'; Baltagi-Chang 1994 para paneles no balanceados)"),
    ("correlated random effects (Mundlak unit means)", "efectos aleatorios correlacionados (medias de unidad de Mundlak)"),
    ("gamma random-effects Poisson (Hausman-Hall-Griliches 1984)",
     "Poisson con efectos aleatorios gamma (Hausman-Hall-Griliches 1984)"),
    ("conditional (fixed-effects) Poisson", "Poisson condicional (efectos fijos)"),
    ("unconditional negative binomial NB2 with unit indicators (Allison-Waterman 2002)",
     "binomial negativa NB2 no condicional con indicadores de unidad (Allison-Waterman 2002)"),
    ("random effects", "efectos aleatorios"),
    ("unbalanced, theta per unit", "no balanceado, theta por unidad"),
    (", year effects as regressors", ", efectos de año como regresores"),
    ("within (unit and year fixed effects)", "within (efectos fijos de unidad y año)"),
    ("within (unit fixed effects)", "within (efectos fijos de unidad)"),
    ("between (OLS on unit means)", "between (MCO sobre las medias de unidad)"),
    ("first differences with intercept (plm default)", "primeras diferencias con intercepto (por defecto en plm)"),
    ("pooled OLS", "MCO agrupado"),
    ("Poisson GLM", "MLG de Poisson"),
    ("negative binomial NB2", "binomial negativa NB2"),
    ("offset log(births)", "offset log(nacimientos)"),
    (" with year effects", " con efectos de año"),
    (" and year effects", " y efectos de año"),
    (", year effects", ", efectos de año"),
    (", births-weighted", ", ponderado por nacimientos"),
    ("unadjusted (classic)", "no ajustados (clásicos)"),
    ("heteroskedasticity-robust (White)", "robustos a la heterocedasticidad (White)"),
    ("clustered by unit (Driscoll-Kraay not available for count models)",
     "agrupados por unidad (Driscoll-Kraay no disponible en modelos de conteo)"),
    ("robust = clustered by unit (sandwich of unit scores)",
     "robustos = agrupados por unidad (sándwich de los scores de cada unidad)"),
    ("robust (sandwich of unit scores)", "robustos (sándwich de los scores de cada unidad)"),
    ("robust (sandwich, HC0)", "robustos (sándwich, HC0)"),
    ("clustered by unit", "agrupados por unidad"),
    ("Driscoll-Kraay (Bartlett kernel, bandwidth", "Driscoll-Kraay (núcleo de Bartlett, ancho de banda"),
    ("model-based", "basados en el modelo"),
)


def describe(text: str, lang: str | None = None) -> str:
    """A method or standard-error description (English in the tables) in the user's language."""
    import re

    text = str(text)
    if (lang or get_language()) == "en":
        return text
    for en, es in PHRASES_ES:
        text = text.replace(en, es)
    return re.sub(r"\bbalanced\b", "balanceado", text)

MODEL_LABELS = {
    "pooled": ("MCO agrupado", "Pooled OLS"),
    "fe": ("Efectos fijos (unidad)", "Fixed effects (unit)"),
    "fe2": ("Efectos fijos (unidad y año)", "Fixed effects (unit and year)"),
    "re": ("Efectos aleatorios", "Random effects"),
    "between": ("Entre unidades (between)", "Between"),
    "fd": ("Primeras diferencias", "First differences"),
    "cre": ("Efectos aleatorios correlacionados (Mundlak)", "Correlated random effects (Mundlak)"),
    "poisson": ("Poisson", "Poisson"),
    "negbin": ("Binomial negativa", "Negative binomial"),
    "poisson_fe": ("Poisson con efectos fijos (condicional)", "Fixed-effects (conditional) Poisson"),
    "poisson_re": ("Poisson con efectos aleatorios (gamma)", "Random-effects (gamma) Poisson"),
    "negbin_fe": ("Binomial negativa con efectos fijos (indicadores de unidad)",
                  "Fixed-effects negative binomial (unit indicators)"),
}

COEFFICIENT_COLUMNS = ["model", "term", "estimate", "se", "statistic", "p_value", "lower", "upper"]
TEST_COLUMNS = ["test", "statistic", "df", "p_value"]


def model_label(key: str, lang: str | None = None) -> str:
    es, en = MODEL_LABELS.get(key, (key, key))
    return en if (lang or get_language()) == "en" else es


@dataclass
class Fit:
    """One fitted model: coefficients, covariance and what was estimated.

    ``problems`` lists what makes the fit untrustworthy (``not_converged``, ``hessian_not_negative_definite``);
    they travel in the ``flag`` column of every term, with ``se_zero`` / ``se_undefined`` for a term whose SE
    is 0 or not finite (never shown without a flag; :func:`fit_warnings` words them).

    ``distribution`` is ``"t"`` (Student t with ``df_resid`` degrees of freedom, as plm does for pooled,
    within, between and first-difference models) or ``"normal"`` (random effects, count models).
    """

    model: str
    variant: str
    params: pd.Series
    cov: pd.DataFrame
    se_type: str
    distribution: str = "t"
    df_resid: float | None = None
    nobs: int = 0
    n_units: int = 0
    info: dict = field(default_factory=dict)
    cov_unadjusted: pd.DataFrame | None = None
    rate_ratio: bool = False
    hidden_terms: tuple = ()
    problems: tuple = ()           # codes from ``_scaling.hessian_problems`` (not_converged, ...)

    def table(self, conf_level: float = 0.95) -> pd.DataFrame:
        from .. import distributions

        est = self.params.to_numpy(float)
        se = np.sqrt(np.clip(np.diag(self.cov.to_numpy(float)), 0, None))
        with np.errstate(divide="ignore", invalid="ignore"):
            stat = est / se
        if self.distribution == "t" and self.df_resid:
            p = 2 * distributions.t_sf(np.abs(stat), self.df_resid)
            q = distributions.t_quantile(0.5 + conf_level / 2, self.df_resid)
        else:
            p = 2 * distributions.normal_sf(np.abs(stat))
            q = distributions.normal_quantile(0.5 + conf_level / 2)
        out = pd.DataFrame({
            "model": self.model, "term": list(self.params.index), "estimate": est, "se": se,
            "statistic": stat, "p_value": p, "lower": est - q * se, "upper": est + q * se,
        })
        if self.rate_ratio:
            out["rate_ratio"] = np.exp(out["estimate"])
            out["rr_lower"] = np.exp(out["lower"])
            out["rr_upper"] = np.exp(out["upper"])
        out["method"] = self.variant
        out["se_type"] = self.se_type
        out["distribution"] = self.distribution
        out["conf_level"] = conf_level
        out["flag"] = term_flags(se, self.problems)
        keep = ~out["term"].isin(self.hidden_terms)
        return out[keep].reset_index(drop=True)


@dataclass
class ModelResults:
    """Everything one call to :func:`brecha.models.fit_models` estimated.

    - ``coefficients``: model, term, estimate, se, statistic, p_value, lower, upper (+ method, se_type,
      distribution, conf_level; + rate_ratio, rr_lower, rr_upper for count models)
    - ``tests``: test, statistic, df, p_value (+ df_denominator, note)
    - ``fit_info``: one row per model (nobs, units, df_resid, r_squared, variance components, theta, ...)
    - ``notes``: rows used and excluded, time-invariant covariates, covariate sources and filling rules
    """

    fits: dict
    tests: pd.DataFrame
    notes: list
    outcome: str = "rate"
    se: str = "unadjusted"
    conf_level: float = 0.95
    tests_note: str = ""   # why the tests of unit effects were not run (one unit, one year), when so

    @property
    def coefficients(self) -> pd.DataFrame:
        tables = [f.table(self.conf_level) for f in self.fits.values()]
        if not tables:
            return pd.DataFrame(columns=COEFFICIENT_COLUMNS)
        out = pd.concat(tables, ignore_index=True)
        return out

    @property
    def fit_info(self) -> pd.DataFrame:
        rows = []
        for f in self.fits.values():
            row = {"model": f.model, "method": f.variant, "nobs": f.nobs, "n_units": f.n_units,
                   "df_resid": f.df_resid, "se_type": f.se_type}
            row.update(f.info)
            rows.append(row)
        return pd.DataFrame(rows)

    def summary(self, lang: str | None = None) -> str:
        lang = lang or get_language()
        lines = [MSG("title", lang, outcome=self.outcome), "=" * 72]
        coefs = self.coefficients
        for key, f in self.fits.items():
            lines.append("")
            # fe with --time-effects is the two-way model: name it so
            shown = "fe2" if key == "fe" and f.variant.startswith("within (unit and year") else key
            lines.append(f"{model_label(shown, lang)} [{key}]: {describe(f.variant, lang)}")
            lines.append("  " + MSG("nobs", lang, nobs=f.nobs, units=f.n_units) + "; "
                         + MSG("se", lang, se=describe(f.se_type, lang)))
            extra = []
            for name, symbol in (("r_squared", "R²"), ("sigma2_e", "σ²_e"), ("sigma2_u", "σ²_u"), ("theta", "θ"),
                                 ("theta_min", "θ min"), ("theta_median", "θ p50"), ("theta_max", "θ max"),
                                 ("alpha", "α")):
                if name in f.info and f.info[name] is not None and np.isfinite(f.info[name]):
                    extra.append(f"{symbol} {f.info[name]:.4g}")
            if extra:
                lines.append("  " + ", ".join(extra))
            t = coefs[coefs["model"] == key]
            term, est, se_ = MSG("head_term", lang), MSG("head_estimate", lang), MSG("head_se", lang)
            stat = MSG("head_stat", lang)
            head = (f"  {term:<28}{est:>12}{se_:>11}{stat:>8}{'p':>9}  "
                    f"{MSG('conf', lang, level=100 * self.conf_level)}")
            if f.rate_ratio:
                head += "    RR"
            lines.append(head)
            for r in t.itertuples():
                line = (f"  {str(r.term)[:27]:<28}{r.estimate:>12.5g}{r.se:>11.4g}{r.statistic:>8.2f}"
                        f"{_p(r.p_value):>9}  [{r.lower:.4g}, {r.upper:.4g}]")
                if f.rate_ratio:
                    line += f"    {r.rate_ratio:.4g} [{r.rr_lower:.4g}, {r.rr_upper:.4g}]"
                if r.flag:
                    line += f"    [{r.flag}]"
                lines.append(line)
        lines.append("")
        lines.append(MSG("tests", lang))
        if len(self.tests):
            for r in self.tests.itertuples():
                df = "" if pd.isna(r.df) else f"df {r.df:g}"
                if "df_denominator" in self.tests.columns and not pd.isna(r.df_denominator):
                    df += f", {r.df_denominator:g}"
                lines.append(f"  {r.test:<48} {r.statistic:>10.4f}  {df:<12} p {_p(r.p_value)}")
                if isinstance(getattr(r, "note", None), str) and r.note:
                    lines.append(f"      {r.note}")
        else:
            lines.append("  " + (f"({self.tests_note})" if self.tests_note else MSG("no_tests", lang)))
        if any(f.rate_ratio for f in self.fits.values()):
            lines.append("  " + MSG("rr", lang))
        if self.notes:
            lines.append("")
            lines.append(MSG("notes", lang))
            for n in self.notes:
                lines.append(f"  - {n}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()


def term_flags(se: np.ndarray, problems=()) -> np.ndarray:
    """The ``flag`` of each coefficient: the fit's problems, plus ``se_zero`` (SE = 0) or ``se_undefined``
    (SE not finite); "" when all is well."""
    se = np.asarray(se, float)
    out = []
    for value in se:
        codes = list(problems)
        if not np.isfinite(value):
            codes.append("se_undefined")
        elif value == 0:
            codes.append("se_zero")
        out.append(";".join(codes))
    return np.array(out, dtype=object)


def _p(p: float) -> str:
    if p is None or not np.isfinite(p):
        return "-"
    return "<0.0001" if p < 1e-4 else f"{p:.4f}"
