"""``inequality`` over many periods builds one table from the periods' rows (issue 19: no table per period,
the events read into arrays once, the ranking covariate's yearly means in one grouping). Each period's rows
must be exactly what the same call on that period alone gives, column types included: an independent path
through the per-period slicing."""
import warnings

import numpy as np
import pandas as pd
import pytest

from brecha import datasets
from brecha.inequality import inequality


@pytest.fixture(scope="module")
def chile():
    return datasets.chile()


def _one_by_one(panel, years, **kw):
    parts = [inequality(panel, years=[y], **kw) for y in years]
    return pd.concat(parts, ignore_index=True)


@pytest.mark.parametrize("kw", [
    dict(measures="who"),
    dict(measures="d,r,par,paf", reference="13101"),
    dict(rank_by="poverty", groups=5),
    dict(rank_by="poverty"),  # the units themselves ranked
])
def test_many_years_equal_each_year_alone(chile, kw):
    years = [2009, 2010, 2011, 2012]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        together = inequality(chile, years=years, **kw)
        alone = _one_by_one(chile, years, **kw)
    assert len(together) > 0
    pd.testing.assert_frame_equal(together, alone, check_exact=True)
    assert together["n_groups"].dtype == "Int64" and together["seed"].dtype == "Int64"


def test_periods_without_the_covariate_are_skipped_and_counted(chile):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = inequality(chile, years=[2003, 2009], rank_by="poverty", groups=5, measures="sii")
    assert out["period"].tolist() == ["2009"]  # poverty starts in 2006
    assert any("2003" in str(w.message) and "poverty" in str(w.message) for w in caught)


def test_units_without_births_are_left_out_with_their_count(chile):
    data = chile.data.copy()
    data.loc[(data["year"] == 2010) & (data["unit"].isin(["01101", "01107"])), "births"] = 0
    panel = type(chile)(data, units=chile.units, country=chile.country)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = inequality(panel, years=[2010], measures="gini")
    full = inequality(chile, years=[2010], measures="gini")
    assert int(out["n_units"].iloc[0]) == int(full["n_units"].iloc[0]) - 2
    assert any("2010" in str(w.message) for w in caught)
    assert np.isfinite(out["estimate"]).all()
