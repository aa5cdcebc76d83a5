"""inequality() on a Panel: units, quantile groups, pooling, references, bootstrap."""
import warnings

import numpy as np
import pandas as pd
import pytest

from brecha.errors import BrechaWarning, InputError
from brecha.inequality import inequality, summary_measures
from brecha.inequality import ordered as O
from brecha.panel import Panel


def make_panel(n=60, years=(2010, 2011, 2012), seed=3):
    rng = np.random.default_rng(seed)
    units = [f"U{i:03d}" for i in range(n)]
    poverty = rng.uniform(2, 40, n)
    frames = []
    for y in years:
        births = rng.integers(80, 4000, n)
        deaths = rng.poisson(births * (0.004 + 0.0003 * poverty))
        frames.append(pd.DataFrame({"unit": units, "year": y, "births": births, "deaths": deaths,
                                    "poverty": poverty + rng.normal(0, 0.5, n)}))
    return Panel(pd.concat(frames, ignore_index=True))


PANEL = make_panel()


def quiet(**kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BrechaWarning)
        return inequality(PANEL, **kw)


def test_result_columns_contract():
    out = quiet(measures="d,gini")
    assert list(out.columns[:8]) == ["period", "outcome", "measure", "estimate", "lower", "upper", "se", "method"]
    for col in ("n_units", "rank_by", "groups", "bootstrap", "seed", "ci_method", "conf_level"):
        assert col in out.columns
    assert out["period"].tolist() == ["2010", "2010", "2011", "2011", "2012", "2012"]
    assert (out["outcome"] == "infant").all()


def test_units_as_subgroups_equal_array_level_on_hand_computed_rates():
    out = quiet(years=[2011], measures="all").set_index("measure")
    d = PANEL.data[PANEL.data.year == 2011]
    rate = d["deaths"].astype(float).to_numpy() / d["births"].astype(float).to_numpy() * 1000
    se = np.sqrt(d["deaths"].astype(float).to_numpy()) / d["births"].astype(float).to_numpy() * 1000
    # counts: the sampling variance of the noise-corrected measures is Poisson, 1000 x rate / births
    ref = summary_measures(rate, d["births"].astype(float), se=se, noise="poisson").set_index("measure")
    pd.testing.assert_series_equal(out.loc[ref.index, "estimate"], ref["estimate"], check_names=False)
    pd.testing.assert_series_equal(out.loc[ref.index, "se"], ref["se"], check_names=False)
    assert out.loc["mean", "estimate"] == pytest.approx(d.deaths.sum() / d.births.sum() * 1000)


def test_ordered_measures_skipped_without_rank_by_and_said():
    with pytest.warns(BrechaWarning, match="sii"):
        out = inequality(PANEL, years=[2010], measures="sii,d")
    assert out["measure"].tolist() == ["d"]
    assert "sii" in out.attrs["skipped"]


def test_quintile_groups_sum_counts_within_group():
    out = quiet(years=[2010], rank_by="poverty", advantaged="low", groups=5, measures="d,sii,mean")
    d = PANEL.data[PANEL.data.year == 2010].copy()
    g = O.ridit(d["births"].astype(float).to_numpy(), -d["poverty"].to_numpy())
    d["group"] = np.minimum(5, np.floor(g * 5).astype(int) + 1)  # equal-births quintiles, most deprived = 1
    agg = d.groupby("group")[["deaths", "births"]].sum().astype(float)
    rate = (agg.deaths / agg.births * 1000).to_numpy()
    ref = summary_measures(rate, agg.births.to_numpy(), order=agg.index.to_numpy(), measures="d,sii")
    t = out.set_index("measure")
    assert t.loc["d", "estimate"] == pytest.approx(rate[0] - rate[-1])  # adverse: most deprived - least
    assert t.loc["sii", "estimate"] == pytest.approx(ref.set_index("measure").loc["sii", "estimate"])
    assert t.loc["sii", "estimate"] < 0  # deaths concentrated among the poor: negative for an adverse indicator
    assert (out["n_groups"] == 5).all() and (out["groups"] == 5).all()


def test_pooled_period_sums_counts():
    out = quiet(pool=True, measures="mean")
    d = PANEL.data
    assert out["period"].tolist() == ["2010-2012"]
    assert out["estimate"].iloc[0] == pytest.approx(d.deaths.sum() / d.births.sum() * 1000)


def test_par_with_a_chosen_reference_has_the_paho_sign():
    out = quiet(years=[2012], measures="par,paf", reference="U007").set_index("measure")
    d = PANEL.data[PANEL.data.year == 2012]
    mean = d.deaths.sum() / d.births.sum() * 1000
    ref = d[d.unit == "U007"]
    yref = float(ref.deaths.iloc[0]) / float(ref.births.iloc[0]) * 1000
    assert out.loc["par", "estimate"] == pytest.approx(mean - yref)  # PAHO: mean - reference
    assert out.loc["paf", "estimate"] == pytest.approx(100 * (mean - yref) / mean)


@pytest.fixture
def english():
    from brecha.i18n import get_language, set_language

    before = get_language()
    set_language("en")
    yield
    set_language(before)


def test_unknown_reference_and_covariate_are_explained(english):
    with pytest.raises(InputError, match="reference 'NOPE' is not among the units of period 2010"):
        quiet(years=[2010], reference="NOPE", measures="par")
    with pytest.raises(InputError, match="covariate 'income' is not in the panel.*available covariates: poverty"):
        quiet(rank_by="income")
    with pytest.raises(InputError, match="groups are formed by ranking on a covariate"):
        quiet(groups=5)


def test_bootstrap_is_deterministic_with_a_seed_and_reported():
    a = quiet(years=[2010, 2011], rank_by="poverty", measures="all", bootstrap=200, seed=11)
    b = quiet(years=[2010, 2011], rank_by="poverty", measures="all", bootstrap=200, seed=11)
    c = quiet(years=[2010, 2011], rank_by="poverty", measures="all", bootstrap=200, seed=12)
    pd.testing.assert_frame_equal(a, b)
    assert not np.allclose(a["lower"].fillna(0), c["lower"].fillna(0))
    assert (a["bootstrap"] == 200).all() and (a["seed"] == 11).all()
    assert a["ci_method"].str.contains("bootstrap percentile").all()
    # a period's replicates do not depend on which other years are analysed
    one = quiet(years=[2011], rank_by="poverty", measures="all", bootstrap=200, seed=11)
    pd.testing.assert_frame_equal(one.reset_index(drop=True),
                                  a[a.period == "2011"].reset_index(drop=True))


def test_bootstrap_se_agrees_with_analytic_se_for_smooth_measures():
    kw = dict(years=[2010], rank_by="poverty", groups=5, measures="mean,aci,sii,par")
    analytic = quiet(**kw).set_index("measure")
    boot = quiet(bootstrap=2000, seed=5, **kw).set_index("measure")
    for name in ("mean", "sii"):
        assert boot.loc[name, "se"] == pytest.approx(analytic.loc[name, "se"], rel=0.15)


def test_vectorised_logit_fit_agrees_with_one_glm_per_replicate():
    sm = pytest.importorskip("statsmodels.api")
    rng = np.random.default_rng(0)
    births = rng.integers(50, 3000, 40).astype(float)
    rank = O.ridit(births, np.arange(40))
    deaths = rng.poisson(births[None, :] * 0.01 * (1.5 - rank), size=(6, 40))
    b0, b1, ok = O.logistic_rank_fit(deaths / births, births, rank)
    assert ok.all()
    for i in range(6):
        fit = sm.GLM(deaths[i] / births, sm.add_constant(rank), family=sm.families.Binomial(),
                     var_weights=births).fit()
        np.testing.assert_allclose([b0[i], b1[i]], fit.params, rtol=1e-7)


def test_concentration_curve_data_for_plotting():
    from brecha.inequality import concentration_curve

    curve = concentration_curve([5.0, 10.0, 15.0], [100, 100, 200], [3, 1, 2])
    assert curve["population_share"].tolist() == pytest.approx([0, 0.25, 0.75, 1.0])
    events = np.array([1.0, 3.0, 0.5])  # ranks 1, 2, 3: rate 10 x 100, 15 x 200, 5 x 100 births
    assert curve["events_share"].tolist() == pytest.approx([0, *np.cumsum(events) / events.sum()])


def test_basic_bootstrap_interval_reflects_the_percentile_one_around_the_estimate():
    kw = dict(years=[2010], measures="gini,bgv,mean", bootstrap=300, seed=2)
    pct = quiet(**kw).set_index("measure")
    basic = quiet(bootstrap_ci="basic", **kw).set_index("measure")
    for name in ("gini", "bgv", "mean"):
        est = pct.loc[name, "estimate"]
        assert basic.loc[name, "lower"] == pytest.approx(2 * est - pct.loc[name, "upper"])
        assert basic.loc[name, "upper"] == pytest.approx(2 * est - pct.loc[name, "lower"])
    assert basic["ci_method"].str.contains("bootstrap basic").all()
    # noise inflates the dispersion of small-unit rates and the bootstrap adds it again: said in a note
    # (here, as on real communes, the whole percentile interval of BGV lies above the estimate)
    assert pct.loc["bgv", "lower"] > pct.loc["bgv", "estimate"]
    assert "bootstrap" in pct.loc["bgv", "note"] and "bgv_true" in pct.loc["bgv", "note"]
    assert pct.loc["mean", "note"] == ""


def test_binomial_draws_and_confidence_level():
    kw = dict(years=[2010], rank_by="poverty", groups=5, measures="mean,sii")
    pois = quiet(bootstrap=1000, seed=3, **kw).set_index("measure")
    binom = quiet(bootstrap=1000, seed=3, draws="binomial", **kw).set_index("measure")
    assert binom["ci_method"].str.contains("binomial").all()
    # with risks near 1 %, binomial and Poisson draws give nearly the same spread
    assert binom.loc["mean", "se"] == pytest.approx(pois.loc["mean", "se"], rel=0.15)
    a95 = quiet(**kw).set_index("measure")
    a90 = quiet(conf_level=0.90, **kw).set_index("measure")
    w95 = a95.loc["sii", "upper"] - a95.loc["sii", "lower"]
    w90 = a90.loc["sii", "upper"] - a90.loc["sii", "lower"]
    assert w90 / w95 == pytest.approx(1.6448536 / 1.9599640, rel=1e-6)
    assert (a90["conf_level"] == 0.90).all()


def test_group_reference_number():
    out = quiet(years=[2010], rank_by="poverty", advantaged="low", groups=5, measures="par", reference=5)
    d = PANEL.data[PANEL.data.year == 2010].copy()
    g = O.ridit(d["births"].astype(float).to_numpy(), -d["poverty"].to_numpy())
    top = d[np.floor(g * 5) + 1 >= 5]
    mean = d.deaths.sum() / d.births.sum() * 1000
    assert out["estimate"].iloc[0] == pytest.approx(mean - top.deaths.sum() / top.births.sum() * 1000)
    with pytest.raises(InputError):
        quiet(years=[2010], rank_by="poverty", groups=5, measures="par", reference=9)


def test_direction_defaults_to_low_for_poverty_like_covariates():
    from brecha.inequality.api import default_advantaged

    auto = quiet(years=[2010], rank_by="poverty", measures="sii,d")
    explicit = quiet(years=[2010], rank_by="poverty", advantaged="low", measures="sii,d")
    pd.testing.assert_frame_equal(auto, explicit)
    assert (auto["advantaged"] == "low").all()
    assert default_advantaged("health_spending_pc") == "high"
    assert default_advantaged("distance_hospital_km") == "low"
    assert default_advantaged("Pobreza_multidimensional") == "low"


def test_concentration_curve_area_gives_the_relative_concentration_index():
    from brecha.inequality import concentration_curve

    rng = np.random.default_rng(8)
    rates, births, rank = rng.gamma(5, 2, 30), rng.integers(100, 5000, 30).astype(float), rng.permutation(30)
    curve = concentration_curve(rates, births, rank)
    x, y = curve["population_share"].to_numpy(), curve["events_share"].to_numpy()
    area = np.sum((x[1:] - x[:-1]) * (y[1:] + y[:-1]) / 2)
    rci = summary_measures(rates, births, order=rank, measures="rci")["estimate"].iloc[0]
    assert 1 - 2 * area == pytest.approx(rci, rel=1e-10)


def test_years_without_the_ranking_covariate_are_skipped_with_one_warning(english):
    d = PANEL.data.copy()
    d.loc[d.year == 2010, "poverty"] = np.nan
    panel = Panel(d)
    with pytest.warns(BrechaWarning, match="'poverty' has no values in: 2010; those periods are skipped"):
        out = inequality(panel, rank_by="poverty", measures="sii")
    assert out["period"].tolist() == ["2011", "2012"]


def test_method_ci_method_label_and_notes_follow_the_language():
    from brecha.i18n import get_language, set_language

    before = get_language()
    try:
        set_language("es")
        es = quiet(years=[2010], measures="gini,d_p80p20", bootstrap=50, seed=1).set_index("measure")
        es_analytic = quiet(years=[2010], measures="gini,d_p80p20").set_index("measure")
        set_language("en")
        en = quiet(years=[2010], measures="gini,d_p80p20", bootstrap=50, seed=1).set_index("measure")
        en_analytic = quiet(years=[2010], measures="gini,d_p80p20").set_index("measure")
    finally:
        set_language(before)
    assert es.loc["gini", "method"] == "coeficiente de Gini ponderado por población"
    assert en.loc["gini", "method"] == "population-weighted Gini coefficient"
    assert es.loc["gini", "label"] == "Gini ponderado" and en.loc["gini", "label"] == "Weighted Gini"
    assert "50 réplicas, semilla 1" in es.loc["gini", "ci_method"]
    assert "50 replicates, seed 1" in en.loc["gini", "ci_method"]
    assert "use el bootstrap" in es_analytic.loc["d_p80p20", "ci_method"]
    assert "use the bootstrap" in en_analytic.loc["d_p80p20", "ci_method"]
    pd.testing.assert_series_equal(es["estimate"], en["estimate"])
