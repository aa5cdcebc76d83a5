"""Linear panel models against R plm 2.6-2 on Grunfeld (balanced and unbalanced): REFERENCE.md C.4,
grunfeld_plm.expected.json and grunfeld_unbalanced_plm.expected.json (relative tolerance 1e-6)."""
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from brecha.models import fit_frame
from brecha.models._design import design_from_frame
from brecha.models.random_effects import swamy_arora

REF = Path(__file__).resolve().parents[1] / "reference"
RTOL = 1e-6


@pytest.fixture(scope="module")
def balanced():
    g = pd.read_csv(REF / "grunfeld.csv")
    expected = json.loads((REF / "grunfeld_plm.expected.json").read_text())
    res = fit_frame(g, "inv", ["value", "capital"], unit="firm",
                    models=["pooled", "fe", "fe2", "re", "between", "fd", "cre"], se="unadjusted", lang="en")
    return g, expected, res


@pytest.fixture(scope="module")
def unbalanced():
    g = pd.read_csv(REF / "grunfeld_unbalanced.csv")
    expected = json.loads((REF / "grunfeld_unbalanced_plm.expected.json").read_text())
    res = fit_frame(g, "inv", ["value", "capital"], unit="firm", models=["pooled", "fe", "re"],
                    se="unadjusted", lang="en")
    return g, expected, res


def _coef(res, model, term):
    c = res.coefficients
    term = "intercept" if term == "(Intercept)" else term
    return c[(c["model"] == model) & (c["term"] == term)].iloc[0]


def _test(res, word):
    t = res.tests
    return t[t["test"].str.contains(word, regex=False)].iloc[0]


@pytest.mark.parametrize("model,key", [("pooled", "pooled"), ("fe", "within"), ("fe2", "within_twoways")])
def test_balanced_ols_models_match_plm(balanced, model, key):
    _, expected, res = balanced
    for term, ref in expected[key]["coefficients"].items():
        row = _coef(res, model, term)
        assert row["estimate"] == pytest.approx(ref["estimate"], rel=RTOL)
        assert row["se"] == pytest.approx(ref["se"], rel=RTOL)
        assert row["statistic"] == pytest.approx(ref["stat"], rel=RTOL)
        assert row["p_value"] == pytest.approx(ref["p_value"], rel=1e-5)
    info = res.fit_info.set_index("model")
    assert info.loc[model, "df_resid"] == expected[key]["df_residual"]


def test_balanced_random_effects_swamy_arora(balanced):
    _, expected, res = balanced
    ref = expected["random"]["swar"]
    for term, r in ref["coefficients"].items():
        row = _coef(res, "re", term)
        assert row["estimate"] == pytest.approx(r["estimate"], rel=RTOL)
        assert row["se"] == pytest.approx(r["se"], rel=RTOL)
        assert row["p_value"] == pytest.approx(r["p_value"], rel=1e-5)  # plm: normal p-values for RE
    info = res.fit_info.set_index("model").loc["re"]
    assert info["sigma2_e"] == pytest.approx(ref["sigma2_idios"], rel=RTOL)
    assert info["sigma2_u"] == pytest.approx(ref["sigma2_id"], rel=RTOL)
    assert info["theta"] == pytest.approx(ref["theta"], rel=RTOL)
    assert info["r_squared"] == pytest.approx(ref["r_squared"], abs=1e-8)
    assert "Swamy-Arora" in info["method"]


def test_between_and_first_differences_match_reference_c4(balanced):
    _, _, res = balanced
    # REFERENCE.md C.4 (plm 2.6-2): between and FD with intercept
    assert _coef(res, "between", "value")["estimate"] == pytest.approx(0.134646087, rel=1e-6)
    assert _coef(res, "between", "capital")["se"] == pytest.approx(0.190937799, rel=1e-6)
    assert _coef(res, "between", "(Intercept)")["estimate"] == pytest.approx(-8.527114, rel=1e-6)
    assert _coef(res, "fd", "value")["estimate"] == pytest.approx(0.089762495, rel=1e-6)
    assert _coef(res, "fd", "value")["se"] == pytest.approx(0.008363585, rel=1e-6)
    assert _coef(res, "fd", "capital")["estimate"] == pytest.approx(0.291766720, rel=1e-6)
    assert _coef(res, "fd", "(Intercept)")["estimate"] == pytest.approx(-1.818890, rel=1e-6)
    assert _coef(res, "fd", "(Intercept)")["se"] == pytest.approx(3.565593, rel=1e-6)


def test_balanced_tests_match_plm(balanced):
    _, expected, res = balanced
    h = _test(res, "FE vs RE")
    assert h["statistic"] == pytest.approx(expected["hausman"]["statistic"], rel=RTOL)
    assert h["df"] == 2
    assert h["p_value"] == pytest.approx(expected["hausman"]["p_value"], rel=RTOL)
    aux = _test(res, "auxiliary")
    assert aux["statistic"] == pytest.approx(expected["hausman_aux_regression"]["statistic"], rel=RTOL)
    assert aux["p_value"] == pytest.approx(expected["hausman_aux_regression"]["p_value"], rel=RTOL)
    f = _test(res, "F test")
    assert f["statistic"] == pytest.approx(49.177, abs=5e-4)  # plm pFtest; SAS 49.18
    assert (f["df"], f["df_denominator"]) == (9, 188)
    bp = _test(res, "Breusch-Pagan")
    assert bp["statistic"] == pytest.approx(798.162, abs=5e-4)  # plmtest bp; Stata xttest0 798.162


def test_mundlak_slopes_equal_within(balanced):
    _, _, res = balanced
    for term in ("value", "capital"):
        assert _coef(res, "cre", term)["estimate"] == pytest.approx(_coef(res, "fe", term)["estimate"], rel=1e-9)


def test_unbalanced_matches_plm(unbalanced):
    g, expected, res = unbalanced
    assert len(g) == expected["nobs"] == 186
    for key, model in (("within", "fe"), ("pooled", "pooled")):
        for r in expected[key]:
            row = _coef(res, model, r["term"])
            assert row["estimate"] == pytest.approx(r["estimate"], rel=RTOL)
            assert row["se"] == pytest.approx(r["se"], rel=RTOL)
    for r in expected["random"]["coefficients"]:
        row = _coef(res, "re", r["term"])
        assert row["estimate"] == pytest.approx(r["estimate"], rel=RTOL)
        assert row["se"] == pytest.approx(r["se"], rel=RTOL)
    info = res.fit_info.set_index("model").loc["re"]
    assert info["sigma2_e"] == pytest.approx(expected["random"]["sigma2_idios"], rel=RTOL)
    assert info["sigma2_u"] == pytest.approx(expected["random"]["sigma2_id"], rel=RTOL)
    th = expected["random"]["theta_summary"]
    assert info["theta_min"] == pytest.approx(th["Min."], rel=RTOL)
    assert info["theta_max"] == pytest.approx(th["Max."], rel=RTOL)
    assert info["theta_median"] == pytest.approx(th["Median"], rel=RTOL)
    assert info["theta_mean"] == pytest.approx(th["Mean"], rel=RTOL)
    assert "unbalanced" in info["method"]
    # plm's r.squared: centred R² of the quasi-demeaned regression (theta per unit here)
    assert info["r_squared"] == pytest.approx(expected["random"]["r_squared"], abs=1e-8)
    assert info["r_squared_adj"] == pytest.approx(expected["random"]["adj_r_squared"], abs=1e-8)
    h = _test(res, "FE vs RE")
    assert h["statistic"] == pytest.approx(expected["hausman"]["statistic"], rel=RTOL)
    assert h["p_value"] == pytest.approx(expected["hausman"]["p_value"], rel=RTOL)


def test_not_linearmodels_random_effects_on_unbalanced(unbalanced):
    """The issue's motivating gap: linearmodels' RandomEffects gives an intercept of -72.02 and s2_u 7230 on
    the unbalanced Grunfeld, plm -71.65 and 6657; ours must be plm's."""
    from linearmodels.panel import RandomEffects

    g, expected, res = unbalanced
    d = design_from_frame(g, "inv", ["value", "capital"], unit="firm")
    comp = swamy_arora(d.frame["inv"].to_numpy(), d.frame[["value", "capital"]].to_numpy(), d.unit_index)
    assert comp["sigma2_u"] == pytest.approx(expected["random"]["sigma2_id"], rel=RTOL)
    indexed = g.set_index(["firm", "year"]).assign(const=1.0)
    lm = RandomEffects(indexed["inv"], indexed[["const", "value", "capital"]]).fit()
    assert lm.params["const"] == pytest.approx(-72.023, abs=1e-3)
    assert lm.variance_decomposition["Effects"] == pytest.approx(7230.09, abs=0.01)
    assert _coef(res, "re", "intercept")["estimate"] == pytest.approx(-71.6454957931044, rel=RTOL)


@pytest.fixture(scope="module")
def clustered(balanced):
    g, _, _ = balanced
    return fit_frame(g, "inv", ["value", "capital"], unit="firm", models=["fe", "re", "cre"], se="clustered",
                     lang="en")


def test_clustered_standard_errors_match_plm_hc1(balanced, clustered):
    """REFERENCE.md C.4: plm vcovHC(method="arellano", type="HC1") = 0.014414397 / 0.050043455 for FE."""
    _, expected, _ = balanced
    res = clustered
    assert _coef(res, "fe", "value")["se"] == pytest.approx(0.014414397, rel=1e-6)
    assert _coef(res, "fe", "capital")["se"] == pytest.approx(0.050043455, rel=1e-6)
    for term, ref in expected["within"]["coefficients_cluster_hc1"].items():
        assert _coef(res, "fe", term)["se"] == pytest.approx(ref["se"], rel=RTOL)
    for term, ref in expected["random"]["swar"]["coefficients_cluster_hc1"].items():
        assert _coef(res, "re", term)["se"] == pytest.approx(ref["se"], rel=RTOL)
    # the classic Hausman keeps the conventional variances whatever se is asked
    assert _test(res, "FE vs RE")["statistic"] == pytest.approx(2.33036689367546, rel=RTOL)


def test_driscoll_kraay_relation_to_plm_vcovscc(balanced):
    """linearmodels kernel, Bartlett, bandwidth floor(20^(1/4)) = 2: REFERENCE.md C.4 gives 0.018242 /
    0.035914; plm vcovSCC (same lag) 0.017686 / 0.034820 differs by sqrt(N / df_resid) = sqrt(200/188)."""
    g, _, _ = balanced
    res = fit_frame(g, "inv", ["value", "capital"], unit="firm", models=["fe"], se="driscoll-kraay")
    value, capital = _coef(res, "fe", "value")["se"], _coef(res, "fe", "capital")["se"]
    assert value == pytest.approx(0.018242, abs=1e-6)
    assert capital == pytest.approx(0.035914, abs=1e-6)
    assert value / np.sqrt(200 / 188) == pytest.approx(0.017686, abs=1e-6)
    assert capital / np.sqrt(200 / 188) == pytest.approx(0.034820, abs=1e-6)
    assert "bandwidth 2" in res.coefficients["se_type"].iloc[0]


def test_robust_mundlak_hausman_is_cluster_wald(clustered):
    """Clustered Mundlak test: Wald on the mean_ coefficients with the cluster covariance."""
    res = clustered
    cre = res.fits["cre"]
    gm = cre.params[["mean_value", "mean_capital"]].to_numpy()
    V = cre.cov.loc[["mean_value", "mean_capital"], ["mean_value", "mean_capital"]].to_numpy()
    assert _test(res, "auxiliary")["statistic"] == pytest.approx(gm @ np.linalg.solve(V, gm), rel=1e-12)
    assert "clustered" in _test(res, "auxiliary")["note"]


def test_time_invariant_covariate_vanishes_under_fe_and_cre_estimates_it(balanced):
    """A firm-level constant z: FE drops it (and the notes say so); in the balanced Mundlak model its
    coefficient equals the between estimate (the between regression of ybar on xbar and z is the only
    source of information on z; Mundlak 1978), and mean_x = b_between - b_within."""
    g, _, _ = balanced
    g = g.copy()
    g["z"] = (g["firm"] * 37 % 11).astype(float)      # constant within firm, not collinear with the rest
    res = fit_frame(g, "inv", ["value", "capital", "z"], unit="firm", models=["fe", "between", "cre"],
                    se="unadjusted", lang="en")
    assert "z" not in set(res.coefficients.query("model == 'fe'")["term"])
    assert any("time-invariant): z" in n and "vanish under fixed effects" in n for n in res.notes)
    es = fit_frame(g, "inv", ["value", "capital", "z"], unit="firm", models=["fe"], tests=False, lang="es")
    assert any("constantes en el tiempo): z" in n and "desaparecen en efectos fijos" in n for n in es.notes)
    assert _coef(res, "cre", "z")["estimate"] == pytest.approx(_coef(res, "between", "z")["estimate"], rel=1e-8)
    for term in ("value", "capital"):
        assert _coef(res, "cre", term)["estimate"] == pytest.approx(_coef(res, "fe", term)["estimate"], rel=1e-8)
        assert _coef(res, "cre", f"mean_{term}")["estimate"] == pytest.approx(
            _coef(res, "between", term)["estimate"] - _coef(res, "fe", term)["estimate"], rel=1e-7)


def test_unbalanced_r_squared_is_not_the_uncentred_one(unbalanced):
    """With theta varying by unit the transformed intercept is not constant; the uncentred
    1 - SSR / sum y*² (what linearmodels reports then) is not plm's R²."""
    g, expected, res = unbalanced
    from brecha.models.random_effects import quasi_demean

    d = design_from_frame(g, "inv", ["value", "capital"], unit="firm")
    comp = swamy_arora(d.frame["inv"].to_numpy(), d.frame[["value", "capital"]].to_numpy(), d.unit_index)
    y_star = quasi_demean(d.frame["inv"].to_numpy(), comp["theta"], d.unit_index)
    info = res.fit_info.set_index("model").loc["re"]
    uncentred = 1 - info["ssr"] / float(np.sum(y_star ** 2))
    centred = 1 - info["ssr"] / float(np.sum((y_star - y_star.mean()) ** 2))
    assert centred == pytest.approx(expected["random"]["r_squared"], abs=1e-8)
    assert abs(uncentred - expected["random"]["r_squared"]) > 1e-3
