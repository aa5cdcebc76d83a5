"""Count models on a covariate of large scale (population, ~1e5): the design is standardised internally and
the coefficients mapped back exactly, so the fit equals the one on the pre-scaled covariate (population/1e5,
coefficient x 1e-5), agrees with statsmodels' NegativeBinomial on that pre-scaled design, and never shows an
SE of 0 or NaN without a flag, a note and a warning."""
import warnings

import numpy as np
import pandas as pd
import pytest

from brecha import datasets
from brecha.models import fit_models
from brecha.models._scaling import hessian_problems, standardise
from brecha.models.results import Fit
from brecha.panel import Panel

MODELS = ["poisson", "negbin", "poisson_re", "poisson_fe", "negbin_fe"]


@pytest.fixture(scope="module")
def chile():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return datasets.chile()


@pytest.fixture(scope="module")
def fits(chile):
    d = chile.data.copy()
    d["pop1e5"] = d["population"] / 1e5
    scaled = Panel(d, units=chile.units, country=chile.country, source="test")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        raw = fit_models(chile, "infant", ["population", "poverty"], models=MODELS, se="unadjusted", lang="en")
        pre = fit_models(scaled, "infant", ["pop1e5", "poverty"], models=MODELS, se="unadjusted", lang="en")
    return raw, pre, d


def _row(res, model, term):
    c = res.coefficients
    return c[(c["model"] == model) & (c["term"] == term)].iloc[0]


@pytest.mark.parametrize("model", MODELS)
def test_large_scale_covariate_equals_the_prescaled_fit(fits, model):
    raw, pre, _ = fits
    a, b = _row(raw, model, "population"), _row(pre, model, "pop1e5")
    assert np.isfinite(a["se"]) and a["se"] > 0 and a["flag"] == ""
    assert a["estimate"] == pytest.approx(b["estimate"] * 1e-5, rel=1e-6)
    assert a["se"] == pytest.approx(b["se"] * 1e-5, rel=1e-6)
    for term in ("poverty",) + (("intercept",) if model in ("poisson", "negbin", "poisson_re") else ()):
        assert _row(raw, model, term)["estimate"] == pytest.approx(_row(pre, model, term)["estimate"], rel=1e-6)


def test_negbin_matches_statsmodels_on_the_prescaled_design(fits):
    """Independent check: statsmodels' discrete NB2 on population/1e5 (no brecha code), transformed back."""
    from statsmodels.discrete.discrete_model import NegativeBinomial

    raw, _, d = fits
    d = d[pd.to_numeric(d["births"]) > 0].dropna(subset=["pop1e5", "poverty", "deaths"])
    X = np.column_stack([np.ones(len(d)), d["pop1e5"].astype(float), d["poverty"].astype(float)])
    model = NegativeBinomial(d["deaths"].astype(float).to_numpy(), X, loglike_method="nb2",
                             offset=np.log(d["births"].astype(float).to_numpy()))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = model.fit(disp=0, method="nm", maxiter=5000).params
        ref = model.fit(start_params=start, disp=0, method="newton", maxiter=200)
    assert ref.mle_retvals["converged"]
    assert _row(raw, "negbin", "population")["estimate"] == pytest.approx(ref.params[1] * 1e-5, rel=1e-6)
    assert _row(raw, "negbin", "population")["se"] == pytest.approx(ref.bse[1] * 1e-5, rel=1e-5)
    assert _row(raw, "negbin", "poverty")["estimate"] == pytest.approx(ref.params[2], rel=1e-6)
    assert raw.fit_info.set_index("model").loc["negbin", "alpha"] == pytest.approx(ref.params[3], rel=1e-5)


@pytest.mark.filterwarnings("ignore")
def test_cli_count_models_on_population_give_finite_nonzero_ses(tmp_path, capsys):
    from brecha.cli.main import main

    out = tmp_path / "counts.csv"
    assert main(["--lang", "en", "models", "--example", "chile", "--models", "poisson_re,negbin",
                 "--covariates", "population,poverty", "-o", str(out)]) == 0
    c = pd.read_csv(out, keep_default_na=False)
    assert set(c["model"]) == {"poisson_re", "negbin"}
    se = c["se"].astype(float)
    assert np.isfinite(se).all() and (se > 0).all()
    assert (c["flag"] == "").all()
    pop = c[c["term"] == "population"].set_index("model")["estimate"].astype(float)
    assert pop["negbin"] == pytest.approx(-2.13888e-08, rel=1e-4)
    assert pop["poisson_re"] == pytest.approx(-1.07736e-07, rel=1e-4)
    assert "cannot be trusted" not in capsys.readouterr().out


def test_standardise_maps_coefficients_back_exactly():
    X = pd.DataFrame({"intercept": 1.0, "a": [1e5, 2e5, 4e5, 3e5], "b": [1.0, 0.0, 1.0, 1.0]})
    Z, sc = standardise(X, ["a", "b"])
    g = np.array([0.3, -0.2, 0.5])
    b = sc.back(g, np.eye(3))[0]
    # same linear predictor on both scales
    np.testing.assert_allclose(X.to_numpy() @ b, Z @ g, rtol=1e-12)
    assert np.allclose(Z[:, 1:].std(axis=0), 1) and np.allclose(Z[:, 1:].mean(axis=0), 0)


def test_hessian_checks_and_flags_are_worded_in_both_languages():
    assert hessian_problems(-np.eye(2)) == []
    assert hessian_problems(np.diag([-1.0, 0.0])) == ["hessian_not_negative_definite"]
    assert hessian_problems(np.array([[np.nan, 0], [0, -1]]), converged=False) == [
        "not_converged", "hessian_not_negative_definite"]
    from brecha.models import _problem_message

    names = ["intercept", "x"]
    fit = Fit("negbin", "negative binomial NB2", pd.Series([1.0, 2.0], index=names),
              pd.DataFrame([[1.0, 0.0], [0.0, np.nan]], index=names, columns=names), "model-based", "normal",
              problems=("hessian_not_negative_definite",))
    t = fit.table()
    assert t["flag"].tolist() == ["hessian_not_negative_definite", "hessian_not_negative_definite;se_undefined"]
    en = _problem_message("negbin", fit, 0.95, "en")
    es = _problem_message("negbin", fit, 0.95, "es")
    assert "negbin: the fit cannot be trusted" in en and "standard error 0 or undefined for x" in en
    assert "el ajuste no es fiable" in es and "no definido para x" in es
