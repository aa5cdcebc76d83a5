"""Catalogue of ordinary mistakes and edge cases a health-ministry analyst meets with her own files (issue 11),
and the measuring instrument over it.

    python tests/e2e/mistakes.py            # every case; prints the table per class and the failures
    python tests/e2e/mistakes.py 6 7        # only classes 6 and 7
    python tests/e2e/mistakes.py -k ragged  # only cases whose id contains "ragged"

Classes are the ten points of issue 11 ("What must be true"). Expected outcomes are what the issue demands;
where it is silent, the choice is written next to the case (``why=``). Cases of input problems live in
:mod:`mistakes_inputs` and :mod:`mistakes_requests`; this module holds the rest (files = examples, overwriting, Ctrl-C, ledger, progress,
docs) and the runner.
"""
from __future__ import annotations

import re
import shlex
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import mistake_data as md  # noqa: E402
import mistake_inject as inj  # noqa: E402
from mistake_harness import CLASSES, Case, execute, table  # noqa: E402
from mistakes_inputs import input_cases  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def _panel_file(name: str, df_fn=md.base, **kw):
    return lambda folder: md.write(folder, name, df_fn(), **kw)


def _to_file(name: str):
    """The whole Chilean panel (counts) written by ``Panel.to_file``, as issue 11 point 1 says."""
    def setup(folder):
        from brecha.panel import Panel

        Panel(md.chile_counts(), country="CL").to_file(Path(folder) / name)
    return setup


# ------------------------------------------------------------------------------------------ class 1
COMMANDS = {
    "rates": ("rates", "--years", "2015"),
    "rates-level": ("rates", "--level", "region", "--years", "2015"),
    "disparity-best": ("disparity", "--reference", "best", "--years", "2010-2015", "--pool"),
    "disparity-quintile": ("disparity", "--reference", "lowest-quintile:poverty", "--years", "2015"),
    "smooth": ("smooth", "--years", "2015"),
    "funnel": ("funnel", "--years", "2015"),
    "inequality-rank": ("inequality", "--rank-by", "poverty", "--years", "2015"),
    "inequality-groups": ("inequality", "--rank-by", "poverty", "--groups", "5", "--years", "2015"),
    "inequality-covariate": ("inequality", "--covariate", "health_spending_pc", "--years", "2010-2012"),
    "trends": ("trends", "--region", "9"),
    "models": ("models", "--covariates", "poverty", "--years", "2006-2012"),
    "models-two": ("models", "--covariates", "poverty,health_spending_pc", "--years", "2006-2012"),
    "panel": ("panel",),
}
FORMATS = {
    "csv": list(COMMANDS),
    "parquet": ["rates", "disparity-quintile", "smooth", "inequality-rank", "inequality-groups", "trends",
                "models", "panel"],
    "xlsx": ["rates", "disparity-quintile", "inequality-rank", "models", "panel"],
    "json": ["rates", "disparity-quintile", "inequality-rank", "models"],
}

study = md.study


def class1() -> list[Case]:
    cases = []
    for fmt, names in FORMATS.items():
        for name in names:
            command = COMMANDS[name]
            cases.append(Case(
                f"files-{fmt}-{name}", 1, f"panel written by Panel.to_file as .{fmt}, then {' '.join(command)}",
                [[*command, f"panel.{fmt}", "-o", "out.csv"]], "ok", _to_file(f"panel.{fmt}"),
                check=md.same_as_example(command), outputs=("out.*",)))
    # the example panel with its covariates, written whole: its own columns are used
    for name in ("models", "inequality-rank"):
        def setup(folder):
            md.chile().to_file(Path(folder) / "full.csv")
        cases.append(Case(f"files-full-csv-{name}", 1, "the whole example panel (covariates too) as CSV",
                          [[*COMMANDS[name], "full.csv", "-o", "out.csv"]], "ok", setup,
                          check=md.same_as_example(COMMANDS[name]), outputs=("out.*",)))

    # the user's own CSV with Spanish column names, through `ingest table`, then an analysis
    def user_table(folder):
        d = md.chile_counts()
        md.write(folder, "mis_datos.csv", d.rename(columns={"unit": "codigo_comuna", "year": "anio",
                                                             "births": "nacidos_vivos",
                                                             "deaths": "defunciones_infantiles"}))
    for name in ("inequality-rank", "disparity-quintile", "models", "rates"):
        cases.append(Case(
            f"files-ingest-table-{name}", 1, "own CSV -> ingest table -> parquet -> " + name,
            [["ingest", "table", "mis_datos.csv", "-o", "panel.parquet"],
             [*COMMANDS[name], "panel.parquet", "-o", "out.csv"]], "ok", user_table,
            check=md.same_as_example(COMMANDS[name]), outputs=("out.*",)))

    def wide_tables(folder):
        d = md.chile_counts()
        births = d.pivot(index="unit", columns="year", values="births").reset_index()
        deaths = d.pivot(index="unit", columns="year", values="deaths").reset_index()
        births.columns = ["codigo"] + [f"nv_{y}" for y in births.columns[1:]]
        deaths.columns = ["codigo"] + [str(y) for y in deaths.columns[1:]]
        md.write(folder, "nacimientos.xlsx", births)
        md.write(folder, "defunciones.csv", deaths)
    cases.append(Case("files-ingest-wide-rates", 1, "wide births.xlsx + wide deaths.csv -> ingest table -> rates",
                      [["ingest", "table", "nacimientos.xlsx=births", "defunciones.csv=deaths", "-o", "p.parquet"],
                       [*COMMANDS["rates"], "p.parquet", "-o", "out.csv"]], "ok", wide_tables,
                      check=md.same_as_example(COMMANDS["rates"]), outputs=("out.*",)))

    # a study on the user's panel file with shipped covariates: the report must keep those sections
    more = '[analyses.disparity]\n[analyses.inequality]\nrank_by = "poverty"\n'
    covs = '[covariates]\nnames = ["poverty"]\n'

    def study_files(folder):
        md.write(folder, "panel.csv", md.chile_counts())
        (Path(folder) / "mine.toml").write_text(study("Mine", covariates=covs, more=more,
                                                      reference="lowest-quintile:poverty"), encoding="utf-8")
        (Path(folder) / "example.toml").write_text(
            study("Mine", data='example = "chile"', covariates=covs, more=more, reference="lowest-quintile:poverty"),
            encoding="utf-8")
    cases.append(Case("files-study-panel-covariates", 1, "study with data.panel + [covariates] = the example's report",
                      [["report", "example.toml", "-o", "ex"], ["report", "mine.toml", "-o", "rep"]], "ok",
                      study_files, check=md.tables_as_example("rep", "ex"), outputs=("rep/*",)))
    return cases


# ------------------------------------------------------------------------------------------ class 4
ANALYSES = {
    "rates": ["rates"], "disparity": ["disparity", "--reference", "best"], "smooth": ["smooth"],
    "funnel": ["funnel"], "inequality": ["inequality"], "trends": ["trends"],
    "models": ["models", "--covariates", "poverty"], "panel": ["panel"],
}


def class4() -> list[Case]:
    cases = []
    good = _panel_file("panel.csv")
    for name, command in ANALYSES.items():
        cases.append(Case(f"overwrite-{name}-o-input", 4, f"{name} -o the input panel itself",
                          [[*command, "panel.csv", "-o", "panel.csv"]], "error", good, mentions=("panel.csv",)))
    cases.append(Case("overwrite-ingest-o-input", 4, "ingest table -o the table it reads",
                      [["ingest", "table", "panel.csv", "-o", "panel.csv"]], "error", good, mentions=("panel.csv",)))
    cases.append(Case("overwrite-ingest-o-second-input", 4, "ingest table of two files, -o the second",
                      [["ingest", "table", "births.csv", "deaths.csv", "-o", "deaths.csv"]], "error",
                      lambda f: (md.write(f, "births.csv", md.base()[["unit", "year", "births"]]),
                                 md.write(f, "deaths.csv", md.base()[["unit", "year", "deaths"]])),
                      mentions=("deaths.csv",)))
    cases.append(Case("overwrite-dot-slash", 4, "-o ./panel.csv (the input, written another way)",
                      [["rates", "panel.csv", "-o", "./panel.csv"]], "error", good, mentions=("panel.csv",)))
    cases.append(Case("overwrite-absolute", 4, "-o the input's absolute path",
                      [["rates", "panel.csv", "-o", "{dir}/panel.csv"]], "error", good, mentions=("panel.csv",)))

    def with_sub(folder):
        good(folder)
        (Path(folder) / "sub").mkdir()
    cases.append(Case("overwrite-dotdot", 4, "-o sub/../panel.csv", [["rates", "panel.csv", "-o", "sub/../panel.csv"]],
                      "error", with_sub, mentions=("panel.csv",)))

    def with_link(folder):
        good(folder)
        (Path(folder) / "link.csv").symlink_to("panel.csv")
    cases.append(Case("overwrite-symlink", 4, "-o a symbolic link to the input",
                      [["rates", "panel.csv", "-o", "link.csv"]], "error", with_link, mentions=("link.csv",)))
    cases.append(Case("overwrite-input-is-ledger", 4, "ingest table out.ledger.csv -o out.csv: the ledger would "
                      "overwrite the input", [["ingest", "table", "out.ledger.csv", "-o", "out.csv"]], "error",
                      lambda f: md.write(f, "out.ledger.csv", md.base()), mentions=("out.ledger.csv",)))
    cases.append(Case("overwrite-funnel-curve-input", 4, "funnel --curve the input panel",
                      [["funnel", "panel.csv", "--curve", "panel.csv"]], "error", good, mentions=("panel.csv",)))
    cases.append(Case("overwrite-funnel-curve-output", 4, "funnel -o f.csv --curve f.csv (two outputs, one file)",
                      [["funnel", "panel.csv", "-o", "f.csv", "--curve", "f.csv"]], "error", good, mentions=("f.csv",),
                      why="silent in the issue: two outputs on one name lose one of them; refuse"))

    def deis(folder):
        from brecha.ingest import synthetic

        synthetic.generate(folder, deaths_rows=400, births_rows=600, seed=4, years=(2010, 2012))
    cases.append(Case("overwrite-deis-o-deaths", 4, "ingest deis -o the deaths file",
                      [["ingest", "deis", "--deaths", "deaths.csv", "--births", "births.csv", "-o", "deaths.csv"]],
                      "error", deis, mentions=("deaths.csv",)))
    cases.append(Case("overwrite-deis-o-births-ledger", 4, "ingest deis -o births.parquet: its ledger would be "
                      "births.ledger.csv, not an input; but -o births.csv is", [["ingest", "deis", "--deaths",
                      "deaths.csv", "--births", "births.csv", "-o", "births.csv"]], "error", deis,
                      mentions=("births.csv",)))

    def study_here(folder):
        md.write(folder, "panel.csv", md.base())
        (Path(folder) / "study.toml").write_text(study(), encoding="utf-8")
        (Path(folder) / "notes.txt").write_text("my notes\n", encoding="utf-8")
    cases.append(Case("overwrite-report-into-study-folder", 4, "report -o . (the folder of the study, the panel "
                      "and the user's notes): they stay as they were", [["report", "study.toml", "-o", "."]], "ok",
                      study_here, outputs=("*",), check=lambda f, r: None if (Path(f) / "index.html").exists()
                      else "no index.html"))

    def user_folder(folder):
        study_here(folder)
        md.text_file(folder, "rep/my_analysis.txt", "keep me\n")
        md.text_file(folder, "rep/tables/my_table.csv", "a,b\n1,2\n")
    cases.append(Case("overwrite-report-user-files-kept", 4, "report into a folder holding the user's own files",
                      [["report", "study.toml", "-o", "rep"]], "ok", user_folder, outputs=("rep/*",)))
    cases.append(Case("overwrite-report-rerun", 4, "the same report run twice into one folder",
                      [["report", "study.toml", "-o", "rep"], ["report", "study.toml", "-o", "rep"]], "ok", study_here,
                      outputs=("rep/*",), may_change=("rep/*",)))

    def earlier_then_broken(folder):
        study_here(folder)
        (Path(folder) / "broken.toml").write_text(study(data='panel = "bad.csv"'), encoding="utf-8")
        md.text_file(folder, "bad.csv", "unit,year,births,deaths\n09101,2010,100,1\n09101,2011,abc,2\n")
    cases.append(Case("overwrite-report-earlier-kept-on-error", 4, "an earlier report stays intact when the next "
                      "run into the same folder fails", [["report", "study.toml", "-o", "rep"],
                                                         ["report", "broken.toml", "-o", "rep"]], "error",
                      earlier_then_broken, mentions=("bad.csv",)))
    cases.append(Case("overwrite-report-earlier-kept-disk-full", 4, "an earlier report stays intact when writing "
                      "the new one fails half-way (disk full at the 2nd figure)",
                      [["report", "study.toml", "-o", "rep"], ["report", "study.toml", "-o", "rep"]], "error",
                      study_here, mentions=("rep",), inject=lambda: inj.during_write("figure", 2, exc=_disk_full),
                      outputs=("rep/*",),
                      why="silent on the message: a full disk is the user's environment, so exit 2 naming the file"))

    def two_studies(folder):
        study_here(folder)
        (Path(folder) / "other.toml").write_text(study("Other", more="[analyses.smoothing]\n"), encoding="utf-8")
    cases.append(Case("overwrite-report-concurrent", 4, "two reports into one folder at once: one waits or stops, "
                      "the folder holds one whole report", [["report", "study.toml", "-o", "rep"]], "ok", two_studies,
                      outputs=("rep/*",), also_error=True, check=_one_whole_report,
                      inject=lambda: inj.another_run(["--lang", "en", "report", "other.toml", "-o", "rep"])))
    return cases


def _disk_full():
    import errno
    import os

    return OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def _one_whole_report(folder, run):
    index = Path(folder) / "rep" / "index.html"
    if not index.exists():
        return "no index.html after two runs"
    html = index.read_text(encoding="utf-8", errors="replace")
    tables = {p.name for p in (Path(folder) / "rep" / "tables").glob("*.csv")}
    smooth = any("smooth" in t for t in tables)
    title_other = "Other" in html
    if smooth != title_other:
        return f"mixed report: title of {'Other' if title_other else 'Tiny'}, tables of the other study"
    return None


# ------------------------------------------------------------------------------------------ class 5
def class5() -> list[Case]:
    good = _panel_file("panel.csv")
    ki = KeyboardInterrupt
    cases = [
        Case("ctrlc-while-reading", 5, "Ctrl-C while the CSV is read", [["rates", "panel.csv", "-o", "out.csv"]],
             "interrupt", good, inject=lambda: inj.inside("brecha/io.py", ki)),
    ]
    for fmt in ("csv", "parquet", "xlsx", "json"):
        cases.append(Case(f"ctrlc-writing-{fmt}", 5, f"Ctrl-C half-way through writing out.{fmt}",
                          [["rates", "panel.csv", "-o", f"out.{fmt}"]], "interrupt", good,
                          inject=lambda fmt=fmt: inj.during_write(fmt, 1, ki)))
    cases += [
        Case("ctrlc-writing-csv-es", 5, "Ctrl-C writing out.csv, in Spanish", [["rates", "panel.csv", "-o", "out.csv"]],
             "interrupt", good, inject=lambda: inj.during_write("csv", 1, ki), lang="es"),
        Case("ctrlc-ingest-panel", 5, "Ctrl-C writing the panel of ingest table",
             [["ingest", "table", "panel.csv", "-o", "p.parquet"]], "interrupt", good,
             inject=lambda: inj.during_write("parquet", 1, ki)),
        Case("ctrlc-ingest-ledger", 5, "Ctrl-C writing the ledger after the panel: neither may appear alone",
             [["ingest", "table", "panel.csv", "-o", "p.csv"]], "interrupt", good,
             inject=lambda: inj.during_write("csv", 2, ki)),
        Case("ctrlc-models-fit", 5, "Ctrl-C while the models are fitted",
             [["models", "panel.csv", "--covariates", "poverty", "-o", "m.csv"]], "interrupt", good,
             inject=lambda: inj.inside("brecha/models/linear.py", ki)),
        Case("ctrlc-bootstrap", 5, "Ctrl-C during the bootstrap",
             [["inequality", "panel.csv", "--bootstrap", "300", "--seed", "1", "-o", "i.csv"]], "interrupt", good,
             inject=lambda: inj.inside("brecha/inequality/bootstrap.py", ki)),
        Case("ctrlc-report-figures", 5, "Ctrl-C while the report's figures are written: no half report folder",
             [["report", "study.toml", "-o", "rep"]], "interrupt", _study_setup,
             inject=lambda: inj.during_write("figure", 2, ki)),
        Case("ctrlc-report-earlier-kept", 5, "Ctrl-C during a re-run: the earlier report stays whole",
             [["report", "study.toml", "-o", "rep"], ["report", "study.toml", "-o", "rep"]], "interrupt",
             _study_setup, inject=lambda: inj.during_write("figure", 1, ki)),
        Case("ctrlc-deis-ledger", 5, "Ctrl-C writing the ledger of ingest deis",
             [["ingest", "deis", "--deaths", "deaths.csv", "--births", "births.csv", "-o", "p.parquet"]], "interrupt",
             lambda f: _deis(f), inject=lambda: inj.during_write("csv", 1, ki)),
        Case("ctrlc-real-signal-report", 5, "a real SIGINT to a running `brecha report` process",
             [["report", "-o", "rep"]], "interrupt", None, sigint_after=1.0),
        Case("ctrlc-real-signal-report-es", 5, "a real SIGINT to `brecha report`, in Spanish",
             [["report", "-o", "rep"]], "interrupt", None, sigint_after=1.0, lang="es"),
    ]
    # the national report (several seconds of work after its first line, even on a fast machine) and a signal
    # 1 s after that line: the Santiago report could finish first on a quiet machine
    return cases


def _study_setup(folder):
    md.write(folder, "panel.csv", md.base())
    (Path(folder) / "study.toml").write_text(study(more="[analyses.smoothing]\n[analyses.funnel]\n"),
                                             encoding="utf-8")


def _deis(folder):
    from brecha.ingest import synthetic

    synthetic.generate(folder, deaths_rows=400, births_rows=600, seed=4, years=(2010, 2012))


# ------------------------------------------------------------------------------------------ class 8
def _ledger_rows(out: str, read: int, counted: int | None = None, excluded: int | None = None, mention=None):
    """Check: a ledger beside ``out`` says ``read`` rows were read, ``counted`` used, ``excluded`` left out."""
    def check(folder, run):
        from brecha.ingest.ledger import Ledger

        path = Path(folder) / out
        try:
            ledger = Ledger.beside(path)
        except Exception as exc:  # noqa: BLE001
            return f"ledger beside {out} unreadable: {exc}"
        if ledger is None:
            return f"no ledger beside {out}"
        t = ledger.totals()
        problems = []
        for col, want in (("rows_read", read), ("counted", counted), ("excluded", excluded)):
            if want is not None and int(t[col].sum()) != want:
                problems.append(f"ledger {col} {int(t[col].sum())}, intended {want}")
        if mention and mention.lower() not in ledger.to_frame("en").to_string().lower():
            problems.append(f"ledger does not mention {mention!r}")
        return "; ".join(problems) or None
    return check


def class8() -> list[Case]:
    b, d = md.totals()
    led = ("p.csv", "p.ledger.csv", "p.ledger.json")

    def many_negative(folder):
        df = md.base().astype({"births": "int64"})
        df.loc[10:39, "births"] = -1
        md.write(folder, "panel.csv", df)

    def three_problems(folder):
        lines = md.csv_lines(md.base())
        for row, (col, value) in {57: (2, "-4"), 83: (1, "20x0"), 101: (3, "??")}.items():
            parts = lines[row - 1].split(",")
            parts[col] = value
            lines[row - 1] = ",".join(parts)
        md.text_file(folder, "panel.csv", "\n".join(lines) + "\n")

    def two_files(folder):
        md.write(folder, "births.csv", md.base()[["unit", "year", "births"]])
        md.write(folder, "deaths.xlsx", md.base()[["unit", "year", "deaths"]])

    def total_row(folder):
        df = md.with_names()
        df.loc[len(df)] = ["Total regional", 2014, 999999, 9999]
        md.write(folder, "nombres.csv", df)

    return [
        Case("ledger-good-table", 8, "ingest table writes a ledger beside the panel (rows read = used)",
             [["ingest", "table", "panel.csv", "-o", "p.csv"]], "ok", _panel_file("panel.csv"),
             check=md.all_checks(md.panel_totals("p.csv", b, d, 160), _ledger_rows("p.csv", 160, 160, 0)),
             outputs=led),
        Case("ledger-two-files", 8, "two files (births CSV, deaths Excel): the ledger counts each",
             [["ingest", "table", "births.csv", "deaths.xlsx", "-o", "p.csv"]], "ok", two_files,
             check=md.all_checks(md.panel_totals("p.csv", b, d, 160), _ledger_rows("p.csv", 320)), outputs=led),
        Case("ledger-total-row-excluded", 8, "a 'Total regional' row is excluded with its reason, not counted",
             [["ingest", "table", "nombres.csv", "--name-col", "comuna", "-o", "p.csv"]], "warn", total_row,
             mentions=("Total regional",), check=md.all_checks(md.panel_totals("p.csv", b, d, 160),
                                                               _ledger_rows("p.csv", 161, 160, 1, "Total regional")),
             outputs=led, also_error=True),
        Case("ledger-many-bad-rows", 8, "30 negative births: the first ones listed, the rest counted, one run",
             [["ingest", "table", "panel.csv", "-o", "p.csv"]], "error", many_negative, mentions=("12", "more")),
        Case("ledger-three-problems-one-run", 8, "negative births (row 57), bad year (row 83), text deaths (row 101): "
             "all three in one run", [["ingest", "table", "panel.csv", "-o", "p.csv"]], "error", three_problems,
             mentions=("57", "83", "101")),
        Case("ledger-three-problems-one-run-es", 8, "the same three problems, in Spanish",
             [["ingest", "table", "panel.csv", "-o", "p.csv"]], "error", three_problems, mentions=("57", "83", "101"),
             lang="es"),
        Case("ledger-wide", 8, "a wide births table + long deaths: ledger beside the panel",
             [["ingest", "table", "wide.csv=births", "deaths.csv", "-o", "p.csv"]], "ok",
             lambda f: (md.write(f, "wide.csv", md.base().pivot(index="unit", columns="year", values="births")
                                 .reset_index()), md.write(f, "deaths.csv", md.base()[["unit", "year", "deaths"]])),
             check=md.all_checks(md.panel_totals("p.csv", b, d, 160), _ledger_rows("p.csv", 192)), outputs=led,
             why="silent on how a wide row counts: one record per unit row (32) plus 160 long rows"),
        Case("ledger-deis", 8, "ingest deis keeps its ledger (the model ingest table follows)",
             [["ingest", "deis", "--deaths", "deaths.csv", "--births", "births.csv", "-o", "p.parquet"]], "ok", _deis,
             check=_ledger_rows("p.parquet", 1000), outputs=("p.*",)),
    ]


# ------------------------------------------------------------------------------------------ class 9
BAR = re.compile(r"\r|[━█▏▎▍▌▋▊▉]|\d+%\|")


def _clean(folder, run):
    found = BAR.search(run.stdout) or BAR.search(run.stderr)
    return f"progress drawing in a pipe: {found.group(0)!r}" if found else None


def _progress_shown(folder, run):
    return None if BAR.search(run.stderr) else "no progress on the terminal during a long step"


def _no_progress(folder, run):
    return "progress shown despite --quiet" if BAR.search(run.stderr) else None


def class9() -> list[Case]:
    return [
        Case("progress-report-pipe", 9, "report with stdout and stderr piped: no progress drawing in them",
             [["report", "study.toml", "-o", "rep"]], "ok", _study_setup, check=_clean, outputs=("rep/*",),
             subprocess=True),
        Case("progress-bootstrap-pipe", 9, "bootstrap piped", [["inequality", "panel.csv", "--bootstrap", "500",
             "--seed", "1", "-o", "i.csv"]], "ok", _panel_file("panel.csv"), check=_clean, outputs=("i.csv",),
             subprocess=True),
        Case("progress-count-models-pipe", 9, "count models piped", [["models", "panel.csv", "--covariates", "poverty",
             "--models", "poisson,negbin", "-o", "m.csv"]], "ok", _panel_file("panel.csv"), check=_clean,
             outputs=("m.*",), subprocess=True),
        Case("progress-report-tty", 9, "report on a terminal shows progress on stderr",
             [["report", "study.toml", "-o", "rep"]], "ok", _study_setup, check=_progress_shown, outputs=("rep/*",),
             tty=True),
        Case("progress-bootstrap-tty", 9, "bootstrap of 2000 replicates on a terminal shows progress",
             [["inequality", "panel.csv", "--bootstrap", "2000", "--seed", "1", "-o", "i.csv"]], "ok",
             _panel_file("panel.csv"), check=_progress_shown, outputs=("i.csv",), tty=True),
        Case("progress-report-quiet", 9, "report --quiet on a terminal: no progress",
             [["--quiet", "report", "study.toml", "-o", "rep"]], "ok", _study_setup, check=_no_progress,
             outputs=("rep/*",), tty=True),
    ]


# ------------------------------------------------------------------------------------------ class 10
def _readme_commands() -> list[tuple[str, str]]:
    """`brecha ...` lines of README.md that run on embedded data (placeholders such as DEFUNCIONES.csv skipped)."""
    found = []
    block = False
    for number, line in enumerate((ROOT / "README.md").read_text(encoding="utf-8").splitlines(), 1):
        if line.strip().startswith("```"):
            block = not block
            continue
        text = line.split("#", 1)[0].strip()
        if block and text.startswith("brecha ") and "--example" in text:
            found.append((f"README.md:{number}", text))
    return found


def _outputs_written(argv):
    outs = [argv[i + 1] for i, a in enumerate(argv[:-1]) if a in ("-o", "--output")]

    def check(folder, run):
        missing = [o for o in outs if not (Path(folder) / o).exists()]
        return f"not written: {missing}" if missing else None
    return check, tuple(outs)


def _gitignore(folder, run):
    ignored = (ROOT / ".gitignore").read_text(encoding="utf-8").split()
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    wanted = {"brecha-report", "informe-brecha"} | set(re.findall(r"brecha report(?: \S+)? -o (\S+)", readme))
    missing = [w for w in sorted(wanted) if not any(g.strip("/") == w.strip("/") for g in ignored)]
    return f".gitignore lacks the README's output folders {missing}" if missing else None


def class10() -> list[Case]:
    cases = []
    for where, command in _readme_commands():
        argv = shlex.split(command)[1:]
        check, outs = _outputs_written(argv)
        cases.append(Case(f"docs-{where.replace('.md:', '-')}", 10, f"{where}: {command}", [argv], "ok", None,
                          check=check, outputs=outs + ("*.csv", "*.xlsx")))
    cases.append(Case("docs-gitignore-report-folder", 10, ".gitignore lists the README's default output folder",
                      [], "ok", None, check=_gitignore))
    return cases


# ------------------------------------------------------------------------------------------ all
def all_cases() -> list[Case]:
    cases = class1() + input_cases() + class4() + class5() + class8() + class9() + class10()
    ids = [c.id for c in cases]
    dup = {i for i in ids if ids.count(i) > 1}
    assert not dup, f"duplicated case ids: {dup}"
    return sorted(cases, key=lambda c: c.cls)


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    pattern = None
    if "-k" in argv:
        i = argv.index("-k")
        pattern = argv[i + 1]
        del argv[i:i + 2]
    classes = {int(a) for a in argv if a.isdigit()}
    cases = [c for c in all_cases() if (not classes or c.cls in classes) and (not pattern or pattern in c.id)]
    work = Path(tempfile.mkdtemp(prefix="brecha-mistakes-"))
    verdicts = []
    for i, case in enumerate(cases, 1):
        v = execute(case, work / case.id)
        verdicts.append(v)
        print(f"[{i}/{len(cases)}] {'PASS' if v.passed else 'FAIL'} {v.summary()}", file=sys.stderr, flush=True)
    print()
    print(table(verdicts))
    failing = [v for v in verdicts if not v.passed]
    print(f"\n{len(failing)} failing of {len(verdicts)} (folders kept in {work}):")
    for cls, name in CLASSES.items():
        mine = [v for v in failing if v.case.cls == cls]
        if mine:
            print(f"\n[{cls}] {name}")
            for v in mine:
                print(f"  - {v.summary()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
