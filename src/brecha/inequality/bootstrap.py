"""Parametric bootstrap of the summary measures: deaths redrawn given births, a block of replicates at a time.

Each replicate redraws every unit's deaths from Poisson(observed deaths) (or Binomial(births, observed
risk)) with births fixed, recomputes the (group) rates, and evaluates every measure on the
(replicates x subgroups) array in one vectorised call per block of replicates (:data:`CHUNK_CELLS`: memory
does not grow with the number of replicates). The CI is the percentile interval and the SE
the standard deviation of the replicates (Efron & Tibshirani 1993, ch. 6 and 13; Carpenter & Bithell
2000). Units with 0 deaths stay at 0 in every replicate (their Poisson mean is 0).

The noise-corrected measures (``bgv_true``, ``bgsd_true``, ``cov_true``) are redrawn instead from rates
shrunk towards the mean until their variance is the estimated true variance: redrawn around the
observed rates, whose variance already holds the noise, their replicates would centre on the raw BGV.
"""
from __future__ import annotations

import zlib

import numpy as np

from . import measures as M

DRAWS = ("poisson", "binomial")
# Fewest replicates for an interval: Efron & Tibshirani (1993, ch. 6 and 13) ask for 200 for an SE and more
# for percentile limits; we ask that at least TAIL_REPLICATES replicates lie beyond each limit.
MIN_REPLICATES = 200
TAIL_REPLICATES = 5


def minimum_replicates(conf_level: float = 0.95) -> int:
    """max(200, ceil(2 * 5 / (1 - conf_level))): 200 for a 95 % interval, 1,000 for 99 %, 10,000 for 99.9 %.

    >>> minimum_replicates(0.95), minimum_replicates(0.99)
    (200, 1000)
    """
    import math

    return max(MIN_REPLICATES, math.ceil(round(2 * TAIL_REPLICATES / (1.0 - float(conf_level)), 9)))


def period_rng(seed: int, period: str) -> np.random.Generator:
    """A generator for one period, so a period's replicates do not depend on which other years are run."""
    return np.random.default_rng([int(seed), zlib.crc32(str(period).encode())])


def draw_events(events, births, replicates: int, rng: np.random.Generator, draws: str = "poisson"):
    """(replicates x units) array of redrawn event counts, births fixed."""
    events = np.asarray(events, dtype=float)
    births = np.asarray(births, dtype=float)
    if draws == "poisson":
        return rng.poisson(events, size=(replicates, len(events))).astype(float)
    if draws == "binomial":
        risk = np.clip(events / births, 0.0, 1.0)
        return rng.binomial(births.astype(np.int64), risk, size=(replicates, len(events))).astype(float)
    raise ValueError(f"draws must be one of {DRAWS}")


# Replicates are drawn and evaluated CHUNK_CELLS (replicates x units) cells at a time: 2 M cells (16 MB of
# float64) keep the memory of a bootstrap independent of the number of replicates (issue 19: 200 replicates on
# 346,000 units needed 7.2 GB at once). The generator's stream is consumed in the same order as one
# (replicates x units) draw, so the replicates are those of the unchunked draw. The size is fixed, never
# derived from the number of threads (brecha.threads runs periods side by side, each with its own block):
# the block size can change the last bits of a sum, so the numbers do not depend on the machine's cores.
# (It was 4 M cells until the periods ran in threads: two blocks in flight then took the memory of one.)
CHUNK_CELLS = 1 << 21


def replicate_chunks(replicates: int, units: int, chunk_cells: int = CHUNK_CELLS) -> list[int]:
    """Sizes of the successive blocks of replicates: each at most ``chunk_cells // units`` (at least 1).

    >>> replicate_chunks(200, 346), replicate_chunks(5, 1_000_000, 2_000_000)
    ([200], [2, 2, 1])
    """
    size = max(1, int(chunk_cells) // max(1, int(units)))
    return [min(size, replicates - start) for start in range(0, int(replicates), size)]


def _replicate_values(mean_events, births, sub, names, replicates, rng, draws, membership, scale, chunk_cells):
    """name -> (replicates,) values of the measures on redrawn deaths (Poisson or Binomial around
    ``mean_events``, births fixed), drawn and evaluated one block of replicates at a time."""
    parts: dict[str, list] = {name: [] for name in names}
    group_births = births @ membership if membership is not None else births
    for size in replicate_chunks(replicates, len(births), chunk_cells):
        sim = draw_events(mean_events, births, size, rng, draws)
        if membership is not None:
            # one matrix-vector product per group (a (reps x units) @ (units x few) gemm is slow in OpenBLAS)
            sim = np.column_stack([sim @ membership[:, k] for k in range(membership.shape[1])])
        sim *= scale / group_births
        for name, value in M.evaluate(sim, sub, names).items():
            parts[name].append(np.broadcast_to(value, (size,)))
        del sim
    return {name: np.concatenate(chunks) for name, chunks in parts.items()}


def bootstrap_measures(events, births, sub: M.Subgroups, names, replicates: int, rng, *, membership=None,
                       draws: str = "poisson", conf_level: float = 0.95, scale: float = 1000.0,
                       interval: str = "percentile", estimates=None, chunk_cells: int = CHUNK_CELLS):
    """Bootstrap SE and CI of each measure.

    ``interval="percentile"``: the alpha/2 and 1-alpha/2 quantiles of the replicates. ``"basic"`` (the
    reverse percentile interval, Davison & Hinkley 1997, eq. 5.6): 2 T - q_{1-alpha/2}, 2 T - q_{alpha/2},
    with T the estimate (``estimates[name]``), which corrects a bias that shifts the replicates.

    ``membership`` (units x groups, 0/1) sums unit counts into groups; None means subgroups = units.
    Replicates are processed ``chunk_cells`` (replicates x units) cells at a time (:data:`CHUNK_CELLS`);
    the result does not depend on it. The second set of draws (the noise-corrected measures') is made
    only when one of those measures is among ``names``.
    Returns name -> (se, lower, upper, n_valid) where n_valid counts the finite replicates.
    """
    events = np.asarray(events, dtype=float)
    births = np.asarray(births, dtype=float)
    noise_names = [n for n in names if n in M.NOISE_MEASURES]
    other = [n for n in names if n not in M.NOISE_MEASURES]
    # the first draws are made even when only noise-corrected measures are asked, so that their replicates
    # are the same whichever other measures are asked with them
    values = _replicate_values(events, births, sub, other, replicates, rng, draws, membership, scale,
                               chunk_cells)
    if noise_names:
        # Redrawing around the observed rates would put their noise in the replicates twice (their
        # BGV is the true variance plus the noise), so the noise-corrected measures are redrawn from
        # a world whose true rates have the estimated variance: each rate shrunk towards the mean,
        # theta_j = mu + c (y_j - mu) with c = sqrt(bgv_true / bgv), so that sum p_j (theta_j - mu)^2
        # = bgv_true (a parametric bootstrap of the fitted moment model; Efron & Tibshirani 1993, ch. 6).
        # These draws come after the others, which stay as they were.
        group_events = events @ membership if membership is not None else events
        group_births = births @ membership if membership is not None else births
        rates = scale * group_events / group_births
        point = M.evaluate(rates, sub, ["mean", "bgv", "bgv_true"])
        shrink = np.sqrt(point["bgv_true"] / point["bgv"]) if point["bgv"] > 0 else 0.0
        theta = point["mean"] + shrink * (rates - point["mean"])
        values.update(_replicate_values(group_births * theta / scale, group_births, sub, noise_names, replicates,
                                        rng, draws, None, scale, chunk_cells))
    alpha = 1.0 - conf_level
    out = {}
    for name in names:
        v = values[name]
        ok = np.isfinite(v)
        if ok.sum() < 2:
            out[name] = (np.nan, np.nan, np.nan, int(ok.sum()))
            continue
        good = v[ok]
        lo, hi = np.quantile(good, [alpha / 2, 1 - alpha / 2])
        if interval == "basic":
            t = float(estimates[name])
            lo, hi = 2 * t - hi, 2 * t - lo
        elif interval != "percentile":
            raise ValueError("interval must be 'percentile' or 'basic'")
        out[name] = (float(good.std(ddof=1)), float(lo), float(hi), int(ok.sum()))
    return out
