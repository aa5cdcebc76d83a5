"""The attacker's view of a protected table, solved by linear programming (REFERENCE_WAVE2 W.6).

For each hidden count: its smallest and largest value over all non-negative tables that agree with
everything published (the published counts, and each total = the sum of its members), by
``scipy.optimize.linprog`` (HiGHS). The sums of a hierarchy form a network matrix (totally unimodular), so
the LP's bounds are attained at integer tables: they are the bounds over integer tables too.

Written apart from brecha.publication: the hierarchy is rebuilt here from the panel's unit attributes and
the table's ``unit`` codes, and what is hidden is read from the written table (empty count + flag).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.optimize import linprog
from scipy.sparse import coo_matrix


def hierarchy(panel, levels) -> dict:
    """node -> its total's node: unit -> first level, level -> next level, last level -> TOTAL."""
    units = panel.units.astype({lv: str for lv in levels})
    parent = {}
    for _, row in units.iterrows():
        chain = [str(row["unit"])] + [f"{lv}:{row[lv]}" for lv in levels] + ["TOTAL"]
        for child, up in zip(chain[:-1], chain[1:]):
            parent[child] = up
    return parent


def audit(table: pd.DataFrame, parent_of: dict, truth: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per hidden cell: ``unit, low, high``: its smallest and largest value.

    With ``truth`` (the unprotected table, ``unit, period, events``) the large tables are checked faster
    with the same meaning: min < max is proved by a feasible table whose value of the cell differs from the
    true one (the true table is feasible too); ``low``/``high`` are then the true value and that witness's
    value, not the extremes. Witnesses come from one LP per component (pushing every positive hidden
    count down), then one LP per cell still unproved."""
    rows = []
    keys = [c for c in ("period", "outcome") if c in table.columns]
    true = None
    if truth is not None:
        true = {(str(u), str(p)): float(e) for u, p, e in zip(truth["unit"], truth["period"], truth["events"])
                if pd.notna(e)}
    for stratum, part in table.groupby(keys, sort=True) if keys else [((), table)]:
        period = str(part["period"].iloc[0]) if "period" in part.columns else ""
        rows.append(_audit_stratum(part, parent_of, stratum, true, period))
    return pd.concat(rows, ignore_index=True) if rows else pd.DataFrame()


def _audit_stratum(part: pd.DataFrame, parent_of: dict, stratum, true=None, period="") -> pd.DataFrame:
    part = part.drop_duplicates("unit")
    flags = part["flag"].fillna("").astype(str)
    hidden = flags.str.contains("suppressed").to_numpy()
    events = pd.to_numeric(part["events"], errors="coerce").to_numpy(dtype="float64", na_value=np.nan)
    births = pd.to_numeric(part["births"], errors="coerce").to_numpy(dtype="float64", na_value=np.nan)
    enters = hidden | (~np.isnan(events) & ~np.isnan(births))
    nodes = part["unit"].astype(str).to_numpy()
    present = {n: i for i, n in enumerate(nodes) if enters[i]}
    var = {n: j for j, n in enumerate(n for n in nodes if n in present and hidden[present[n]])}
    if not var:
        return pd.DataFrame(columns=["unit", "low", "high"])
    # one equation per total present in the table: total - sum(members) = 0, published values moved right
    members: dict[str, list[str]] = {}
    for n in present:
        up = parent_of.get(n)
        if up in present:
            members.setdefault(up, []).append(n)
    r, c, v, b = [], [], [], []
    for eq, (total, kids) in enumerate(members.items()):
        rhs = 0.0
        for node, sign in [(total, 1.0)] + [(k, -1.0) for k in kids]:
            if node in var:
                r.append(eq), c.append(var[node]), v.append(sign)
            else:
                rhs -= sign * events[present[node]]
        b.append(rhs)
    a = coo_matrix((v, (r, c)), shape=(len(b), len(var))).tocsr()
    used = np.asarray(abs(a).sum(axis=1)).ravel() > 0
    a, b = a[used], np.asarray(b)[used]
    if true is not None:
        t = np.array([true[(n, period)] for n in var])
        low, high = _witnesses(a, b, t)
    else:
        low, high = _bounds(a, b, len(var))
    return pd.DataFrame({"unit": list(var), "low": low, "high": high})


def _witnesses(a, b, t):
    """(true value, a feasible value that differs from it; equal where none exists) for each variable."""
    from scipy.sparse.csgraph import connected_components

    n = len(t)
    other = t.copy()
    if a.shape[0] == 0:
        return t, t + 1  # in no equation: free
    _, label = connected_components((abs(a).T @ abs(a)).tocsr(), directed=False)
    for comp in np.unique(label):
        cols = np.flatnonzero(label == comp)
        rows = np.flatnonzero(np.asarray(abs(a[:, cols]).sum(axis=1)).ravel() > 0)
        sub, rhs, tc = a[rows][:, cols], b[rows], t[cols]
        res = linprog((tc > 0).astype(float), A_eq=sub, b_eq=rhs, bounds=(0, None), method="highs")
        assert res.status == 0, res.message
        found = np.where(np.abs(res.x - tc) > 1e-7, res.x, np.nan)
        for k in np.flatnonzero(np.isnan(found)):
            for sign in (1.0, -1.0):
                cost = np.zeros(len(cols))
                cost[k] = sign
                one = linprog(cost, A_eq=sub, b_eq=rhs, bounds=(0, None), method="highs")
                if one.status == 3:  # unbounded: other values exist
                    found[k] = np.inf
                    break
                if one.status == 0 and abs(one.x[k] - tc[k]) > 1e-7:
                    found[k] = one.x[k]
                    break
        other[cols] = np.where(np.isnan(found), tc, found)
    return t, other


def _bounds(a, b, n: int):
    """min and max of each variable over {a x = b, x >= 0}, one component of linked variables at a time."""
    from scipy.sparse.csgraph import connected_components

    low = np.zeros(n)
    high = np.full(n, np.inf)
    if a.shape[0] == 0:  # hidden cells in no equation: anything from 0 up
        return low, high
    link = (abs(a).T @ abs(a)).tocsr()
    _, label = connected_components(link, directed=False)
    for comp in np.unique(label):
        cols = np.flatnonzero(label == comp)
        rows = np.flatnonzero(np.asarray(abs(a[:, cols]).sum(axis=1)).ravel() > 0)
        sub, rhs = a[rows][:, cols], b[rows]
        low[cols], high[cols] = _component_bounds(sub, rhs)
    return low, high


def _component_bounds(sub, rhs):
    """All the minima in one LP and all the maxima in another: m copies of the component side by side
    (block diagonal), copy k's objective being its own variable k; the optimum of a sum of independent
    blocks is each block at its optimum. An unbounded maximum (or a large component) falls back to one LP
    per variable."""
    from scipy.sparse import block_diag, identity

    m = sub.shape[1]
    if m > 400:
        return _one_by_one(sub, rhs)
    big = block_diag([sub] * m, format="csr")
    rhs_all = np.tile(rhs, m)
    pick = identity(m, format="csr").toarray().ravel()  # copy k, variable k
    lo = linprog(pick, A_eq=big, b_eq=rhs_all, bounds=(0, None), method="highs")
    assert lo.status == 0, lo.message  # the true table is feasible
    low = lo.x.reshape(m, m).diagonal().copy()
    hi = linprog(-pick, A_eq=big, b_eq=rhs_all, bounds=(0, None), method="highs")
    if hi.status == 0:
        return low, hi.x.reshape(m, m).diagonal().copy()
    return low, _one_by_one(sub, rhs, lows=False)[1]


def _one_by_one(sub, rhs, lows: bool = True):
    m = sub.shape[1]
    low, high = np.zeros(m), np.empty(m)
    for k in range(m):
        if lows:
            cost = np.zeros(m)
            cost[k] = 1.0
            one = linprog(cost, A_eq=sub, b_eq=rhs, bounds=(0, None), method="highs")
            assert one.status == 0, one.message
            low[k] = one.fun
        cost = np.zeros(m)
        cost[k] = -1.0
        one = linprog(cost, A_eq=sub, b_eq=rhs, bounds=(0, None), method="highs")
        high[k] = -one.fun if one.status == 0 else np.inf  # 3: unbounded
    return low, high


def audit_equations(published: dict, hidden: list, equations: list) -> pd.DataFrame:
    """The bounds of each ``hidden`` key given ``published`` values (key -> number) and ``equations``
    (total key, [member keys]): total = sum of members."""
    var = {key: j for j, key in enumerate(hidden)}
    r, c, v, b = [], [], [], []
    row = 0
    for total, kids in equations:
        terms = [(total, 1.0)] + [(k, -1.0) for k in kids]
        if not any(t in var for t, _ in terms):
            continue
        rhs = 0.0
        for node, sign in terms:
            if node in var:
                r.append(row), c.append(var[node]), v.append(sign)
            else:
                rhs -= sign * published[node]
        b.append(rhs)
        row += 1
    a = coo_matrix((v, (r, c)), shape=(len(b), len(var))).tocsr()
    low, high = _bounds(a, np.asarray(b), len(var))
    return pd.DataFrame({"key": hidden, "low": low, "high": high})
