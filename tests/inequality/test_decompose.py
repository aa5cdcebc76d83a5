"""Between/within decomposition (issue 14): REFERENCE_WAVE2 W.1 values, PySAL's public values, invariants,
brute-force checks of the vectorised arithmetic, the change split, zero rates and the bootstrap."""
import itertools

import numpy as np
import pandas as pd
import pytest

from brecha.inequality import decompose as D
from brecha.inequality.decompose_table import decompose
from brecha.panel import Panel

# REFERENCE_WAVE2 W.1: 10 communes, rate y per 1,000, births w, region g
Y = np.array([5.1, 6.3, 7.8, 9.2, 4.4, 12.7, 10.2, 8.8, 6.9, 3.9])
W = np.array([1200, 800, 450, 300, 2500, 650, 400, 900, 700, 3000], dtype=float)
G = np.array([0, 0, 0, 1, 1, 1, 2, 2, 2, 2])

W1 = {  # measure -> (total, within, between, per-region own index or None)
    "theil": (0.0789399143421, 0.0777546328311, 0.00118528151103, (0.0137801304756, 0.1181957754017, 0.0794438790933)),
    "mld": (0.0737960712094, 0.0726174018277, 0.00117866938168, (0.0134373698198, 0.1078965637358, 0.0772729957951)),
    "ge2": (0.088494802861, 0.0873022448271, 0.00119255803388, None),
}


@pytest.mark.parametrize("name", sorted(W1))
def test_w1_generalised_entropy_to_1e10(name):
    total, within, between, own = W1[name]
    r = D.decompose_measure(name, Y, W, G)
    assert r["total"] == pytest.approx(total, abs=1e-10)
    assert r["within"] == pytest.approx(within, abs=1e-10)
    assert r["between"] == pytest.approx(between, abs=1e-10)
    if own:
        np.testing.assert_allclose(r["group_index"], own, atol=1e-10)
    # the weighted mean, region means, birth and death shares of W.1
    assert float(Y @ (W / W.sum())) == pytest.approx(5.98302752294, abs=1e-10)
    np.testing.assert_allclose(r["group_mean"], [5.98775510204, 6.38115942029, 5.70600000000], atol=1e-10)
    np.testing.assert_allclose(r["group_share"], [0.224770642202, 0.316513761468, 0.458715596330], atol=1e-11)


def test_w1_gini_three_terms_to_1e10():
    r = D.decompose_measure("gini", Y, W, G)
    assert r["total"] == pytest.approx(0.215592109937, abs=1e-10)
    assert r["within"] == pytest.approx(0.0712322754587, abs=1e-10)
    assert r["between"] == pytest.approx(0.0259174487774, abs=1e-10)
    assert r["overlap"] == pytest.approx(0.118442385701, abs=1e-10)


def test_w1_unweighted_theil_and_pysal_toy():
    r = D.decompose_measure("theil", Y, np.ones(10), G)
    assert (r["total"], r["within"], r["between"]) == pytest.approx(
        (0.0608168852737, 0.0533924119614, 0.00742447331232), abs=1e-10)
    # PySAL inequality tests: [0,0,0,10,10,10] in two groups of three, T = between = ln 2, within = 0
    toy = D.decompose_measure("theil", np.array([0, 0, 0, 10, 10, 10.0]), np.ones(6), np.array([0, 0, 0, 1, 1, 1]))
    assert toy["total"] == pytest.approx(np.log(2), abs=1e-15)
    assert toy["between"] == pytest.approx(0.6931471805599453, abs=1e-15)
    assert toy["within"] == pytest.approx(0.0, abs=1e-15)


# ------------------------------------------------------------------------------------- brute force
def brute_ge(y, w, alpha):
    p = w / w.sum()
    mu = p @ y
    r = y / mu
    if alpha == 1:
        return sum(pi * ri * np.log(ri) for pi, ri in zip(p, r) if ri > 0)
    if alpha == 0:
        return -sum(pi * np.log(ri) for pi, ri in zip(p, r))
    return sum(pi * (ri ** alpha - 1) for pi, ri in zip(p, r)) / (alpha * (alpha - 1))


def brute_gini(y, w):
    p = w / w.sum()
    return sum(p[i] * p[j] * abs(y[i] - y[j]) for i in range(len(y)) for j in range(len(y))) / (2 * (p @ y))


@pytest.mark.parametrize("name,alpha", [("theil", 1), ("mld", 0), ("ge2", 2), ("ge0.5", 0.5), ("ge-1", -1)])
def test_ge_matches_a_loop_over_groups_on_replicates(name, alpha):
    rng = np.random.default_rng(3)
    y = rng.gamma(4, 2, size=(5, 30))
    w = rng.integers(50, 5000, 30).astype(float)
    g = rng.integers(0, 4, 30)
    r = D.decompose_measure(name, y, w, g)
    for k in range(5):
        p = w / w.sum()
        mu = p @ y[k]
        within = between = 0.0
        means, shares = [], []
        for grp in range(4):
            m = g == grp
            pg, mug = p[m].sum(), (p[m] @ y[k][m]) / p[m].sum()
            within += pg * (mug / mu) ** alpha * brute_ge(y[k][m], w[m], alpha)
            means.append(mug)
            shares.append(pg)
        between = brute_ge(np.array(means), np.array(shares), alpha)
        assert r["total"][k] == pytest.approx(brute_ge(y[k], w, alpha), rel=1e-12)
        assert r["within"][k] == pytest.approx(within, rel=1e-12)
        assert r["between"][k] == pytest.approx(between, rel=1e-10, abs=1e-14)


def test_gini_sorted_formula_matches_pairs_with_ties_and_replicates():
    rng = np.random.default_rng(5)
    y = rng.integers(0, 6, size=(4, 25)).astype(float)  # many ties and zeros
    w = rng.integers(10, 900, 25).astype(float)
    g = rng.integers(0, 3, 25)
    r = D.decompose_measure("gini", y, w, g)
    p = w / w.sum()
    for k in range(4):
        assert r["total"][k] == pytest.approx(brute_gini(y[k], w), rel=1e-12)
        within = 0.0
        for grp in range(3):
            m = g == grp
            pg, share = p[m].sum(), (p[m] @ y[k][m]) / (p @ y[k])
            within += pg * share * brute_gini(y[k][m], w[m])
        assert r["within"][k] == pytest.approx(within, rel=1e-12)
        means = np.array([(p[g == j] @ y[k][g == j]) / p[g == j].sum() for j in range(3)])
        assert r["between"][k] == pytest.approx(brute_gini(means, np.array([p[g == j].sum() for j in range(3)])),
                                                rel=1e-12)


# ----------------------------------------------------------------------------------------- invariants
MEASURES = ["theil", "mld", "ge2", "ge0.5", "ge-1", "gini"]


@pytest.mark.parametrize("name", MEASURES)
def test_components_add_up_exactly_and_contributions_sum_to_within(name):
    rng = np.random.default_rng(11)
    y = rng.gamma(3, 3, size=(50, 80))
    w = rng.integers(20, 4000, 80).astype(float)
    g = rng.integers(0, 7, 80)
    r = D.decompose_measure(name, y, w, g)
    parts = r["within"] + r["between"] + (r["overlap"] if name == "gini" else 0.0)
    np.testing.assert_allclose(parts, r["total"], rtol=0, atol=1e-13)
    np.testing.assert_allclose(r["contribution"].sum(axis=-1), r["within"], rtol=0, atol=1e-14)


@pytest.mark.parametrize("name", MEASURES)
def test_one_group_gives_between_zero_and_identical_rates_give_within_zero(name):
    rng = np.random.default_rng(2)
    y = rng.gamma(3, 3, 40)
    w = rng.integers(20, 4000, 40).astype(float)
    one = D.decompose_measure(name, y, w, np.zeros(40, dtype=int))
    assert one["between"] == pytest.approx(0.0, abs=1e-15)
    assert one["within"] == pytest.approx(one["total"], abs=1e-14)
    g = np.repeat(np.arange(4), 10)
    flat = np.repeat([3.0, 5.0, 8.0, 13.0], 10)  # every unit of a group at its group's rate
    r = D.decompose_measure(name, flat, w, g)
    assert r["within"] == pytest.approx(0.0, abs=1e-15)
    assert r["between"] == pytest.approx(r["total"], abs=1e-14)
    if name == "gini":
        assert r["overlap"] == pytest.approx(0.0, abs=1e-15)


@pytest.mark.parametrize("name", MEASURES)
def test_scaling_rates_and_shuffling_units_change_nothing(name):
    rng = np.random.default_rng(8)
    y = rng.gamma(3, 3, 60)
    w = rng.integers(20, 4000, 60).astype(float)
    g = rng.integers(0, 5, 60)
    a = D.decompose_measure(name, y, w, g)
    b = D.decompose_measure(name, 1000 * y, w, g)
    perm = rng.permutation(60)
    c = D.decompose_measure(name, y[perm], w[perm], g[perm])
    for key in ("total", "within", "between"):
        assert b[key] == pytest.approx(a[key], rel=1e-12)
        assert c[key] == pytest.approx(a[key], rel=1e-12)


# --------------------------------------------------------------------------------------- zero rates
def test_zero_rate_makes_mld_undefined_not_replaced():
    y = Y.copy()
    y[4] = 0.0
    mld = D.decompose_measure("mld", y, W, G)
    assert np.isnan(mld["total"]) and np.isnan(mld["within"]) and np.isnan(mld["group_index"][1])
    assert np.isfinite(mld["group_index"][[0, 2]]).all()
    assert np.isnan(D.decompose_measure("ge-1", y, W, G)["total"])
    theil = D.decompose_measure("theil", y, W, G)  # 0 ln 0 = 0: defined
    assert theil["total"] == pytest.approx(brute_ge(y, W, 1), rel=1e-12)


# ------------------------------------------------------------------------------------------- change
@pytest.mark.parametrize("name", MEASURES)
def test_change_parts_add_up_exactly(name):
    rng = np.random.default_rng(4)
    w0, w1 = rng.integers(20, 4000, 50).astype(float), rng.integers(20, 4000, 50).astype(float)
    y0, y1 = rng.gamma(3, 3, 50), rng.gamma(3, 3, 50)
    g = rng.integers(0, 5, 50)
    a, b = D.decompose_measure(name, y0, w0, g), D.decompose_measure(name, y1, w1, g)
    parts = D.change(name, a, b)
    assert parts["total"] == pytest.approx(b["total"] - a["total"], abs=1e-15)
    rest = sum(parts[k] for k in D.CHANGE_COMPONENTS if k != "total")
    assert rest == pytest.approx(parts["total"], abs=1e-13)
    # the within parts are Mookherjee-Shorrocks's exact averages, the between parts add up to Δbetween
    assert parts["within_intensity"] + parts["within_shares"] == pytest.approx(b["within"] - a["within"], abs=1e-14)
    assert parts["between_shares"] + parts["between_means"] == pytest.approx(b["between"] - a["between"], abs=1e-14)


def test_change_with_same_births_shares_is_all_means_and_same_means_all_shares():
    rng = np.random.default_rng(6)
    w = rng.integers(20, 4000, 30).astype(float)
    g = np.repeat(np.arange(3), 10)
    y0 = rng.gamma(3, 3, 30)
    a = D.decompose_measure("theil", y0, w, g)
    b = D.decompose_measure("theil", y0 * np.repeat([1.0, 1.3, 0.8], 10), w, g)
    parts = D.change("theil", a, b)
    assert parts["between_shares"] == pytest.approx(0.0, abs=1e-15)  # P_g unchanged
    assert parts["within_intensity"] == pytest.approx(0.0, abs=1e-15)  # each group's own T unchanged (scale-free)


# ---------------------------------------------------------------------------------- the table, Panel
def w1_panel():
    # births ×1000 so that deaths = y × w are whole numbers with the W.1 rates per 1,000
    return Panel(pd.DataFrame({"unit": [f"C{i:02d}" for i in range(10)], "year": 2010, "births": (W * 1000).astype(int),
                               "deaths": np.round(Y * W).astype(int), "zone": G + 1}))


def test_table_gives_w1_rows_and_shares():
    out = decompose(w1_panel(), by="zone")
    theil = out[out["measure"] == "theil"].set_index(["component", "group"])
    assert theil.loc[("total", ""), "estimate"] == pytest.approx(0.0789399143421, abs=1e-10)
    assert theil.loc[("between", ""), "share"] == pytest.approx(0.00118528151103 / 0.0789399143421, rel=1e-9)
    groups = theil.xs("group", level="component")
    assert list(groups.index) == ["1", "2", "3"]
    assert groups["estimate"].sum() == pytest.approx(0.0777546328311, abs=1e-10)
    assert groups["group_index"].tolist() == pytest.approx([0.0137801304756, 0.1181957754017, 0.0794438790933],
                                                           abs=1e-10)
    assert groups["group_rate"].tolist() == pytest.approx([5.98775510204, 6.38115942029, 5.706], abs=1e-9)
    heat = decompose(w1_panel(), by="zone", measures="theil", scale=1000)
    assert heat.set_index("component").loc["total", "estimate"] == pytest.approx(78.9399143421, abs=1e-7)
    assert (heat["scale"] == 1000).all() and (out["scale"] == 1).all()


def test_zero_rates_in_table_are_undefined_with_a_note_or_smoothed():
    data = w1_panel().data.copy()
    data.loc[4, "deaths"] = 0
    panel = Panel(data)
    with pytest.warns(Warning, match="MLD"):
        out = decompose(panel, by="zone", measures="mld,theil")
    mld = out[(out["measure"] == "mld") & (out["component"] == "total")].iloc[0]
    assert np.isnan(mld["estimate"]) and "1" in mld["note"]
    smooth = decompose(panel, by="zone", measures="mld", smoothed=True)
    total = smooth.set_index("component").loc["total", "estimate"]
    assert np.isfinite(total) and total > 0
    assert smooth["method"].str.contains("smoothed").all()


def test_bootstrap_is_seeded_chunk_free_and_its_change_rows_add_up(monkeypatch):
    rng = np.random.default_rng(1)
    frames = []
    for year in (2001, 2011):
        births = rng.integers(200, 5000, 60)
        frames.append(pd.DataFrame({"unit": [f"U{i:02d}" for i in range(60)], "year": year, "births": births,
                                    "deaths": rng.poisson(births * 0.008), "zone": np.repeat([1, 2, 3], 20)}))
    panel = Panel(pd.concat(frames))
    a = decompose(panel, by="zone", bootstrap=300, seed=5, change=(2001, 2011), measures="theil,gini")
    b = decompose(panel, by="zone", bootstrap=300, seed=5, change=(2001, 2011), measures="theil,gini")
    pd.testing.assert_frame_equal(a, b)
    import brecha.inequality.decompose_table as T

    monkeypatch.setattr(T, "CHUNK_CELLS", 7 * 60)  # blocks of 7 replicates
    c = decompose(panel, by="zone", bootstrap=300, seed=5, change=(2001, 2011), measures="theil,gini")
    pd.testing.assert_frame_equal(a, c)
    d = decompose(panel, by="zone", bootstrap=300, seed=6, change=(2001, 2011), measures="theil,gini")
    assert not np.allclose(a["lower"].to_numpy(dtype=float), d["lower"].to_numpy(dtype=float), equal_nan=True)
    rows = a[a["period"] == "2001-2011"]
    for measure, block in rows.groupby("measure"):
        block = block.set_index("component")["estimate"]
        assert block.drop("change_total").sum() == pytest.approx(block["change_total"], abs=1e-14)
    finite = a[a["component"].isin(["total", "within", "between"])]
    assert (finite["lower"] <= finite["upper"]).all() and (finite["se"] > 0).all()


def test_units_left_out_are_counted_and_named():
    data = w1_panel().data.copy()
    data["zone"] = data["zone"].astype(float)
    data.loc[2, "zone"] = np.nan
    with pytest.warns(Warning, match="C02"):
        out = decompose(Panel(data), by="zone", measures="theil")
    assert (out["n_units"] == 9).all() and (out["n_excluded"] == 1).all()


def test_region_grouping_on_chile_matches_a_direct_computation():
    pytest.importorskip("brecha.datasets")
    from brecha.datasets import example

    panel = example("chile")
    out = decompose(panel, by="region", years=[2011], measures="theil")
    ev = panel.events(years=[2011])
    ev = ev[ev["births"].astype(float) > 0]
    region = ev["unit"].map(panel.units.set_index("unit")["region"])
    y = ev["events"].astype(float).to_numpy() / ev["births"].astype(float).to_numpy()
    w = ev["births"].astype(float).to_numpy()
    codes = pd.factorize(region, sort=True)[0]
    direct = D.decompose_measure("theil", y, w, codes)
    t = out[out["component"] != "group"].set_index("component")["estimate"]
    assert t["total"] == pytest.approx(brute_ge(y, w, 1), rel=1e-12)
    assert t["between"] == pytest.approx(direct["between"], rel=1e-12)
    assert len(out[out["component"] == "group"]) == 16
    assert out["group"].str.contains("Araucanía").any()


def test_unknown_measure_and_grouping_are_input_errors():
    from brecha.errors import InputError

    with pytest.raises(InputError, match="theil, mld"):
        decompose(w1_panel(), by="zone", measures="atkinson")
    with pytest.raises(InputError, match="nowhere"):
        decompose(w1_panel(), by="nowhere")
    with pytest.raises(InputError, match="--pool|pool"):
        decompose(w1_panel(), by="zone", pool=True, change=(2001, 2011))


def test_every_pair_of_groups_changes_only_between():
    # moving one whole group's rate changes between, never within (within of scale-free GE is per group)
    w = np.array([100.0, 200, 300, 400, 500, 600])
    g = np.array([0, 0, 1, 1, 2, 2])
    y = np.array([1.0, 2, 3, 4, 5, 6])
    base = D.decompose_measure("theil", y, w, g)
    for j, factor in itertools.product(range(3), (0.5, 2.0)):
        moved = y * np.where(g == j, factor, 1.0)
        r = D.decompose_measure("theil", moved, w, g)
        np.testing.assert_allclose(r["group_index"], base["group_index"], rtol=1e-12)
