"""Maps of the units' rates over the period (observed, empirically-Bayes smoothed) and of their trend
classes, with the Santiago region as an inset on Chile's maps; and the smoothed rates' table. Countries
without shipped polygons get proportional symbols at the unit seats or a tile grid (report/symbol_maps.py)."""
from __future__ import annotations

from .. import figures as F
from ..blocks import Block
from ..labels import TREND_KEYS, cell_label, trend_word
from ..formatting import localise
from ..map_canvas import unit_map_canvas


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
    L, lang = page.L, page.lang
    canvas, inset_title, offshore = unit_map_canvas(res, page)
    per1000 = L("per_1000")
    opts = res.options("maps", {"smoothed": True, "trend": True})
    pooled = res.pooled.set_index("unit")
    raw = pooled["estimate"].astype(float).where(pooled["births"].astype(float) > 0)
    smoothed_rates = res.smoothed
    # a study's [publication]: hidden units are grey with their own legend entry, and the classes are cut
    # on the published rates only (an edge is some unit's rate)
    hidden = page.publication.hidden_units() if page.publication else set()
    if hidden:
        from ..labels_publication import HIDDEN

        raw = raw.drop(index=list(hidden), errors="ignore")
        smoothed_rates = smoothed_rates.drop(index=list(hidden), errors="ignore") if smoothed_rates is not None \
            else None
    grey = {u: HIDDEN for u in hidden}
    hidden_entry = [(HIDDEN, L("hidden_cell"))] if hidden else []
    values_for_classes = smoothed_rates if smoothed_rates is not None else raw
    edges, labels = F.quantile_classes(values_for_classes)
    labels = [localise(x, lang) for x in labels]
    missing = (F.MISSING, L("missing"))
    raw_edges, raw_labels = F.quantile_classes(raw)
    raw_labels = [localise(x, lang) for x in raw_labels]
    fig = canvas.render("map_rate", {**F.sequential_colours(raw, raw_edges), **grey},
                        F.legend_for(raw_edges, raw_labels) + [missing] + hidden_entry,
                        title=f"{L('imr')} {res.period}", legend_title=per1000, inset_title=inset_title,
                        caption=L("cap_map_rate", period=res.period, unit=page.unit) + offshore)
    page.add_figure(fig, "maps")
    page.report.headline["map"] = fig
    if res.smoothed is not None and opts.get("smoothed", True):
        fig = canvas.render("map_smoothed", {**F.sequential_colours(smoothed_rates, edges), **grey},
                            F.legend_for(edges, labels) + [missing] + hidden_entry,
                            title=f"{L('c_smoothed')} {res.period}", legend_title=per1000, inset_title=inset_title,
                            caption=L("cap_map_smooth", period=res.period,
                                      method=cell_label("method", res.smooth_method, lang)) + offshore)
        page.add_figure(fig, "maps")
        page.report.headline["map"] = fig
    if res.trend_classes is not None and opts.get("trend", True):
        trend = res.trend_classes
        colours = {u: F.TREND_COLOURS.get(c, F.MISSING) for u, c in zip(trend.index.tolist(), trend.tolist())}
        legend = [(F.TREND_COLOURS[k], trend_word(k, lang)) for k in TREND_KEYS]
        trends = res.study.analyses.get("trends", {})
        fig = canvas.render("map_trend", colours, legend, title=f"{L('c_trend')} {res.period}", inset_title=inset_title,
                            caption=L("cap_map_trend", period=res.period, alpha=page.fmt(trends.get("alpha", 0.05), 2),
                                      unit=page.units, method=cell_label("method", trends.get("method", "prais-winsten"),
                                                                         lang)) + offshore)
        page.add_figure(fig, "maps")
