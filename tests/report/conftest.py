"""Shared fixtures of the report tests: a small real study (Aysén region) built once, and the default
Chilean report built once (used by the default-report test and the browser test)."""
from pathlib import Path

import pytest

SMALL_STUDY = '''
title = "Aysén <test> & co"
language = "es"
period = "2006-2012"
[data]
example = "chile"
[units]
region = "11"
[reference]
rule = "best"
min_births = 1000
[analyses.rates]
[analyses.disparity]
per_year = true
pooled = true
focus = ["11101", "11201"]
[analyses.smoothing]
[analyses.funnel]
[analyses.distribution]
[analyses.trends]
[analyses.inequality]
[analyses.maps]
'''


@pytest.fixture(scope="session")
def small_study_path(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("small_study")
    path = folder / "aysen.toml"
    path.write_text(SMALL_STUDY, encoding="utf-8")
    return path


TINY_STUDY = '''
title = "Aysén"
language = "es"
period = "2008-2012"
[data]
example = "chile"
[units]
region = "11"
[analyses.rates]
[analyses.trends]
'''


@pytest.fixture(scope="session")
def tiny_study_path(tmp_path_factory) -> Path:
    """Rates and trends of one small region: for the CLI and degradation tests."""
    path = tmp_path_factory.mktemp("tiny_study") / "tiny.toml"
    path.write_text(TINY_STUDY, encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def small_report(small_study_path, tmp_path_factory):
    from brecha.report.build import build_report
    from brecha.study import read_study

    out = tmp_path_factory.mktemp("small_report")
    report = build_report(read_study(small_study_path), out)
    return report, out


@pytest.fixture(scope="session")
def default_report(tmp_path_factory):
    """The README's main job: the default Chilean report (all communes, 2000-2015)."""
    from brecha.report.build import build_report
    from brecha.study import example_study

    out = tmp_path_factory.mktemp("default_report")
    report = build_report(example_study("chile"), out, lang="en")
    return report, out
