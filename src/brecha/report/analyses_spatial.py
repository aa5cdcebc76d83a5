"""The report's spatial computations (issue 15): Moran's I and LISA clusters of the pooled rates, BYM2 rates.
Tables and facts only, no labels (sections/spatial.py lays them out)."""
from __future__ import annotations

from .analyses import StudyResults, _lang
from .calls import _call, _function

DEFAULTS = {"neighbours": "queen", "permutations": 999, "seed": 12345, "bym2": True}


def spatial(res: StudyResults) -> None:
    """``res.spatial``: ``global`` (Moran's I table), ``local`` (LISA, clusters, Gi* per unit), ``bym2`` (the
    BYM2 table, or None when the study turns it off); all on the study period pooled."""
    opts = {**DEFAULTS, **(res.options("spatial", DEFAULTS) or {})}
    # the weights built once, for Moran/LISA and BYM2 alike (both take a Neighbours; issue 19: 0.3-0.5 s each)
    build = _function("spatial.neighbours", "neighbours", _lang())
    weights = _call(build, res.panel, opts["neighbours"])
    autocorrelation = _function("spatial.autocorrelation", "spatial_autocorrelation", _lang())
    glob, local = _call(autocorrelation, res.panel, outcome=res.outcome, years=res.years, pool=True,
                        neighbours=weights, permutations=opts["permutations"], seed=opts["seed"])
    table = None
    if opts["bym2"]:
        model = _function("spatial.bym2", "bym2", _lang())
        table = _call(model, res.panel, outcome=res.outcome, years=res.years, pool=True, neighbours=weights)
    res.spatial = {"global": glob, "local": local, "bym2": table, "neighbours": opts["neighbours"]}
