"""The rates, disparity, smooth and funnel commands: contract columns and a few numbers."""
from __future__ import annotations

import warnings

import pandas as pd
import pytest

from brecha.cli.main import main
from brecha.i18n import get_language, set_language


@pytest.fixture(autouse=True)
def keep_language():
    """main(["--lang", ...]) sets the process language; put it back for the other tests."""
    before = get_language()
    yield
    set_language(before)


@pytest.fixture()
def panel_file(tmp_path):
    # C.6 of REFERENCE.md spread over three communes plus the reference R, in two years
    rows = []
    for year in (2014, 2015):
        for unit, deaths, births in (("A", 600, 45000), ("B", 400, 35000), ("C", 250, 20000), ("R", 15, 3000)):
            rows.append({"unit": unit, "year": year, "births": births, "deaths": deaths})
    path = tmp_path / "panel.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def run(args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return main(["--lang", "en"] + [str(a) for a in args])


def test_rates_command_columns_and_values(panel_file, tmp_path):
    out = tmp_path / "rates.csv"
    assert run(["rates", panel_file, "--years", "2014-2015", "--pool", "--ci", "byar", "-o", out]) == 0
    t = pd.read_csv(out, dtype={"unit": str})
    assert list(t.columns[:9]) == ["unit", "period", "outcome", "events", "births", "estimate", "lower", "upper",
                                   "method"]
    r = t.set_index("unit").loc["R"]
    assert r["period"] == "2014-2015" and r["events"] == 30 and r["births"] == 6000
    assert (r["estimate"], r["lower"], r["upper"]) == pytest.approx((5.0, 3.3728, 7.1381), abs=5e-5)  # C.6 PHE Byar
    assert r["method"] == "byar"


def test_disparity_command_total_par_matches_c6(panel_file, tmp_path):
    out = tmp_path / "gap.csv"
    assert run(["disparity", panel_file, "--reference", "R", "--pool", "--rr-method", "binomial",
                "--par-method", "walter", "-o", out]) == 0
    t = pd.read_csv(out, dtype={"unit": str})
    assert list(t.columns[:8]) == ["unit", "period", "outcome", "measure", "estimate", "lower", "upper", "method"]
    total = t[t["unit"] == "TOTAL"].set_index("measure")
    assert total.loc["par", "estimate"] == pytest.approx(7.281553, abs=1e-6)
    assert total.loc["par_percent", "estimate"] == pytest.approx(59.2885, abs=1e-4)
    assert (total.loc["par_percent", "lower"], total.loc["par_percent", "upper"]) == pytest.approx(
        (44.844, 73.733), abs=1e-3)
    assert set(t["measure"]) == {"rate_ratio", "attributable_risk", "attributable_risk_percent", "par",
                                 "par_percent", "excess_deaths"}
    # REFERENCE_WAVE2 W.3: 2530 - 206000 x 0.005 = 1,500 excess deaths = PAR% x deaths (issue 14)
    assert total.loc["excess_deaths", "estimate"] == pytest.approx(1500, abs=1e-9)
    assert total.loc["excess_deaths", "estimate"] == pytest.approx(total.loc["par_percent", "estimate"] / 100 * 2530)
    units = t[(t["unit"] != "TOTAL") & (t["measure"] == "excess_deaths")]
    assert units["estimate"].sum() == pytest.approx(1500, abs=1e-9)


def test_disparity_command_several_codes_and_unknown_code(panel_file, tmp_path, capsys):
    out = tmp_path / "gap.xlsx"
    assert run(["disparity", panel_file, "--reference", "R,C", "--years", "2015", "-o", out]) == 0
    t = pd.read_excel(out, dtype={"unit": str})
    assert t["reference_events"].iloc[0] == 15 + 250
    assert run(["disparity", panel_file, "--reference", "ZZ", "-o", out]) == 2
    assert "ZZ" in capsys.readouterr().err


def test_smooth_and_funnel_commands(panel_file, tmp_path):
    out = tmp_path / "eb.csv"
    assert run(["smooth", panel_file, "--years", "2015", "-o", out]) == 0
    t = pd.read_csv(out, dtype={"unit": str})
    for col in ("unit", "period", "raw_rate", "estimate", "lower", "upper", "shrinkage", "method"):
        assert col in t.columns
    fout, cout = tmp_path / "funnel.csv", tmp_path / "curve.csv"
    assert run(["funnel", panel_file, "--curve", cout, "-o", fout]) == 0
    f = pd.read_csv(fout, dtype={"unit": str})
    assert list(f.columns[:13]) == ["unit", "period", "outcome", "events", "births", "rate", "target", "lower_95",
                                    "upper_95", "lower_998", "upper_998", "flag", "method"]
    assert f["period"].unique().tolist() == ["2014-2015"]
    assert f["target"].iloc[0] == pytest.approx(2530 / 206000 * 1000)
    assert len(pd.read_csv(cout)) > 10


def test_rates_command_on_the_chile_example(tmp_path):
    pytest.importorskip("brecha.datasets")
    out = tmp_path / "cl.csv"
    assert run(["rates", "--example", "chile", "--years", "2005-2014", "--pool", "--level", "region",
                "-o", out]) == 0
    t = pd.read_csv(out, dtype={"unit": str})
    assert len(t) == 16
    assert ((t["lower"] <= t["estimate"]) & (t["estimate"] <= t["upper"])).all()
    assert (t["estimate"] - t["events"] / t["births"] * 1000).abs().max() < 1e-9


def test_region_option_restricts_the_analysed_units(tmp_path):
    rows = [{"unit": u, "year": 2015, "births": b, "deaths": d, "region": r}
            for u, b, d, r in (("A", 1000, 10, "N"), ("B", 2000, 10, "N"), ("C", 3000, 40, "S"))]
    path = tmp_path / "p.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    out = tmp_path / "r.csv"
    assert run(["rates", path, "--region", "N", "-o", out]) == 0
    assert pd.read_csv(out)["unit"].tolist() == ["A", "B"]
    # disparity: the region's units are analysed, the explicit reference C lies outside the region
    assert run(["disparity", path, "--region", "N", "--reference", "C", "-o", out]) == 0
    t = pd.read_csv(out)
    assert set(t["unit"]) == {"A", "B", "TOTAL"}
    total = t[(t["unit"] == "TOTAL") & (t["measure"] == "par")].iloc[0]
    assert total["estimate"] == pytest.approx((20 / 3000 - 40 / 3000) * 1000)


@pytest.mark.parametrize("command", ["rates", "disparity", "smooth", "funnel"])
@pytest.mark.parametrize("lang", ["es", "en"])
def test_help_renders(command, lang, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--lang", lang, command, "--help"])
    assert exit_.value.code == 0
    assert "--years" in capsys.readouterr().out


@pytest.fixture(scope="module")
def chile():
    datasets = pytest.importorskip("brecha.datasets")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return datasets.chile()


def test_disparity_lowest_quintile_of_poverty_on_the_chile_example(chile, tmp_path, capsys):
    """The Chile panel has no poverty column: the command attaches it (brecha.covariates) and says so."""
    import math

    from brecha.covariates import chile_covariates

    out = tmp_path / "q.xlsx"
    assert run(["disparity", "--example", "chile", "--years", "2005-2014", "--pool",
                "--reference", "lowest-quintile:poverty", "-o", out]) == 0
    printed = capsys.readouterr().out
    assert "poverty" in printed and "Notes:" in printed and "CASEN" in printed
    sheets = pd.read_excel(out, sheet_name=None, dtype={"unit": str})
    assert any("poverty" in n for n in sheets["notes"]["note"])
    t = sheets["results"]
    # independent: the covariate table itself, mean over 2005-2014 per commune, lowest fifth
    cov = chile_covariates(["poverty"], years=range(2005, 2015))
    means = cov.groupby("unit")["poverty"].mean().dropna()
    means = means[means.index.isin(chile.unit_codes)]
    k = math.ceil(len(means) / 5)
    chosen = means[means <= means.sort_values().iloc[k - 1]].index
    ev = chile.events(years=range(2005, 2015), pool=True).set_index("unit")
    assert t["reference_events"].iloc[0] == int(ev.loc[chosen, "events"].sum())
    assert t["reference_births"].iloc[0] == int(ev.loc[chosen, "births"].sum())
    total = t[t["unit"] == "TOTAL"].set_index("measure")
    ref_rate = ev.loc[chosen, "events"].sum() / ev.loc[chosen, "births"].sum()
    all_rate = ev["events"].sum() / ev["births"].sum()
    assert total.loc["par", "estimate"] == pytest.approx((all_rate - ref_rate) * 1000, rel=1e-9)
    assert f"{len(chosen)} of {len(means)}" in t["reference"].iloc[0]


def test_disparity_at_region_level_and_default_best(chile, tmp_path, capsys):
    out = tmp_path / "r.csv"
    assert run(["disparity", "--example", "chile", "--years", "2005-2014", "--pool", "--level", "region",
                "--reference", "best", "-o", out]) == 0
    t = pd.read_csv(out, dtype={"unit": str})
    regions = chile.aggregate("region").events(years=range(2005, 2015), pool=True)
    rate = regions["events"].astype(float) / regions["births"].astype(float)
    best = regions.loc[rate.idxmin(), "unit"]
    assert set(t["unit"]) == set(regions["unit"]) | {"TOTAL"} and len(t) == 16 * 4 + 4  # + excess_deaths
    assert t["reference_rate"].iloc[0] == pytest.approx(rate.min() * 1000)
    rr = t[(t["unit"] == best) & (t["measure"] == "rate_ratio")]["estimate"].iloc[0]
    assert rr == pytest.approx(1.0)
    total = t[t["unit"] == "TOTAL"].set_index("measure")
    overall = regions["events"].sum() / regions["births"].sum()
    assert total.loc["par_percent", "estimate"] == pytest.approx((overall - rate.min()) / overall * 100)
    assert "Reference: best unit: " + best in capsys.readouterr().out


def test_disparity_best_on_communes_is_las_condes_not_thirteen_empty_communes(tmp_path, capsys):
    pytest.importorskip("brecha.datasets")
    out = tmp_path / "b.json"
    assert run(["disparity", "--example", "chile", "--years", "2005-2014", "--pool", "--reference", "best",
                "-o", out]) == 0
    t = pd.read_json(out, dtype={"unit": str})
    assert t["reference_events"].iloc[0] == 177 and t["reference_births"].iloc[0] == 36271
    assert "NCHS" in capsys.readouterr().out
    assert t["flag"].fillna("").str.contains("reference_zero").sum() == 0


def test_outputs_have_plain_text_columns(panel_file, tmp_path):
    out = tmp_path / "gap.parquet"
    assert run(["disparity", panel_file, "--reference", "R", "-o", out]) == 0
    t = pd.read_parquet(out)
    assert not any(isinstance(t[c].dtype, pd.CategoricalDtype) for c in t.columns)
    assert t["measure"].tolist()[:3] == ["rate_ratio", "attributable_risk", "attributable_risk_percent"]


def test_disparity_level_accepts_region_codes_without_leading_zeros(chile):
    from brecha.disparity import disparity

    t = disparity(chile, "13", years=range(2005, 2015), pool=True, level="region", units=["5", "13", "9"])
    assert set(t["unit"]) == {"05", "09", "13", "TOTAL"}
    regions = chile.aggregate("region").events(years=range(2005, 2015), pool=True).set_index("unit")
    rate = regions["events"].astype(float) / regions["births"].astype(float)
    rr = t[(t["unit"] == "09") & (t["measure"] == "rate_ratio")]["estimate"].iloc[0]
    assert rr == pytest.approx(rate["09"] / rate["13"], rel=1e-12)
    assert any("region" in n or "región" in n for n in t.attrs["notes"])


def test_bad_inputs_name_the_problem(chile, capsys):
    assert run(["disparity", "--example", "chile", "--reference", "lowest-quintile:pobreza"]) == 2
    err = capsys.readouterr().err
    assert "pobreza" in err and "poverty" in err           # says what brecha can add
    assert run(["funnel", "--example", "chile", "--target", "-3"]) == 2
    assert "-3" in capsys.readouterr().err
    assert run(["disparity", "--example", "chile", "--years", "2010", "--region", "11", "--reference", "best"]) == 2
    assert "best:0" in capsys.readouterr().err


def test_a_pooled_period_is_labelled_with_the_years_it_pools(tmp_path):
    """`--years 2001,2005 --pool` pools two years: labelled "2001,2005" (as --years takes them), not
    "2001-2005", which reads as five; years asked but absent (2020) are not in the label either. Consecutive
    years keep their usual label. The same label in every command that pools (rates, inequality, disparity)."""
    from brecha import datasets
    from brecha.panel import period_label

    path = tmp_path / "chile.csv"
    datasets.chile().subset(region=["01"]).to_file(path)
    cases = {"2001,2005": "2001,2005", "2000-2003,2005": "2000-2003,2005", "2001,2020": "2001",
             "2002-2004": "2002-2004"}
    for asked, label in cases.items():
        for command, extra in (("rates", []), ("inequality", []), ("disparity", ["--reference", "01101"])):
            out = tmp_path / f"{command}.csv"
            assert main(["--lang", "en", command, str(path), "--years", asked, "--pool", *extra, "-o", str(out)]) == 0
            assert set(pd.read_csv(out, dtype={"period": str})["period"]) == {label}, (command, asked)
    rates = pd.read_csv(tmp_path / "rates.csv", dtype={"unit": str})
    assert rates["n_years"].max() == 3
    assert [period_label(y) for y in ([2001, 2005], [2005, 2001, 2001], [2010], [], range(2000, 2016))] == \
        ["2001,2005", "2001,2005", "2010", "", "2000-2015"]
