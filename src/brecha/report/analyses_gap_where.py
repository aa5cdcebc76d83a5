"""The analyses of the report's "Where is the gap?" section (computing only, no labels): the between/within
decomposition of the units' rates by the study's grouping per year and over the period
(:func:`brecha.inequality.decompose_table.decompose`), and the concentration index decomposed by the study's
determinants over the study's years for them (:func:`brecha.inequality.ci_decompose.ci_decompose`).

The excess deaths come from the disparity step (``measure = "excess_deaths"`` of
:func:`brecha.disparity.disparity`); :func:`excess` picks them out of its tables.
"""
from __future__ import annotations

import pandas as pd

from ..panel import parse_years
from .calls import Unavailable, _call, _function
from .labels import L


def _lang() -> str:
    from ..i18n import get_language

    return get_language()


def gap_where(res) -> None:
    """``res.gap_where``: ``by_year``, ``pooled`` (the decomposition tables), ``determinants`` (or None) and
    the options used."""
    opts = res.options("decompose")
    fn = _function("inequality.decompose_table", "decompose", _lang())
    measures = opts["measures"] or ["theil", "gini"]
    kw = dict(by=opts["by"], measures=measures, outcome=res.outcome, bootstrap=opts["bootstrap"], seed=opts["seed"])
    by_year = _call(fn, res.panel, years=res.years, pool=False, **kw)
    by_year = by_year.assign(year=pd.to_numeric(by_year["period"], errors="coerce"))
    pooled = _call(fn, res.panel, years=res.years, pool=True, **kw)
    determinants = None
    if opts["rank_by"] and opts["determinants"]:
        ci = _function("inequality.ci_decompose", "ci_decompose", _lang())
        years = parse_years(opts["years"]) if opts["years"] else res.years
        years = [y for y in years if y in set(res.years)]
        if not years:
            raise Unavailable(L("gw_no_years", _lang(), years=opts["years"]))
        determinants = _call(ci, res.panel, opts["rank_by"], opts["determinants"], outcome=res.outcome,
                             years=years, pool=True, bootstrap=opts["bootstrap"], seed=opts["seed"])
    res.gap_where = {"by_year": by_year, "pooled": pooled, "determinants": determinants, "measures": measures,
                     "by": opts["by"]}


def excess(res) -> dict | None:
    """The excess deaths of the disparity step: ``total`` (the pooled TOTAL row), ``per_year`` (the TOTAL
    rows per year, when computed), ``units`` (the units' pooled rows, largest first); None without them."""
    pooled = res.disparity_pooled
    if pooled is None or "measure" not in pooled:
        return None
    rows = pooled[pooled["measure"].astype(str) == "excess_deaths"]
    total = rows[rows["unit"].astype(str) == "TOTAL"]
    if not len(total):
        return None
    units = rows[rows["unit"].astype(str) != "TOTAL"].sort_values("estimate", ascending=False, kind="stable")
    per_year = None
    if res.disparity_year is not None:
        y = res.disparity_year
        per_year = y[y["measure"].astype(str) == "excess_deaths"]
    return {"total": total.iloc[0], "units": units, "per_year": per_year, "years": len(res.years)}
