"""Poisson joinpoint: deaths ~ Poisson(births x exp(f(year))), f the joinpoint line, births as the offset.

Years without deaths need no added 0.5: the likelihood takes d = 0 as it is. For every allowed placement
of k joinpoints at data years (NCI's rules, :func:`brecha.trends.joinpoint_fit.placements`) the model is
fitted by iteratively reweighted least squares (log link, offset ln births; all series and placements at
once, numpy) and the placement with the smallest deviance D = 2 sum[d ln(d / mu) - (d - mu)] kept.

- Selection: the Schwarz criterion on the likelihood, D_k + (c k + 2) ln(n) with c = 2 (``bic``),
  3 (``bic3``) or 2 + R2max (``wbic``; R2max the largest partial R^2 of the joinpoints, computed as in
  :mod:`brecha.trends.joinpoint_selection` on ln((d + 0.5) / births) weighted by d + 0.5). This is the
  likelihood form of NCI's criteria (theirs, ln(SSE / n) + p ln(n) / n, is the Gaussian one divided by n);
  the permutation test is not offered for this model.
- Inference: at convergence IRLS is weighted least squares of the working response z = eta + (d - mu) / mu
  with weights mu, so the APC, AAPC and their intervals come from the same code as the least-squares fit
  (:func:`brecha.trends.joinpoint._segments_table`) given (z, mu): the covariance is phi (X' diag(mu) X)^-1
  with phi = Pearson chi^2 / (n - 2k - 2), the quasi-Poisson scale (over- or under-dispersion both allowed
  for; Wedderburn 1974), and t intervals on n - 2k - 2 df as for the least-squares segments.

Joinpoints at data years only (the exact continuous search relies on least squares). A placement that
leaves a segment without deaths has no finite maximum likelihood (the segment's slope runs off to minus
infinity) and is not used; a unit whose every placement with k joinpoints does so is fitted with fewer.

References: McCullagh P, Nelder JA (1989), Generalized Linear Models, 2nd ed., ch. 2 and 6; Wedderburn RWM
(1974), Biometrika 61:439-447; Czajkowski M, Gill R, Rempala G (2008), Model selection in logistic
joinpoint regression (the likelihood joinpoint family).
"""
from __future__ import annotations

import numpy as np

from .joinpoint_fit import designs, max_joinpoints_default, placements
from .joinpoint_selection import partial_r2


def _irls(X, D, B, n_iter=60, tol=1e-10):
    """Poisson IRLS for designs X (C, n, p) and series D, B (S, n): beta (C, S, p), mu, z (C, S, n) and
    whether each fit converged (C, S). A placement whose segment has no death has no finite maximum (the
    slope runs off to -infinity, one unit per iteration): it never converges and is not used."""
    c, n, p = X.shape
    s = D.shape[0]
    offset = np.log(B)
    # start: weighted least squares of ln((d + 0.5) / births), weights d + 0.5
    z = np.log((D + 0.5) / B)
    w = np.broadcast_to(D + 0.5, (c, s, n))
    zz = np.broadcast_to(z, (c, s, n))
    beta = None
    step = np.full((c, s), np.inf)
    for _ in range(n_iter):
        G = np.einsum("cnp,csn,cnq->cspq", X, w, X)
        h = np.einsum("cnp,csn->csp", X, w * zz)
        new = np.linalg.solve(G + 1e-12 * np.eye(p), h[..., None])[..., 0]
        eta = np.einsum("cnp,csp->csn", X, new)
        mu = np.exp(np.clip(eta + offset[None], -700, 700))
        w = mu
        zz = eta + (D[None] - mu) / mu
        if beta is not None:
            step = np.max(np.abs(new - beta), axis=2)
            if np.max(step) < tol:
                beta = new
                break
        beta = new
    # a fit running off to minus infinity slows down once its weights vanish: a fitted rate below 1e-9 per
    # birth (no real rate is that small) marks it too
    diverged = np.any(mu < 1e-9 * B[None], axis=2)
    return beta, mu, zz, (step < 1e-6) & ~diverged


def deviance(D, mu):
    with np.errstate(divide="ignore", invalid="ignore"):
        term = np.where(D > 0, D * np.log(D / mu), 0.0)
    return 2.0 * np.sum(term - (D - mu), axis=-1)


def best_poisson(xc, D, B, k, min_end=2, min_between=2, chunk=64):
    """Smallest deviance over placements per series: (deviance (S,), taus (S, k), z (S, n), mu (S, n))."""
    s, n = D.shape
    knots = placements(n, k, min_end, min_between)
    best = np.full(s, np.inf)
    taus = np.full((s, k), np.nan)
    z_best, mu_best = np.full((s, n), np.nan), np.full((s, n), np.nan)
    if len(knots) == 0:
        return best, taus, z_best, mu_best
    for start in range(0, len(knots), chunk):
        part = knots[start: start + chunk]
        X = designs(xc, xc[part])
        _, mu, z, converged = _irls(X, D, B)
        dev = np.where(converged, deviance(D[None], mu), np.inf)
        j = np.argmin(dev, axis=0)
        val = dev[j, np.arange(s)]
        better = val < best
        rows = np.flatnonzero(better)
        best[rows] = val[rows]
        taus[rows] = xc[part[j[rows]]]
        z_best[rows] = z[j[rows], rows]
        mu_best[rows] = mu[j[rows], rows]
    return best, taus, z_best, mu_best


def fit_poisson(x, D, B, max_joinpoints=2, min_end=2, min_between=2, selection="wbic"):
    """Selected k per series, ``models`` {k: (deviance, taus in years)} and, per series, the working
    response z and weights mu of its selected model (the input of the least-squares inference)."""
    s, n = D.shape
    xc = x - x.mean()
    fits = {}
    for k in range(min(max_joinpoints, max_joinpoints_default(n)) + 1):
        if n - (2 * k + 2) < 1:
            break
        dev, taus, z, mu = best_poisson(xc, D, B, k, min_end, min_between)
        if not np.any(np.isfinite(dev)):  # (a unit without a finite fit at k keeps fewer)
            break
        fits[k] = (dev, taus, z, mu)
    crit = {}
    y = np.log((D + 0.5) / B)
    for k, (dev, taus, _, _) in fits.items():
        c = {"bic": 2.0, "bic3": 3.0}.get(selection)
        if c is None:
            c = 2.0 + np.nan_to_num(partial_r2(xc, y, D + 0.5, taus)) if k else 2.0
        crit[k] = dev + (c * k + 2.0) * np.log(n)
    ks = sorted(fits)
    chosen = np.array(ks)[np.argmin(np.vstack([crit[k] for k in ks]), axis=0)]
    Z = np.stack([fits[int(k)][2][i] for i, k in enumerate(chosen)])
    MU = np.stack([fits[int(k)][3][i] for i, k in enumerate(chosen)])
    # the working response is on the scale of f (the offset left out): ln(rate per birth)
    models = {k: (dev, taus + x.mean()) for k, (dev, taus, _, _) in fits.items()}
    return chosen, models, Z, MU, crit
