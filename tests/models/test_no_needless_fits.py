"""Issue 19: a models call makes no linearmodels fit it does not use, and its numbers do not change.

The conventional-covariance companion fit (a second fit when --se is not "unadjusted") is made only for
the fits the classic Hausman test compares (FE or two-way FE, and RE), never for CRE or without tests.
The reference values are the unchanged route: every fit with its companion (``unadjusted=True``)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from brecha.models import fit_frame, linear
from brecha.models import tests as spec
from brecha.models._design import design_from_frame
from brecha.models.random_effects import fit_random

REF = Path(__file__).resolve().parents[1] / "reference"


@pytest.fixture
def fits_counted(monkeypatch):
    calls = []
    original = linear.fit_checked

    def counting(model, opts):
        calls.append(opts.get("cov_type"))
        return original(model, opts)

    monkeypatch.setattr(linear, "fit_checked", counting)
    import brecha.models.random_effects as re_module

    monkeypatch.setattr(re_module, "fit_checked", counting)
    return calls


@pytest.mark.parametrize("grunfeld", ["grunfeld.csv", "grunfeld_unbalanced.csv"])
def test_fe_re_with_tests_six_fits_and_the_same_hausman(fits_counted, grunfeld):
    g = pd.read_csv(REF / grunfeld)
    res = fit_frame(g, "inv", ["value", "capital"], unit="firm", models=["fe", "re"], se="clustered")
    # fe + its companion, re + its companion, pooled (F test), cre (Mundlak test) without companion
    assert len(fits_counted) == 6, fits_counted
    design = design_from_frame(g, "inv", ["value", "capital"], unit="firm")
    fe_all = linear.fit_within(design, "clustered", False, unadjusted=True)
    re_all = fit_random(design, "clustered", False, unadjusted=True)
    expected = spec.hausman(fe_all, re_all)
    got = res.tests.set_index("test").loc[expected["test"]]
    assert got["statistic"] == expected["statistic"] and got["p_value"] == expected["p_value"]
    np.testing.assert_array_equal(res.fits["fe"].cov_unadjusted.to_numpy(), fe_all.cov_unadjusted.to_numpy())
    np.testing.assert_array_equal(res.fits["re"].cov.to_numpy(), re_all.cov.to_numpy())


def test_no_companion_fits_without_tests(fits_counted):
    g = pd.read_csv(REF / "grunfeld.csv")
    res = fit_frame(g, "inv", ["value", "capital"], unit="firm", models=["pooled", "fe", "re", "cre"],
                    se="robust", tests=False)
    assert len(fits_counted) == 4, fits_counted  # one fit per model
    assert all(fit.cov_unadjusted is None for fit in res.fits.values())


def test_cre_never_gets_a_companion_and_year_effects_use_fe2(fits_counted):
    g = pd.read_csv(REF / "grunfeld.csv")
    res = fit_frame(g, "inv", ["value", "capital"], unit="firm", models=["fe", "fe2", "re", "cre"],
                    se="clustered", time_effects=True)
    assert res.fits["cre"].cov_unadjusted is None
    assert res.fits["fe2"].cov_unadjusted is not None and res.fits["re"].cov_unadjusted is not None
    design = design_from_frame(g, "inv", ["value", "capital"], unit="firm")
    expected = spec.hausman(linear.fit_within(design, "unadjusted", True), fit_random(design, "unadjusted", True))
    got = res.tests.set_index("test").loc[expected["test"]]
    assert got["statistic"] == pytest.approx(expected["statistic"], rel=1e-12)
