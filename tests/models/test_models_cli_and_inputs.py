"""Row handling, bad input messages, the Hausman generalised-inverse fallback and the CLI end to end."""
import numpy as np
import pandas as pd
import pytest

from brecha.errors import InputError
from brecha.models import fit_models
from brecha.models.results import Fit
from brecha.models.tests import hausman
from brecha.panel import Panel


def _panel():
    rng = np.random.default_rng(3)
    rows = []
    for i in range(12):
        for y in range(2006, 2012):
            rows.append({"unit": f"U{i:02d}", "year": y, "births": int(rng.integers(0, 2) * 400 + 100),
                         "deaths": int(rng.poisson(1 + i / 3)), "poverty": 10 + i + rng.normal(),
                         "distance": 5.0 * i})
    data = pd.DataFrame(rows)
    data.loc[0, "births"] = 0          # rate undefined: excluded and counted
    data.loc[1, "poverty"] = np.nan    # missing covariate: excluded and counted
    return Panel(data)


@pytest.fixture(scope="module")
def panel():
    with pytest.warns(UserWarning):
        return _panel()


@pytest.fixture(scope="module")
def fitted(panel):
    """One fit shared by the tests that only read it."""
    return fit_models(panel, "imr", ["poverty", "distance"], models=["pooled", "fe", "re", "cre"], lang="en")


def test_rate_outcome_exclusions_and_time_invariant_notes(panel, fitted):
    res = fitted
    notes = " | ".join(res.notes)
    assert "1 unit-year excluded for zero or missing births" in notes   # one: singular (brecha.i18n.plural)
    assert "1 unit-year excluded for missing covariates (poverty: 1)" in notes
    assert "time-invariant): distance" in notes
    assert "distance" not in set(res.coefficients.query("model == 'fe'")["term"])
    assert "distance" in set(res.coefficients.query("model == 'cre'")["term"])
    assert res.fits["pooled"].nobs == 72 - 2
    # the linear outcome is deaths / births * 1000: pooled OLS by hand
    d = panel.data.iloc[2:].copy()
    y = d["deaths"].astype(float) / d["births"].astype(float) * 1000
    X = np.column_stack([np.ones(len(d)), d["poverty"], d["distance"]])
    beta = np.linalg.lstsq(X, y.to_numpy(), rcond=None)[0]
    assert res.fits["pooled"].params.to_numpy() == pytest.approx(beta, rel=1e-9)


@pytest.mark.filterwarnings("ignore")
def test_covariate_varying_in_few_units_is_noted(panel):
    """Like sapu in Chile 2006-2012 (one commune changes): the within estimate rests on few units."""
    data = panel.data.copy()
    data["service"] = ((data["unit"] == "U03") & (data["year"] >= 2009)).astype(float)
    res = fit_models(Panel(data), "imr", ["poverty", "service"], models=["fe"], tests=False, lang="en")
    assert any(n.startswith("service changes over time in only 1 of 12 units") for n in res.notes)
    assert not any(n.startswith("poverty changes") for n in res.notes)
    es = fit_models(Panel(data), "imr", ["service"], models=["fe"], tests=False, lang="es")
    assert any(n.startswith("service cambia en el tiempo en solo 1 de 12 unidades") for n in es.notes)


def test_births_weights_equal_weighted_least_squares(panel):
    res = fit_models(panel, "imr", ["poverty"], models=["pooled"], weights="births", se="unadjusted", tests=False)
    d = panel.data.iloc[2:]
    w = d["births"].to_numpy(float)
    y = d["deaths"].to_numpy(float) / w * 1000
    X = np.column_stack([np.ones(len(d)), d["poverty"].to_numpy(float)])
    sw = np.sqrt(w)
    beta = np.linalg.lstsq(X * sw[:, None], y * sw, rcond=None)[0]
    assert res.fits["pooled"].params.to_numpy() == pytest.approx(beta, rel=1e-9)


def test_bad_inputs_say_what_to_do(panel):
    with pytest.raises(InputError, match="povrety"):
        fit_models(panel, "imr", ["povrety"], lang="en")
    with pytest.raises(InputError, match="unknown model 'fx'|modelo desconocido 'fx'"):
        fit_models(panel, "imr", ["poverty"], models=["fx"])
    with pytest.raises(InputError, match="unadjusted, robust, clustered or driscoll-kraay"):
        fit_models(panel, "imr", ["poverty"], se="sandwich", lang="en")
    with pytest.raises(InputError, match="tipo de error estándar 'sandwich' desconocido"):
        fit_models(panel, "imr", ["poverty"], se="sandwich", lang="es")
    with pytest.raises(InputError, match="modelo desconocido 'fx'"):
        fit_models(panel, "imr", ["poverty"], models=["fx"], lang="es")
    with pytest.raises(InputError, match="between 0 and 1"):
        fit_models(panel, "imr", ["poverty"], conf_level=95, lang="en")
    with pytest.raises(InputError, match="weights must be None or 'births'"):
        fit_models(panel, "imr", ["poverty"], weights="population", lang="en")
    with pytest.raises(InputError, match="covariate|covariable"):
        fit_models(panel, "imr", [])


def test_hausman_generalised_inverse_when_difference_not_positive_definite():
    names = ["a", "b"]
    fe = Fit("fe", "within", pd.Series([1.0, 2.0], index=names),
             pd.DataFrame([[2.0, 0.0], [0.0, 1.0]], index=names, columns=names), "unadjusted")
    re = Fit("re", "swar", pd.Series([0.5, 1.0], index=names),
             pd.DataFrame([[1.0, 0.0], [0.0, 1.5]], index=names, columns=names), "unadjusted")
    row = hausman(fe, re, lang="en")
    # V_FE - V_RE = diag(1, -0.5): Moore-Penrose inverse diag(1, -2); H = 0.25 - 2 = -1.75, df = rank 2
    assert row["statistic"] == pytest.approx(0.5 ** 2 * 1 + 1.0 ** 2 * -2)
    assert row["df"] == 2
    assert "not positive definite" in row["note"] and "generalised inverse" in row["note"]
    singular = Fit("re", "swar", pd.Series([0.5, 1.0], index=names),
                   pd.DataFrame([[1.0, 0.0], [0.0, 1.0]], index=names, columns=names), "unadjusted")
    row = hausman(fe, singular, lang="en")
    assert row["df"] == 1 and row["statistic"] == pytest.approx(0.25)


def test_summary_in_both_languages(fitted):
    res = fitted
    assert "Random effects [re]" in res.summary("en") and "Swamy-Arora" in res.summary("en")
    assert "Efectos aleatorios [re]" in res.summary("es")


ENGLISH_PHRASES = ("random effects", "fixed effects", "within (unit", "pooled OLS", "clustered by", "robust (",
                   "robust =", "heteroskedasticity",
                   "unadjusted", "offset log(births)", "year effects", "births-weighted", "theta per unit",
                   "unbalanced", "standard errors", "first differences", "negative binomial", "Poisson GLM",
                   "sandwich", "model-based", "conditional", "means")


@pytest.mark.parametrize("se", ["clustered", "robust", "unadjusted", "driscoll-kraay"])
def test_spanish_summary_has_no_english_descriptions(panel, se):
    """Every method and standard-error description is shown in Spanish with --lang es (the tables keep
    the English ``method`` text, like every brecha table)."""
    res = fit_models(panel, "imr", ["poverty", "distance"], se=se, time_effects=se == "robust",
                     weights="births" if se == "unadjusted" else None,
                     models=["pooled", "fe", "re", "between", "fd", "cre", "poisson", "negbin", "poisson_fe",
                             "poisson_re"] if se == "clustered" else ["pooled", "fe", "re", "cre", "poisson_fe"],
                     lang="es")
    text = res.summary("es")
    for phrase in ENGLISH_PHRASES:
        assert phrase not in text, phrase
    assert "efectos aleatorios, Swamy-Arora" in text
    assert "Swamy-Arora" in res.coefficients.query("model == 're'")["method"].iloc[0]


@pytest.mark.filterwarnings("ignore")
def test_cli_chile_2006_2012(tmp_path, capsys):
    from brecha.cli.main import main

    out = tmp_path / "imr.csv"
    code = main(["--lang", "en", "models", "--example", "chile", "--outcome", "imr", "--covariates",
                 "poverty,spending", "--models", "pooled,fe,re", "--se", "clustered",
                 "--years", "2006-2012", "-o", str(out)])
    assert code == 0
    coefs = pd.read_csv(out)
    assert list(coefs.columns[:8]) == ["model", "term", "estimate", "se", "statistic", "p_value", "lower", "upper"]
    assert set(coefs["model"]) == {"pooled", "fe", "re"}
    assert set(coefs["term"]) == {"intercept", "poverty", "health_spending_pc"}
    tests = pd.read_csv(tmp_path / "imr.tests.csv")
    assert list(tests.columns[:4]) == ["test", "statistic", "df", "p_value"]
    assert tests["test"].str.contains("Hausman").sum() == 2
    notes = pd.read_csv(tmp_path / "imr.notes.csv")["note"]
    for name in ("poverty", "health_spending_pc"):
        note = notes[notes.str.startswith(f"Covariate {name}:")].iloc[0]
        assert "observed" in note and "filling: interpolate" in note
    screen = capsys.readouterr().out
    assert "Random effects [re]" in screen and "unbalanced" in screen and "Covariate poverty" in screen


@pytest.mark.filterwarnings("ignore")
def test_unknown_covariate_lists_what_brecha_can_build():
    from brecha import datasets

    with pytest.raises(InputError) as err:
        fit_models(datasets.chile(), "imr", ["povrety"], lang="en")
    text = str(err.value)
    assert "povrety" in text and "poverty" in text and "distance_hospital_km" in text
    assert err.value.column == "povrety"


@pytest.mark.filterwarnings("ignore")
def test_cli_xlsx_has_sheets(tmp_path):
    from brecha.cli.main import main

    out = tmp_path / "m.xlsx"
    assert main(["models", "--example", "chile", "--covariates", "poverty,sapu", "--models", "fe,cre,poisson",
                 "--years", "2009-2012", "-o", str(out)]) == 0
    sheets = pd.read_excel(out, sheet_name=None)
    assert {"coefficients", "tests", "notes", "fit_info"} <= set(sheets)
    assert "rate_ratio" in sheets["coefficients"].columns


def test_collinear_covariates_message():
    from brecha.models import fit_frame

    g = pd.read_csv(__import__("pathlib").Path(__file__).resolve().parents[1] / "reference" / "grunfeld.csv")
    g["value_twice"] = 2 * g["value"]
    with pytest.raises(InputError, match="collinear.*drop one of them"):
        fit_frame(g, "inv", ["value", "value_twice"], unit="firm", lang="en")
