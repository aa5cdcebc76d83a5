"""Negative binomial with unit fixed effects (``negbin_fe``, the unconditional NB2 with one indicator per
unit; Allison & Waterman 2002) against an independent computation: statsmodels ``NegativeBinomial``
(discrete_model, NB2) fitted with explicit unit dummies and the log(births) offset; plus the recovery of
known coefficients on a simulated overdispersed panel, and the Poisson limit when there is no
overdispersion."""
import warnings

import numpy as np
import pandas as pd
import pytest

from brecha.models import fit_models
from brecha.panel import Panel

BETA = (0.05, -0.01)   # true log rate ratios of poverty and spend in the simulations


def _simulate(seed, units, years, alpha, zero_units=0):
    """deaths ~ NB2(mu, alpha) as a gamma-mixed Poisson: mu * Gamma(shape 1/alpha, scale alpha), with
    normal unit effects correlated with poverty (so pooled models are biased, FE ones are not)."""
    rng = np.random.default_rng(seed)
    years = list(years)
    T = len(years)
    effect = np.repeat(rng.normal(0, 0.4, units), T)
    year = np.tile(np.array(years), units)
    births = rng.integers(100, 4000, units * T)
    poverty = 10 + 5 * rng.random(units * T) + 3 * effect + 0.3 * (year - years[0])
    spend = 50 + 20 * rng.random(units * T)
    mu = births / 1000 * np.exp(1.2 + BETA[0] * poverty + BETA[1] * spend + effect)
    if alpha > 0:
        mu = mu * rng.gamma(1 / alpha, alpha, units * T)
    deaths = rng.poisson(mu)
    unit = np.repeat([f"U{i:03d}" for i in range(units)], T)
    if zero_units:
        deaths[: zero_units * T] = 0
    return pd.DataFrame({"unit": unit, "year": year, "births": births, "deaths": deaths, "poverty": poverty,
                         "spend": spend, "urban": np.repeat(np.arange(units) % 2, T).astype(float)})


@pytest.fixture(scope="module")
def overdispersed():
    return _simulate(3, 40, range(2006, 2014), alpha=0.2)


def _statsmodels_dummy_nb2(data, year_effects=False, cluster=False):
    from statsmodels.discrete.discrete_model import NegativeBinomial

    parts = [data[["poverty", "spend"]].astype(float)]
    if year_effects:
        parts.append(pd.get_dummies(data["year"], prefix="y", dtype=float).iloc[:, 1:])
    parts.append(pd.get_dummies(data["unit"], dtype=float))
    X = pd.concat(parts, axis=1)
    model = NegativeBinomial(data["deaths"].to_numpy(float), X, loglike_method="nb2",
                             offset=np.log(data["births"].to_numpy(float)))
    cov = ({"cov_type": "cluster", "cov_kwds": {"groups": pd.factorize(data["unit"])[0], "use_correction": False}}
           if cluster else {})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = model.fit(disp=0, method="bfgs", maxiter=5000)
        res = model.fit(start_params=res.params, disp=0, method="newton", maxiter=100, **cov)
    assert res.mle_retvals["converged"]
    return res


def _coef(res, term, model="negbin_fe"):
    c = res.coefficients
    return c[(c["model"] == model) & (c["term"] == term)].iloc[0]


def test_negbin_fe_equals_statsmodels_nb2_with_unit_dummies(overdispersed):
    """Estimates, alpha and log-likelihood to 1e-7 relative, model-based SEs (inverse of the full
    information matrix, alpha's SE by the delta method) to 1e-6, clustered SEs equal to statsmodels'
    cluster sandwich without its small-sample correction times sqrt(G/(G-1)) to 1e-6."""
    sm = _statsmodels_dummy_nb2(overdispersed)
    sm_cl = _statsmodels_dummy_nb2(overdispersed, cluster=True)
    panel = Panel(overdispersed)
    res = fit_models(panel, "infant", ["poverty", "spend", "urban"], models=["negbin_fe"], se="unadjusted",
                     lang="en")
    clu = fit_models(panel, "infant", ["poverty", "spend"], models=["negbin_fe"], se="clustered", lang="en")
    G = overdispersed["unit"].nunique()
    for term in ("poverty", "spend"):
        row = _coef(res, term)
        assert row["estimate"] == pytest.approx(sm.params[term], rel=1e-7)
        assert row["se"] == pytest.approx(sm.bse[term], rel=1e-6)
        assert row["rate_ratio"] == pytest.approx(np.exp(sm.params[term]), rel=1e-7)
        assert row["rr_lower"] == pytest.approx(np.exp(sm.params[term] - 1.959963984540054 * sm.bse[term]),
                                                rel=1e-6)
        assert _coef(clu, term)["se"] == pytest.approx(sm_cl.bse[term] * np.sqrt(G / (G - 1)), rel=1e-6)
    fit = res.fits["negbin_fe"]
    assert fit.info["alpha"] == pytest.approx(sm.params["alpha"], rel=1e-7)
    assert fit.info["llf"] == pytest.approx(sm.llf, rel=1e-10)
    se_alpha = np.sqrt(fit.cov.loc["log_alpha", "log_alpha"]) * fit.info["alpha"]
    assert se_alpha == pytest.approx(sm.bse["alpha"], rel=1e-6)
    assert fit.info["alpha_lower"] < sm.params["alpha"] < fit.info["alpha_upper"]
    # NB2 deviance (for Allison & Waterman's SE correction): statsmodels GLM NB family at the same alpha
    import statsmodels.api as sm_api

    X = pd.concat([overdispersed[["poverty", "spend"]].astype(float),
                   pd.get_dummies(overdispersed["unit"], dtype=float)], axis=1)
    glm = sm_api.GLM(overdispersed["deaths"].astype(float), X,
                     family=sm_api.families.NegativeBinomial(alpha=sm.params["alpha"]),
                     offset=np.log(overdispersed["births"].astype(float))).fit(tol=1e-12)
    assert fit.info["deviance"] == pytest.approx(glm.deviance, rel=1e-6)
    assert fit.info["deviance_ratio"] == pytest.approx(glm.deviance / (glm.df_resid - 1), rel=1e-6)
    # the time-invariant covariate vanishes with the unit effects, unit effects and alpha are not listed
    assert list(res.coefficients["term"]) == ["poverty", "spend"]
    assert any("urban" in n and "time-invariant" in n for n in res.notes)
    assert any("Allison & Waterman 2002" in n for n in res.notes)


def test_negbin_fe_with_year_effects_equals_statsmodels(overdispersed):
    sm = _statsmodels_dummy_nb2(overdispersed, year_effects=True)
    res = fit_models(Panel(overdispersed), "infant", ["poverty", "spend"], models=["negbin_fe"],
                     se="unadjusted", time_effects=True)
    for term in ("poverty", "spend"):
        assert _coef(res, term)["estimate"] == pytest.approx(sm.params[term], rel=1e-7)
        assert _coef(res, term)["se"] == pytest.approx(sm.bse[term], rel=1e-6)
    assert res.fits["negbin_fe"].info["alpha"] == pytest.approx(sm.params["alpha"], rel=1e-7)
    assert "year effects" in res.fits["negbin_fe"].variant
    assert not res.coefficients["term"].str.startswith("year_").any()


def test_overdispersion_lr_test_equals_statsmodels_likelihoods(overdispersed):
    """LR = 2 (l_NB2 - l_Poisson), both with unit dummies (statsmodels NB2 and GLM Poisson), p on the
    boundary = P(chi2(1) > LR) / 2."""
    import statsmodels.api as sm_api
    from scipy import stats

    sm = _statsmodels_dummy_nb2(overdispersed)
    X = pd.concat([overdispersed[["poverty", "spend"]].astype(float),
                   pd.get_dummies(overdispersed["unit"], dtype=float)], axis=1)
    poisson = sm_api.GLM(overdispersed["deaths"].astype(float), X, family=sm_api.families.Poisson(),
                         offset=np.log(overdispersed["births"].astype(float))).fit(tol=1e-12)
    res = fit_models(Panel(overdispersed), "infant", ["poverty", "spend"], models=["negbin_fe"], lang="en")
    row = res.tests.iloc[0]
    lr = 2 * (sm.llf - poisson.llf)
    assert row["test"].startswith("LR overdispersion")
    assert row["statistic"] == pytest.approx(lr, rel=1e-7)
    assert row["p_value"] == pytest.approx(0.5 * stats.chi2.sf(lr, 1), rel=1e-6)


def test_negbin_fe_recovers_known_coefficients():
    """300 units x 8 years, alpha = 0.25, seed 2024 (the first seed tried): both slopes within 3 clustered
    SEs of the truth. alpha is recovered with the downward incidental-parameters bias of short panels
    (docs/models.md: about -20 % at T = 8 in 200 replications), so only 0.6-1.1 x the truth is asked."""
    data = _simulate(2024, 300, range(2006, 2014), alpha=0.25)
    res = fit_models(Panel(data), "infant", ["poverty", "spend"], models=["negbin_fe"], se="clustered")
    for term, truth in zip(("poverty", "spend"), BETA):
        row = _coef(res, term)
        assert abs(row["estimate"] - truth) < 3 * row["se"]
        assert row["lower"] < truth < row["upper"]
    assert 0.6 * 0.25 < res.fits["negbin_fe"].info["alpha"] < 1.1 * 0.25


def test_no_overdispersion_gives_the_fixed_effects_poisson():
    """Poisson data: alpha goes to its boundary 0, the model is the fixed-effects Poisson (same estimates
    and SEs as poisson_fe), the note says so, and units with no death drop out (noted)."""
    data = _simulate(8, 30, range(2006, 2012), alpha=0.0, zero_units=2)
    res = fit_models(Panel(data), "infant", ["poverty", "spend"], models=["negbin_fe", "poisson_fe"],
                     se="unadjusted", lang="en")
    fit = res.fits["negbin_fe"]
    assert fit.info["alpha_at_zero"] and fit.info["alpha"] == 0.0
    assert fit.n_units == 28 and fit.info["units_dropped_no_events"] == 2
    for term in ("poverty", "spend"):
        assert _coef(res, term)["estimate"] == pytest.approx(_coef(res, term, "poisson_fe")["estimate"], rel=1e-6)
        assert _coef(res, term)["se"] == pytest.approx(_coef(res, term, "poisson_fe")["se"], rel=1e-6)
    assert any("reduces to the fixed-effects Poisson" in n for n in res.notes)
    assert any("drops 2 units with no death" in n for n in res.notes)
    assert res.tests.iloc[0]["p_value"] > 0.05


def test_negbin_fe_from_the_cli_on_chile(tmp_path, capsys):
    """The issue's Chilean example with --models negbin_fe: runs end to end and, since the commune panel
    shows no overdispersion beyond the unit effects (alpha at 0), equals poisson_fe."""
    from brecha.cli.main import main

    out = tmp_path / "nb.csv"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(["--lang", "en", "models", "--example", "chile", "--years", "2006-2012", "--covariates",
                     "poverty,health_spending_pc", "--models", "negbin_fe,poisson_fe", "-o", str(out)]) == 0
    shown = capsys.readouterr().out
    assert "Fixed-effects negative binomial" in shown and "LR overdispersion" in shown
    table = pd.read_csv(out)
    nb = table[table["model"] == "negbin_fe"].set_index("term")
    pf = table[table["model"] == "poisson_fe"].set_index("term")
    assert list(nb.index) == ["poverty", "health_spending_pc"]
    assert np.allclose(nb["estimate"], pf["estimate"], rtol=1e-5)
    assert (nb["rr_lower"] < nb["rate_ratio"]).all() and (nb["rate_ratio"] < nb["rr_upper"]).all()
