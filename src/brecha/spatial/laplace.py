"""The BYM2 latent Gaussian model at fixed hyperparameters: Gaussian approximation and Laplace marginal.

Latent field x = (α, b_1..b_n, u_1..u_n) (Riebler et al. 2016, section 3.3, the parametrisation R-INLA
uses): linear predictor η_i = log E_i + α + b_i (E_i the births), b = (√(1−φ)v + √φ u)/√τ with v iid
N(0, 1) and u the scaled ICAR field (Q*, :mod:`brecha.spatial.bym2_prior`). Then b | u ~ N(√(φ/τ)u,
(1−φ)/τ·I) and the joint prior precision of (b, u) is

    [ τ/(1−φ)·I          −√(φτ)/(1−φ)·I      ]
    [ −√(φτ)/(1−φ)·I     Q* + φ/(1−φ)·I + εI ]

whose log-determinant is n·log(τ/(1−φ)) + log|Q* + εI| (Schur complement), the second term free of
(τ, φ). α has a N(0, 1/prec_alpha) prior. Σu = 0 on each connected component of two or more units
(a hard constraint; ε = 1e-9 only makes the unconstrained matrix invertible, as R-INLA does).

At fixed θ = (τ, φ) the mode x* of p(x | y, θ) under the constraints is found by Newton's method
(iteratively reweighted: Q_post = Q_prior + Bᵀ diag(h) B, h = the likelihood's curvature in η, B x = α + b),
each step a Cholesky solve (dense up to 3,000 latent variables, else scipy.sparse.linalg.splu) corrected for the constraints by conditioning by
kriging (Rue & Held 2005, section 2.3.3): x ← x − Q⁻¹Aᵀ(AQ⁻¹Aᵀ)⁻¹Ax. The Laplace approximation of the
hyperparameters' log posterior (Rue, Martino & Chopin 2009, eq. 3), up to a constant:

    log p(y | x*) − ½ x*ᵀQ_prior x* + ½ n log(τ/(1−φ)) − ½ log|Q_post| − ½ log|A Q_post⁻¹ Aᵀ| + log p(θ).

The constraint terms follow from p(x | Ax = 0) = p(x)/p(Ax = 0) for the prior (θ-free here) and the
Gaussian approximation evaluated at its conditional mean. With a Gaussian likelihood one Newton step is
exact: the posterior mean solves the sparse linear system (tested against the dense covariance formula).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import splu

RIDGE = 1e-9
DENSE_UP_TO = 3000  # latent dimension up to which a dense Cholesky is faster than SuperLU (measured: 693
                    # latent variables, 346 communes: 3 ms per factorisation and solve against 40 ms)


class Factor:
    """Cholesky (dense, small fields) or sparse LU (scipy.sparse.linalg.splu) of a precision matrix."""

    def __init__(self, matrix):
        self.dense = matrix.shape[0] <= DENSE_UP_TO
        if self.dense:
            from scipy.linalg import cho_factor

            self.chol = cho_factor(matrix.toarray(), lower=True, check_finite=False)
            self.logdet = 2.0 * float(np.sum(np.log(np.diag(self.chol[0]))))
        else:
            self.lu = splu(sp.csc_matrix(matrix), permc_spec="MMD_AT_PLUS_A")
            self.logdet = float(np.sum(np.log(np.abs(self.lu.U.diagonal()))))

    def solve(self, rhs):
        if self.dense:
            from scipy.linalg import cho_solve

            return cho_solve(self.chol, rhs, check_finite=False)
        return self.lu.solve(rhs)


@dataclass
class Fit:
    """The Gaussian approximation at one θ: mode ``x``, log posterior of θ ``logpost`` (up to a constant),
    and for η = α + b its mean ``eta`` and variance ``eta_var`` (filled by :meth:`Model.marginals`)."""
    x: np.ndarray
    logpost: float
    lu: object
    constraint: tuple
    h: np.ndarray


class Model:
    """BYM2 with a Poisson (``family="poisson"``: y deaths, e births) or Gaussian (``"gaussian"``: y values,
    e the variances) likelihood on the structure ``qstar`` with the constraint matrix ``a`` (k x n)."""

    def __init__(self, y, e, qstar, constraint, family: str = "poisson", prec_alpha: float = 1e-6):
        self.y = np.asarray(y, dtype=float)
        self.e = np.asarray(e, dtype=float)
        self.n = n = self.y.size
        self.family = family
        self.used = np.isfinite(self.y) & np.isfinite(self.e) & (self.e > 0)
        self.yw = np.where(self.used, self.y, 0.0)
        self.ew = np.where(self.used, self.e, 0.0 if family == "poisson" else 1.0)
        self.offset = np.where(self.used, np.log(np.where(self.used, self.ew, 1.0)), 0.0) if family == "poisson" \
            else np.zeros(n)
        self.qstar = sp.csr_matrix(qstar) + RIDGE * sp.identity(n, format="csr")
        self.prec_alpha = prec_alpha
        self.b = sp.hstack([sp.csr_matrix(np.ones((n, 1))), sp.identity(n), sp.csr_matrix((n, n))]).tocsr()
        a = sp.csr_matrix(constraint) if constraint is not None and np.size(constraint) else sp.csr_matrix((0, n))
        self.a = sp.hstack([sp.csr_matrix((a.shape[0], n + 1)), a]).tocsr()

    def prior(self, tau, phi):
        n = self.n
        eye = sp.identity(n, format="csr")
        bb = tau / (1 - phi) * eye
        bu = -np.sqrt(phi * tau) / (1 - phi) * eye
        uu = self.qstar + phi / (1 - phi) * eye
        top = sp.csr_matrix(([self.prec_alpha], ([0], [0])), shape=(1, 1))
        return sp.bmat([[top, None, None], [None, bb, bu], [None, bu, uu]], format="csc")

    def loglik(self, eta):
        if self.family == "poisson":
            mu = np.where(self.used, np.exp(np.minimum(eta + self.offset, 700.0)), 0.0)
            lik = np.where(self.used, self.yw * (eta + self.offset) - mu, 0.0)
            return lik.sum(), np.where(self.used, self.yw - mu, 0.0), np.where(self.used, mu, 0.0)
        r = self.yw - eta
        return (np.where(self.used, -0.5 * r * r / self.ew, 0.0).sum(), np.where(self.used, r / self.ew, 0.0),
                np.where(self.used, 1.0 / self.ew, 0.0))

    def _solve(self, lu, rhs):
        x = lu.solve(rhs)
        if self.a.shape[0] == 0:
            return x, None
        v = lu.solve(self.a.T.toarray())
        s = self.a @ v
        x = x - v @ np.linalg.solve(s, self.a @ x)
        return x, (v, s)

    def fit(self, tau, phi, x0=None, tol: float = 1e-7, max_iter: int = 60) -> Fit:
        q = self.prior(tau, phi)
        x = np.zeros(2 * self.n + 1) if x0 is None else x0.copy()
        if x0 is None and self.family == "poisson" and self.ew.sum() > 0:
            x[0] = np.log(max(self.yw.sum(), 0.5) / self.ew.sum())
        for _ in range(max_iter):
            eta = self.b @ x
            _, g, h = self.loglik(eta)
            lu = Factor(q + self.b.T @ sp.diags(h) @ self.b)
            new, cons = self._solve(lu, self.b.T @ (g + h * eta))
            step = new - x
            if np.max(np.abs(step)) < tol:  # converged: this factor is the curvature at the mode
                x = new
                break
            # damped when a full step would lower the objective (far from the mode, Poisson's curvature can
            # overshoot); the objective is concave, so halving finds an ascent
            for _ in range(30):
                if self._objective(new, q) >= self._objective(x, q) - 1e-10:
                    break
                step = step / 2
                new = x + step
            x = new
        eta = self.b @ x
        ll, _, h = self.loglik(eta)
        logdet = lu.logdet
        logpost = ll - 0.5 * x @ (q @ x) + 0.5 * self.n * np.log(tau / (1 - phi)) - 0.5 * logdet
        if cons is not None:
            logpost -= 0.5 * np.linalg.slogdet(cons[1])[1]
        return Fit(x, float(logpost), lu, cons, h)

    def _objective(self, x, q):
        return self.loglik(self.b @ x)[0] - 0.5 * x @ (q @ x)

    def eta_marginals(self, fit: Fit):
        """Mean and variance of η_i = α + b_i under the (constrained) Gaussian approximation."""
        n = self.n
        rhs = self.b.T.toarray()
        cols = fit.lu.solve(rhs)  # Q⁻¹Bᵀ, one column per unit
        var = np.einsum("ij,ji->i", self.b.toarray(), cols)
        if fit.constraint is not None:
            v, s = fit.constraint
            bv = self.b @ v
            var = var - np.einsum("ij,ji->i", bv, np.linalg.solve(s, bv.T))
        return self.b @ fit.x, np.maximum(var[:n], 0.0)


def sum_to_zero(labels, single) -> np.ndarray:
    """The constraint matrix: one row per component of two or more units, ones on its units."""
    comps = [c for c in np.unique(labels) if not np.all(single[labels == c])]
    a = np.zeros((len(comps), labels.size))
    for row, c in enumerate(comps):
        a[row, labels == c] = 1.0
    return a
