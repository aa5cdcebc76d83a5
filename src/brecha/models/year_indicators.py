"""Year indicators after a model's row transform, never held as an N x (T-1) matrix (issue 19).

With ``--time-effects`` the pooled, random-effects and correlated random-effects fits have the indicators
year_<y> of every year but the first among their regressors, and the two-way within fit removes them. At
173,000 units x 20 years the dense indicators are 3.5 M x 19 floats (0.5 GB), and each transform copied
them (3.0 GB peak). Here they stay implicit: every quantity a fit needs is computed from unit- and
year-level sums (``np.bincount``) and from n x T grids (n units, T years; 28 MB at 173,000 x 20).

The transformed indicator of year s (s = 1..T-1; code 0 is the reference year) in row (i, t) is

    D*_it,s = r_it (d_s(t) - lam_i W_is),    W_is = sum of omega over unit i's rows of year s / Omega_i,

with Omega_i = sum_t omega_it. Each fit's transform is one case of it:

- pooled: r = 1 (births-weighted: sqrt(w_it)), lam = 0;
- within (unit effects): r = 1, lam = 1, omega = 1 (weighted: r = sqrt(w_it), omega = w_it: linearmodels'
  weighted demeaning);
- random effects (quasi-demeaning): r = 1, lam_i = theta_i, omega = 1.

From it, with q_it = v_it r_it^2 and Q the n x T grid of q summed by unit and year:

- D*'A = yearsum(r A) - W' (lam * unitsum(r A))                        (:meth:`cross`, any N x k array A)
- D*' diag(v) D* = diag(colsum Q) - Q'L - L'Q + L' diag(rowsum Q) L,  L = lam * W   (:meth:`gram`)
- D* G = r (G[t] - lam_i (W G)_i)                                      (:meth:`times`, G (T-1) x k)
- sum over the rows of unit i (or of year u) of e_it D*_it: E - (lam rowsum E) W (units),
  diag(colsum E) - E'L (years), E the n x T grid of e r                  (:meth:`group_sums`)

These give the regression with the indicators exactly (Frisch-Waugh-Lovell: :func:`fit_with_years`), its
year coefficients and the covariance of every coefficient, year ones included (``least_squares.covariance``
with ``years=``), so the numbers equal the dense fits they replace (tests/models/test_year_indicators.py
compares them with linearmodels). Written here because no library partials out sparse-structured
indicators under these transforms without building them.
"""
from __future__ import annotations

import numpy as np


class YearIndicators:
    """The transformed year indicators D* of one fit (see the module docstring), implicit.

    ``units`` and ``years``: integer codes per row (years 0..T-1, 0 the reference); ``r`` per row or None
    (1); ``lam`` per unit or None (0); ``omega`` per row or None (1).
    """

    def __init__(self, units, years, n_units: int, n_years: int, *, r=None, lam=None, omega=None):
        self.units = units
        self.years = years
        self.n = int(n_units)
        self.T = int(n_years)
        self.r = r
        self.lam = None if lam is None else np.broadcast_to(np.asarray(lam, float), (self.n,))
        self.cell = units * self.T + years     # flat (unit, year) index of each row
        self.W = None
        if self.lam is not None:
            w = np.ones(len(units)) if omega is None else omega
            W = self.grid(w)
            W /= W.sum(axis=1)[:, None]
            self.W = W
            self.L = self.lam[:, None] * W

    @property
    def k(self) -> int:
        """The number of indicator columns (T - 1)."""
        return max(self.T - 1, 0)

    def grid(self, values: np.ndarray) -> np.ndarray:
        """n x T sums of ``values`` by unit and year."""
        return np.bincount(self.cell, weights=values, minlength=self.n * self.T).reshape(self.n, self.T)

    def _rows(self, a: np.ndarray) -> np.ndarray:
        return a if self.r is None else (self.r * a if a.ndim == 1 else self.r[:, None] * a)

    def cross(self, A: np.ndarray) -> np.ndarray:
        """D*'A: (T-1) x k for an N x k ``A``, (T-1,) for an N-vector."""
        one = A.ndim == 1
        A = A.reshape(len(A), -1)
        out = np.empty((self.k, A.shape[1]))
        for j in range(A.shape[1]):
            ra = self._rows(A[:, j])
            col = np.bincount(self.years, weights=ra, minlength=self.T)
            if self.lam is not None:
                col = col - self.W.T @ (self.lam * np.bincount(self.units, weights=ra, minlength=self.n))
            out[:, j] = col[1:]
        return out[:, 0] if one else out

    def gram(self, v: np.ndarray | None = None) -> np.ndarray:
        """D*' diag(v) D* ((T-1) x (T-1)); v = 1 when None."""
        q = np.ones(len(self.units)) if v is None and self.r is None else (
            self.r ** 2 if v is None else (v if self.r is None else v * self.r ** 2))
        Q = self.grid(q)
        out = np.diag(Q.sum(axis=0))
        if self.lam is not None:
            QL = Q.T @ self.L
            out -= QL + QL.T
            out += self.L.T @ (Q.sum(axis=1)[:, None] * self.L)
        return out[1:, 1:]

    def times(self, G: np.ndarray) -> np.ndarray:
        """D* G: N x k for a (T-1) x k ``G`` (N for a vector)."""
        G = np.asarray(G, float)
        out = np.zeros((len(self.units),) + G.shape[1:])
        return -self.subtract_times(out, G)

    def subtract_times(self, A: np.ndarray, G: np.ndarray) -> np.ndarray:
        """A -= D* G, in place, one column at a time (no N x k temporary); returns A."""
        G = np.asarray(G, float)
        if not self.k:   # one year: no indicator
            return A
        A2, G2 = A.reshape(len(A), -1), G.reshape(self.k, -1)
        Gf = np.vstack([np.zeros((1, G2.shape[1])), G2])
        LG = None if self.lam is None else self.L @ Gf
        for j in range(G2.shape[1]):
            col = Gf[self.years, j]
            if LG is not None:
                col -= LG[self.units, j]
            if self.r is not None:
                col *= self.r
            A2[:, j] -= col
        return A

    def group_sums(self, e: np.ndarray, by: str) -> np.ndarray:
        """sum of e_it D*_it over the rows of each unit (``by="units"``, n x (T-1)) or each year
        (``by="years"``, T x (T-1))."""
        E = self.grid(self._rows(e))
        if by == "units":
            out = E if self.lam is None else E - (self.lam * E.sum(axis=1))[:, None] * self.W
        else:
            out = np.diag(E.sum(axis=0))
            if self.lam is not None:
                out -= E.T @ self.L
        return out[:, 1:]


def projection(ind: YearIndicators, gram: np.ndarray | None = None):
    """(G -> coefficients) of the least-squares projection on D*: solves D*'D* C = D*'A, with the
    Moore-Penrose inverse of D*'D* (eigenvalues below 1e-12 of the largest are zero), so that the
    projection is defined when some year's indicator vanishes under the transform. Returns the solver
    and the rank of D*."""
    gram = ind.gram() if gram is None else gram
    if not gram.size:
        return (lambda b: np.zeros((0,) + b.shape[1:])), 0
    vals, vecs = np.linalg.eigh(gram)
    keep = vals > 1e-12 * max(vals.max(), 0.0)
    inv = (vecs[:, keep] / vals[keep]) @ vecs[:, keep].T
    return (lambda b: inv @ b), int(keep.sum())


def partial_out(ind: YearIndicators, A: np.ndarray) -> np.ndarray:
    """A - D* (D*'D*)^+ D*'A: ``A`` (float, N or N x k) with the transformed year indicators partialled
    out, in place (returns A)."""
    solve, _ = projection(ind)
    return ind.subtract_times(A, solve(ind.cross(A)))


def fit_with_years(y: np.ndarray, X: np.ndarray, names, ind: YearIndicators, hidden):
    """OLS of y on [X, D*] (``least_squares.LeastSquares``: params of X's columns then of the T-1 year
    columns, residuals, SSR, (Z'Z)^-1 of Z = [X, D*]) without the N x (T-1) matrix D*.

    Frisch-Waugh-Lovell: b = the OLS slopes of y~ on X~ (~ = less the projection on D*), by pivoted QR
    as ``least_squares.solve``; the year coefficients g = C_y - C_X b with C = (D*'D*)^-1 D*'[y, X]; the
    residuals y - X b - D* g are those of the full regression. Z'Z is assembled from X'X, D*'X and D*'D* and
    inverted as ``least_squares.solve`` inverts it. Collinear columns, year indicators included, are
    refused as there (``InputError`` naming them)."""
    from scipy.linalg import lstsq

    from ..errors import InputError
    from .least_squares import MSG, LeastSquares

    everything = ", ".join(map(str, [*names, *hidden]))
    gram = ind.gram()
    solve_d, rank = projection(ind, gram)
    if rank < ind.k:
        raise InputError(MSG("collinear", names=everything), hint=MSG("collinear_hint"))
    dx = ind.cross(X)
    cy, cx = solve_d(ind.cross(y)), solve_d(dx)
    yt = ind.subtract_times(y.copy(), cy)
    Xt = ind.subtract_times(np.array(X, dtype=float, order="F"), cx)
    cond = float(max(Xt.shape[0], Xt.shape[1] + ind.k) * np.finfo(np.float64).eps)
    # Xt and yt are overwritten by the solver (no copy of them)
    b, _, r, _ = lstsq(Xt, yt, cond=cond, lapack_driver="gelsy", overwrite_a=True, overwrite_b=True)
    del yt, Xt
    if r < X.shape[1]:
        raise InputError(MSG("collinear", names=everything), hint=MSG("collinear_hint"))
    b = b[:X.shape[1]]
    g = cy - cx @ b
    resid = ind.subtract_times(y - X @ b, g)     # y - X b - D* g
    ztz = np.block([[X.T @ X, dx.T], [dx, gram]])
    return LeastSquares(np.concatenate([b, g]), resid, float(resid @ resid), np.linalg.inv(ztz), len(y))
