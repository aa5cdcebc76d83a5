"""The report's spatial section through `brecha report`: its tables are the analyses' numbers, its maps and
its caveat are there, in Spanish and English."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from brecha import datasets
from brecha.cli.main import main
from brecha.i18n import get_language, set_language
from brecha.spatial.autocorrelation import spatial_autocorrelation

STUDY = """
title = "Araucanía spatial"
country = "CL"
period = "2021"
outcomes = ["infant"]

[data]
example = "araucania"

[units]
all = true

[reference]
codes = ["09101", "09112"]

[analyses.rates]

[analyses.spatial]
neighbours = "queen"
permutations = 99
seed = 5
"""


@pytest.fixture(autouse=True)
def keep_language():
    before = get_language()
    yield
    set_language(before)


@pytest.mark.parametrize("lang,caveat", [
    ("en", "Clusters describe where similar rates sit together; they do not explain why."),
    ("es", "Los clústeres describen dónde hay tasas parecidas juntas; no explican por qué."),
])
def test_report_spatial_section(tmp_path, lang, caveat):
    study = tmp_path / "study.toml"
    study.write_text(STUDY, encoding="utf-8")
    out = tmp_path / "report"
    assert main(["--lang", lang, "--quiet", "report", str(study), "-o", str(out)]) == 0
    page = (out / "index.html").read_text(encoding="utf-8")
    assert caveat in page
    assert ("nested Laplace approximation" if lang == "en" else "aproximación de Laplace anidada") in page  # methods
    for name in ("map_lisa", "map_bym2", "map_prob_above"):
        assert (out / "figures" / f"{name}.svg").exists()
    glob = pd.read_csv(out / "tables" / "spatial_global.csv", dtype={"period": str})
    local = pd.read_csv(out / "tables" / "spatial_local.csv", dtype={"unit": str, "period": str})
    bym2 = pd.read_csv(out / "tables" / "spatial_bym2.csv", dtype={"unit": str, "period": str})
    api_glob, api_local = spatial_autocorrelation(datasets.example("araucania"), years=[2021], pool=True,
                                                  permutations=99, seed=5)
    assert np.allclose(glob["estimate"], api_glob["estimate"]) and np.allclose(glob["p_value"], api_glob["p_value"])
    assert np.allclose(local["lisa"], api_local["lisa"], equal_nan=True)
    assert len(bym2) == 32 and bym2["prob_above"].between(0, 1).all()


@pytest.mark.parametrize("lang,sentence", [
    ("en", "Every one of the communes has the same rate in 2021"),
    ("es", "Todas las comunas tienen la misma tasa en 2021"),
])
def test_report_with_the_same_rate_everywhere_says_so(tmp_path, lang, sentence):
    """A panel file whose communes all have 0 deaths: no commune is called a cluster, the page says why."""
    data = datasets.example("araucania").data.copy()
    for column in [c for c in data.columns if c.startswith("deaths")]:
        data[column] = 0
    data.to_csv(tmp_path / "zero.csv", index=False)
    study = tmp_path / "study.toml"
    study.write_text(STUDY.replace('example = "araucania"', 'panel = "zero.csv"'), encoding="utf-8")
    out = tmp_path / "report"
    assert main(["--lang", lang, "--quiet", "report", str(study), "-o", str(out)]) == 0
    assert sentence in (out / "index.html").read_text(encoding="utf-8")
    local = pd.read_csv(out / "tables" / "spatial_local.csv", dtype={"unit": str})
    assert (local["cluster"] == "no_variation").all() and local["lisa_p"].isna().all()
    glob = pd.read_csv(out / "tables" / "spatial_global.csv")
    assert glob["p_value"].isna().all()
