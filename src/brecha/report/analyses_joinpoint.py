"""The report's joinpoint computations (issue 13): the formal "is the gap closing?" test, and the joinpoint
fits drawn in the trends section. Tables and facts only, no labels (sections/gap_test.py and
sections/joinpoint_plots.py lay them out)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from .analyses import StudyResults, _lang, national_events
from .calls import Unavailable, _module


def rank_covariate(res: StudyResults) -> str:
    """The study's rank covariate: ``[analyses.inequality] rank_by``, else ``[analyses.decompose] rank_by``,
    when the panel has it; '' otherwise."""
    covariates = set(getattr(res.panel, "covariates", []) or [])
    for analysis in ("inequality", "decompose"):
        name = (res.study.analyses.get(analysis) or {}).get("rank_by") or ""
        if name and name in covariates:
            return name
    return ""


def _selection(res: StudyResults) -> str:
    return (res.study.analyses.get("trends") or {}).get("selection") or "wbic"


def gap_test(res: StudyResults) -> None:
    """Comparability tests (parallelism, coincidence; :mod:`brecha.trends.comparability`) of the two extreme
    fifths of births: ranked by the study's rank covariate (q1 lowest vs q5 highest), or, without one, the
    headline's fifths by rate (lowest vs highest). ``res.gap_test``: the tests' table, ``attrs`` holding
    ``grouping`` ('covariate' or 'rate') and ``rank_by``."""
    try:  # without brecha.trends the trends section already says why; the headline keeps its APC
        _module("trends", _lang())
    except Unavailable:
        return
    from ..trends.compare_panel import compare_trends

    rank_by = rank_covariate(res)
    opts = dict(outcome=res.outcome, years=res.years, selection=_selection(res), n_permutations=4499, seed=2024)
    if rank_by:
        table = compare_trends(res.panel, "q1", "q5", rank_by=rank_by, **opts)
    elif res.gap is not None and "groups" in res.gap:
        table = compare_trends(res.panel, "low", "high", groups=res.gap["groups"], **opts)
    else:
        return
    table.attrs.update(grouping="covariate" if rank_by else "rate", rank_by=rank_by)
    res.notes.extend(n for n in table.attrs.get("notes", [])[len(getattr(res.panel, "notes", ()) or ()):])
    res.gap_test = table


def _fit(years, events, births, selection):
    """Joinpoint of one series (0.5 deaths in a year without deaths, as the trends' add-half rule)."""
    from ..trends import joinpoint

    ok = np.isfinite(events) & np.isfinite(births) & (births > 0)
    x, e, b = years[ok], np.where(events[ok] == 0, 0.5, events[ok]), births[ok]
    if len(x) < 5 or e.sum() <= 0:
        return None
    fit = joinpoint(x, counts=e, births=b, selection=selection)
    return {"year": x, "rate": 1000 * events[ok] / b, "fitted": fit.fitted, "segments": fit.segments,
            "joinpoints": fit.joinpoints[0], "aapc": fit.aapc.iloc[0]}


def joinpoint_fits(res: StudyResults) -> None:
    """With ``[analyses.trends] method = "joinpoint"``: the fit of the study area's series and of each
    region's (``res.joinpoint_fits = {"national": fit, "regions": {code: (name, fit)}}``)."""
    _module("trends", _lang())  # Unavailable without brecha.trends
    selection = _selection(res)
    ev = national_events(res)
    fits = {"national": _fit(ev["year"].to_numpy(float), pd.to_numeric(ev["events"]).to_numpy(float),
                             pd.to_numeric(ev["births"]).to_numpy(float), selection),
            "regions": {}, "selection": selection}
    units = res.panel.units
    if units is not None and "region" in units and 1 < units["region"].nunique() <= 30:
        reg = res.panel.events(res.outcome, years=res.years, level="region")
        names = dict(zip(units["region"].astype(str).tolist(),
                         units.get("region_name", units["region"]).astype(str).tolist()))
        for code, g in reg.groupby("unit", sort=True):
            g = g.sort_values("year")
            fit = _fit(g["year"].to_numpy(float), pd.to_numeric(g["events"]).to_numpy(float, na_value=np.nan),
                       pd.to_numeric(g["births"]).to_numpy(float, na_value=np.nan), selection)
            if fit is not None:
                fits["regions"][str(code)] = (names.get(str(code), str(code)), fit)
    res.joinpoint_fits = fits
