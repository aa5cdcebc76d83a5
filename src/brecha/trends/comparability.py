"""Are two joinpoint trends the same? Tests of coincidence and parallelism (Kim et al. 2004).

Two series A and B observed at the same n years (ln rates), each with its own joinpoint model (k_A and
k_B joinpoints, chosen by the selection rule): the alternative H1 fits them separately, SSE_1 = Q_A + Q_B
with p_1 = (2 k_A + 2) + (2 k_B + 2) parameters. The null models share k_0 = max(k_A, k_B) joinpoints:

- ``coincidence``: one joinpoint model for both (same joinpoints, slopes and level), p_0 = 2 k_0 + 2;
- ``parallelism``: same joinpoints and slopes, a different level (a constant gap on the log scale, i.e.
  a constant rate ratio), p_0 = 2 k_0 + 3.

Statistic F = {(SSE_0 - SSE_1) / (p_1 - p_0)} / {SSE_1 / (2n - p_1)}. Its null distribution is not F (the
joinpoints are estimated), so, as NCI's pairwise comparison, the p-value comes from permutations: under
coincidence the two values of each year are exchangeable, so each permutation swaps A and B (values and
weights) in a random set of years; under parallelism the same after removing the fitted gap from A.
Each permuted pair is refitted (H0 and H1, the joinpoints re-estimated; k_A, k_B kept), all permutations
at once (numpy; seeded), and p = (1 + #{F* >= F}) / (N + 1), N = 4,499 by default as NCI.

For "is the gap closing?": parallel trends (p large) mean the rate ratio between the two groups is not
changing; a small p for parallelism says the gap changes over the period (its direction is read from the
AAPC of each group, or the APC of their ratio).

References: Kim HJ, Fay MP, Yu B, Barrett MJ, Feuer EJ (2004), Comparability of segmented line regression models,
Biometrics 60:1005-1014; NCI Joinpoint help, "Pairwise comparison".
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .joinpoint_continuous import best_fits

TESTS = ("coincidence", "parallelism")


def _stack(parallel: bool):
    """Designs of the pooled null model: the candidate design twice (A rows then B rows), plus a level
    column for A under parallelism (appended last, so the joinpoint columns keep their places)."""
    def stack(X):
        both = np.concatenate([X, X], axis=1)
        if not parallel:
            return both
        c, n2, _ = both.shape
        level = np.zeros((c, n2, 1))
        level[:, : n2 // 2, 0] = 1.0
        return np.concatenate([both, level], axis=2)
    return stack


def _statistic(xc, Ya, Yb, Wa, Wb, ka, kb, k0, parallel, rules, continuous):
    """F per row of the (S, n) arrays; also SSE_0 and SSE_1."""
    n = len(xc)
    qa, _ = best_fits(xc, Ya, Wa, ka, *rules, continuous)
    qb, _ = best_fits(xc, Yb, Wb, kb, *rules, continuous)
    sse1 = qa + qb
    Y0 = np.concatenate([Ya, Yb], axis=1)
    W0 = None if Wa is None else np.concatenate([Wa, Wb], axis=1)
    sse0, taus0 = best_fits(xc, Y0, W0, k0, *rules, continuous, stack=_stack(parallel))
    p1 = 2 * ka + 2 + 2 * kb + 2
    p0 = 2 * k0 + 2 + (1 if parallel else 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        f = ((sse0 - sse1) / (p1 - p0)) / (sse1 / (2 * n - p1))
    return f, sse0, sse1, taus0


def _level_gap(xc, Ya, Yb, Wa, Wb, k0, rules, continuous):
    """The fitted constant gap ln A - ln B of the parallel null model (the level column's coefficient)."""
    from .joinpoint_fit import designs

    Y0 = np.concatenate([Ya, Yb], axis=1)
    W0 = None if Wa is None else np.concatenate([Wa, Wb], axis=1)
    _, taus = best_fits(xc, Y0, W0, k0, *rules, continuous, stack=_stack(True))
    X = _stack(True)(designs(xc, taus))[0]
    sw = np.ones(Y0.shape[1]) if W0 is None else np.sqrt(W0[0])
    beta = np.linalg.lstsq(X * sw[:, None], Y0[0] * sw, rcond=None)[0]
    return float(beta[-1])


def compare(x, y_a, y_b, k_a: int, k_b: int, w_a=None, w_b=None, tests=TESTS, n_permutations: int = 4499,
            seed: int | None = 2024, min_end: int = 2, min_between: int = 2, continuous: bool = False,
            unit_a: str = "A", unit_b: str = "B") -> pd.DataFrame:
    """Coincidence and parallelism tests of two series (``y`` = ln rate at the years ``x``).

    Returns one row per test: ``test, unit_a, unit_b, statistic, p_value, method`` then ``k_a, k_b,
    k_null, n_years, n_permutations, seed, sse_null, sse_alternative``.

    Example (two parallel lines, a constant gap of ln 2):
        >>> import numpy as np
        >>> x = np.arange(2000, 2016.0)
        >>> rng = np.random.default_rng(1)
        >>> a = 2 - 0.03 * (x - 2000) + rng.normal(0, 0.02, 16)
        >>> b = a - np.log(2) + rng.normal(0, 0.02, 16)
        >>> out = compare(x, a, b, 0, 0, n_permutations=199)
        >>> bool(out.set_index("test").loc["coincidence", "p_value"] < 0.01)
        True
    """
    x = np.asarray(x, dtype=float)
    xc = x - x.mean()
    Ya, Yb = np.asarray(y_a, float)[None, :], np.asarray(y_b, float)[None, :]
    Wa = None if w_a is None else np.asarray(w_a, float)[None, :]
    Wb = None if w_b is None else np.asarray(w_b, float)[None, :]
    k0 = max(k_a, k_b)
    rules = (min_end, min_between)
    rng = np.random.default_rng(seed)
    n = len(x)
    rows = []
    for test in tests:
        parallel = test == "parallelism"
        f_obs, sse0, sse1, _ = _statistic(xc, Ya, Yb, Wa, Wb, k_a, k_b, k0, parallel, rules, continuous)
        gap = _level_gap(xc, Ya, Yb, Wa, Wb, k0, rules, continuous) if parallel else 0.0
        swap = rng.random((n_permutations, n)) < 0.5
        A0 = Ya - gap
        Pa = np.where(swap, Yb, A0)
        Pb = np.where(swap, A0, Yb)
        if Wa is None:
            PWa = PWb = None
        else:
            PWa, PWb = np.where(swap, Wb, Wa), np.where(swap, Wa, Wb)
        f_star, _, _, _ = _statistic(xc, Pa, Pb, PWa, PWb, k_a, k_b, k0, parallel, rules, continuous)
        p_value = (1 + np.sum(f_star >= f_obs[0] * (1 - 1e-12))) / (n_permutations + 1)
        rows.append((test, unit_a, unit_b, float(f_obs[0]), float(p_value), "permutation (Kim et al. 2004)",
                     k_a, k_b, k0, n, n_permutations, seed, float(sse0[0]), float(sse1[0])))
    return pd.DataFrame(rows, columns=["test", "unit_a", "unit_b", "statistic", "p_value", "method", "k_a", "k_b",
                                       "k_null", "n_years", "n_permutations", "seed", "sse_null",
                                       "sse_alternative"])
