"""Least squares on the transformed panel arrays, with linearmodels' covariance estimators (issue 19).

The pooled, within and random-effects fits are all OLS of a transformed outcome y* on transformed
regressors X* (N rows, k columns; :mod:`brecha.models.panel_arrays` makes the transforms). This module
solves that regression and gives the covariance of each standard-error type exactly as linearmodels 6-7
``PooledOLS`` / ``PanelOLS(...).fit(cov_type=..., debiased=True)`` computes it, so the numbers equal the
linearmodels fits they replace (tests/models/test_panel_arrays.py checks every type against them):

- coefficients: b = argmin |y* - X* b|, by LAPACK's pivoted QR (``scipy.linalg.lstsq``, driver gelsy,
  cond = max(N, k) * eps: linearmodels' own call);
- scale s = N / (N - k - d), d = the effects absorbed (the n unit means of the within fit; 0 otherwise);
  linearmodels counts them for every type but clustered-by-unit, where unit effects alone are nested in
  the clusters (d = 0; unit and year effects together are counted, d = n + T - 1);
- ``unadjusted``: e'e / (N - k - d) (X'X)^-1;
- ``robust`` (White): s (X'X)^-1 [sum_it e_it^2 x_it x_it'] (X'X)^-1;
- ``clustered`` by unit (Arellano 1987): s (X'X)^-1 [sum_i g_i g_i'] (X'X)^-1, g_i = sum_t e_it x_it
  (no G/(G-1) factor: linearmodels' default ``group_debias=False``; equal to plm
  ``vcovHC(method="arellano", type="HC1")``);
- ``driscoll-kraay``: s (X'X)^-1 [sum_j k_j (Z_j + Z_j')] (X'X)^-1 with h_t = sum_i e_it x_it over the
  rows of the t-th year present (sorted), Z_0 = sum_t h_t h_t' / 2 (so that Z_0 + Z_0' counts it once),
  Z_j = sum_t h_{t+j} h_t', Bartlett weights k_j = 1 - j / (bw + 1), j = 0..bw (Driscoll & Kraay 1998;
  linearmodels' ``DriscollKraay``; lags by position among the years present).

Each covariance is symmetrised, (V + V') / 2, as linearmodels does. References: White (1980);
Arellano (1987); Driscoll & Kraay (1998); Hoechle (2007) for the kernel estimator.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..i18n import Catalog

MSG = Catalog({
    "collinear": ("las covariables son colineales en este modelo ({names}): una es combinación de las otras (o "
                  "constante donde el modelo quita las constantes)",
                  "the covariates are collinear in this model ({names}): one is a combination of the others (or "
                  "constant where the model removes constants)"),
    "collinear_hint": ("quite una de ellas, o use un modelo que conserve las covariables constantes en el tiempo "
                       "(re, cre)",
                       "drop one of them, or use a model that keeps time-invariant covariates (re, cre)"),
    "dk_years": ("Driscoll-Kraay necesita más años que su ancho de banda ({bw}); hay {years}",
                 "Driscoll-Kraay needs more years than its bandwidth ({bw}); there are {years}"),
    "dk_years_hint": ("use más años o --se clustered", "use more years or --se clustered"),
    "no_df": ("el modelo no deja grados de libertad residuales ({nobs} {nobs:fila|filas}, {k} {k:término|términos}, "
              "{d} {d:efecto|efectos})",
              "the model leaves no residual degrees of freedom ({nobs} {nobs:row|rows}, {k} {k:term|terms}, {d} "
              "{d:effect|effects})"),
    "no_df_hint": ("amplíe los años o las unidades, o use menos covariables",
                   "widen the years or units, or use fewer covariates"),
})


@dataclass
class LeastSquares:
    """One OLS fit of transformed arrays: coefficients, residuals, residual sum of squares, (X'X)^-1."""

    params: np.ndarray
    resid: np.ndarray
    ssr: float
    xtx_inv: np.ndarray
    nobs: int

    @property
    def k(self) -> int:
        return len(self.params)


def solve(y: np.ndarray, X: np.ndarray, names=()) -> LeastSquares:
    """OLS of y on X by pivoted QR; a rank-deficient X is refused naming the columns (``InputError``)."""
    from scipy.linalg import lstsq

    from ..errors import InputError

    k = X.shape[1]
    cond = float(max(X.shape) * np.finfo(np.float64).eps)
    params, _, rank, _ = lstsq(X, y, cond=cond, lapack_driver="gelsy")
    if rank < k:
        raise InputError(MSG("collinear", names=", ".join(map(str, names))), hint=MSG("collinear_hint"))
    resid = y - X @ params
    xtx = X.T @ X
    return LeastSquares(params, resid, float(resid @ resid), np.linalg.inv(xtx), len(y))


def covariance(fit: LeastSquares, X: np.ndarray, kind: str, *, units: np.ndarray, years: np.ndarray,
               extra_df: int = 0, bandwidth: int = 1, effects_nested: bool = True, indicators=None) -> np.ndarray:
    """The k x k covariance of ``fit`` for ``kind`` (unadjusted, robust, clustered, driscoll-kraay); see
    the module docstring for each formula. ``extra_df`` = the absorbed effects, not counted for clustered
    when ``effects_nested`` (unit effects inside unit clusters; unit and year effects are not).
    ``indicators``: the implicit year columns (``year_indicators.YearIndicators``) that follow X's columns
    in ``fit`` (``year_indicators.fit_with_years``); their parts of the meat come from unit and year sums."""
    from ..errors import InputError

    n, k = fit.nobs, fit.k
    d = 0 if kind == "clustered" and effects_nested else int(extra_df)
    if n - k - d <= 0:
        raise InputError(MSG("no_df", nobs=n, k=k, d=d), hint=MSG("no_df_hint"))
    scale = n / (n - k - d)
    e = fit.resid
    if kind == "unadjusted":
        out = (scale * float(e @ e) / n) * fit.xtx_inv
        return (out + out.T) / 2
    ind = indicators
    if kind == "robust":
        xe = X * e[:, None]
        meat = xe.T @ xe
        if ind is not None:
            del xe
            dx = ind.cross(X * (e * e)[:, None])
            meat = np.block([[meat, dx.T], [dx, ind.gram(e * e)]])
    elif kind == "clustered":
        g = _group_sums(X, e, units)
        if ind is not None:
            g = np.hstack([g, ind.group_sums(e, "units")])
        meat = g.T @ g
    elif kind == "driscoll-kraay":
        h = _group_sums(X, e, years)   # year codes 0..T-1 of the years present, sorted
        if ind is not None:
            h = np.hstack([h, ind.group_sums(e, "years")])
        if bandwidth >= len(h):
            raise InputError(MSG("dk_years", bw=bandwidth, years=len(h)), hint=MSG("dk_years_hint"))
        meat = h.T @ h
        for j in range(1, int(bandwidth) + 1):
            op = h[j:].T @ h[:-j]
            meat += (1 - j / (int(bandwidth) + 1)) * (op + op.T)
    else:
        raise ValueError(kind)
    out = scale * (fit.xtx_inv @ meat @ fit.xtx_inv)
    return (out + out.T) / 2


def _group_sums(X: np.ndarray, e: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """sum over the rows of each code of e_r x_r: (number of codes, k), by ``np.bincount``."""
    size = int(codes.max()) + 1
    out = np.empty((size, X.shape[1]))
    for j in range(X.shape[1]):
        out[:, j] = np.bincount(codes, weights=X[:, j] * e, minlength=size)
    return out
