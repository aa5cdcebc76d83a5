"""Shared by the inequality sections (not a section): which measures the charts show, their short titles,
and the measure x period table."""
from __future__ import annotations

import pandas as pd

from ..labels import L

UNIT_MEASURES = ("gini", "ti", "cov", "bgsd", "mdmw", "d_q5q1")  # between all units
ORDERED_MEASURES = ("sii", "rii", "rci", "kunst_mackenbach", "d", "r")  # between groups ranked by a covariate
SHORT_MEASURES = ("gini", "ti", "mld", "cov", "bgsd", "mdmw", "d_q5q1", "sii", "rii", "rci", "kunst_mackenbach", "d",
                  "r", "ratio_p90p10", "paf", "par")


def measure_labels(table: pd.DataFrame, lang: str) -> dict:
    """Short titles for the small multiples: ours for the common measures, else the module's label."""
    out = {}
    for col in ("measure_label", "label", "measure_name"):
        if col in table:
            out = dict(zip(table["measure"].astype(str).tolist(), table[col].astype(str).tolist()))
            break
    for key in SHORT_MEASURES:
        out[key] = L(f"mshort_{key}", lang)
    if "reference" in table and table["reference"].fillna("").astype(str).ne("").any():
        out["d"], out["r"] = L("mshort_d_ref", lang), L("mshort_r_ref", lang)  # max − reference, not max − min
    return out


def wide_by_year(table: pd.DataFrame, lang: str) -> pd.DataFrame:
    """measure x period of the estimates, with the measure's label beside its code."""
    wide = table.pivot_table(index="measure", columns="period", values="estimate", aggfunc="first")
    wide = wide.reindex([m for m in dict.fromkeys(table["measure"]) if m in wide.index])
    wide.columns = [str(c) for c in wide.columns]
    wide = wide.reset_index()
    labels = measure_labels(table, lang)
    wide.insert(1, "label", wide["measure"].map(lambda m: labels.get(m, m)))
    return wide
