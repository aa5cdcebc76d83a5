"""The headline's extreme fifths sum deaths and births by the one rule of brecha.panel_levels: a unit-year
without its deaths (or its births) enters neither total."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from brecha.report import analyses


def test_a_unit_year_without_deaths_leaves_its_births_out_of_the_fifth():
    births = {f"U{i}": 1000 for i in range(10)}
    per_year = []
    for i, unit in enumerate(births):
        for year in (2010, 2011, 2012):
            per_year.append({"unit": unit, "year": year, "events": float(2 + i), "births": 1000.0})
    per_year = pd.DataFrame(per_year)
    # the highest-rate unit lacks its 2011 deaths (births known): before, its 1,000 births still entered
    per_year.loc[(per_year["unit"] == "U9") & (per_year["year"] == 2011), "events"] = np.nan
    pooled = pd.DataFrame({"unit": list(births), "births": 3000.0,
                           "estimate": [(2 + i) / 1000 * 1000 for i in range(10)],
                           "lower": np.nan, "upper": np.nan})
    res = SimpleNamespace(national=pd.DataFrame({"x": [1]}), pooled=pooled, smoothed=None, per_year=per_year,
                          smoothed_table=None, disparity_pooled=None, funnel_table=None)
    analyses.gap(res)
    g = res.gap
    # high fifth: U7, U8, U9 (a unit straddling the cut at a fifth of births goes to the end group); 2011:
    # U7 and U8 only (9 + 10 deaths in 2,000 births; before, U9's 1,000 births entered too: 19 / 3,000)
    series = g["series"].set_index("year")
    assert series.loc[2011, "high"] == pytest.approx((9 + 10) / 2000 * 1000)
    assert series.loc[2010, "high"] == pytest.approx((9 + 10 + 11) / 3000 * 1000)
    # over the period: (3 x 9 + 3 x 10 + 2 x 11) deaths in 8,000 births (U9's 2011 births left out)
    assert g["high_rate"] == pytest.approx((3 * 9 + 3 * 10 + 2 * 11) / 8000 * 1000)
    assert g["low_rate"] == pytest.approx((3 * 2 + 3 * 3) / 6000 * 1000)
