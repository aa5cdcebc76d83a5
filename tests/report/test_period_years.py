"""report.analyses.period_years: ``pd.to_numeric(periods, errors="coerce")`` read once per distinct period
(issue 19), the same values, index and dtype as pandas' own on every kind of column."""
import pandas as pd
import pytest

from brecha.report.analyses import period_years


@pytest.mark.parametrize("periods", [
    pd.Series(["2010", "2011", "2010"] * 50, index=range(100, 250)),
    pd.Series(["2010", "x", "2010"]),  # a period that is not a year: NaN, float
    pd.Series(["2000-2015", "2001"]),  # a pooled period among years
    pd.Series([], dtype=object),
    pd.Series(["2010", None, "2011"]),
    pd.Series(["2010", "2011", "2010"], dtype="category", name="period"),
    pd.Series(["2010", "2011"], dtype="string"),  # pandas' NA text: nullable Int64
    pd.Series(["2010", None], dtype="string"),
    pd.Series([2010, 2011, 2010]),
    pd.Series(["2010.5", "2011"]),
])
def test_the_years_pandas_reads(periods):
    pd.testing.assert_series_equal(period_years(periods), pd.to_numeric(periods, errors="coerce"))
