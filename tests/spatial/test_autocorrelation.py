"""Moran's I, LISA and Gi* against esda's and spdep's published values (REFERENCE_WAVE2.md W.5) and against
the formulas written out here."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from brecha.spatial.autocorrelation import eb_rates, spatial_autocorrelation
from brecha.spatial.neighbours import Neighbours, _contiguity

pytestmark = pytest.mark.filterwarnings("ignore::brecha.errors.BrechaWarning")


@pytest.fixture(scope="module")
def sids():
    """North Carolina SIDS (shipped with libpysal: examples/sids2), with the GAL weights of the same folder."""
    import libpysal
    from libpysal import examples

    w = libpysal.io.open(examples.get_path("sids2.gal")).read()
    table = libpysal.io.open(examples.get_path("sids2.dbf"))
    cols = {c: table.by_col(c) for c in ("FIPS", "SID74", "BIR74", "SID79", "BIR79")}
    data = pd.DataFrame(cols).assign(unit=lambda t: t["FIPS"].astype(str))
    return data, w


def _table(data, deaths, births):
    return pd.DataFrame({"unit": data["unit"], "year": 1979, "events": data[deaths].astype(int),
                         "births": data[births].astype(int)})


def test_rate_moran_matches_esda_reference(sids):
    data, w = sids
    glob, _ = spatial_autocorrelation(_table(data, "SID79", "BIR79"), neighbours=Neighbours(w, "gal"),
                                      permutations=0)
    row = glob[(glob["measure"] == "moran_rate") & (glob["method"] == "normality")].iloc[0]
    assert row["estimate"] == pytest.approx(0.16622343552567395, abs=1e-12)
    # W.5 gives esda's one-sided p_norm; brecha reports the two-sided p
    assert row["p_value"] == pytest.approx(2 * 0.004191499504892171, rel=1e-9)
    assert row["expected"] == pytest.approx(-1 / 99)


def test_raw_moran_and_variance_match_spdep_on_queen_from_polygons(sids):
    """spdep moran.test(SID74/BIR74*1000, nc queen): I and the randomisation variance; the queen weights are
    built by brecha's own polygon path (_contiguity) from the shapefile shipped with libpysal."""
    import geopandas as gpd
    from libpysal import examples

    data, _ = sids
    shapes = gpd.read_file(examples.get_path("sids2.shp"))
    geo = json.loads(shapes.assign(unit=shapes["FIPS"].astype(str))[["unit", "geometry"]].to_json())
    nb = _contiguity(geo, list(data["unit"]), "queen")
    assert nb.isolated == {} and nb.w.n == 100
    glob, _ = spatial_autocorrelation(_table(data, "SID74", "BIR74"), neighbours=nb, permutations=0)
    row = glob[(glob["measure"] == "moran") & (glob["method"] == "randomisation")].iloc[0]
    assert row["estimate"] == pytest.approx(0.23091044884586, abs=1e-11)
    z = (0.23091044884586 + 1 / 99) / np.sqrt(0.00406513368576)
    assert row["z"] == pytest.approx(z, rel=1e-9)


def test_marshall_eb_matches_spdep(sids):
    data, _ = sids
    d, n = data["SID74"].to_numpy(float), data["BIR74"].to_numpy(float)
    from brecha.smoothing import marshall_prior

    m, a, _, _ = marshall_prior(d, n)
    assert m[0] == pytest.approx(0.00202144489365, rel=1e-10)
    assert a[0] == pytest.approx(7.69293064701e-07, rel=1e-9)
    first = data.index[data["unit"] == "37009"][0]  # spdep's county 1 (Ashe)
    assert d[first] / n[first] == pytest.approx(0.000916590284143, rel=1e-10)
    assert eb_rates(d, n)[first] == pytest.approx(0.00169729733086, rel=1e-10)


def _dense(w):
    ids = list(w.id_order)
    index = {u: i for i, u in enumerate(ids)}
    a = np.zeros((len(ids), len(ids)))
    for u, others in w.neighbors.items():
        for v in others:
            a[index[u], index[v]] = 1.0
    return a


def _assuncao_reis(d, n):
    b = d.sum() / n.sum()
    r = d / n
    a = (n * (r - b) ** 2).sum() / n.sum() - b / n.mean()
    return (r - b) / np.sqrt(a + b / n)


def test_local_statistics_against_the_formulas(sids):
    """LISA, its BH q-values and clusters, Gi* and its z, written out with dense matrices."""
    data, w = sids
    local = spatial_autocorrelation(_table(data, "SID79", "BIR79"), neighbours=Neighbours(w, "gal"),
                                    permutations=999, seed=7, alpha=0.4)[1].set_index("unit").loc[list(w.id_order)]
    d, n = local["events"].to_numpy(float), local["births"].to_numpy(float)
    a = _dense(w)
    count = len(d)
    z = _assuncao_reis(d, n)
    z = (z - z.mean()) / z.std()
    lag = (a / a.sum(axis=1, keepdims=True)) @ z
    assert np.allclose(local["lisa"], (count - 1) * z * lag / (z ** 2).sum(), atol=1e-12)
    # Benjamini-Hochberg by hand
    p = local["lisa_p"].to_numpy()
    order = np.argsort(p)
    q = np.empty(count)
    q[order] = np.minimum.accumulate((p[order] * count / np.arange(1, count + 1))[::-1])[::-1]
    assert np.allclose(local["lisa_q"], np.minimum(q, 1), atol=1e-12)
    hit = local["lisa_q"].to_numpy() <= 0.4
    quadrant = np.where(z > 0, np.where(lag > 0, "high-high", "high-low"), np.where(lag > 0, "low-high", "low-low"))
    assert (local["cluster"].to_numpy() == np.where(hit, quadrant, "not_significant")).all()
    assert 0 < hit.sum() < count  # (no unit is FDR-significant at 0.05 here; 0.4 exercises both branches)
    # Gi*: binary weights with the unit itself, Ord & Getis (1995) eq. 9 z
    x = eb_rates(d, n)
    star = a + np.eye(count)
    wi, s1 = star.sum(axis=1), (star ** 2).sum(axis=1)
    assert np.allclose(local["gi_star"], star @ x / x.sum(), atol=1e-14)
    s = np.sqrt((x ** 2).mean() - x.mean() ** 2)
    gz = (star @ x - wi * x.mean()) / (s * np.sqrt((count * s1 - wi ** 2) / (count - 1)))
    assert np.allclose(local["gi_z"], gz, atol=1e-10)
    from scipy.stats import norm

    assert np.allclose(local["gi_p"], 2 * norm.sf(np.abs(gz)), atol=1e-12)


def test_seeded_and_reproducible(sids):
    data, w = sids
    table = _table(data, "SID79", "BIR79")
    one = spatial_autocorrelation(table, neighbours=Neighbours(w, "gal"), permutations=199, seed=3)
    two = spatial_autocorrelation(table, neighbours=Neighbours(w, "gal"), permutations=199, seed=3)
    other = spatial_autocorrelation(table, neighbours=Neighbours(w, "gal"), permutations=199, seed=4)
    pd.testing.assert_frame_equal(one[0], two[0])
    pd.testing.assert_frame_equal(one[1], two[1])
    assert not one[1]["lisa_p"].equals(other[1]["lisa_p"])
    # the permutation p of the global test: (1 + as extreme)/(permutations + 1), a multiple of 1/200
    perm = one[0][one[0]["method"] == "permutation"]["p_value"].to_numpy()
    assert np.allclose(np.round(perm * 200), perm * 200)


def test_moran_of_st_louis_homicide_rates_matches_esda_reference():
    """esda Moran(HR8893, stl.gal) = 0.24365582621771659 (W.5): the rates given as events over one birth."""
    import libpysal
    from libpysal import examples

    w = libpysal.io.open(examples.get_path("stl.gal")).read()
    data = pd.read_csv(examples.get_path("stl_hom.csv"))
    table = pd.DataFrame({"unit": [str(u) for u in w.id_order], "year": 1990, "events": data["HR8893"], "births": 1})
    glob, _ = spatial_autocorrelation(table, neighbours=Neighbours(w, "gal"), permutations=0)
    row = glob[(glob["measure"] == "moran") & (glob["method"] == "normality")].iloc[0]
    assert row["estimate"] == pytest.approx(0.24365582621771659, abs=1e-12)


def _chain(count):
    from brecha.spatial.links import Links

    ids = [f"{i:02d}" for i in range(count)]
    return Links({ids[i]: [ids[j] for j in (i - 1, i + 1) if 0 <= j < count] for i in range(count)}, ids)


def _run(table, links, **options):
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        glob, local = spatial_autocorrelation(table, neighbours=Neighbours(links, "chain"), **options)
    return glob, local, [str(w.message) for w in caught]


@pytest.mark.parametrize("events,births", [([0] * 6, [100, 200, 150, 300, 120, 90]),
                                           ([2, 4, 3, 6, 2, 2], [100, 200, 150, 300, 100, 100]),
                                           ([7] * 13, [100] * 13)])  # mean(0.07 x 13) != 0.07 in the last bit
def test_same_rate_everywhere_is_undefined_not_a_cluster(events, births):
    """Every rate equal (all zero deaths, 20 or 70 per 1,000 in each unit): Moran's I, the local statistics
    and Gi*'s z are 0/0. esda then gives p = 1/(P + 1) and calls every unit low-low, and on 13 units at
    7/100 its raw-rate I is 1 with p < 0.001 from rounding (test_moran_against_esda); brecha gives no
    estimate, no p-value and the cluster no_variation, with a warning."""
    links = _chain(len(events))
    table = pd.DataFrame({"unit": links.id_order, "year": 2010, "events": events, "births": births})
    glob, local, warned = _run(table, links, permutations=99, seed=1)
    assert glob["estimate"].isna().all() and glob["z"].isna().all() and glob["p_value"].isna().all()
    assert (local["cluster"] == "no_variation").all()
    assert local[["lisa", "lisa_p", "lisa_q", "gi_star", "gi_z", "gi_p"]].isna().all().all()
    assert any("no_variation" in w for w in warned)


def test_a_unit_linked_to_every_other_unit_gets_no_p_value():
    """A hub linked to every unit of a ring: each conditional permutation draws all the others, so its I
    never changes; no p-value, cluster all_neighbours, left out of the q-values' count, a warning."""
    from brecha.spatial.links import Links

    ring = [f"r{k}" for k in range(6)]
    links = {u: [ring[(k - 1) % 6], ring[(k + 1) % 6], "hub"] for k, u in enumerate(ring)}
    links["hub"] = list(ring)
    ids = ["hub", *ring]
    table = pd.DataFrame({"unit": ids, "year": 2010, "events": [9, 1, 2, 8, 3, 5, 4],
                          "births": [500, 400, 300, 600, 350, 450, 380]})
    glob, local, warned = _run(table, Links(links, ids), permutations=199, seed=3, alpha=0.9)
    hub = local.set_index("unit").loc["hub"]
    assert hub["cluster"] == "all_neighbours" and np.isnan(hub["lisa_p"]) and np.isnan(hub["lisa_q"])
    assert np.isfinite(hub["lisa"])
    others = local[local["unit"] != "hub"]
    p = others["lisa_p"].to_numpy()
    order = np.argsort(p)
    q = np.empty(6)
    q[order] = np.minimum.accumulate((p[order] * 6 / np.arange(1, 7))[::-1])[::-1]  # m = 6, not 7
    assert np.allclose(others["lisa_q"], np.minimum(q, 1))
    assert any("hub" in w and "all_neighbours" in w for w in warned)


def test_islands_are_removed_until_none_is_left():
    """One-way links: a -> b, b -> c, c -> b. With no births in c, b loses its only neighbour, and then a
    does: both are islands, not units with I = 0 and p = 1/(P + 1)."""
    from brecha.spatial.links import Links

    ids = ["a", "b", "c", "d", "e", "f"]
    links = Links({"a": ["b"], "b": ["c"], "c": ["b"], "d": ["e"], "e": ["f"], "f": ["d"]}, ids)
    nb = Neighbours(links, "knn:1").restrict(["a", "b", "d", "e", "f"])
    assert nb.units == ["d", "e", "f"]
    assert nb.isolated == {"c": "no_births", "b": "island", "a": "island"}


def test_units_outside_the_weights_with_births_are_islands_not_no_births():
    from brecha.spatial.links import Links

    ids = ["a", "b", "c", "d"]
    links = Links({"a": ["b", "c"], "b": ["a", "c"], "c": ["a", "b"]}, ["a", "b", "c"])
    table = pd.DataFrame({"unit": ids, "year": 2010, "events": [1, 2, 3, 4], "births": [100, 100, 100, 100]})
    _, local, _ = _run(table, links, permutations=99, seed=1)
    assert local.set_index("unit").loc["d", "cluster"] == "island"


def test_a_libpysal_w_is_taken_as_neighbours(sids):
    data, w = sids
    table = _table(data, "SID79", "BIR79")
    direct = spatial_autocorrelation(table, neighbours=w, permutations=99, seed=2)
    wrapped = spatial_autocorrelation(table, neighbours=Neighbours(w, "custom"), permutations=99, seed=2)
    pd.testing.assert_frame_equal(direct[1], wrapped[1])
    assert (direct[0]["neighbours"] == "custom").all()
