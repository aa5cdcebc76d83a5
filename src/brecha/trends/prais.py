"""Prais-Winsten regression with AR(1) errors, vectorised across many series.

The model is ``y_t = x_t'b + u_t`` with ``u_t = rho u_{t-1} + e_t``. The estimator follows Stata's
``prais`` and R's ``prais::prais_winsten`` (Mohr, 2022):

1. Fit OLS; residuals ``u``.
2. Estimate rho from ``u`` (``regress``: the no-constant regression of ``u_t`` on ``u_{t-1}``;
   other rules below).
3. Transform: ``y*_1 = sqrt(1 - rho^2) y_1``, ``y*_t = y_t - rho y_{t-1}`` (same for each column of X,
   so the constant becomes ``sqrt(1 - rho^2)`` then ``1 - rho``). Cochrane-Orcutt drops ``t = 1``.
4. OLS on the transformed data gives b; new residuals ``u = y - Xb`` on the *original* data.
   Repeat 2-4 until ``|rho_new - rho_old| <= tol`` (at most ``max_iter`` rounds) or stop after one
   round (two-step).
5. Conventional SEs from the transformed fit: ``s^2 = RSS*/(n - k)``, ``Var(b) = s^2 (X*'X*)^-1``, t
   with ``n - k`` df; HC0/HC1 sandwich SEs on the transformed fit optional. Durbin-Watson of the OLS
   residuals and of the transformed residuals.

rho rules (Stata ``help _crcar1``; N observations, k coefficients):

=========  ==============================================================
regress    sum u_t u_{t-1} / sum_{t>=2} u_{t-1}^2
freg       sum u_t u_{t+1} / sum_{t>=2} u_t^2  (the lead regression)
tscorr     sum u_t u_{t-1} / sum u_t^2
dw         1 - DW/2
theil      rho_tscorr (N - k) / N
nagar      (rho_dw N^2 + K^2) / (N^2 - K^2) with K = k + 1 (what Stata computes; Statalist 1738814)
=========  ==============================================================

As in R ``prais``, when ``|rho| >= 1`` in a round the first observation cannot be transformed and is
dropped in that round (the estimator becomes Cochrane-Orcutt); such series are flagged.

References: Prais & Winsten (1954), Cowles Commission Discussion Paper 383; Cochrane & Orcutt (1949),
JASA 44:32-61; Wooldridge (2016), Introductory Econometrics, 12.5; StataCorp, ``[TS] prais``.
statsmodels' GLSAR is a different estimator (drops the first observation, Yule-Walker rho).

Example:
    >>> import numpy as np
    >>> years = np.arange(2005, 2015)
    >>> imr = np.array([9.1, 8.8, 8.6, 8.9, 8.2, 7.9, 7.8, 7.6, 7.4, 7.2])
    >>> X = np.column_stack([np.ones(10), years])
    >>> fit = prais_winsten(np.log10(imr), X)
    >>> round(float(fit.coef[1]), 8), fit.n_iter
    (-0.01152198, 4)
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..errors import InputError
from ..i18n import Catalog

RHO_METHODS = ("regress", "freg", "tscorr", "dw", "theil", "nagar")
COV_TYPES = ("const", "HC0", "HC1")

MSG = Catalog({
    "bad_rho_method": ("método de rho desconocido '{value}'; use uno de {choices}",
                       "unknown rho method '{value}'; use one of {choices}"),
    "bad_cov": ("tipo de covarianza desconocido '{value}'; use uno de {choices}",
                "unknown covariance type '{value}'; use one of {choices}"),
    "bad_shape": ("dimensiones incompatibles: y {y} y X {x}", "incompatible shapes: y {y} and X {x}"),
    "not_finite": ("hay valores no finitos (NaN o infinito) en {what}",
                   "there are non-finite values (NaN or infinite) in {what}"),
    "too_short": ("la serie tiene {n} {n:observación|observaciones} y el modelo {k} {k:coeficiente|coeficientes}: se "
                  "necesitan al menos {need}",
                  "the series has {n} {n:observation|observations} and the model {k} {k:coefficient|coefficients}: at "
                  "least {need} are needed"),
    "no_fit_hint": ("quite variables o use más años", "drop variables or use more years"),
    "not_converged": ("Prais-Winsten: rho no convergió en {max_iter} iteraciones en {count} serie(s)",
                      "Prais-Winsten: rho did not converge in {max_iter} iterations in {count} series"),
})


@dataclass
class PraisResult:
    """Prais-Winsten fit of one series (1-D attributes) or many (leading axis = series).

    ``coef``, ``se``, ``t``, ``p`` are (k,) or (S, k); ``cov`` is (k, k) or (S, k, k); ``rho``,
    ``n_iter``, ``dw_original``, ``dw_transformed``, ``r2``, ``sigma``, ``df_resid``, ``nobs`` and
    ``converged`` are scalars or (S,). ``rho_path`` starts at 0 (the OLS round): 1-D for one series,
    (S, max rounds + 1) padded with NaN for many. ``first_dropped`` marks series whose first
    observation was dropped in the final round (Cochrane-Orcutt, or ``|rho| >= 1``).
    """

    coef: np.ndarray
    se: np.ndarray
    t: np.ndarray
    p: np.ndarray
    cov: np.ndarray
    rho: np.ndarray
    rho_path: np.ndarray
    n_iter: np.ndarray
    converged: np.ndarray
    dw_original: np.ndarray
    dw_transformed: np.ndarray
    r2: np.ndarray
    sigma: np.ndarray
    df_resid: np.ndarray
    nobs: np.ndarray
    first_dropped: np.ndarray
    names: list[str]
    rho_method: str
    iterate: bool
    corc: bool
    cov_type: str
    resid: np.ndarray = field(repr=False)
    resid_transformed: np.ndarray = field(repr=False)

    @property
    def method(self) -> str:
        name = "cochrane-orcutt" if self.corc else "prais-winsten"
        return f"{name} (rho={self.rho_method}, {'iterated' if self.iterate else 'two-step'}, cov={self.cov_type})"

    def table(self) -> pd.DataFrame:
        """Tidy coefficient table: one row per (series, term)."""
        coef = np.atleast_2d(self.coef)
        k = coef.shape[1]
        s = coef.shape[0]
        return pd.DataFrame({
            "series": np.repeat(np.arange(s), k),
            "term": np.tile(self.names, s),
            "estimate": coef.ravel(),
            "se": np.atleast_2d(self.se).ravel(),
            "t": np.atleast_2d(self.t).ravel(),
            "p_value": np.atleast_2d(self.p).ravel(),
            "rho": np.repeat(np.atleast_1d(self.rho), k),
            "df_resid": np.repeat(np.atleast_1d(self.df_resid), k),
            "method": self.method,
        })

    def summary(self) -> str:
        """A readable summary of a single-series fit (the first series if there are many)."""
        tab = self.table()
        tab = tab[tab["series"] == 0].drop(columns=["series", "rho", "df_resid", "method"])
        first = (lambda a: float(np.atleast_1d(a)[0]))
        lines = [self.method,
                 f"rho = {first(self.rho):.6f} after {int(first(self.n_iter))} iteration(s)",
                 tab.to_string(index=False, float_format=lambda v: f"{v:.6g}"),
                 f"Residual SE {first(self.sigma):.6g} on {int(first(self.df_resid))} df; "
                 f"R2 {first(self.r2):.4f}; DW original {first(self.dw_original):.4f}, "
                 f"transformed {first(self.dw_transformed):.4f}"]
        return "\n".join(lines)


def durbin_watson(resid: np.ndarray) -> np.ndarray:
    """Durbin-Watson statistic ``sum (u_t - u_{t-1})^2 / sum u_t^2`` along the last axis."""
    resid = np.asarray(resid, dtype=float)
    return np.sum(np.diff(resid, axis=-1) ** 2, axis=-1) / np.sum(resid ** 2, axis=-1)


def estimate_rho(resid: np.ndarray, method: str = "regress", k: int = 1) -> np.ndarray:
    """AR(1) coefficient of residuals (last axis = time) by one of Stata's rules (see module doc).

    ``k`` is the number of coefficients of the regression (used by ``theil`` and ``nagar``).
    """
    u = np.asarray(resid, dtype=float)
    n = u.shape[-1]
    cross = np.sum(u[..., 1:] * u[..., :-1], axis=-1)
    if method == "regress":
        return cross / np.sum(u[..., :-1] ** 2, axis=-1)
    if method == "freg":
        return cross / np.sum(u[..., 1:] ** 2, axis=-1)
    if method == "tscorr":
        return cross / np.sum(u ** 2, axis=-1)
    if method == "dw":
        return 1.0 - durbin_watson(u) / 2.0
    if method == "theil":
        return cross / np.sum(u ** 2, axis=-1) * (n - k) / n
    if method == "nagar":
        big_k = k + 1  # Stata's computed value matches k + 1, not the k of its manual
        rho_dw = 1.0 - durbin_watson(u) / 2.0
        return (rho_dw * n ** 2 + big_k ** 2) / (n ** 2 - big_k ** 2)
    raise InputError(MSG("bad_rho_method", value=method, choices=", ".join(RHO_METHODS)))


def _transform(a: np.ndarray, rho: np.ndarray, first_weight: np.ndarray) -> np.ndarray:
    """Quasi-difference along axis 1 (time): first row scaled by ``first_weight``."""
    r = rho.reshape((-1,) + (1,) * (a.ndim - 1))
    out = np.empty_like(a)
    out[:, 1:] = a[:, 1:] - r * a[:, :-1]
    out[:, 0] = a[:, 0] * first_weight.reshape((-1,) + (1,) * (a.ndim - 2))
    return out


def _qr(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Thin QR of each (n, k) matrix in a stack by modified Gram-Schmidt, vectorised over the stack.

    For the few columns of a trend model this is an order of magnitude faster than LAPACK's per-matrix
    calls through ``np.linalg.qr``, and accurate to ~eps x cond(X) (Bjorck, 1967).
    """
    s, n, k = X.shape
    q = np.array(X, dtype=float, copy=True)
    r = np.zeros((s, k, k))
    for j in range(k):
        col = q[:, :, j]
        for i in range(j):
            proj = np.einsum("sn,sn->s", q[:, :, i], col)
            r[:, i, j] = proj
            col -= proj[:, None] * q[:, :, i]
        norm = np.sqrt(np.einsum("sn,sn->s", col, col))
        r[:, j, j] = norm
        with np.errstate(divide="ignore", invalid="ignore"):
            col /= norm[:, None]
    return q, r


def _fit_at(y, X, rho, corc):
    """OLS on the data transformed with ``rho`` (one value per series). Returns a dict of arrays."""
    inside = np.abs(rho) < 1.0
    first_weight = np.where(inside & (not corc), np.sqrt(np.clip(1.0 - rho ** 2, 0.0, None)), 0.0)
    ys = _transform(y, rho, first_weight)
    xs = _transform(X, rho, first_weight)
    q, r = _qr(xs)
    qty = np.einsum("snk,sn->sk", q, ys)
    # a series whose transformed design is degenerate (rho not finite, e.g. three points fitted exactly, or a
    # column collinear after the transform) gets NaN estimates and is reported "no estimate" by the caller,
    # instead of one such series stopping the fit of every other (numpy's batched inv raises for all)
    diagonal = np.abs(np.diagonal(r, axis1=1, axis2=2))
    good = np.isfinite(r).all(axis=(1, 2)) & (diagonal > 1e-12 * np.maximum(diagonal.max(axis=1, initial=0.0),
                                                                               1.0)[:, None]).all(axis=1)
    r_inv = np.full_like(r, np.nan)
    if good.any():
        r_inv[good] = np.linalg.inv(r[good])
    beta = np.einsum("skj,sj->sk", r_inv, qty)
    resid_t = ys - np.einsum("snk,sk->sn", xs, beta)
    resid = y - np.einsum("snk,sk->sn", X, beta)
    return {"beta": beta, "q": q, "r_inv": r_inv, "ys": ys, "xs": xs, "resid_t": resid_t,
            "resid": resid, "dropped": first_weight == 0.0}


def prais_winsten(y, X, rho_method: str = "regress", iterate: bool = True, tol: float = 1e-6,
                  max_iter: int = 50, corc: bool = False, cov: str = "const", rho=None,
                  names=None) -> PraisResult:
    """Prais-Winsten (or Cochrane-Orcutt) regression with AR(1) errors, for one or many series.

    Parameters
    ----------
    y : array (n,) for one series or (S, n) for S series observed at the same n time points, in
        time order.
    X : design matrix (n, k) shared by all series, or (S, n, k) one per series. Include the constant
        column yourself. A DataFrame gives the term names.
    rho_method : ``regress`` (default, Stata/R), ``freg``, ``tscorr``, ``dw``, ``theil``, ``nagar``.
    iterate : iterate to ``|delta rho| <= tol`` (at most ``max_iter`` rounds); False = two-step.
    corc : Cochrane-Orcutt: drop the first observation instead of the ``sqrt(1 - rho^2)`` transform.
    cov : ``const`` (conventional), ``HC0`` or ``HC1`` (White sandwich on the transformed fit,
        HC1 = HC0 * n / (n - k)).
    rho : a fixed rho (scalar or one per series) instead of estimating it (one transformed fit).

    Returns a :class:`PraisResult`. Reproduces R ``prais`` 1.1.4 on Wooldridge's barium data to
    1e-6 (see tests).
    """
    if rho_method not in RHO_METHODS:
        raise InputError(MSG("bad_rho_method", value=rho_method, choices=", ".join(RHO_METHODS)))
    if cov not in COV_TYPES:
        raise InputError(MSG("bad_cov", value=cov, choices=", ".join(COV_TYPES)))
    if names is None:
        names = [str(c) for c in X.columns] if isinstance(X, pd.DataFrame) else None
    y_arr = np.asarray(y, dtype=float)
    x_arr = np.asarray(X, dtype=float)
    single = y_arr.ndim == 1
    y2 = y_arr[None, :] if single else y_arr
    if y2.ndim != 2 or x_arr.ndim not in (2, 3) or x_arr.shape[-2] != y2.shape[1] or (
            x_arr.ndim == 3 and x_arr.shape[0] != y2.shape[0]):
        raise InputError(MSG("bad_shape", y=y_arr.shape, x=x_arr.shape))
    n_series, n = y2.shape
    k = x_arr.shape[-1]
    if not np.all(np.isfinite(y2)):
        raise InputError(MSG("not_finite", what="y"))
    if not np.all(np.isfinite(x_arr)):
        raise InputError(MSG("not_finite", what="X"))
    need = k + 2 if corc else k + 1
    if n < need:
        raise InputError(MSG("too_short", n=n, k=k, need=need), hint=MSG("no_fit_hint"))
    X3 = np.broadcast_to(x_arr, (n_series, n, k)) if x_arr.ndim == 2 else x_arr
    names = list(names) if names is not None else [f"x{i}" for i in range(k)]

    zeros = np.zeros(n_series)
    ols = _fit_at(y2, X3, zeros, False)
    dw_original = durbin_watson(ols["resid"])

    fits = ols
    if rho is not None:
        rho_now = np.broadcast_to(np.asarray(rho, dtype=float), (n_series,)).copy()
        fits = _fit_at(y2, X3, rho_now, corc)
        path = [zeros, rho_now.copy()]
        n_iter = np.ones(n_series, dtype=int)
        converged = np.ones(n_series, dtype=bool)
    else:
        resid = ols["resid"].copy()  # residuals on the original data drive the next rho
        rho_prev = zeros.copy()
        rho_now = zeros.copy()
        active = np.ones(n_series, dtype=bool)
        converged = np.zeros(n_series, dtype=bool)
        n_iter = np.zeros(n_series, dtype=int)
        path = [zeros]
        rounds = max_iter if iterate else 1
        last = None
        for it in range(1, rounds + 1):
            idx = np.flatnonzero(active)
            step = np.full(n_series, np.nan)
            new_rho = estimate_rho(resid[idx], rho_method, k)
            step[idx] = new_rho
            path.append(step)
            rho_now[idx] = new_rho
            part = _fit_at(y2[idx], X3[idx], new_rho, corc)
            resid[idx] = part["resid"]
            last = part if len(idx) == n_series else None
            n_iter[idx] = it
            done = np.abs(new_rho - rho_prev[idx]) <= tol
            converged[idx[done]] = True
            rho_prev[idx] = new_rho
            active[idx[done]] = False
            if not active.any():
                break
        # the final transformed fit of every series at its last rho (one pass instead of scattering
        # every intermediate array back each round)
        fits = last if last is not None else _fit_at(y2, X3, rho_now, corc)
        if not iterate:
            converged[:] = True
        if (~converged).any():
            from ..errors import warn
            warn(MSG("not_converged", max_iter=max_iter, count=int((~converged).sum())))

    beta, r_inv, q = fits["beta"], fits["r_inv"], fits["q"]
    resid_t, dropped = fits["resid_t"], fits["dropped"]
    nobs = n - dropped.astype(int)
    df_resid = nobs - k
    rss = np.sum(resid_t ** 2, axis=1)
    sigma2 = rss / df_resid
    xtx_inv = np.einsum("sij,skj->sik", r_inv, r_inv)
    if cov == "const":
        cov_mat = sigma2[:, None, None] * xtx_inv
    else:
        meat = np.einsum("snk,sn,snj->skj", q, resid_t ** 2, q)
        cov_mat = np.einsum("sik,skl,sjl->sij", r_inv, meat, r_inv)
        if cov == "HC1":
            cov_mat = cov_mat * (nobs / df_resid)[:, None, None]
    se = np.sqrt(np.einsum("skk->sk", cov_mat))
    t_stat = beta / se
    from scipy import special
    p_value = 2.0 * special.stdtr(df_resid[:, None], -np.abs(t_stat))

    # R2 as R prais reports it: 1 - RSS*/TSS*, TSS* centred on the transformed y (observations used).
    start = dropped.astype(int)
    mask = np.arange(n)[None, :] >= start[:, None]
    ys = fits["ys"]
    ys_mean = np.sum(np.where(mask, ys, 0.0), axis=1) / nobs
    tss = np.sum(np.where(mask, (ys - ys_mean[:, None]) ** 2, 0.0), axis=1)
    r2 = 1.0 - rss / tss
    resid_used = np.where(mask, resid_t, 0.0)
    diffs = np.diff(resid_t, axis=1)
    dw_t = np.sum(np.where(mask[:, 1:] & mask[:, :-1], diffs ** 2, 0.0), axis=1) / np.sum(resid_used ** 2, axis=1)

    rho_path = np.column_stack(path)
    out = dict(coef=beta, se=se, t=t_stat, p=p_value, cov=cov_mat, rho=rho_now, rho_path=rho_path,
               n_iter=n_iter, converged=converged, dw_original=dw_original, dw_transformed=dw_t, r2=r2,
               sigma=np.sqrt(sigma2), df_resid=df_resid, nobs=nobs, first_dropped=dropped,
               resid=fits["resid"], resid_transformed=resid_t)
    if single:
        out = {key: val[0] for key, val in out.items()}
        out["rho_path"] = out["rho_path"][: int(out["n_iter"]) + 1]
        for key in ("rho", "dw_original", "dw_transformed", "r2", "sigma"):
            out[key] = float(out[key])
        for key in ("n_iter", "df_resid", "nobs"):
            out[key] = int(out[key])
        out["converged"] = bool(out["converged"])
        out["first_dropped"] = bool(out["first_dropped"])
    return PraisResult(names=names, rho_method=rho_method if rho is None else "fixed", iterate=iterate,
                       corc=corc, cov_type=cov, **out)
