"""Maps of the units' rates over the period (observed, empirically-Bayes smoothed) and of their trend
classes, with the Santiago region as an inset on Chile's maps; and the smoothed rates' table."""
from __future__ import annotations

from .. import figures as F
from ..blocks import Block
from ..calls import Unavailable
from ..labels import TREND_KEYS, cell_label, trend_word
from ..formatting import localise


def smoothed(res, page) -> None:
    """The smoothing step: its table goes to the CSV and Excel files now, and into the maps section at the
    end (:func:`smoothed_table`), below the maps."""
    page.add_table("smoothed", res.smoothed_table, page.L("t_smoothed", period=res.period))


def smoothed_table(res, page) -> None:
    report = page.report
    if "smoothed" in report.tables and res.study.wants("smoothing"):
        table, title = report.tables["smoothed"]
        cols = [c for c in ("unit", "name", "events", "births", "raw_rate", "estimate", "smoothed", "lower", "upper",
                            "shrinkage") if c in table.columns]
        page.section("maps").add(Block("table", title=title, table="smoothed", columns=cols))


def build(res, page) -> None:
    L, lang, panel = page.L, page.lang, res.panel
    reg = getattr(panel, "registry", None)
    geo = reg.polygons() if reg is not None and hasattr(reg, "polygons") else None
    if not geo:
        raise Unavailable(L("ex_no_polygons", country=panel.country or "-"))
    inset = []
    if panel.country == "CL" and panel.units is not None:
        inset = panel.units.loc[panel.units["region"].astype(str) == "13", "unit"].astype(str).tolist()
    canvas = F.MapCanvas(geo, panel.unit_codes, inset_region_units=inset,
                         offshore=F.CHILE_OFFSHORE if panel.country == "CL" else ())
    if canvas.fig is None:
        raise Unavailable(L("ex_no_polygons", country=panel.country or "-"))
    offshore = ""
    if canvas.offshore:
        names = res.names
        offshore = L("cap_map_offshore", names=", ".join(names.get(u, u) for u in canvas.offshore))
    inset_title = L("map_inset_CL") if inset else ""
    per1000 = L("per_1000")
    opts = res.options("maps", {"smoothed": True, "trend": True})
    pooled = res.pooled.set_index("unit")
    raw = pooled["estimate"].astype(float).where(pooled["births"].astype(float) > 0)
    values_for_classes = res.smoothed if res.smoothed is not None else raw
    edges, labels = F.quantile_classes(values_for_classes)
    labels = [localise(x, lang) for x in labels]
    missing = (F.MISSING, L("missing"))
    raw_edges, raw_labels = F.quantile_classes(raw)
    raw_labels = [localise(x, lang) for x in raw_labels]
    fig = canvas.render("map_rate", F.sequential_colours(raw, raw_edges), F.legend_for(raw_edges, raw_labels) + [missing],
                        title=f"{L('imr')} {res.period}", legend_title=per1000, inset_title=inset_title,
                        caption=L("cap_map_rate", period=res.period, unit=page.unit) + offshore)
    page.add_figure(fig, "maps")
    page.report.headline["map"] = fig
    if res.smoothed is not None and opts.get("smoothed", True):
        fig = canvas.render("map_smoothed", F.sequential_colours(res.smoothed, edges),
                            F.legend_for(edges, labels) + [missing],
                            title=f"{L('c_smoothed')} {res.period}", legend_title=per1000, inset_title=inset_title,
                            caption=L("cap_map_smooth", period=res.period,
                                      method=cell_label("method", res.smooth_method, lang)) + offshore)
        page.add_figure(fig, "maps")
        page.report.headline["map"] = fig
    if res.trend_classes is not None and opts.get("trend", True):
        colours = {u: F.TREND_COLOURS.get(c, F.MISSING) for u, c in res.trend_classes.items()}
        legend = [(F.TREND_COLOURS[k], trend_word(k, lang)) for k in TREND_KEYS]
        trends = res.study.analyses.get("trends", {})
        fig = canvas.render("map_trend", colours, legend, title=f"{L('c_trend')} {res.period}", inset_title=inset_title,
                            caption=L("cap_map_trend", period=res.period, alpha=page.fmt(trends.get("alpha", 0.05), 2),
                                      unit=page.units, method=cell_label("method", trends.get("method", "prais-winsten"),
                                                                         lang)) + offshore)
        page.add_figure(fig, "maps")
