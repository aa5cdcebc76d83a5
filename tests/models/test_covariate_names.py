"""A column of the user's own panel file wins over an alias of a shipped covariate (``spending`` is the
user's column, not ``health_spending_pc``), in every command that names covariates; an alias still
works when the panel has no such column."""
import warnings

import numpy as np
import pandas as pd
import pytest

from brecha import datasets
from brecha.cli.main import main
from brecha.covariates import resolve_names
from brecha.models import fit_frame
from brecha.panel import Panel


@pytest.fixture(scope="module")
def panel_file(tmp_path_factory):
    """Araucanía 2006-2012 (32 communes) written to disk with the user's own ``spending`` column."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        p = datasets.chile().subset(years=range(2006, 2013), region="09")
        d = p.data.copy()
        d["spending"] = np.random.default_rng(1).gamma(4.0, 25.0, len(d))
        path = tmp_path_factory.mktemp("own") / "panel.csv"
        Panel(d, units=p.units, country=p.country, source="test").to_file(path)
    return path


def test_resolve_names_keeps_a_panel_column_and_maps_aliases_otherwise():
    assert resolve_names(["spending", "pobreza"], ["unit", "spending"]) == ["spending", "poverty"]
    assert resolve_names(["spending", "Pobreza", "povrety"], ["unit"]) == ["health_spending_pc", "poverty",
                                                                            "povrety"]


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("lang", ["en", "es"])
def test_models_use_the_panels_own_spending_column(panel_file, tmp_path, lang):
    out = tmp_path / "m.csv"
    assert main(["--lang", lang, "models", str(panel_file), "--covariates", "spending", "--models", "pooled",
                 "--se", "unadjusted", "-o", str(out)]) == 0
    c = pd.read_csv(out)
    assert c["term"].tolist() == ["intercept", "spending"]
    # the same numbers as OLS of the rate on the file's own column
    d = pd.read_csv(panel_file, dtype={"unit": str})
    d = d[d["births"] > 0].assign(rate=lambda t: t["deaths"] / t["births"] * 1000)
    ref = fit_frame(d, "rate", ["spending"], models=["pooled"], se="unadjusted").coefficients
    np.testing.assert_allclose(c["estimate"], ref["estimate"], rtol=1e-10)
    np.testing.assert_allclose(c["se"], ref["se"], rtol=1e-10)


@pytest.mark.filterwarnings("ignore")
def test_alias_still_reaches_the_shipped_covariate_when_the_panel_lacks_the_name(panel_file, tmp_path):
    out = tmp_path / "m.csv"
    assert main(["--lang", "en", "models", str(panel_file), "--covariates", "pobreza", "--models", "pooled",
                 "-o", str(out)]) == 0
    assert pd.read_csv(out)["term"].tolist() == ["intercept", "poverty"]


@pytest.mark.filterwarnings("ignore")
def test_inequality_and_disparity_rank_by_the_panels_own_column(panel_file, tmp_path):
    d = pd.read_csv(panel_file, dtype={"unit": str})
    y2010 = d[d["year"] == 2010]
    out = tmp_path / "ineq.csv"
    assert main(["--lang", "en", "inequality", str(panel_file), "--rank-by", "spending", "--years", "2010",
                 "-o", str(out)]) == 0
    assert (pd.read_csv(out)["rank_by"] == "spending").all()
    out = tmp_path / "disp.csv"
    assert main(["--lang", "en", "disparity", str(panel_file), "--reference", "lowest-quintile:spending",
                 "--years", "2010", "-o", str(out)]) == 0
    ref = pd.read_csv(out)["reference"].iloc[0]
    lowest = y2010.nsmallest(7, "spending")["spending"].max()
    assert "lowest-quintile:spending" in ref and f"≤ {lowest:.2f}" in ref


@pytest.mark.filterwarnings("ignore")
def test_a_study_with_its_own_panel_models_the_spending_column(panel_file, tmp_path):
    study = tmp_path / "study.toml"
    study.write_text(f'''title = "Own panel"
language = "en"
country = "CL"
period = "2006-2012"
outcomes = ["infant"]

[data]
panel = "{panel_file.as_posix()}"

[units]
all = true

[reference]
rule = "lowest-quintile:spending"

[covariates]
names = ["spending"]

[analyses.models]
models = ["pooled"]
se = "unadjusted"
''', encoding="utf-8")
    assert main(["--lang", "en", "run", str(study), "-o", str(tmp_path / "rep")]) == 0
    coefs = pd.read_csv(tmp_path / "rep" / "tables" / "model_coefficients.csv")
    row = coefs[(coefs["model"] == "pooled") & (coefs["term"] == "spending")].iloc[0]
    d = pd.read_csv(panel_file, dtype={"unit": str})
    d = d[d["births"] > 0].assign(rate=lambda t: t["deaths"] / t["births"] * 1000)
    ref = fit_frame(d, "rate", ["spending"], models=["pooled"], se="unadjusted").coefficients
    assert row["estimate"] == pytest.approx(ref["estimate"].iloc[1], rel=1e-10)
    assert "health_spending_pc" not in set(coefs["term"])
