""""Where is the gap?": the between/within shares of inequality per year (a stacked chart and the table),
each group's contribution over the period, the determinants' contributions to the concentration index (a
bar chart with CIs), and the excess deaths against the reference; plus the excess deaths' first-screen card
(:func:`excess_headline`)."""
from __future__ import annotations

import pandas as pd

from .. import figures_gap_where as F
from ..analyses_gap_where import excess
from ..blocks import Block
from ..calls import Unavailable

SECTION = "gap_where"


def build(res, page) -> None:
    L, fmt = page.L, page.fmt
    gw = getattr(res, "gap_where", None)
    if gw is None:
        raise Unavailable(L("module_missing", module="brecha.inequality.decompose_table"))
    by = page.cov_label(gw["by"]) if gw["by"] not in ("region", "province") else gw["by"]
    page.text(SECTION, L("gw_intro", units=page.units, by=by))
    year, pooled = gw["by_year"], gw["pooled"]
    components = year[year["component"] != "group"]
    page.add_table("gap_where_year", components.drop(columns=["year"]), L("t_gw_year", by=by), SECTION,
                   columns=["period", "measure", "component", "estimate", "lower", "upper", "share"])
    theil = components[components["measure"] == "theil"]
    if len(theil):
        wide = theil.pivot_table(index="year", columns="component", values="share").reset_index()
        if {"between", "within"} <= set(wide.columns):
            page.add_figure(F.stacked_shares("gap_where_shares", wide, ylabel=L("gw_share_ylabel"),
                                             labels={"between": L("gw_between"), "within": L("gw_within")},
                                             caption=L("cap_gw_shares", rate=L(f"rate_{res.outcome}").lower(),
                                                       units=page.units, by=by) + page.caveat), SECTION)
    total = pooled[(pooled["measure"] == "theil") & (pooled["component"] != "group")].set_index("component")
    if len(total) and pd.notna(total.loc["total", "estimate"]):
        text = L("gw_summary", period=res.period, within=fmt(100 * total.loc["within", "share"], 0),
                 between=fmt(100 * total.loc["between", "share"], 0), total=fmt(total.loc["total", "estimate"], 3))
        if pd.notna(total.loc["between", "lower"]):
            text += L("gw_summary_ci", lo=fmt(total.loc["between", "lower"], 4),
                      hi=fmt(total.loc["between", "upper"], 4))
        page.text(SECTION, text)
    groups = pooled[pooled["component"] == "group"]
    if len(groups):
        page.add_table("gap_where_groups", groups, L("t_gw_groups", period=res.period), SECTION,
                       columns=["measure", "group", "estimate", "lower", "upper", "share", "group_index",
                                "group_rate", "group_births_share"])
    _determinants(res, page, gw.get("determinants"))
    _excess_section(res, page)


def _determinants(res, page, table) -> None:
    if table is None or not len(table):
        return
    L, fmt = page.L, page.fmt
    period = str(table["period"].iloc[0])
    rows = table.set_index("term")
    rank = page.cov_label(str(table["rank_by"].iloc[0]))
    page.text(SECTION, L("gw_det_text", rate=L(f"rate_{res.outcome}").lower(), rank=rank,
                         c=fmt(rows.loc["total", "contribution"], 3), period=period, units=page.units))
    excluded = int(table["n_excluded"].iloc[0]) if pd.notna(table["n_excluded"].iloc[0]) else 0
    if excluded:
        page.text(SECTION, L("gw_excluded", n=page.count(excluded), units=page.units))
    bars = table[table["term"] != "total"].copy()
    bars["label"] = [L("gw_residual") if t == "residual" else page.cov_label(t) for t in bars["term"]]
    page.add_figure(F.contributions_chart("gap_where_determinants", bars, xlabel=L("gw_contribution"),
                                          caption=L("cap_gw_determinants", period=period)), SECTION)
    if table["lower"].isna().all():
        page.text(SECTION, L("gw_no_ci"))
    page.add_table("gap_where_determinants", table, L("t_gw_determinants", period=period), SECTION,
                   columns=["term", "coefficient", "mean", "elasticity", "concentration_index", "contribution",
                            "percent", "lower", "upper"])


def _excess_section(res, page) -> None:
    L = page.L
    ex = excess(res)
    if ex is None:
        page.exclude(L("ex_gw_excess"))
        return
    t = ex["total"]
    page.section(SECTION).add(Block("heading", title=L("gw_excess_title")))
    page.text(SECTION, L("gw_excess_text", ref=page.report.reference_label or str(t.get("reference", "")),
                         period=res.period, total=page.count(round(t["estimate"])), lo=page.count(round(t["lower"])),
                         hi=page.count(round(t["upper"])), n=page.count(round(t["estimate"] / ex["years"])),
                         unit=page.unit))
    if ex["per_year"] is not None and len(ex["per_year"]):
        page.add_table("gap_where_excess_year", ex["per_year"], L("t_gw_excess_year"), SECTION,
                       columns=["period", "estimate", "lower", "upper", "events", "births", "rate", "reference_rate"])
    page.add_table("gap_where_excess_units", ex["units"], L("t_gw_excess_units", unit=page.unit, period=res.period),
                   SECTION, columns=["unit", "name", "estimate", "lower", "upper", "events", "births", "rate"],
                   max_rows=30)


def excess_headline(res, page) -> None:
    """The first screen's card: "N infant deaths a year would not have happened at the reference's rate"
    (the pooled excess deaths over the study's years, as a yearly mean, with its interval)."""
    if not page.first:
        return
    ex = excess(res)
    if ex is None:
        return
    L, t, years = page.L, ex["total"], ex["years"]
    per_year = [round(float(t[k]) / years) for k in ("estimate", "lower", "upper")]
    ref = f"{page.fmt(float(t['reference_rate']), 1)} {L('per_1000')}"
    more = per_year[0] < 0  # the reference's rate is above the area's: no death is avoided at it
    page.report.headline["excess"] = {
        "title": L("h_excess_more" if more else "h_excess"),
        "value": "+" + page.count(-per_year[0]) if more else page.count(per_year[0]),
        "detail": " " + L("h_excess_more_value" if more else "h_excess_value"),
        "text": L("h_excess_text", n=page.count(per_year[0]), ref=ref, lo=page.count(per_year[1]),
                  hi=page.count(per_year[2]), total=page.count(round(float(t["estimate"]))), period=res.period)
        if per_year[0] >= 0 else  # a reference above the area's rate avoids no death: said so, not "-3 avoided"
        L("h_excess_text_none", n=page.count(-per_year[0]), ref=ref, lo=page.count(per_year[1]),
          hi=page.count(per_year[2]), total=page.count(round(float(t["estimate"]))), period=res.period),
        "estimate": float(t["estimate"]) / years, "lower": float(t["lower"]) / years,
        "upper": float(t["upper"]) / years,
    }
