"""Compare the joinpoint trends of two units, or of two fifths of units ranked by a covariate, from a Panel.

``compare_trends(panel, "q1", "q5", rank_by="poverty")``: units are ranked by the covariate (its mean over
the years asked) and cut into fifths of births (q1 holds the units with the lowest values and about a
fifth of all births: a unit is in fifth j when the births of the units ranked before it make up at least
(j - 1)/5 and less than j/5 of the births); each fifth's rate in a year is its summed deaths over its
summed births (unit-years with both). ``compare_trends(panel, "09101", "09201")`` compares two units (or,
with ``level``, two provinces or regions). Years where either series has no births are left out and
listed; zero-death years follow the trends' ``zero`` rule (0.5 deaths by default, as Joinpoint).

Each series' number of joinpoints is chosen by ``selection`` (WBIC by default); the tests are those of
:mod:`brecha.trends.comparability`. The result also carries each series' AAPC (parametric CI) and the APC of
their rate ratio over the years (``gap_apc``: OLS of ln(rate A / rate B) on the year; negative = the ratio
is shrinking), so a reader sees the direction the parallelism test is about.
"""
from __future__ import annotations

import re

import numpy as np
import pandas as pd

from ..errors import InputError
from ..i18n import Catalog
from .apc import _event_table
from .comparability import TESTS, compare
from .joinpoint import fit_joinpoints, _segments_table
from .series import prepare_series

MSG = Catalog({
    "bad_pair": ("--compare necesita dos unidades distintas separadas por una coma (A,B), no '{value}'",
                 "--compare needs two different units separated by a comma (A,B), not '{value}'"),
    "need_rank": ("'{value}' es un quinto: indique --rank-by COVARIABLE (una de: {choices})",
                  "'{value}' is a fifth: give --rank-by COVARIATE (one of: {choices})"),
    "bad_rank": ("la covariable '{value}' no está en el panel (hay: {choices})",
                 "the covariate '{value}' is not in the panel (there are: {choices})"),
    "bad_unit": ("la unidad '{value}' no está en los datos{level}", "the unit '{value}' is not in the data{level}"),
    "bad_unit_hint": ("use un código de unidad del panel (p. ej. {example}) o q1..q5 con --rank-by",
                      "use a unit code of the panel (e.g. {example}) or q1..q5 with --rank-by"),
    "too_few": ("{a} y {b} tienen {n} {n:año|años} en común con datos; se necesitan al menos {need}",
                "{a} and {b} have {n} {n:year|years} with data in common; at least {need} are needed"),
    "dropped": ("años sin datos en alguna de las dos series, omitidos: {years}",
                "years without data in either series, left out: {years}"),
    "fifths": ("quintos de nacimientos según {cov} (promedio {first}-{last}): q1 = valores más bajos; "
               "{a}: {na} {na:unidad|unidades}, {b}: {nb} {nb:unidad|unidades}; {missing} {missing:unidad|unidades} "
               "sin {cov} {missing:queda|quedan} fuera",
               "fifths of births by {cov} (mean {first}-{last}): q1 = lowest values; {a}: {na} {na:unit|units}, "
               "{b}: {nb} {nb:unit|units}; {missing} {missing:unit|units} without {cov} left out"),
})

FIFTH = re.compile(r"^q([1-5])$", re.IGNORECASE)


def parse_pair(text: str) -> tuple[str, str]:
    """'A,B' -> ('A', 'B'); refused unless two different non-empty names."""
    parts = [p.strip() for p in str(text).split(",")]
    if len(parts) != 2 or not all(parts) or parts[0] == parts[1]:
        raise InputError(MSG("bad_pair", value=text), argument="compare")
    return parts[0], parts[1]


def fifths(panel, covariate: str, years=None) -> pd.Series:
    """'q1'..'q5' per unit: units ranked by their mean ``covariate`` over ``years``, cut by births."""
    data = panel.data if years is None else panel.data[panel.data["year"].isin(list(years))]
    score = data.groupby("unit")[covariate].mean()
    births = pd.to_numeric(data.groupby("unit")["births"].sum(), errors="coerce")
    s = pd.DataFrame({"score": score, "births": births}).dropna()
    s = s[s["births"] > 0].sort_values("score", kind="stable")
    share_before = (s["births"].cumsum() - s["births"]) / s["births"].sum()
    group = np.minimum(np.floor(share_before.to_numpy() * 5).astype(int) + 1, 5)
    return pd.Series([f"q{g}" for g in group], index=s.index.astype(str))


def _series_table(panel, a, b, outcome, years, level, rank_by, incomplete, groups=None):
    """unit, year, events, births of the two series (units, fifths or ``groups``) and their notes."""
    notes = []
    table, names, outcome, _ = _event_table(panel, outcome, years, level, incomplete)
    table = pd.DataFrame(table)
    wanted = []
    if groups is not None:  # the caller's own grouping (e.g. the report's fifths by rate)
        table["fifth"] = table["unit"].map(groups)
        wanted = [("fifth", a), ("fifth", b)]
    for value in (a, b) if groups is None else ():
        if FIFTH.match(value):
            covariates = list(getattr(panel, "covariates", []) or [])
            if not rank_by:
                raise InputError(MSG("need_rank", value=value, choices=", ".join(covariates) or "-"),
                                 argument="rank_by")
            if rank_by not in covariates:
                raise InputError(MSG("bad_rank", value=rank_by, choices=", ".join(covariates) or "-"),
                                 argument="rank_by")
            wanted.append(("fifth", value.lower()))
        else:
            if value not in set(table["unit"].unique().tolist()):
                example = str(table["unit"].iloc[0]) if len(table) else "-"
                raise InputError(MSG("bad_unit", value=value, level=f" ({level})" if level else ""),
                                 hint=MSG("bad_unit_hint", example=example), argument="compare")
            wanted.append(("unit", value))
    if groups is None and any(kind == "fifth" for kind, _ in wanted):
        groups = fifths(panel, rank_by, years)
        table["fifth"] = table["unit"].map(groups)
        used_years = sorted(table["year"].unique())
        counts = groups.value_counts()
        notes.append(MSG("fifths", cov=rank_by, first=used_years[0], last=used_years[-1], a=a, b=b,
                         na=int(counts.get(a.lower(), 0)), nb=int(counts.get(b.lower(), 0)),
                         missing=int(len(set(table["unit"].tolist())) - len(groups))))
    frames = []
    for (kind, value), label in zip(wanted, (a, b)):
        if kind == "unit":
            rows = table[table["unit"] == value][["year", "events", "births"]]
        else:
            members = table[table["fifth"] == value]
            members = members[members["events"].notna() & members["births"].notna()]
            rows = members.groupby("year", as_index=False)[["events", "births"]].sum()
        frames.append(rows.assign(unit=label))
    both = pd.concat(frames, ignore_index=True)
    return both, names, notes


def compare_trends(panel, a: str, b: str, outcome: str = "infant", years=None, level=None, rank_by=None,
                   incomplete: str = "sum", selection: str = "wbic", max_joinpoints: int = 2, weights=None,
                   zero: str = "add-half", n_permutations: int = 4499, seed: int = 2024, min_end: int = 2,
                   min_between: int = 2, continuous: bool = False, alpha: float = 0.05, tests=TESTS,
                   min_years: int = 5, groups: pd.Series | None = None) -> pd.DataFrame:
    """Coincidence and parallelism tests of two units' (or fifths') trends: ``test, unit_a, unit_b,
    statistic, p_value, method`` then ``k_a, k_b, aapc_a, aapc_b, gap_apc, selection, ...``.
    ``DataFrame.attrs["notes"]`` says which years were left out and how the fifths were formed.
    ``groups`` (unit -> label) compares two labels of the caller's own grouping instead."""
    table, names, notes = _series_table(panel, a, b, outcome, years, level, rank_by, incomplete, groups)
    ok = table["events"].notna() & table["births"].notna() & (table["births"] > 0)
    years_a = set(table.loc[ok & (table["unit"] == a), "year"])
    years_b = set(table.loc[ok & (table["unit"] == b), "year"])
    common = sorted(years_a & years_b)
    left_out = sorted((years_a | years_b | set(table["year"])) - set(common))
    if left_out:
        notes.append(MSG("dropped", years=", ".join(str(int(y)) for y in left_out)))
    if len(common) < min_years:
        raise InputError(MSG("too_few", a=a, b=b, n=len(common), need=min_years), argument="compare")
    table = table[table["year"].isin(common) & ok]
    units, info, series = prepare_series(table, zero=zero, min_years=min_years, max_zero_share=1.0)
    if len(series) != 1 or len(series[0][1]) != 2:  # e.g. no death at all in one of them
        raise InputError(MSG("too_few", a=a, b=b, n=0, need=min_years), argument="compare")
    x, members, Y10, E = series[0]
    order = [list(units[members]).index(v) for v in (a, b)]
    Y = (Y10 * np.log(10.0))[order]
    W = E[order] if weights == "poisson" else None
    chosen, models, _, _ = fit_joinpoints(x, Y, W, max_joinpoints, min_end, min_between, selection, alpha,
                                          n_permutations, seed, continuous)
    _, aapc, _ = _segments_table(x, Y, W, chosen, models, alpha, None, rules=(min_end, min_between),
                                 continuous=continuous, aapc_ci="parametric")
    out = compare(x, Y[0], Y[1], int(chosen[0]), int(chosen[1]), None if W is None else W[0],
                  None if W is None else W[1], tests=tests, n_permutations=n_permutations, seed=seed,
                  min_end=min_end, min_between=min_between, continuous=continuous, unit_a=a, unit_b=b)
    ratio = Y[0] - Y[1]
    xc = x - x.mean()
    gap_slope = float(xc @ (ratio - ratio.mean()) / (xc @ xc))
    out["aapc_a"] = float(aapc["aapc"].iloc[0])
    out["aapc_b"] = float(aapc["aapc"].iloc[1])
    out["gap_apc"] = (np.exp(gap_slope) - 1) * 100
    out["first_year"], out["last_year"] = int(x[0]), int(x[-1])
    out["name_a"] = names.get(a, a if not FIFTH.match(a) else f"{a} {rank_by}")
    out["name_b"] = names.get(b, b if not FIFTH.match(b) else f"{b} {rank_by}")
    out["selection"] = selection
    out["outcome"] = outcome
    out.attrs["notes"] = list(getattr(panel, "notes", ()) or ()) + notes
    return out
