"""Panel operations on the embedded Chilean data: aggregation up the hierarchy, subset, pooling."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from brecha import datasets


@pytest.fixture(scope="module")
def chile():
    return datasets.chile()


def test_hierarchy_sizes_and_national_ine_rates(chile):
    assert len(chile.aggregate("province").unit_codes) == 56
    assert len(chile.aggregate("region").unit_codes) == 16
    nation = chile.aggregate("country").data.set_index("year")
    imr = (nation["deaths"] / nation["births"] * 1000).astype(float).round(1)
    # INE, Anuario de Estadísticas Vitales: national IMR 2010-2015
    assert imr.loc[2010:2015].tolist() == [7.4, 7.7, 7.4, 7.0, 7.3, 6.9]


def test_aggregation_in_steps_equals_aggregation_at_once(chile):
    cols = ["unit", "year", "births", "deaths", "population", "population_age0"]
    direct = chile.aggregate("region").data[cols]
    stepwise = chile.aggregate("province").aggregate("region").data[cols]
    pd.testing.assert_frame_equal(direct, stepwise)


def test_population_is_summed_not_averaged(chile):
    region = chile.aggregate("region").data.set_index(["unit", "year"])
    members = chile.subset(region="01").data
    expected = members[members["year"] == 2010]["population"].sum()
    assert region.loc[("01", 2010), "population"] == pytest.approx(expected)
    assert np.isnan(region.loc[("01", 2000), "population"])  # no population before 2002
    # a per-head covariate is a births-weighted mean, between the members' extremes
    m = members[members["year"] == 2010].dropna(subset=["poverty"])
    mean = np.average(m["poverty"], weights=m["births"].astype(float))
    assert region.loc[("01", 2010), "poverty"] == pytest.approx(mean)


def test_subset_by_region_province_and_pooling(chile):
    rm = chile.subset(region=13)
    assert len(rm.unit_codes) == 52 and all(u.startswith("13") for u in rm.unit_codes)
    assert len(chile.subset(province="131").unit_codes) == 32
    pooled = chile.subset(units=["1101"]).events(years=range(2005, 2015), pool=True).iloc[0]
    yearly = chile.data[(chile.data["unit"] == "01101") & chile.data["year"].between(2005, 2014)]
    assert pooled["period"] == "2005-2014" and pooled["n_years"] == 10
    assert pooled["events"] == yearly["deaths"].sum() and pooled["births"] == yearly["births"].sum()


def test_subset_by_name_and_unknown_names_listed(chile):
    from brecha.errors import InputError
    from brecha.i18n import set_language

    assert chile.subset(region="Región Metropolitana de Santiago").unit_codes == chile.subset(region="13").unit_codes
    brazil = datasets.brazil()
    assert len(brazil.subset(province="SP").unit_codes) == 645  # São Paulo state: 645 municipalities (IBGE)
    assert len(brazil.subset(region="Nordeste").unit_codes) == 1794
    set_language("en")
    try:
        with pytest.raises(InputError, match="unknown province 'XX'; provinces of the panel: 011 Iquique"):
            chile.subset(province="XX")
    finally:
        set_language("es")
