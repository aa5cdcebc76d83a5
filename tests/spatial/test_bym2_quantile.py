"""BYM2's mixture quantiles stop bisecting once the bounds stop moving (issue 19): the same bits as the
80 halvings written out here, and the quantile's defining property (the mixture's CDF there is p)."""
import numpy as np
import pytest
from scipy.special import ndtr

from brecha.spatial.bym2 import mixture_quantile


def _eighty_halvings(p, w, mean, sd):
    lo = (mean - 10 * sd).min(axis=0)
    hi = (mean + 10 * sd).max(axis=0)
    for _ in range(80):
        mid = (lo + hi) / 2
        cdf = (w[:, None] * ndtr((mid - mean) / sd)).sum(axis=0)
        lo, hi = np.where(cdf < p, mid, lo), np.where(cdf < p, hi, mid)
    return (lo + hi) / 2


@pytest.mark.parametrize("seed", range(6))
def test_early_stop_gives_the_eighty_halvings_bit_for_bit(seed):
    rng = np.random.default_rng(seed)
    k, n = int(rng.integers(1, 40)), int(rng.integers(1, 400))
    w = rng.random(k)
    w /= w.sum()
    mean = rng.normal(-5, 1, (k, n)) * [1e-3, 1, 100][seed % 3]
    sd = rng.gamma(2, 0.1, (k, n))
    for p in (0.025, 0.5, 0.975):
        fast = mixture_quantile(p, w, mean, sd)
        np.testing.assert_array_equal(fast.view(np.uint64), _eighty_halvings(p, w, mean, sd).view(np.uint64))
        cdf = (w[:, None] * ndtr((fast - mean) / sd)).sum(axis=0)
        np.testing.assert_allclose(cdf, p, atol=1e-9)
