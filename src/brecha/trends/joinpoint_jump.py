"""A jump at a year the user names: the comparability ratio of a break in the series.

A change of source or boundaries (Chile's births from DEIS to INE in 2009/2010, a commune split) can
shift the level of a series from one year on without changing its trend. The jump model (NCI Joinpoint's
"Jump model", Chen et al. 2020) adds a level shift at the named year J to the joinpoint model::

    ln(rate_t) = b0 + b1 x_t + sum_j d_j (x_t - tau_j)+ + g 1[x_t >= J] + e_t

fitted by (weighted) least squares, the joinpoints searched as usual (NCI's rules; the shift column is
added to every candidate design) and their number chosen by the same information criterion with one
more parameter (BIC, BIC3 or WBIC; the WBIC weight from the series with the fitted shift removed). The
comparability ratio CR = e^g (rate after / rate before the break at equal trend), its CI
exp(g +- t se(g)) on n - 2k - 3 df, and the jump in percent 100 (e^g - 1). The permutation selection is
not offered with a jump.

Reference: Chen HS, Zeichner S, Anderson RN, Espey DK, Kim HJ, Feuer EJ (2020), The Joinpoint-Jump and
Joinpoint-Comparability Ratio Model for Trend Analysis with Applications to Coding Changes in Health
Statistics, J Off Stat 36(1):49-62.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..errors import InputError
from ..i18n import Catalog
from .joinpoint_continuous import best_fits
from .joinpoint_fit import designs, max_joinpoints_default
from .joinpoint_selection import information, partial_r2
from .series import prepare_series

MSG = Catalog({
    "bad_year": ("el año del salto {year} debe dejar al menos 2 años antes y 2 después (datos {first}-{last})",
                 "the jump year {year} must leave at least 2 years before and 2 after (data {first}-{last})"),
    "no_permutation": ("el modelo con salto elige los joinpoints con wbic, bic o bic3, no con permutation",
                       "the jump model chooses the joinpoints with wbic, bic or bic3, not with permutation"),
})

COLUMNS = ["unit", "outcome", "year", "jump", "jump_lower", "jump_upper", "comparability_ratio", "cr_lower",
           "cr_upper", "se", "p_value", "n_joinpoints", "joinpoints", "n_years", "selection", "method"]


def _with_step(xc, cut):
    def stack(X):
        step = np.broadcast_to((xc >= cut).astype(float)[None, :, None], (X.shape[0], X.shape[1], 1))
        return np.concatenate([X, step], axis=2)
    return stack


def fit_jump(x, Y, W, jump_year, max_joinpoints=2, min_end=2, min_between=2, selection="wbic", alpha=0.05,
             continuous=False):
    """Per series (rows of ``Y`` = ln rate at years ``x``): the shift g, its SE, df, k and joinpoints."""
    from scipy import special

    if selection == "permutation":
        raise InputError(MSG("no_permutation"), argument="selection")
    s, n = Y.shape
    if np.sum(x < jump_year) < 2 or np.sum(x >= jump_year) < 2:
        raise InputError(MSG("bad_year", year=jump_year, first=int(x[0]), last=int(x[-1])), argument="jump_year")
    xc = x - x.mean()
    stack = _with_step(xc, jump_year - x.mean())
    fits, crit = {}, {}
    for k in range(min(max_joinpoints, max_joinpoints_default(n)) + 1):
        if n - (2 * k + 3) < 1:
            break
        sse, taus = best_fits(xc, Y, W, k, min_end, min_between, continuous, stack=stack)
        if not np.all(np.isfinite(sse)):
            break
        fits[k] = (sse, taus)
    out = {name: np.full(s, np.nan) for name in ("g", "se", "df", "p")}
    out["k"] = np.zeros(s, dtype=int)
    out["taus"] = [()] * s
    # the fit of every k, then the criterion (one more parameter than without the jump, for every k)
    coef = {}
    for k, (sse, taus) in fits.items():
        X = stack(designs(xc, np.nan_to_num(taus)))
        sw = np.ones_like(Y) if W is None else np.sqrt(W)
        beta = np.stack([np.linalg.lstsq(X[i] * sw[i][:, None], Y[i] * sw[i], rcond=None)[0] for i in range(s)])
        xtx_inv = np.stack([np.linalg.inv((X[i] * sw[i][:, None]).T @ (X[i] * sw[i][:, None])) for i in range(s)])
        coef[k] = (beta, xtx_inv)
        penalty = {"bic": 2.0, "bic3": 3.0}.get(selection)
        if penalty is None:  # wbic: the weight from the series without the fitted shift
            weight = partial_r2(xc, Y - beta[:, -1:] * (xc >= jump_year - x.mean()), W, taus)
            penalty = 2.0 + np.nan_to_num(weight) if k else 2.0
        crit[k] = information(sse, n, k, penalty) + np.log(n) / n
    ks = sorted(fits)
    chosen = np.array(ks)[np.argmin(np.vstack([crit[k] for k in ks]), axis=0)]
    for i in range(s):
        k = int(chosen[i])
        beta, xtx_inv = coef[k]
        sse = fits[k][0][i]
        df = n - (2 * k + 3)
        se = float(np.sqrt(xtx_inv[i][-1, -1] * sse / df))
        out["g"][i], out["se"][i], out["df"][i], out["k"][i] = beta[i][-1], se, df, k
        out["p"][i] = 2.0 * special.stdtr(df, -abs(beta[i][-1] / se))
        out["taus"][i] = tuple(float(t + x.mean()) for t in fits[k][1][i])
    return out


def jump_trends(table, names, outcome, jump_year, zero="add-half", alpha=0.05, min_years=5, max_joinpoints=2,
                selection="wbic", weights=None, min_end=2, min_between=2, continuous=False) -> pd.DataFrame:
    """One row per unit (``COLUMNS``): the shift at ``jump_year`` of its joinpoint trend, with CIs.
    Units whose years leave fewer than 2 on either side of the jump get a row without estimates."""
    from scipy import special

    units, info, series = prepare_series(table, zero=zero, min_years=min_years, max_zero_share=1.0)
    rows = []
    fitted = set()
    for x, members, Y10, E in series:
        if np.sum(x < jump_year) < 2 or np.sum(x >= jump_year) < 2:
            continue
        Y = Y10 * np.log(10.0)
        res = fit_jump(x, Y, E if weights == "poisson" else None, jump_year, max_joinpoints, min_end, min_between,
                       selection, alpha, continuous)
        for m, pos in enumerate(members):
            q = special.stdtrit(res["df"][m], 1 - alpha / 2)
            g, se = res["g"][m], res["se"][m]
            fitted.add(pos)
            rows.append((str(units[pos]), outcome, jump_year, 100 * np.expm1(g), 100 * np.expm1(g - q * se),
                         100 * np.expm1(g + q * se), np.exp(g), np.exp(g - q * se), np.exp(g + q * se), se,
                         res["p"][m], int(res["k"][m]), ";".join(f"{v:.6g}" for v in res["taus"][m]), len(x),
                         selection, "joinpoint-jump"))
    for pos in range(len(units)):
        if pos not in fitted:
            rows.append((str(units[pos]), outcome, jump_year) + (np.nan,) * 8 + (pd.NA, "",
                                                                                 int(info["n_years"].iloc[pos]),
                                                                                 selection, "joinpoint-jump"))
    out = pd.DataFrame(rows, columns=COLUMNS)
    out["n_joinpoints"] = pd.array(out["n_joinpoints"], dtype="Int64")
    out["name"] = [names.get(u, "") for u in out["unit"]]
    return out.sort_values("unit", kind="stable").reset_index(drop=True)


def jumps(panel, jump_year: int, outcome: str = "infant", years=None, level=None, incomplete: str = "sum",
          **options) -> pd.DataFrame:
    """:func:`jump_trends` from a Panel (or a ``unit, year, events, births`` table), as
    :func:`brecha.trends.trends` reads it (``level``, ``years``, the creation years of split communes)."""
    from .apc import _event_table

    table, names, outcome, _ = _event_table(panel, outcome, years, level, incomplete)
    out = jump_trends(table, names, outcome, jump_year, **options)
    out.attrs["notes"] = list(getattr(panel, "notes", ()) or ())
    return out
