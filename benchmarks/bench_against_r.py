"""brecha against R on the same machine and data, whole process against whole process (issue 19).

Two comparisons, each timed as whole processes (``Rscript`` start-up and package loading included, as
brecha's imports are), best of three, wall and CPU:

- **Panel models**: ``brecha models`` (pooled, fixed and random effects with clustered-by-unit SEs, Hausman,
  F for unit effects, Breusch-Pagan) against R's ``plm`` (with ``sandwich`` and ``lmtest``;
  ``benchmarks/r/panel_models.R``), on Chile 2000-2015 (346 communes, four time-varying covariates) and
  Brazil 2000-2019 (5,570 municipalities, four covariates). Fixed and random effects must agree with plm to
  1e-8 relative (a check that both did the same work, not a test; tests/models holds the plm references).
- **The national Chilean analyses** (issue 19's bar: brecha as one command >= 100x faster than the R stack):
  ``brecha run benchmarks/r/national.toml --files tables`` (rates with exact intervals, the gap against a
  reference commune, Prais-Winsten trends of the 346 communes, WHO's inequality measures per year, panel
  models; the tables written as CSV files) against ``benchmarks/r/national.R``, which does the same analyses
  with ``prais``, ``healthequal``, ``plm``, ``sandwich`` and ``lmtest`` and writes CSV files: the same work.
  The same command writing the whole report besides (the HTML page, the workbook, the dashboard and the
  figures, which R does not make here) is timed too and its ratio printed. The trends' annual percent changes
  and the fixed-effects estimates are compared (the same work). The three commands run in turn, each its
  best of three.

Debian has R, ``plm``, ``sandwich`` and ``lmtest`` (``apt-get install r-base-core r-cran-plm
r-cran-sandwich r-cran-lmtest``); ``prais`` (with ``pcse``) and ``healthequal`` (with ``marginaleffects``,
``srvyr``, ``emmeans``, ``survey``) come from CRAN. Put them in a library and point ``R_LIBS`` at it
(``R_LIBS=/path/to/library python benchmarks/run.py against_r``). Where healthequal cannot be installed (its
``srvyr`` import, never called, unavailable), ``HEALTHEQUAL_R=/path/to/healthequal/R`` makes national.R
source its R files instead. Without R, or without a comparison's packages, that comparison says so and is
skipped. R takes about 3 minutes per run of the national analyses, so this benchmark takes about 12.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from measure import brecha_command, command_line, run_command

HERE = Path(__file__).resolve().parent
SCRIPT = HERE / "r" / "panel_models.R"
NATIONAL_SCRIPT = HERE / "r" / "national.R"
NATIONAL_STUDY = HERE / "r" / "national.toml"
NATIONAL_COLUMNS = ["unit", "year", "births", "deaths", "poverty", "health_spending_pc", "schooling", "sapu"]
NATIONAL_REFERENCE = "13132"  # the study's [reference] codes
NO_BAR = False  # set when the national comparison cannot run (R lacks its packages)
BAR = 100.0  # issue 19: the national analyses as one command at least 100x faster than the R stack
REPEATS = 3
CASES = {
    "chile": ["poverty", "health_spending_pc", "schooling", "sapu"],
    "brazil": ["health_spending_pc", "poverty", "income_pc", "gini"],
}


def _have_healthequal() -> str | None:
    """None when R has healthequal, or when ``HEALTHEQUAL_R`` names a folder of its R files and R has the
    packages they use (healthequal imports srvyr, which it never calls: where srvyr cannot be installed,
    national.R sources healthequal's files, unmodified, instead of attaching the package)."""
    if _have_r(("healthequal",)) is None:
        return None
    folder = os.environ.get("HEALTHEQUAL_R", "")
    if not folder or not list(Path(folder).glob("*.R")):
        return "R lacks healthequal (install it, or set HEALTHEQUAL_R to the folder of its R files)"
    return _have_r(("dplyr", "emmeans", "survey", "marginaleffects", "rlang"))


def _have_r(packages=("plm", "sandwich", "lmtest")) -> str | None:
    if shutil.which("Rscript") is None:
        return "Rscript is not installed"
    probe = subprocess.run(["Rscript", "-e", "; ".join(f"library({p})" for p in packages)],
                           capture_output=True, text=True)
    return None if probe.returncode == 0 else (f"R lacks one of {', '.join(packages)} (R_LIBS?): "
                                               + probe.stderr.strip()[-200:])


def _panel_file(name: str, covariates: list[str], folder: Path) -> Path:
    from brecha import covariates as builder, datasets

    panel = getattr(datasets, name)()
    missing = [c for c in covariates if c not in panel.data.columns]
    if missing:
        panel = builder.attach(panel, missing)
    path = folder / f"{name}.csv"
    panel.data[["unit", "year", "births", "deaths", *covariates]].to_csv(path, index=False)
    return path


def _best(argv: list[str]) -> dict:
    return _fastest([run_command(argv) for _ in range(REPEATS)])


def _fastest(runs: list[dict]) -> dict:
    failed = [r for r in runs if r["code"] != 0]
    if failed:
        return failed[0]
    return {**min(runs, key=lambda r: r["wall"]), "cpu": min(r["cpu"] for r in runs)}


def _best_of_both(first: list[str], second: list[str]) -> tuple[dict, dict]:
    """:func:`_best` of two commands run in turn (first, second, first, ...): a machine whose speed drifts
    over the minutes R takes (a shared virtual machine's does) slows both alike."""
    runs = [(run_command(first), run_command(second)) for _ in range(REPEATS)]
    return _fastest([a for a, _b in runs]), _fastest([b for _a, b in runs])


def _best_in_turn(commands: list[list[str]]) -> list[dict]:
    """:func:`_best` of each command, the commands run in turn REPEATS times (as :func:`_best_of_both`)."""
    runs = [[run_command(command) for command in commands] for _ in range(REPEATS)]
    return [_fastest([each[i] for each in runs]) for i in range(len(commands))]


def _agreement(brecha_csv: Path, r_csv: Path) -> float:
    import pandas as pd

    ours = pd.read_csv(brecha_csv)
    theirs = pd.read_csv(r_csv)
    worst = 0.0
    for model, plm_model in (("fe", "within"), ("re", "random")):
        a = ours[(ours["model"] == model)].set_index("term")["estimate"]
        b = theirs[theirs["model"] == plm_model].set_index("term")["estimate"]
        common = [t for t in b.index if t in a.index]
        for term in common:
            worst = max(worst, abs(a[term] - b[term]) / max(abs(b[term]), 1e-300))
    return worst


def main() -> bool | None:
    missing = _have_r()
    if missing:
        print(f"  skipped: {missing}")
        return None
    version = subprocess.run(["Rscript", "-e", "cat(R.version.string, as.character(packageVersion('plm')))"],
                             capture_output=True, text=True).stdout.strip()
    print(f"  {version} (plm); brecha with {sys.executable}")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for name, covariates in CASES.items():
            panel = _panel_file(name, covariates, folder)
            ours_out, r_out = folder / f"{name}_brecha.csv", folder / f"{name}_r.csv"
            ours = _best(brecha_command("--lang", "en", "-q", "models", str(panel), "--covariates",
                                        ",".join(covariates), "--models", "pooled,fe,re", "-o", str(ours_out)))
            theirs = _best(["Rscript", str(SCRIPT), str(panel), str(r_out), *covariates])
            print(f"   {name} brecha models (pooled, fe, re, tests)   {command_line(ours)}")
            print(f"   {name} R plm (the same models and tests)       {command_line(theirs)}")
            if ours["code"] == 0 and theirs["code"] == 0:
                print(f"   -> brecha {theirs['wall'] / ours['wall']:.1f}x faster in wall time, "
                      f"{theirs['cpu'] / ours['cpu']:.1f}x in CPU time; fe/re estimates agree to "
                      f"{_agreement(ours_out, r_out):.1e} relative")
        return _national(folder)


def _national(folder: Path) -> bool | None:
    """The national Chilean analyses: ``brecha run`` against ``national.R``; True when brecha is at least
    :data:`BAR` times faster in wall time, None when R lacks the packages."""
    global NO_BAR
    missing = _have_r(("prais", "plm", "sandwich", "lmtest")) or _have_healthequal()
    if missing:
        print(f"  national analyses skipped: {missing}")
        NO_BAR = True  # run.py: measured without the bar (it could not be checked), not "bar met"
        return None
    versions = subprocess.run(["Rscript", "-e", "cat(sapply(c('prais', 'pcse', 'healthequal', 'marginaleffects', "
                               "'plm'), function(p) paste(p, tryCatch(as.character(packageVersion(p)), error = "
                               "function(e) 'from HEALTHEQUAL_R'))), sep = ', ')"],
                              capture_output=True, text=True).stdout.strip()
    print(f"  national analyses (each best of {REPEATS}, brecha and R in turn; R about 3 minutes a run): {versions}")
    from brecha import datasets

    shutil.copyfile(NATIONAL_STUDY, folder / "national.toml")
    panel = folder / "chile.csv"
    datasets.chile().data[NATIONAL_COLUMNS].to_csv(panel, index=False)
    run = ("--lang", "en", "-q", "run", str(folder / "national.toml"), "-o")
    # the same work as R's script (its tables as CSV files: --files tables), and the whole report besides
    # (page, workbook, dashboard and figures too); the three in turn, each its best of REPEATS
    ours, theirs, report = _best_in_turn([
        brecha_command(*run, str(folder / "brecha_national"), "--files", "tables"),
        ["Rscript", str(NATIONAL_SCRIPT), str(panel), str(folder / "r_national"), NATIONAL_REFERENCE],
        brecha_command(*run, str(folder / "brecha_report"))])
    print(f"   brecha run national.toml --files tables         {command_line(ours)}")
    print(f"   R: prais, healthequal, plm (CSV files only)    {command_line(theirs)}")
    print(f"   brecha run national.toml (the whole report)    {command_line(report)}")
    if ours["code"] != 0 or theirs["code"] != 0 or report["code"] != 0:
        return False
    parts = _r_parts(folder / "r_national" / "timings.csv")
    if parts:
        print(f"   R's time (the last run): {parts}")
    ratio = theirs["wall"] / ours["wall"]
    apc, fe = _national_agreement(folder / "brecha_national" / "tables", folder / "r_national")
    print(f"   -> the same work: brecha {ratio:.1f}x faster in wall time, {theirs['cpu'] / ours['cpu']:.1f}x in "
          f"CPU time (bar {BAR:.0f}x: {'met' if ratio >= BAR else 'not met'}); with its whole report "
          f"{theirs['wall'] / report['wall']:.1f}x; the communes' APC agree to {apc:.1e}, the fixed effects to "
          f"{fe:.1e} (largest absolute difference, relative)")
    return ratio >= BAR


def _r_parts(path: Path) -> str:
    import pandas as pd

    if not path.exists():
        return ""
    table = pd.read_csv(path)
    return "; ".join(f"{part} {seconds:.1f} s" for part, seconds in zip(table["part"], table["seconds"]))


def _national_agreement(ours: Path, theirs: Path) -> tuple[float, float]:
    """The largest difference between brecha's and R's annual percent changes of the communes (absolute, in
    percentage points) and fixed-effects estimates (relative)."""
    import pandas as pd

    a = pd.read_csv(ours / "trends_units.csv", dtype={"unit": str})
    b = pd.read_csv(theirs / "trends_units.csv", dtype={"unit": str})
    # the communes with the same years on both sides (brecha leaves out the partial year of the communes
    # created in 2004 and units with too few years)
    both = a.set_index("unit")[["apc", "n_years"]].join(b.set_index("unit")[["apc", "n_years"]], how="inner",
                                                        rsuffix="_r")
    both = both[both["n_years"] == both["n_years_r"]]
    apc = float((both["apc"] - both["apc_r"]).abs().max())
    ours_fe = pd.read_csv(ours / "model_coefficients.csv")
    ours_fe = ours_fe[ours_fe["model"] == "fe"].set_index("term")["estimate"]
    theirs_fe = pd.read_csv(theirs / "model_coefficients.csv")
    theirs_fe = theirs_fe[theirs_fe["model"] == "within"].set_index("term")["estimate"]
    common = [t for t in theirs_fe.index if t in ours_fe.index]
    fe = max((abs(ours_fe[t] - theirs_fe[t]) / max(abs(theirs_fe[t]), 1e-300) for t in common), default=float("nan"))
    return apc, fe
