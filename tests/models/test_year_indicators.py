"""Issue 19: the implicit year indicators (``year_indicators``) give exactly what the dense N x (T-1) matrix
of transformed indicators gives.

Independent reference: the indicators built here as a dense matrix (pandas ``get_dummies``) and transformed
with pandas ``groupby().transform`` (pooled: sqrt(w) scaling; within: unit demeaning, weighted as
linearmodels does; random effects: quasi-demeaning with a theta per unit), then plain numpy products.
Panels: balanced, unbalanced (rows removed), and one where a year's indicator vanishes under the within
transform (that year holds only single-year units); the two-way within arrays are checked against the dense
least-squares projection, as computed before issue 19.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from brecha.models.panel_arrays import PanelArrays
from brecha.models.year_indicators import YearIndicators, fit_with_years, partial_out, projection


def _panel(kind: str) -> pd.DataFrame:
    rng = np.random.default_rng(5)
    units, years = 40, 7
    f = pd.DataFrame({"unit": np.repeat(np.arange(units), years), "year": np.tile(np.arange(years), units)})
    if kind != "balanced":
        f = f.sample(frac=0.75, random_state=2).sort_values(["unit", "year"])
    if kind == "vanishing":   # year 7 only in three units observed in that year alone
        f = pd.concat([f[f["year"] < years], pd.DataFrame({"unit": [units, units + 1, units + 2], "year": years})])
    f = f.reset_index(drop=True)
    f["x"] = rng.normal(size=len(f)) + 0.3 * f["year"]
    f["y"] = 1 + 0.5 * f["x"] + rng.normal(size=len(f))
    f["w"] = rng.uniform(0.5, 2.0, len(f))
    return f


def _dense(f: pd.DataFrame, transform: str, r=None, theta=None, w=None) -> np.ndarray:
    """D* built densely: the indicators of every year but the first, transformed with pandas."""
    D = pd.get_dummies(f["year"], dtype=float).iloc[:, 1:]
    g = f["unit"].to_numpy()
    if transform == "within":
        if w is None:
            D = D - D.groupby(g).transform("mean")
        else:
            wm = (D.mul(w, axis=0)).groupby(g).transform("sum").div(pd.Series(w).groupby(g).transform("sum"), axis=0)
            D = D - wm
    elif transform == "random":
        D = D - D.groupby(g).transform("mean").mul(theta[g], axis=0)
    out = D.to_numpy()
    return out if r is None else out * r[:, None]


CASES = [("balanced", "pooled", False), ("unbalanced", "pooled", True), ("balanced", "within", False),
         ("unbalanced", "within", True), ("unbalanced", "random", False), ("vanishing", "within", False),
         ("vanishing", "random", False)]


@pytest.mark.parametrize("kind,transform,weighted", CASES)
def test_every_operation_equals_the_dense_matrix(kind, transform, weighted):
    f = _panel(kind)
    units, years = f["unit"].to_numpy(), f["year"].to_numpy()
    n, T = units.max() + 1, years.max() + 1
    w = f["w"].to_numpy() if weighted else None
    r = np.sqrt(w) if weighted else None
    theta = np.random.default_rng(1).uniform(0.2, 0.9, n) if transform == "random" else None
    lam = {"pooled": None, "within": 1.0, "random": theta}[transform]
    ind = YearIndicators(units, years, n, T, r=r, lam=lam, omega=w if transform == "within" else None)
    D = _dense(f, transform, r=r, theta=theta, w=w)
    A = np.column_stack([f["x"], f["y"], np.ones(len(f))])
    v = np.random.default_rng(2).uniform(0, 3, len(f))
    G = np.random.default_rng(3).normal(size=(T - 1, 2))
    e = f["y"].to_numpy()
    np.testing.assert_allclose(ind.cross(A), D.T @ A, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(ind.cross(A[:, 0]), D.T @ A[:, 0], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(ind.gram(), D.T @ D, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(ind.gram(v), D.T @ (v[:, None] * D), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(ind.times(G), D @ G, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(ind.times(G[:, 0]), D @ G[:, 0], rtol=1e-12, atol=1e-12)
    by_unit = pd.DataFrame(D * e[:, None]).groupby(units).sum().reindex(range(n), fill_value=0).to_numpy()
    by_year = pd.DataFrame(D * e[:, None]).groupby(years).sum().to_numpy()
    np.testing.assert_allclose(ind.group_sums(e, "units"), by_unit, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(ind.group_sums(e, "years"), by_year, rtol=1e-12, atol=1e-12)
    # the projection on D*: residuals of least squares on the dense matrix (minimum-norm when D* is deficient)
    expected = A - D @ np.linalg.lstsq(D, A, rcond=None)[0]
    np.testing.assert_allclose(partial_out(ind, A.copy()), expected, rtol=1e-9, atol=1e-11)
    assert projection(ind)[1] == np.linalg.matrix_rank(D)


def test_the_vanishing_year_makes_the_within_indicators_deficient():
    """The check above is not vacuous: the dense within indicators of that panel lose a column."""
    f = _panel("vanishing")
    D = _dense(f, "within")
    assert np.linalg.matrix_rank(D) == D.shape[1] - 1
    assert np.abs(D[:, -1]).max() < 1e-12


@pytest.mark.parametrize("kind", ["balanced", "unbalanced"])
def test_the_regression_with_implicit_indicators_equals_the_dense_regression(kind):
    """OLS of y on [X, D*] (coefficients, year ones included, residuals, (Z'Z)^-1) as numpy's least squares
    on the dense matrix gives them; random-effects transform, theta per unit."""
    f = _panel(kind)
    units, years = f["unit"].to_numpy(), f["year"].to_numpy()
    n, T = units.max() + 1, years.max() + 1
    theta = np.random.default_rng(4).uniform(0.2, 0.9, n)
    ind = YearIndicators(units, years, n, T, lam=theta)
    th = theta[units]
    X = np.column_stack([1 - th, f["x"] - th * f.groupby("unit")["x"].transform("mean")])
    y = (f["y"] - th * f.groupby("unit")["y"].transform("mean")).to_numpy()
    Z = np.hstack([X, _dense(f, "random", theta=theta)])
    ls = fit_with_years(y, X, ["intercept", "x"], ind, [f"year_{t}" for t in range(1, T)])
    b = np.linalg.lstsq(Z, y, rcond=None)[0]
    np.testing.assert_allclose(ls.params, b, rtol=1e-10)
    np.testing.assert_allclose(ls.resid, y - Z @ b, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(ls.xtx_inv, np.linalg.inv(Z.T @ Z), rtol=1e-9)
    assert ls.k == Z.shape[1]


def test_a_covariate_that_is_a_function_of_the_year_is_refused_naming_the_columns():
    from brecha.errors import InputError

    f = _panel("unbalanced")
    a = PanelArrays(f["y"], np.column_stack([f["x"], f["year"] ** 2]), ["x", "year2"], f["unit"], f["year"],
                    list(range(2000, 2007)))
    X = np.column_stack([np.ones(a.nobs), a.X])
    with pytest.raises(InputError, match="year2.*year_2006"):
        fit_with_years(a.y, X, ["intercept", "x", "year2"], a.year_indicators("pooled"), a.year_names())


def test_one_year_has_no_indicator_and_changes_nothing():
    """--time-effects on a single year: no year column, the same pooled fit as without (every --se)."""
    from brecha.models import fit_frame

    rng = np.random.default_rng(0)
    g = pd.DataFrame({"unit": range(50), "year": 2000, "x": rng.normal(size=50)})
    g["y"] = 1 + g["x"] + rng.normal(size=50)
    for se in ("unadjusted", "robust", "clustered"):
        with_years = fit_frame(g, "y", ["x"], models=["pooled"], se=se, time_effects=True, tests=False).fits["pooled"]
        without = fit_frame(g, "y", ["x"], models=["pooled"], se=se, tests=False).fits["pooled"]
        assert list(with_years.params.index) == ["intercept", "x"]
        np.testing.assert_allclose(with_years.params, without.params, rtol=1e-13)
        np.testing.assert_allclose(with_years.cov, without.cov, rtol=1e-12)
