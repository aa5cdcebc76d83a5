"""Average annual percent change (AAPC) of a joinpoint fit over a period [a, b], with its confidence interval.

AAPC (Clegg et al. 2009): with b_i the slope (on the log scale) of segment i and w_i the length in years
of segment i inside [a, b], m = sum w_i b_i / sum w_i and AAPC = (e^m - 1) x 100. Three intervals
(``ci_method``):

- ``parametric`` (delta method, the joinpoints taken as known): Var(m) = w'V w / (sum w)^2, V the covariance
  of the segment slopes (sigma^2 = SSE / (n - 2k - 2)); normal quantile when [a, b] spans several segments,
  t on n - 2k - 2 df (the segment's own APC interval) when it lies inside one (Clegg et al. 2009; NCI's
  "parametric" option).
- ``muggeo`` (continuous joinpoints): the delta method on (b0, b1, d_1..d_k, tau_1..tau_k) with the
  covariance of the nonlinear least-squares fit, sigma^2 (J'WJ)^-1 with J = [1, x, (x - tau_j)+,
  -d_j 1(x > tau_j)]; dm/dtau_j = (b_j - b_j+1) / (b - a) for a joinpoint inside (a, b); normal quantile.
  This is ``segmented::aapc`` (Muggeo 2010), reproduced to 1e-10 on REFERENCE_WAVE2 W.4 (AAPC
  -0.29334555298, SE 0.01476828303; 0.03337311295 with the joinpoints taken as known).
- ``empirical-quantile`` (NCI's default since Joinpoint 4.8; Kim et al. 2017): ``n_resamples`` series
  fitted + residuals resampled with replacement (seeded), each refitted with the same number of joinpoints
  (their places re-estimated); the interval is the alpha/2 and 1 - alpha/2 quantiles of the resampled
  AAPCs (numpy's default linear interpolation).

References: Clegg LX, Hankey BF, Tiwari R, Feuer EJ, Edwards BK (2009), Stat Med 28:3670-3682; Muggeo VMR
(2010), Stat Med 29:1958-1960; Kim HJ, Luo J, Chen HS, et al. (2017), Stat Med 36:3059-3074.
"""
from __future__ import annotations

import numpy as np

from .. import progress
from .joinpoint_continuous import best_fits
from .joinpoint_fit import designs, final_fit, slope_matrix

CI_METHODS = ("parametric", "empirical-quantile", "muggeo")


def overlap_weights(bounds: np.ndarray, a: float, b: float) -> np.ndarray:
    """Years of each segment (between consecutive ``bounds``) inside [a, b]."""
    return np.clip(np.minimum(bounds[1:], b) - np.maximum(bounds[:-1], a), 0.0, None)


def mean_slope_parametric(bounds, slopes, cov_seg, a, b):
    """(m, se, inside one segment) with the joinpoints taken as known."""
    w = overlap_weights(bounds, a, b)
    w = w / w.sum()
    return float(w @ slopes), float(np.sqrt(w @ cov_seg @ w)), int(np.count_nonzero(w > 0)) == 1


def mean_slope_muggeo(xc, y, weights, taus, beta, sse, a, b, df):
    """(m, se with the joinpoint uncertainty, se with the joinpoints known) for one series.

    ``xc``, ``taus``, ``a``, ``b`` share one origin; ``beta`` = (b0, b1, d_1..d_k); ``df`` = n - 2k - 2."""
    k = len(taus)
    C = slope_matrix(k)
    slopes = C @ beta
    bounds = np.concatenate([[xc[0]], taus, [xc[-1]]])
    w = overlap_weights(bounds, a, b) / (b - a)
    X = designs(xc, np.asarray(taus, dtype=float)[None, :])[0]
    J = np.column_stack([X] + [-beta[2 + j] * (xc > taus[j]) for j in range(k)])
    sw = np.ones(len(xc)) if weights is None else np.sqrt(weights)
    Jw = J * sw[:, None]
    cov = np.linalg.inv(Jw.T @ Jw) * sse / df
    inside = (np.asarray(taus) > a) & (np.asarray(taus) < b)
    g_tau = np.where(inside, (slopes[:-1] - slopes[1:]) / (b - a), 0.0)
    g = np.concatenate([C.T @ w, g_tau])
    g_known = np.concatenate([C.T @ w, np.zeros(k)])
    return float(w @ slopes), float(np.sqrt(g @ cov @ g)), float(np.sqrt(g_known @ cov @ g_known))


def empirical_quantile(xc, Y, W, taus, betas, k, a, b, alpha, n_resamples, seed, min_end=2, min_between=2,
                       continuous=False):
    """Empirical-quantile interval of m per series (rows of Y with their fit), resampling residuals.

    Returns (lower, upper) arrays of the mean slope; NaN where a resampled series cannot be refitted."""
    rng = np.random.default_rng(seed)
    s, n = Y.shape
    lower, upper = np.full(s, np.nan), np.full(s, np.nan)
    C = slope_matrix(k)
    for i in progress.track(range(s), "AAPC resampling", total=s):
        sw = np.ones(n) if W is None else np.sqrt(W[i])
        fitted = designs(xc, taus[i][None, :])[0] @ betas[i]
        resid_w = (Y[i] - fitted) * sw
        draws = rng.integers(0, n, size=(n_resamples, n))
        Ystar = fitted[None, :] + resid_w[draws] / sw[None, :]
        Wstar = None if W is None else np.broadcast_to(W[i], Ystar.shape)
        _, tau_star = best_fits(xc, Ystar, Wstar, k, min_end, min_between, continuous)
        ok = np.all(np.isfinite(tau_star), axis=1)
        if not ok.any():
            continue
        beta_star, _, _ = final_fit(xc, Ystar[ok], None if Wstar is None else Wstar[ok], tau_star[ok])
        slopes = beta_star @ C.T
        bounds = np.column_stack([np.full(ok.sum(), xc[0]), tau_star[ok], np.full(ok.sum(), xc[-1])])
        w = np.clip(np.minimum(bounds[:, 1:], b) - np.maximum(bounds[:, :-1], a), 0.0, None)
        m = np.sum(w * slopes, axis=1) / w.sum(axis=1)
        lower[i], upper[i] = np.quantile(m, [alpha / 2, 1 - alpha / 2])
    return lower, upper


def continuous_aapc(x, y, k: int, weights=None, period=None, alpha: float = 0.05, min_end: int = 2,
                    min_between: int = 2) -> dict:
    """AAPC on the scale of ``y`` (no log taken) of the best continuous k-joinpoint fit, as
    ``segmented::aapc``: the length-weighted mean slope ``m`` over ``period`` (default the data's range),
    its SE with the joinpoint uncertainty (``se``, Muggeo 2010) and without (``se_known``), the normal CI
    (``lower``, ``upper``), the joinpoints and segment slopes.

    Example (REFERENCE_WAVE2 W.4): m = -0.29334555, se = 0.01476828.
    """
    from scipy import special

    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    centre = x.mean()
    xc = x - centre
    W = None if weights is None else np.asarray(weights, dtype=float)[None, :]
    sse, taus = best_fits(xc, y[None, :], W, k, min_end, min_between, continuous=True)
    beta, _, sse_fit = final_fit(xc, y[None, :], W, taus)
    a, b = (x[0], x[-1]) if period is None else (float(period[0]), float(period[1]))
    df = len(x) - (2 * k + 2)
    m, se, se_known = mean_slope_muggeo(xc, y, None if W is None else W[0], taus[0], beta[0], float(sse_fit[0]),
                                        a - centre, b - centre, df)
    z = special.ndtri(1 - alpha / 2)
    return {"m": m, "se": se, "se_known": se_known, "lower": m - z * se, "upper": m + z * se,
            "joinpoints": tuple(float(t + centre) for t in taus[0]), "slopes": slope_matrix(k) @ beta[0],
            "sse": float(sse[0])}
