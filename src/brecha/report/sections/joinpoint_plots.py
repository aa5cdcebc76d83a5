"""Joinpoint figures of the trends section (``[analyses.trends] method = "joinpoint"``): the study area's
series with its segments, joinpoints and APCs, the regions as small multiples, and the units' AAPC table
(the columns of ``OUT.aapc.csv``)."""
from __future__ import annotations

from .. import figures_joinpoint as FJ
from ..data import short_region


def build(res, page) -> None:
    fits = res.joinpoint_fits
    if not fits:
        return
    L = page.L
    selection = str(fits["selection"]).upper()

    def fmt(v):
        return page.fmt(v, 1)

    national = fits.get("national")
    if national is not None:
        nat = res.national.set_index("year") if res.national is not None else None
        lower = upper = None
        if nat is not None and {"lower", "upper"} <= set(nat.columns):
            lower = nat["lower"].reindex(national["year"].astype(int)).to_numpy(float)
            upper = nat["upper"].reindex(national["year"].astype(int)).to_numpy(float)
        page.add_figure(FJ.joinpoint_chart("trends_joinpoint", national, ylabel=f"{L('imr_short')} "
                                           f"({L('per_1000')})", apc_label=L("jp_apc"), fmt=fmt, lower=lower,
                                           upper=upper, caption=L("cap_joinpoint_national", selection=selection)
                                           + page.caveat), "trends")
    regions = fits.get("regions") or {}
    if regions:
        labels = {code: short_region(name) for code, (name, _) in regions.items()}
        page.add_figure(FJ.joinpoint_multiples("trends_joinpoint_regions", {c: f for c, (_, f) in regions.items()},
                                               labels=labels, apc_label=L("jp_apc"), fmt=fmt,
                                               caption=L("cap_joinpoint_regions", selection=selection)
                                               + page.caveat), "trends")
    table = res.trends_table
    if table is not None and "row" in table.columns:
        rows = table[table["row"].isin(["aapc", "unit"])]
        aapc = rows.rename(columns={"apc": "aapc", "apc_lower": "aapc_lower", "apc_upper": "aapc_upper"})
        aapc = aapc.assign(start=aapc["start_year"].astype("Int64"), end=aapc["end_year"].astype("Int64"),
                           n_segments=aapc["n_joinpoints"] + 1)
        columns = ["unit", "outcome", "start", "end", "aapc", "aapc_lower", "aapc_upper", "ci_method", "n_segments"]
        extra = [c for c in ("name", "region", "p_value", "trend", "selection", "joinpoints") if c in aapc.columns]
        page.add_table("trends_aapc", aapc[columns + extra].reset_index(drop=True), L("t_aapc", unit=page.unit),
                       columns=columns)
