"""Between/within decomposition of inequality by groups of units: GE(α) (Theil T, MLD, GE(2)) and the Gini.

The units are weighted by births: p_i = B_i / ΣB, y_i the unit's rate, μ = Σ p_i y_i. A grouping g (region,
province, a covariate class ...) has births shares P_g = Σ_{i∈g} p_i and means μ_g = Σ_{i∈g} p_i y_i / P_g.

Generalised entropy (Shorrocks 1980, 1984; Cowell 2011, ch. 3):

- GE(α) = 1/(α(α−1)) Σ p_i [(y_i/μ)^α − 1];  GE(1) = Theil T = Σ p_i (y_i/μ) ln(y_i/μ);
  GE(0) = MLD = −Σ p_i ln(y_i/μ).
- within = Σ_g P_g (μ_g/μ)^α GE_g (each group's own GE, births-weighted inside the group; the term of group g
  is its ``contribution``), between = GE(α) of the group means weighted by P_g; total = within + between
  exactly, for every α.
- A unit with rate 0 makes MLD and every GE(α ≤ 0) infinite (ln 0, 0^α): they are undefined then, and
  returned as NaN; Theil T and GE(α > 0) take 0·ln 0 = 0 and 0^α = 0. A group whose every unit has rate 0
  adds 0 to the within part when α > 0 (its own GE is 0/0 and is NaN).

Gini (births-weighted): G = Σ_i Σ_j p_i p_j |y_i − y_j| / (2μ), computed from the sorted rates in
O(n log n): Σ_i Σ_j w_i w_j |y_i − y_j| = 2 Σ_i w_i y_i (2 W_{<i} + w_i − W) with W_{<i} the weight of the
units sorted before i (ties cancel). Its three-term decomposition (Bhattacharya & Mahalanobis 1967, Pyatt
1976, Dagum 1997; as R dineq ``gini_decomp``): within = Σ_g P_g S_g G_g with S_g = P_g μ_g/μ the group's
share of deaths and G_g its own Gini; between = the Gini of the group means weighted by P_g (which equals
Dagum's net between-group term, since the mean of y_i − y_r over two groups is μ_j − μ_h); overlap =
G − within − between (Dagum's transvariation: units of a low-rate group above units of a high-rate group).

Every function takes rates ``y`` with the units on the last axis and any leading axes (bootstrap
replicates), so one call evaluates a whole bootstrap. Written here because no maintained Python library
decomposes weighted GE(α) or the Gini by groups for a replicate array (PySAL ``inequality`` decomposes the
unweighted Theil of one vector; we test against its published values).

Change between two periods (Mookherjee & Shorrocks 1982): the change of the within part is split exactly,
by averaging over the two periods, into Σ_g w̄_g ΔI_g (inequality inside the groups changed, "within
intensity") and Σ_g Ī_g Δw_g (the groups' weights w_g = P_g (μ_g/μ)^α changed, "within shares"); the
change of the between part into the part due to the births shares P_g and the part due to the group means
μ_g, by the two-factor Shapley split ½[B(P₁,μ₀) − B(P₀,μ₀) + B(P₁,μ₁) − B(P₀,μ₁)] and its complement
(Shorrocks 2013). Mookherjee & Shorrocks' own between terms are first-order approximations of these two and
do not add up exactly; the Shapley split does. For the Gini, the overlap's change is its own row.

>>> import numpy as np
>>> y, w, g = np.array([0., 0, 0, 10, 10, 10]), np.ones(6), np.array([0, 0, 0, 1, 1, 1])
>>> parts = ge_decompose(y, w, g, 2, alpha=1.0)
>>> [round(float(parts[k]), 10) for k in ("total", "between", "within")]
[0.6931471806, 0.6931471806, 0.0]
"""
from __future__ import annotations

import numpy as np


def parse_alpha(name: str) -> float | None:
    """``theil`` -> 1, ``mld`` -> 0, ``ge2`` -> 2, ``ge0.5`` -> 0.5, ``ge-1`` -> -1; ``gini`` and unknown
    names -> None."""
    key = str(name).strip().lower()
    if key in ("theil", "t", "ge1"):
        return 1.0
    if key in ("mld", "ge0"):
        return 0.0
    if key.startswith("ge"):
        try:
            return float(key[2:])
        except ValueError:
            return None
    return None


class Groups:
    """Units sorted by group once: ``order`` puts the units of each group together, ``starts`` are the first
    positions of the groups in that order (for ``np.add.reduceat``), ``code`` is each unit's group 0..G-1."""

    def __init__(self, code):
        self.code = np.asarray(code, dtype=np.int64)
        self.n = int(self.code.max()) + 1 if self.code.size else 0
        self.order = np.argsort(self.code, kind="stable")
        counts = np.bincount(self.code, minlength=self.n)
        if (counts == 0).any():
            raise ValueError("every group code 0..G-1 must have a unit")
        self.counts = counts
        self.starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
        self.identity = bool(np.array_equal(self.order, np.arange(self.code.size)))  # units already in order
        self.code_small = self.code.astype(np.int8 if self.n < 128 else np.int16 if self.n < 32_000 else np.int64)

    def sums(self, values):
        """Σ over each group's units of ``values`` (units on the last axis) -> (..., G)."""
        v = np.asarray(values, dtype=float)[..., self.order]
        return np.add.reduceat(v, self.starts, axis=-1)


class Workspace:
    """Scratch arrays of a bootstrap, reused from one block of replicates to the next (issue 19).

    A block's temporaries (replicates x units, 512 KB each at :data:`decompose_table.CHUNK_CELLS`) are above
    glibc's threshold for returning memory to the system, so made anew for every block each one came back
    as fresh pages (a page fault per 4 KB, zeroed by the kernel): on the Chilean report's 17 x 1,000
    replicates that was about 40 % of the Gini's CPU. Written into the same arrays with ``out=``, the
    operations and so the numbers are the same to the last bit (tests/inequality/test_decompose_speed.py).
    Memory: a dozen arrays of one block. Not shared between threads: one per period's call."""

    def __init__(self):
        self._arrays: dict = {}

    def array(self, name: str, shape: tuple, dtype=float) -> np.ndarray:
        """An uninitialised (rows, units) array ``name``: the first rows of the kept one when it is big enough."""
        rows, n = shape
        kept = self._arrays.get(name)
        if kept is None or kept.shape[1] != n or kept.shape[0] < rows or kept.dtype != np.dtype(dtype):
            kept = self._arrays[name] = np.empty((rows, n), dtype=dtype)
        return kept[:rows]


def _scratch(work, name: str, shape: tuple, dtype=float) -> np.ndarray:
    """``work.array(...)``, or a new array without a workspace (a single vector, a test)."""
    if work is None or len(shape) != 2:
        return np.empty(shape, dtype=dtype)
    return work.array(name, shape, dtype)


def _ge_terms(ratio, alpha: float):
    """The summand of GE(α) for y/μ = ``ratio`` (before the weights)."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if alpha == 1.0:
            return np.where(ratio > 0, ratio * np.log(np.where(ratio > 0, ratio, 1.0)), 0.0) \
                + np.where(np.isnan(ratio), np.nan, 0.0)
        if alpha == 0.0:
            return -np.log(ratio)
        return (ratio ** alpha - 1.0) / (alpha * (alpha - 1.0))


def ge_index(y, p, alpha: float):
    """GE(α) of rates ``y`` (units on the last axis) with weights ``p`` (shares or counts)."""
    y = np.asarray(y, dtype=float)
    p = np.asarray(p, dtype=float)
    p = p / p.sum(axis=-1, keepdims=True)
    mu = np.sum(y * p, axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        value = np.sum(p * _ge_terms(y / mu[..., None], alpha), axis=-1)
    if alpha <= 0:  # a zero rate: undefined (never an arbitrary small number in its place)
        value = np.where(np.any((y <= 0) & (p > 0), axis=-1), np.nan, value)
    return value


def _grouped(y, p, grp: Groups, cache: dict) -> None:
    """Put ``y`` (…, n) and ``p`` (n,) in group order once per block of replicates, with y·p and the group
    masses P_g μ_g (one ``reduceat``); every measure evaluated on the same ``y`` shares them through
    ``cache``. Units already in group order (Brazil's municipalities by state) are not copied. With
    ``cache["work"]`` (a :class:`Workspace`) the block's arrays are written into its scratch arrays."""
    if "mass" in cache:
        return
    work = cache.get("work")
    if grp.identity:
        cache["y"] = y
    else:
        cache["y"] = np.take(y, grp.order, axis=-1, out=_scratch(work, "y_grouped", y.shape))
    cache["p"] = p if grp.identity else p[grp.order]
    cache["yp"] = np.multiply(cache["y"], cache["p"], out=_scratch(work, "yp", cache["y"].shape))
    cache["mass"] = np.add.reduceat(cache["yp"], grp.starts, axis=-1)  # P_g μ_g


class CountLogs:
    """ln y for rates y_ij = k_ij · (1/B_j) with integer counts k (the bootstrap's Poisson deaths): ln of every
    value a unit can take, k = 0..K_j, computed once in a table, and read back with one gather per block of
    replicates instead of a logarithm per replicate and unit (a year of 1,000 Brazilian replicates takes
    5.6 M logarithms; its table, some 10⁵). The table holds the same floating-point operations on the same
    values (k·(1/B_j), then ``np.log``), so the numbers do not change."""

    def __init__(self, per_birth, max_counts):
        per_birth = np.asarray(per_birth, dtype=float)
        self.max_counts = np.asarray(max_counts, dtype=np.int64)
        sizes = self.max_counts + 1
        self.base = np.cumsum(sizes) - sizes  # the first entry of each unit
        unit = np.repeat(np.arange(len(sizes)), sizes)
        y = (np.arange(int(sizes.sum()), dtype=np.int64) - self.base[unit]) * per_birth[unit]
        positive = y > 0
        self.log = np.log(np.where(positive, y, 1.0))
        self.log_or_minus_inf = np.where(positive, self.log, -np.inf)

    def covers(self, counts) -> bool:
        """Whether every count of a block (replicates x units) is in the table."""
        return bool(np.all(np.max(counts, axis=0) <= self.max_counts))

    def fill(self, counts, grp: Groups, cache: dict, minus_inf: bool = True) -> None:
        """Put ln y of a block of counts (replicates x units) in ``cache``, in group order, as :func:`ge_sums`
        reads them (and, with ``minus_inf``, ln y with −∞ at y = 0, for the MLD)."""
        work = cache.get("work")
        where = np.add(counts, self.base, out=_scratch(work, "where", counts.shape, np.int64))
        if not grp.identity:
            where = np.take(where, grp.order, axis=-1, out=_scratch(work, "where_grouped", where.shape, np.int64))
        cache["log"] = np.take(self.log, where, out=_scratch(work, "log", where.shape))
        if minus_inf:
            cache["log_or_minus_inf"] = np.take(self.log_or_minus_inf, where,
                                                out=_scratch(work, "log_or_minus_inf", where.shape))


def ge_decompose(y, w, groups, n_groups: int | None = None, alpha: float = 1.0, cache: dict | None = None) -> dict:
    """GE(α) of ``y`` (…, n) with weights ``w`` (n,) split by ``groups`` (n,) codes 0..G-1.

    Returns a dict of arrays: ``total``, ``within``, ``between`` (…,), and per group (…, G): ``contribution``
    (P_g (μ_g/μ)^α GE_g; they sum to ``within``), ``group_index`` (GE_g), ``group_mean`` (μ_g),
    ``group_share`` (P_g), ``weight`` (P_g (μ_g/μ)^α, the Mookherjee-Shorrocks weight).

    Everything comes from three group sums, Σ p, Σ p y and Σ p f(y) with f = y ln y (α = 1), ln y (α = 0)
    or y^α: GE_g = (Σ_g p y ln y)/(P_g μ_g) − ln μ_g, −(Σ_g p ln y)/P_g + ln μ_g, or
    ((Σ_g p y^α)/(P_g μ_g^α) − 1)/(α(α−1)); the total is the same with the sums over all groups. ``cache``
    (a dict) keeps ln y between calls on the same ``y``.
    """
    grp = groups if isinstance(groups, Groups) else Groups(groups)
    y = np.asarray(y, dtype=float)
    p = np.asarray(w, dtype=float) / np.sum(w)
    cache = {} if cache is None else cache
    part = ge_sums(y, p, grp, alpha, cache)
    return ge_finish(part, cache["mass"], grp.sums(p), alpha)


def ge_sums(y, p, grp: Groups, alpha: float, cache: dict):
    """The group sums Σ_g p f(y) of :func:`ge_decompose` (the part whose cost grows with the units; the
    masses P_g μ_g are left in ``cache["mass"]``). ``p``: the births shares."""
    _grouped(y, p, grp, cache)
    y, p = cache["y"], cache["p"]

    def sums(v):
        return np.add.reduceat(v, grp.starts, axis=-1)

    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if alpha in (0.0, 1.0) and "log" not in cache:  # ln y, 0 where y = 0 (−∞ there for the MLD)
            cache["positive"] = y > 0
            cache["log"] = np.log(np.where(cache["positive"], y, 1.0))
        if alpha == 1.0:
            key = "ylogy"
            if key not in cache:  # p y ln y (0 ln 0 = 0); p y is y p, already computed for the masses
                cache[key] = sums(np.multiply(cache["yp"], cache["log"],
                                              out=_scratch(cache.get("work"), "term", y.shape)))
        elif alpha == 0.0:
            key = "logy"
            if key not in cache:
                if "log_or_minus_inf" not in cache:
                    positive = cache["positive"] if "positive" in cache else y > 0
                    cache["log_or_minus_inf"] = np.where(positive, cache["log"], -np.inf)
                cache[key] = sums(np.multiply(cache["log_or_minus_inf"], p))
        else:
            key = f"pow{alpha:g}"
            if key not in cache:
                if alpha == 2.0:
                    term = np.multiply(y, y, out=_scratch(cache.get("work"), "term", y.shape))
                    term *= p
                else:
                    term = p * y ** alpha
                cache[key] = sums(term)
    return cache[key]


def ge_finish(part, mass, big_p, alpha: float) -> dict:
    """:func:`ge_decompose`'s result from the group sums ``part`` (:func:`ge_sums`), the masses P_g μ_g and
    the births shares P_g (the replicates on the first axis; each row is computed on its own)."""
    mu = mass.sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        mu_g = mass / big_p
        if alpha == 1.0:
            own = part / mass - np.log(mu_g)
            total = part.sum(axis=-1) / mu - np.log(mu)
        elif alpha == 0.0:
            own = np.log(mu_g) - part / big_p
            total = np.log(mu) - part.sum(axis=-1)
        else:
            own = (part / (big_p * mu_g ** alpha) - 1.0) / (alpha * (alpha - 1.0))
            total = (part.sum(axis=-1) / mu ** alpha - 1.0) / (alpha * (alpha - 1.0))
        if alpha <= 0:  # a zero rate: undefined (never an arbitrary small number in its place)
            zero = ~np.isfinite(part) | (part == -np.inf)
            own = np.where(zero, np.nan, own)
            total = np.where(zero.any(axis=-1), np.nan, total)
        rel = mu_g / mu[..., None]
        weight = big_p * (rel ** alpha if alpha != 0 else np.ones_like(rel))
        contribution = np.where((mu_g == 0) & (alpha > 0), 0.0, weight * own)
    within = np.sum(contribution, axis=-1)
    between = ge_index(mu_g, np.broadcast_to(big_p, mu_g.shape), alpha)
    return {"total": total, "within": within, "between": between, "contribution": contribution,
            "group_index": own, "group_mean": mu_g, "group_share": np.broadcast_to(big_p, mu_g.shape),
            "weight": weight}


def _sorted_pair_sum(ys, ws, total_weight):
    """Σ_i Σ_j w_i w_j |y_i − y_j| / 2 for rates ``ys`` already sorted on the last axis (weights ``ws``)."""
    before = np.cumsum(ws, axis=-1) - ws
    return np.sum(ws * ys * (2.0 * before + ws - total_weight), axis=-1)


def gini_index(y, w):
    """Births-weighted Gini Σ_i Σ_j p_i p_j |y_i − y_j| / (2μ) (units on the last axis), via sorting."""
    y = np.asarray(y, dtype=float)
    w = np.broadcast_to(np.asarray(w, dtype=float), y.shape)
    order = np.argsort(y, axis=-1)
    ys = np.take_along_axis(y, order, axis=-1)
    ws = np.take_along_axis(w, order, axis=-1)
    total = ws.sum(axis=-1)
    mu = np.sum(ys * ws, axis=-1) / total
    with np.errstate(divide="ignore", invalid="ignore"):
        return _sorted_pair_sum(ys, ws, total[..., None]) / (total ** 2 * mu)


def gini_decompose(y, w, groups, n_groups: int | None = None, cache: dict | None = None) -> dict:
    """Gini of ``y`` (…, n) with weights ``w`` (n,) split into within + between + overlap by ``groups``.

    Per group (…, G): ``contribution`` = P_g S_g G_g (they sum to ``within``), ``group_index`` = G_g,
    ``group_mean``, ``group_share``, ``weight`` = P_g S_g. One sort of the rates per replicate, then a stable
    sort by group (radix sort on small integers) keeps each group's units in rate order. The products p_i y_i
    are taken from ``cache`` when :func:`ge_decompose` already made them for the same ``y`` (an elementwise
    product does not depend on the order it is taken in), and the arrays are reordered with flat gathers and
    combined in place: on blocks of replicates that fit in the processor's cache this runs several times
    faster than with temporaries, and gives the same numbers to the last bit.
    """
    grp = groups if isinstance(groups, Groups) else Groups(groups)
    y = np.asarray(y, dtype=float)
    w = np.asarray(w, dtype=float)
    p = w / w.sum()
    lead = y.shape[:-1]
    out = gini_finish(*gini_sums(y, p, grp, cache), grp.sums(p))
    return {k: v.reshape(lead + v.shape[1:]) for k, v in out.items()}


def gini_sums(y, p, grp: Groups, cache: dict | None = None) -> tuple:
    """The sums of :func:`gini_decompose` whose cost grows with the units, one row per replicate:
    ``total`` (the Gini), ``pair`` (Σ_{i∈g} p_i y_i (2 W_<i,g + p_i − P_g)), ``mass`` (P_g μ_g), ``mu``."""
    n = y.shape[-1]
    yy = y.reshape(-1, n)
    work = None if cache is None else cache.get("work")

    def scratch(name, dtype=float):
        return _scratch(work, name, yy.shape, dtype)

    if cache is not None and grp.identity:  # the units' order is the group order: y p is shared
        _grouped(y, p, grp, cache)
        yp = cache["yp"].reshape(-1, n)
    else:
        yp = np.multiply(yy, p, out=scratch("gini_yp"))
    order = np.argsort(yy, axis=-1)
    code_sorted = np.take(grp.code_small, order, out=scratch("code_sorted", grp.code_small.dtype))
    ps_all = np.take(p, order, out=scratch("ps_all"))
    offsets = (np.arange(yy.shape[0]) * n)[:, None]
    order += offsets  # positions in the flattened block
    py_all = np.take(yp, order, out=scratch("py_all"))  # p_i y_i in rate order
    mu = py_all.sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        # Σ p_i y_i (2 W_<i + p_i − 1) with W_<i = running share − p_i (shares sum to 1)
        term = np.cumsum(ps_all, axis=-1, out=scratch("term"))
        term *= 2.0
        term -= ps_all
        term -= 1.0
        term *= py_all
        total = np.sum(term, axis=-1) / mu
    by_group = np.argsort(code_sorted, axis=-1, kind="stable")  # radix sort: rate order kept in a group
    by_group += offsets
    ps = np.take(ps_all, by_group, out=scratch("ps"))
    py = np.take(py_all, by_group, out=scratch("py"))
    running = np.cumsum(ps, axis=-1, out=term)  # the total's terms are summed: their array is free
    big_p = grp.sums(p)
    # inside group g, W_<i,g = running_i − p_i − (running share before the group's first unit), so
    # Σ_{i∈g} p_i y_i (2 W_<i,g + p_i − P_g) = Σ_{i∈g} p_i y_i (2 running_i − p_i) − (2 start_g + P_g) mass_g
    start = running[:, grp.starts] - ps[:, grp.starts]
    mass = np.add.reduceat(py, grp.starts, axis=-1)  # P_g μ_g
    running *= 2.0
    running -= ps
    running *= py
    pair = np.add.reduceat(running, grp.starts, axis=-1) - (2.0 * start + big_p) * mass
    return total, pair, mass, mu


def gini_finish(total, pair, mass, mu, big_p) -> dict:
    """:func:`gini_decompose`'s result from :func:`gini_sums` (rows: replicates, each computed on its own)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        own = pair / (big_p * mass)  # G_g = pair / (P_g² μ_g)
        weight = big_p * mass / mu[:, None]  # P_g S_g
        contribution = np.where(mass > 0, weight * own, 0.0)
        mu_g = mass / big_p
    within = contribution.sum(axis=-1)
    between = gini_index(mu_g, big_p)
    out = {"total": total, "within": within, "between": between, "overlap": total - within - between,
           "contribution": contribution, "group_index": own, "group_mean": mu_g,
           "group_share": np.broadcast_to(big_p, mu_g.shape), "weight": weight}
    return out


def replicate_sums(name: str, y, p, grp: Groups, cache: dict) -> tuple:
    """The sums of one measure on a block of replicates ``y`` (replicates x units; ``p`` births shares,
    ``cache`` shared by the measures of the block): blocks can be stacked row-wise and finished once by
    :func:`from_sums`, which gives exactly what :func:`decompose_measure` gives on the stacked rates."""
    if name == "gini":
        return gini_sums(y, p, grp, cache)
    return ge_sums(y, p, grp, parse_alpha(name), cache), cache["mass"]


def from_sums(name: str, sums: tuple, big_p) -> dict:
    """The decomposition of :func:`decompose_measure` from :func:`replicate_sums` (stacked)."""
    if name == "gini":
        return gini_finish(*sums, big_p)
    return ge_finish(sums[0], sums[1], big_p, parse_alpha(name))


def decompose_measure(name: str, y, w, groups, cache: dict | None = None) -> dict:
    """:func:`gini_decompose` for ``gini``, else :func:`ge_decompose` with α from :func:`parse_alpha`
    (``cache``: a dict shared by the calls on the same ``y``)."""
    if str(name).lower() == "gini":
        return gini_decompose(y, w, groups, cache=cache)
    alpha = parse_alpha(name)
    if alpha is None:
        raise ValueError(f"unknown measure {name!r}")
    return ge_decompose(y, w, groups, alpha=alpha, cache=cache)


CHANGE_COMPONENTS = ("total", "within_intensity", "within_shares", "between_shares", "between_means", "overlap")


def change(name: str, before: dict, after: dict) -> dict:
    """The change of a decomposition from ``before`` to ``after`` (outputs of :func:`decompose_measure` on
    the same groups), split as the module docstring says; the parts add up to ``total`` exactly.

    A group absent from one period (no births) enters with weight 0 and own index 0 there.
    """
    gini = str(name).lower() == "gini"
    alpha = None if gini else parse_alpha(name)

    def clean(v):
        return np.nan_to_num(np.asarray(v, dtype=float), nan=0.0)

    w0, w1 = clean(before["weight"]), clean(after["weight"])
    i0, i1 = clean(before["group_index"]), clean(after["group_index"])
    undefined = np.isnan(before["within"]) | np.isnan(after["within"])  # MLD with a zero rate
    out = {"total": after["total"] - before["total"],
           "within_intensity": np.where(undefined, np.nan, np.sum((w0 + w1) / 2 * (i1 - i0), axis=-1)),
           "within_shares": np.where(undefined, np.nan, np.sum((i0 + i1) / 2 * (w1 - w0), axis=-1))}
    p0, p1 = clean(before["group_share"]), clean(after["group_share"])
    m0, m1 = before["group_mean"], after["group_mean"]

    def between(shares, means):
        means = np.where(shares > 0, np.nan_to_num(means, nan=0.0), 0.0)
        if gini:
            return gini_index(means, shares)
        return ge_index(means, shares, alpha)

    b00, b10, b01, b11 = between(p0, m0), between(p1, m0), between(p0, m1), between(p1, m1)
    out["between_shares"] = ((b10 - b00) + (b11 - b01)) / 2
    out["between_means"] = ((b01 - b00) + (b11 - b10)) / 2
    out["overlap"] = (after["overlap"] - before["overlap"]) if gini else np.zeros_like(out["total"])
    return out


def bootstrap_interval(values, alpha_q: float) -> tuple[float, float, float]:
    """Percentile interval and standard error of bootstrap replicates: the ``alpha_q`` and ``1 - alpha_q``
    quantiles of the finite replicates, and their standard deviation (ddof 1); all NaN with fewer than two
    finite replicates. Shared by the between/within and the determinants decompositions."""
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    if len(v) < 2:
        return np.nan, np.nan, np.nan
    lo, hi = np.quantile(v, [alpha_q, 1 - alpha_q])
    return float(lo), float(hi), float(v.std(ddof=1))
