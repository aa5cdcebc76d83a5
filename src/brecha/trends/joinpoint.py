"""Joinpoint regression (the NCI method): connected log-linear segments, APC per segment, AAPC.

Model with k joinpoints tau_1 < ... < tau_k at observed years (Kim et al., 2000)::

    ln(rate_t) = b0 + b1 x_t + d_1 (x_t - tau_1)+ + ... + d_k (x_t - tau_k)+ + e_t

- K is capped by NCI's recommendation for n points (0 below 7 points, 1 for 7-11, 2 for 12-16, ...).
- Grid search: for each k = 0..K every allowed placement of the joinpoints at data points is fitted by
  (weighted) least squares and the one with the smallest SSE kept. A joinpoint must leave at least
  ``min_segment`` observations (not counting the joinpoint) before it, after it and between it and the
  next joinpoint (NCI Joinpoint's defaults are 2).
- Model selection: ``bic`` (default): BIC(k) = ln(SSE_k / n) + 2(k + 1) ln(n) / n, the NCI form with
  p = 2k + 2 parameters; ``permutation``: Kim et al.'s sequential permutation tests of H0: k_a vs
  H1: k_b, starting at (0, K), each at level alpha / (K - k_a), rejecting -> k_a + 1, else k_b - 1.
- Weights: none (constant variance) or ``poisson``: Var(ln rate) ~ 1/count, so weight = count.
- Segment slope b_i = b1 + d_1 + ... + d_(i-1); APC_i = (e^b_i - 1) x 100 with a t CI on
  n - (2k + 2) df (the joinpoint locations counted as parameters, as in NCI's notation p = 2k + 2;
  sigma^2 = SSE / (n - 2k - 2)).
- AAPC over [a, b] (Clegg et al., 2009): AAPC = (exp(sum w_i b_i / sum w_i) - 1) x 100 with w_i the
  length (years) of segment i inside [a, b]; Var = w'V w / (sum w)^2 with V the covariance of the
  segment slopes; the CI is normal when [a, b] spans several segments and equals the APC's t interval
  when it lies inside one segment.

The grid search is vectorised over series and placements (batched normal equations), so hundreds of
communes with K <= 2 take seconds.

References: Kim HJ, Fay MP, Feuer EJ, Midthune DN (2000), Stat Med 19:335-351; Clegg LX, Hankey BF,
Tiwari R, Feuer EJ, Edwards BK (2009), Stat Med 28:3670-3682; NCI Joinpoint Regression Program help.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np
import pandas as pd

from .. import progress
from ..errors import InputError
from ..i18n import Catalog
from .series import classify, prepare_series

SELECTIONS = ("bic", "permutation")
WEIGHTS = (None, "poisson")

MSG = Catalog({
    "bad_selection": ("selección de modelo desconocida '{value}'; use bic o permutation",
                      "unknown model selection '{value}'; use bic or permutation"),
    "bad_weights": ("pesos desconocidos '{value}'; use ninguno o poisson", "unknown weights '{value}'; use none or poisson"),
    "need_data": ("indique counts y births, o rates", "give counts and births, or rates"),
    "need_counts": ("los pesos de Poisson necesitan los conteos (counts)", "Poisson weights need the counts"),
    "not_positive": ("hay tasas iguales a 0 o negativas: el logaritmo no está definido",
                     "there are rates equal to 0 or negative: the logarithm is undefined"),
    "not_positive_hint": ("sume 0,5 a los conteos cero (como Joinpoint) o agrupe años; brecha.trends.trends lo hace "
                          "con zero='add-half'", "add 0.5 to zero counts (as Joinpoint does) or pool years; "
                          "brecha.trends.trends does it with zero='add-half'"),
    "bad_shape": ("dimensiones incompatibles: años {x} y datos {y}", "incompatible shapes: years {x} and data {y}"),
    "not_finite": ("hay valores faltantes en los datos", "there are missing values in the data"),
    "too_short": ("{n} años: se necesitan al menos 3", "{n} years: at least 3 are needed"),
    "unsorted": ("los años deben ser crecientes y distintos", "years must be increasing and distinct"),
    "bad_range": ("el periodo del AAPC {a:g}-{b:g} no está dentro de los datos ({first:g}-{last:g})",
                  "the AAPC period {a:g}-{b:g} is outside the data ({first:g}-{last:g})"),
})


@dataclass
class JoinpointResult:
    """Joinpoint fits of one or many series observed at the same years.

    ``models``: one row per (series, k) with the best placement, SSE and BIC, and which k was selected;
    ``segments``: one row per (series, segment) with APC and CI; ``aapc``: one row per series.
    ``n_joinpoints``: selected k per series; ``joinpoints``: list of tuples of years per series.
    """

    models: pd.DataFrame
    segments: pd.DataFrame
    aapc: pd.DataFrame
    n_joinpoints: np.ndarray
    joinpoints: list
    selection: str
    weights: str | None
    seed: int | None


def _check_options(selection, weights) -> None:
    if selection not in SELECTIONS:
        raise InputError(MSG("bad_selection", value=selection))
    if weights not in WEIGHTS:
        raise InputError(MSG("bad_weights", value=weights))


def max_joinpoints_default(n: int) -> int:
    """NCI Joinpoint's recommended maximum number of joinpoints for n observations: 0 below 7 points,
    1 for 7-11, 2 for 12-16, 3 for 17-21, 4 for 22-26, 5 from 27 on."""
    return int(np.clip((n - 2) // 5, 0, 5)) if n >= 7 else 0


def _placements(n: int, k: int, min_segment: int) -> np.ndarray:
    """All index tuples (k joinpoints at data points) leaving >= min_segment observations around each."""
    if k == 0:
        return np.zeros((1, 0), dtype=int)
    lo, hi = min_segment, n - 1 - min_segment
    out = [c for c in combinations(range(lo, hi + 1), k)
           if all(c[j + 1] - c[j] - 1 >= min_segment for j in range(k - 1))]
    return np.array(out, dtype=int).reshape(len(out), k)


def _designs(xc: np.ndarray, knots: np.ndarray) -> np.ndarray:
    """Design matrices (C, n, k + 2): 1, x, (x - tau_j)+ for each placement (row of knot indices)."""
    n = len(xc)
    c, k = knots.shape
    X = np.empty((c, n, k + 2))
    X[:, :, 0] = 1.0
    X[:, :, 1] = xc
    for j in range(k):
        tau = xc[knots[:, j]]
        X[:, :, 2 + j] = np.maximum(xc[None, :] - tau[:, None], 0.0)
    return X


def _grid_sse(xc, Y, W, knots, chunk_bytes=64_000_000):
    """Smallest (weighted) SSE over placements for each series: returns (sse, best placement index)."""
    s, n = Y.shape
    X = _designs(xc, knots)
    c, _, p = X.shape
    best_sse = np.full(s, np.inf)
    best_idx = np.zeros(s, dtype=int)
    if W is None:
        yy = np.einsum("sn,sn->s", Y, Y)
        G = np.einsum("cnp,cnq->cpq", X, X)
        G_inv = np.linalg.pinv(G)
        per_chunk = max(1, int(chunk_bytes // (8 * s * p * 2 + 1)))
        for start in range(0, c, per_chunk):
            sl = slice(start, start + per_chunk)
            h = np.einsum("cnp,sn->csp", X[sl], Y)
            beta = np.einsum("cpq,csq->csp", G_inv[sl], h)
            sse = yy[None, :] - np.einsum("csp,csp->cs", beta, h)
            j = np.argmin(sse, axis=0)
            val = sse[j, np.arange(s)]
            better = val < best_sse
            best_sse[better] = val[better]
            best_idx[better] = j[better] + start
    else:
        WY = W * Y
        yy = np.einsum("sn,sn->s", WY, Y)
        per_chunk = max(1, int(chunk_bytes // (8 * s * p * p * 2 + 1)))
        for start in range(0, c, per_chunk):
            sl = slice(start, start + per_chunk)
            Xs = X[sl]
            G = np.einsum("cnp,sn,cnq->scpq", Xs, W, Xs)
            h = np.einsum("cnp,sn->scp", Xs, WY)
            beta = np.linalg.solve(G, h[..., None])[..., 0]
            sse = yy[:, None] - np.einsum("scp,scp->sc", beta, h)
            j = np.argmin(sse, axis=1)
            val = sse[np.arange(s), j]
            better = val < best_sse
            best_sse[better] = val[better]
            best_idx[better] = j[better] + start
    return np.maximum(best_sse, 0.0), best_idx


def _final_fit(xc, Y, W, knots):
    """(Weighted) LS with given knots per series: coefficients and unscaled (X'WX)^-1 and SSE."""
    s, n = Y.shape
    k = knots.shape[1]
    X = _designs(xc, knots)  # (s, n, p): one placement per series
    sw = np.ones_like(Y) if W is None else np.sqrt(W)
    Xw = X * sw[:, :, None]
    yw = Y * sw
    q, r = np.linalg.qr(Xw)
    r_inv = np.linalg.inv(r)
    beta = np.einsum("spq,sq->sp", r_inv, np.einsum("snp,sn->sp", q, yw))
    resid = yw - np.einsum("snp,sp->sn", Xw, beta)
    sse = np.sum(resid ** 2, axis=1)
    xtx_inv = np.einsum("sij,skj->sik", r_inv, r_inv)
    return beta, xtx_inv, sse, k


def _prepare(years, counts, births, rates, weights, per):
    x = np.asarray(years, dtype=float)
    if counts is not None and births is not None:
        e = np.asarray(counts, dtype=float)
        b = np.asarray(births, dtype=float)
        if e.shape != b.shape:
            raise InputError(MSG("bad_shape", x=e.shape, y=b.shape))
        rate = per * e / b
    elif rates is not None:
        rate = np.asarray(rates, dtype=float)
        e = None if counts is None else np.asarray(counts, dtype=float)
    else:
        raise InputError(MSG("need_data"))
    single = rate.ndim == 1
    rate2 = rate[None, :] if single else rate
    if x.ndim != 1 or rate2.ndim != 2 or rate2.shape[1] != len(x):
        raise InputError(MSG("bad_shape", x=x.shape, y=rate.shape))
    if len(x) < 3:
        raise InputError(MSG("too_short", n=len(x)))
    if np.any(np.diff(x) <= 0):
        raise InputError(MSG("unsorted"))
    if not np.all(np.isfinite(rate2)):
        raise InputError(MSG("not_finite"))
    if np.any(rate2 <= 0):
        raise InputError(MSG("not_positive"), hint=MSG("not_positive_hint"))
    W = None
    if weights == "poisson":
        if e is None:
            raise InputError(MSG("need_counts"))
        W = e[None, :] if e.ndim == 1 else e
        W = np.broadcast_to(W, rate2.shape).astype(float)
    return x, np.log(rate2), W, single


def fit_joinpoints(x, Y, W=None, max_joinpoints=2, min_segment=2, selection="bic", alpha=0.05,
                   n_permutations=999, seed=2024):
    """Core of :func:`joinpoint` on arrays: ``Y`` = ln(rate) of shape (S, n), ``W`` weights or None.

    Returns ``(k_selected, knots_per_series, models)`` where ``models[k] = (sse, knot index rows)``.
    """
    s, n = Y.shape
    xc = x - x.mean()
    centre = (np.sum(W * Y, axis=1) / np.sum(W, axis=1)) if W is not None else Y.mean(axis=1)
    Yc = Y - centre[:, None]
    models = {}
    # a short series cannot support many joinpoints: cap K as NCI Joinpoint recommends
    for k in range(min(max_joinpoints, max_joinpoints_default(n)) + 1):
        knots = _placements(n, k, min_segment)
        if len(knots) == 0 or n - (2 * k + 2) < 1:
            break
        sse, idx = _grid_sse(xc, Yc, W, knots)
        models[k] = (sse, knots[idx], knots)
    ks = sorted(models)
    if selection == "bic":
        bic = np.vstack([np.log(np.maximum(models[k][0], 1e-300) / n) + 2.0 * (k + 1) * np.log(n) / n for k in ks])
        chosen = np.array(ks)[np.argmin(bic, axis=0)]
    else:
        chosen = _permutation_select(xc, Yc, W, models, ks, alpha, n_permutations, seed)
    return chosen, models


def _permutation_select(xc, Yc, W, models, ks, alpha, n_permutations, seed):
    """Kim et al. (2000) sequential permutation tests, series by series (permutations vectorised)."""
    rng = np.random.default_rng(seed)
    s, n = Yc.shape
    chosen = np.zeros(s, dtype=int)
    k_max = max(ks)
    # minutes on thousands of units: a bar on a terminal (brecha.progress)
    for i in progress.track(range(s), "permutations", total=s):
        w = None if W is None else W[i]
        sw = np.ones(n) if w is None else np.sqrt(w)
        k_a, k_b = 0, k_max
        while k_a < k_b:
            knots0 = models[k_a][1][i][None, :]
            beta, _, sse0, _ = _final_fit(xc, Yc[i][None, :], None if w is None else w[None, :], knots0)
            fitted = np.einsum("snp,sp->sn", _designs(xc, knots0), beta)[0]
            sse1 = models[k_b][0][i]
            t_obs = (sse0[0] - sse1) / max(sse1, 1e-300)
            resid_w = (Yc[i] - fitted) * sw
            perms = np.argsort(rng.random((n_permutations, n)), axis=1)
            Ystar = fitted[None, :] + resid_w[perms] / sw[None, :]
            Wstar = None if w is None else np.broadcast_to(w, Ystar.shape)
            s0, _ = _grid_sse(xc, Ystar, Wstar, models[k_a][2])
            s1, _ = _grid_sse(xc, Ystar, Wstar, models[k_b][2])
            t_star = (s0 - s1) / np.maximum(s1, 1e-300)
            p_value = (1 + np.sum(t_star >= t_obs * (1 - 1e-12))) / (n_permutations + 1)
            if p_value < alpha / (k_max - k_a):
                k_a += 1
            else:
                k_b -= 1
        chosen[i] = k_a
    return chosen


def _segments_table(x, Y, W, chosen, models, alpha, aapc_range, clip=False):
    """APC rows per segment and the AAPC row per series, for the selected models."""
    from scipy import special

    s, n = Y.shape
    xc = x - x.mean()
    seg_rows, aapc_rows, joinpoints = [], [], [None] * s
    asked = (x[0], x[-1]) if aapc_range is None else (float(aapc_range[0]), float(aapc_range[1]))
    a, b = asked
    if clip:  # per-unit use: the AAPC period is cut to the years the unit has
        a, b = max(a, x[0]), min(b, x[-1])
    if a < x[0] or b > x[-1] or a >= b:
        raise InputError(MSG("bad_range", a=asked[0], b=asked[1], first=x[0], last=x[-1]))
    for k in np.unique(chosen):
        members = np.flatnonzero(chosen == k)
        knots = models[k][1][members]
        Ym = Y[members]
        Wm = None if W is None else W[members]
        beta, xtx_inv, sse, _ = _final_fit(xc, Ym, Wm, knots)
        df = n - (2 * k + 2)
        sigma2 = sse / df
        cov = xtx_inv * sigma2[:, None, None]
        # segment slopes: b1 + cumulative slope changes
        C = np.zeros((k + 1, k + 2))
        for i in range(k + 1):
            C[i, 1: 2 + i] = 1.0
        slopes = beta @ C.T
        cov_seg = np.einsum("ip,spq,jq->sij", C, cov, C)
        se = np.sqrt(np.einsum("sii->si", cov_seg))
        q = special.stdtrit(df, 1.0 - alpha / 2.0)
        t_stat = slopes / se
        p_value = 2.0 * special.stdtr(df, -np.abs(t_stat))
        for m, unit_pos in enumerate(members):
            jp_years = x[knots[m]]
            joinpoints[unit_pos] = tuple(float(v) for v in jp_years)
            bounds = np.concatenate([[x[0]], jp_years, [x[-1]]])
            for i in range(k + 1):
                seg_rows.append((unit_pos, i + 1, bounds[i], bounds[i + 1], slopes[m, i], se[m, i], t_stat[m, i],
                                 p_value[m, i], df, k))
            overlap = np.clip(np.minimum(bounds[1:], b) - np.maximum(bounds[:-1], a), 0.0, None)
            w = overlap / overlap.sum()
            mean_slope = float(w @ slopes[m])
            var = float(w @ cov_seg[m] @ w)
            inside_one = np.count_nonzero(overlap > 0) == 1
            crit = q if inside_one else special.ndtri(1.0 - alpha / 2.0)
            z = mean_slope / np.sqrt(var)
            p_aapc = 2.0 * (special.stdtr(df, -abs(z)) if inside_one else special.ndtr(-abs(z)))
            aapc_rows.append((unit_pos, a, b, mean_slope, np.sqrt(var), z, p_aapc, crit,
                              "t" if inside_one else "normal", df, k))
    segs = pd.DataFrame(seg_rows, columns=["series", "segment", "start_year", "end_year", "slope", "se", "t",
                                           "p_value", "df", "n_joinpoints"])
    q_seg = special.stdtrit(segs["df"].to_numpy(float), 1.0 - alpha / 2.0) if len(segs) else np.array([])
    segs["apc"] = (np.exp(segs["slope"]) - 1) * 100
    segs["apc_lower"] = (np.exp(segs["slope"] - q_seg * segs["se"]) - 1) * 100
    segs["apc_upper"] = (np.exp(segs["slope"] + q_seg * segs["se"]) - 1) * 100
    segs = segs.sort_values(["series", "segment"]).reset_index(drop=True)
    aapc = pd.DataFrame(aapc_rows, columns=["series", "start_year", "end_year", "slope", "se", "t", "p_value", "crit",
                                            "ci_distribution", "df", "n_joinpoints"])
    aapc["aapc"] = (np.exp(aapc["slope"]) - 1) * 100
    aapc["aapc_lower"] = (np.exp(aapc["slope"] - aapc["crit"] * aapc["se"]) - 1) * 100
    aapc["aapc_upper"] = (np.exp(aapc["slope"] + aapc["crit"] * aapc["se"]) - 1) * 100
    aapc = aapc.drop(columns="crit").sort_values("series").reset_index(drop=True)
    return segs, aapc, joinpoints


def joinpoint(years, counts=None, births=None, rates=None, max_joinpoints: int = 2, min_segment: int = 2,
              selection: str = "bic", weights=None, alpha: float = 0.05, aapc_range=None,
              n_permutations: int = 999, seed: int | None = 2024, per: float = 1000.0) -> JoinpointResult:
    """Joinpoint regression of ln(rate) on year for one series or many (2-D: series x years).

    Parameters
    ----------
    years : increasing years (1-D), shared by all series.
    counts, births : event counts and births (rate = per x counts / births); or ``rates`` directly.
    max_joinpoints : K, the most joinpoints tried (default 2).
    min_segment : observations required before, after and between joinpoints (joinpoint excluded).
    selection : ``bic`` (default) or ``permutation`` (Kim et al. 2000; ``n_permutations``, ``seed``).
    weights : None or ``poisson`` (weight = count, i.e. 1/Var(ln rate)).
    alpha : CI level 1 - alpha; also the overall level of the permutation tests.
    aapc_range : (start, end) years of the AAPC (default the whole period).

    Zero counts must be handled first (``trends(..., zero="add-half")`` does it).

    Example:
        >>> import numpy as np
        >>> yrs = np.arange(2000, 2016)
        >>> rate = np.exp(np.where(yrs < 2008, -0.05 * (yrs - 2008), 0.03 * (yrs - 2008)) + 2)
        >>> joinpoint(yrs, rates=rate, max_joinpoints=1).joinpoints
        [(2008.0,)]
    """
    _check_options(selection, weights)
    x, Y, W, _ = _prepare(years, counts, births, rates, weights, per)
    chosen, models = fit_joinpoints(x, Y, W, max_joinpoints, min_segment, selection, alpha, n_permutations,
                                    seed)
    segs, aapc, jps = _segments_table(x, Y, W, chosen, models, alpha, aapc_range)
    rows = []
    n = Y.shape[1]
    for k, (sse, best, _) in models.items():
        bic = np.log(np.maximum(sse, 1e-300) / n) + 2.0 * (k + 1) * np.log(n) / n
        for i in range(Y.shape[0]):
            rows.append((i, k, sse[i], bic[i], ";".join(f"{x[j]:g}" for j in best[i]), chosen[i] == k))
    table = pd.DataFrame(rows, columns=["series", "n_joinpoints", "sse", "bic", "joinpoints", "selected"])
    return JoinpointResult(models=table.sort_values(["series", "n_joinpoints"]).reset_index(drop=True),
                           segments=segs, aapc=aapc, n_joinpoints=chosen, joinpoints=jps, selection=selection,
                           weights=weights, seed=seed if selection == "permutation" else None)


def joinpoint_trends(table, names, outcome, zero="add-half", alpha=0.05, min_years=3, max_joinpoints=2,
                     selection="bic", weights=None, n_permutations=999, seed=2024, level=None,
                     min_segment=2, aapc_years=None, max_zero_share=0.5, extra_notes=None):
    """Per-unit joinpoint rows for :func:`brecha.trends.trends`: the AAPC row (the unit's overall trend)
    first, then one row per segment. Sparse units (see ``max_zero_share``) get no class on any row."""
    _check_options(selection, weights)
    all_years = np.unique(table["year"])
    if aapc_years is not None and len(all_years) and (
            max(aapc_years[0], all_years[0]) >= min(aapc_years[1], all_years[-1])):
        raise InputError(MSG("bad_range", a=aapc_years[0], b=aapc_years[1], first=all_years[0], last=all_years[-1]))
    units, info, series = prepare_series(table, zero=zero, min_years=min_years, max_zero_share=max_zero_share,
                                         extra_notes=extra_notes)
    notes = info["note"].tolist()
    frames = []
    for x, members, Y10, E in series:
        Y = Y10 * np.log(10.0)
        W = E if weights == "poisson" else None
        chosen, models = fit_joinpoints(x, Y, W, max_joinpoints, min_segment, selection, alpha, n_permutations,
                                        seed)
        segs, aapc, jps = _segments_table(x, Y, W, chosen, models, alpha, aapc_years, clip=True)
        jp_text = {i: ";".join(f"{v:g}" for v in jps[i]) for i in range(len(members))}
        segs["row"] = "segment"
        aapc["row"] = "aapc"
        aapc["segment"] = pd.NA
        aapc = aapc.rename(columns={"aapc": "apc", "aapc_lower": "apc_lower", "aapc_upper": "apc_upper"})
        both = pd.concat([segs, aapc], ignore_index=True)
        both["pos"] = members[both["series"].to_numpy()]
        both["joinpoints"] = both["series"].map(jp_text)
        both["n_years"] = len(x)
        frames.append(both)
    rows = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(
        columns=["pos", "row", "segment", "start_year", "end_year", "slope", "se", "t", "p_value", "df",
                 "n_joinpoints", "apc", "apc_lower", "apc_upper", "joinpoints", "n_years", "ci_distribution"])
    fitted = set(rows["pos"].tolist())
    missing = [i for i in range(len(units)) if i not in fitted]
    if missing:
        rows = pd.concat([rows, pd.DataFrame({"pos": missing, "row": "unit",
                                              "n_years": info["n_years"].to_numpy()[missing]})],
                         ignore_index=True)
    # the unit's summary (AAPC) row first, so that the first row of each unit is its overall trend
    rows["row_order"] = rows["row"].map({"aapc": 0, "segment": 1, "unit": 2})
    rows = rows.sort_values(["pos", "row_order", "segment"], kind="stable").reset_index(drop=True)
    pos = rows["pos"].to_numpy(int)
    p = rows["p_value"].to_numpy(float)
    slope = rows["slope"].to_numpy(float)
    sparse = info["sparse"].to_numpy()[pos] & np.isfinite(slope)
    trend = classify(slope, p, alpha, sparse)
    unit_codes = units.astype(str)
    out = pd.DataFrame({
        "unit": unit_codes[pos],
        "outcome": outcome,
        "n_years": rows["n_years"].to_numpy(),
        "slope": slope,
        "se": rows["se"].to_numpy(float),
        "p_value": p,
        "rho": np.nan,
        "apc": rows["apc"].to_numpy(float),
        "apc_lower": rows["apc_lower"].to_numpy(float),
        "apc_upper": rows["apc_upper"].to_numpy(float),
        "trend": trend,
        "method": "joinpoint",
        "row": rows["row"].to_numpy(),
        "segment": pd.array(rows["segment"].to_numpy(), dtype="Int64"),
        "start_year": rows["start_year"].to_numpy(float),
        "end_year": rows["end_year"].to_numpy(float),
        "joinpoints": rows["joinpoints"].fillna("").to_numpy(),
        "n_joinpoints": pd.array(rows["n_joinpoints"].to_numpy(), dtype="Int64"),
        "name": [names.get(u, "") for u in unit_codes[pos]],
        "level": level or "unit",
        "period": f"{all_years[0]}-{all_years[-1]}" if len(all_years) else "",
        "first_year": info["first_year"].to_numpy()[pos],
        "last_year": info["last_year"].to_numpy()[pos],
        "df": rows["df"].to_numpy(float),
        "t": rows["t"].to_numpy(float),
        "conf_level": 1.0 - alpha,
        "ci_distribution": rows.get("ci_distribution", pd.Series([None] * len(rows))).to_numpy(),
        "selection": selection,
        "weights": weights or "none",
        "seed": seed if selection == "permutation" else pd.NA,
        "zero_rule": zero,
        "zero_years": info["zero_years"].to_numpy()[pos],
        "sparse": sparse,
        "dropped_years": info["dropped_years"].to_numpy()[pos],
        "note": [notes[i] for i in pos],
    })
    out.loc[out["row"] == "segment", "ci_distribution"] = "t"
    return out
