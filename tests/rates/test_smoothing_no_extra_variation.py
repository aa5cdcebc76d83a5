"""Empirical Bayes when Marshall's between-unit variance A is <= 0 (Chile's communes in 2011): Marshall's
estimate (the prior mean) without its zero-width interval; the interval is the hull of the prior mean and the
unit's exact Poisson (Garwood) interval, with a flag, a `method` naming the rule and a bilingual warning."""
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from brecha import datasets
from brecha.errors import BrechaWarning
from brecha.i18n import get_language, set_language
from brecha.smoothing import marshall_prior, smooth


def events(deaths, births, year=2012):
    return pd.DataFrame({"unit": [f"U{i:02d}" for i in range(len(deaths))], "year": year,
                         "events": deaths, "births": births})


def test_worked_example_spans_the_mean_and_the_garwood_interval_of_each_unit():
    """Rates 5, 8, 10 per 1,000 with 400-1,000 births: A < 0 computed by hand, m = 17/2,025, then the Garwood
    limits (chi-square form, Garwood 1936): lower = chi2(0.025; 2D)/2, upper = chi2(0.975; 2D + 2)/2, per
    births; the interval is [min(m, lower), max(m, upper)] and the estimate m."""
    deaths, births = [2, 5, 10], [400, 625, 1000]
    m = sum(deaths) / sum(births)
    s2 = sum(n * (d / n - m) ** 2 for d, n in zip(deaths, births)) / sum(births)
    a = s2 - m / (sum(births) / 3)
    assert a < 0                                     # no variation beyond Poisson noise
    _, a_trunc, a_raw, _ = marshall_prior(np.array(deaths, float), np.array(births, float))
    assert a_raw[0] == pytest.approx(a, rel=1e-12) and a_trunc[0] == 0
    with pytest.warns(BrechaWarning) as caught:
        t = smooth(events(deaths, births))
    for d, n, (_, row) in zip(deaths, births, t.iterrows()):
        own_lower = 1000 * stats.chi2.ppf(0.025, 2 * d) / 2 / n
        own_upper = 1000 * stats.chi2.ppf(0.975, 2 * d + 2) / 2 / n
        assert row["estimate"] == pytest.approx(1000 * m, rel=1e-12)
        assert row["lower"] == pytest.approx(min(1000 * m, own_lower), rel=1e-9)
        assert row["upper"] == pytest.approx(max(1000 * m, own_upper), rel=1e-9)
        assert row["shrinkage"] == 1 and row["flag"] == "no_extra_variation"
        assert row["method"].startswith("prior mean; interval: hull of the prior mean and the exact Poisson")
    # m = 8.395 per 1,000; D = 10, LB = 1000: Garwood 4.795 to 18.39 per 1,000, which holds m
    assert (round(t["lower"].iloc[2], 3), round(t["upper"].iloc[2], 2)) == (4.795, 18.39)
    # D = 2, LB = 400: Garwood 0.606 to 18.06, which holds m as well
    assert (round(t["lower"].iloc[0], 3), round(t["upper"].iloc[0], 2)) == (0.606, 18.06)
    # the value in the message's language's decimal convention (Spanish: comma)
    from brecha.i18n import get_language

    shown = f"{a * 1e6:.3g}"
    assert (shown.replace(".", ",") if get_language() == "es" else shown) in str(caught[0].message)


@pytest.mark.parametrize("lang,words", [("en", ["Empirical Bayes, 2011", "pretending a certainty",
                                                 "pool years (--pool)"]),
                                        ("es", ["Bayes empírico, 2011", "aparentando una certeza",
                                                "agrupe años (--pool)"])])
def test_chile_2011_warns_and_no_interval_has_zero_width(lang, words):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        panel = datasets.chile()
    before = get_language()
    set_language(lang)
    try:
        with pytest.warns(BrechaWarning) as caught:
            t = smooth(panel, years=[2011])
    finally:
        set_language(before)
    text = " ".join(str(w.message) for w in caught)
    assert all(w in text for w in words)
    assert len(t) == 346 and (t["flag"].str.contains("no_extra_variation")).all()
    has_births = pd.to_numeric(t["births"]) > 0
    assert has_births.sum() == 344
    width = t.loc[has_births, "upper"] - t.loc[has_births, "lower"]
    assert (width > 0).all()
    # the two communes without births get no interval (nothing to base it on), and say so
    assert t.loc[~has_births, "flag"].eq("zero_births;no_extra_variation").all()
    assert t.loc[~has_births, ["lower", "upper"]].isna().all().all()
    # estimates are Marshall's (the national mean), and every interval holds both the mean and the commune's
    # own rate
    np.testing.assert_allclose(t["estimate"], t["prior_mean"], rtol=1e-12)
    inside = t.loc[has_births]
    assert ((inside["lower"] <= inside["estimate"]) & (inside["estimate"] <= inside["upper"])).all()
    assert ((inside["lower"] <= inside["raw_rate"]) & (inside["raw_rate"] <= inside["upper"])).all()


def test_years_with_positive_a_are_smoothed_as_before():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        panel = datasets.chile()
    with warnings.catch_warnings():
        warnings.simplefilter("error", BrechaWarning)
        t = smooth(panel, years=[2012])
    assert not t["flag"].str.contains("no_extra_variation").any()
    assert (t["shrinkage"] > 0).all()
