"""Inequality of a covariate between the units per year (health spending by default), and its co-movement
with the inequality of the rates (correlation of the two yearly series, and their Gini indices plotted)."""
from __future__ import annotations

import pandas as pd

from .. import figures as F
from ..figures_multiples import small_multiples
from ..blocks import Block
from .measures import SHORT_MEASURES, measure_labels, wide_by_year


def build(res, page) -> None:
    L, lang = page.L, page.lang
    cov = res.options("covariate_inequality")["covariate"]
    label = page.cov_label(cov)
    if cov not in ("health_spending_pc", "health_spending_per_capita"):  # the default title names them
        page.section("covariate").title = L("s_covariate_of", covariate=label)
    table = res.covariate_table
    page.add_table("covariate_inequality", table, L("t_covariate", covariate=label))
    page.add_table("covariate_inequality_wide", wide_by_year(table, lang), L("t_covariate", covariate=label),
                   "covariate")
    table = res.covariate_year
    present = set(table["measure"].tolist())
    show = [m for m in ("gini", "ti", "cov", "ratio_p90p10") if m in present][:4]
    if show:
        page.add_figure(small_multiples("covariate_inequality", table[table["measure"].isin(show)],
                                        caption=L("t_covariate", covariate=label),
                                        labels=measure_labels(table, lang)), "covariate")
    comove = res.comovement
    if comove is None:
        return
    first = comove[(comove["method"].astype(str) == "pearson")] if "method" in comove else comove
    if len(first):
        r0 = first.iloc[0]
        measure = (L(f"mshort_{r0['measure_a']}") if str(r0.get("measure_a")) in SHORT_MEASURES
                   else str(r0.get("measure_a")))
        page.section("covariate").add(Block("text", text=L(
            "comovement_text", measure=measure, covariate=label, r=page.fmt(r0["estimate"], 2),
            lo=page.fmt(r0["lower"], 2), hi=page.fmt(r0["upper"], 2),
            n=int(r0["n_years"]) if "n_years" in r0 and pd.notna(r0["n_years"]) else "-")))
    page.add_table("comovement", comove, L("t_comovement"), "covariate",
                   columns=[c for c in ("measure_a", "method", "estimate", "lower", "upper", "p_value", "n_years",
                                        "conf_level", "ci_method", "periods") if c in comove.columns] or None,
                   column_labels={"measure_a": L("c_measure")})
    both = res.comovement_gini
    if both is not None and len(both) >= 3:
        page.add_figure(F.scatter_chart(
            "comovement", both["x"].to_numpy(float), both["y"].to_numpy(float),
            xlabel=L("gini_of", covariate=label), ylabel=L("gini_of", covariate=L("imr_short")),
            labels=both.index.tolist(), caption=L("cap_comovement", covariate=label)), "covariate")
