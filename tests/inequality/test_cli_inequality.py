"""`brecha inequality` through brecha.cli.main.main([...])."""
import numpy as np
import pandas as pd
import pytest

from brecha.cli.main import main


@pytest.fixture
def panel_file(tmp_path):
    rng = np.random.default_rng(9)
    n = 40
    units = [f"U{i:03d}" for i in range(n)]
    frames = []
    for y in (2014, 2015):
        births = rng.integers(100, 3000, n)
        frames.append(pd.DataFrame({"unit": units, "year": y, "births": births,
                                    "deaths": rng.poisson(births * 0.008), "poverty": rng.uniform(1, 30, n)}))
    path = tmp_path / "panel.csv"
    pd.concat(frames).to_csv(path, index=False)
    return path


def test_cli_writes_the_contract_columns_with_options(panel_file, tmp_path, capsys):
    out = tmp_path / "ineq.csv"
    rc = main(["--lang", "en", "inequality", str(panel_file), "--rank-by", "poverty", "--advantaged", "low",
               "--groups", "5", "--measures", "d,r,sii,rii,gini", "--bootstrap", "200", "--seed", "7",
               "--years", "2015", "-o", str(out)])
    assert rc == 0
    assert "Saved" in capsys.readouterr().out
    t = pd.read_csv(out)
    assert list(t.columns[:8]) == ["period", "outcome", "measure", "estimate", "lower", "upper", "se", "method"]
    assert t["measure"].tolist() == ["d", "r", "sii", "rii", "gini"]
    assert (t["period"] == 2015).all()
    assert (t["bootstrap"] == 200).all() and (t["seed"] == 7).all()
    assert (t["rank_by"] == "poverty").all() and (t["groups"] == 5).all() and (t["advantaged"] == "low").all()
    # the CLI is a thin layer: same numbers as the Python API
    from brecha.inequality import inequality
    from brecha.panel import read_panel

    api = inequality(read_panel(panel_file), rank_by="poverty", advantaged="low", groups=5,
                     measures="d,r,sii,rii,gini", bootstrap=200, seed=7, years=[2015])
    np.testing.assert_allclose(t["estimate"], api["estimate"], rtol=1e-9)
    np.testing.assert_allclose(t["lower"], api["lower"], rtol=1e-9)


def test_cli_pooled_reference(panel_file, tmp_path):
    out = tmp_path / "pooled.csv"
    assert main(["inequality", str(panel_file), "--pool", "--reference", "U003", "--measures", "par",
                 "-o", str(out)]) == 0
    t = pd.read_csv(out)
    assert t["period"].tolist() == ["2014-2015"]
    assert t["reference"].tolist() == ["U003"]


def test_cli_bad_covariate_message(panel_file, capsys):
    rc = main(["--lang", "en", "inequality", str(panel_file), "--rank-by", "income"])
    assert rc == 2
    err = capsys.readouterr().err
    assert "covariate 'income' is not in the panel" in err and "poverty" in err


def test_readme_command_on_the_embedded_chilean_data(tmp_path):
    # README: brecha inequality --example chile --rank-by poverty --groups 5 --bootstrap 1000 --seed 1
    # (one year and the fewest replicates the CLI takes, 200, here). Poverty is attached from the shipped CASEN tables.
    out = tmp_path / "ineq.csv"
    assert main(["inequality", "--example", "chile", "--rank-by", "poverty", "--groups", "5", "--bootstrap", "200",
                 "--seed", "1", "--years", "2012", "-o", str(out)]) == 0
    t = pd.read_csv(out).set_index("measure")
    assert (t["advantaged"] == "low").all() and (t["n_groups"] == 5).all()
    from brecha import covariates, datasets

    d = covariates.attach(datasets.chile(), ["poverty"]).data
    d = d[(d.year == 2012) & (d.births > 0) & d.poverty.notna() & d.deaths.notna()]
    assert t.loc["mean", "estimate"] == pytest.approx(d.deaths.sum() / d.births.sum() * 1000)  # national IMR
    for name in ("aci", "rci", "sii", "rii", "kunst_mackenbach"):
        assert np.isfinite(t.loc[name, "estimate"])


def _gini(x):
    x = np.asarray(x, dtype=float)
    return np.abs(x[:, None] - x[None, :]).mean() / (2 * x.mean())


def test_cli_covariate_inequality_of_health_spending_on_chile(tmp_path):
    # health_spending_pc is not in the embedded panel: brecha attaches it (SINIM, 2006-2012 segment)
    out = tmp_path / "money.csv"
    assert main(["--lang", "en", "inequality", "--example", "chile", "--covariate", "health_spending_pc",
                 "--weight", "population", "--years", "2008-2010", "--measures", "gini,cov,mean", "-o",
                 str(out)]) == 0
    t = pd.read_csv(out)
    assert set(t["period"]) == {2008, 2009, 2010}
    assert (t["outcome"] == "health_spending_pc").all() and (t["weight"] == "population").all()
    from brecha import covariates, datasets

    d = covariates.attach(datasets.chile(), ["health_spending_pc"]).data
    d = d[(d.year == 2009) & d.health_spending_pc.notna() & (d.population > 0)]
    row = t[(t.period == 2009)].set_index("measure")
    assert row.loc["mean", "estimate"] == pytest.approx(np.average(d.health_spending_pc, weights=d.population))
    assert row.loc["mean", "label"] == "Mean"
    assert row.loc["gini", "n_units"] == len(d)


def test_cli_comovement_of_imr_and_health_spending_inequality(tmp_path):
    from scipy import stats

    out = tmp_path / "comove.xlsx"
    assert main(["--lang", "en", "inequality", "--example", "chile", "--covariate", "health_spending_pc",
                 "--comovement", "--measures", "gini", "-o", str(out)]) == 0
    sheets = pd.read_excel(out, sheet_name=None)
    assert set(sheets) == {"comovement", "outcome", "covariate"}
    t = sheets["comovement"].set_index("method")
    assert list(t.index) == ["pearson", "spearman"]
    assert (t["measure_a"] == "gini").all() and (t["measure_b"] == "gini").all()
    assert (t["covariate"] == "health_spending_pc").all() and (t["outcome"] == "infant").all()
    # independent: the unweighted Gini of spending by hand, the births-weighted Gini of IMR from the API
    from brecha import covariates, datasets
    from brecha.inequality import inequality

    d = covariates.attach(datasets.chile(), ["health_spending_pc"]).data
    years = sorted(d.loc[d.health_spending_pc.notna(), "year"].unique())
    assert years == list(range(2006, 2013))  # the 2013-2018 gap of SINIM: 7 years inside 2000-2015
    money = [_gini(d.loc[(d.year == y) & d.health_spending_pc.notna(), "health_spending_pc"]) for y in years]
    imr = inequality(datasets.chile(), years=years, measures="gini")["estimate"].to_numpy()
    ref = stats.pearsonr(imr, money)
    assert t.loc["pearson", "estimate"] == pytest.approx(ref.statistic, rel=1e-9)
    assert t.loc["pearson", "p_value"] == pytest.approx(ref.pvalue, rel=1e-6)
    assert t.loc["spearman", "estimate"] == pytest.approx(stats.spearmanr(imr, money).statistic)
    assert t.loc["pearson", "n_years"] == 7


def test_cli_comovement_needs_a_covariate_in_both_languages(capsys):
    from brecha.i18n import get_language, set_language

    before = get_language()
    try:
        assert main(["--lang", "es", "inequality", "--example", "chile", "--comovement"]) == 2
        assert "--comovement y --weight requieren --covariate" in capsys.readouterr().err
    finally:
        set_language(before)
    assert main(["--lang", "en", "inequality", "--example", "chile", "--comovement"]) == 2
    assert "--comovement and --weight need --covariate" in capsys.readouterr().err
    assert main(["--lang", "en", "inequality", "--example", "chile", "--covariate", "health_spending_pc",
                 "--comovement", "--measures", "sii"]) == 2
    assert "none of the measures asked for applies" in capsys.readouterr().err
