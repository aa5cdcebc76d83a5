"""Specification tests for panel models: Hausman (classic and regression-based), F test for unit
effects, Breusch-Pagan Lagrange multiplier test.

Each function returns one row (a dict) of the tests table: ``test, statistic, df, p_value`` plus
``df_denominator`` (F tests) and ``note``.
"""
from __future__ import annotations

import numpy as np

from ..i18n import Catalog
from .results import Fit, describe

MSG = Catalog({
    "hausman": ("Hausman (EF vs EA)", "Hausman (FE vs RE)"),
    "hausman_note": ("H0: los efectos de unidad no están correlacionados con las covariables (EA consistente); "
                     "varianzas convencionales; compara {terms}",
                     "H0: unit effects uncorrelated with the covariates (RE consistent); conventional "
                     "variances; compares {terms}"),
    "hausman_ginv": ("V_EF - V_EA no es definida positiva (autovalor mínimo {ev:.3g}): se usa la inversa "
                     "generalizada con gl = rango {rank}",
                     "V_FE - V_RE is not positive definite (smallest eigenvalue {ev:.3g}): a generalised "
                     "inverse is used, with df = its rank {rank}"),
    "hausman_aux": ("Hausman por regresión auxiliar (Mundlak)", "Hausman, auxiliary regression (Mundlak)"),
    "hausman_aux_note": ("Wald de las medias de unidad en el modelo de efectos aleatorios correlacionados; "
                         "errores estándar: {se}",
                         "Wald test of the unit means in the correlated random-effects model; standard "
                         "errors: {se}"),
    "f_effects": ("F de efectos de unidad (agrupado vs EF)", "F test for unit effects (pooled vs FE)"),
    "f_note": ("H0: no hay efectos de unidad (MCO agrupado basta)", "H0: no unit effects (pooled OLS suffices)"),
    "bp": ("Breusch-Pagan LM de efectos de unidad", "Breusch-Pagan LM for unit effects"),
    "balanced": ("panel balanceado", "balanced panel"),
    "unbalanced": ("forma para paneles no balanceados (Baltagi-Li 1990)", "unbalanced form (Baltagi-Li 1990)"),
    "bp_note": ("H0: varianza del efecto de unidad = 0; residuos de MCO agrupado; {form}",
                "H0: unit-effect variance = 0; pooled OLS residuals; {form}"),
    "undefined": ("no definida: se necesitan al menos dos unidades y más de un año en alguna de ellas",
                  "undefined: at least two units, and more than one year in some of them, are needed"),
})


def _chi2_sf(x, df):
    from ..distributions import chi2_sf

    return float(chi2_sf(x, df))


def hausman(fe: Fit, re: Fit, lang: str | None = None) -> dict:
    """Classic Hausman (1978) test: H = q'(V_FE - V_RE)^-1 q, q = b_FE - b_RE, chi2 with k df.

    Uses the conventional covariances of both fits (the test assumes RE is efficient under H0), over the
    coefficients the two share (the time-varying covariates). When V_FE - V_RE is not positive definite,
    the Moore-Penrose inverse is used with df = its rank (a negative H is impossible then), and the note
    says so. This is what plm ``phtest(fe, re)`` computes when the difference is positive definite.
    """
    terms = [t for t in fe.params.index if t in re.params.index]
    q = fe.params[terms].to_numpy(float) - re.params[terms].to_numpy(float)
    vfe = (fe.cov_unadjusted if fe.cov_unadjusted is not None else fe.cov).loc[terms, terms].to_numpy(float)
    vre = (re.cov_unadjusted if re.cov_unadjusted is not None else re.cov).loc[terms, terms].to_numpy(float)
    diff = vfe - vre
    ev = np.linalg.eigvalsh((diff + diff.T) / 2)
    note = MSG("hausman_note", lang, terms=", ".join(terms))
    if ev.min() > 1e-12 * max(abs(ev).max(), 1e-300):
        stat = float(q @ np.linalg.solve(diff, q))
        df = len(terms)
    else:
        pinv = np.linalg.pinv(diff)
        stat = float(q @ pinv @ q)
        df = int(np.linalg.matrix_rank(diff))
        note += "; " + MSG("hausman_ginv", lang, ev=float(ev.min()), rank=df)
    return {"test": MSG("hausman", lang), "statistic": stat, "df": df,
            "p_value": _chi2_sf(stat, df) if df > 0 else np.nan, "note": note}


def hausman_mundlak(cre: Fit, lang: str | None = None) -> dict:
    """Regression-based Hausman test (Mundlak 1978; Wooldridge 2010, 10.7.3): Wald test that the
    coefficients of the unit means xbar_i are zero in the correlated random-effects regression,
    W = g'V_g^-1 g ~ chi2(k), with the fit's covariance (cluster-robust when ``se="clustered"``).
    With conventional SEs this equals plm ``phtest(..., method = "aux")``.
    """
    terms = [t for t in cre.params.index if str(t).startswith("mean_")]
    g = cre.params[terms].to_numpy(float)
    V = cre.cov.loc[terms, terms].to_numpy(float)
    stat = float(g @ np.linalg.solve(V, g))
    return {"test": MSG("hausman_aux", lang), "statistic": stat, "df": len(terms),
            "p_value": _chi2_sf(stat, len(terms)), "note": MSG("hausman_aux_note", lang, se=describe(cre.se_type, lang))}


def f_test_effects(ssr_pooled: float, ssr_within: float, nobs: int, n_units: int, k_within: int,
                   k_pooled: int, lang: str | None = None) -> dict:
    """F test of unit effects (plm ``pFtest``): F = [(SSR_P - SSR_W)/df1] / [SSR_W/df2],
    df1 = (n + K_W) - (1 + K_P) (n - 1 when no covariate is time-invariant), df2 = N - n - K_W.
    """
    from ..distributions import f_sf

    df1 = (n_units + k_within) - (1 + k_pooled)
    df2 = nobs - n_units - k_within
    if df1 <= 0 or df2 <= 0:    # one unit, or no year to spare within the units: no F test, no division by 0
        return {"test": MSG("f_effects", lang), "statistic": np.nan, "df": float(df1), "df_denominator": float(df2),
                "p_value": np.nan, "note": MSG("undefined", lang)}
    stat = ((ssr_pooled - ssr_within) / df1) / (ssr_within / df2)
    return {"test": MSG("f_effects", lang), "statistic": float(stat), "df": float(df1),
            "df_denominator": float(df2), "p_value": float(f_sf(stat, df1, df2)), "note": MSG("f_note", lang)}


def breusch_pagan(residuals: np.ndarray, unit_index: np.ndarray, lang: str | None = None) -> dict:
    """Breusch & Pagan (1980) LM test for unit effects from pooled OLS residuals e_it.

    LM = N^2 / (2 sum_i T_i(T_i - 1)) * [sum_i (sum_t e_it)^2 / sum e_it^2 - 1]^2 ~ chi2(1): the
    unbalanced form of Baltagi & Li (1990), which for T_i = T is nT/(2(T-1)) [...]^2 (plm
    ``plmtest(type = "bp")``; Stata ``xttest0``).
    """
    e = np.asarray(residuals, float)
    inv = np.asarray(unit_index)
    t_i = np.bincount(inv).astype(float)
    sums = np.bincount(inv, weights=e)
    N = len(e)
    if len(t_i) < 2 or not np.any(t_i > 1):   # one unit, or one year per unit: LM undefined
        return {"test": MSG("bp", lang), "statistic": np.nan, "df": 1.0, "p_value": np.nan,
                "note": MSG("undefined", lang)}
    lm = N ** 2 / (2 * np.sum(t_i * (t_i - 1))) * (np.sum(sums ** 2) / np.sum(e ** 2) - 1) ** 2
    form = MSG("balanced" if np.all(t_i == t_i[0]) else "unbalanced", lang)
    return {"test": MSG("bp", lang), "statistic": float(lm), "df": 1.0, "p_value": _chi2_sf(lm, 1),
            "note": MSG("bp_note", lang, form=form)}
