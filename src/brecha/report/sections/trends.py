"""Trends: the study area's annual percent change in one sentence, the regions' rates per year against the
whole area (small multiples), how many units fall in each trend class, and every unit's APC."""
from __future__ import annotations

import pandas as pd

from ..figures_multiples import small_multiples
from ..blocks import Block
from ..data import short_region
from ..labels import TREND_KEYS, trend_codes, trend_word


def build(res, page) -> None:
    L = page.L
    national = res.national_trend
    counts = res.trend_classes.value_counts()
    order = [k for k in TREND_KEYS if k in counts.index]
    classes = pd.DataFrame({"code": order, "trend": [trend_word(k, page.lang) for k in order],
                            "n": [int(counts[k]) for k in order]})
    row = national.iloc[0] if len(national) else None
    if row is not None and pd.notna(row.get("apc")):
        page.section("trends").add(Block("text", text=L(
            "cap_trend_national", apc=page.fmt(row["apc"], 2), lo=page.fmt(row["apc_lower"], 2),
            hi=page.fmt(row["apc_upper"], 2), trend=trend_word(trend_codes(national).iloc[0], page.lang))))
    if res.regions_year is not None and res.national is not None:
        reg = res.regions_year.dropna(subset=["estimate"])
        names = dict(zip(reg["unit"].astype(str), reg.get("name", reg["unit"]).astype(str)))
        short = {u: short_region(n) for u, n in names.items()}
        chart = reg.assign(measure=reg["unit"].astype(str))
        page.add_figure(small_multiples("trends_regions", chart, labels=short, ncols=4, sharey=True,
                                        reference=res.national[["year", "estimate"]],
                                        caption=L("cap_regions") + page.caveat), "trends")
    page.add_table("trends_national", national, L("t_trends", unit=L("country_total")))
    page.add_table("trend_classes", classes, L("t_trend_classes", units=page.units.capitalize()), "trends",
                   columns=["trend", "n"])
    page.add_table("trends_units", res.trends_table, L("t_trends", unit=page.unit), "trends",
                   columns=["unit", "name", "region", "row", "start_year", "end_year", "n_years", "apc", "apc_lower",
                            "apc_upper", "p_value", "rho", "trend", "note"])
