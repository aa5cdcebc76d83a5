"""Moran's I, local Moran (LISA) with conditional permutations, Getis-Ord Gi* and the Benjamini-Hochberg
q-value, in numpy over :class:`~brecha.spatial.links.Links` (issue 19).

The same numbers as esda 2.x (``Moran``, ``Moran_Rate``, ``Moran_Local_Rate``, ``G_Local(star=True)``) for
the same data, links and seed, including the permutation p-values (esda without numba, as it is installed
with brecha's tests; with numba esda draws from numba's own generator), except where esda is wrong (below).
The random draws are esda's, made by a local ``numpy.random.RandomState(seed)`` instead of numpy's global
generator (which esda's ``Moran`` uses as it finds it, and which its ``Moran_Local`` seeds and leaves
changed). tests/spatial/test_moran_against_esda.py compares every number with esda's on Chile's communes,
on North Carolina's counties and on random graphs. Why not esda itself: importing esda and libpysal costs 2.5-3.5 s of CPU (their
packages import scikit-learn, scipy.stats, requests, shapely), 5-10 times the computation on 346 communes;
it was the largest single cost of the report's spatial step and of ``brecha spatial``.

Formulas (y the values, z = y − ȳ, n units, W the row-standardised links, w_ij = 1/c_i):

- Assunção & Reis (1999) standardised rate of events e over population b:
  x_i = (e_i/b_i − B)/√v_i, B = Σe/Σb, v_i = A + B/b_i, A = Σb_i(e_i/b_i − B)²/Σb − B/b̄;
  v_i = B/b_i where A + B/b_i < 0 (esda's ``assuncao_rate``).
- Global Moran (Cliff & Ord 1981): I = n/S0 · z'Wz/z'z, E[I] = −1/(n − 1); variance under normality
  (n²S1 − nS2 + 3S0²)/((n − 1)(n + 1)S0²) − E[I]², under randomisation with the kurtosis
  k = n Σz⁴/(Σz²)²: [n((n² − 3n + 3)S1 − nS2 + 3S0²) − k((n² − n)S1 − 2nS2 + 6S0²)]/((n − 1)(n − 2)(n − 3)S0²)
  − E[I]², S0 = Σw_ij, S1 = ½Σ(w_ij + w_ji)², S2 = Σ_i(w_i· + w_·i)²; two-sided normal p-values.
  Permutations: I of z relabelled at random (``RandomState(seed).permutation``, one per replicate);
  z = (I − mean)/sd of the replicates (sd with divisor P);
  pseudo p = (1 + min(#{I_p ≥ I}, P − #{I_p ≥ I}))/(P + 1).
- Local Moran (Anselin 1995): with z standardised (divided by the sd of y, divisor n),
  I_i = (n − 1) z_i (Wz)_i/Σz²; quadrant 1 high-high (z_i > 0, (Wz)_i > 0), 2 low-high, 3 low-low, 4 high-low.
  Conditional permutations (esda's ``crand``): replicate p draws the first c_max of a random permutation of
  n − 1 (``RandomState(seed).choice(n − 1, c_max, replace=False)``); unit i takes the first c_i of them as
  positions among the other units and I_i,p = z_i (Σ_k z_other w_ik)·(n − 1)/Σz²; pseudo p as for the global I,
  per unit.
- Gi* (Ord & Getis 1995) with binary links and the unit itself (w_ii = 1): G_i = Σ_j w_ij x_j/Σx,
  E = W_i/n, Var = W_i(n − W_i)/(n − 1)/n² · s²/x̄² (s² = mean of x² − x̄²), z = (G_i − E)/√Var, two-sided
  normal p. (This variance is the binary-weight one; esda's ``G_Local`` applies it to row-standardised
  weights too, where it is wrong, so brecha uses binary weights.)
- Every value equal (all zero deaths, or the same rate everywhere): z = 0, so I, every I_i and every Gi* z
  are 0/0. esda then gives the permutation p-values 1/(P + 1) (no replicate is "at least" a NaN) and calls
  every unit a low-low cluster, and for raw rates whose mean differs from them in the last bit it computes
  I = 1 from rounding noise; brecha gives them as missing, with no quadrant (the tables' cluster
  ``no_variation``), deciding "equal" on the values themselves.
- A unit linked to every other unit (c_i = n − 1): every conditional permutation draws all the others, so
  I_i never changes and esda's p-value is decided by rounding; brecha gives it no p-value (cluster
  ``all_neighbours``) and leaves it out of the q-values' count.
- Benjamini & Hochberg (1995) q-values: p sorted, q_(i) = min over j ≥ i of p_(j)·m/j, at most 1 (scipy's
  ``false_discovery_control``).
"""
from __future__ import annotations

import numpy as np

from ..distributions import normal_sf

BLOCK_CELLS = 2_000_000  # permuted values held at once (replicates x units): memory independent of P


def assuncao_reis(events, population) -> np.ndarray:
    """Assunção-Reis (1999) empirical-Bayes standardised rates (module docstring). The sums are taken left to
    right (``_running_sum``), as esda takes them, so that the rates are esda's to the last bit: the
    conditional permutations compare each drawn statistic with the observed one, and where a draw repeats
    the observed neighbours (units with one neighbour) the comparison is decided in the last bit."""
    e, b = np.asarray(events, dtype=float), np.asarray(population, dtype=float)
    y = e * 1.0 / b
    e_sum, b_sum = _running_sum(e), _running_sum(b)
    overall = e_sum * 1.0 / b_sum
    s2 = _running_sum(b * ((y - overall) ** 2)) / b_sum
    a = s2 - overall / (float(b_sum) / len(e))
    v = a + overall / b
    v = np.where(v < 0, overall / b, v)
    return (y - overall) / np.sqrt(v)


def _running_sum(x) -> float:
    """x_1 + x_2 + ... added in order (Python's ``sum``; numpy's ``sum`` adds pairwise)."""
    x = np.asarray(x, dtype=float)
    return float(np.cumsum(x)[-1]) if len(x) else 0.0


def _two_sided(z):
    return 2.0 * normal_sf(np.abs(z))


def _pseudo_p(larger, permutations):
    larger = np.asarray(larger)
    return (np.minimum(larger, permutations - larger) + 1.0) / (permutations + 1.0)


def _global_moran(y, links, permutations, seed) -> dict:
    y = np.asarray(y, dtype=float)
    w = links.row_standardised()
    n = len(y)
    z = y - y.mean()
    z2ss = (z * z).sum()
    s0 = w.sum()
    both = w + w.T
    s1 = both.multiply(both).sum() / 2.0
    s2 = ((np.asarray(w.sum(axis=1)).ravel() + np.asarray(w.sum(axis=0)).ravel()) ** 2).sum()
    ei = -1.0 / (n - 1)
    n2, s02 = n * n, s0 * s0
    vi_norm = (n2 * s1 - n * s2 + 3 * s02) / ((n - 1) * (n + 1) * s02) - (1.0 / (n - 1)) ** 2
    k = ((z ** 4).sum() / n) / ((z ** 2).sum() / n) ** 2
    a = n * ((n2 - 3 * n + 3) * s1 - n * s2 + 3 * s02)
    b = k * ((n2 - n) * s1 - 2 * n * s2 + 6 * s02)
    vi_rand = (a - b) / ((n - 1) * (n - 2) * (n - 3) * s02) - ei * ei
    moran = n / s0 * (z * (w @ z)).sum() / z2ss
    # y constant: I is 0/0 (no_variation, module docstring); tested on y itself, because the mean of equal
    # values can differ from them in the last bit, and z would then be a tiny constant with I = 1
    defined = bool(np.isfinite(moran)) and np.ptp(y) > 0
    if not defined:
        moran = vi_norm = vi_rand = np.nan
    out = {"I": moran, "EI": ei, "z_norm": (moran - ei) / vi_norm ** 0.5, "z_rand": (moran - ei) / vi_rand ** 0.5}
    out["p_norm"], out["p_rand"] = _two_sided(out["z_norm"]), _two_sided(out["z_rand"])
    if permutations and not defined:
        out["z_sim"] = out["p_sim"] = np.nan  # esda: p = 1/(P + 1), as if I were extreme
    elif permutations:
        draws = np.random.RandomState(seed)
        sims = []
        block = max(1, BLOCK_CELLS // max(n, 1))
        for start in range(0, permutations, block):
            order = np.stack([draws.permutation(n) for _ in range(min(block, permutations - start))])
            zp = z[order]
            lag = (w @ zp.T).T
            sims.append(n / s0 * (zp * lag).sum(axis=1) / z2ss)
        sim = np.concatenate(sims)
        sd = sim.std()
        out["z_sim"] = (moran - sim.sum() / permutations) / sd
        out["p_sim"] = float(_pseudo_p((sim >= moran).sum(), permutations))
    return out


def _local_moran(y, links, permutations, seed) -> dict:
    y = np.asarray(y, dtype=float)
    w = links.row_standardised()
    n = len(y)
    z = y - y.mean()
    z = z / y.std()
    if not np.ptp(y) > 0:  # y constant (no_variation): every I_i is 0/0
        z = np.full(n, np.nan)
    lag = w @ z
    den = (z * z).sum()
    local = (n - 1) * z * lag / den
    q = np.where(z > 0, np.where(lag > 0, 1, 4), np.where(lag > 0, 2, 3))
    q[~np.isfinite(local)] = 0  # no quadrant where I_i is undefined (y constant)
    counts = np.diff(w.indptr)
    # a unit linked to every other unit: each replicate draws all the others, so its I_i never changes and
    # the comparison with the observed I_i is decided by rounding (esda gives p anywhere in 0.001-0.5)
    every_other = counts == n - 1
    out = {"Is": local, "q": q, "every_other": every_other}
    if permutations and not np.isfinite(local).any():
        out["p_sim"] = np.full(n, np.nan)  # esda: p = 1/(P + 1) for every unit, each a low-low "cluster"
    elif permutations:
        draws = np.random.RandomState(seed)
        most = int(counts.max())
        picks = np.stack([draws.choice(n - 1, size=most, replace=False) for _ in range(permutations)])
        scaling = (n - 1) / den
        larger = np.empty(n, dtype=np.int64)
        for i in range(n):
            c = counts[i]
            weights = w.data[w.indptr[i]:w.indptr[i + 1]]
            # position k among the other units is unit k, or k + 1 from unit i on (esda copies z without z_i
            # for every unit: n² values moved in all; the same values are read here without the copy)
            positions = picks[:, :c]
            drawn = z[positions + (positions >= i)]
            sims = z[i] * (drawn @ weights + 0.0 * z[i]) * scaling
            larger[i] = (sims >= local[i]).sum()
        out["p_sim"] = np.where(every_other, np.nan, _pseudo_p(larger, permutations))
    return out


def _getis_ord_star(x, links) -> dict:
    import scipy.sparse as sp

    x = np.asarray(x, dtype=float)
    n = len(x)
    star = links.matrix() + sp.identity(n, format="csr")
    statistic = (star @ x) / x.sum()
    mean = x.sum() / n
    variance = (x ** 2).sum() / n - mean ** 2
    card = np.asarray(star.sum(axis=1)).ravel()
    expected = card / n
    var = card * (n - card) / (n - 1) * (1 / n ** 2) * (variance / mean ** 2)
    zs = (statistic - expected) / np.sqrt(var)
    if not np.ptp(x) > 0:  # x constant: G_i = E exactly, z = 0/0 (rounding would give a tiny z)
        zs = np.full(n, np.nan)
    return {"Gs": statistic, "Zs": zs, "p_norm": _two_sided(zs)}


def global_moran(y, links, permutations: int = 0, seed: int = 0) -> dict:
    """Moran's I of ``y`` (in ``links.id_order``) with row-standardised links: ``I``, ``EI``, ``z_norm``,
    ``p_norm``, ``z_rand``, ``p_rand`` and, with permutations, ``z_sim``, ``p_sim`` (NaN where y is constant)."""
    with np.errstate(all="ignore"):
        return _global_moran(y, links, permutations, seed)


def local_moran(y, links, permutations: int = 999, seed: int = 0) -> dict:
    """Local Moran of ``y`` (in ``links.id_order``; every unit must have a neighbour): ``Is``, ``q``
    (quadrant 1-4, 0 where undefined), ``every_other`` (the units linked to every other unit, without a
    p-value) and, with permutations, ``p_sim`` (module docstring)."""
    with np.errstate(all="ignore"):
        return _local_moran(y, links, permutations, seed)


def getis_ord_star(x, links) -> dict:
    """Gi* of ``x`` (in ``links.id_order``) with binary links and w_ii = 1: ``Gs``, ``Zs``, ``p_norm``
    (two-sided)."""
    with np.errstate(all="ignore"):
        return _getis_ord_star(x, links)


def benjamini_hochberg(p) -> np.ndarray:
    """Benjamini-Hochberg q-values of the p-values ``p`` (module docstring); a missing p stays missing and
    is not counted among the m tests."""
    p = np.asarray(p, dtype=float)
    out = np.full(len(p), np.nan)
    have = np.flatnonzero(np.isfinite(p))
    m = len(have)
    if not m:
        return out
    order = np.argsort(p[have])
    q = p[have][order] * (m / np.arange(1, m + 1, dtype=float))
    q = np.minimum.accumulate(q[::-1])[::-1]
    out[have[order]] = q
    return np.clip(out, 0.0, 1.0)
