"""Prais-Winsten estimator against R prais 1.1.4 (REFERENCE.md C.2/C.3, prais_examples.expected.json),
Stata's rho rules computed by hand, and statsmodels GLSAR for Cochrane-Orcutt at a fixed rho."""
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from brecha.errors import InputError
from brecha.trends import estimate_rho, prais_winsten

REF = Path(__file__).resolve().parents[1] / "reference"
EXPECTED = json.loads((REF / "prais_examples.expected.json").read_text())
BARIUM_TERMS = ["lchempi", "lgas", "lrtwex", "befile6", "affile6", "afdec6"]
RTOL = 1e-6


def barium():
    d = pd.read_csv(REF / "prais_barium.csv").sort_values("t")
    X = d[BARIUM_TERMS].copy()
    X.insert(0, "(Intercept)", 1.0)
    return d["lchnimp"].to_numpy(), X


def pwsample():
    d = pd.read_csv(REF / "prais_pwsample.csv").sort_values("time")
    return d["y"].to_numpy(), pd.DataFrame({"(Intercept)": 1.0, "x": d["x"].to_numpy()})


DATASETS = {"barium": barium, "pw_sample": pwsample}


@pytest.mark.parametrize("dataset", ["barium", "pw_sample"])
@pytest.mark.parametrize("kind", ["iterative", "twostep"])
def test_matches_r_prais_json(dataset, kind):
    y, X = DATASETS[dataset]()
    exp = EXPECTED[dataset][kind]
    fit = prais_winsten(y, X, iterate=(kind == "iterative"))
    coefs = exp["coefficients"]
    assert fit.names == list(coefs)
    for field, attr in [("estimate", "coef"), ("se", "se"), ("t", "t"), ("p_value", "p")]:
        np.testing.assert_allclose(getattr(fit, attr), [coefs[c][field] for c in coefs], rtol=RTOL)
    np.testing.assert_allclose(fit.rho, exp["rho"], rtol=RTOL)
    np.testing.assert_allclose(fit.rho_path, exp["rho_path"], rtol=RTOL, atol=1e-12)
    assert fit.n_iter == exp["iterations"]
    assert fit.df_resid == exp["df_residual"]
    for key, attr in [("sigma", "sigma"), ("r_squared", "r2"), ("dw_original", "dw_original"),
                      ("dw_transformed", "dw_transformed")]:
        np.testing.assert_allclose(getattr(fit, attr), exp[key], rtol=RTOL)
    for cov in ("HC0", "HC1"):
        robust = prais_winsten(y, X, iterate=(kind == "iterative"), cov=cov)
        np.testing.assert_allclose(robust.se, list(exp[f"se_{cov.lower()}"].values()), rtol=RTOL)
        np.testing.assert_allclose(robust.coef, fit.coef, rtol=1e-12)


def test_barium_ols_round_is_plain_ols():
    y, X = barium()
    exp = EXPECTED["barium"]["ols"]
    fit = prais_winsten(y, X, rho=0.0)
    np.testing.assert_allclose(fit.coef, [exp[c]["estimate"] for c in exp], rtol=RTOL)
    np.testing.assert_allclose(fit.se, [exp[c]["se"] for c in exp], rtol=RTOL)


def test_reference_c2_table():
    """REFERENCE.md C.2 as printed (6 decimals)."""
    y, X = barium()
    it = prais_winsten(y, X)
    two = prais_winsten(y, X, iterate=False)
    hc1 = prais_winsten(y, X, cov="HC1")
    np.testing.assert_allclose(it.coef, [-37.075825, 2.940963, 1.046299, 1.132774, -0.016478, -0.033158,
                                         -0.576811], atol=5e-7)
    np.testing.assert_allclose(it.se, [22.778433, 0.632838, 0.977341, 0.506656, 0.319380, 0.321809, 0.341986],
                               atol=5e-7)
    np.testing.assert_allclose(two.coef, [-35.393322, 2.959419, 0.971395, 1.119967, -0.008226, -0.032931,
                                          -0.575387], atol=5e-7)
    np.testing.assert_allclose(two.se, [22.629864, 0.615319, 0.971505, 0.494802, 0.313515, 0.316065, 0.336518],
                               atol=5e-7)
    np.testing.assert_allclose(hc1.se, [20.897425, 0.599549, 0.925151, 0.495127, 0.327779, 0.277297, 0.422552],
                               atol=5e-7)
    np.testing.assert_allclose(it.rho_path[1:], [0.27075099, 0.29103287, 0.29299903, 0.29319269, 0.29321180,
                                                 0.29321368, 0.29321387], atol=5e-9)
    assert two.rho == pytest.approx(0.27075099, abs=5e-9)
    assert (round(it.dw_original, 4), round(it.dw_transformed, 4), round(it.r2, 4)) == (1.4584, 2.0872, 0.2021)
    assert (round(it.sigma, 4), it.df_resid) == (0.5733, 124)


def test_reference_c3_apc_example():
    years = np.arange(2005, 2015)
    imr = np.array([9.1, 8.8, 8.6, 8.9, 8.2, 7.9, 7.8, 7.6, 7.4, 7.2])
    X = np.column_stack([np.ones(10), years])
    fit = prais_winsten(np.log10(imr), X)
    assert fit.rho == pytest.approx(-0.1317773, abs=5e-8)
    assert fit.n_iter == 4
    np.testing.assert_allclose(fit.coef[0], 24.0633002, atol=5e-8)
    np.testing.assert_allclose(fit.coef[1], -0.01152198, atol=5e-9)
    np.testing.assert_allclose(fit.se[0], 1.7354837, atol=5e-8)
    np.testing.assert_allclose(fit.se[1], 0.00086364, atol=5e-9)
    assert fit.t[1] == pytest.approx(-13.34, abs=5e-3)
    assert fit.p[1] == pytest.approx(9.53e-07, abs=5e-10)
    assert fit.df_resid == 8
    ols = prais_winsten(np.log10(imr), X, rho=0.0)
    np.testing.assert_allclose([ols.coef[1], ols.se[1]], [-0.01150687, 0.00095180], atol=5e-9)
    two = prais_winsten(np.log10(imr), X, iterate=False)
    assert two.rho == pytest.approx(-0.1313651, abs=5e-8)
    np.testing.assert_allclose([two.coef[1], two.se[1]], [-0.01152194, 0.00086387], atol=5e-9)


def _hand_rho(u, method, k):
    """Stata's rho rules written out with plain loops (independent of the vectorised code)."""
    n = len(u)
    cross = sum(u[t] * u[t - 1] for t in range(1, n))
    lag_sq = sum(u[t - 1] ** 2 for t in range(1, n))
    lead_sq = sum(u[t] ** 2 for t in range(1, n))
    all_sq = sum(v ** 2 for v in u)
    dw = sum((u[t] - u[t - 1]) ** 2 for t in range(1, n)) / all_sq
    return {"regress": cross / lag_sq, "freg": cross / lead_sq, "tscorr": cross / all_sq,
            "dw": 1 - dw / 2, "theil": cross / all_sq * (n - k) / n,
            "nagar": ((1 - dw / 2) * n * n + (k + 1) ** 2) / (n * n - (k + 1) ** 2)}[method]


@pytest.mark.parametrize("method", ["regress", "freg", "tscorr", "dw", "theil", "nagar"])
def test_rho_methods_by_hand(method):
    y, X = pwsample()
    Xa = X.to_numpy()
    k = Xa.shape[1]
    # the two-step estimate: rho from the OLS residuals, then one transformed fit
    beta = np.linalg.lstsq(Xa, y, rcond=None)[0]
    u = list(y - Xa @ beta)
    rho = _hand_rho(u, method, k)
    assert estimate_rho(np.array(u), method, k) == pytest.approx(rho, rel=1e-12)
    fit = prais_winsten(y, X, rho_method=method, iterate=False)
    assert fit.rho == pytest.approx(rho, rel=1e-10)
    # hand transform at that rho, then OLS
    w = np.sqrt(1 - rho ** 2)
    ys = np.r_[w * y[0], y[1:] - rho * y[:-1]]
    xs = np.vstack([w * Xa[0], Xa[1:] - rho * Xa[:-1]])
    b = np.linalg.lstsq(xs, ys, rcond=None)[0]
    np.testing.assert_allclose(fit.coef, b, rtol=1e-10)
    e = ys - xs @ b
    s2 = e @ e / (len(y) - k)
    np.testing.assert_allclose(fit.se, np.sqrt(np.diag(s2 * np.linalg.inv(xs.T @ xs))), rtol=1e-10)
    iterated = prais_winsten(y, X, rho_method=method)
    assert iterated.converged
    u_last = y - Xa @ iterated.coef
    # at convergence the rule applied to the final residuals returns (nearly) the final rho
    assert _hand_rho(list(u_last), method, k) == pytest.approx(iterated.rho, abs=1e-5)


def test_nagar_matches_stata_statalist_numbers():
    """Statalist 1738814 (webuse qsales; N=20, 2 coefficients): rho_dw .63263622 -> rho_nagar .6702161."""
    n, k, rho_dw = 20, 2, 0.63263622
    dw = 2 * (1 - rho_dw)
    # residual series with that DW is not needed: the formula only uses DW, N and k
    big_k = k + 1
    assert (rho_dw * n * n + big_k ** 2) / (n * n - big_k ** 2) == pytest.approx(0.6702161, abs=5e-8)
    u = np.zeros(n)
    u[0] = 1.0  # any series: check estimate_rho uses K = k + 1 with its own DW
    d = float(np.sum(np.diff(u) ** 2) / np.sum(u ** 2))
    assert estimate_rho(u, "nagar", k) == pytest.approx(((1 - d / 2) * n * n + 9) / (n * n - 9))
    assert dw == pytest.approx(0.73472756)


def test_cochrane_orcutt_matches_statsmodels_glsar_at_fixed_rho():
    sm = pytest.importorskip("statsmodels.api")
    rng = np.random.default_rng(20240601)
    n = 40
    e = np.zeros(n)
    for t in range(1, n):
        e[t] = 0.6 * e[t - 1] + rng.normal()
    x = np.arange(n, dtype=float)
    y = 2.0 + 0.1 * x + e
    X = sm.add_constant(x)
    model = sm.GLSAR(y, X, rho=1)
    glsar = model.iterative_fit(maxiter=50)
    rho = float(model.rho[0])
    ours = prais_winsten(y, X, corc=True, rho=rho)
    np.testing.assert_allclose(ours.coef, glsar.params, rtol=1e-9)
    np.testing.assert_allclose(ours.se, glsar.bse, rtol=1e-9)
    assert ours.df_resid == glsar.df_resid == n - 1 - 2
    assert ours.first_dropped and ours.nobs == n - 1
    # iterated Cochrane-Orcutt with Stata's rule is a different fixed point than GLSAR's Yule-Walker rho
    iterated = prais_winsten(y, X, corc=True)
    assert iterated.converged and abs(iterated.rho - rho) > 1e-4


def test_many_series_equal_one_at_a_time():
    rng = np.random.default_rng(7)
    n, s = 15, 6
    x = np.arange(n, dtype=float)
    X = np.column_stack([np.ones(n), x])
    Y = 1.0 - 0.02 * x + rng.normal(scale=0.1, size=(s, n))
    many = prais_winsten(Y, X)
    per_x = prais_winsten(Y, np.broadcast_to(X, (s, n, 2)).copy(), cov="HC1")
    for i in range(s):
        one = prais_winsten(Y[i], X)
        np.testing.assert_allclose(many.coef[i], one.coef, rtol=1e-10)
        np.testing.assert_allclose(many.se[i], one.se, rtol=1e-10)
        assert many.n_iter[i] == one.n_iter
        np.testing.assert_allclose(many.rho_path[i, : one.n_iter + 1], one.rho_path, rtol=1e-10, atol=1e-14)
        assert np.all(np.isnan(many.rho_path[i, one.n_iter + 1:]))
        np.testing.assert_allclose(per_x.coef[i], one.coef, rtol=1e-10)
    assert len(many.table()) == s * 2


def test_rho_outside_unit_interval_drops_first_observation():
    y = np.array([1.0, 2.0, 4.0, 8.0, 16.0, 32.0])
    X = np.column_stack([np.ones(6), np.arange(6.0)])
    fit = prais_winsten(y, X, rho=1.2)
    assert fit.first_dropped and fit.nobs == 5 and fit.df_resid == 3
    ys = y[1:] - 1.2 * y[:-1]
    xs = X[1:] - 1.2 * X[:-1]
    np.testing.assert_allclose(fit.coef, np.linalg.lstsq(xs, ys, rcond=None)[0], rtol=1e-10)


def test_bad_input_messages():
    X = np.column_stack([np.ones(5), np.arange(5.0)])
    with pytest.raises(InputError, match="rho"):
        prais_winsten(np.arange(5.0), X, rho_method="yule")
    with pytest.raises(InputError, match="HC3|covarian"):
        prais_winsten(np.arange(5.0), X, cov="HC3")
    with pytest.raises(InputError, match=r"y \(4,\)|\(4,\)"):
        prais_winsten(np.arange(4.0), X)
    with pytest.raises(InputError, match="NaN"):
        prais_winsten(np.array([1.0, np.nan, 2, 3, 4]), X)
    with pytest.raises(InputError, match="at least 3|al menos 3"):
        prais_winsten(np.arange(2.0), X[:2])
