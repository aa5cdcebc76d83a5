"""Standardised designs for the count models, and the checks that their fits can be trusted.

Why: a covariate of large scale (a commune's population, about 1e5) next to an intercept and a poverty
percentage makes the Hessian of a count model span some ten orders of magnitude. Quasi-Newton and Newton
steps then stall or overflow, and the covariance (the inverse Hessian) comes out singular: SEs of 0 or NaN,
or a ``LinAlgError``. R's ``glm.nb`` copes through its QR-based IRLS; brecha standardises instead.

Rule: every covariate column x_k (not the intercept, not the year indicators) is replaced by
z_k = (x_k - c_k) / s_k, with c_k its mean (0 in models without an intercept, where a shift is absorbed by
the unit effects) and s_k its standard deviation (1 when it is 0). The model is fitted on z; since
a + sum b_k x_k = (a + sum b_k c_k) + sum (b_k s_k) z_k, the coefficients on the original scale are the
exact linear map

    b_k = g_k / s_k,   a = g_0 - sum_k c_k g_k / s_k          (g: the coefficients on z)

i.e. b = T g, and the covariance is T V_g T' (model-based and sandwich alike: both are quadratic forms in
the same linear map). Extra parameters (alpha, log alpha) are not touched. Likelihood, fitted values and
tests do not change; only the arithmetic is better conditioned.

Checks (:func:`hessian_problems`): the optimiser's convergence flag, and that the Hessian of the
log-likelihood at the estimate is negative definite (all eigenvalues of -H positive, and finite). A fit that
fails is still reported, with a ``flag`` on its rows, a note and a warning, never silently.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd


@dataclass
class Scaling:
    """Centres and scales of the columns of a design (``center`` 0 and ``scale`` 1 where untouched)."""

    columns: list
    center: np.ndarray
    scale: np.ndarray
    intercept: int | None      # position of the intercept column, if any

    def matrix(self, extra: int = 0) -> np.ndarray:
        """T with b = T g for the design's coefficients, followed by ``extra`` untouched parameters."""
        k = len(self.columns)
        T = np.eye(k + extra)
        T[:k, :k] = np.diag(1.0 / self.scale)
        if self.intercept is not None:
            T[self.intercept, :k] -= self.center / self.scale
            T[self.intercept, self.intercept] = 1.0
        return T

    def back(self, params, cov, extra: int = 0):
        """Coefficients and covariance on the original scale from those on the standardised one."""
        T = self.matrix(extra)
        p = T @ np.asarray(params, float)
        V = T @ np.asarray(cov, float) @ T.T
        return p, V

    @property
    def used(self) -> bool:
        return bool(np.any(self.scale != 1.0) or np.any(self.center != 0.0))


def standardise(X: pd.DataFrame, columns, intercept: str | None = "intercept") -> tuple[np.ndarray, Scaling]:
    """The design with ``columns`` centred (only when ``intercept`` is a column of X) and scaled to unit
    standard deviation; returns the array and the :class:`Scaling` that maps coefficients back."""
    names = list(X.columns)
    A = X.to_numpy(float).copy()
    center = np.zeros(len(names))
    scale = np.ones(len(names))
    has_intercept = intercept is not None and intercept in names
    for name in columns:
        j = names.index(name)
        x = A[:, j]
        sd = float(np.std(x))
        c = float(np.mean(x)) if has_intercept else 0.0
        s = sd if np.isfinite(sd) and sd > 0 else 1.0
        if sd == 0:
            c = 0.0          # a constant column stays as it is (collinear with the intercept anyway)
        center[j], scale[j] = c, s
        A[:, j] = (x - c) / s
    return A, Scaling(names, center, scale, names.index(intercept) if has_intercept else None)


def hessian_problems(H, converged: bool = True) -> list[str]:
    """Codes of what makes a maximum-likelihood fit untrustworthy: ``not_converged`` (the optimiser says so)
    and ``hessian_not_negative_definite`` (the log-likelihood Hessian at the estimate is not finite or has
    an eigenvalue >= 0 relative to its largest: no proper maximum, the covariance is not defined)."""
    problems = []
    if not converged:
        problems.append("not_converged")
    H = np.asarray(H, float)
    if not np.all(np.isfinite(H)):
        problems.append("hessian_not_negative_definite")
        return problems
    eig = np.linalg.eigvalsh(-(H + H.T) / 2)
    if eig.size and (eig.min() <= 1e-12 * max(abs(eig.max()), 1e-300)):
        problems.append("hessian_not_negative_definite")
    return problems


def safe_inverse(A) -> np.ndarray:
    """inv(A), or a matrix of NaN when A is singular (the caller flags it)."""
    A = np.asarray(A, float)
    try:
        out = np.linalg.inv(A)
    except np.linalg.LinAlgError:
        return np.full(A.shape, np.nan)
    return out if np.all(np.isfinite(out)) else np.full(A.shape, np.nan)
