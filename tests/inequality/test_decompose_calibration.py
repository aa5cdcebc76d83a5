"""Coverage of the decomposition's bootstrap intervals (issue 14): simulated deaths from known true rates,
the interval of each component should cover the index's expected value about 95 % of the time."""
import numpy as np

from brecha.inequality import decompose as D
from brecha.inequality.decompose_table import world_rates


def test_percentile_intervals_cover_the_expected_components():
    rng = np.random.default_rng(2024)
    n, k = 160, 8
    g = np.repeat(np.arange(k), n // k)
    births = rng.integers(150, 6000, n).astype(float)
    theta = rng.gamma(8, rng.uniform(5, 10, k)[g] / 8) / 1000
    groups = D.Groups(g)
    truth = {}
    many = rng.poisson(births * theta, size=(3000, n)) / births
    for name in ("theil", "gini"):
        r = D.decompose_measure(name, many, births, groups)
        truth[name] = {c: float(np.mean(r[c])) for c in ("total", "between", "within")}
    hits = {(name, c): 0 for name in truth for c in truth[name]}
    sims = 120
    for _ in range(sims):
        observed = rng.poisson(births * theta).astype(float)
        world = world_rates(observed, births, g)
        replicates = rng.poisson(births * world, size=(300, n)) / births
        for name in truth:
            r = D.decompose_measure(name, replicates, births, groups)
            for c, value in truth[name].items():
                lo, hi = np.quantile(r[c], [0.025, 0.975])
                hits[(name, c)] += lo <= value <= hi
    coverage = {key: v / sims for key, v in hits.items()}
    assert min(coverage.values()) >= 0.8, coverage
    assert np.mean(list(coverage.values())) >= 0.88, coverage
