"""BYM2: scaling factors (REFERENCE_WAVE2.md W.5), the Gaussian case solved exactly, the Laplace formula and
the grid integration against dense brute force, the Poisson mode against a generic optimiser, the PC priors."""
from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.sparse as sp

from brecha.spatial.bym2 import Posterior
from brecha.spatial.bym2_prior import PCMixing, pc_precision_logpdf, scaled_structure, scaling_factor
from brecha.spatial.laplace import Model, sum_to_zero

PATH3 = np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]], dtype=float)


def path(k):
    a = np.diag(np.ones(k - 1), 1)
    return a + a.T


def lattice(k):
    a = np.zeros((k * k, k * k))
    for i, j in itertools.product(range(k), range(k)):
        if i < k - 1:
            a[i * k + j, (i + 1) * k + j] = a[(i + 1) * k + j, i * k + j] = 1
        if j < k - 1:
            a[i * k + j, i * k + j + 1] = a[i * k + j + 1, i * k + j] = 1
    return a


def test_scaling_factors_match_reference():
    assert scaling_factor(PATH3) == pytest.approx(0.409336833182, abs=1e-12)
    assert scaling_factor(path(4)) == pytest.approx(0.572821961869, abs=1e-12)
    assert scaling_factor(lattice(3)) == pytest.approx(0.409708978791, abs=1e-12)


def test_each_component_scaled_on_its_own():
    adj = sp.block_diag([PATH3, np.zeros((1, 1)), path(4), lattice(3)]).tocsr()
    q, labels, single, factors, gamma = scaled_structure(adj)
    assert np.allclose(factors[[0, 2, 3]], [0.409336833182, 0.572821961869, 0.409708978791], atol=1e-12)
    assert np.isnan(factors[1]) and single.tolist() == [False] * 3 + [True] + [False] * 13
    assert q[3, 3] == 1.0  # the unit without neighbours: u ~ N(0, 1)
    for c in (0, 2, 3):  # generalised variance 1 in each scaled component
        idx = np.flatnonzero(labels == c)
        diag = np.diag(np.linalg.pinv(q[idx][:, idx].toarray()))
        assert np.exp(np.mean(np.log(diag))) == pytest.approx(1.0, abs=1e-10)
    assert len(gamma) == 17 - 3  # one eigenvalue per unit, less each component's constant


def _problem(seed=1):
    adj = sp.block_diag([lattice(4), PATH3, np.zeros((1, 1))]).tocsr()
    q, labels, single, _, gamma = scaled_structure(adj)
    rng = np.random.default_rng(seed)
    n = adj.shape[0]
    return q, labels, single, gamma, rng.normal(size=n), rng.uniform(0.5, 2.0, size=n)


def _dense_covariance(q, labels, tau, phi, prec_alpha):
    """Cov(α + b) written from the model's definition: b = (√(1−φ)v + √φ u)/√τ, u ~ N(0, Q*⁺) per component."""
    n = q.shape[0]
    cov_u = np.zeros((n, n))
    for c in np.unique(labels):
        idx = np.flatnonzero(labels == c)
        cov_u[np.ix_(idx, idx)] = np.linalg.pinv(q[idx][:, idx].toarray()) if idx.size > 1 else 1.0
    return ((1 - phi) * np.eye(n) + phi * cov_u) / tau + np.ones((n, n)) / prec_alpha


def test_gaussian_posterior_mean_is_the_sparse_solve():
    q, labels, single, _, y, var = _problem()
    tau, phi = 2.0, 0.7
    model = Model(y, var, q, sum_to_zero(labels, single), family="gaussian", prec_alpha=1.0)
    mean, variance = model.eta_marginals(model.fit(tau, phi))
    cov = _dense_covariance(q, labels, tau, phi, 1.0)
    gain = cov @ np.linalg.inv(cov + np.diag(var))
    assert np.allclose(mean, gain @ y, atol=1e-8)
    assert np.allclose(variance, np.diag(cov - gain @ cov), atol=1e-8)


def test_laplace_log_posterior_is_exact_for_gaussian_data():
    """With Gaussian data the Laplace formula (constraint terms included) is the exact log marginal likelihood,
    up to a constant that does not depend on θ."""
    from scipy.stats import multivariate_normal

    q, labels, single, _, y, var = _problem(2)
    model = Model(y, var, q, sum_to_zero(labels, single), family="gaussian", prec_alpha=1.0)
    diffs = []
    for tau, phi in [(0.5, 0.2), (2.0, 0.7), (8.0, 0.95), (1.0, 0.5)]:
        exact = multivariate_normal(np.zeros(y.size), _dense_covariance(q, labels, tau, phi, 1.0) + np.diag(var))
        diffs.append(model.fit(tau, phi).logpost - exact.logpdf(y))
    assert np.ptp(diffs) < 1e-6


def test_grid_integration_matches_brute_force_quadrature():
    """Posterior mean of η integrated over θ: the nested grid against a fine 2-D quadrature of the exact
    Gaussian-case posterior (PC priors included)."""
    from scipy.stats import multivariate_normal

    q, labels, single, gamma, y, var = _problem(3)
    model = Model(y, var, q, sum_to_zero(labels, single), family="gaussian", prec_alpha=1.0)
    pc = PCMixing(gamma)
    post = Posterior(model, pc).integrate()
    w, means, _, _ = post.eta()
    nested = w @ means
    grid = [(t1, t2) for t1 in np.linspace(-5, 8, 90) for t2 in np.linspace(-7, 7, 90)]
    logw, cond = [], []
    for t1, t2 in grid:
        tau, phi = np.exp(t1), 1 / (1 + np.exp(-t2))
        cov = _dense_covariance(q, labels, tau, phi, 1.0)
        total = cov + np.diag(var)
        logw.append(multivariate_normal(np.zeros(y.size), total).logpdf(y) + pc_precision_logpdf(tau) + t1
                    + pc.logpdf(phi) + np.log(phi * (1 - phi)))
        cond.append(cov @ np.linalg.solve(total, y))
    logw = np.array(logw)
    weights = np.exp(logw - logw.max())
    brute = weights @ np.array(cond) / weights.sum()
    assert np.allclose(nested, brute, atol=0.02 * np.abs(brute).max())


def test_poisson_mode_matches_a_generic_optimiser():
    """At fixed θ the constrained Newton mode equals scipy's optimum of the same log posterior, written here
    with the constraint removed by a basis of the sum-zero space."""
    from scipy.linalg import null_space
    from scipy.optimize import minimize

    adj = sp.block_diag([lattice(3), PATH3]).tocsr()
    q, labels, single, _, _ = scaled_structure(adj)
    rng = np.random.default_rng(5)
    births = rng.integers(50, 400, size=12).astype(float)
    deaths = rng.poisson(births * 0.01).astype(float)
    a = sum_to_zero(labels, single)
    tau, phi = 5.0, 0.6
    fit = Model(deaths, births, q, a, prec_alpha=1e-6).fit(tau, phi)
    basis = null_space(a)
    qd = q.toarray() + 1e-9 * np.eye(12)

    def negative(z):
        alpha, b, u = z[0], z[1:13], basis @ z[13:]
        eta = np.log(births) + alpha + b
        prior = 0.5 * 1e-6 * alpha ** 2 + 0.5 * tau / (1 - phi) * np.sum((b - np.sqrt(phi / tau) * u) ** 2) \
            + 0.5 * u @ qd @ u
        return -(deaths @ eta - np.exp(eta).sum()) + prior

    start = np.concatenate([[np.log(deaths.sum() / births.sum())], np.zeros(12 + basis.shape[1])])
    best = minimize(negative, start, method="BFGS", options={"gtol": 1e-9, "maxiter": 5000})
    assert np.allclose(fit.x[:13], best.x[:13], atol=1e-4)
    assert np.allclose(a @ fit.x[13:], 0, atol=1e-7)  # exact up to the 1e-9 ridge's rounding


def test_pc_priors():
    from scipy.integrate import quad

    _, _, _, _, gamma = scaled_structure(sp.csr_matrix(lattice(4)))
    pc = PCMixing(gamma)
    assert quad(lambda x: np.exp(pc.logpdf(x)), 0, 1, limit=200)[0] == pytest.approx(1, abs=1e-6)
    assert quad(lambda x: np.exp(pc.logpdf(x)), 0, 0.5, limit=200)[0] == pytest.approx(2 / 3, abs=1e-6)
    # P(σ > 1) = P(τ < 1) = 0.01
    assert quad(lambda t: np.exp(pc_precision_logpdf(t)), 0, 1)[0] == pytest.approx(0.01, abs=1e-8)


def test_dense_engine_gaussian_case_is_exact():
    """The (α, b) engine: posterior mean, variances and the Laplace formula, exact for Gaussian data."""
    from scipy.stats import multivariate_normal

    from brecha.spatial.laplace_dense import DenseModel

    q, labels, single, _, y, var = _problem(4)
    model = DenseModel(y, var, q, labels, single, family="gaussian", prec_alpha=1.0)
    tau, phi = 3.0, 0.4
    mean, variance = model.eta_marginals(model.fit(tau, phi))
    cov = _dense_covariance(q, labels, tau, phi, 1.0)
    gain = cov @ np.linalg.inv(cov + np.diag(var))
    assert np.allclose(mean, gain @ y, atol=1e-10)
    assert np.allclose(variance, np.diag(cov - gain @ cov), atol=1e-10)
    diffs = [model.fit(t, f).logpost - multivariate_normal(np.zeros(y.size), _dense_covariance(q, labels, t, f, 1.0)
                                                           + np.diag(var)).logpdf(y)
             for t, f in [(0.5, 0.2), (2.0, 0.7), (8.0, 0.95)]]
    assert np.ptp(diffs) < 1e-8


def test_both_engines_agree_on_real_data():
    """Sparse (α, b, u) with constraints and dense (α, b) without: the same BYM2 on Araucanía's communes."""
    from brecha import datasets
    from brecha.spatial import bym2 as B

    panel = datasets.example("chile").subset(region=["09"])
    dense = B.bym2(panel, years=list(range(2005, 2015)), pool=True)
    saved = B.DENSE_UNITS
    B.DENSE_UNITS = 0
    try:
        sparse = B.bym2(panel, years=list(range(2005, 2015)), pool=True)
    finally:
        B.DENSE_UNITS = saved
    for column in ("estimate", "lower", "upper", "prob_above", "shrinkage", "phi", "sigma"):
        assert np.allclose(dense[column], sparse[column], atol=1e-4), column
    assert ((dense["lower"] < dense["estimate"]) & (dense["estimate"] < dense["upper"])).all()
    assert dense["shrinkage"].between(0, 1).all() and dense["prob_above"].between(0, 1).all()


def test_bym2_from_a_script_runs_blas_in_one_thread_and_gives_the_command_line_bytes():
    """A script or notebook has OpenBLAS with every core (the command line asks for one thread before numpy
    loads; brecha.threads). BYM2's small factorisations then cost ~10x the CPU (17 s against 1.5 s for the
    pooled Chilean communes) and their last bits depend on the threads: fit_period runs them in one thread
    (threadpoolctl), so a script with 2 BLAS threads gets the bytes of one with 1."""
    import os
    import subprocess
    import sys

    code = ("import warnings; warnings.simplefilter('ignore')\n"
            "import threadpoolctl\n"
            "from brecha import datasets\n"
            "from brecha.threads import blas_in_one_thread\n"
            "import brecha.spatial.bym2 as B, scipy.linalg\n"
            "with blas_in_one_thread():\n"
            "    print(sorted({i['num_threads'] for i in threadpoolctl.threadpool_info()"
            " if i['user_api'] == 'blas'}))\n"
            "print(sorted({i['num_threads'] for i in threadpoolctl.threadpool_info() if i['user_api'] == 'blas'}))\n"
            "p = datasets.chile().subset(region='09')\n"
            "print(B.bym2(p, years=p.years, pool=True).to_csv(index=False))\n")
    outs = []
    for threads in ("1", "2"):
        env = dict(os.environ, OPENBLAS_NUM_THREADS=threads)
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
        inside, outside, table = out.stdout.split("\n", 2)
        assert inside == "[1]"
        assert outside == f"[{threads}]"  # the limit ends with the context
        outs.append(table)
    assert outs[0] == outs[1]
    assert outs[0].count("\n") > 30  # Araucanía's communes
