"""brecha.spatial.moran and brecha.spatial.links give esda's and libpysal's numbers (issue 19: brecha no longer
imports either at run time; they stay the independent reference here).

Every statistic is compared on Chile's communes (queen links from the embedded polygons, the 2000-2015 pooled
infant deaths and births) and on North Carolina's counties (libpysal's SIDS example with its GAL links),
including the permutation p-values, which must be equal (the same draws from the same seed).
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

esda = pytest.importorskip("esda")
libpysal = pytest.importorskip("libpysal")

from brecha.spatial.links import Links  # noqa: E402
from brecha.spatial.moran import (assuncao_reis, benjamini_hochberg, getis_ord_star, global_moran,  # noqa: E402
                                  local_moran)

pytestmark = pytest.mark.filterwarnings("ignore")


def _w(links):
    """The same links as a libpysal W (binary), in the same order (Links.to_libpysal, checked below)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return links.to_libpysal()


def test_to_libpysal_and_back(chile):
    _, _, links = chile
    w = _w(links)
    assert isinstance(w, libpysal.weights.W) and list(w.id_order) == links.id_order
    assert Links.of(w).neighbors == links.neighbors
    assert w.n == links.n and dict(w.cardinalities) == links.cardinalities


@pytest.fixture(scope="module")
def chile():
    from brecha import datasets
    from brecha.rates import events_table
    from brecha.spatial.neighbours import neighbours

    panel = datasets.chile()
    nb = neighbours(panel, "queen")
    ev, _, _ = events_table(panel, "infant", None, True)
    ev = ev.set_index(ev["unit"].astype(str))
    d = ev.loc[nb.units, "events"].to_numpy(float)
    n = ev.loc[nb.units, "births"].to_numpy(float)
    return d, n, nb.w


@pytest.fixture(scope="module")
def sids():
    from libpysal import examples

    w = libpysal.io.open(examples.get_path("sids2.gal")).read()
    table = libpysal.io.open(examples.get_path("sids2.dbf"))
    fips = [str(f) for f in table.by_col("FIPS")]
    d = dict(zip(fips, table.by_col("SID79")))
    n = dict(zip(fips, table.by_col("BIR79")))
    links = Links.of(w)
    return (np.array([d[u] for u in links.id_order], dtype=float),
            np.array([n[u] for u in links.id_order], dtype=float), links)


@pytest.fixture(params=["chile", "sids"])
def data(request):
    return request.getfixturevalue(request.param)


def _seeded(seed, make):
    state = np.random.get_state()
    np.random.seed(seed)
    try:
        return make()
    finally:
        np.random.set_state(state)


def test_assuncao_reis_is_esdas(data):
    d, n, _ = data
    from esda.smoothing import assuncao_rate

    np.testing.assert_array_equal(assuncao_reis(d, n), assuncao_rate(d, n))  # to the last bit


@pytest.mark.parametrize("rate", [True, False])
def test_global_moran_is_esdas(data, rate):
    d, n, links = data
    ours = global_moran(assuncao_reis(d, n) if rate else d / n, links, permutations=999, seed=12345)
    w = _w(links)
    theirs = _seeded(12345, lambda: esda.Moran_Rate(d, n, w, permutations=999) if rate
                     else esda.Moran(d / n, w, permutations=999))
    for key in ("I", "EI", "z_norm", "p_norm", "z_rand", "p_rand", "z_sim"):
        assert ours[key] == pytest.approx(getattr(theirs, key), rel=1e-10, abs=1e-14), key
    assert ours["p_sim"] == theirs.p_sim  # the same 999 relabellings: the same count


def test_local_moran_is_esdas(data):
    d, n, links = data
    ours = local_moran(assuncao_reis(d, n), links, permutations=999, seed=12345)
    theirs = esda.Moran_Local_Rate(d, n, _w(links), permutations=999, seed=12345, n_jobs=1)
    assert np.allclose(ours["Is"], theirs.Is, rtol=1e-12, atol=1e-15)
    assert (ours["q"] == theirs.q).all()
    assert (ours["p_sim"] == theirs.p_sim).all()  # conditional permutations: the same draws per unit
    assert 0.001 <= ours["p_sim"].min() < 0.05 < ours["p_sim"].max() <= 0.5


def test_local_moran_other_seed_other_p(chile):
    d, n, links = chile
    one = local_moran(assuncao_reis(d, n), links, permutations=199, seed=1)["p_sim"]
    two = local_moran(assuncao_reis(d, n), links, permutations=199, seed=2)["p_sim"]
    assert not np.array_equal(one, two)
    assert np.array_equal(one, local_moran(assuncao_reis(d, n), links, permutations=199, seed=1)["p_sim"])


def test_getis_ord_star_is_esdas(data):
    d, n, links = data
    x = d / n
    ours = getis_ord_star(x, links)
    theirs = esda.G_Local(x, _w(links), transform="B", star=True, permutations=0, n_jobs=1)
    assert np.allclose(ours["Gs"], theirs.Gs, rtol=1e-12, atol=0)
    assert np.allclose(ours["Zs"], theirs.Zs, rtol=1e-10, atol=1e-12)
    assert np.allclose(ours["p_norm"], 2 * theirs.p_norm, rtol=1e-10, atol=1e-15)  # esda's is one-sided


def test_benjamini_hochberg_is_scipys():
    from scipy.stats import false_discovery_control

    p = np.random.default_rng(5).uniform(size=400) ** 3
    p[10:20] = p[9]  # ties
    assert np.allclose(benjamini_hochberg(p), false_discovery_control(p), rtol=1e-15, atol=0)


def test_links_are_libpysals(chile):
    _, _, links = chile
    w = _w(links)
    assert (links.row_standardised() != _row(w)).nnz == 0
    keep = links.id_order[::2]
    sub = links.subset(keep)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = libpysal.weights.w_subset(w, keep, silence_warnings=True)
    assert {u: sorted(v) for u, v in sub.neighbors.items()} == {u: sorted(v) for u, v in theirs.neighbors.items()}
    assert list(sub.id_order) == list(theirs.id_order)
    assert sorted(sub.islands) == sorted(theirs.islands)


def _row(w):
    w.transform = "r"
    m = w.sparse.tocsr()
    m.sort_indices()
    return m


def test_knn_is_libpysals():
    from brecha import datasets
    from brecha.spatial.neighbours import neighbours

    panel = datasets.chile()
    for k in (1, 5):
        nb = neighbours(panel, f"knn:{k}")
        units = nb.units
        t = panel.units.drop_duplicates("unit").assign(unit=lambda x: x["unit"].astype(str)).set_index("unit")
        lat, lon = np.deg2rad(t.loc[units, "lat"].astype(float)), np.deg2rad(t.loc[units, "lon"].astype(float))
        xyz = np.column_stack([np.cos(lat) * np.cos(lon), np.cos(lat) * np.sin(lon), np.sin(lat)])
        theirs = libpysal.weights.KNN.from_array(xyz, k=k, ids=units, silence_warnings=True)
        # the same sets (order within a unit's list can differ where two seats are equally far: Santiago's)
        assert {u: sorted(v) for u, v in nb.w.neighbors.items()} == {u: sorted(map(str, v)) for u, v in
                                                                   theirs.neighbors.items()}


def test_duplicated_seats_drop_the_farthest_as_libpysal():
    """Two units on one seat: the unit may not come first among its own nearest; libpysal then drops the
    farthest of the k + 1, and so does brecha."""
    import pandas as pd

    from brecha.spatial.neighbours import _knn

    units = ["a", "b", "c", "d", "e"]
    lat = [0.0, 0.0, 0.0, 1.0, 2.0]
    lon = [0.0, 0.0, 1.0, 0.0, 2.0]
    panel = type("P", (), {"units": pd.DataFrame({"unit": units, "lat": lat, "lon": lon})})()
    nb = _knn(panel, units, 2, "-")
    la, lo = np.deg2rad(lat), np.deg2rad(lon)
    xyz = np.column_stack([np.cos(la) * np.cos(lo), np.cos(la) * np.sin(lo), np.sin(la)])
    theirs = libpysal.weights.KNN.from_array(xyz, k=2, ids=units, silence_warnings=True)
    assert {u: sorted(v) for u, v in nb.w.neighbors.items()} == {u: sorted(map(str, v)) for u, v in
                                                               theirs.neighbors.items()}


def test_one_year_with_one_neighbour_units_is_esdas_to_the_count():
    """2001 alone: communes with one neighbour draw their own neighbour in about 3 of 999 permutations, a tie
    decided in the last bit; the p-values are still esda's (the rates are esda's to the last bit)."""
    from brecha import datasets
    from brecha.rates import events_table
    from brecha.spatial.neighbours import neighbours

    panel = datasets.chile()
    ev, _, _ = events_table(panel, "infant", [2001], False)
    ev = ev.set_index(ev["unit"].astype(str))
    have = [u for u in ev.index if ev.loc[u, "births"] > 0]
    nb = neighbours(panel, "queen").restrict(have)
    d = ev.loc[nb.units, "events"].to_numpy(float)
    n = ev.loc[nb.units, "births"].to_numpy(float)
    assert min(nb.w.cardinalities.values()) == 1
    ours = local_moran(assuncao_reis(d, n), nb.w, permutations=999, seed=12345)
    theirs = esda.Moran_Local_Rate(d, n, _w(nb.w), permutations=999, seed=12345, n_jobs=1)
    np.testing.assert_array_equal(ours["p_sim"], theirs.p_sim)


def test_esda_calls_every_unit_a_cluster_when_rates_do_not_vary_brecha_does_not():
    """The known defect brecha does not copy: equal rates make every I_i 0/0, and esda's pseudo p-value is
    then 1/(P + 1) for every unit (no replicate is 'at least' NaN), so every unit would be a low-low cluster."""
    ids = [str(i) for i in range(6)]
    links = Links({ids[i]: [ids[j] for j in (i - 1, i + 1) if 0 <= j < 6] for i in range(6)}, ids)
    d = np.zeros(6)
    n = np.array([100, 200, 150, 300, 120, 90], dtype=float)
    theirs = esda.Moran_Local_Rate(d, n, _w(links), permutations=99, seed=1, n_jobs=1)
    assert np.allclose(theirs.p_sim, 1 / 100) and (theirs.q == 3).all()
    ours = local_moran(assuncao_reis(d, n), links, permutations=99, seed=1)
    assert np.isnan(ours["p_sim"]).all() and (ours["q"] == 0).all()
    assert np.isnan(global_moran(assuncao_reis(d, n), links, permutations=99, seed=1)["p_sim"])
    assert np.isnan(benjamini_hochberg(ours["p_sim"])).all()


def _random_case(seed):
    """A random graph of 5-40 units (links drawn at random, some one-way as k-nearest links are, every unit
    with at least one) and random counts, some units with no deaths."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 41))
    ids = [f"u{k:02d}" for k in range(n)]
    links = {}
    for k, u in enumerate(ids):
        others = [v for v in range(n) if v != k]
        chosen = rng.choice(others, size=int(rng.integers(1, min(6, n - 1) + 1)), replace=False)
        links[u] = [ids[v] for v in chosen]
    births = rng.integers(20, 3000, size=n).astype(float)
    deaths = rng.binomial(births.astype(int), rng.uniform(0.002, 0.02)).astype(float)
    return Links(links, ids), deaths, births


@pytest.mark.parametrize("case", range(25))
def test_random_graphs_and_counts_are_esdas(case):
    links, d, n = _random_case(case)
    w = _w(links)
    x = assuncao_reis(d, n)
    ours = local_moran(x, links, permutations=199, seed=case)
    theirs = esda.Moran_Local_Rate(d, n, w, permutations=199, seed=case, n_jobs=1)
    tested = ~ours["every_other"]  # a unit linked to all others has no p in brecha (test below)
    np.testing.assert_array_equal(ours["p_sim"][tested], theirs.p_sim[tested])
    assert np.isnan(ours["p_sim"][~tested]).all()
    assert np.allclose(ours["Is"], theirs.Is, rtol=1e-12, atol=1e-15)
    mine = global_moran(x, links, permutations=199, seed=case)
    glob = _seeded(case, lambda: esda.Moran_Rate(d, n, _w(links), permutations=199))
    assert mine["p_sim"] == glob.p_sim
    for key in ("I", "z_norm", "z_rand", "z_sim"):
        assert mine[key] == pytest.approx(getattr(glob, key), rel=1e-9, abs=1e-12), key
    gi = getis_ord_star(d / n, links)
    theirs_gi = esda.G_Local(d / n, _w(links), transform="B", star=True, permutations=0, n_jobs=1)
    assert np.allclose(gi["Zs"], theirs_gi.Zs, rtol=1e-9, atol=1e-12)


def test_esda_finds_pattern_in_rounding_noise_brecha_does_not():
    """13 units at 7 deaths per 100 births: the raw rates are equal, but their mean is not 0.07 to the last
    bit; esda's Moran then finds I = 1 with p < 0.001 in a chain. brecha: undefined."""
    ids = [f"{k:02d}" for k in range(13)]
    links = Links({ids[i]: [ids[j] for j in (i - 1, i + 1) if 0 <= j < 13] for i in range(13)}, ids)
    y = np.full(13, 7.0) / np.full(13, 100.0)
    theirs = _seeded(1, lambda: esda.Moran(y, _w(links), permutations=99))
    assert theirs.I == pytest.approx(1.0) and theirs.p_norm < 0.001
    ours = global_moran(y, links, permutations=99, seed=1)
    assert np.isnan(ours["I"]) and np.isnan(ours["p_norm"]) and np.isnan(ours["p_sim"])


def test_esda_p_of_a_unit_linked_to_all_others_is_rounding_brecha_gives_none():
    """A hub linked to every unit of a ring: every replicate of its I is the observed I up to rounding, so
    esda's p is whatever the last bits say; brecha gives none, and the ring's p-values stay esda's."""
    ring = [f"r{k}" for k in range(5)]
    neighbours = {u: [ring[(k - 1) % 5], ring[(k + 1) % 5], "hub"] for k, u in enumerate(ring)}
    neighbours["hub"] = list(ring)
    links = Links(neighbours, ["hub", *ring])
    rng = np.random.default_rng(0)
    spread = set()
    for _ in range(6):
        y = rng.normal(size=6)
        theirs = esda.Moran_Local(y, _w(links), permutations=999, seed=1, n_jobs=1)
        ours = local_moran(y, links, permutations=999, seed=1)
        spread.add(round(float(theirs.p_sim[0]), 3))
        assert np.isnan(ours["p_sim"][0]) and ours["every_other"][0]
        np.testing.assert_array_equal(ours["p_sim"][1:], theirs.p_sim[1:])
        assert ours["Is"][0] == pytest.approx(theirs.Is[0], rel=1e-12)
    assert len(spread) > 1  # esda's p for the hub jumps from draw to draw


def test_gi_star_of_equal_smoothed_rates_is_missing_not_rounding_noise():
    """Chile 2011: Marshall's between-commune variance is estimated at 0, so every smoothed rate is the
    prior mean. esda's Gi* z is then rounding noise (0.0 here); brecha leaves it missing, with a warning."""
    import warnings

    from brecha import datasets
    from brecha.spatial.autocorrelation import eb_rates, spatial_autocorrelation

    panel = datasets.chile()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _, local = spatial_autocorrelation(panel, years=[2011], permutations=99, seed=1)
    kept = local[local["lisa"].notna()]
    assert kept["gi_z"].isna().all() and kept["gi_p"].isna().all() and kept["gi_star"].notna().all()
    assert any("Gi*" in str(w.message) for w in caught)
    ours = kept.set_index("unit")
    x = eb_rates(ours["events"].to_numpy(float), ours["births"].to_numpy(float))
    assert np.ptp(x) == 0
    links = Links({u: [v for v in vs] for u, vs in _chile_links(ours.index).items()}, list(ours.index))
    theirs = esda.G_Local(x, _w(links), transform="B", star=True, permutations=0, n_jobs=1)
    assert np.isfinite(theirs.Zs).all() and np.abs(theirs.Zs).max() < 1e-6  # a number, from rounding alone


def _chile_links(units):
    from brecha import datasets
    from brecha.spatial.neighbours import neighbours

    nb = neighbours(datasets.chile(), "queen").restrict(list(units))
    return nb.w.neighbors
