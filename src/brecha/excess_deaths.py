"""Excess (avoidable) deaths against the reference: the deaths that would not have happened at its rate.

For a unit i in a period, excess_i = D_i − B_i · r_ref = AR_i · B_i (AR the attributable risk per death,
r_ref = D_ref/B_ref the reference's rate); for the total of the units analysed, excess = Σ D − Σ B · r_ref =
PAR · Σ B = PAR% × Σ D (Schneider et al. 2002's PAR, the PAHO convention; REFERENCE_WAVE2 W.3: 2,530 deaths
in 206,000 births against 5 per 1,000 give 1,500). The units' excess deaths add up to the total's exactly.
The confidence interval is that of AR (per unit) or PAR (total) times the births, which are taken as fixed:
the same variance (Poisson or binomial deaths, the reference's own counts, the covariance when a unit is
part of the reference) and the same method as the ``disparity`` row it comes from. A negative value says
the unit did better than the reference.

Written on the disparity table (not on the Panel) so that :func:`brecha.disparity.disparity` can add the
rows (``measure = "excess_deaths"``) without this module importing it.

>>> import pandas as pd
>>> table = pd.DataFrame({"unit": ["TOTAL"], "period": ["2010"], "measure": ["par"], "estimate": [7.281553],
...                       "lower": [5.0], "upper": [9.5], "se": [1.1], "births": [206000], "method": ["delta"]})
>>> add_excess_deaths(table)[["measure", "estimate"]].round(1).values.tolist()
[['par', 7.3], ['excess_deaths', 1500.0]]
"""
from __future__ import annotations

import numpy as np
import pandas as pd

MEASURE = "excess_deaths"
SOURCES = {"attributable_risk": "unit", "par": "TOTAL"}


def add_excess_deaths(table: pd.DataFrame, per: float = 1000) -> pd.DataFrame:
    """``table`` (a disparity table, AR and PAR per ``per`` births) with an ``excess_deaths`` row after
    each unit's and each total's rows: estimate, lower, upper and se of AR (units) or PAR (``TOTAL``) times
    births / ``per``. The table's attrs are kept."""
    if not len(table) or "births" not in table:
        return table
    measure = table["measure"].astype(str).to_numpy()
    unit = table["unit"].astype(str).to_numpy()
    source = (measure == "attributable_risk") & (unit != "TOTAL") | (measure == "par") & (unit == "TOTAL")
    if not source.any():
        return table
    rows = table.loc[source].copy()
    factor = pd.to_numeric(rows["births"], errors="coerce").astype(float).to_numpy() / float(per)
    for column in ("estimate", "lower", "upper", "se"):
        if column in rows:
            rows[column] = rows[column].astype(float).to_numpy() * factor
    new_method = np.array([f"D - B x r_ref; CI: {m} x births" for m in rows["method"].astype(str)], dtype=object)
    new_values = {"measure": np.full(len(rows), MEASURE, dtype=object), "method": new_method}
    out_rows, out_table = rows, table.copy()
    for column, values in new_values.items():
        old = table[column]
        if isinstance(old.dtype, pd.CategoricalDtype):
            known = set(old.cat.categories)
            categories = list(old.cat.categories) + [v for v in pd.unique(values) if v not in known]
            out_table[column] = old.cat.set_categories(categories)
            out_rows[column] = pd.Categorical(values, categories=categories)
        else:
            out_rows[column] = values
    for column in out_table.columns:  # other categoricals: same categories in both parts, so they stay categorical
        if isinstance(out_table[column].dtype, pd.CategoricalDtype) and column not in new_values:
            out_rows[column] = pd.Categorical(out_rows[column], categories=out_table[column].cat.categories)
    position = np.concatenate([np.arange(len(table), dtype=float), np.flatnonzero(source) + 1.5])  # after AR% (PAR%)
    out = pd.concat([out_table, out_rows], ignore_index=True)
    out = out.iloc[np.argsort(position, kind="stable")].reset_index(drop=True)
    out.attrs.update(table.attrs)
    return out


def per_year(total: float, years: int) -> float:
    """Excess deaths of a pooled period as a yearly mean (the headline's "a year")."""
    return float(total) / max(int(years), 1)
