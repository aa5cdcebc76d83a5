"""Inequality between the units: the WHO summary measures per year (chart and table) and over the period,
measured against the study's reference; then, when the study ranks the units by a covariate, the ordered
measures (SII, RII, concentration index ...) between groups of equal births."""
from __future__ import annotations

import pandas as pd

from ..figures_multiples import small_multiples
from ..blocks import Block
from ..data import _span_text
from .measures import ORDERED_MEASURES, UNIT_MEASURES, measure_labels, wide_by_year


def build(res, page) -> None:
    L, lang = page.L, page.lang
    per_year, pooled = res.inequality_year, res.inequality_pooled
    if res.reference is not None and page.first and not page.report.reference_label:
        page.report.reference_label = res.reference[1]
    if res.inequality_reference == "study":
        ref_note = L("ineq_reference_note", ref=res.reference[1], section=L("s_disparity"), unit=page.unit,
                     units=page.units)
    elif res.inequality_reference == "fallback":
        ref_note = L("ineq_reference_fallback", ref=page.report.reference_label or "-", reason=res.inequality_fallback,
                     unit=page.unit)
    else:
        ref_note = ""
    present = set(per_year["measure"].tolist())
    show = [m for m in UNIT_MEASURES
            if m in present and per_year.loc[per_year["measure"] == m, "estimate"].notna().any()]
    method = "; ".join(f"{m}: {t}" for m, t in per_year.drop_duplicates("measure").set_index("measure")
                       .get("method", pd.Series(dtype=str)).items() if m in show)
    if show:
        page.add_figure(small_multiples("inequality", per_year[per_year["measure"].isin(show)],
                                        caption=L("cap_inequality", method=method or "-"),
                                        labels=measure_labels(per_year, lang)), "inequality")
    page.section("inequality").add(Block("text", text=L("ineq_units_note", units=page.units)))
    page.add_table("inequality_year_wide", wide_by_year(per_year, lang), L("t_inequality"), "inequality")
    page.add_table("inequality_year", per_year, L("t_inequality"))
    page.add_table("inequality_pooled", pooled, L("t_inequality_pooled") + f", {res.period}", "inequality",
                   columns=[c for c in ("measure", "label", "estimate", "lower", "upper", "se") if c in pooled.columns])
    if ref_note:
        page.section("inequality").add(Block("text", text=ref_note))
    opts = res.options("inequality")
    rank_by = opts["rank_by"]
    if rank_by and rank_by not in res.panel.covariates:
        page.exclude(L("ex_covariate", name=page.cov_code(rank_by), reason=L("missing")))
    if res.ordered is None:
        return
    ordered, label = res.ordered, page.cov_label(rank_by)
    missing = res.ordered_missing_years
    page.section("inequality").add(Block("text", title=L("ineq_ordered_title", covariate=label),
                                         text=L("ineq_rank_note", covariate=label, groups=opts["groups"],
                                                fill=res.study.fill,
                                                missing=_span_text(missing) if missing else L("none"))))
    present = set(ordered["measure"].tolist())
    show = [m for m in ORDERED_MEASURES if m in present]
    if show:
        page.add_figure(small_multiples("inequality_ordered", ordered[ordered["measure"].isin(show)],
                                        caption=L("cap_inequality_ordered", covariate=label, groups=opts["groups"]),
                                        labels=measure_labels(ordered, lang)), "inequality")
    page.add_table("inequality_ordered_wide", wide_by_year(ordered, lang), L("ineq_ordered_title", covariate=label),
                   "inequality")
    page.add_table("inequality_ordered_year", ordered, L("ineq_ordered_title", covariate=label))
