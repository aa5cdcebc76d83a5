"""How close is brecha's BYM2 (nested Laplace) to a long MCMC run? Chile's communes pooled 2000-2015.

    python tools/check_bym2_mcmc.py [SWEEPS [SEED]]      # docs/spatial.md: 150000 sweeps, seeds 1 and 2

The sampler is written here, independently of brecha's Laplace engine (it shares only the prior densities
and the scaled ICAR structure, which tests/spatial checks against the published scaling factors).

Parametrisation: latent (alpha, b); b ~ N(0, V diag((1-phi+phi*gamma_k)/tau) V^T) with V, gamma the eigen-
decomposition of the scaled ICAR generalised inverse per component (gamma=0 on each component's constant, 1
for single units). Updates per sweep: elliptical slice sampling for b (Murray et al. 2010), random-walk MH for
alpha, random-walk MH for (log tau, logit phi) both centred (b fixed) and non-centred (xi = whitened b fixed).
Priors as brecha: PC(tau: U=1, a=0.01), PC(phi: U=0.5, a=2/3) via brecha's PCMixing (the prior only), alpha ~ N(0, 1e6).
"""
import sys
import time
import warnings

warnings.simplefilter('ignore')
import numpy as np
from brecha import datasets
from brecha.spatial.neighbours import neighbours
from brecha.spatial.bym2 import _graph
from brecha.spatial.bym2_prior import scaled_structure, PCMixing, pc_precision_logpdf

rng = np.random.default_rng(int(sys.argv[2]) if len(sys.argv) > 2 else 1)
iters = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
p = datasets.example('chile')
nb = neighbours(p, 'queen')
ev = p.events('infant', years=list(range(2000, 2016)), pool=True)
codes = sorted(ev.unit.astype(str)); ev = ev.assign(unit=ev.unit.astype(str)).set_index('unit').loc[codes]
y = ev.events.astype(float).to_numpy(); E = ev.births.astype(float).to_numpy()
used = E > 0
adj, _ = _graph(nb, codes)
q, labels, single, _, gamma_pc = scaled_structure(adj)
n = len(codes)
# eigen-decomposition of the constrained covariance of u, block by block
V = np.zeros((n, n)); g = np.zeros(n); col = 0
for c in np.unique(labels):
    idx = np.flatnonzero(labels == c)
    if idx.size == 1:
        V[idx[0], col] = 1; g[col] = 1; col += 1; continue
    lam, vec = np.linalg.eigh(q[idx][:, idx].toarray())
    for k in range(idx.size):
        V[idx, col] = vec[:, k]; g[col] = 0.0 if lam[k] < 1e-9 * lam.max() else 1 / lam[k]; col += 1
pcphi = PCMixing(gamma_pc)
logE = np.log(np.where(used, E, 1))

def loglik(alpha, b):
    eta = alpha + b + logE
    return np.sum(np.where(used, y * eta - np.exp(eta), 0))

def sd_of(theta):
    tau, phi = np.exp(theta[0]), 1 / (1 + np.exp(-theta[1]))
    return np.sqrt((1 - phi + phi * g) / tau)

def logprior_theta(theta):
    tau, phi = np.exp(theta[0]), 1 / (1 + np.exp(-theta[1]))
    return pc_precision_logpdf(tau) + theta[0] + pcphi.logpdf(phi) + np.log(phi * (1 - phi))

def logprior_b(b, s):
    c = V.T @ b / s
    return -0.5 * c @ c - np.sum(np.log(s))

alpha = np.log(y.sum() / E.sum()); theta = np.array([np.log(40.0), 0.0]); b = np.zeros(n)
s = sd_of(theta); ll = loglik(alpha, b)
keep = []; t0 = time.time(); acc = np.zeros(3)
burn = iters // 5
for it in range(iters):
    # elliptical slice for b
    nu = V @ (s * rng.standard_normal(n))
    logy = ll + np.log(rng.uniform())
    ang = rng.uniform(0, 2 * np.pi); lo, hi = ang - 2 * np.pi, ang
    while True:
        prop = b * np.cos(ang) + nu * np.sin(ang)
        lp = loglik(alpha, prop)
        if lp > logy: b, ll = prop, lp; break
        if ang < 0: lo = ang
        else: hi = ang
        ang = rng.uniform(lo, hi)
    # alpha
    a2 = alpha + 0.01 * rng.standard_normal(); l2 = loglik(a2, b)
    if np.log(rng.uniform()) < l2 - ll - 0.5e-6 * (a2 ** 2 - alpha ** 2): alpha, ll = a2, l2; acc[0] += 1
    # theta centred
    t2 = theta + 0.3 * rng.standard_normal(2); s2 = sd_of(t2)
    r = logprior_theta(t2) + logprior_b(b, s2) - logprior_theta(theta) - logprior_b(b, s)
    if np.log(rng.uniform()) < r: theta, s = t2, s2; acc[1] += 1
    # theta non-centred: b = V (s * xi)
    xi = V.T @ b / s
    t2 = theta + 0.15 * rng.standard_normal(2); s2 = sd_of(t2); b2 = V @ (s2 * xi); l2 = loglik(alpha, b2)
    r = logprior_theta(t2) + l2 - logprior_theta(theta) - ll
    if np.log(rng.uniform()) < r: theta, s, b, ll = t2, s2, b2, l2; acc[2] += 1
    if it >= burn and it % 10 == 0:
        keep.append(np.concatenate([[alpha], b, theta]))
keep = np.array(keep)
eta = keep[:, [0]] + keep[:, 1:n + 1]
rate = 1000 * np.exp(eta)
overall = np.log(y.sum() / E.sum())
phi = 1 / (1 + np.exp(-keep[:, -1])); sigma = np.exp(-keep[:, -2] / 2)
import pandas as pd
out = pd.DataFrame({'unit': codes, 'estimate': rate.mean(0), 'lower': np.quantile(rate, 0.025, 0),
                    'upper': np.quantile(rate, 0.975, 0), 'prob_above': (eta > overall).mean(0)})
print('sweeps', iters, 'seconds', round(time.time() - t0), 'acceptance', acc / iters, 'kept draws', len(keep))
from brecha.spatial.bym2 import bym2
lap = bym2(p, years=list(range(2000, 2016)), pool=True, neighbours=nb).set_index('unit').loc[codes]
print(f'phi: MCMC {phi.mean():.4f}, Laplace {lap["phi"].iloc[0]:.4f}; sigma: MCMC {sigma.mean():.4f}, '
      f'Laplace {lap["sigma"].iloc[0]:.4f}')
for column in ('estimate', 'lower', 'upper', 'prob_above'):
    diff = (lap[column].to_numpy() - out[column].to_numpy())
    print(f'{column}: mean |difference| {np.abs(diff).mean():.4f}, largest {np.abs(diff).max():.4f}')
