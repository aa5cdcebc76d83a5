"""BYM2 smoothed rates (Riebler et al. 2016): neighbours share risk, by a nested Laplace approximation.

Model: D_i ~ Poisson(LB_i·exp(α + b_i)), b = (√(1−φ)v + √φ u)/√τ, v iid N(0, 1), u the scaled ICAR field
(each connected component scaled on its own; units without neighbours get only the unstructured effect),
PC priors on τ (P(σ > 1) = 0.01) and φ (P(φ < 0.5) = 2/3), α ~ N(0, 10⁶)
(:mod:`brecha.spatial.bym2_prior`, :mod:`brecha.spatial.laplace`).

Engine (R-INLA's idea; at fixed θ :mod:`brecha.spatial.laplace_dense` up to 1,500 units, the sparse
:mod:`brecha.spatial.laplace` above; Rue, Martino & Chopin 2009, JRSS B 71:319-392): the latent field is Gaussian
given θ = (log τ, logit φ), so p(θ | y) is approximated by the Laplace formula of
:mod:`brecha.spatial.laplace`; its mode is found by L-BFGS-B (log τ in [−6, 16], logit φ in [−9, 9]), the Hessian there by finite differences, and θ is
integrated on the grid of INLA's "grid" strategy (step 1 in the standardised coordinates of the Hessian's eigenvectors, out along each
axis until the log density drops by 6, then the points of that box within the same drop; corners whose
quadratic drop exceeds 7.5 are skipped). The marginal of each log rate η_i = α + b_i is the mixture over the grid of the
Gaussian approximations (R-INLA's ``strategy="gaussian"``; not its default "simplified Laplace" skewness
correction). Choice by measurement: 346 communes pooled take 1.5 s of CPU here (16 single years 21 s),
inside the issue's bars; a sampler (PyMC, NumPyro) was not tried, as it would add a large dependency for
no speed to gain. The approximation was checked against two long MCMC runs on the Chilean data
(tools/check_bym2_mcmc.py; docs/spatial.md gives how close).

Output per unit and period (``unit, period, outcome, estimate, lower, upper, prob_above, shrinkage,
method``): ``estimate`` the posterior mean of the rate per 1,000 births; ``lower``/``upper`` the
equal-tailed posterior interval; ``prob_above`` P(rate_i > overall rate | data), the overall rate being
ΣD/ΣLB of the units analysed (the country's, or the region's with --region); ``shrinkage`` 1 − h_i·v_i with
h_i = LB_i·exp(η̂_i) (the information of the unit's own deaths on its log rate at the mode) and v_i the
posterior variance of η_i: the share of the posterior precision borrowed from the prior and the neighbours
(0 = own data only, 1 = all borrowed; the analogue of the empirical-Bayes 1 − C_i). Units without births
(or with missing counts) keep their place in the map and get the model's prediction (flag ``zero_births`` /
``missing``, shrinkage 1).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..errors import InputError, warn
from ..i18n import Catalog
from ..intervals import as_float, check_conf_level
from ..rates import attach_names, carry_notes, events_table

MSG = Catalog({
    "too_few": ("BYM2 {period}: hacen falta al menos 3 unidades con nacimientos; hay {count}",
                "BYM2 {period}: at least 3 units with births are needed; there are {count}"),
    "isolated": ("BYM2: {count} {count:unidad|unidades} sin vecinos {count:recibe|reciben} solo el efecto no "
                 "estructurado ({detail})",
                 "BYM2: {count} {count:unit|units} without neighbours {count:gets|get} only the unstructured effect "
                 "({detail})"),
    "not_converged": ("BYM2 {period}: la búsqueda de la moda de los hiperparámetros no convergió ({reason}); "
                      "revise los resultados", "BYM2 {period}: the search for the hyperparameters' mode did not "
                      "converge ({reason}); check the results"),
})

BYM2_COLUMNS = ["unit", "period", "outcome", "estimate", "lower", "upper", "prob_above", "shrinkage", "method",
                "events", "births", "raw_rate", "conf_level", "flag", "phi", "sigma"]
METHOD = "bym2 (Riebler 2016; nested Laplace, {kind} neighbours)"
GRID_STEP = 1.0
GRID_DROP = 6.0
DENSE_UNITS = 1500  # up to here the dense (α, b) engine (laplace_dense.py), above it the sparse field
BOUNDS = ((-6.0, 16.0), (-9.0, 9.0))  # log τ (σ from 20 to 0.0003), logit φ (0.0001 to 0.9999)


class Posterior:
    """Nested Laplace fit of one period: grid points (θ, weight) and each unit's η mixture."""

    def __init__(self, model, pc_phi):
        self.model, self.pc_phi = model, pc_phi
        self._x = None

    def theta_logpost(self, theta):
        from .bym2_prior import pc_precision_logpdf

        tau, phi = np.exp(theta[0]), 1.0 / (1.0 + np.exp(-theta[1]))
        fit = self.model.fit(tau, phi, x0=self._x)
        self._x = fit.x
        prior = pc_precision_logpdf(tau) + theta[0] + self.pc_phi.logpdf(phi) + np.log(phi * (1 - phi))
        return fit.logpost + float(prior), fit

    def integrate(self):
        from scipy.optimize import minimize

        res = minimize(lambda t: -self.theta_logpost(t)[0], np.array([np.log(10.0), 0.0]), method="L-BFGS-B",
                       bounds=[BOUNDS[0], BOUNDS[1]], options={"ftol": 1e-9, "gtol": 1e-3, "eps": 1e-4})
        mode = res.x
        top, _ = self.theta_logpost(mode)
        hess = _hessian(lambda t: self.theta_logpost(t)[0], mode)
        vals, vecs = np.linalg.eigh(-hess)
        vals = np.maximum(vals, 1e-6)
        scale = vecs / np.sqrt(vals)
        points = []
        seen = {}

        def at(i, j):
            if (i, j) not in seen:
                theta = mode + scale @ (GRID_STEP * np.array([i, j]))
                inside = all(lo <= t <= hi for t, (lo, hi) in zip(theta, BOUNDS))
                seen[(i, j)] = (theta, *self._summary(theta, top)) if inside else None
            return seen[(i, j)]

        # INLA's grid: walk out along each axis until the log density drops by GRID_DROP, then the box
        reach = []
        for axis in range(2):
            ends = []
            for sign in (-1, 1):
                k = 0
                while k < 8:
                    point = at(*((sign * (k + 1), 0) if axis == 0 else (0, sign * (k + 1))))
                    if point is None or top - point[1] >= GRID_DROP:
                        break
                    k += 1
                ends.append(sign * k)
            reach.append(range(ends[0], ends[1] + 1))
        for i in reach[0]:
            for j in reach[1]:
                if GRID_STEP ** 2 * (i * i + j * j) / 2 > GRID_DROP + 1.5:
                    continue  # a corner the quadratic approximation puts well beyond the drop
                point = at(i, j)
                if point is not None and top - point[1] < GRID_DROP:
                    points.append(point)
        lps = np.array([p[1] for p in points])
        weights = np.exp(lps - lps.max())
        weights /= weights.sum()
        self.mode, self.converged, self.message = mode, bool(res.success), str(res.message)
        self.points = [(p[0], w, p[2]) for p, w in zip(points, weights) if w > 1e-10]
        total = sum(w for _, w, _ in self.points)
        self.points = [(t, w / total, f) for t, w, f in self.points]
        return self

    def _summary(self, theta, top):
        """log p(θ | y) at a grid point and, when the point is within the grid's drop (it will be one of the
        mixture's points), what the mixture needs of its fit: each η_i's mean and variance and the data's
        information h (issue 19: the fit's factor is then let go, not kept until every point is evaluated:
        44 factors of 1 MB each for the Chilean communes, 11,000 fresh pages)."""
        logpost, fit = self.theta_logpost(theta)
        if top - logpost >= GRID_DROP:
            return logpost, None
        mean, variance = self.model.eta_marginals(fit)
        return logpost, (mean, variance, fit.h)

    def eta(self):
        """Per grid point: weights (k,), means (k, n), variances (k, n), data information h (k, n)."""
        w = np.array([p[1] for p in self.points])
        means, variances, info = zip(*(p[2] for p in self.points))
        return w, np.array(means), np.array(variances), np.array(info)

    def hyper_means(self):
        w = np.array([p[1] for p in self.points])
        th = np.array([p[0] for p in self.points])
        return float(w @ (1 / (1 + np.exp(-th[:, 1])))), float(w @ np.exp(-th[:, 0] / 2))


def _hessian(f, x, h=1e-2):
    out = np.zeros((2, 2))
    f0 = f(x)
    for i in range(2):
        for j in range(i, 2):
            ei, ej = np.eye(2)[i] * h, np.eye(2)[j] * h
            if i == j:
                out[i, i] = (f(x + ei) - 2 * f0 + f(x - ei)) / h ** 2
            else:
                out[i, j] = out[j, i] = (f(x + ei + ej) - f(x + ei - ej) - f(x - ei + ej) + f(x - ei - ej)) / (4 * h * h)
    return out


def mixture_quantile(p, w, mean, sd):
    """The p-quantile of Σ_k w_k N(mean_k, sd_k²) per column (bisection, vectorised over units).

    80 halvings at most; it stops when an iteration changes no bound (then every later one would change
    nothing either: the same numbers as the 80 halvings, in about 55 for the Chilean BYM2; issue 19)."""
    from scipy.special import ndtr

    lo = (mean - 10 * sd).min(axis=0)
    hi = (mean + 10 * sd).max(axis=0)
    for _ in range(80):
        mid = (lo + hi) / 2
        cdf = (w[:, None] * ndtr((mid - mean) / sd)).sum(axis=0)
        new_lo, new_hi = np.where(cdf < p, mid, lo), np.where(cdf < p, hi, mid)
        if np.array_equal(new_lo, lo) and np.array_equal(new_hi, hi):
            break
        lo, hi = new_lo, new_hi
    return (lo + hi) / 2


def fit_period(d, n, adjacency, conf_level: float = 0.95, per: float = 1000):
    """BYM2 on one period's counts ``d`` (deaths) and ``n`` (births) over the graph ``adjacency``.

    Returns a dict of arrays (``estimate, lower, upper, prob_above, shrinkage``) and the posterior means of φ
    and σ = 1/√τ.
    """
    from scipy.special import ndtr

    from ..threads import blas_in_one_thread
    from .bym2_prior import PCMixing, scaled_structure
    from .laplace import Model, sum_to_zero
    from .laplace_dense import DenseModel

    # small dense factorisations: one BLAS thread (brecha.threads; the CLI has it already, a script not)
    with blas_in_one_thread():
        qstar, labels, single, _, gamma = scaled_structure(adjacency)
        if len(d) <= DENSE_UNITS:
            model = DenseModel(d, n, qstar, labels, single)
        else:
            model = Model(d, n, qstar, sum_to_zero(labels, single))
        post = Posterior(model, PCMixing(gamma)).integrate()
        w, mean, var, info = post.eta()
    sd = np.sqrt(np.maximum(var, 1e-300))
    alpha = (1 - conf_level) / 2
    used = model.used
    overall = np.log(model.yw.sum() / model.ew.sum()) if model.yw.sum() > 0 else -np.inf
    out = {
        "estimate": per * (w[:, None] * np.exp(mean + var / 2)).sum(axis=0),
        "lower": per * np.exp(mixture_quantile(alpha, w, mean, sd)),
        "upper": per * np.exp(mixture_quantile(1 - alpha, w, mean, sd)),
        "prob_above": (w[:, None] * ndtr((mean - overall) / sd)).sum(axis=0),
        "shrinkage": np.where(used, 1 - np.clip((w[:, None] * info * var).sum(axis=0), 0, 1), 1.0),
    }
    phi, sigma = post.hyper_means()
    return out, phi, sigma, post


def bym2(panel, outcome: str = "infant", years=None, pool: bool = False, neighbours="queen",
         conf_level: float = 0.95, per: float = 1000) -> pd.DataFrame:
    """BYM2 smoothed rates per unit and period (module docstring); one fit per period.

    ``neighbours``: ``queen`` (default), ``rook``, ``knn:K``, a :class:`~brecha.spatial.neighbours.Neighbours`,
    or links (:class:`~brecha.spatial.links.Links` or a libpysal ``W``).
    Returns :data:`BYM2_COLUMNS` (+ ``name``); ``phi`` and ``sigma`` are the posterior means of the mixing
    parameter and of the total effect's standard deviation of the period.
    """
    from .neighbours import as_neighbours

    conf_level = check_conf_level(conf_level)
    nb = as_neighbours(panel, neighbours)
    ev, units, name = events_table(panel, outcome, years, pool)
    codes = sorted(ev["unit"].astype(str).unique())
    adjacency, isolated = _graph(nb, codes)
    if isolated:
        detail = "; ".join(f"{reason}: {', '.join(u for u, r in isolated.items() if r == reason)}"
                           for reason in dict.fromkeys(isolated.values()))
        warn(MSG("isolated", count=len(isolated), detail=detail))
    frames = []
    for period, part in ev.groupby("period", sort=True):
        part = part.assign(unit=part["unit"].astype(str)).set_index("unit").reindex(codes)
        d, n = as_float(part["events"]), as_float(part["births"])
        ok = np.isfinite(d) & np.isfinite(n) & (n > 0)
        if ok.sum() < 3:
            raise InputError(MSG("too_few", period=period, count=int(ok.sum())))
        res, phi, sigma, post = fit_period(d, n, adjacency, conf_level, per)
        if not post.converged:
            warn(MSG("not_converged", period=period, reason=post.message))
        missing = ~(np.isfinite(d) & np.isfinite(n))
        flag = np.where(missing, "missing", np.where(~ok, "zero_births", ""))
        flag = np.array([";".join(x for x in (f, "no_neighbours" if isolated.get(u) else "") if x)
                         for f, u in zip(flag, codes)])
        frames.append(pd.DataFrame({
            "unit": codes, "period": str(period), "outcome": name, **res, "method": METHOD.format(kind=nb.kind),
            "events": part["events"].array, "births": part["births"].array,
            "raw_rate": np.where(ok, d / np.where(ok, n, 1.0) * per, np.nan), "conf_level": conf_level,
            "flag": flag, "phi": phi, "sigma": sigma}))
    out = pd.concat(frames, ignore_index=True)[BYM2_COLUMNS]
    return carry_notes(attach_names(out, units), panel)


def _graph(nb, codes):
    """Symmetric adjacency over ``codes`` (units outside the weights have no neighbours) and the isolated
    units with their reason."""
    import scipy.sparse as sp

    index = {u: i for i, u in enumerate(codes)}
    a = nb.adjacency().tocoo()
    have = np.array([index.get(u, -1) for u in nb.units])
    keep = (have[a.row] >= 0) & (have[a.col] >= 0)
    adj = sp.csr_matrix((np.ones(keep.sum()), (have[a.row[keep]], have[a.col[keep]])), shape=(len(codes),) * 2)
    degree = np.asarray(adj.sum(axis=1)).ravel()
    isolated = {u: nb.isolated.get(u, "island") for u, k in zip(codes, degree) if k == 0}
    return adj, isolated
