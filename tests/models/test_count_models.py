"""Count models (deaths with a log(births) offset) against independent computations:
closed-form Poisson rate ratio, statsmodels GLM Poisson, dummy-variable Poisson for the conditional FE
Poisson, and the NB2 equivalence of the gamma random-effects Poisson when every unit has one year."""
import warnings

import numpy as np
import pandas as pd
import pytest

from brecha.models import fit_models
from brecha.panel import Panel


def _synthetic(seed=11, units=40, years=range(2006, 2013)):
    rng = np.random.default_rng(seed)
    rows = []
    effect = rng.normal(0, 0.3, units)
    for i in range(units):
        for y in years:
            births = int(rng.integers(20, 3000))
            poverty = 10 + 5 * rng.random() + 2 * effect[i] + 0.3 * (y - 2006)
            spend = 50 + 20 * rng.random()
            mu = births / 1000 * np.exp(1.5 + 0.04 * poverty - 0.005 * spend + effect[i])
            rows.append({"unit": f"U{i:02d}", "year": y, "births": births, "deaths": int(rng.poisson(mu)),
                         "poverty": poverty, "spend": spend, "urban": float(i % 2)})
    return Panel(pd.DataFrame(rows))


@pytest.fixture(scope="module")
def panel():
    return _synthetic()


def _coef(res, model, term):
    c = res.coefficients
    return c[(c["model"] == model) & (c["term"] == term)].iloc[0]


def test_poisson_binary_covariate_equals_closed_form_rate_ratio():
    """One binary covariate: RR = (D1/B1)/(D0/B0), SE(log RR) = sqrt(1/D1 + 1/D0) (Rothman 1998 p.238:
    41/28010 vs 15/19017, split over two years; the Poisson MLE depends on the group totals only)."""
    data = pd.DataFrame({"unit": ["A", "A", "B", "B"], "year": [2010, 2011, 2010, 2011],
                         "births": [14000, 14010, 9000, 10017], "deaths": [20, 21, 7, 8],
                         "exposed": [1.0, 1.0, 0.0, 0.0]})
    res = fit_models(Panel(data), "infant", ["exposed"], models=["poisson"], se="unadjusted", lang="en")
    row = _coef(res, "poisson", "exposed")
    assert row["rate_ratio"] == pytest.approx(1.855759, rel=1e-6)      # REFERENCE.md C.5
    assert row["se"] == pytest.approx(0.301756, rel=1e-5)              # zepid SE(ln)
    assert row["rr_lower"] == pytest.approx(1.027226, rel=1e-5)
    assert row["rr_upper"] == pytest.approx(3.352563, rel=1e-5)


def test_poisson_matches_statsmodels_glm(panel):
    import statsmodels.api as sm

    res = fit_models(panel, "infant", ["poverty", "spend"], models=["poisson"], se="unadjusted")
    d = panel.data
    X = sm.add_constant(d[["poverty", "spend"]].astype(float))
    glm = sm.GLM(d["deaths"].astype(float), X, family=sm.families.Poisson(),
                 offset=np.log(d["births"].astype(float))).fit()
    for term, name in (("intercept", "const"), ("poverty", "poverty"), ("spend", "spend")):
        row = _coef(res, "poisson", term)
        assert row["estimate"] == pytest.approx(glm.params[name], rel=1e-8)
        assert row["se"] == pytest.approx(glm.bse[name], rel=1e-6)
        assert row["rate_ratio"] == pytest.approx(np.exp(glm.params[name]), rel=1e-8)


def test_conditional_poisson_equals_dummy_variable_poisson(panel):
    import statsmodels.api as sm

    d = panel.data.copy()
    dummies = pd.get_dummies(d["unit"], dtype=float)
    X = pd.concat([d[["poverty", "spend"]].astype(float), dummies], axis=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        glm = sm.GLM(d["deaths"].astype(float), X, family=sm.families.Poisson(),
                     offset=np.log(d["births"].astype(float))).fit(tol=1e-12)
        glm_cl = sm.GLM(d["deaths"].astype(float), X, family=sm.families.Poisson(),
                        offset=np.log(d["births"].astype(float))).fit(
            tol=1e-12, cov_type="cluster",
            cov_kwds={"groups": pd.factorize(d["unit"])[0], "use_correction": False})
    res = fit_models(panel, "infant", ["poverty", "spend", "urban"], models=["poisson_fe"], se="unadjusted",
                     lang="en")
    clu = fit_models(panel, "infant", ["poverty", "spend"], models=["poisson_fe"], se="clustered")
    G = d["unit"].nunique()
    for term in ("poverty", "spend"):
        assert _coef(res, "poisson_fe", term)["estimate"] == pytest.approx(glm.params[term], rel=1e-6)
        assert _coef(res, "poisson_fe", term)["se"] == pytest.approx(glm.bse[term], rel=1e-5)
        assert _coef(clu, "poisson_fe", term)["se"] == pytest.approx(glm_cl.bse[term] * np.sqrt(G / (G - 1)),
                                                                     rel=1e-5)
    # the time-invariant covariate vanishes and the notes say so
    assert "urban" not in set(res.coefficients.query("model == 'poisson_fe'")["term"])
    assert any("urban" in n and "time-invariant" in n for n in res.notes)


def test_gamma_random_effects_poisson_is_negbin_with_one_year_per_unit():
    """With T_i = 1 the gamma-mixed Poisson likelihood is the NB2 likelihood (Cameron & Trivedi 2013)."""
    from statsmodels.discrete.discrete_model import NegativeBinomial

    rng = np.random.default_rng(5)
    n = 300
    births = rng.integers(50, 2000, n)
    x = rng.normal(size=n)
    mu = births / 1000 * np.exp(2 + 0.3 * x) * rng.gamma(2.0, 0.5, n)
    data = pd.DataFrame({"unit": [f"U{i}" for i in range(n)], "year": 2010, "births": births,
                         "deaths": rng.poisson(mu), "x": x, "x2": rng.normal(size=n)})
    res = fit_models(Panel(data), "infant", ["x"], models=["poisson_re", "negbin"], se="unadjusted")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        nb = NegativeBinomial(data["deaths"].to_numpy(float), np.column_stack([np.ones(n), x]),
                              offset=np.log(births.astype(float))).fit(disp=0, maxiter=500)
    assert _coef(res, "poisson_re", "x")["estimate"] == pytest.approx(nb.params[1], rel=1e-4)
    assert _coef(res, "poisson_re", "x")["se"] == pytest.approx(nb.bse[1], rel=1e-3)
    assert _coef(res, "negbin", "x")["estimate"] == pytest.approx(nb.params[1], rel=1e-5)
    assert res.fits["poisson_re"].info["alpha"] == pytest.approx(nb.params[2], rel=1e-3)
    assert res.fits["negbin"].info["alpha"] == pytest.approx(nb.params[2], rel=1e-4)


def test_year_effects_are_estimated_but_not_listed(panel):
    res = fit_models(panel, "infant", ["poverty"], models=["poisson", "poisson_fe"], se="clustered",
                     time_effects=True)
    assert not res.coefficients["term"].str.startswith("year_").any()
    assert "year effects" in res.fits["poisson"].variant
    assert len(res.fits["poisson"].params) == 2 + 6  # intercept, poverty, 6 year indicators
