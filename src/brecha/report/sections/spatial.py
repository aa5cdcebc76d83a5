"""The spatial pattern of the units' rates over the period: Moran's I, the LISA cluster map, the BYM2 rate
map and the map of the probability of exceeding the overall rate, with the caveat that clusters describe and
do not explain (issue 15; computed by :mod:`brecha.report.analyses_spatial`)."""
from __future__ import annotations

import pandas as pd

from .. import figures as F
from ..blocks import Block
from ..calls import Unavailable
from ..formatting import localise
from ..map_canvas import unit_map_canvas

CLUSTER_COLOURS = {"high-high": "#b5332e", "low-low": "#2f6690", "high-low": "#e8a19c", "low-high": "#9cc0dd",
                   "not_significant": "#dddddd"}
PROB_COLOURS = (("sp_prob_low", "#2f6690"), ("sp_prob_mid", "#f1e3b8"), ("sp_prob_high", "#b5332e"))


def build(res, page) -> None:
    L, spatial = page.L, res.spatial
    if not spatial:
        raise Unavailable(L("failed", error="-"))
    glob, local, bym = spatial["global"], spatial["local"], spatial["bym2"]
    section = page.section("spatial")
    page.add_table("spatial_global", glob, L("t_spatial_global", period=res.period))
    page.add_table("spatial_local", local, L("t_spatial_local", period=res.period))
    row = glob[(glob["measure"] == "moran_rate") & (glob["method"] == "permutation")]
    row = row if len(row) else glob[glob["measure"] == "moran_rate"]
    if len(row):
        r = row.iloc[0]
        section.add(Block("text", text=L("sp_moran", period=res.period, value=page.fmt(r["estimate"], 3),
                                         expected=page.fmt(r["expected"], 3), p=page.fmt(r["p_value"], 3),
                                         units=page.units)))
    counts = local["cluster"].value_counts()
    found = [f"{L('sp_' + k)} {page.count(counts[k])}" for k in ("high-high", "low-low", "high-low", "low-high")
             if counts.get(k, 0)]
    section.add(Block("text", text=L("sp_clusters", counts=", ".join(found) if found else L("sp_none",
                                                                                            unit=page.unit))))
    if (local["cluster"] == "no_variation").any():
        section.add(Block("text", text=L("sp_no_variation_text", units=page.units, period=res.period)))
    everyone = local[local["cluster"] == "all_neighbours"]
    if len(everyone):
        names = ", ".join(f"{res.names.get(u, u)}" for u in everyone["unit"])
        section.add(Block("text", text=L("sp_all_neighbours_text", names=names, units=page.units)))
    isolated = local[~local["cluster"].isin([*CLUSTER_COLOURS, "no_variation", "all_neighbours"])]
    if len(isolated):
        names = [f"{res.names.get(u, u)} ({L('sp_' + c)})" for u, c in zip(isolated["unit"], isolated["cluster"])]
        section.add(Block("text", text=L("sp_isolated", names=", ".join(names))))
    section.add(Block("text", text=L("sp_caveat", units=page.units)))
    if bym is not None:
        page.add_table("spatial_bym2", bym, L("t_spatial_bym2", period=res.period))
        section.add(Block("text", text=L("sp_bym2", units=page.units, phi=page.fmt(bym["phi"].iloc[0], 2),
                                         sigma=page.fmt(bym["sigma"].iloc[0], 3))))
    _maps(res, page, local, bym, spatial["neighbours"])


def _maps(res, page, local, bym, neighbours) -> None:
    L = page.L
    try:
        canvas, inset_title, note = unit_map_canvas(res, page)
    except Unavailable:
        return  # the tables and sentences stand without a map
    colours = {u: CLUSTER_COLOURS.get(c, F.MISSING)
               for u, c in zip(local["unit"].astype(str).tolist(), local["cluster"].tolist())}
    untested = local["cluster"].isin(["all_neighbours", "no_variation"]).any()  # grey is more than islands then
    legend = [(CLUSTER_COLOURS[k], L("sp_" + k)) for k in CLUSTER_COLOURS] + [
        (F.MISSING, L("sp_no_statistic" if untested else "sp_island"))]
    page.add_figure(canvas.render("map_lisa", colours, legend, title=L("sp_map_lisa"), inset_title=inset_title,
                                  caption=L("sp_cap_lisa", period=res.period, neighbours=neighbours) + note), "spatial")
    if bym is None:
        return
    values = pd.Series(bym["estimate"].to_numpy(), index=bym["unit"].astype(str))
    edges, labels = F.quantile_classes(values)
    labels = [localise(x, page.lang) for x in labels]
    page.add_figure(canvas.render("map_bym2", F.sequential_colours(values, edges), F.legend_for(edges, labels),
                                  title=f"{L('sp_map_bym2')} {res.period}", legend_title=L("per_1000"),
                                  inset_title=inset_title, caption=L("sp_cap_bym2", period=res.period) + note), "spatial")
    prob = pd.Series(bym["prob_above"].to_numpy(), index=bym["unit"].astype(str))
    classes = pd.cut(prob, [-0.01, 0.2, 0.8, 1.01], right=False, labels=False)
    colours = {u: PROB_COLOURS[int(k)][1] for u, k in classes.dropna().items()}
    legend = [(colour, L(key)) for key, colour in PROB_COLOURS]
    page.add_figure(canvas.render("map_prob_above", colours, legend, title=L("sp_map_prob"), inset_title=inset_title,
                                  caption=L("sp_cap_prob", period=res.period, unit=page.unit) + note), "spatial")
