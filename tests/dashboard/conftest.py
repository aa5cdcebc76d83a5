"""Fixtures of the dashboard tests: a panel file on disk (two Chilean regions, 2006-2012, with neonatal deaths
added deterministically so the outcome switch has something to switch to), a study naming it, and its
report folder built once through the real command line."""
from pathlib import Path

import numpy as np
import pytest

STUDY = '''
title = "Dashboard <test> & co"
language = "en"
period = "2006-2012"
outcomes = ["infant", "neonatal"]
[data]
panel = "{panel}"
[units]
all = true
[reference]
rule = "best"
min_births = 1000
[covariates]
names = ["poverty"]
fill = "interpolate"
[analyses.rates]
[analyses.disparity]
[analyses.smoothing]
[analyses.funnel]
[analyses.trends]
[analyses.inequality]
rank_by = "poverty"
[analyses.models]
covariates = ["poverty"]
models = ["pooled", "fe"]
[analyses.maps]
'''


@pytest.fixture(scope="session")
def panel_file(tmp_path_factory) -> Path:
    import brecha

    chile = brecha.read_panel("example:chile")
    small = chile.subset(region="11", years=range(2006, 2013))
    data = small.data[["unit", "year", "births", "deaths"]].copy()
    # neonatal deaths: a fixed share of the infant deaths (a deterministic made-up split for the test)
    data["deaths_neonatal"] = (np.floor(data["deaths"].astype(float) * 0.6)).astype("Int64")
    more = chile.subset(region="12", years=range(2006, 2013)).data[["unit", "year", "births", "deaths"]].copy()
    more["deaths_neonatal"] = (np.floor(more["deaths"].astype(float) * 0.6)).astype("Int64")
    import pandas as pd

    folder = tmp_path_factory.mktemp("dash_panel")
    path = folder / "panel.csv"
    brecha.Panel(pd.concat([data, more], ignore_index=True), country="CL").to_file(path)
    return path


@pytest.fixture(scope="session")
def study_file(panel_file) -> Path:
    path = panel_file.parent / "study.toml"
    path.write_text(STUDY.format(panel=panel_file.name), encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def report_folder(study_file) -> Path:
    """``brecha --lang en report study.toml -o rep`` (in process)."""
    from brecha.cli.main import main

    out = study_file.parent / "rep"
    assert main(["--lang", "en", "--quiet", "report", str(study_file), "-o", str(out)]) == 0
    return out
