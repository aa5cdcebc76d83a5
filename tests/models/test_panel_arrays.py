"""Issue 19: the pooled, FE (one- and two-way), RE and CRE fits computed from the call's numpy arrays (``panel_arrays``,
``least_squares``) equal linearmodels' fits to 1e-9 relative, for every standard-error type, and so do the
tests built on them.

Independent reference: linearmodels ``PooledOLS`` and ``PanelOLS(entity_effects=True[, time_effects=True])``
fitted here on the
(unit, year)-indexed frame, and, for RE/CRE, ``PooledOLS`` on quasi-demeaned data made here with pandas
``groupby().transform("mean")`` and the Swamy-Arora theta of ``swamy_arora`` fed the raw arrays (checked
against plm in test_grunfeld_plm.py). Data: Grunfeld balanced and unbalanced, the Chilean example
(2006-2012, unbalanced) and a synthetic unbalanced panel with weights.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from linearmodels.panel import PanelOLS, PooledOLS

from brecha.models import fit_frame, fit_models, linear
from brecha.models import tests as spec
from brecha.models._design import design_from_frame, design_from_panel
from brecha.models.random_effects import components_of, fit_random, plm_r_squared, swamy_arora
from brecha.models.results import Fit

REF = Path(__file__).resolve().parents[1] / "reference"
SE = ["unadjusted", "robust", "clustered", "driscoll-kraay"]
RTOL = 1e-9


def _synthetic() -> pd.DataFrame:
    rng = np.random.default_rng(19)
    units, years = 60, 8
    g = pd.DataFrame({"unit": np.repeat([f"u{i:02d}" for i in range(units)], years),
                      "year": np.tile(np.arange(2000, 2000 + years), units)})
    effect = np.repeat(rng.normal(0, 2, units), years)
    g["x1"] = rng.normal(0, 1, len(g)) + 0.5 * effect
    g["x2"] = rng.gamma(2.0, 3.0, len(g))
    g["y"] = 1.0 + 0.8 * g["x1"] - 0.3 * g["x2"] + effect + rng.normal(0, 1, len(g))
    g["w"] = rng.poisson(500, len(g)).astype(float)
    return g.sample(frac=0.8, random_state=3).sort_index()   # unbalanced: 20% of unit-years removed


def _chile():
    from brecha import covariates, datasets

    panel = covariates.attach(datasets.chile().subset(years=range(2006, 2013)), ["poverty", "health_spending_pc"])
    return panel


@pytest.fixture(scope="module", params=["grunfeld", "grunfeld_unbalanced", "chile", "synthetic_weighted"])
def case(request):
    """(design, a function that fits the whole call) for each data set."""
    name = request.param
    if name.startswith("grunfeld"):
        g = pd.read_csv(REF / f"{name}.csv")
        design = design_from_frame(g, "inv", ["value", "capital"], unit="firm")
        call = lambda **kw: fit_frame(g, "inv", ["value", "capital"], unit="firm", **kw)  # noqa: E731
    elif name == "chile":
        panel = _chile()
        design = design_from_panel(panel, "infant", ["poverty", "health_spending_pc"])
        call = lambda **kw: fit_models(panel, "infant", ["poverty", "health_spending_pc"], **kw)  # noqa: E731
    else:
        g = _synthetic()
        design = design_from_frame(g, "y", ["x1", "x2"], weights="w")
        call = lambda **kw: fit_frame(g, "y", ["x1", "x2"], weights="w", **kw)  # noqa: E731
    return name, design, call


# ---- the reference: linearmodels on the indexed frame -------------------------------------------------

def _opts(design, se):
    return linear.cov_options(se, design.frame["year"].nunique())[0]


def _dummies(design, index):
    return linear.year_dummies(design.frame).set_index(index)


def ref_pooled(design, se, time_effects=False, weighted=True):
    d = design.indexed()
    X = d[design.covariates].copy()
    X.insert(0, "const", 1.0)
    if time_effects:
        X = pd.concat([X, _dummies(design, d.index)], axis=1)
    w = d[design.weights] if design.weights and weighted else None
    return PooledOLS(d[design.outcome], X, weights=w).fit(**_opts(design, se))


def ref_within(design, se, weighted=True, time_effects=False):
    d = design.indexed()
    w = d[design.weights] if design.weights and weighted else None
    return PanelOLS(d[design.outcome], d[design.time_varying], entity_effects=True, time_effects=time_effects,
                    weights=w).fit(**_opts(design, se))


def ref_random(design, se, time_effects=False, mundlak=False):
    f = design.frame
    units = pd.factorize(f["unit"], sort=True)[0]
    base = f[design.covariates].copy()
    if time_effects:
        base = pd.concat([base, linear.year_dummies(f)], axis=1)
    comp = swamy_arora(f[design.outcome].to_numpy(), base.to_numpy(float), units)   # raw arrays, own means
    theta = comp["theta"]
    X = f[design.covariates].copy()
    if mundlak:
        means = f.groupby("unit")[design.time_varying].transform("mean")
        X = pd.concat([X, means.add_prefix("mean_")], axis=1)
    if time_effects:
        X = pd.concat([X, linear.year_dummies(f)], axis=1)
    Xs = X - theta[:, None] * X.groupby(f["unit"]).transform("mean")
    ys = f[design.outcome] - theta * f.groupby("unit")[design.outcome].transform("mean")
    index = design.indexed([]).index
    exog = pd.concat([pd.Series(1.0 - theta, name="intercept"), Xs], axis=1).set_index(index)
    res = PooledOLS(pd.Series(ys.to_numpy(), index=index), exog).fit(**_opts(design, se))
    return res, comp, ys.to_numpy()


def assert_same_cov(got, ref):
    """Equal to 1e-9 relative; entries that are zero in exact arithmetic (rounding noise of 1e-15 of the
    largest variance) compared on the scale of the largest variance."""
    got, ref = np.asarray(got, float), np.asarray(ref, float)
    np.testing.assert_allclose(got, ref, rtol=RTOL, atol=1e-12 * np.abs(np.diag(ref)).max())


def _as_fit(res, like: Fit) -> Fit:
    ren = {"const": "intercept"}
    return Fit(like.model, like.variant, res.params.rename(ren), res.cov.rename(index=ren, columns=ren),
               like.se_type, like.distribution, float(res.df_resid), int(res.nobs), like.n_units,
               hidden_terms=like.hidden_terms)


def assert_same_fit(got: Fit, res, *, r_squared=None):
    """Coefficients, covariance, SE, statistic, p, CI, df, SSR and R² equal to 1e-9 relative."""
    ref = _as_fit(res, got)
    assert list(got.params.index) == list(ref.params.index)
    np.testing.assert_allclose(got.params.to_numpy(), ref.params.to_numpy(), rtol=RTOL)
    assert_same_cov(got.cov, ref.cov)
    assert got.df_resid == ref.df_resid and got.nobs == ref.nobs
    a, b = got.table(0.9), ref.table(0.9)
    for column in ["estimate", "se", "statistic", "p_value", "lower", "upper"]:
        np.testing.assert_allclose(a[column].to_numpy(), b[column].to_numpy(), rtol=RTOL, atol=1e-300,
                                   err_msg=column)
    assert got.info["ssr"] == pytest.approx(float(res.resid_ss), rel=RTOL)
    expected_r2 = float(res.rsquared) if r_squared is None else r_squared
    assert got.info["r_squared"] == pytest.approx(expected_r2, rel=RTOL)
    if got.distribution == "t":   # linearmodels' own inference (t with the residual df) is ours
        shown = [t if t != "intercept" else "const" for t in a["term"]]   # the year effects are not shown
        # linearmodels 6.0 (the oldest allowed) computes p as 1 - cdf, 0 below about 1e-16: hence the atol
        np.testing.assert_allclose(a["p_value"].to_numpy(), res.pvalues[shown].to_numpy(), rtol=RTOL, atol=1e-14)
        np.testing.assert_allclose(a["lower"].to_numpy(), res.conf_int(0.9).loc[shown, "lower"].to_numpy(),
                                   rtol=RTOL)


# ---- the fits ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("se", SE)
def test_pooled_and_within_equal_linearmodels(case, se):
    _, design, _ = case
    assert_same_fit(linear.fit_pooled(design, se), ref_pooled(design, se))
    fe = linear.fit_within(design, se, unadjusted=True)
    assert_same_fit(fe, ref_within(design, se))
    # the companion (conventional) covariance comes from the same residuals, no second fit
    assert_same_cov(fe.cov_unadjusted, ref_within(design, "unadjusted").cov)


@pytest.mark.parametrize("se", SE)
def test_random_and_correlated_random_effects_equal_linearmodels_on_quasi_demeaned_data(case, se):
    _, design, _ = case
    for mundlak in (False, True):
        got = fit_random(design, se, mundlak=mundlak, unadjusted=True)
        res, comp, ys = ref_random(design, se, mundlak=mundlak)
        r2, _ = plm_r_squared(ys, np.asarray(res.resids, float), int(res.df_resid))
        assert_same_fit(got, res, r_squared=r2)
        res_u, _, _ = ref_random(design, "unadjusted", mundlak=mundlak)
        assert_same_cov(got.cov_unadjusted, res_u.cov)
        for key in ("sigma2_e", "sigma2_u"):
            assert got.info[key] == pytest.approx(comp[key], rel=1e-12)
        th = comp["theta_unit"]
        if comp["balanced"]:
            assert got.info["theta"] == pytest.approx(th[0], rel=1e-12)
        else:
            assert got.info["theta_min"] == pytest.approx(th.min(), rel=1e-12)
            assert got.info["theta_max"] == pytest.approx(th.max(), rel=1e-12)


@pytest.mark.parametrize("se", SE)
def test_two_way_within_equals_linearmodels(case, se):
    _, design, _ = case
    fe2 = linear.fit_within(design, se, time_effects=True, unadjusted=True)
    assert fe2.model == "fe2"
    assert_same_fit(fe2, ref_within(design, se, time_effects=True))
    assert_same_cov(fe2.cov_unadjusted, ref_within(design, "unadjusted", time_effects=True).cov)


@pytest.mark.parametrize("se", SE)
def test_year_effects_pooled_and_random_effects_equal_linearmodels(case, se):
    """With year effects the indicators are implicit (``year_indicators``): every coefficient, the year ones
    included, and the whole covariance equal linearmodels' fits with the dense indicators; CRE too."""
    _, design, _ = case
    got = linear.fit_pooled(design, se, time_effects=True)
    assert_same_fit(got, ref_pooled(design, se, time_effects=True))
    assert set(got.hidden_terms) == {c for c in got.params.index if c.startswith("year_")}
    assert len(got.hidden_terms) == design.frame["year"].nunique() - 1
    for mundlak in (False, True):
        got = fit_random(design, se, time_effects=True, mundlak=mundlak, unadjusted=True)
        res, comp, ys = ref_random(design, se, time_effects=True, mundlak=mundlak)
        assert_same_fit(got, res, r_squared=plm_r_squared(ys, np.asarray(res.resids, float), int(res.df_resid))[0])
        assert_same_cov(got.cov_unadjusted, ref_random(design, "unadjusted", time_effects=True, mundlak=mundlak)[0].cov)
        assert got.info["sigma2_u"] == pytest.approx(comp["sigma2_u"], rel=1e-10)
        assert got.info["sigma2_e"] == pytest.approx(comp["sigma2_e"], rel=1e-10)


@pytest.mark.parametrize("se", SE)
def test_the_tests_of_a_call_with_year_effects_equal_those_from_linearmodels_fits(case, se):
    """fe,re with year effects: Breusch-Pagan, Hausman (two-way FE against RE with year indicators; the
    unweighted FE when the call is weighted) and the Mundlak test from linearmodels' fits."""
    name, design, call = case
    res = call(models=["fe", "re"], se=se, time_effects=True)
    got = res.tests.set_index("test")
    assert "F test for unit effects (pooled vs FE)" not in got.index   # not made with year effects
    like = res.fits
    assert like["fe"].variant.startswith("within (unit and year fixed effects)")
    assert_same_fit(like["fe"], ref_within(design, se, time_effects=True))
    unweighted_pooled = ref_pooled(design, "unadjusted", weighted=False)
    expected = [spec.breusch_pagan(np.asarray(unweighted_pooled.resids, float).ravel(), design.unit_index)]
    fe_u = _as_fit(ref_within(design, "unadjusted", weighted=False, time_effects=True), like["fe"])
    fe_u.cov_unadjusted = fe_u.cov
    re_ref = _as_fit(ref_random(design, se, time_effects=True)[0], like["re"])
    re_ref.cov_unadjusted = _as_fit(ref_random(design, "unadjusted", time_effects=True)[0], like["re"]).cov
    expected.append(spec.hausman(fe_u, re_ref))
    cre_like = Fit("cre", "", pd.Series(dtype=float), pd.DataFrame(), like["re"].se_type, "normal", n_units=1)
    expected.append(spec.hausman_mundlak(_as_fit(ref_random(design, se, time_effects=True, mundlak=True)[0],
                                                 cre_like)))
    for row in expected:
        assert got.loc[row["test"], "statistic"] == pytest.approx(row["statistic"], rel=RTOL), (name, row["test"])
        assert got.loc[row["test"], "p_value"] == pytest.approx(row["p_value"], rel=1e-7, abs=1e-300), row["test"]
        assert got.loc[row["test"], "df"] == row["df"]


def _swamy_arora_observation_level(y, X, units):
    """plm's ercomp("swar") written out at the observation level (N x K arrays, pandas means): the
    reference for the unit-level computation of ``swamy_arora``."""
    g = pd.DataFrame(X).groupby(units)
    Xbar = g.transform("mean").to_numpy()
    ybar = pd.Series(y).groupby(units).transform("mean").to_numpy()
    Xw, yw = X - Xbar, y - ybar
    Xw = Xw[:, np.abs(Xw).max(axis=0) > 1e-10 * np.maximum(np.abs(X).max(axis=0), 1.0)]
    bw = np.linalg.lstsq(Xw, yw, rcond=None)[0]
    n, N = len(np.unique(units)), len(y)
    s2e = float(np.sum((yw - Xw @ bw) ** 2) / (N - n - np.linalg.matrix_rank(Xw)))
    Z = np.column_stack([np.ones(N), Xbar])
    eb = ybar - Z @ np.linalg.lstsq(Z, ybar, rcond=None)[0]
    t_row = pd.Series(units).map(pd.Series(units).value_counts()).to_numpy(float)
    trace = np.trace(np.linalg.pinv(Z.T @ Z) @ ((Z * t_row[:, None]).T @ Z))
    s2u = float((eb @ eb - (n - np.linalg.matrix_rank(Z)) * s2e) / (N - trace))
    return s2e, s2u


def test_components_from_the_shared_means_equal_the_observation_level_formula(case):
    _, design, _ = case
    for time_effects in (False, True):
        got = components_of(design, time_effects)
        f = design.frame
        base = f[design.covariates]
        if time_effects:
            base = pd.concat([base, linear.year_dummies(f)], axis=1)
        s2e, s2u = _swamy_arora_observation_level(f[design.outcome].to_numpy(float), base.to_numpy(float),
                                                  design.unit_index)
        assert got["sigma2_e"] == pytest.approx(s2e, rel=1e-10)
        assert got["sigma2_u_raw"] == pytest.approx(s2u, rel=1e-9)
        raw = swamy_arora(f[design.outcome].to_numpy(), base.to_numpy(float), design.unit_index)
        np.testing.assert_allclose(got["theta_unit"], raw["theta_unit"], rtol=1e-12)


# ---- the tests of a call ----------------------------------------------------------------------------

@pytest.mark.parametrize("se", SE)
def test_the_tests_of_a_call_equal_those_from_linearmodels_fits(case, se):
    name, design, call = case
    res = call(models=["pooled", "fe", "re"], se=se)
    got = res.tests.set_index("test")
    pooled, fe = ref_pooled(design, "unadjusted"), ref_within(design, "unadjusted")
    like = res.fits
    expected = [spec.f_test_effects(float(pooled.resid_ss), float(fe.resid_ss), design.nobs, design.n_units,
                                    len(design.time_varying), len(design.covariates))]
    unweighted_pooled = ref_pooled(design, "unadjusted", weighted=False)
    expected.append(spec.breusch_pagan(np.asarray(unweighted_pooled.resids, float).ravel(), design.unit_index))
    fe_u = _as_fit(ref_within(design, "unadjusted", weighted=False), like["fe"])
    fe_u.cov_unadjusted = fe_u.cov
    re_fit, _, _ = ref_random(design, se)
    re_u, _, _ = ref_random(design, "unadjusted")
    re_ref = _as_fit(re_fit, like["re"])
    re_ref.cov_unadjusted = _as_fit(re_u, like["re"]).cov
    expected.append(spec.hausman(fe_u, re_ref))
    cre_fit, _, _ = ref_random(design, se, mundlak=True)
    cre_like = Fit("cre", "", pd.Series(dtype=float), pd.DataFrame(), like["re"].se_type, "normal", n_units=1)
    expected.append(spec.hausman_mundlak(_as_fit(cre_fit, cre_like)))
    for row in expected:
        assert got.loc[row["test"], "statistic"] == pytest.approx(row["statistic"], rel=RTOL), (name, row["test"])
        assert got.loc[row["test"], "p_value"] == pytest.approx(row["p_value"], rel=1e-7, abs=1e-300), row["test"]
        assert got.loc[row["test"], "df"] == row["df"]


# ---- the path a user takes: a panel file, the CLI, the output file read back ----------------------

@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("se,extra", [("clustered", []), ("driscoll-kraay", ["--weights", "births"]),
                                      ("robust", ["--time-effects"])])
def test_cli_on_a_panel_file_equals_linearmodels(tmp_path, se, extra):
    from brecha.cli.main import main

    rng = np.random.default_rng(7)
    g = pd.DataFrame({"unit": np.repeat([f"U{i:03d}" for i in range(80)], 9),
                      "year": np.tile(np.arange(2010, 2019), 80)})
    g["births"] = rng.poisson(300, len(g))
    g["poverty"] = rng.normal(15, 4, len(g)) + np.repeat(rng.normal(0, 3, 80), 9)
    g["spending"] = rng.gamma(3.0, 10.0, len(g))
    g["deaths"] = rng.poisson(g["births"] * (0.004 + 0.0002 * g["poverty"]))
    g = g.sample(frac=0.85, random_state=1).sort_values(["unit", "year"])   # unbalanced
    path = tmp_path / "panel.csv"
    g.to_csv(path, index=False)
    out = tmp_path / "m.csv"
    assert main(["--lang", "en", "models", str(path), "--covariates", "poverty,spending", "--models",
                 "pooled,fe,re", "--se", se, *extra, "-o", str(out)]) == 0
    got = pd.read_csv(out)
    # the reference from the file as written, with linearmodels
    f = pd.read_csv(path)
    f["rate"] = f["deaths"] / f["births"] * 1000
    d = f.set_index([pd.factorize(f["unit"], sort=True)[0], "year"])
    d.index.names = ["unit", "year"]
    opts = linear.cov_options(se, f["year"].nunique())[0]
    time_effects = "--time-effects" in extra
    w = d["births"].astype(float) if "--weights" in extra else None
    X = d[["poverty", "spending"]].copy()
    X.insert(0, "const", 1.0)
    if time_effects:
        X = pd.concat([X, linear.year_dummies(f).set_axis(d.index)], axis=1)
    ref = {"pooled": PooledOLS(d["rate"], X, weights=w).fit(**opts),
           "fe": PanelOLS(d["rate"], d[["poverty", "spending"]], entity_effects=True, time_effects=time_effects,
                          weights=w).fit(**opts)}
    for model, res in ref.items():
        rows = got[got["model"] == model].set_index("term")
        for term in rows.index:
            name = "const" if term == "intercept" else term
            assert rows.loc[term, "estimate"] == pytest.approx(res.params[name], rel=RTOL), (model, term)
            assert rows.loc[term, "se"] == pytest.approx(res.std_errors[name], rel=RTOL), (model, term)
            assert rows.loc[term, "p_value"] == pytest.approx(res.pvalues[name], rel=1e-7), (model, term)
    info = pd.read_csv(tmp_path / "m.fit_info.csv").set_index("model")
    assert info.loc["fe", "r_squared"] == pytest.approx(ref["fe"].rsquared, rel=RTOL)
    assert info.loc["pooled", "r_squared"] == pytest.approx(ref["pooled"].rsquared, rel=RTOL)
    assert set(got["model"]) == {"pooled", "fe", "re"}


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("se", SE)
@pytest.mark.parametrize("layout", ["balanced", "unbalanced", "weighted"])
def test_cli_with_year_effects_on_a_panel_file_equals_linearmodels(tmp_path, layout, se):
    """``brecha models FILE --models pooled,fe,re,cre --time-effects``: every coefficient and SE written equals
    linearmodels' fit with the dense year indicators on the file read back; the year effects are not listed
    (as before issue 19); the Hausman statistic is the linearmodels fits' one."""
    from brecha.cli.main import main

    rng = np.random.default_rng(11)
    units, years = 70, 8
    g = pd.DataFrame({"unit": np.repeat([f"C{i:03d}" for i in range(units)], years),
                      "year": np.tile(np.arange(2011, 2011 + years), units)})
    g["births"] = rng.poisson(400, len(g))
    g["poverty"] = rng.normal(15, 4, len(g)) + np.repeat(rng.normal(0, 3, units), years) + 0.4 * (g["year"] - 2011)
    g["spending"] = rng.gamma(3.0, 10.0, len(g))
    effect = np.repeat(rng.normal(0, 0.004, units), years)   # unit effects: theta > 0 (checked below)
    g["deaths"] = rng.poisson(g["births"] * (0.008 + effect.clip(-0.007) + 0.0002 * g["poverty"]))
    if layout != "balanced":
        g = g.sample(frac=0.8, random_state=4).sort_values(["unit", "year"])
    path = tmp_path / "panel.parquet"
    g.to_parquet(path, index=False)
    extra = ["--weights", "births"] if layout == "weighted" else []
    out = tmp_path / "m.csv"
    assert main(["--lang", "en", "models", str(path), "--covariates", "poverty,spending", "--models",
                 "pooled,fe,re,cre", "--se", se, "--time-effects", *extra, "-o", str(out)]) == 0
    got = pd.read_csv(out)
    assert not got["term"].str.startswith("year_").any()
    f = pd.read_parquet(path)
    f["rate"] = f["deaths"] / f["births"] * 1000
    design = design_from_frame(f, "rate", ["poverty", "spending"], weights="births" if extra else None)
    ref = {"pooled": ref_pooled(design, se, time_effects=True), "fe": ref_within(design, se, time_effects=True),
           "re": ref_random(design, se, time_effects=True)[0],
           "cre": ref_random(design, se, time_effects=True, mundlak=True)[0]}
    for model, res in ref.items():
        rows = got[got["model"] == model].set_index("term")
        shown = [t for t in res.params.index if not str(t).startswith("year_")]
        assert len(rows) == len(shown), model
        for term in rows.index:
            name = "const" if term == "intercept" and model == "pooled" else term
            assert rows.loc[term, "estimate"] == pytest.approx(res.params[name], rel=RTOL), (model, term)
            assert rows.loc[term, "se"] == pytest.approx(res.std_errors[name], rel=RTOL), (model, term)
    info = pd.read_csv(tmp_path / "m.fit_info.csv").set_index("model")
    assert info.loc["re", "theta" if layout == "balanced" else "theta_min"] > 0.3   # quasi-demeaning at work
    for model in ("pooled", "fe"):
        assert info.loc[model, "r_squared"] == pytest.approx(ref[model].rsquared, rel=RTOL)
    tests = pd.read_csv(tmp_path / "m.tests.csv").set_index("test")
    fe_u = _as_fit(ref_within(design, "unadjusted", weighted=False, time_effects=True),
                   Fit("fe", "", pd.Series(dtype=float), pd.DataFrame(), "", "t", n_units=1))
    fe_u.cov_unadjusted = fe_u.cov
    re_like = Fit("re", "", pd.Series(dtype=float), pd.DataFrame(), "", "normal", n_units=1)
    re_ref = _as_fit(ref["re"], re_like)
    re_ref.cov_unadjusted = _as_fit(ref_random(design, "unadjusted", time_effects=True)[0], re_like).cov
    expected = spec.hausman(fe_u, re_ref)
    assert tests.loc[expected["test"], "statistic"] == pytest.approx(expected["statistic"], rel=1e-8)
