"""Issue 19 (memory): each linearmodels fit copies only the design columns it uses (outcome, its
regressors, the weights), and its numbers are bit-for-bit those of a fit on the whole design frame; the
within and pooled fits, now computed from the call's numpy arrays (``panel_arrays``), equal them to 1e-10.

Reference: the same linearmodels estimator fed the full ``Design.indexed()`` frame (the earlier route)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from linearmodels.panel import BetweenOLS, PanelOLS, PooledOLS

from brecha.models import linear
from brecha.models._design import design_from_frame

REF = Path(__file__).resolve().parents[1] / "reference"


@pytest.fixture(params=["grunfeld.csv", "grunfeld_unbalanced.csv"])
def design(request):
    g = pd.read_csv(REF / request.param)
    g["w"] = 1.0 + (g["year"] % 3)
    return design_from_frame(g, "inv", ["value", "capital"], unit="firm", weights="w")


def test_indexed_keeps_only_the_columns_asked(design):
    full = design.indexed()
    some = design.indexed(["inv", "value"])
    assert list(some.columns) == ["inv", "value"]
    assert some.index.equals(full.index)
    assert np.array_equal(some.to_numpy(), full[["inv", "value"]].to_numpy())
    assert list(full.columns) == ["inv", "value", "capital", "w"]


@pytest.mark.parametrize("se", ["unadjusted", "clustered", "driscoll-kraay"])
def test_within_pooled_between_equal_to_the_full_frame_fit(design, se):
    full = design.indexed()
    opts, _ = linear.cov_options(se, full.index.get_level_values("year").nunique())
    X = full[["value", "capital"]].copy()
    X.insert(0, "const", 1.0)
    ref = {
        "fe": PanelOLS(full["inv"], full[["value", "capital"]], entity_effects=True, weights=full["w"]).fit(**opts),
        "pooled": PooledOLS(full["inv"], X, weights=full["w"]).fit(**opts),
        "between": BetweenOLS(full["inv"], X, weights=full["w"]).fit(
            **({"cov_type": "robust"} if se != "unadjusted" else opts)),
    }
    got = {"fe": linear.fit_within(design, se), "pooled": linear.fit_pooled(design, se),
           "between": linear.fit_between(design, se)}
    for key, res in ref.items():
        if key == "between":  # still a linearmodels fit: bit for bit
            assert np.array_equal(got[key].params.to_numpy(), res.params.to_numpy()), key
            assert np.array_equal(got[key].cov.to_numpy(), res.cov.to_numpy()), key
            assert got[key].info["ssr"] == float(res.resid_ss), key
            continue
        np.testing.assert_allclose(got[key].params.to_numpy(), res.params.to_numpy(), rtol=1e-10, err_msg=key)
        np.testing.assert_allclose(got[key].cov.to_numpy(), res.cov.to_numpy(), rtol=1e-10, err_msg=key)
        assert got[key].info["ssr"] == pytest.approx(float(res.resid_ss), rel=1e-12), key
