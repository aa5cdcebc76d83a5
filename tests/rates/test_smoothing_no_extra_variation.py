"""Empirical Bayes when Marshall's between-unit variance A is <= 0 (Chile's communes in 2011): no shrinkage
to a point with zero-width intervals; each unit's own rate and exact Poisson (Garwood) interval, a flag, a
`method` naming the rule and a bilingual warning."""
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


def test_worked_example_gives_the_garwood_interval_of_each_unit():
    """Rates 5, 8, 10 per 1,000 with 400-1,000 births: A < 0 computed by hand, then the Garwood limits
    (chi-square form, Garwood 1936): lower = chi2(0.025; 2D)/2, upper = chi2(0.975; 2D + 2)/2, per births."""
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
        assert row["estimate"] == pytest.approx(1000 * d / n, rel=1e-12)
        assert row["lower"] == pytest.approx(1000 * stats.chi2.ppf(0.025, 2 * d) / 2 / n, rel=1e-9)
        assert row["upper"] == pytest.approx(1000 * stats.chi2.ppf(0.975, 2 * d + 2) / 2 / n, rel=1e-9)
        assert row["shrinkage"] == 0 and row["flag"] == "no_extra_variation"
        assert row["method"].startswith("own rate, exact Poisson interval")
    # D = 10, LB = 1000: 4.795 to 18.39 per 1,000
    assert (round(t["lower"].iloc[2], 3), round(t["upper"].iloc[2], 2)) == (4.795, 18.39)
    assert f"{a * 1e6:.3g}" in str(caught[0].message)


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
    # estimates are the communes' own rates: they are not all the national mean
    np.testing.assert_allclose(t.loc[has_births, "estimate"], t.loc[has_births, "raw_rate"], rtol=1e-12)


def test_years_with_positive_a_are_smoothed_as_before():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        panel = datasets.chile()
    with warnings.catch_warnings():
        warnings.simplefilter("error", BrechaWarning)
        t = smooth(panel, years=[2012])
    assert not t["flag"].str.contains("no_extra_variation").any()
    assert (t["shrinkage"] > 0).all()
