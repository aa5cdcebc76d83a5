"""Joinpoint at NCI parity (issue 13). Bars:
- all 346 Chilean communes, 2000-2015, up to 3 joinpoints, WBIC: <= 2 s;
- one pairwise comparability test (parallelism and coincidence) with 4,499 permutations: <= 5 s.
Compute = ``brecha.trends.trends(...)`` / ``brecha.trends.compare_panel.compare_trends(...)`` from the loaded
example Panel (imports warm, best of several runs); wall and CPU time both printed (the machine is shared)."""
from __future__ import annotations

import time
import warnings

import numpy as np


def _best(fn, repeat: int):
    best, out = (np.inf, np.inf), None
    for _ in range(repeat):
        wall0, cpu0 = time.perf_counter(), time.process_time()
        out = fn()
        wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
        best = min(best, (wall, cpu))
    return best, out


def main() -> bool:
    from brecha.datasets import chile
    from brecha.trends import trends
    from brecha.trends.compare_panel import compare_trends

    warnings.simplefilter("ignore")
    panel = chile()
    ok = True
    trends(panel, method="joinpoint", max_joinpoints=1)  # warm imports
    (wall, cpu), out = _best(lambda: trends(panel, method="joinpoint", max_joinpoints=3), 3)
    per_unit = out[out["row"] == "aapc"]
    chosen = {int(k): int(v) for k, v in per_unit["n_joinpoints"].value_counts().sort_index().items()}
    print(f"   joinpoint, 346 communes x 16 years, K <= 3, WBIC: {wall:.2f} s wall, {cpu:.2f} s CPU (bar 2 s); "
          f"joinpoints chosen {chosen}")
    ok &= wall <= 2.0 or cpu <= 2.0
    (wall_b, cpu_b), out_b = _best(lambda: trends(panel, method="joinpoint", max_joinpoints=3, selection="bic"), 1)
    per_b = out_b[out_b["row"] == "aapc"]
    chosen_b = {int(k): int(v) for k, v in per_b["n_joinpoints"].value_counts().sort_index().items()}
    print(f"   the same with BIC (the former default): {wall_b:.2f} s wall; joinpoints chosen {chosen_b}")
    (wall_c, cpu_c), _ = _best(lambda: trends(panel, method="joinpoint", max_joinpoints=3, continuous=True), 1)
    print(f"   the same with continuous joinpoints (exact): {wall_c:.2f} s wall, {cpu_c:.2f} s CPU")

    (wall, cpu), t = _best(lambda: compare_trends(panel, "q1", "q5", rank_by="poverty", max_joinpoints=3), 3)
    p = t.set_index("test")["p_value"].to_dict()
    print(f"   comparability q1 vs q5 by poverty, 4,499 permutations, both tests: {wall:.2f} s wall, {cpu:.2f} s "
          f"CPU (bar 5 s); p {p}")
    ok &= wall <= 5.0 or cpu <= 5.0
    (wall, cpu), t = _best(lambda: compare_trends(panel, "09", "13", level="region", max_joinpoints=3), 1)
    print(f"   comparability Araucanía vs Metropolitana (regions): {wall:.2f} s wall, {cpu:.2f} s CPU; "
          f"k {int(t['k_a'][0])}, {int(t['k_b'][0])}")
    from brecha.trends.comparability import compare

    x = np.arange(2000, 2016.0)
    rng = np.random.default_rng(1)
    a = 2 - 0.03 * (x - 2000) + 0.05 * np.maximum(x - 2007, 0) + rng.normal(0, 0.04, 16)
    b = 1.6 - 0.02 * (x - 2000) + rng.normal(0, 0.04, 16)
    (wall, cpu), _ = _best(lambda: compare(x, a, b, 2, 2), 2)
    print(f"   the hardest case at 16 years (2 joinpoints in each series and in the null), 4,499 permutations, "
          f"both tests: {wall:.2f} s wall, {cpu:.2f} s CPU (bar 5 s)")
    ok &= wall <= 5.0 or cpu <= 5.0
    return bool(ok)


if __name__ == "__main__":
    main()
