"""Rates and their CIs against REFERENCE.md C.5 (epitools), C.6 (epiR) and C.7 (PHEindicatormethods).

Independent references: the values printed by the R packages (REFERENCE.md, [run]) and, for the binomial
intervals, statsmodels' ``proportion_confint`` (a separate implementation).
"""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from brecha.errors import InputError
from brecha.panel import Panel
from brecha.rates import rate_interval, rates


def close(actual, expected, rel=1e-6, abs_=0.0):
    assert actual == pytest.approx(expected, rel=rel, abs=abs_)


# --------------------------------------------------------------------------- C.5 epitools pois.exact / pois.byar
@pytest.mark.parametrize("events, births, est, lower, upper", [
    (41, 28010, 1.4637629e-3, 1.0504216e-3, 1.985760e-3),
    (15, 19017, 7.887679e-4, 4.414674e-4, 1.300953e-3),
    (0, 1000, 0.0, 0.0, 3.68888e-3),
    (3, 1000, 3e-3, 6.186712e-4, 8.767277e-3),
])
def test_exact_poisson_matches_epitools_pois_exact(events, births, est, lower, upper):
    # epitools finds the limits with uniroot (tolerance ~1e-4 on the count); for 3/1000 its lower limit
    # 6.186712e-4 is 1.5e-6 (relative) from the exact chi-square quantile 6.1867212e-4 (P(X >= 3) = 0.025
    # to 1e-16 at our value, 0.0249999 at epitools'), hence rel = 5e-6.
    e, lo, up = rate_interval([events], [births], "exact", per=1)
    close(e[0], est, rel=1e-6)
    close(lo[0], lower, rel=5e-6)
    close(up[0], upper, rel=5e-6)


def test_epitools_byar_variant_upper_limits_and_clipped_negative_lower():
    # pois.byar (x + 0.5): 41/28010 -> 1.065429e-3 - 1.965247e-3
    _, lo, up = rate_interval([41], [28010], "byar-epitools", per=1)
    close(lo[0], 1.065429e-3, rel=1e-6)
    close(up[0], 1.965247e-3, rel=1e-6)
    # 0/1000 -> -1.56e-6 - 2.463936e-3 in epitools; we clip the negative lower limit to 0 and flag it
    table = rates(pd.DataFrame({"unit": ["A"], "year": [2010], "events": [0], "births": [1000]}),
                  ci="byar-epitools", per=1)
    assert table["lower"].iloc[0] == 0.0
    close(table["upper"].iloc[0], 2.463936e-3, rel=1e-6)
    assert table["flag"].iloc[0] == "lower_clipped"


# --------------------------------------------------------------------------- C.6 reference district 30/6000
def test_reference_district_exact_phe_byar_and_epitools_byar():
    _, lo, up = rate_interval([30], [6000], "exact")
    close(lo[0], 3.3735, abs_=5e-5)
    close(up[0], 7.1378, abs_=5e-5)
    _, lo, up = rate_interval([30], [6000], "byar")
    close(lo[0], 3.3728, abs_=5e-5)
    close(up[0], 7.1381, abs_=5e-5)
    _, lo, up = rate_interval([30], [6000], "byar-epitools")
    close(lo[0], 3.4413, abs_=5e-5)
    close(up[0], 7.0400, abs_=5e-5)


@pytest.mark.parametrize("events, births, est, lower, upper", [
    (2500, 200000, 12.50, 12.02, 13.00),   # risk, non-reference
    (30, 6000, 5.00, 3.38, 7.13),          # risk, reference
    (2530, 206000, 12.28, 11.81, 12.77),   # risk, total
])
def test_clopper_pearson_risks_match_epir(events, births, est, lower, upper):
    e, lo, up = rate_interval([events], [births], "clopper-pearson")
    close(e[0], est, abs_=5e-3)
    close(lo[0], lower, abs_=5e-3)
    close(up[0], upper, abs_=5e-3)


# --------------------------------------------------------------------------- C.7 PHEindicatormethods testdata_Rate
PHE = [  # area, numerator, denominator, rate, lower, upper, PHE's method
    ("Area1", 1, 100, 1.0, 0.025318, 5.571643, "exact"),
    ("Area2", 5, 100, 5.0, 1.623486, 11.668332, "exact"),
    ("Area3", 20, 100, 20.0, 12.211429, 30.889880, "byar"),
    ("Area4", 65, 100, 65.0, 50.163188, 82.849139, "byar"),
    ("Area5", 9856, 12345, 79.837991, 78.269491, 81.430017, "byar"),
    ("Area7", 222, 3215, 6.905132, 6.026575, 7.875729, "byar"),
    ("Area8", 999, 3456, 28.906250, 27.141305, 30.755833, "byar"),
]


@pytest.mark.parametrize("area, num, den, rate, lower, upper, method", PHE)
def test_phe_rate_table(area, num, den, rate, lower, upper, method):
    e, lo, up = rate_interval([num], [den], method, per=100)
    close(e[0], rate, abs_=1e-6)
    close(lo[0], lower, abs_=1e-6)
    close(up[0], upper, abs_=1e-6)


def test_phe_rule_picks_exact_below_ten_and_byar_above_and_names_it():
    ev = pd.DataFrame({"unit": [a for a, *_ in PHE], "year": 2020, "events": [n for _, n, *_ in PHE],
                       "births": [d for _, _, d, *_ in PHE]})
    table = rates(ev, ci="phe", per=100)
    assert table["method"].tolist() == [f"phe:{m}" for *_, m in PHE]
    np.testing.assert_allclose(table["lower"], [r[4] for r in PHE], atol=1e-6)
    np.testing.assert_allclose(table["upper"], [r[5] for r in PHE], atol=1e-6)


def test_exact_at_998_percent_matches_phe_area1():
    _, lo, up = rate_interval([1], [100], "exact", conf_level=0.998, per=100)
    close(lo[0], 0.001001, abs_=1e-6)
    close(up[0], 9.233413, abs_=1e-6)


# --------------------------------------------------------------------------- binomial, against statsmodels
@pytest.mark.parametrize("method, sm_method", [("wilson", "wilson"), ("clopper-pearson", "beta")])
def test_binomial_intervals_match_statsmodels(method, sm_method):
    from statsmodels.stats.proportion import proportion_confint

    events = np.array([0, 1, 7, 30, 250, 1000])
    births = np.array([120, 300, 800, 6000, 20000, 1000])
    _, lo, up = rate_interval(events, births, method, conf_level=0.9, per=1)
    ref_lo, ref_up = proportion_confint(events, births, alpha=0.1, method=sm_method)
    np.testing.assert_allclose(lo, ref_lo, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(up, ref_up, rtol=1e-9, atol=1e-12)


# --------------------------------------------------------------------------- edge cases
ALL_METHODS = ["exact", "byar", "byar-epitools", "phe", "wilson", "clopper-pearson"]


@pytest.mark.parametrize("method", ALL_METHODS)
def test_zero_deaths_lower_is_zero_never_negative(method):
    _, lo, up = rate_interval([0, 0, 0], [10, 500, 100000], method)
    assert (lo == 0).all()
    assert (up > 0).all()


@pytest.mark.parametrize("method", ALL_METHODS)
def test_zero_births_is_nan_and_flagged_without_warnings(method):
    ev = pd.DataFrame({"unit": ["A", "B"], "year": [2010, 2010], "events": [0, 3], "births": [0, 0]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        table = rates(ev, ci=method)
    assert table[["estimate", "lower", "upper"]].isna().all().all()
    assert (table["flag"] == "zero_births").all()


@pytest.mark.parametrize("method", ALL_METHODS)
def test_scaling_births_and_deaths_together_leaves_the_rate_unchanged(method):
    e1, *_ = rate_interval([3, 40, 77], [700, 5000, 9000], method)
    e2, *_ = rate_interval([30, 400, 770], [7000, 50000, 90000], method)
    np.testing.assert_allclose(e1, e2, rtol=1e-12)


@pytest.mark.parametrize("method", ALL_METHODS)
def test_limits_bracket_the_estimate_and_shrink_with_more_births(method):
    _, lo1, up1 = rate_interval([20], [2000], method)
    _, lo2, up2 = rate_interval([200], [20000], method)
    assert lo1[0] < 10 < up1[0]
    assert up2[0] - lo2[0] < up1[0] - lo1[0]


def test_binomial_limits_undefined_when_deaths_exceed_births():
    ev = pd.DataFrame({"unit": ["A"], "year": [2010], "events": [3], "births": [2]})
    t = rates(ev, ci="wilson")
    assert np.isnan(t["lower"].iloc[0]) and t["estimate"].iloc[0] == 1500.0
    assert t["flag"].iloc[0] == "events_exceed_births"
    t = rates(ev, ci="exact")
    assert t["lower"].iloc[0] > 0 and t["flag"].iloc[0] == "events_exceed_births"


def test_bad_method_and_bad_confidence_level_messages():
    with pytest.raises(InputError, match="unknown interval method 'byer'|método de intervalo 'byer'"):
        rate_interval([1], [10], "byer")
    with pytest.raises(InputError, match="0.95"):
        rate_interval([1], [10], conf_level=95)


# --------------------------------------------------------------------------- rates() on a Panel
def small_panel():
    data = pd.DataFrame({
        "unit": ["A", "A", "B", "B", "C", "C"], "year": [2010, 2011] * 3,
        "births": [1000, 900, 500, 0, 2000, 2100], "deaths": [8, 9, 6, 0, 10, 12],
        "deaths_neonatal": [5, 6, 4, 0, 7, 8], "deaths_postneonatal": [3, 3, 2, 0, 3, 4],
        "region": ["R1", "R1", "R1", "R1", "R2", "R2"],
    })
    units = pd.DataFrame({"unit": ["A", "B", "C"], "name": ["Alfa", "Beta", "Gamma"],
                          "region": ["R1", "R1", "R2"], "region_name": ["Uno", "Uno", "Dos"],
                          "province": ["P1", "P1", "P2"], "province_name": ["p1", "p1", "p2"],
                          "country": ["X", "X", "X"]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return Panel(data.drop(columns="region"), units=units)


def test_rates_on_panel_years_pool_outcome_and_names():
    p = small_panel()
    t = rates(p)
    assert list(t.columns[:11]) == ["unit", "period", "outcome", "events", "births", "estimate", "lower",
                                    "upper", "method", "conf_level", "flag"]   # the CLI contract order
    assert t["name"].tolist() == ["Alfa", "Alfa", "Beta", "Beta", "Gamma", "Gamma"]
    assert t.loc[3, "flag"] == "zero_births" and np.isnan(t.loc[3, "estimate"])
    pooled = rates(p, pool=True)
    assert pooled["period"].unique().tolist() == ["2010-2011"]
    close(pooled.loc[0, "estimate"], 17 / 1900 * 1000)
    close(pooled.loc[1, "estimate"], 6 / 500 * 1000)     # the zero-birth year adds nothing
    neo = rates(p, outcome="nmr", years=[2010])
    assert neo["outcome"].unique().tolist() == ["neonatal"]
    assert neo["events"].tolist() == [5, 4, 7]


def test_rates_aggregate_to_region_and_country():
    p = small_panel()
    reg = rates(p, level="region", pool=True)
    assert reg["unit"].tolist() == ["R1", "R2"]
    assert reg["events"].tolist() == [23, 22] and reg["births"].tolist() == [2400, 4100]
    close(reg.loc[0, "estimate"], 23 / 2400 * 1000)
    country = rates(p, level="country", pool=True)
    assert country["events"].tolist() == [45]


def test_plain_table_with_level_is_refused_with_a_message():
    ev = pd.DataFrame({"unit": ["A"], "year": [2010], "events": [1], "births": [10]})
    with pytest.raises(InputError, match="Panel"):
        rates(ev, level="region")
    with pytest.raises(InputError, match="events"):
        rates(pd.DataFrame({"unit": ["A"], "year": [2010]}))


def test_shuffling_rows_changes_nothing():
    p = small_panel()
    ev = p.events()
    a = rates(ev)
    b = rates(ev.sample(frac=1.0, random_state=3))
    pd.testing.assert_frame_equal(a, b)


def test_plain_table_of_periods_pools_over_them():
    ev = pd.DataFrame({"unit": ["A", "A", "B"], "period": ["2005-2009", "2010-2014", "2005-2009"],
                       "events": [3, 4, 5], "births": [100, 200, 300]})
    t = rates(ev, pool=True)
    assert t["period"].tolist() == ["2005-2014", "2005-2014"]
    assert t["events"].tolist() == [7, 5] and t["births"].tolist() == [300, 300]
    assert t["estimate"].tolist() == pytest.approx([7 / 300 * 1000, 5 / 300 * 1000])
