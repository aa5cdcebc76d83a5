"""`brecha models` on panels that cannot identify some models: one year, one unit, no deaths.

Each case runs the real CLI on a file written to disk and checks the exit code (2: a clear refusal, never
the internal-error path), the key words of the message in English and Spanish, and that the models that
remain possible still give the numbers they gave before these checks existed.
"""
import numpy as np
import pandas as pd
import pytest

from brecha.cli.main import main

LANGS = ("en", "es")


@pytest.fixture(scope="module")
def chile():
    from brecha import datasets

    return datasets.chile().data


def _write(tmp_path, frame, name):
    path = tmp_path / name
    frame.to_csv(path, index=False)
    return str(path)


def _cli(capsys, lang, *argv):
    code = main(["--lang", lang, "models", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _no_internal_error(err):
    assert "internal" not in err and "interno" not in err
    assert "RuntimeWarning" not in err and "divide" not in err


# ------------------------------------------------------------------------------------------ one year
ONE_YEAR = {"en": ("the panel has one year (2012)", "two years per unit", "not estimated", "--models pooled"),
            "es": ("el panel tiene un solo año (2012)", "dos años por unidad", "no se estiman", "--models pooled")}


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("lang", LANGS)
def test_one_year_panel_default_models_refused_naming_fe_re_and_pooled(tmp_path, capsys, chile, lang):
    panel = _write(tmp_path, chile[chile["year"] == 2012], "year2012.csv")
    code, out, err = _cli(capsys, lang, panel, "--covariates", "poverty")
    assert code == 2
    _no_internal_error(err)
    for words in ONE_YEAR[lang]:
        assert words in err
    assert "fe, re" in err
    assert "Empty DataFrame" not in out


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("models", ["fe", "re", "cre", "fe2", "fd", "poisson_fe", "negbin_fe", "pooled,re"])
def test_one_year_panel_refuses_every_model_that_needs_several_years(tmp_path, capsys, chile, models):
    panel = _write(tmp_path, chile[chile["year"] == 2012], "year2012.csv")
    for lang in LANGS:
        code, out, err = _cli(capsys, lang, panel, "--covariates", "poverty", "--models", models)
        assert code == 2
        _no_internal_error(err)
        assert ONE_YEAR[lang][0] in err and ONE_YEAR[lang][2] in err
        assert models.split(",")[-1] in err
        assert "Empty DataFrame" not in out


@pytest.mark.filterwarnings("ignore")
def test_one_year_panel_pooled_and_count_models_give_the_same_numbers(tmp_path, capsys, chile):
    """pooled, between, poisson and negbin need no year within units: their numbers are those brecha gave
    before the one-year check (2012, Chilean communes, poverty)."""
    panel = _write(tmp_path, chile[chile["year"] == 2012], "year2012.csv")
    out_csv = tmp_path / "m.csv"
    code, out, err = _cli(capsys, "en", panel, "--covariates", "poverty", "--models", "pooled,between,poisson,negbin",
                          "-o", str(out_csv))
    assert code == 0
    _no_internal_error(err)
    c = pd.read_csv(out_csv).set_index(["model", "term"])
    before = {("pooled", "intercept"): (6.962067475140432, 0.9256568370226896),
              ("pooled", "poverty"): (0.028081440598640713, 0.049159351459024926),
              ("between", "poverty"): (0.028081440598640713, 0.04915935145902492),
              ("poisson", "intercept"): (-4.9527657746726135, 0.0775070039380826),
              ("poisson", "poverty"): (0.0035867327434589125, 0.004518881254687175),
              ("negbin", "poverty"): (0.0032379637044878573, 0.0044224057523484395)}
    for key, (estimate, se) in before.items():
        assert c.loc[key, "estimate"] == pytest.approx(estimate, rel=1e-6)
        assert c.loc[key, "se"] == pytest.approx(se, rel=1e-6)
    notes = pd.read_csv(tmp_path / "m.notes.csv")["note"]
    assert notes.str.contains(r"not run: the panel has one year \(2012\)").any()
    # every covariate is constant within units with one year each: no advice to use re or cre
    assert not notes.str.contains("time-invariant").any()
    code, out, err = _cli(capsys, "es", panel, "--covariates", "poverty", "--models", "pooled")
    assert code == 0
    assert "no calculadas: el panel tiene un solo año (2012)" in out


# ------------------------------------------------------------------------------------------ one unit
@pytest.mark.filterwarnings("ignore")
def test_one_unit_panel_refuses_clustered_errors_and_unit_effects(tmp_path, capsys, chile):
    panel = _write(tmp_path, chile[chile["unit"].astype(str) == "13101"], "one.csv")
    words = {"en": ("option --se", "the panel has one unit (13101)", "clustered by unit", "--se robust"),
             "es": ("opción --se", "el panel tiene una sola unidad (13101)", "agrupados por unidad", "--se robust")}
    for lang in LANGS:
        code, out, err = _cli(capsys, lang, panel, "--covariates", "poverty", "--models", "pooled")
        assert code == 2
        _no_internal_error(err)
        for word in words[lang]:
            assert word in err
    for lang, text in (("en", "not estimated: fe, re"), ("es", "no se estiman: fe, re")):
        code, out, err = _cli(capsys, lang, panel, "--covariates", "poverty")
        assert code == 2
        _no_internal_error(err)
        assert text in err and "--models pooled --se robust" in err
    for models in ("re", "between", "poisson_fe", "poisson_re"):
        code, out, err = _cli(capsys, "en", panel, "--covariates", "poverty", "--models", models, "--se", "robust")
        assert code == 2 and "one unit (13101)" in err and f"not estimated: {models}" in err
    code, out, err = _cli(capsys, "en", panel, "--covariates", "poverty", "--models", "pooled", "--se", "robust",
                          "--time-effects")
    assert code == 2 and "--time-effects" in err and "one unit (13101)" in err
    _no_internal_error(err)


@pytest.mark.filterwarnings("ignore")
def test_one_unit_panel_pooled_with_robust_errors_skips_the_tests_with_a_note(tmp_path, capsys, chile):
    panel = _write(tmp_path, chile[chile["unit"].astype(str) == "13101"], "one.csv")
    out_csv = tmp_path / "m.csv"
    code, out, err = _cli(capsys, "en", panel, "--covariates", "poverty", "--models", "pooled", "--se", "robust",
                          "-o", str(out_csv))
    assert code == 0
    _no_internal_error(err)
    c = pd.read_csv(out_csv).set_index("term")
    assert c.loc["intercept", "estimate"] == pytest.approx(6.512962985533884, rel=1e-9)
    assert c.loc["poverty", "estimate"] == pytest.approx(-0.023016798190363424, rel=1e-9)
    assert c.loc["poverty", "se"] == pytest.approx(0.32670100811514474, rel=1e-9)
    assert len(pd.read_csv(tmp_path / "m.tests.csv")) == 0
    assert "tests of unit effects (F, Breusch-Pagan, Hausman) not run: the panel has one unit (13101)" in out
    code, out, err = _cli(capsys, "es", panel, "--covariates", "poverty", "--models", "pooled", "--se", "robust")
    assert code == 0
    assert "pruebas de efectos de unidad (F, Breusch-Pagan, Hausman) no calculadas: el panel tiene una sola " \
           "unidad (13101)" in out


def test_f_and_breusch_pagan_tests_are_undefined_not_a_division_by_zero():
    from brecha.models import tests

    row = tests.f_test_effects(10.0, 10.0, nobs=10, n_units=1, k_within=1, k_pooled=1, lang="en")
    assert np.isnan(row["statistic"]) and "undefined" in row["note"]
    row = tests.breusch_pagan(np.arange(5.0), np.zeros(5, int), lang="es")
    assert np.isnan(row["statistic"]) and "no definida" in row["note"]


# ------------------------------------------------------------------------------------------ no deaths
@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("models", ["poisson", "negbin", "poisson_fe", "negbin_fe", "poisson_re", "pooled,fe,re"])
def test_no_deaths_refuses_count_and_linear_models(tmp_path, capsys, chile, models):
    zero = chile[chile["unit"].astype(str).isin(["09102", "09103"])].copy()
    zero["deaths"] = 0
    panel = _write(tmp_path, zero, "zero.csv")
    words = {"en": ("no deaths in the panel", "a count model cannot be estimated", f"not estimated: {models.replace(',', ', ')}",
                    "What to do"),
             "es": ("no hay defunciones en el panel", "un modelo de conteo no se puede estimar",
                    f"no se estiman: {models.replace(',', ', ')}", "Qué hacer")}
    for lang in LANGS:
        code, out, err = _cli(capsys, lang, panel, "--covariates", "poverty", "--models", models)
        assert code == 2
        _no_internal_error(err)
        for word in words[lang]:
            assert word in err


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("model", ["poisson_fe", "negbin_fe"])
def test_fe_count_models_name_the_units_without_deaths_they_drop(tmp_path, capsys, chile, model):
    part = chile[chile["unit"].astype(str).isin(["09101", "09102", "09103", "09104", "09105"])].copy()
    part.loc[part["unit"].astype(str).isin(["09102", "09103"]), "deaths"] = 0
    panel = _write(tmp_path, part, "partial.csv")
    out_csv = tmp_path / "m.csv"
    code, out, err = _cli(capsys, "en", panel, "--covariates", "poverty", "--models", model, "-o", str(out_csv))
    assert code == 0
    _no_internal_error(err)
    assert "drops 2 units with no death at all (09102, 09103)" in out
    c = pd.read_csv(out_csv).set_index("term")
    assert c.loc["poverty", "estimate"] == pytest.approx(-0.0247911589, rel=1e-6)   # as before the checks
    code, out, err = _cli(capsys, "es", panel, "--covariates", "poverty", "--models", model)
    assert code == 0
    assert "descarta 2 unidades sin ninguna defunción (09102, 09103)" in out


@pytest.mark.filterwarnings("always")
@pytest.mark.parametrize("model", ["poisson_fe", "negbin_fe"])
def test_fe_count_models_with_one_unit_with_deaths_no_english_warning_in_spanish(tmp_path, capsys, chile, model):
    """Region 15, 2010-2012: only Arica (15101) has deaths. The clustered sandwich of one unit divided by
    zero ("Aviso (RuntimeWarning): divide by zero encountered in divide"); now a clear refusal."""
    region = chile[chile["unit"].astype(str).str.startswith("15")]
    panel = _write(tmp_path, region, "r15.csv")
    code, out, err = _cli(capsys, "es", panel, "--covariates", "poverty", "--years", "2010-2012", "--models", model)
    assert code == 2
    _no_internal_error(err)
    assert "solo una unidad tiene defunciones (15101)" in err and "15102, 15201, 15202" in err
    assert f"no se estiman: {model}" in err and "--models poisson,negbin" in err
    code, out, err = _cli(capsys, "en", panel, "--covariates", "poverty", "--years", "2010-2012", "--models", model)
    assert code == 2 and "only one unit has deaths (15101)" in err
    code, out, err = _cli(capsys, "es", panel, "--covariates", "poverty", "--years", "2010-2012", "--models",
                          "poisson")
    assert code == 0
    _no_internal_error(err)


# ------------------------------------------------------------------------------------------ nothing left
@pytest.mark.filterwarnings("ignore")
def test_every_model_dropped_is_an_error_not_an_empty_table(tmp_path, capsys, chile):
    few = chile[chile["unit"].astype(str).str.startswith("09") & chile["year"].between(2006, 2010)]
    panel = _write(tmp_path, few, "few.csv")
    for lang, words in (("en", ("none of the models asked could be estimated", "no time-varying covariate")),
                        ("es", ("ningún modelo pedido se pudo estimar", "sin covariables que varíen"))):
        code, out, err = _cli(capsys, lang, panel, "--covariates", "distance_hospital_km", "--models", "fe")
        assert code == 2
        _no_internal_error(err)
        assert all(w in err for w in words)
        assert "Empty DataFrame" not in out


def test_negbin_without_overdispersion_is_the_poisson_fit_and_ends(tmp_path):
    """Region 15 (4 communes), poverty, year effects: the NB2 maximum-likelihood alpha goes to 0 (8.6e-9 after
    BFGS), and statsmodels' Newton step then stalled for half an hour in scipy's polygamma (1/alpha ~ 1e8).
    At alpha -> 0 the NB2 likelihood's supremum is the Poisson one, so negbin is the Poisson fit with alpha 0
    and a note (as negbin_fe does). Run as a real process with a time limit: a hang fails the test."""
    import subprocess
    import sys

    from statsmodels.discrete.discrete_model import NegativeBinomial
    import statsmodels.api as sm

    from brecha import datasets

    path = tmp_path / "reg15.csv"
    datasets.chile().subset(region=["15"]).to_file(path)
    out = tmp_path / "m.csv"
    run = subprocess.run([sys.executable, "-m", "brecha.cli.main", "-q", "--lang", "en", "models", str(path),
                          "--covariates", "poverty", "--models", "negbin,poisson", "--time-effects", "-o", str(out)],
                         capture_output=True, text=True, timeout=240)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "negbin: the estimated overdispersion is nil (alpha < 1e-6)" in run.stdout
    table = pd.read_csv(out)
    nb = table[table["model"] == "negbin"].set_index("term")["estimate"]
    po = table[table["model"] == "poisson"].set_index("term")["estimate"]
    assert np.allclose(nb.loc[po.index], po, rtol=0, atol=0)
    # independent: statsmodels' own NB2 maximum likelihood (BFGS, which does not stall) puts alpha below 1e-6,
    # and along the Poisson coefficients the NB2 log-likelihood only falls as alpha grows from 0
    d = pd.read_csv(path, dtype={"unit": str})
    d = d[d["births"] > 0].dropna(subset=["poverty"])
    X = pd.get_dummies(d["year"].astype(str), prefix="y", drop_first=True, dtype=float)
    X.insert(0, "poverty", d["poverty"].to_numpy())
    X = sm.add_constant(X)
    offset = np.log(d["births"].to_numpy(float))
    pois = sm.GLM(d["deaths"].to_numpy(float), X, family=sm.families.Poisson(), offset=offset).fit()
    assert pois.params["poverty"] == pytest.approx(po["poverty"], rel=1e-8)
    nb2 = NegativeBinomial(d["deaths"].to_numpy(float), X, loglike_method="nb2", offset=offset)
    assert nb2.fit(disp=0, maxiter=500, method="bfgs").params.iloc[-1] < 1e-6
    at = [nb2.loglike(np.append(pois.params.to_numpy(), a)) for a in (1e-9, 1e-5, 1e-3, 1e-1)]
    assert at[0] > at[1] > at[2] > at[3]
