"""The first screen (``Report.headline``): the study area's rate, how unequal the units are (the gap
between the extreme fifths of births, :func:`brecha.report.analyses.gap`), whether that gap is closing,
and the units with the highest and lowest rates; the fifths' chart goes first in the rates section."""
from __future__ import annotations

import pandas as pd

from .. import figures as F
from ..blocks import Block
from ..data import _region_map, short_region
from ...panel import OUTCOMES
from ..calls import Unavailable


def build(res, page) -> None:
    """The scope line and the study area's rate: its last year, and the change since the first."""
    if res.national is None:
        raise Unavailable(page.L("module_missing", module="brecha.rates"))
    L, fmt, h = page.L, page.fmt, page.report.headline
    nat = res.national.dropna(subset=["estimate"]).sort_values("year")
    first, last = nat.iloc[0], nat.iloc[-1]
    change = (last["estimate"] / first["estimate"] - 1) * 100 if first["estimate"] > 0 else float("nan")
    d = res.panel.data
    h["scope"] = L("h_scope", n=page.count(len(res.panel.unit_codes)), units=page.units, period=res.period,
                   births=page.count(d["births"].sum()), deaths=page.count(d[OUTCOMES[res.outcome]].sum()),
                   kind=L(f"deaths_{res.outcome}"))
    h["national"] = {
        "title": L("h_national", outcome=L(f"rate_{res.outcome}"), country=_place(res, page)),
        "value": fmt(last["estimate"], 1), "year": int(last["year"]),
        "text": (L("h_national_text", last=fmt(last["estimate"], 1), y1=int(last["year"]), lo=fmt(last["lower"], 1),
                   hi=fmt(last["upper"], 1), first=fmt(first["estimate"], 1), y0=int(first["year"]),
                   change=L("h_change_down" if change < 0 else "h_change_up", pct=fmt(abs(change), 0)))
                 if int(first["year"]) != int(last["year"]) else  # one year: no change to speak of
                 L("h_national_text_one", last=fmt(last["estimate"], 1), y1=int(last["year"]),
                   lo=fmt(last["lower"], 1), hi=fmt(last["upper"], 1)))
        + page.caveat,
    }


def gap(res, page) -> None:
    """How unequal (the extreme fifths' ratio and the PAR%), whether the gap is closing, the fifths' chart,
    and the worst and best units."""
    L, fmt = page.L, page.fmt
    h, g = page.report.headline, res.gap
    ratio, ratio_lo, ratio_hi = g["ratio"]
    h["gap"] = {"title": L("h_gap"), "value": fmt(ratio, 1) + "×", "ratio": ratio, "ratio_lower": ratio_lo,
                "ratio_upper": ratio_hi, "detail": L("h_ci", lo=fmt(ratio_lo, 2), hi=fmt(ratio_hi, 2)),
                "text": L("h_gap_text", period=res.period, units=page.units, ratio=fmt(ratio, 2),
                          lo_ci=fmt(ratio_lo, 2), hi_ci=fmt(ratio_hi, 2), hi=fmt(g["high_rate"], 1),
                          lo=fmt(g["low_rate"], 1))}
    if not g["low_rate"] > 0:  # no death in the lowest fifth (one small year): the difference, not "–×"
        diff = g["high_rate"] - g["low_rate"]
        h["gap"].update(value=fmt(diff, 1), detail=L("h_gap_zero_detail"),
                        text=L("h_gap_zero", period=res.period, units=page.units, hi=fmt(g["high_rate"], 1),
                               diff=fmt(diff, 1)))
    if "shrinkage" in g:
        share = g["shrinkage"]
        h["gap"]["shrinkage"] = share
        if share > 0.5:  # most of the spread between units is chance: the extreme fifths mostly measure noise
            h["gap"]["text"] += " " + L("h_gap_noise", pct=fmt(share * 100, 0), units=page.units)
    if "par" in g:
        par = g["par"]
        ref = f"{fmt(g['reference_rate'], 1)} {L('per_1000')}"
        if par["estimate"] >= 0:
            h["gap"]["text"] += " " + L("h_gap_par", units=page.units, unit=page.unit, ref=ref,
                                        par_pct=fmt(par["estimate"], 0), lo=fmt(par["lower"], 0),
                                        hi=fmt(par["upper"], 0), period=res.period)
        else:  # the reference's rate is above the area's: "would be -5 % lower" said the opposite
            # PAR% = (total − ref)/total, so at the reference's rate the IMR is ref/total = 1 − PAR% times it
            higher = -par["estimate"]
            h["gap"]["text"] += " " + L("h_gap_par_up", units=page.units, unit=page.unit, ref=ref,
                                        par_pct=fmt(higher, 0), par=fmt(par["estimate"], 0),
                                        lo=fmt(par["lower"], 0), hi=fmt(par["upper"], 0), period=res.period)
    if "apc" in g:
        apc, lo, hi = g["apc"]
        ok = g["trend_series"]
        key = "h_closing" if hi < 0 else "h_widening" if lo > 0 else "h_flat"
        fields = dict(apc=fmt(abs(apc) if key != "h_flat" else apc, 1), lo=fmt(lo, 1), hi=fmt(hi, 1),
                      first=fmt(ok["ratio"].iloc[0], 2), last=fmt(ok["ratio"].iloc[-1], 2),
                      y0=int(ok["year"].iloc[0]), y1=int(ok["year"].iloc[-1]))
        text = L(key, **fields) + " " + L("h_abs_gap", first=fmt(ok["difference"].iloc[0], 1),
                                          last=fmt(ok["difference"].iloc[-1], 1))
        h["trend"] = {"title": L("h_trend"), "direction": {"h_closing": "closing", "h_widening": "widening",
                                                           "h_flat": "flat"}[key],
                      "apc": apc, "apc_lower": lo, "apc_upper": hi, "text": text, "value": L(f"{key}_word"),
                      "detail": ("+" if apc > 0 else "−" if apc < 0 else "") + fmt(abs(apc), 1)
                      + L("h_per_year")}
    series = g["series"]
    page.add_table("gap_fifths", series.rename(columns={"high": "rate_highest_fifth", "low": "rate_lowest_fifth"}),
                   L("t_quintiles"))
    groups = g["groups"]
    page.report.tables["gap_groups"] = (pd.DataFrame({"unit": groups.index, "group": groups.to_numpy()}),
                                        L("quintile_series"))
    long = pd.concat([
        pd.DataFrame({"label": L("q5"), "year": series["year"], "estimate": series["high"]}),
        pd.DataFrame({"label": L("country_total"), "year": res.national["year"], "estimate": res.national["estimate"]}),
        pd.DataFrame({"label": L("q1"), "year": series["year"], "estimate": series["low"]}),
    ])
    fig = F.line_chart("gap_fifths", long, ylabel=f"{L('imr_short')} ({L('per_1000')})",
                       caption=L("cap_quintiles", units=page.units, period=res.period) + page.caveat)
    page.report.figures.append(fig)
    h["gap_figure"] = fig
    page.section("rates").blocks.insert(0, Block("figure", figure=fig))
    _ranking(res, page)


def _ranking(res, page) -> None:
    """The worst and best units, each with its 95 % interval, and how far to trust their order."""
    L, fmt, g, h = page.L, page.fmt, res.gap, page.report.headline
    if res.smoothed is not None:
        note = L("h_rank_note", period=res.period, units=page.units)
    else:
        note = L("h_rank_note_raw", period=res.period, units=page.units, min=page.count(g["min_births"]))
    region = _region_map(res.panel)

    def rows(frame):
        return [{"unit": u, "name": str(r.get("name", u)), "region": short_region(region.get(u, "")),
                 "smoothed": fmt(r["smoothed"], 1), "observed": fmt(r["estimate"], 1),
                 "interval": f"{fmt(r['lower'], 1)}–{fmt(r['upper'], 1)}"}
                for u, r in frame.iterrows()]

    worst, best = g["worst"], g["best"]
    hidden = page.publication.hidden_units() if page.publication else set()
    if hidden:  # a study's [publication]: units whose counts are hidden are not named here
        worst, best = worst[~worst.index.isin(hidden)], best[~best.index.isin(hidden)]
    h["worst"] = rows(worst)
    h["best"] = rows(best)
    # honest about the ranking: do the worst units' intervals clear the best ones'?
    if len(worst) and len(best):
        note += " " + L("h_rank_overlap" if float(worst["lower"].min()) <= float(best["upper"].max())
                        else "h_rank_apart")
    if "funnel_high" in g:
        high = g["funnel_high"]
        # (a study's [publication]: hidden units are counted, not named)
        named = high[~high["unit"].astype(str).isin(hidden)] if hidden and "unit" in high.columns else high
        names = [str(n) for n in named.get("name", named["unit"]).head(6)]
        more = L("h_more", n=page.count(len(high) - len(names))) if len(high) > len(names) else ""
        note += " " + L("h_funnel", n=page.count(len(high)), units=page.units, total=page.count(g["funnel_units"]),
                        names=", ".join(names), more=more) if len(high) else \
            " " + L("h_funnel_none", units=page.units)
    h["rank_note"] = note
    h["smoothed"] = res.smoothed is not None


def _place(res, page) -> str:
    """Where the study is: the region's name for a one-region study, else the country."""
    u, panel = res.study.units, res.panel
    country = page.L(f"country_{panel.country}") if panel.country in ("CL", "BR", "AR") else ""
    units = panel.units
    if units is not None and "region_name" in units and len(units) and (
            "region" in u or ("region" in units and units["region"].nunique() == 1)):
        return str(units["region_name"].iloc[0])  # a one-region study, or a panel of one region's units
    return country or page.L("country_total")
