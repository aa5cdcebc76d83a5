"""The disparity table is assembled in one pass (brecha.disparity_table): the excess-death rows it builds
with the other measures must equal those brecha.excess_deaths.add_excess_deaths appends to the same table,
row for row, dtype for dtype and category for category, and no column may hold one Python object per row
(the memory that made 173,000 units × 20 years cost 15 GB)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from brecha.disparity import MEASURES, disparity
from brecha.excess_deaths import add_excess_deaths


def _panel(n_units=40, years=range(2001, 2006), seed=7):
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n_units):
        for y in years:
            births = int(rng.integers(0, 900)) if i else 0  # unit 0: no births (flags, NaN measures)
            rows.append({"unit": f"U{i:03d}", "year": y, "births": births,
                         "events": int(rng.binomial(births, 0.008)) if births else 0})
    return pd.DataFrame(rows)


@pytest.mark.parametrize("options", [
    dict(reference="best:0"),
    dict(reference="best:0", pool=True),
    dict(reference="U001,U002", rr_method="exact", par_method="walter"),
    dict(reference="U005", rr_method="midp", par_method="sullivan", units=["U004", "U005", "U006"]),
    dict(reference="U001", rr_method="binomial", par_method="jewell"),
])
def test_excess_rows_equal_the_appended_ones(options):
    table = disparity(_panel(), **options)
    without = table[table["measure"] != "excess_deaths"].reset_index(drop=True)
    # the categories as they were before the excess rows existed
    # (set_categories, not remove_categories: pandas 3 sorts what remove_categories leaves)
    without["measure"] = without["measure"].cat.set_categories(list(MEASURES))
    kept = [c for c in without["method"].cat.categories if not c.startswith("D - B x r_ref")]
    without["method"] = without["method"].cat.set_categories(kept)
    without.attrs = dict(table.attrs)
    expected = add_excess_deaths(without)
    pd.testing.assert_frame_equal(table, expected, check_exact=True)
    # and the arithmetic itself: AR (PAR) × births / 1000, rows right after AR% (PAR%)
    ex = table[table["measure"] == "excess_deaths"]
    src = table.iloc[np.flatnonzero((table["measure"] == "excess_deaths").to_numpy()) - 2]
    assert set(src["measure"].astype(str)) <= {"attributable_risk", "par"}
    births = pd.to_numeric(src["births"]).astype(float).to_numpy()
    np.testing.assert_allclose(ex["estimate"].to_numpy(), src["estimate"].to_numpy() * (births / 1000),
                               rtol=0, atol=0)
    assert (ex["unit"].to_numpy() == src["unit"].to_numpy()).all()


def test_no_column_holds_python_objects_per_row():
    table = disparity(_panel(), reference="best:0")
    # the unit codes are text by nature: pandas 3's str dtype; on pandas 2, text columns are object by default
    text_is_object = pd.Series(["a"]).dtype == object
    assert not [c for c in table.columns if table[c].dtype == object and not (c == "unit" and text_is_object)]
    for column in ("period", "outcome", "measure", "method", "reference", "flag"):
        assert isinstance(table[column].dtype, pd.CategoricalDtype), column
    assert len(table["method"].cat.categories) <= 8
