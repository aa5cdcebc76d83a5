"""A panel file behaves exactly like the embedded example (issue 11, point 1).

The Chilean example is written to disk the ways a user does it: ``Panel.to_file`` (``datasets.chile(
covariates=False).to_file``), and ``brecha ingest table`` on her own source table (numeric commune codes
without the leading zero, Spanish column names). Each panel file, in .csv, .parquet and .xlsx, is read back by
the real CLI and every command must give the numbers of ``--example chile``: the same output columns, the
same rows, every number equal to 1e-12 (relative). The shipped covariates (poverty, health_spending_pc,
schooling, sapu, distance_hospital_km) are not in the files: brecha attaches them, and the results must be
those of the example, which carries them. A study with ``data.panel`` and ``[covariates]`` must give the
report of the same study on ``example = "chile"``: the same sections, the same tables, the same numbers.

What may legitimately differ (and is not compared): the printed panel header (it names the source), the data
warnings that the example keeps quiet (they are in its notes), and the notes about the columns the file does
not have (population, the five standard covariates carried by the example, whose own full notes are compared).
The example's record ledger (``datasets.ledger("chile")``) describes the embedded sources and is reported only
for the example.
"""
from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from brecha import datasets
from brecha.cli.main import main
from brecha.i18n import get_language, set_language

FORMATS = ("csv", "parquet", "xlsx")
COVARIATES = "poverty,health_spending_pc,schooling,sapu,distance_hospital_km"

# command id -> arguments (besides the panel and -o); small year ranges keep the test fast
COMMANDS = {
    "panel": ["panel"],
    "rates": ["rates", "--years", "2013-2015"],
    "rates_pool_region": ["rates", "--years", "2010-2015", "--pool", "--level", "region"],
    "disparity_best": ["disparity", "--years", "2014-2015", "--reference", "best"],
    "disparity_poverty": ["disparity", "--years", "2014-2015", "--reference", "lowest-quintile:poverty"],
    "smooth": ["smooth", "--years", "2014-2015"],
    "funnel": ["funnel", "--years", "2013-2015"],
    "inequality": ["inequality", "--years", "2015", "--measures", "who"],
    "inequality_rank_poverty": ["inequality", "--years", "2015", "--rank-by", "poverty", "--bootstrap", "200",
                                "--seed", "3"],
    "inequality_covariate": ["inequality", "--years", "2010-2012", "--covariate", "health_spending_pc"],
    "trends": ["trends", "--years", "2008-2015"],
    "models_linear": ["models", "--covariates", COVARIATES, "--models", "pooled,fe,re", "--years", "2010-2012"],
    "models_count": ["models", "--covariates", "poverty,schooling,distance_hospital_km", "--models",
                     "poisson,negbin,poisson_fe", "--years", "2011-2012"],
}
# the commands also run on the panels made by `ingest table` (the others only on Panel.to_file's, to stay fast)
INGEST_COMMANDS = ("panel", "rates", "disparity_poverty", "inequality_rank_poverty", "models_linear")

STUDY = '''
title = "Araucanía, file or example"
country = "CL"
period = "2008-2012"
outcomes = ["infant"]

[data]
{data}

[units]
region = "09"

[reference]
rule = "lowest-quintile:poverty"

[covariates]
names = ["poverty", "health_spending_pc", "schooling", "sapu", "distance_hospital_km"]
fill = "interpolate"

[analyses.rates]
ci = "exact"
[analyses.disparity]
per_year = true
pooled = true
[analyses.smoothing]
prior = "global"
[analyses.funnel]
[analyses.distribution]
[analyses.trends]
method = "prais-winsten"
[analyses.inequality]
rank_by = "poverty"
groups = 5
bootstrap = 0
[analyses.covariate_inequality]
covariate = "health_spending_pc"
[analyses.models]
covariates = ["poverty", "health_spending_pc", "schooling"]
models = ["pooled", "fe", "re"]
[analyses.maps]
'''


# ------------------------------------------------------------------------------------------ helpers
def brecha(*args) -> tuple[int, str]:
    """Run the real CLI in this process; (exit code, stdout + stderr)."""
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
        code = main(["--lang", "en", *map(str, args)])
    return code, buf.getvalue()


def notes_printed(text: str) -> list[str]:
    """The "Notes:" block a command prints (one "  - note" line each)."""
    lines = text.splitlines()
    if "Notes:" not in lines:
        return []
    out = []
    for line in lines[lines.index("Notes:") + 1:]:
        if not line.startswith("  - "):
            break
        out.append(line[4:])
    return out


def assert_same_table(ours: pd.DataFrame, theirs: pd.DataFrame, what: str) -> None:
    """Same columns in the same order, same rows, numbers equal to 1e-12 (relative), text equal."""
    assert list(ours.columns) == list(theirs.columns), what
    assert len(ours) == len(theirs), what
    for col in ours.columns:
        a, b = ours[col], theirs[col]
        if pd.api.types.is_numeric_dtype(a) and pd.api.types.is_numeric_dtype(b):
            np.testing.assert_allclose(a.to_numpy(float), b.to_numpy(float), rtol=1e-12, atol=0,
                                       equal_nan=True, err_msg=f"{what}: column {col}")
        else:
            assert a.astype(str).tolist() == b.astype(str).tolist(), f"{what}: column {col}"


def read_output(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, dtype={"unit": str})


# ------------------------------------------------------------------------------------------ fixtures
@pytest.fixture(scope="module")
def panels(tmp_path_factory) -> dict:
    """(route, format) -> panel file; made once."""
    root = tmp_path_factory.mktemp("panels")
    before = get_language()
    set_language("en")  # the notes Panel.to_file writes beside the file keep this language
    try:
        files = {}
        example = datasets.chile(covariates=False)
        for ext in FORMATS:
            path = root / f"to_file.{ext}"
            example.to_file(path)
            files["to_file", ext] = path
        # her own source table: commune codes as numbers (no leading zero), Spanish column names
        source = datasets.chile_data("keep", covariates=False).rename(columns={
            "unit": "codigo_comuna", "year": "anio", "births": "nacidos_vivos", "deaths": "defunciones_infantiles"})
        source["codigo_comuna"] = source["codigo_comuna"].astype(int)
        source = source.sample(frac=1.0, random_state=1)  # her rows need not be sorted
        source_file = root / "mis_datos.csv"
        source.to_csv(source_file, index=False)
        for ext in FORMATS:
            path = root / f"ingest_table.{ext}"
            code, text = brecha("ingest", "table", source_file, "-o", path)
            assert code == 0, text
            assert "346 units, years 2000-2015, 5520 rows" in text
            files["ingest_table", ext] = path
    finally:
        set_language(before)
    return files


@pytest.fixture(scope="module")
def example_runs(tmp_path_factory) -> dict:
    """command id -> (output file, printed text) of --example chile; run once each, on demand."""
    return {"root": tmp_path_factory.mktemp("example")}


def run_example(example_runs: dict, command: str):
    if command not in example_runs:
        out = example_runs["root"] / f"{command}.csv"
        code, text = brecha(*COMMANDS[command], "--example", "chile", "-o", out)
        assert code == 0, text
        example_runs[command] = (out, text)
    return example_runs[command]


def sibling(path: Path, suffix: str) -> Path:
    return path.with_name(f"{path.stem}.{suffix}{path.suffix}")


# ------------------------------------------------------------------------------------------ commands
CASES = [(route, ext, command) for ext in FORMATS for command in COMMANDS
         for route in ("to_file", "ingest_table") if route == "to_file" or command in INGEST_COMMANDS]


@pytest.mark.parametrize("route,ext,command", CASES, ids=["-".join(c) for c in CASES])
def test_command_on_panel_file_equals_example(panels, example_runs, tmp_path, route, ext, command):
    expected, expected_text = run_example(example_runs, command)
    out = tmp_path / f"{command}.csv"
    code, text = brecha(*COMMANDS[command], panels[route, ext], "-o", out)
    assert code == 0, text
    assert_same_table(read_output(out), read_output(expected), f"{command} on {route}.{ext}")
    if command.startswith("models"):
        for part in ("tests", "fit_info"):
            assert_same_table(read_output(sibling(out, part)), read_output(sibling(expected, part)),
                              f"{command} {part} on {route}.{ext}")
    # the covariates attached to the file are noted exactly as the example notes them when it rebuilds them
    ours, theirs = notes_printed(text), notes_printed(expected_text)
    covariate_notes = [n for n in theirs if n.startswith("Covariate ")]
    assert set(covariate_notes) <= set(ours)
    if route == "to_file":
        # the example's caveats travel with the file (<name>.notes.json), except those about the columns a
        # covariates=False panel does not have
        lost = [n for n in theirs if n not in ours]
        assert all(n.startswith(("Population:", "Covariates attached from the shipped sources")) for n in lost), lost
        assert any(n.startswith("Births 2000-2009: DEIS live births to mothers aged 15-49") for n in ours)
    if command == "panel":
        assert "346 units, years 2000-2015, 5520 rows, country CL" in text
        assert "Outcomes available: infant" in text


def test_models_notes_file_equal_example(panels, example_runs, tmp_path):
    """The models' notes table (rows used, covariate sources and rules, panel caveats) is the example's, but
    the note on the population columns that a covariates=False file does not have."""
    expected, _ = run_example(example_runs, "models_linear")
    out = tmp_path / "models.csv"
    assert brecha(*COMMANDS["models_linear"], panels["to_file", "parquet"], "-o", out)[0] == 0
    theirs = [n for n in read_output(sibling(expected, "notes"))["note"] if not n.startswith("Population:")]
    assert read_output(sibling(out, "notes"))["note"].tolist() == theirs


def test_notes_travel_in_spanish_and_stale_notes_are_refused(tmp_path):
    """Notes keep the language they were written in; a notes file left beside another panel is not used,
    and a warning names it."""
    before = get_language()
    set_language("es")
    try:
        datasets.chile(covariates=False).to_file(tmp_path / "panel.csv")
    finally:
        set_language(before)
    code, text = brecha("panel", tmp_path / "panel.csv")
    assert code == 0
    assert any(n.startswith("Nacimientos 2000-2009: nacidos vivos DEIS de madres de 15 a 49") for n in notes_printed(text))
    # the panel file replaced by another (one region only) under the same name: its old notes do not apply
    datasets.chile(covariates=False).subset(region="09").data.to_csv(tmp_path / "panel.csv", index=False)
    code, text = brecha("panel", tmp_path / "panel.csv")
    assert code == 0
    assert notes_printed(text) == []
    assert "panel.notes.json were written for another panel (5520 rows" in text
    assert "the file has 508 rows" in text


# ------------------------------------------------------------------------------------------ report
def report(tmp_path: Path, name: str, data: str):
    study = tmp_path / f"{name}.toml"
    study.write_text(STUDY.format(data=data), encoding="utf-8")
    folder = tmp_path / name
    code, text = brecha("report", study, "-o", folder)
    assert code == 0, text
    sections = re.findall(r"<h2[^>]*>(.*?)</h2>", (folder / "index.html").read_text(encoding="utf-8"))
    tables = {p.name: p for p in sorted((folder / "tables").glob("*.csv"))}
    return text, sections, tables


@pytest.fixture(scope="module")
def example_report(tmp_path_factory):
    return report(tmp_path_factory.mktemp("report"), "example", 'example = "chile"')


@pytest.mark.parametrize("route,ext", [("to_file", "csv"), ("ingest_table", "xlsx"), ("to_file", "parquet")])
def test_report_on_panel_file_equals_example(panels, example_report, tmp_path, route, ext):
    text_ex, sections_ex, tables_ex = example_report
    text, sections, tables = report(tmp_path, "file", f'panel = "{panels[route, ext].as_posix()}"')
    assert sections == sections_ex and len(sections) >= 12          # no section dropped
    assert "Panel models" in sections and "Inequality over time" in sections
    assert "Nothing excluded." in text
    # the same tables, but the record ledger of the embedded sources, which only the example has
    assert set(tables) - {"ledger.csv"} == set(tables_ex) - {"ledger.csv"}
    assert len(tables_ex) >= 25
    for name in tables_ex:
        if name != "ledger.csv":
            assert_same_table(read_output(tables[name]), read_output(tables_ex[name]), f"report {name}")
    if route == "to_file":   # the caveats travel; so does the headline's births caveat
        assert "Births 2000-2009: mothers aged 15-49 only" in text
        caveats = text.split("Caveats:")[1]
        for line in text_ex.split("Caveats:")[1].splitlines():
            if line.startswith("  - ") and not line[4:].startswith(("Population:", "Covariates attached from")):
                assert line in caveats
