"""The report's analyses, step by step (issue 19, part C): CPU and wall seconds of each analysis the default
Chilean and Brazilian reports run (``brecha.report.analyses*``: the computing only, no section, figure or
file), the best of three runs in this process after one warm run, with OpenBLAS in one thread as
``brecha report`` runs it. The whole report's bars (Chile <= 2 s, Brazil <= 4 s) are bench_report.py's;
this one has none (``NO_BAR``): it says which analysis costs what.

    python benchmarks/run.py report_analyses
"""
from __future__ import annotations

import os
import time
import warnings

NO_BAR = True
for _name in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS"):
    os.environ.setdefault(_name, "1")  # effective only before numpy loads (a fresh child of run.py)
os.environ.setdefault("BRECHA_JOBS", "1")  # the CPU of the bootstraps' threads counted in this process


def _best(fn, repeat: int = 3):
    fn()  # warm: imports, the covariates' tables read once per process
    best = (float("inf"), float("inf"))
    for _ in range(repeat):
        wall0, cpu0 = time.perf_counter(), time.process_time()
        fn()
        best = min(best, (time.perf_counter() - wall0, time.process_time() - cpu0))
    return best


def main() -> None:
    import brecha.report.analyses as A
    import brecha.report.analyses_gap_where as AG
    import brecha.report.analyses_joinpoint as AJ
    import brecha.report.analyses_spatial as AS
    from brecha.report.blocks import Report
    from brecha.report.data import load_study_panel
    from brecha.study import example_study

    warnings.simplefilter("ignore")
    for example in ("chile", "brazil"):
        study = example_study(example)
        panel = load_study_panel(study, Report(study=study, lang="en", title=example))
        res = A.StudyResults(study, panel, study.outcomes[0])
        A.rates(res)
        A.smoothing(res)
        A.gap(res)
        steps = [("rates", A.rates), ("disparity", A.disparity), ("trends", A.trends),
                 ("inequality (three calls)", A.inequality), ("covariate inequality", A.covariate_inequality),
                 ("panel models", A.models), ("gap test (4,499 permutations)", AJ.gap_test)]
        if study.wants("decompose"):
            steps.append(("where is the gap? (1,000 replicates)", AG.gap_where))
        if study.wants("spatial"):
            steps.append(("spatial (neighbours, Moran/LISA/Gi*, BYM2)", AS.spatial))
        print(f"   {example}:")
        total = 0.0
        for label, step in steps:
            if step is A.models and not study.wants("models"):
                continue
            wall, cpu = _best(lambda step=step: step(res))
            total += cpu
            print(f"     {label:45s} {cpu:6.2f} s CPU {wall:6.2f} s wall")
        print(f"     {'these analyses together':45s} {total:6.2f} s CPU")


if __name__ == "__main__":
    main()
