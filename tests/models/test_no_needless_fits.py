"""Issue 19: a models call fits each model once, on arrays built once, and its numbers do not change.

Pooled, FE, FE2, RE and CRE are OLS of the call's numpy arrays (``panel_arrays``, ``least_squares``): no
linearmodels fit at all, one least-squares solve per model (the tests reuse the fits: the F test the pooled
one, Hausman the FE and RE ones, whose conventional covariance comes from the same residuals), and the
arrays (unit means, one- and two-way within and quasi-demeaned transforms) are built once per call.
The reference values are the unchanged route: every fit with its companion (``unadjusted=True``)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from brecha.models import fit_frame, least_squares, linear, panel_arrays, year_indicators
from brecha.models import tests as spec
from brecha.models._design import design_from_frame
from brecha.models.random_effects import fit_random

REF = Path(__file__).resolve().parents[1] / "reference"


@pytest.fixture
def counted(monkeypatch):
    calls = {"linearmodels": [], "solve": 0, "arrays": 0}
    fit_checked, solve, from_design = (linear.fit_checked, least_squares.solve,
                                       panel_arrays.PanelArrays.from_design.__func__)
    with_years = year_indicators.fit_with_years

    def counting_fit(model, opts):
        calls["linearmodels"].append(opts.get("cov_type"))
        return fit_checked(model, opts)

    def counting_solve(*args, **kwargs):
        calls["solve"] += 1
        return solve(*args, **kwargs)

    def counting_with_years(*args, **kwargs):   # the solve of a fit with (implicit) year indicators
        calls["solve"] += 1
        return with_years(*args, **kwargs)

    def counting_arrays(cls, design):
        calls["arrays"] += 1
        return from_design(cls, design)

    monkeypatch.setattr(linear, "fit_checked", counting_fit)
    monkeypatch.setattr(least_squares, "solve", counting_solve)
    monkeypatch.setattr(year_indicators, "fit_with_years", counting_with_years)
    monkeypatch.setattr(panel_arrays.PanelArrays, "from_design", classmethod(counting_arrays))
    return calls


@pytest.mark.parametrize("grunfeld", ["grunfeld.csv", "grunfeld_unbalanced.csv"])
def test_fe_re_with_tests_one_solve_per_model_and_the_same_hausman(counted, grunfeld):
    g = pd.read_csv(REF / grunfeld)
    res = fit_frame(g, "inv", ["value", "capital"], unit="firm", models=["fe", "re"], se="clustered")
    # fe, re, pooled (F test), cre (Mundlak test): one solve each, no linearmodels fit, arrays built once
    assert counted["linearmodels"] == []
    assert counted["solve"] == 4 and counted["arrays"] == 1, counted
    design = design_from_frame(g, "inv", ["value", "capital"], unit="firm")
    fe_all = linear.fit_within(design, "clustered", False, unadjusted=True)
    re_all = fit_random(design, "clustered", False, unadjusted=True)
    expected = spec.hausman(fe_all, re_all)
    got = res.tests.set_index("test").loc[expected["test"]]
    assert got["statistic"] == expected["statistic"] and got["p_value"] == expected["p_value"]
    np.testing.assert_array_equal(res.fits["fe"].cov_unadjusted.to_numpy(), fe_all.cov_unadjusted.to_numpy())
    np.testing.assert_array_equal(res.fits["re"].cov.to_numpy(), re_all.cov.to_numpy())
    # the companion covariance is the unadjusted fit's covariance
    fe_u = linear.fit_within(design, "unadjusted", False)
    np.testing.assert_array_equal(res.fits["fe"].cov_unadjusted.to_numpy(), fe_u.cov.to_numpy())


def test_no_companion_covariance_without_tests(counted):
    g = pd.read_csv(REF / "grunfeld.csv")
    res = fit_frame(g, "inv", ["value", "capital"], unit="firm", models=["pooled", "fe", "re", "cre"],
                    se="robust", tests=False)
    assert counted["solve"] == 4 and counted["linearmodels"] == [], counted  # one solve per model
    assert all(fit.cov_unadjusted is None for fit in res.fits.values())


def test_cre_never_gets_a_companion_and_year_effects_use_fe2(counted):
    g = pd.read_csv(REF / "grunfeld.csv")
    res = fit_frame(g, "inv", ["value", "capital"], unit="firm", models=["fe", "fe2", "re", "cre"],
                    se="clustered", time_effects=True)
    assert res.fits["cre"].cov_unadjusted is None
    assert res.fits["fe2"].cov_unadjusted is not None and res.fits["re"].cov_unadjusted is not None
    # fe and fe2 are both the two-way fit; re and cre are solved once each; no pooled or one-way fit is made
    # (no F test with year effects), and no linearmodels fit at all
    assert counted["linearmodels"] == [], counted
    assert counted["solve"] == 4 and counted["arrays"] == 1, counted
    design = design_from_frame(g, "inv", ["value", "capital"], unit="firm")
    expected = spec.hausman(linear.fit_within(design, "unadjusted", True), fit_random(design, "unadjusted", True))
    got = res.tests.set_index("test").loc[expected["test"]]
    assert got["statistic"] == pytest.approx(expected["statistic"], rel=1e-12)


def test_fe_re_with_year_effects_make_the_two_way_fit_once(counted):
    """fe with year effects is the two-way fit; the Hausman test uses it (its companion covariance from the
    same residuals), not a second two-way fit: fe, re and cre (Mundlak test), one solve each."""
    g = pd.read_csv(REF / "grunfeld_unbalanced.csv")
    res = fit_frame(g, "inv", ["value", "capital"], unit="firm", models=["fe", "re"], se="robust",
                    time_effects=True)
    assert counted["solve"] == 3 and counted["arrays"] == 1 and counted["linearmodels"] == [], counted
    assert res.fits["fe"].cov_unadjusted is not None
    design = design_from_frame(g, "inv", ["value", "capital"], unit="firm")
    expected = spec.hausman(linear.fit_within(design, "unadjusted", True), fit_random(design, "unadjusted", True))
    got = res.tests.set_index("test").loc[expected["test"]]
    assert got["statistic"] == pytest.approx(expected["statistic"], rel=1e-12)
