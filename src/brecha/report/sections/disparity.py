"""The gap against the study's reference: PAR and PAR% of the whole area per year (table and chart) and over
the period, and RR, AR and AR% of every unit over the period (the study's focus units first)."""
from __future__ import annotations

from .. import figures as F
from ..analyses import LARGE
from ..blocks import Block


def build(res, page) -> None:
    L = page.L
    opts = res.options("disparity")
    if res.reference is not None:
        if page.first:
            page.report.reference_label = res.reference[1]
        else:  # the best unit is chosen on this outcome's rates: say which it is
            page.section("disparity").add(Block("text", text=L("d_reference", ref=res.reference[1])))
    if res.disparity_year is not None:
        total = res.disparity_year
        page.add_table("disparity_total_year", total, L("t_disparity_total"), "disparity",
                       columns=["period", "measure", "estimate", "lower", "upper", "method"])
        if res.disparity_units_year is not None:
            page.add_table("disparity_units_year", res.disparity_units_year,
                           L("t_disparity_units", unit=page.unit, period=L("per_year")))
        else:
            page.exclude(L("ex_large_table", n=page.count(len(res.panel.unit_codes)), limit=page.count(LARGE)))
        chart = total[total["measure"].isin(["par_percent"])].assign(label=L("m_par_percent"))
        if len(chart):
            page.add_figure(F.line_chart("disparity_par_percent",
                                         chart[["label", "year", "estimate", "lower", "upper"]],
                                         ylabel=L("m_par_percent"), caption=L("cap_disparity")), "disparity")
    if res.disparity_pooled is None:
        return
    pooled = res.disparity_pooled
    page.add_table("disparity_total_pooled", pooled[pooled["unit"] == "TOTAL"],
                   L("t_disparity_total") + f", {res.period}", "disparity",
                   columns=["period", "measure", "estimate", "lower", "upper", "method"])
    if res.focus is not None:
        columns = ["unit", "name", "events", "births", "rate", "rr", "rr_lower", "rr_upper", "ar", "ar_lower",
                   "ar_upper", "ar_pct", "ar_pct_lower", "ar_pct_upper"]
        column_labels = {}
        cov = opts.get("focus_covariate") or ""
        if res.focus_column is not None:
            column, name, year = res.focus_column
            columns.insert(2, column)
            column_labels[column] = f"{page.cov_label(name)} {year}"
        elif cov and cov not in res.panel.covariates:
            page.exclude(L("ex_covariate", name=page.cov_code(cov), reason=L("missing")))
        page.add_table("disparity_focus", res.focus, L("t_focus", units=page.units), "disparity", columns=columns,
                       column_labels=column_labels)
    page.add_table("disparity_units_pooled", res.disparity_wide,
                   L("t_disparity_units", unit=page.unit, period=res.period), "disparity")
