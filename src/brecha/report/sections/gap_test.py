"""Is the gap closing? The formal answer: joinpoint comparability tests of the two extreme fifths
(:func:`brecha.report.analyses_joinpoint.gap_test`) on the first screen's trend card and in the trends
section, with their table."""
from __future__ import annotations

from ..blocks import Block


def _p(fmt, p) -> str:
    """"= 0.012", or "< 0.001" where three decimals would print 0.000 (4,499 permutations reach 0.0002)."""
    p = float(p)
    return f"< {fmt(0.001, 3)}" if p < 0.001 else f"= {fmt(p, 3)}"


def build(res, page) -> None:
    t = res.gap_test
    if t is None or not len(t):
        return
    L, fmt, h = page.L, page.fmt, page.report.headline
    by = t.set_index("test")
    par, coin = by.loc["parallelism"], by.loc["coincidence"]
    alpha = float((res.study.analyses.get("trends") or {}).get("alpha") or 0.05)
    gap = float(par["gap_apc"])
    key = ("gt_closing" if gap < 0 else "gt_widening") if par["p_value"] < alpha else "gt_flat"
    groups = (L("gt_groups_cov", cov=page.cov_label(t.attrs.get("rank_by", "")))
              if t.attrs.get("grouping") == "covariate"
              else L("gt_groups_rate"))
    text = L(key, groups=groups, p_par=_p(fmt, par["p_value"]), p_coin=_p(fmt, coin["p_value"]), gap=fmt(abs(gap), 1),
             y0=int(par["first_year"]), y1=int(par["last_year"]), aapc_a=fmt(par["aapc_a"], 1),
             aapc_b=fmt(par["aapc_b"], 1))
    method = L("gt_method", n=page.count(int(par["n_permutations"])), seed=int(par["seed"]),
               selection=str(par["selection"]).upper(), k_a=int(par["k_a"]), k_b=int(par["k_b"]))
    direction = {"gt_closing": "closing", "gt_widening": "widening", "gt_flat": "flat"}[key]
    word = {"closing": "h_closing_word", "widening": "h_widening_word", "flat": "h_flat_word"}[direction]
    card = h.get("trend") or {"title": L("h_trend")}
    before = card.get("text", "")
    card.update({"direction": direction, "value": L(word), "text": text + (" " + before if before else ""),
                 "detail": L("gt_detail", p=_p(fmt, par["p_value"])), "test": key})
    h["trend"] = card
    if not res.study.wants("trends"):  # the first screen only; the table among the report's tables
        page.add_table("gap_test", t, L("t_gap_test"))
        return
    page.section("trends").add(Block("text", text=text + " " + method))
    page.add_table("gap_test", t, L("t_gap_test"), "trends",
                   columns=["test", "unit_a", "unit_b", "statistic", "p_value", "method", "k_a", "k_b", "aapc_a",
                            "aapc_b", "gap_apc"])
