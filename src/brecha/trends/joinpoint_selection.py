"""How many joinpoints: NCI Joinpoint's selection rules.

With n observations and Q_k the smallest (weighted) SSE with k joinpoints (NCI Joinpoint help, "Model
Selection Method"):

- ``bic``:  BIC(k)  = ln(Q_k / n) + (2k + 2) ln(n) / n   (p = 2k + 2 parameters, joinpoints counted);
- ``bic3``: BIC3(k) = ln(Q_k / n) + (3k + 2) ln(n) / n   (a harsher penalty, close to the permutation test);
- ``wbic`` (the default of Joinpoint 5): WBIC(k) = ln(Q_k / n) + ((2 + R2max) k + 2) ln(n) / n, i.e.
  (1 - R2max) BIC + R2max BIC3, where R2max is the largest partial R^2 of the k joinpoints of the best
  k-joinpoint model. The partial R^2 of joinpoint i uses the observations after joinpoint i - 1 up to and
  including joinpoint i + 1 (the first and last observation for the outer ones): with H0 the hat matrix of
  the line (1, x) on them, y their values and z = (x - tau_i)+,
  R^2 = {y'(I - H0) z}^2 / ({y'(I - H0) y} {z'(I - H0) z}) (weighted by the model's weights). The weight is
  not defined for k = 0 (WBIC(0) = BIC(0)). Kim HJ, Chen HS, Midthune D, et al. (2023), J Appl Stat
  50:1992-2013 (the weighted BIC; Joinpoint 4.7 onwards);
- ``permutation``: Kim et al. (2000)'s sequential tests of H0: k_a vs H1: k_b joinpoints, starting at
  (0, K), each at level alpha / (K - k_a): reject -> k_a + 1, else k_b - 1, until k_a = k_b. The statistic
  is (Q_ka - Q_kb) / Q_kb; its null distribution comes from ``n_permutations`` (NCI: 4,499) permutations
  of the k_a model's (weighted) residuals added back to its fit, every permuted series refitted with k_a
  and k_b joinpoints (all permutations at once, numpy; seeded). p = (1 + #{T* >= T}) / (N + 1).

References: Kim HJ, Fay MP, Feuer EJ, Midthune DN (2000), Stat Med 19:335-351; Zhang NR, Siegmund DO
(2007), Biometrics 63:22-32 (BIC for change points); NCI Joinpoint Regression Program 5 help.
"""
from __future__ import annotations

import numpy as np

from .. import progress
from .joinpoint_continuous import best_fits
from .joinpoint_fit import designs, final_fit

SELECTIONS = ("wbic", "bic", "bic3", "permutation")


def information(sse: np.ndarray, n: int, k: int, penalty: float | np.ndarray) -> np.ndarray:
    """ln(SSE / n) + (penalty k + 2) ln(n) / n: BIC (penalty 2), BIC3 (3), WBIC (2 + R2max)."""
    return np.log(np.maximum(sse, 1e-300) / n) + (penalty * k + 2.0) * np.log(n) / n


def partial_r2(xc: np.ndarray, Y: np.ndarray, W, taus: np.ndarray) -> np.ndarray:
    """Largest partial R^2 of the joinpoints ``taus`` (S, k) of each series (NaN when k = 0)."""
    s, n = Y.shape
    k = taus.shape[1]
    if k == 0:
        return np.full(s, np.nan)
    w_all = np.ones((s, n)) if W is None else W
    lower = np.column_stack([np.full(s, -np.inf), taus[:, :-1]])
    upper = np.column_stack([taus[:, 1:], np.full(s, np.inf)])
    best = np.full(s, -np.inf)
    for i in range(k):
        inside = (xc[None, :] > lower[:, i][:, None]) & (xc[None, :] <= upper[:, i][:, None])
        w = w_all * inside
        z = np.maximum(xc[None, :] - taus[:, i][:, None], 0.0)

        def resid(v):  # residuals of v on (1, x) by weighted least squares, per series
            sw = w.sum(axis=1, keepdims=True)
            xm = (w * xc).sum(axis=1, keepdims=True) / sw
            vm = (w * v).sum(axis=1, keepdims=True) / sw
            sxx = (w * (xc - xm) ** 2).sum(axis=1, keepdims=True)
            b = (w * (xc - xm) * (v - vm)).sum(axis=1, keepdims=True) / sxx
            return v - vm - b * (xc - xm)

        with np.errstate(divide="ignore", invalid="ignore"):  # NaN joinpoints: no fit at this k
            ry, rz = resid(Y), resid(z)
            num = (w * ry * rz).sum(axis=1) ** 2
            den = (w * ry * ry).sum(axis=1) * (w * rz * rz).sum(axis=1)
            best = np.fmax(best, np.where(den > 0, num / den, 0.0))
    return best


def criteria(xc, Y, W, models: dict) -> dict:
    """BIC, BIC3, weight (R2max) and WBIC per k: ``{k: (bic, bic3, weight, wbic)}`` arrays (S,)."""
    n = Y.shape[1]
    out = {}
    for k, (sse, taus) in models.items():
        weight = partial_r2(xc, Y, W, taus)
        bic, bic3 = information(sse, n, k, 2.0), information(sse, n, k, 3.0)
        wbic = bic if k == 0 else information(sse, n, k, 2.0 + np.nan_to_num(weight))
        out[k] = (bic, bic3, weight, wbic)
    return out


def select(selection: str, crit: dict) -> np.ndarray:
    """k minimising the chosen criterion per series (the fewest joinpoints on ties)."""
    column = {"bic": 0, "bic3": 1, "wbic": 3}[selection]
    ks = sorted(crit)
    values = np.vstack([crit[k][column] for k in ks])
    return np.array(ks)[np.argmin(values, axis=0)]


def permutation_select(xc, Y, W, models, alpha, n_permutations, seed, min_end=2, min_between=2,
                       continuous=False):
    """Kim et al. (2000) sequential permutation tests, series by series (permutations vectorised).
    Returns the chosen k per series and the p-values of the tests run (list of (series, k_a, k_b, p))."""
    rng = np.random.default_rng(seed)
    s, n = Y.shape
    ks = sorted(models)
    k_max = max(ks)
    chosen = np.zeros(s, dtype=int)
    tests = []
    for i in progress.track(range(s), "permutations", total=s):
        w = None if W is None else W[i][None, :]
        sw = np.ones(n) if W is None else np.sqrt(W[i])
        k_a, k_b = min(ks), k_max
        while k_a < k_b:
            taus0 = models[k_a][1][i][None, :]
            beta, _, _ = final_fit(xc, Y[i][None, :], w, taus0)
            fitted = (designs(xc, taus0)[0] @ beta[0])
            sse0, sse1 = models[k_a][0][i], models[k_b][0][i]
            t_obs = (sse0 - sse1) / max(sse1, 1e-300)
            resid_w = (Y[i] - fitted) * sw
            perms = np.argsort(rng.random((n_permutations, n)), axis=1)
            Ystar = fitted[None, :] + resid_w[perms] / sw[None, :]
            Wstar = None if W is None else np.broadcast_to(W[i], Ystar.shape)
            s0, _ = best_fits(xc, Ystar, Wstar, k_a, min_end, min_between, continuous)
            s1, _ = best_fits(xc, Ystar, Wstar, k_b, min_end, min_between, continuous)
            t_star = (s0 - s1) / np.maximum(s1, 1e-300)
            p_value = (1 + np.sum(t_star >= t_obs * (1 - 1e-12))) / (n_permutations + 1)
            tests.append((i, k_a, k_b, p_value))
            if p_value < alpha / (k_max - k_a):
                k_a += 1
            else:
                k_b -= 1
        chosen[i] = k_a
    return chosen, tests
