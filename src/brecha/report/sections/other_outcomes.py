"""A further outcome of the study (DEIS microdata carry neonatal and post-neonatal deaths): its rates, gap
and trends (the steps of :data:`brecha.report.sections.FURTHER_OUTCOME`, run on that outcome's page) in one
section whose tables and figures carry the outcome in their names (``rates_national_neonatal``), and one
line on the first screen: its last rate, the first year's, and the class of its national trend."""
from __future__ import annotations

import pandas as pd

from ..blocks import Block, Section
from ..labels import trend_codes, trend_word

PARTS = ("rates", "disparity", "trends")  # the sections of the outcome's page, in this order


def build(res, page) -> Section:
    """The outcome's section, from the sections its page collected; adds its line to the first screen."""
    L = page.L
    section = Section(f"outcome_{res.outcome}", L("s_outcome", outcome=L(f"outcome_{res.outcome}")))
    for key in PARTS:
        if key in page.sections:
            section.add(Block("heading", title=page.sections[key].title, outcome=res.outcome))
            for block in page.sections[key].blocks:
                block.outcome = res.outcome
                section.add(block)
    _headline(res, page, section)
    return section


def _headline(res, page, section: Section) -> None:
    if res.national is None:
        return
    nat = res.national.dropna(subset=["estimate"]).sort_values("year")
    if not len(nat):
        return
    L, fmt = page.L, page.fmt
    first, last = nat.iloc[0], nat.iloc[-1]
    fields = dict(rate=L(f"rate_{res.outcome}"), last=fmt(last["estimate"], 1), y1=int(last["year"]),
                  first=fmt(first["estimate"], 1), y0=int(first["year"]), section=section.title)
    trend = res.national_trend
    if trend is not None and len(trend) and all(pd.notna(trend.iloc[0].get(c)) for c in ("apc", "apc_lower",
                                                                                            "apc_upper")):
        row = trend.iloc[0]
        fields.update(trend=trend_word(trend_codes(trend).iloc[0], page.lang), apc=fmt(row["apc"], 1),
                      lo=fmt(row["apc_lower"], 1), hi=fmt(row["apc_upper"], 1))
        text = L("h_other_text", **fields)
    else:
        text = L("h_other_text_notrend", **fields)
    page.report.headline.setdefault("others", []).append(
        {"outcome": res.outcome, "section": section.key, "text": text, "value": float(last["estimate"]),
         "year": int(last["year"])})
