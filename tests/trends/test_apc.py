"""Per-unit trends (log10 rate on year, Prais-Winsten, APC, class) against REFERENCE.md C.3 and hand fits."""
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from brecha.errors import InputError
from brecha.trends import prais_winsten, trend_label, trends

C3_YEARS = np.arange(2005, 2015)
C3_IMR = np.array([9.1, 8.8, 8.6, 8.9, 8.2, 7.9, 7.8, 7.6, 7.4, 7.2])


def table(units):
    """unit -> (years, events, births) as a long table."""
    rows = []
    for unit, (years, events, births) in units.items():
        for y, e, b in zip(years, events, births):
            rows.append((unit, int(y), e, b))
    return pd.DataFrame(rows, columns=["unit", "year", "events", "births"])


def c3_table():
    return table({"A": (C3_YEARS, C3_IMR * 100, np.full(10, 100_000))})


def hand_apc(y, x, df, alpha=0.05):
    X = np.column_stack([np.ones(len(x)), x])
    fit = prais_winsten(y, X)
    b, se = fit.coef[1], fit.se[1]
    q = stats.t.ppf(1 - alpha / 2, df)
    p = 2 * stats.t.sf(abs(b / se), df)
    return fit, b, se, p, [(10 ** v - 1) * 100 for v in (b, b - q * se, b + q * se)]


def test_reference_c3_apc_and_class():
    out = trends(c3_table())
    row = out.iloc[0]
    assert list(out.columns[:12]) == ["unit", "outcome", "n_years", "slope", "se", "p_value", "rho", "apc",
                                      "apc_lower", "apc_upper", "trend", "method"]
    assert row["n_years"] == 10 and row["df"] == 8 and row["method"] == "prais-winsten"
    # REFERENCE.md C.3 as printed
    assert row["apc"] == pytest.approx(-2.6182, abs=5e-5)
    assert row["apc_lower"] == pytest.approx(-3.0637, abs=5e-5)
    assert row["apc_upper"] == pytest.approx(-2.1706, abs=5e-5)
    assert row["slope"] == pytest.approx(-0.01152198, abs=5e-9)
    assert row["se"] == pytest.approx(0.00086364, abs=5e-9)
    assert row["rho"] == pytest.approx(-0.1317773, abs=5e-8)
    assert row["p_value"] == pytest.approx(9.53e-07, abs=5e-10)
    assert row["intercept"] == pytest.approx(24.0633002, abs=5e-7)
    assert row["trend"] == "decreasing" and row["n_iter"] == 4
    # and to 1e-6 relative against the hand computation from the raw-year fit
    fit, b, se, p, (apc, lo, hi) = hand_apc(np.log10(C3_IMR), C3_YEARS.astype(float), 8)
    np.testing.assert_allclose([row["apc"], row["apc_lower"], row["apc_upper"], row["p_value"]], [apc, lo, hi, p],
                               rtol=1e-6)
    np.testing.assert_allclose([row["slope"], row["se"], row["rho"]], [b, se, fit.rho], rtol=1e-6)


def test_reference_c3_df_n_minus_1():
    row = trends(c3_table(), df="n-1").iloc[0]
    assert row["df"] == 9
    assert row["apc_lower"] == pytest.approx(-3.0552, abs=5e-5)
    assert row["apc_upper"] == pytest.approx(-2.1791, abs=5e-5)


def test_classes_and_spanish_labels():
    rng = np.random.default_rng(11)
    flat = 8 * np.exp(rng.normal(scale=0.15, size=10))
    units = {"down": (C3_YEARS, C3_IMR * 100, np.full(10, 100_000)),
             "up": (C3_YEARS, C3_IMR[::-1] * 100, np.full(10, 100_000)),
             "flat": (C3_YEARS, flat * 100, np.full(10, 100_000))}
    out = trends(table(units)).set_index("unit")
    assert out.loc["down", "trend"] == "decreasing"
    assert out.loc["up", "trend"] == "increasing"
    assert out.loc["flat", "trend"] == "stationary" and out.loc["flat", "p_value"] >= 0.05
    assert trend_label("decreasing", lang="es") == "decreciente"
    assert trend_label("stationary", lang="es") == "estacionaria"
    assert trend_label("increasing", lang="en") == "increasing"


def test_many_units_match_one_at_a_time_and_gaps_are_dropped():
    rng = np.random.default_rng(5)
    years = np.arange(2000, 2016)
    units = {}
    for u in range(8):
        births = rng.integers(2000, 8000, size=16).astype(float)
        events = rng.poisson(births * 0.012 * np.exp(-0.02 * (years - 2000))).astype(float)
        units[f"U{u}"] = (years, events, births)
    tab = table(units)
    # unit U3 misses births in 2004 (NA) and U5 has zero births in 2010: dropped and stated
    tab.loc[(tab.unit == "U3") & (tab.year == 2004), "births"] = np.nan
    tab.loc[(tab.unit == "U5") & (tab.year == 2010), "births"] = 0
    out = trends(tab).set_index("unit")
    for u, (yrs, ev, bi) in units.items():
        keep = np.ones(16, dtype=bool)
        if u == "U3":
            keep[4] = False
        if u == "U5":
            keep[10] = False
        y = np.log10(1000 * ev[keep] / bi[keep])
        fit, b, se, p, (apc, lo, hi) = hand_apc(y, yrs[keep].astype(float), keep.sum() - 2)
        row = out.loc[u]
        np.testing.assert_allclose([row.slope, row.se, row.p_value, row.rho, row.apc, row.apc_lower, row.apc_upper],
                                   [b, se, p, fit.rho, apc, lo, hi], rtol=1e-6)
        assert row.n_years == keep.sum()
    assert out.loc["U3", "dropped_years"] == "2004" and "2004" in out.loc["U3", "note"]
    assert out.loc["U5", "dropped_years"] == "2010"
    assert out.loc["U0", "dropped_years"] == "" and out.loc["U0", "note"] == ""


def zero_units():
    years = np.arange(2010, 2018)
    events = np.array([2, 0, 3, 1, 0, 0, 2, 1], dtype=float)
    births = np.array([400, 380, 390, 410, 370, 360, 350, 340], dtype=float)
    return years, events, births


def test_zero_rule_add_half():
    years, events, births = zero_units()
    out = trends(table({"Z": (years, events, births)}), zero="add-half").iloc[0]
    adj = np.where(events == 0, 0.5, events)
    fit, b, *_ = hand_apc(np.log10(1000 * adj / births), years.astype(float), 6)
    assert out["slope"] == pytest.approx(b, rel=1e-6)
    assert out["zero_rule"] == "add-half" and out["zero_years"] == 3 and "3" in out["note"]


def test_zero_rule_pool_years():
    years, events, births = zero_units()
    out = trends(table({"Z": (years, events, births)}), zero="pool-years").iloc[0]
    # groups: 2010 | 2011+2012 | 2013 | 2014+2015+2016 | 2017
    groups = [[0], [1, 2], [3], [4, 5, 6], [7]]
    x = np.array([years[g].mean() for g in groups])
    y = np.log10(1000 * np.array([events[g].sum() for g in groups]) / np.array([births[g].sum() for g in groups]))
    fit, b, se, p, (apc, lo, hi) = hand_apc(y, x, 3)
    np.testing.assert_allclose([out["slope"], out["se"], out["p_value"], out["apc"]], [b, se, p, apc], rtol=1e-6)
    assert out["n_years"] == 5 and out["zero_rule"] == "pool-years" and out["zero_years"] == 3


def test_zero_rule_skip_and_too_few_years_give_flag_rows():
    years, events, births = zero_units()
    units = {"Z": (years, events, births), "OK": (C3_YEARS, C3_IMR * 100, np.full(10, 100_000)),
             "SHORT": (np.array([2010, 2011]), np.array([3.0, 4.0]), np.array([500.0, 510.0]))}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = trends(table(units), zero="skip").set_index("unit")
    messages = [str(w.message) for w in caught]
    assert any("1 unidad" in m or "1 unit" in m for m in messages), messages
    assert np.isnan(out.loc["Z", "slope"]) and pd.isna(out.loc["Z", "trend"])
    assert "skip" in out.loc["Z", "note"] and out.loc["Z", "zero_years"] == 3
    assert np.isnan(out.loc["SHORT", "apc"]) and "2" in out.loc["SHORT", "note"]
    assert out.loc["OK", "trend"] == "decreasing"
    with pytest.warns(UserWarning, match="12"):
        many = trends(table(units), zero="skip", min_years=12).set_index("unit")
    assert many["slope"].isna().all() and "12" in many.loc["OK", "note"]


def test_aggregate_level_with_a_panel():
    from brecha.panel import Panel

    rng = np.random.default_rng(3)
    years = np.arange(2001, 2013)
    rows = []
    for u in ["A1", "A2", "B1"]:
        births = rng.integers(1000, 3000, size=len(years))
        deaths = rng.poisson(births * 0.01)
        rows += [(u, int(y), int(b), int(d)) for y, b, d in zip(years, births, deaths)]
    data = pd.DataFrame(rows, columns=["unit", "year", "births", "deaths"])
    units = pd.DataFrame({"unit": ["A1", "A2", "B1"], "name": ["a1", "a2", "b1"], "region": ["A", "A", "B"],
                          "region_name": ["Reg A", "Reg A", "Reg B"]})
    panel = Panel(data, units=units)
    out = trends(panel, level="region").set_index("unit")
    assert list(out.index) == ["A", "B"] and out.loc["A", "name"] == "Reg A" and out.loc["A", "level"] == "region"
    summed = data[data.unit.isin(["A1", "A2"])].groupby("year")[["births", "deaths"]].sum()
    y = np.log10(1000 * summed["deaths"].to_numpy() / summed["births"].to_numpy())
    fit, b, *_ = hand_apc(y, years.astype(float), len(years) - 2)
    assert out.loc["A", "slope"] == pytest.approx(b, rel=1e-6)
    assert trends(panel, years=range(2001, 2011)).iloc[0]["n_years"] == 10
    # a missing birth count (<NA>) in one commune drops that year from the commune and from its region
    gap = data.astype({"births": "Int64"})
    gap.loc[(gap.unit == "A1") & (gap.year == 2005), "births"] = pd.NA
    gapped = Panel(gap, units=units)
    by_unit = trends(gapped).set_index("unit")
    assert by_unit.loc["A1", "dropped_years"] == "2005" and by_unit.loc["A1", "n_years"] == 11
    # incomplete="drop" (Panel.aggregate's rule): the region year with a missing commune count is dropped
    by_region = trends(gapped, level="region", incomplete="drop").set_index("unit")
    assert by_region.loc["A", "dropped_years"] == "2005" and by_region.loc["B", "dropped_years"] == ""
    assert by_region.loc["A", "n_years"] == 11
    # default incomplete="sum": the region year sums the communes that have both counts, and says so
    summed_rule = trends(gapped, level="region").set_index("unit")
    assert summed_rule.loc["A", "dropped_years"] == "" and summed_rule.loc["A", "n_years"] == 12
    assert "1 unit-year" in summed_rule.loc["A", "note"] or "1 unidad-año" in summed_rule.loc["A", "note"]
    assert "2005: 1" in summed_rule.loc["A", "note"] and summed_rule.loc["B", "note"] == ""
    part = data[data.unit.isin(["A1", "A2"]) & ~((data.unit == "A1") & (data.year == 2005))]
    part = part.groupby("year")[["births", "deaths"]].sum()
    fit, b, se, p_value, (apc, lo, hi) = hand_apc(np.log10(1000 * part["deaths"].to_numpy() / part["births"].to_numpy()),
                                                  years.astype(float), len(years) - 2)
    np.testing.assert_allclose(summed_rule.loc["A", ["slope", "se", "p_value", "apc", "apc_lower", "apc_upper"]]
                               .to_numpy(float), [b, se, p_value, apc, lo, hi], rtol=1e-6)
    # a whole-country trend: the name is the country's, not its code
    country = trends(Panel(data, units=units.assign(country="CL")), level="country")
    assert list(country["unit"]) == ["CL"] and country.iloc[0]["name"] == "Chile"
    totals = data.groupby("year")[["births", "deaths"]].sum()
    fit, b, *_ = hand_apc(np.log10(1000 * totals["deaths"].to_numpy() / totals["births"].to_numpy()),
                          years.astype(float), len(years) - 2)
    assert country.iloc[0]["slope"] == pytest.approx(b, rel=1e-6)
    with pytest.raises(InputError, match="sum, drop"):
        trends(panel, level="region", incomplete="ignore")


def test_rho_method_passes_through():
    out = trends(c3_table(), rho="dw", iterate=False).iloc[0]
    fit = prais_winsten(np.log10(C3_IMR), np.column_stack([np.ones(10), C3_YEARS]), rho_method="dw", iterate=False)
    assert out["rho"] == pytest.approx(fit.rho, rel=1e-9) and out["rho_method"] == "dw"
    assert out["estimation"] == "two-step"


def test_bad_options_messages():
    assert trends(c3_table(), zero="pool").iloc[0]["zero_rule"] == "pool-years"  # the study file's spelling
    with pytest.raises(InputError, match="add-half"):
        trends(c3_table(), zero="drop")
    with pytest.raises(InputError, match="joinpoint"):
        trends(c3_table(), method="lowess")
    with pytest.raises(InputError, match="n-2"):
        trends(c3_table(), df="n-3")
    with pytest.raises(InputError, match="regress"):
        trends(c3_table(), rho="yw")
    with pytest.raises(InputError, match="unit, year, events, births"):
        trends(pd.DataFrame({"x": [1]}))
    with pytest.raises(InputError, match="Panel"):
        trends(c3_table(), level="region")
    with pytest.raises(InputError, match="max_zero_share"):
        trends(c3_table(), max_zero_share=1.5)


@pytest.mark.parametrize("zero", ["add-half", "pool-years", "skip"])
def test_unit_without_any_death_gets_no_trend(zero):
    years = np.arange(2010, 2018)
    births = np.linspace(100, 200, 8)  # rising births would fake a falling "rate" with 0.5 deaths
    units = {"NONE": (years, np.zeros(8), births), "OK": (C3_YEARS, C3_IMR * 100, np.full(10, 100_000))}
    out = trends(table(units), zero=zero).set_index("unit")
    assert np.isnan(out.loc["NONE", "slope"]) and pd.isna(out.loc["NONE", "trend"])
    assert "no death" in trends(table(units), zero=zero).iloc[0]["note"] or "ninguna muerte" in out.loc["NONE", "note"]
    assert out.loc["OK", "trend"] == "decreasing"
