"""Concentration index and its decomposition by determinants (issue 14; REFERENCE_WAVE2 W.2), checked against
W.2's values and against independent routes: statsmodels WLS for the coefficients and residuals, Kakwani's
"convenient regression" for each concentration index, and a loop for the fractional ranks."""
import numpy as np
import pandas as pd
import pytest

from brecha.inequality.ci_decompose import ci_decompose, concentration_index, decompose_arrays, fractional_rank
from brecha.panel import Panel

Y = np.array([5.1, 6.3, 7.8, 9.2, 4.4, 12.7, 10.2, 8.8, 6.9, 3.9])
W = np.array([1200, 800, 450, 300, 2500, 650, 400, 900, 700, 3000], dtype=float)
INCOME = np.array([520, 410, 300, 250, 610, 180, 220, 330, 390, 700], dtype=float)


def test_w2_weighted_and_unweighted_concentration_index():
    c = concentration_index(Y, W, INCOME)
    assert c == pytest.approx(-0.214452618614, abs=1e-12)
    mu = Y @ (W / W.sum())
    assert mu * c == pytest.approx(-1.28307591954, abs=1e-10)  # ACI
    assert concentration_index(Y, np.ones(10), INCOME) == pytest.approx(-0.194820717131, abs=1e-12)
    # not rineq's regression path with births as frequency weights
    assert abs(c - -0.256574347894) > 0.04


def test_fractional_rank_is_the_cumulative_share_minus_half_its_own():
    order = np.argsort(INCOME)
    share = W[order] / W.sum()
    expected = np.empty(10)
    expected[order] = np.cumsum(share) - share / 2
    np.testing.assert_allclose(fractional_rank(W, INCOME), expected, atol=1e-15)


def convenient_regression_ci(v, w, rank):
    """Kakwani et al. (1997): WLS of 2 σ_R² v/μ on R; the slope is C."""
    import statsmodels.api as sm

    p = w / w.sum()
    mu = p @ v
    s2 = p @ (rank - p @ rank) ** 2
    fit = sm.WLS(2 * s2 * v / mu, sm.add_constant(rank), weights=w).fit()
    return fit.params[1]


def test_decomposition_against_statsmodels_and_convenient_regression():
    import statsmodels.api as sm

    rng = np.random.default_rng(12)
    n = 120
    w = rng.integers(100, 6000, n).astype(float)
    poverty = rng.uniform(2, 40, n)
    school = 80 - poverty + rng.normal(0, 5, n)
    sapu = (rng.uniform(size=n) < 0.7).astype(float)
    x = np.column_stack([poverty, school, sapu])
    y = 4 + 0.15 * poverty - 0.02 * school + rng.gamma(2, 1, n)
    order = -poverty  # the poorest first
    r = decompose_arrays(y, x, w, order)
    fit = sm.WLS(y, sm.add_constant(x), weights=w).fit()
    np.testing.assert_allclose(r["coefficient"], fit.params[1:], rtol=1e-10)
    rank = fractional_rank(w, order)
    mu = np.average(y, weights=w)
    for k in range(3):
        ck = convenient_regression_ci(x[:, k], w, rank)
        assert r["concentration_index"][k] == pytest.approx(ck, rel=1e-10)
        assert r["contribution"][k] == pytest.approx(fit.params[k + 1] * np.average(x[:, k], weights=w) / mu * ck,
                                                     rel=1e-10)
    assert r["total"] == pytest.approx(convenient_regression_ci(y, w, rank), rel=1e-10)
    # the residual's generalised CI / μ, from statsmodels's residuals
    p = w / w.sum()
    gc = 2 * np.sum(p * fit.resid * (rank - 0.5))
    assert r["residual"] == pytest.approx(gc / mu, rel=1e-9)
    assert r["contribution"].sum() + r["residual"] == pytest.approx(r["total"], abs=1e-15)


def panel_with_determinants(seed=3, years=(2006, 2012), n=80):
    rng = np.random.default_rng(seed)
    poverty = rng.uniform(2, 40, n)
    frames = []
    for i, year in enumerate(years):
        births = rng.integers(100, 5000, n)
        rate = (4 + 0.12 * poverty - 0.01 * i * poverty) / 1000
        frames.append(pd.DataFrame({"unit": [f"U{j:03d}" for j in range(n)], "year": year, "births": births,
                                    "deaths": rng.poisson(births * rate), "poverty": poverty + i,
                                    "schooling": 80 - poverty + rng.normal(0, 4, n),
                                    "sapu": (rng.uniform(size=n) < 0.6).astype(float)}))
    return Panel(pd.concat(frames))


def test_table_rows_add_up_and_change_is_split_exactly():
    panel = panel_with_determinants()
    out = ci_decompose(panel, "poverty", "poverty,schooling,sapu", bootstrap=400, seed=9, change=(2006, 2012))
    assert list(out.columns[:11]) == ["period", "outcome", "term", "coefficient", "mean", "elasticity",
                                      "concentration_index", "contribution", "percent", "lower", "upper"]
    for period, block in out.groupby("period"):
        b = block.set_index("term")
        parts = b.drop("total")["contribution"].sum()
        assert parts == pytest.approx(b.loc["total", "contribution"], abs=1e-14)
        assert b["percent"].drop("total").sum() == pytest.approx(100.0, abs=1e-9)
        if "-" not in period:
            ev = panel.events(years=[int(period)])
            y = 1000 * ev["events"].astype(float) / ev["births"].astype(float)
            pov = panel.data.set_index(["unit", "year"]).loc[list(zip(ev["unit"], ev["year"])), "poverty"].to_numpy()
            c = concentration_index(y.to_numpy(), ev["births"].astype(float).to_numpy(), -pov)
            assert b.loc["total", "contribution"] == pytest.approx(c, rel=1e-12)
            assert b.loc["total", "concentration_index"] == pytest.approx(c, rel=1e-12)
            assert (block["lower"] <= block["contribution"] + 1e-12).sum() >= 3
    change = out[out["period"] == "2006-2012"].set_index("term")
    first, last = (out[out["period"] == p].set_index("term") for p in ("2006", "2012"))
    for term in ("poverty", "schooling", "sapu"):
        split = change.loc[term, "change_concentration"] + change.loc[term, "change_elasticity"]
        assert split == pytest.approx(change.loc[term, "contribution"], abs=1e-15)
        assert change.loc[term, "contribution"] == pytest.approx(
            last.loc[term, "contribution"] - first.loc[term, "contribution"], abs=1e-15)
    again = ci_decompose(panel, "poverty", "poverty,schooling,sapu", bootstrap=400, seed=9, change=(2006, 2012))
    pd.testing.assert_frame_equal(out, again)


def test_missing_determinant_values_are_counted_and_collinear_ones_refused():
    from brecha.errors import InputError

    panel = panel_with_determinants(years=(2010,))
    data = panel.data.copy()
    data.loc[data.index[:3], "schooling"] = np.nan
    with pytest.warns(Warning, match="3 units|3 unidades"):
        out = ci_decompose(Panel(data), "poverty", "poverty,schooling")
    assert (out["n_units"] == 77).all() and (out["n_excluded"] == 3).all()
    data["twice"] = 2 * data["poverty"]
    with pytest.raises(InputError, match="twice|poverty"):
        ci_decompose(Panel(data), "poverty", "poverty,twice")


def test_bootstrap_intervals_cover_the_expected_index_and_contributions():
    """Poisson deaths from known rates: the percentile intervals of C and of each contribution cover their
    expected value about 95 % of the time (a full run of 300 simulations x 500 replicates gave 95-96 %)."""
    rng = np.random.default_rng(5)
    n = 200
    births = rng.integers(100, 6000, n).astype(float)
    poverty = rng.uniform(2, 40, n)
    x = np.column_stack([poverty, 80 - poverty + rng.normal(0, 5, n)])
    theta = (4 + 0.12 * poverty - 0.01 * x[:, 1]) / 1000
    truth = decompose_arrays(1000 * rng.poisson(births * theta, size=(4000, n)) / births, x, births, -poverty)
    targets = [truth["total"].mean(), *truth["contribution"].mean(axis=0)]
    hits = np.zeros(3)
    sims = 150
    for _ in range(sims):
        observed = rng.poisson(births * theta)
        reps = decompose_arrays(1000 * rng.poisson(observed, size=(300, n)) / births, x, births, -poverty)
        for j, values in enumerate([reps["total"], reps["contribution"][:, 0], reps["contribution"][:, 1]]):
            lo, hi = np.quantile(values, [0.025, 0.975])
            hits[j] += lo <= targets[j] <= hi
    assert (hits / sims >= 0.88).all(), hits / sims
