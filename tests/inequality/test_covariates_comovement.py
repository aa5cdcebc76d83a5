"""Covariate inequality and the co-movement of two inequality series."""
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from brecha.errors import BrechaWarning, InputError
from brecha.inequality import comovement, covariate_inequality, inequality
from brecha.panel import Panel


def make_panel(n=50, years=range(2006, 2016), seed=4):
    rng = np.random.default_rng(seed)
    units = [f"C{i:03d}" for i in range(n)]
    frames = []
    for k, y in enumerate(years):
        births = rng.integers(100, 3000, n)
        income = rng.lognormal(3 + 0.02 * k, 0.3 + 0.03 * k, n)
        frames.append(pd.DataFrame({"unit": units, "year": y, "births": births,
                                    "deaths": rng.poisson(births * 0.008), "income": income,
                                    "population": births * 60.0}))
    return Panel(pd.concat(frames, ignore_index=True))


PANEL = make_panel()


def test_unweighted_and_weighted_covariate_measures_by_hand():
    d = PANEL.data[PANEL.data.year == 2010]
    x = d["income"].to_numpy()
    out = covariate_inequality(PANEL, "income", years=[2010], measures="mean,cov,gini").set_index("measure")
    assert out.loc["mean", "estimate"] == pytest.approx(x.mean())
    assert out.loc["cov", "estimate"] == pytest.approx(100 * x.std() / x.mean())  # population SD, equal weights
    g = np.abs(x[:, None] - x[None, :]).mean() / (2 * x.mean())
    assert out.loc["gini", "estimate"] == pytest.approx(g)
    w = d["population"].to_numpy()
    wout = covariate_inequality(PANEL, "income", weight="population", years=[2010], measures="mean")
    assert wout["estimate"].iloc[0] == pytest.approx(np.average(x, weights=w))
    assert (wout["weight"] == "population").all() and (wout["outcome"] == "income").all()
    assert wout["lower"].isna().all()


def test_covariate_errors_are_explained():
    with pytest.raises(InputError, match="income_pc"):
        covariate_inequality(PANEL, "income_pc")
    with pytest.raises(InputError, match="sii"):
        covariate_inequality(PANEL, "income", measures="sii")


def test_comovement_matches_scipy():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BrechaWarning)
        imr = inequality(PANEL, measures="gini,cov")
    inc = covariate_inequality(PANEL, "income", measures="gini")
    out = comovement(imr, inc)
    assert len(out) == 4  # 2 x 1 measures x 2 methods
    a = imr[imr.measure == "gini"]["estimate"].to_numpy()
    b = inc["estimate"].to_numpy()
    row = out[(out.measure_a == "gini") & (out.method == "pearson")].iloc[0]
    ref = stats.pearsonr(a, b)
    ci = ref.confidence_interval(0.95)  # Fisher z
    assert row.estimate == pytest.approx(ref.statistic)
    assert row.p_value == pytest.approx(ref.pvalue)
    assert (row.lower, row.upper) == pytest.approx((ci.low, ci.high))
    assert row.n_years == 10
    sp = out[(out.measure_a == "gini") & (out.method == "spearman")].iloc[0]
    ref = stats.spearmanr(a, b)
    assert sp.estimate == pytest.approx(ref.statistic)
    assert sp.p_value == pytest.approx(ref.pvalue)
    z = np.arctanh(ref.statistic)
    half = stats.norm.ppf(0.975) * np.sqrt(1.06 / 7)
    assert (sp.lower, sp.upper) == pytest.approx((np.tanh(z - half), np.tanh(z + half)))


def test_comovement_with_series_and_perfect_correlation():
    s1 = pd.Series([1.0, 2.0, 3.0, 4.0, 5.0], index=["2001", "2002", "2003", "2004", "2005"], name="a")
    s2 = pd.Series([2.0, 4.0, 6.0, 8.0, 11.0, 99.0], index=["2001", "2002", "2003", "2004", "2005", "2006"],
                   name="b")
    out = comovement(s1, s2).set_index("method")
    assert out.loc["spearman", "estimate"] == pytest.approx(1.0)
    assert out.loc["pearson", "n_years"] == 5
    assert out.loc["pearson", "periods"] == "2001,2002,2003,2004,2005"


def test_covariate_years_without_values_give_one_warning_and_pairs_same():
    from brecha.i18n import get_language, set_language

    d = PANEL.data.copy()
    d.loc[d.year.isin([2006, 2007]), "income"] = np.nan
    before = get_language()
    set_language("en")
    try:
        with pytest.warns(BrechaWarning, match="'income' has no values .*in: 2006, 2007"):
            out = covariate_inequality(Panel(d), "income", measures="gini,cov")
    finally:
        set_language(before)
    assert sorted(out["period"].unique())[0] == "2008"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BrechaWarning)
        imr = inequality(PANEL, measures="gini,cov")
    same = comovement(imr, out, pairs="same")
    assert set(zip(same.measure_a, same.measure_b)) == {("gini", "gini"), ("cov", "cov")}
    assert (same["n_years"] == 8).all()
    with pytest.raises(InputError):
        comovement(imr, out, pairs="some")
