"""The BYM2 prior (Riebler et al. 2016, Stat Methods Med Res 25:1145-1165): scaled ICAR structure, PC priors.

Scaled structure (:func:`scaled_structure`)
    Q = D − W is the ICAR precision of a connected graph (D the number of neighbours). Its scaling factor is
    s = exp(mean(log(diag(Q⁺)))) (Sørbye & Rue 2014), the geometric mean of the marginal variances under the
    sum-to-zero constraint (Q⁺ the Moore-Penrose inverse, computed as (Q + 11ᵀ/m)⁻¹ − 11ᵀ/m on the
    component's m nodes). Q* = s·Q has generalised variance 1. Each connected component is scaled on its own
    and gets its own sum-to-zero constraint; a unit without neighbours (a component of one) gets
    u_i ~ N(0, 1) instead of an ICAR term, so its effect is purely unstructured (Freni-Sterrantino, Ventrucci
    & Rue 2018, Spatial and Spatio-temporal Epidemiology 26:25-34).

PC priors (Simpson et al. 2017, Statistical Science 32:1-28)
    precision τ of the total effect b: π(τ) = (λ/2)τ^(−3/2)exp(−λτ^(−1/2)), λ = −log(α)/U, with
    P(1/√τ > U) = α; defaults U = 1, α = 0.01 (R-INLA's default for bym2).
    mixing φ (share of the variance that is spatial): distance d(φ) = √(2 KLD(φ)),
    KLD(φ) = ½ Σ_k [φ(γ_k − 1) − log(1 + φ(γ_k − 1))], γ_k the non-zero eigenvalues of Q*⁺ (the constant of
    each component is removed by its constraint; 1 for units without neighbours); π(φ) ∝ λ exp(−λ d(φ)) d'(φ) on (0, 1), normalised over it, λ such that P(φ < U) = α;
    defaults U = 0.5, α = 2/3 (Riebler et al. 2016, section 4).
"""
from __future__ import annotations

import numpy as np


def scaling_factor(adjacency) -> float:
    """exp(mean(log(diag(Q⁺)))) of the ICAR precision of a connected graph (dense; one component).

    >>> import numpy as np
    >>> round(scaling_factor(np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]])), 12)
    0.409336833182
    """
    a = np.asarray(adjacency.toarray() if hasattr(adjacency, "toarray") else adjacency, dtype=float)
    m = a.shape[0]
    q = np.diag(a.sum(axis=1)) - a
    inv = np.linalg.inv(q + np.full((m, m), 1.0 / m)) - 1.0 / m
    return float(np.exp(np.mean(np.log(np.diag(inv)))))


def scaled_structure(adjacency):
    """Scaled ICAR precision of every component (Q*, scipy.sparse CSR), per-node component labels, the mask
    of nodes without neighbours, the scaling factor of each component (NaN for single nodes) and the
    eigenvalues γ of Q*⁺ (generalised variances; 1 for single nodes) for the PC prior of φ."""
    import scipy.sparse as sp
    from scipy.sparse.csgraph import connected_components

    a = sp.csr_matrix(adjacency, dtype=float)
    n = a.shape[0]
    _, labels = connected_components(a, directed=False)
    degree = np.asarray(a.sum(axis=1)).ravel()
    single = degree == 0
    laplacian = (sp.diags(degree) - a).tocsr()
    factors = np.full(labels.max() + 1 if n else 0, np.nan)
    scale = np.ones(n)
    gammas = []
    for c in range(factors.size):
        idx = np.flatnonzero(labels == c)
        if idx.size == 1:
            gammas.append(np.ones(1))
            continue
        sub = a[idx][:, idx]
        factors[c] = scale[idx] = scaling_factor(sub)
        eig = np.linalg.eigvalsh(factors[c] * laplacian[idx][:, idx].toarray())
        # the null direction (the component's constant) is removed by the constraint: not an eigenvalue of
        # the constrained covariance (as R-INLA's inla.pc.bym.phi, which drops the rank deficiency)
        gammas.append(1.0 / eig[eig > 1e-9 * eig.max()])
    # within a component every node has the same factor, so diag(s)·Q is s_c·Q_c block by block
    q = (sp.diags(scale) @ laplacian + sp.diags(single.astype(float))).tocsr()
    return q, labels, single, factors, np.concatenate(gammas) if gammas else np.zeros(0)


def pc_precision_logpdf(tau, u: float = 1.0, alpha: float = 0.01):
    """log density of the PC prior of a precision τ with P(1/√τ > u) = alpha."""
    lam = -np.log(alpha) / u
    tau = np.asarray(tau, dtype=float)
    return np.log(lam / 2) - 1.5 * np.log(tau) - lam / np.sqrt(tau)


class PCMixing:
    """PC prior of the BYM2 mixing parameter φ for the eigenvalues ``gamma`` (module docstring)."""

    def __init__(self, gamma, u: float = 0.5, alpha: float = 2 / 3):
        from scipy.optimize import brentq

        self.g = np.asarray(gamma, dtype=float) - 1.0
        d_u, d_1 = self.distance(u), self.distance(1.0)
        target = float(alpha)
        # truncated exponential on d in (0, d(1)): (1 - e^{-λ d(u)})/(1 - e^{-λ d(1)}) = alpha
        self.lam = brentq(lambda lam: -np.expm1(-lam * d_u) / -np.expm1(-lam * d_1) - target, 1e-8, 1e4)
        self.log_norm = np.log(-np.expm1(-self.lam * d_1))

    def kld(self, phi):
        phi = np.asarray(phi, dtype=float)[..., None]
        return 0.5 * np.sum(phi * self.g - np.log1p(phi * self.g), axis=-1)

    def distance(self, phi):
        return np.sqrt(2.0 * np.maximum(self.kld(phi), 0.0))

    def logpdf(self, phi):
        phi = np.asarray(phi, dtype=float)
        d = self.distance(phi)
        dk = 0.5 * np.sum(self.g - self.g / (1.0 + phi[..., None] * self.g), axis=-1)
        return np.log(self.lam) - self.lam * d + np.log(dk / d) - self.log_norm
