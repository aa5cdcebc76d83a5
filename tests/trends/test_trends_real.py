"""Trends on the embedded real data (Chile 2000-2015, Brazil 2000-2019): aggregates checked against a hand
sum + an independent Prais-Winsten fit, the 2004 split communes, sparse communes, the label vocabulary."""
import warnings

import numpy as np
import pandas as pd
import pytest

from brecha import datasets
from brecha.trends import TREND_LABELS, joinpoint, prais_winsten, trend_label, trend_labels, trends


@pytest.fixture(scope="module")
def chile():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return datasets.chile()


@pytest.fixture(scope="module")
def chile_trends(chile):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return trends(chile, zero="add-half").set_index("unit")


def hand_fit(years, deaths, births):
    """log10 rate per 1,000 on the calendar year, Prais-Winsten (R prais-compatible estimator), t(n-2)."""
    from scipy import stats

    years = np.asarray(years, dtype=float)
    y = np.log10(1000 * np.asarray(deaths, dtype=float) / np.asarray(births, dtype=float))
    fit = prais_winsten(y, np.column_stack([np.ones(len(years)), years]))
    b, se = fit.coef[1], fit.se[1]
    q = stats.t.ppf(0.975, len(years) - 2)
    return b, se, fit.rho, [(10 ** v - 1) * 100 for v in (b, b - q * se, b + q * se)]


def test_chile_national_trend(chile):
    row = trends(chile, level="country").iloc[0]
    d = chile.data.groupby("year")[["births", "deaths"]].sum()
    b, se, rho, (apc, lo, hi) = hand_fit(d.index, d["deaths"], d["births"])
    assert row["unit"] == "CL" and row["name"] == "Chile" and row["n_years"] == 16 and row["note"] == ""
    np.testing.assert_allclose([row["slope"], row["se"], row["rho"], row["apc"], row["apc_lower"], row["apc_upper"]],
                               [b, se, rho, apc, lo, hi], rtol=1e-6)
    # IMR 9.4 (2000) -> 6.9 (2015) per 1,000: about -1.7 % a year, clearly decreasing
    assert -2.0 < row["apc"] < -1.4 and row["trend"] == "decreasing"
    # the panel's caveats travel with the result
    assert any("15" in n and "49" in n for n in trends(chile, level="country").attrs["notes"])


def test_chile_national_joinpoint_matches_direct_call(chile):
    out = trends(chile, level="country", method="joinpoint")
    d = chile.data.groupby("year")[["births", "deaths"]].sum()
    direct = joinpoint(d.index.to_numpy(), counts=d["deaths"].to_numpy(float), births=d["births"].to_numpy(float))
    # 2000-2015 national series: no joinpoint beats the straight line by BIC (checked by brute force in
    # test_joinpoint.py); the AAPC is then the single segment's APC
    assert direct.joinpoints == [()] and list(out["row"]) == ["aapc", "segment"]
    assert out["apc"].iloc[0] == pytest.approx(direct.aapc["aapc"].iloc[0], rel=1e-10)
    assert out["apc"].iloc[0] == pytest.approx(out["apc"].iloc[1], rel=1e-10)


def test_split_communes_leave_out_their_creation_year(chile, chile_trends):
    d = chile.data
    for child, parent in [("01107", "01101"), ("08112", "08110")]:
        row = chile_trends.loc[child]
        part = d[(d.unit == child) & (d.year >= 2005)]
        b, se, rho, (apc, lo, hi) = hand_fit(part["year"], part["deaths"], part["births"])
        assert row["n_years"] == 11 and row["first_year"] == 2005
        np.testing.assert_allclose([row["slope"], row["se"], row["apc"], row["apc_lower"], row["apc_upper"]],
                                   [b, se, apc, lo, hi], rtol=1e-6)
        assert "2004" in row["note"] and "split='merge'" in row["note"]
        assert "2004" in chile_trends.loc[parent, "note"] and chile_trends.loc[parent, "n_years"] == 16
    # Alto Hospicio's 2004 (3 deaths for 92 births recorded: 32.6 per 1,000) would fake a steep fall
    kept = trends(chile, drop_creation_year=False).set_index("unit").loc["01107"]
    assert kept["n_years"] == 12 and kept["apc"] < chile_trends.loc["01107", "apc"] - 3
    # merged: the child is gone and the parent has no boundary note; a period after 2004: no note either
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        merged = trends(datasets.chile(split="merge")).set_index("unit")
    assert "01107" not in merged.index and merged.loc["01101", "note"] == ""
    with pytest.warns(UserWarning, match="3"):  # Río Verde has 2 usable years in 2006-2015
        late = trends(chile, years=range(2006, 2016)).set_index("unit")
    assert late.loc["01101", "note"] == "" and late.loc["01107", "n_years"] == 10


def test_sparse_communes_get_estimates_but_no_class(chile, chile_trends):
    t = chile_trends
    share = t["zero_years"] / t["n_years"]
    fitted = t["slope"].notna()
    assert (t["sparse"] == (fitted & (share > 0.5))).all()
    assert t.loc[t["sparse"], "trend"].isna().all() and t.loc[~t["sparse"] & fitted, "trend"].notna().all()
    # Lago Verde: 1 death in 16 years; with 0.5 for each zero the "rate" follows the falling births
    lago = t.loc["11102"]
    assert lago["sparse"] and lago["zero_years"] == 15 and pd.isna(lago["trend"]) and np.isfinite(lago["apc"])
    assert "15" in lago["note"] and "16" in lago["note"]
    every = trends(chile, max_zero_share=1.0).set_index("unit")
    assert every.loc["11102", "trend"] == "increasing" and not every["sparse"].any()
    np.testing.assert_allclose(every["apc"], t["apc"], rtol=1e-12)  # the estimates do not change
    # how many communes each flag touches (2000-2015, add-half): documented in docs/trends.md
    assert (int((t["zero_years"] > 0).sum()), int(t["sparse"].sum()), int((~fitted).sum())) == (217, 51, 10)


def test_brazil_aggregates_sum_the_municipalities_with_data():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        brazil = datasets.brazil()
        country = trends(brazil, level="country").iloc[0]
        strict = trends(brazil, level="country", incomplete="drop").iloc[0]
    d = brazil.data.dropna(subset=["births", "deaths"]).groupby("year")[["births", "deaths"]].sum()
    b, se, rho, (apc, lo, hi) = hand_fit(d.index, d["deaths"], d["births"])
    assert country["n_years"] == 20 and country["name"] == "Brazil"
    np.testing.assert_allclose([country["slope"], country["se"], country["apc"], country["apc_lower"]],
                               [b, se, apc, lo], rtol=1e-6)
    assert country["note"].startswith("162 ") and "2000: 63" in country["note"]
    # the strict rule loses every year in which any municipality lacks a count (2000-2012)
    assert strict["n_years"] == 7 and strict["dropped_years"].startswith("2000,2001")


def test_one_vocabulary_for_the_labels():
    assert trend_labels("es") == {"increasing": "creciente", "decreasing": "decreciente",
                                  "stationary": "estacionaria"}
    assert trend_labels("en") == {code: code for code in TREND_LABELS}
    assert trend_label(None) is None and trend_label("other", "es") == "other"
