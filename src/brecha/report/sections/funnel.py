"""The funnel plot of the units' rates over the period against their births, and the units above its
limits."""
from __future__ import annotations

from .. import figures as F
from ..analyses import normalise_funnel
from ..labels import cell_label


def build(res, page) -> None:
    L = page.L
    table = res.funnel_table
    page.add_table("funnel", table, L("t_funnel"))
    t = normalise_funnel(table)
    method = str(table["method"].iloc[0]) if "method" in table and len(table) else "Poisson"
    page.add_figure(F.funnel_plot("funnel", t, xlabel=L("c_births"), ylabel=f"{L('imr_short')} ({L('per_1000')})",
                                  caption=L("cap_funnel", period=res.period,
                                            method=cell_label("method", method, page.lang), units=page.units)),
                    "funnel")
    if "flag" in t:
        flagged = t[t["flag"].isin(["high", "above", "upper"])]
        cols = [c for c in ("unit", "name", "births", "estimate", "flag") if c in flagged]
        page.add_table("funnel_flagged", flagged[cols].sort_values("estimate", ascending=False), L("t_funnel"),
                       "funnel")
