"""Panel models at scale (issue 19, part A): FE, RE and their tests from numpy arrays built once per call.

Workloads (the commands first: a child's peak read by ``wait4`` includes what its parent held when it
started it), on seeded synthetic panels of N units x 20 years (benchmarks/synthetic_panel.py, written once to
``$BRECHA_BENCH_DIR``, default the temporary folder):

1. the whole command ``brecha models PANEL --covariates poverty --models fe,re -o OUT.csv`` as a child
   process (start-up, reading the panel, the fits, the tests, the files): wall, CPU and its own peak, at
   34,600 units and, with ``BRECHA_BENCH_UNITS=173000``, at that size too.
2. inside this process, on 34,600 units: the fits of one ``fit_models(..., models=("fe", "re"))`` call
   (FE, RE, and the pooled and CRE fits its F and Mundlak tests use) from the call's arrays, against the
   same four fits made by linearmodels (``PanelOLS``/``PooledOLS`` on the indexed frame; with the companion
   unadjusted fits the Hausman test needs, as before issue 19): CPU time and peak memory of each step
   (``measure.step``), and the largest relative difference of the coefficients and standard errors;

3. with year effects (``--time-effects``: fe two-way, re and the Mundlak test's cre with year indicators), the
   command of 1. at the same sizes, and in this process at 34,600 units the call against linearmodels with the
   dense N x 19 indicators (``PanelOLS(entity_effects=True, time_effects=True)``, ``PooledOLS`` of the
   quasi-demeaned data with the indicators): CPU, peak and the largest relative difference.

Bar (issue 19): at 173,000 units x 20 years <= 1.5 GB peak for panel models (FE, RE, tests), with and without
year effects. Measured on the development machine (2 cores, shared): fe,re 1,050-1,084 MB and 17-20 s CPU
(2,458 MB and 46 s before); fe,re --time-effects 1,29x-1,32x MB and 19-21 s CPU (3,093 MB and 48 s before: the
year indicators were a dense 3.5 M x 19 matrix, copied by each transform; now implicit, models/year_indicators.py).
"""
from __future__ import annotations

import os
import tempfile
import warnings
from pathlib import Path

from measure import brecha_command, command_line, run_command, step
from synthetic_panel import CHILE_UNITS, write_panel

MEMORY_BAR_MB = 1.5 * 1024
UNITS = 100 * CHILE_UNITS


def _linearmodels_fits(design):
    """The four fits with linearmodels, as the call made them before issue 19 (the reference)."""
    from linearmodels.panel import PanelOLS, PooledOLS

    from brecha.models import linear, random_effects

    opts = linear.cov_options("clustered", design.frame["year"].nunique())[0]
    d = design.indexed()
    X = d[design.covariates].copy()
    X.insert(0, "const", 1.0)
    fe_model = PanelOLS(d[design.outcome], d[design.time_varying], entity_effects=True)
    out = {"fe": fe_model.fit(**opts), "fe_u": fe_model.fit(), "pooled": PooledOLS(d[design.outcome], X).fit()}
    comp = random_effects.components_of(design, False)
    for key, extra in (("re", False), ("cre", True)):
        f = design.frame
        cols = f[design.covariates]
        if extra:
            cols = cols.join(f.groupby("unit")[design.time_varying].transform("mean").add_prefix("mean_"))
        theta = comp["theta"]
        Xs = cols - theta[:, None] * cols.groupby(f["unit"]).transform("mean")
        ys = f[design.outcome] - theta * f.groupby("unit")[design.outcome].transform("mean")
        exog = Xs.assign(intercept=1.0 - theta)[["intercept", *Xs.columns]].set_index(d.index)
        model = PooledOLS(ys.set_axis(d.index), exog)
        out[key] = model.fit(**opts)
        if key == "re":
            out["re_u"] = model.fit()
    return out


def in_process(panel_path: Path) -> float:
    from brecha.models import fit_models
    from brecha.models._design import design_from_panel
    from brecha.panel import read_panel

    panel = read_panel(panel_path)
    with step(f"numpy arrays: fe, re + F, BP, Hausman, Mundlak tests ({UNITS:,} units)") as m:
        res = fit_models(panel, "infant", ["poverty"], models=("fe", "re"), se="clustered")
    design = design_from_panel(panel, "infant", ["poverty"])
    with step("linearmodels: the same fits and companions (before issue 19)") as r:
        ref = _linearmodels_fits(design)
    worst = 0.0
    for key in ("fe", "re"):
        got = res.fits[key]
        lm = ref[key]
        for a, b in ((got.params.to_numpy(), lm.params.to_numpy()),
                     (got.table()["se"].to_numpy(), lm.std_errors.to_numpy())):
            worst = max(worst, float(abs(a - b).max() / abs(b).max()))
    print(f"   CPU numpy / linearmodels: {m['cpu']:.2f} s / {r['cpu']:.2f} s; largest relative difference of "
          f"coefficients and SEs: {worst:.1e}")
    return worst


def _linearmodels_year_effects(design):
    """fe,re with year effects as linearmodels fits them with the dense indicators (the reference)."""
    from linearmodels.panel import PanelOLS, PooledOLS

    from brecha.models import linear, random_effects

    opts = linear.cov_options("clustered", design.frame["year"].nunique())[0]
    d = design.indexed()
    out = {"fe": PanelOLS(d[design.outcome], d[design.time_varying], entity_effects=True,
                          time_effects=True).fit(**opts)}
    f = design.frame
    theta = random_effects.components_of(design, True)["theta"]
    cols = f[design.covariates].join(linear.year_dummies(f))
    Xs = cols - theta[:, None] * cols.groupby(f["unit"]).transform("mean")
    ys = f[design.outcome] - theta * f.groupby("unit")[design.outcome].transform("mean")
    exog = Xs.assign(intercept=1.0 - theta)[["intercept", *Xs.columns]].set_index(d.index)
    out["re"] = PooledOLS(ys.set_axis(d.index), exog).fit(**opts)
    return out


def in_process_year_effects(panel_path: Path) -> float:
    import numpy as np

    from brecha.models import fit_models
    from brecha.models._design import design_from_panel
    from brecha.panel import read_panel

    panel = read_panel(panel_path)
    with step(f"numpy arrays, year effects: fe (two-way), re + BP, Hausman, Mundlak ({UNITS:,} units)") as m:
        res = fit_models(panel, "infant", ["poverty"], models=("fe", "re"), se="clustered", time_effects=True)
    design = design_from_panel(panel, "infant", ["poverty"])
    with step("linearmodels with the dense year indicators: fe two-way, re") as r:
        ref = _linearmodels_year_effects(design)
    worst = 0.0
    for key in ("fe", "re"):
        got, lm = res.fits[key], ref[key]
        names = list(got.params.index)
        for a, b in ((got.params.to_numpy(), lm.params[names].to_numpy()),
                     (np.sqrt(np.diag(got.cov.to_numpy())), lm.std_errors[names].to_numpy())):
            worst = max(worst, float(abs(a - b).max() / abs(b).max()))
    print(f"   CPU numpy / linearmodels: {m['cpu']:.2f} s / {r['cpu']:.2f} s; largest relative difference of "
          f"coefficients and SEs (year effects included): {worst:.1e}")
    return worst


def main() -> bool:
    warnings.simplefilter("ignore")
    folder = Path(os.environ.get("BRECHA_BENCH_DIR") or tempfile.gettempdir()) / "brecha_bench_growth"
    folder.mkdir(parents=True, exist_ok=True)
    sizes = [UNITS] + [int(u) for u in [os.environ.get("BRECHA_BENCH_UNITS")] if u]
    paths = {units: write_panel(folder / f"synthetic_{units}x20.parquet", units) for units in sizes}
    met = True
    # the commands first: a child's peak (wait4) counts what this process held when it started the child
    for units, path in paths.items():
        for extra in ([], ["--time-effects"]):
            r = run_command(brecha_command("--lang", "en", "--quiet", "models", str(path), "--covariates", "poverty",
                                           "--models", "fe,re", *extra, "-o", str(folder / f"models_{units}.csv")))
            verdict = ""
            if units >= 173_000:
                verdict = "met" if r["peak_mb"] <= MEMORY_BAR_MB else f"NOT met (bar {MEMORY_BAR_MB:.0f} MB)"
                met &= r["peak_mb"] <= MEMORY_BAR_MB
            print(f"   brecha models --models fe,re {' '.join(extra)}, {units:,} units x 20 years: {command_line(r)} "
                  f"{verdict}")
            met &= r["code"] == 0
    met &= in_process(paths[UNITS]) <= 1e-9
    met &= in_process_year_effects(paths[UNITS]) <= 1e-9
    if len(sizes) == 1:
        print("   (the 1.5 GB bar is held at 173,000 units: BRECHA_BENCH_UNITS=173000 python benchmarks/run.py "
              "panel_models)")
    return met
