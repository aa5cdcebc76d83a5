"""Issue 19: the bootstrap runs in blocks of replicates, its memory independent of the replicate count, its
numbers those of one whole draw (the same replicates; with blocks smaller than the whole draw, BLAS may sum
in another order: equal to 1e-9 relative); the second draw happens only for the noise-corrected measures."""
from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from brecha.inequality import bootstrap as B
from brecha.inequality import measures as M


def world(units=400, seed=3):
    rng = np.random.default_rng(seed)
    births = rng.integers(20, 4000, size=units).astype(float)
    events = rng.poisson(births * 0.008).astype(float)
    order = rng.normal(size=units)
    return events, births, order


def whole_draw_reference(events, births, sub, names, replicates, seed, draws="poisson"):
    """An independent implementation: every replicate at once, as brecha did before issue 19."""
    rng = np.random.default_rng(seed)
    sim = B.draw_events(events, births, replicates, rng, draws)
    return M.evaluate(sim * (1000.0 / births), sub, names)


@pytest.mark.parametrize("draws", ["poisson", "binomial"])
@pytest.mark.parametrize("chunk_cells", [1, 999, 4000, B.CHUNK_CELLS])
def test_chunks_give_the_numbers_of_one_whole_draw(draws, chunk_cells):
    events, births, order = world()
    sub = M.make_subgroups(births, order, None, False, 1000.0, noise="poisson")
    names = ["bgv", "sii", "rii", "aci", "rci", "ti", "gini", "cov", "mdmw", "idisw"]
    names = [n for n in names if n in M.applicable(names, sub)[0]]
    assert len(names) >= 6
    got = B.bootstrap_measures(events, births, sub, names, 250, np.random.default_rng(11), draws=draws,
                               chunk_cells=chunk_cells)
    reps = whole_draw_reference(events, births, sub, names, 250, 11, draws)
    for name in names:
        v = reps[name][np.isfinite(reps[name])]
        alpha = 1.0 - 0.95  # as the code writes it (0.050000000000000044)
        lo, hi = np.quantile(v, [alpha / 2, 1 - alpha / 2])
        expected = (float(v.std(ddof=1)), float(lo), float(hi), len(v))
        if chunk_cells >= 250 * len(events):  # one block: the very same floating-point operations
            assert got[name] == expected, name
        else:  # blocks of other shapes: BLAS may sum in another order (rounding-level differences only)
            assert got[name][3] == expected[3]
            np.testing.assert_allclose(got[name][:3], expected[:3], rtol=1e-9, atol=0, err_msg=name)


def test_chunked_groups_and_noise_measures_equal_the_unchunked():
    events, births, order = world(units=900)
    groups = np.digitize(order, np.quantile(order, [0.2, 0.4, 0.6, 0.8])) + 1
    membership = (groups[:, None] == np.arange(1, 6)[None, :]).astype(float)
    sub = M.make_subgroups(births @ membership, np.arange(1.0, 6.0), None, False, 1000.0, noise="poisson")
    names = ["sii", "rii", "bgv", "bgv_true", "bgsd_true", "cov_true"]
    whole = B.bootstrap_measures(events, births, sub, names, 300, np.random.default_rng(5), membership=membership,
                                 chunk_cells=10**9)
    small = B.bootstrap_measures(events, births, sub, names, 300, np.random.default_rng(5), membership=membership,
                                 chunk_cells=2000)
    assert whole.keys() == small.keys()
    for name in names:
        assert whole[name][3] == small[name][3] == 300
        np.testing.assert_allclose(whole[name][:3], small[name][:3], rtol=1e-9, atol=0, err_msg=name)
    assert B.replicate_chunks(300, 900, 2000) == [2] * 150


def test_second_draw_only_for_noise_corrected_measures():
    """Without a noise-corrected measure the generator advances by one (replicates x units) Poisson draw."""
    events, births, order = world()
    sub = M.make_subgroups(births, order, None, False, 1000.0, noise="poisson")
    rng = np.random.default_rng(2)
    B.bootstrap_measures(events, births, sub, ["bgv", "sii"], 50, rng)
    expected = np.random.default_rng(2)
    expected.poisson(events, size=(50, len(events)))
    assert rng.random() == expected.random()
    rng = np.random.default_rng(2)
    B.bootstrap_measures(events, births, sub, ["bgv", "bgv_true"], 50, rng)
    expected = np.random.default_rng(2)
    expected.poisson(events, size=(50, len(events)))
    assert rng.random() != expected.random()  # a second draw was made


def peak_bytes(replicates, units=20_000):
    events, births, order = world(units=units)
    sub = M.make_subgroups(births, order, None, False, 1000.0, noise="poisson")
    tracemalloc.start()
    B.bootstrap_measures(events, births, sub, ["bgv", "mld", "ti"], replicates, np.random.default_rng(1),
                         chunk_cells=200_000)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def test_memory_does_not_grow_with_replicates():
    small, large = peak_bytes(40), peak_bytes(400)
    # one block is 200,000 cells (1.6 MB per float array); ten times the replicates add only the per-replicate
    # values (400 floats per measure), not ten times the blocks. All at once, 400 x 20,000 floats are 64 MB.
    assert large < 1.3 * small
    assert large < 20e6
