"""`brecha decompose` through brecha.cli.main.main([...]) on panel files written to disk (issue 14), and the
excess deaths of `brecha disparity` (REFERENCE_WAVE2 W.3)."""
import numpy as np
import pandas as pd
import pytest

from brecha.cli.main import main

Y = np.array([5.1, 6.3, 7.8, 9.2, 4.4, 12.7, 10.2, 8.8, 6.9, 3.9])
W = np.array([1200, 800, 450, 300, 2500, 650, 400, 900, 700, 3000])
INCOME = [520, 410, 300, 250, 610, 180, 220, 330, 390, 700]


@pytest.fixture
def w1_file(tmp_path):
    """REFERENCE_WAVE2 W.1/W.2 as a panel file: births ×1000, so deaths = y × w are whole numbers."""
    path = tmp_path / "w1.csv"
    pd.DataFrame({"unit": [f"C{i:02d}" for i in range(10)], "year": 2010, "births": W * 1000,
                  "deaths": np.round(Y * W).astype(int), "zone": [1, 1, 1, 2, 2, 2, 3, 3, 3, 3],
                  "income": INCOME}).to_csv(path, index=False)
    return path


def test_decompose_by_group_writes_the_contract_with_w1_values(w1_file, tmp_path, capsys):
    out = tmp_path / "d.csv"
    assert main(["--lang", "en", "decompose", str(w1_file), "--by", "zone", "--measures", "theil,mld,ge2,gini",
                 "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "Scale: ×1" in printed and "Saved" in printed
    t = pd.read_csv(out, dtype={"group": str}, keep_default_na=False, na_values=[""])
    assert list(t.columns[:9]) == ["period", "outcome", "measure", "component", "group", "estimate", "lower",
                                   "upper", "share"]
    total = t[t["component"] != "group"].set_index(["measure", "component"])["estimate"]
    expected = {("theil", "total"): 0.0789399143421, ("theil", "within"): 0.0777546328311,
                ("theil", "between"): 0.00118528151103, ("mld", "total"): 0.0737960712094,
                ("mld", "within"): 0.0726174018277, ("mld", "between"): 0.00117866938168,
                ("ge2", "total"): 0.088494802861, ("ge2", "within"): 0.0873022448271,
                ("ge2", "between"): 0.00119255803388, ("gini", "total"): 0.215592109937,
                ("gini", "within"): 0.0712322754587, ("gini", "between"): 0.0259174487774,
                ("gini", "overlap"): 0.118442385701}
    for key, value in expected.items():
        assert total[key] == pytest.approx(value, abs=1e-10), key
    groups = t[(t["component"] == "group") & (t["measure"] == "theil")]
    assert groups["group"].tolist() == ["1", "2", "3"]
    assert groups["share"].sum() == pytest.approx(0.0777546328311 / 0.0789399143421, rel=1e-9)


def test_decompose_heat_scale_and_spanish(w1_file, tmp_path, capsys):
    out = tmp_path / "d.xlsx"
    assert main(["--lang", "es", "decompose", str(w1_file), "--by", "zone", "--measures", "theil", "--scale", "1000",
                 "-o", str(out)]) == 0
    assert "Escala: ×1000" in capsys.readouterr().out
    t = pd.read_excel(out)
    assert t.loc[t["component"] == "total", "estimate"].iloc[0] == pytest.approx(78.9399143421, abs=1e-7)


def test_decompose_by_determinants_gives_w2_total(w1_file, tmp_path):
    out = tmp_path / "c.csv"
    assert main(["--lang", "en", "decompose", str(w1_file), "--rank-by", "income", "--advantaged", "high",
                 "--determinants", "income", "-o", str(out)]) == 0
    t = pd.read_csv(out)
    assert list(t.columns[:11]) == ["period", "outcome", "term", "coefficient", "mean", "elasticity",
                                    "concentration_index", "contribution", "percent", "lower", "upper"]
    b = t.set_index("term")
    assert b.loc["total", "contribution"] == pytest.approx(-0.214452618614, abs=1e-12)
    assert b.loc["income", "contribution"] + b.loc["residual", "contribution"] == pytest.approx(
        b.loc["total", "contribution"], abs=1e-15)


@pytest.mark.parametrize("args,needle", [
    (["--by", "zone", "--rank-by", "income"], "not both"),
    ([], "--by"),
    (["--determinants", "income"], "--rank-by"),
    (["--rank-by", "income"], "--determinants"),
    (["--by", "zone", "--bootstrap", "50"], "too few"),
    (["--by", "zone", "--change", "2010"], "two years"),
    (["--by", "zone", "--measures", "atkinson"], "--measures"),
    (["--by", "nowhere"], "--by"),
    (["--rank-by", "income", "--determinants", "income,nothing"], "nothing"),
])
def test_decompose_refuses_bad_options_with_exit_2(w1_file, args, needle, capsys):
    assert main(["--lang", "en", "decompose", str(w1_file), *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("Error: ") and needle in err


def test_decompose_chile_by_region_with_bootstrap_and_change(tmp_path, capsys):
    pytest.importorskip("brecha.datasets")
    out = tmp_path / "chile.csv"
    assert main(["--lang", "en", "decompose", "--example", "chile", "--by", "region", "--measures", "theil,gini",
                 "--years", "2001,2011", "--change", "2001,2011", "--bootstrap", "200", "--seed", "3",
                 "-o", str(out)]) == 0
    # the units left out are said, never dropped silently (Alto Hospicio ... did not exist in 2001)
    assert "2001: 4 units without births" in capsys.readouterr().err
    t = pd.read_csv(out, dtype={"period": str})
    assert set(t["period"]) == {"2001", "2011", "2001-2011"}
    change = t[t["period"] == "2001-2011"]
    for measure, block in change.groupby("measure"):
        b = block.set_index("component")["estimate"]
        assert b.drop("change_total").sum() == pytest.approx(b["change_total"], abs=1e-13)
        levels = t[(t["measure"] == measure) & (t["component"] == "total")].set_index("period")["estimate"]
        assert b["change_total"] == pytest.approx(levels["2011"] - levels["2001"], abs=1e-14)
    assert (t.loc[t["component"] == "total", "lower"] < t.loc[t["component"] == "total", "upper"]).all()
    assert (t["bootstrap"] == 200).all()


# ------------------------------------------------------------------------------------------ excess deaths
def test_excess_deaths_api_per_unit_add_up_and_intervals_are_ar_and_par_times_births():
    from brecha.disparity import disparity
    from brecha.panel import Panel

    rng = np.random.default_rng(4)
    births = rng.integers(300, 8000, 30)
    panel = Panel(pd.DataFrame({"unit": [f"U{i:02d}" for i in range(30)], "year": 2012, "births": births,
                                "deaths": rng.poisson(births * 0.008)}))
    t = disparity(panel, "U03,U07")
    excess = t[t["measure"] == "excess_deaths"].set_index("unit")
    ar = t[t["measure"] == "attributable_risk"].set_index("unit")
    par = t[(t["measure"] == "par") & (t["unit"] == "TOTAL")].iloc[0]
    ref_rate = (t["reference_events"].iloc[0]) / float(t["reference_births"].iloc[0])
    d = panel.data.set_index("unit")
    np.testing.assert_allclose(excess.loc[d.index, "estimate"].astype(float),
                               (d["deaths"] - d["births"] * ref_rate).astype(float), rtol=1e-12)
    assert excess.drop("TOTAL")["estimate"].sum() == pytest.approx(excess.loc["TOTAL", "estimate"], rel=1e-12)
    for column in ("lower", "upper", "se"):
        np.testing.assert_allclose(excess.loc[ar.index, column], ar[column] * ar["births"].astype(float) / 1000,
                                   rtol=1e-12)
        assert excess.loc["TOTAL", column] == pytest.approx(par[column] * float(par["births"]) / 1000, rel=1e-12)
