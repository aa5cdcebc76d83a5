"""A result table made publishable under a :class:`brecha.publication.Policy` (the rules are in
:mod:`brecha.publication`).

:func:`protect` takes any tidy result table with ``unit`` and ``events`` columns (rates, disparity, smoothed
rates, funnel, the report's tables) and the Panel it was computed from, and returns the table to write:

- the totals it is published with: one row per region (``unit = region:CODE``; for Brazil the states,
  ``province:CODE``, and the macro-regions) and the country (``TOTAL``), with their deaths, births and rate,
  summed from the table's own rows by the one rule of :func:`brecha.panel_levels.sum_members` (a member
  enters with both its deaths and births);
- hidden cells: the count and every number derived from it (rate, CI, SE, p-value, RR, AR, AR%, smoothed
  rate, z-scores, the outlier flag) left empty; births, the reference's and the prior's numbers stay;
- ``flag``: the table's own codes plus ``suppressed``, ``suppressed_secondary`` or ``rounded`` (';'-joined;
  a hidden row keeps only its suppression code, since an analysis code like ``zero_events`` would reveal it);
- ``reliability``: ``unstable`` where a published rate rests on fewer than 20 deaths (also without
  suppression, :func:`add_reliability`);
- ``attrs["notes"]``: the table's notes plus the policy's.

Numbers that are published are never changed, except the death counts when rounding is asked for.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .i18n import Catalog
from .publication import TOTAL, Policy, notes, reliability, round_counts, suppress_cells, unstable_note

# the levels whose totals a table is published with, from the units up (below the country's TOTAL)
PUBLICATION_LEVELS = {"BR": ("province", "region")}
DEFAULT_LEVELS = ("region",)
# numeric columns of a hidden row that do not reveal its count (denominators, the reference, the prior, limits
# that depend on births only)
KEEP = {"births", "year", "n_years", "conf_level", "prior_mean", "prior_sd", "target", "lower_95", "upper_95",
        "lower_998", "upper_998", "tau2", "phi", "reference_events", "reference_births", "reference_rate",
        "units_missing", "shrinkage", "n_neighbours"}
# text columns of a hidden row that would reveal where its count lies (the funnel's side, the LISA cluster:
# high or low)
DERIVED_TEXT = {"flag_95", "cluster"}
RATE_COLUMNS = ("rate", "raw_rate")

MSG = Catalog({
    "total_name": ("Total", "Total"),
})


def add_reliability(table: pd.DataFrame) -> pd.DataFrame:
    """The ``reliability`` column (``unstable`` on fewer than 20 deaths) and its note, on a table with
    ``events``; other tables are returned as they are."""
    if "events" not in table.columns or "reliability" in table.columns:
        return table
    out = table.copy()
    out["reliability"] = reliability(out["events"])
    out.attrs["notes"] = list(dict.fromkeys([*table.attrs.get("notes", ()), unstable_note()]))
    return out


def protect(table: pd.DataFrame, policy: Policy, panel=None) -> pd.DataFrame:
    """The table as it may be published under ``policy`` (module docstring). Tables without ``unit`` and
    ``events`` columns hold no counts and get only the policy's notes."""
    if "events" not in table.columns or "unit" not in table.columns or not policy.active:
        return add_reliability(table)
    keys, strata = table_keys(table)
    out = prepared(table)
    out, true_events = with_totals(out, _totals(out, strata, panel))
    status = cell_status(out, keys, strata, panel, policy)
    return finish(out, status, table, policy, true_events)


def table_keys(table: pd.DataFrame) -> tuple[list[str], list[str]]:
    """A cell's key (``unit, period, outcome`` as the table has them) and its stratum's (without ``unit``)."""
    keys = [c for c in ("unit", "period", "outcome") if c in table.columns]
    return keys, [c for c in keys if c != "unit"]


def prepared(table: pd.DataFrame) -> pd.DataFrame:
    """A copy of the table with text unit codes (the rows :func:`protect` works on, before the totals)."""
    out = table.copy()
    out["unit"] = out["unit"].astype(str)
    out["reliability"] = reliability(pd.to_numeric(out["events"], errors="coerce").astype("float64"))
    return out


def with_totals(out: pd.DataFrame, totals: pd.DataFrame):
    """The rows and their totals below them, with the reliability column; also the true death counts."""
    if len(totals):
        out = pd.concat([out, totals], ignore_index=True)
    true_events = pd.to_numeric(out["events"], errors="coerce").astype("float64")
    out["reliability"] = reliability(true_events)
    return out, true_events


def cell_status(out: pd.DataFrame, keys: list[str], strata: list[str], panel, policy: Policy) -> np.ndarray:
    """Each row's suppression status ('' published, ``suppressed``, ``suppressed_secondary``): the rows of a
    cell (``keys``) share it. The strata (periods, outcomes) are independent forests of sums
    (:func:`brecha.publication.suppress_cells`), so the rows of whole strata may be given alone."""
    if policy.suppress is None:
        return np.full(len(out), "", dtype=object)
    cells = out.drop_duplicates(keys)[keys + ["events"]].reset_index(drop=True)
    cells["parent"] = _parents(cells["unit"], out, panel)
    cells["stratum"] = _stratum(cells, strata)
    cells = cells.rename(columns={"unit": "node", "events": "value"})
    cells["status"] = suppress_cells(cells, policy.suppress, policy.zeros)
    lookup = out[keys].merge(cells.rename(columns={"node": "unit"})[keys + ["status"]], on=keys, how="left")
    return lookup["status"].fillna("").to_numpy()


def finish(out: pd.DataFrame, status, table: pd.DataFrame, policy: Policy, true_events) -> pd.DataFrame:
    """The rows of ``out`` (``table``'s rows, then totals) as published: hidden by ``status``, rounded, the
    reference's small counts hidden, counts as whole numbers, the notes."""
    attrs = dict(table.attrs)
    out = apply_status(out, status, policy, true_events)
    out = _hide_small_reference(out, table, policy)
    for col, dtype in table.dtypes.items():  # counts stay whole numbers after the totals were added
        if str(dtype) == "Int64" and col in out.columns and str(out[col].dtype) != "Int64":
            out[col] = pd.to_numeric(out[col], errors="coerce").round().astype("Int64")
    out.attrs = attrs
    out.attrs["notes"] = published_notes(attrs, policy)
    return out


def published_notes(attrs: dict, policy: Policy) -> list[str]:
    """The notes of a protected table: its own, the policy's, the reliability column's."""
    return list(dict.fromkeys([*attrs.get("notes", ()), *notes(policy), unstable_note()]))


def _hide_small_reference(out: pd.DataFrame, table: pd.DataFrame, policy: Policy) -> pd.DataFrame:
    """A disparity table whose reference has 1..K deaths: every RR, AR, AR%, excess and PAR would give the
    reference's rate back from a published rate, so they are hidden with the reference's numbers (flag
    ``suppressed_secondary``); the units' own counts and rates stay as decided."""
    if "reference_events" not in table.columns or policy.suppress is None:
        return out
    ref = pd.to_numeric(table["reference_events"], errors="coerce").astype("float64").to_numpy()
    small = (ref >= 1) & (ref <= policy.suppress)
    if policy.zeros == "hide":
        small |= ref == 0
    small = np.concatenate([small, np.zeros(len(out) - len(table), dtype=bool)])
    if not small.any():
        return out
    for col in ("estimate", "lower", "upper", "se", "p_value", "reference_events", "reference_rate"):
        if col in out.columns:
            out[col] = out[col].mask(small)
    flags = out["flag"].astype(object).fillna("").astype(str)
    add = small & ~flags.str.contains("suppressed").to_numpy()
    out.loc[add, "flag"] = [f"{f};suppressed_secondary" if f else "suppressed_secondary" for f in flags[add]]
    return out


def apply_status(out: pd.DataFrame, status: np.ndarray, policy: Policy, true_events=None) -> pd.DataFrame:
    """Hide the rows whose ``status`` is ``suppressed``/``suppressed_secondary`` (their count and derived
    numbers), round the others' counts when the policy says so, and write the ``flag`` column."""
    hidden = np.asarray(status, dtype=object) != ""
    out = _blank(out, hidden)
    rounded = np.zeros(len(out), dtype=bool)
    if policy.round and true_events is not None:
        values = true_events.to_numpy(dtype="float64", na_value=np.nan)
        shown = ~hidden & ~np.isnan(values)
        new = round_counts(values, policy.round)
        rounded = shown & (new != values)
        out["events"] = pd.array(np.where(shown, new, np.nan), dtype="Float64").astype("Int64")
    own = (out["flag"].astype(object).fillna("").astype(str).to_numpy() if "flag" in out.columns
           else np.full(len(out), ""))
    own = np.where(hidden, "", own)
    extra = np.where(hidden, status, np.where(rounded, "rounded", ""))
    out["flag"] = [";".join(p for p in (a, b) if p) for a, b in zip(own, extra)]
    return out


def _stratum(cells: pd.DataFrame, strata: list[str]) -> np.ndarray:
    """One text key per (period, outcome): the tables whose counts are not added together."""
    if not strata:
        return np.full(len(cells), "", dtype=object)
    key = cells[strata[0]].astype(str).to_numpy(dtype=object)
    for col in strata[1:]:
        key = key + "|" + cells[col].astype(str).to_numpy(dtype=object)
    return key


def hidden_units(table: pd.DataFrame) -> set:
    """The units whose cells a protected table hides (for maps: grey, with a legend entry)."""
    if "flag" not in table.columns:
        return set()
    flags = table["flag"].astype(object).fillna("").astype(str)
    return set(table.loc[flags.str.contains("suppressed"), "unit"].astype(str))


def _blank(out: pd.DataFrame, hidden: np.ndarray) -> pd.DataFrame:
    """Empty the count and every number derived from it in the hidden rows."""
    if not hidden.any():
        return out
    for col in out.columns:
        if col in KEEP or col in ("unit", "period", "outcome", "measure", "method", "name", "flag", "reference",
                                  "prior_group", "level"):
            continue
        series = out[col]
        if pd.api.types.is_bool_dtype(series.dtype):
            out[col] = series.astype("boolean").mask(hidden)
        elif pd.api.types.is_numeric_dtype(series.dtype):
            out[col] = series.mask(hidden)
        elif col in DERIVED_TEXT or col == "reliability":
            out[col] = series.mask(hidden, "")
    return out


def _levels(panel, units: pd.Series) -> tuple[str, list[str]]:
    """The table's level (``unit``, ``province``, ``region`` or ``country``) and the levels of the totals
    above it (without the country's)."""
    if panel is None or getattr(panel, "units", None) is None:
        return "unit", []
    country = getattr(panel, "country", None)
    chain = [lv for lv in PUBLICATION_LEVELS.get(country, DEFAULT_LEVELS)
             if lv in panel.units.columns and panel.units[lv].notna().any()]
    codes = set(units.astype(str))
    if codes <= set(panel.unit_codes):
        return "unit", chain
    for level, above in (("province", ["region"]), ("region", [])):
        if level in panel.units.columns and panel.units[level].notna().any() and \
                codes <= set(panel.units[level].dropna().astype(str)):
            return level, [lv for lv in above if lv in panel.units.columns and panel.units[lv].notna().any()]
    return "country", []


def _membership(panel, level: str, chain: list[str]) -> pd.DataFrame:
    """One row per code at ``level`` with its code at each level of ``chain``."""
    units = panel.units
    col = "unit" if level == "unit" else level
    table = units.drop_duplicates(col)[[col, *chain]].copy()
    return table.astype(str).set_index(col)


def _node(level: str, code) -> str:
    return f"{level}:{code}"


def _totals(out: pd.DataFrame, strata: list[str], panel) -> pd.DataFrame:
    """The rows of the totals the table is published with (module docstring)."""
    sums = total_sums(out, strata, panel)
    return total_rows(sums, out) if len(sums) else sums


def total_sums(out: pd.DataFrame, strata: list[str], panel) -> pd.DataFrame:
    """The totals' keys, name, deaths and births (``unit, strata..., name, events, births``), summed from
    the table's rows: each level's groups in order (``sum_members`` sorts them), the country's last; none
    that the table already has."""
    from .panel_levels import sum_members

    base = out[~out["unit"].isin([TOTAL]) & ~out["unit"].str.contains(":", regex=False)]
    base = base.drop_duplicates(["unit", *strata])
    if not len(base):
        return base.iloc[0:0]
    level, chain = _levels(panel, base["unit"])
    if level == "country":
        return base.iloc[0:0]
    member = _membership(panel, level, chain) if chain else None
    counts = pd.DataFrame({"events": pd.to_numeric(base["events"], errors="coerce"),
                           "births": pd.to_numeric(base["births"], errors="coerce")
                           if "births" in base.columns else np.nan})
    lacking = counts.isna()
    lacking = pd.DataFrame({"events": lacking.any(axis=1), "births": lacking.any(axis=1)})
    pieces = []
    names = _names(panel)
    for lv in [*chain, None]:
        group = base["unit"].map(member[lv]) if lv else pd.Series(TOTAL, index=base.index)
        keys = [group.rename("unit"), *[base[s] for s in strata]]
        sums, _ = sum_members(counts, keys, lacking, "available")
        sums = sums.reset_index()
        if lv:
            sums["name"] = sums["unit"].map(names.get(lv, {}))
            sums["unit"] = sums["unit"].map(lambda c, lv=lv: _node(lv, c))
        else:
            sums["name"] = _country_name(panel)
        pieces.append(sums)
    totals = pd.concat(pieces, ignore_index=True)
    return totals[~totals.set_index(["unit", *strata]).index.isin(out.set_index(["unit", *strata]).index)]


def shared_values(out: pd.DataFrame) -> dict:
    """The table's one ``method`` and ``conf_level`` (None where its rows differ), which its totals take."""
    return {col: (out[col].dropna().iloc[0] if out[col].nunique(dropna=True) == 1 else None)
            for col in ("method", "conf_level") if col in out.columns}


def total_rows(totals: pd.DataFrame, out: pd.DataFrame, shared: dict | None = None) -> pd.DataFrame:
    """Totals with the table's columns: deaths, births and, as the table has them, the rate (with its CI in
    a rates table, by the table's own method and level). ``shared``: :func:`shared_values` of the whole
    table when ``out`` is only a part of it."""
    from .rates import rate_interval

    rows = pd.DataFrame({c: totals[c] for c in totals.columns if c in out.columns or c in ("events", "births")})
    rows["events"] = rows["events"].astype("Int64")
    if "births" in out.columns:
        rows["births"] = rows["births"].astype("Int64")
    for col, value in (shared_values(out) if shared is None else shared).items():
        if value is not None:
            rows[col] = value
    if {"estimate", "lower", "upper", "method"} <= set(out.columns) and "measure" not in out.columns \
            and "raw_rate" not in out.columns and "rate" not in out.columns:
        method = str(rows.get("method", pd.Series(["exact"])).iloc[0]) if len(rows) else "exact"
        level = float(rows["conf_level"].iloc[0]) if "conf_level" in rows and len(rows) else 0.95
        est, lo, up = rate_interval(rows["events"], rows["births"], method if method else "exact", level)
        rows["estimate"], rows["lower"], rows["upper"] = est, lo, up
    for col in RATE_COLUMNS:
        if col in out.columns:
            ev = rows["events"].astype("float64")
            bi = rows["births"].astype("float64")
            rows[col] = np.where(bi > 0, 1000 * ev / bi.where(bi > 0, 1), np.nan)
    if "flag" in out.columns:
        rows["flag"] = ""
    return rows.reindex(columns=[c for c in out.columns if c in rows.columns])


def _parents(nodes: pd.Series, out: pd.DataFrame, panel) -> list[str]:
    """Each cell's total: a unit's region (or state), a region's country; '' for the country."""
    plain = nodes[~nodes.isin([TOTAL]) & ~nodes.str.contains(":", regex=False)]
    level, chain = _levels(panel, plain) if len(plain) else ("unit", [])
    if level == "country":
        return ["" if n == TOTAL or ":" not in n else TOTAL for n in nodes]
    up: dict[str, str] = {}
    if chain:
        member = _membership(panel, level, chain)
        up.update({code: _node(chain[0], group) for code, group in member[chain[0]].items()})
        for lower, upper in zip(chain[:-1], chain[1:]):
            above = _membership(panel, lower, [upper])[upper]
            up.update({_node(lower, code): _node(upper, group) for code, group in above.items()})
    return ["" if n == TOTAL else up.get(n, TOTAL) for n in nodes]


def _names(panel) -> dict:
    if panel is None or getattr(panel, "units", None) is None:
        return {}
    names = {}
    for level in ("province", "region"):
        if level in panel.units.columns and f"{level}_name" in panel.units.columns:
            table = panel.units.drop_duplicates(level)
            names[level] = dict(zip(table[level].astype(str), table[f"{level}_name"].astype(str)))
    return names


def _country_name(panel) -> str:
    try:
        return str(panel.units_at("country")["name"].iloc[0])
    except Exception:  # a panel without a country: the plain word
        return MSG("total_name")
