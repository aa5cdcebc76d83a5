"""The report's sections: one module each, a function from the study's results to blocks.

The contract every section module keeps:

- ``build(results, page) -> None``: ``results`` is a :class:`brecha.report.analyses.StudyResults` (the
  tables and facts the analyses computed; a section computes nothing), ``page`` a
  :class:`brecha.report.page.Page` (the report being assembled). The function registers its tables
  (``page.add_table``: a CSV file and an Excel sheet, and a table block when it names a section) and its
  figures (``page.add_figure``), and adds text, list and heading :class:`~brecha.report.blocks.Block` s to
  ``page.section(key)``. Every word comes from :mod:`brecha.report.labels` (``page.L(key, ...)``); numbers
  in sentences go through ``page.fmt`` / ``page.count`` (the report's language).
- It may raise :class:`brecha.report.calls.Unavailable` (or any error): the runner then shows "Not
  available: <reason>" in the section, lists the reason among the exclusions, and the report goes on.
- The assembly sections (``other_outcomes``, ``methods``) return a :class:`~brecha.report.blocks.Section`.

:data:`STEPS` is the registry: each step runs an analysis (``compute``, from :mod:`brecha.report.analyses`),
then its section's ``build``, when the study asks for it, in this order. A step whose analysis needs only
the Panel names the results it sets (``ahead``): it can then be computed in a forked child from the start, when
a core is idle (:mod:`brecha.report.ahead`; ``long``: one of the long analyses, which always get a child). A new section is a new module
here plus one line in :data:`STEPS` (its key in :data:`ORDER`, its title ``s_<key>`` in the labels).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from .. import analyses as A
from . import covariate, disparity, distribution, funnel, headline, inequality, maps, models, rates, trends
from .. import analyses_gap_where as AG
from . import gap_where
from .. import analyses_joinpoint as AJ
from . import gap_test, joinpoint_plots
from .. import analyses_spatial as AS
from . import spatial


@dataclass(frozen=True)
class Step:
    key: str  # names the step (progress, timings)
    section: str  # the section its blocks, or its "not available", go to
    build: Callable  # section function: build(results, page)
    compute: Callable | None = None  # analysis: compute(results), before build
    wants: tuple = ()  # runs when the study asks for one of these analyses (empty: always)
    phase: str = "analysis"  # "analysis"; "figures" (after every analysis); "finish" (after those, unguarded)
    when: Callable | None = None  # runs only when when(results) is true (an earlier step's result is there)
    ahead: tuple = ()  # the results its compute sets, when it needs only the Panel: computed ahead (ahead.py)
    long: bool = False  # ahead, a long analysis: always given a child of its own (ahead.py)

    def wanted(self, study) -> bool:
        return not self.wants or any(study.wants(name) for name in self.wants)


STEPS = [
    Step("rates", "rates", rates.build, A.rates),
    Step("smoothing", "maps", maps.smoothed, A.smoothing, wants=("smoothing", "maps"),
         ahead=("smoothed", "smoothed_ci", "smooth_method", "smoothed_table")),
    Step("disparity", "disparity", disparity.build, A.disparity, wants=("disparity",),
         ahead=("reference", "disparity_year", "disparity_units_year", "disparity_pooled", "disparity_wide", "focus",
                "focus_column")),
    Step("trends", "trends", trends.build, A.trends, wants=("trends",),
         ahead=("trend_classes", "national_trend", "trends_table", "_national_events")),
    Step("distribution", "distribution", distribution.build, A.distribution, wants=("distribution",)),
    Step("inequality", "inequality", inequality.build, A.inequality, wants=("inequality",)),
    Step("covariate", "covariate", covariate.build, A.covariate_inequality, wants=("covariate_inequality",)),
    Step("funnel", "funnel", funnel.build, A.funnel, wants=("funnel",), ahead=("funnel_table",)),
    Step("models", "models", models.build, A.models, wants=("models",), ahead=("models", "models_covariates")),
    Step("gap_where", "gap_where", gap_where.build, AG.gap_where, wants=("decompose",), ahead=("gap_where",),
         long=True),
    Step("spatial", "spatial", spatial.build, AS.spatial, wants=("spatial",), ahead=("spatial",), long=True),
    Step("headline", "rates", headline.build, phase="figures"),
    Step("headline", "rates", headline.gap, A.gap, phase="figures", when=lambda res: res.national is not None),
    Step("gap_test", "trends", gap_test.build, AJ.gap_test, phase="figures", when=lambda res: res.gap is not None),
    Step("joinpoint_plots", "trends", joinpoint_plots.build, AJ.joinpoint_fits, wants=("trends",), phase="figures",
         when=lambda res: (res.study.analyses.get("trends") or {}).get("method") == "joinpoint"),
    Step("maps", "maps", maps.build, wants=("maps",), phase="figures"),
    Step("excess", "disparity", gap_where.excess_headline, wants=("disparity",), phase="figures"),
    Step("smoothed_table", "maps", maps.smoothed_table, phase="finish"),
]

# the sections of the first outcome in the order the page shows them; then one section per further outcome
# (other_outcomes), the data (data) and the methods (methods)
ORDER = ("rates", "disparity", "trends", "maps", "spatial", "funnel", "distribution", "inequality", "gap_where",
         "covariate", "models")

# the steps run again for each further outcome of the study (neonatal, post-neonatal)
FURTHER_OUTCOME = ("rates", "disparity", "trends")
