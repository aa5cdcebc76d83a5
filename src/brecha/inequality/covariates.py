"""Inequality of a covariate between units, and its co-movement with the inequality of mortality.

``covariate_inequality`` applies the same summary measures to a covariate (e.g. municipal health income
per capita), unweighted or weighted by population or births, per year. ``comovement`` correlates two
yearly series of measures (e.g. the Gini of IMR and the Gini of health income) with Pearson and
Spearman coefficients and Fisher-z confidence intervals.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..covariates import buildable_hint  # noqa: F401  (importable from here too)
from ..i18n import Catalog
from . import measures as M
from .api import RESULT_COLUMNS, parse_measures

# Measures that need no order, no reference and no favourable/adverse direction.
COVARIATE_MEASURES = ("mean", "d", "r", "bgv", "bgsd", "cov", "mdmu", "mdmw", "idisu", "idisw", "ti", "mld",
                      "gini", "ratio_p90p10", "d_p80p20", "d_q5q1", "d_p90p10", "d_d10d1", "d_p95p5", "d_v20v1")

COMOVEMENT_COLUMNS = ["measure_a", "measure_b", "method", "estimate", "lower", "upper", "p_value", "n_years",
                      "conf_level", "ci_method", "periods"]


MSG = Catalog({
    "unknown": ("la columna '{column}' no está en el panel", "column '{column}' is not in the panel"),
    "have": ("columnas disponibles: {have}", "available columns: {have}"),
    "missing": ("{period}: {n} {n:unidad|unidades} sin valor de '{covariate}' (o sin peso) {n:queda|quedan} fuera",
                "{period}: {n} {n:unit|units} without a value of '{covariate}' (or without a weight) {n:is|are} "
                "left out"),
    "mean_label": ("Media", "Mean"),
    "exact": ("ninguno: los valores de la covariable se toman como exactos", "none: covariate values taken as exact"),
    "empty": ("'{covariate}' no tiene valores (o pesos) en: {periods}; esos períodos quedan fuera",
              "'{covariate}' has no values (or weights) in: {periods}; those periods are left out"),
    "not_applicable": ("medidas no aplicables a una covariable: {names}",
                       "measures not applicable to a covariate: {names}"),
    "note_undefined": ("no definida para estos valores (ceros o negativos)",
                       "undefined for these values (zero or negative values)"),
    "note_negative": ("medida relativa de una variable con valores negativos",
                      "relative measure of a variable with negative values"),
    "bad_method": ("method debe ser 'pearson', 'spearman' o 'both'",
                   "method must be 'pearson', 'spearman' or 'both'"),
    "bad_pairs": ("pairs debe ser 'all' o 'same'", "pairs must be 'all' or 'same'"),
    "bad_series": ("se esperaba una tabla con columnas period, measure, estimate o una serie indexada por período",
                   "expected a table with columns period, measure, estimate, or a Series indexed by period"),
})


def covariate_inequality(panel, covariate, weight=None, years=None, measures="all", pool=False) -> pd.DataFrame:
    """Summary measures of the inequality of a covariate between units, per year (or pooled).

    ``covariate``: a panel column, or one brecha builds for the panel's country (``health_spending_pc``,
    ``poverty``, ...; attached from the shipped tables as :func:`brecha.covariates.attach_missing` does,
    and its note travels in ``attrs["notes"]``).
    ``weight``: None or "none" (every unit counts the same), "population", "births", or another column.
    Covariate values carry no sampling error here, so ``lower``, ``upper`` and ``se`` are empty.
    Measures that need an order, a reference or a direction (ACI, SII, PAR, MDB*, ...) do not apply.
    Returns the columns of :func:`brecha.inequality.inequality` with ``outcome`` = the covariate name.

    Examples
    --------
    >>> import pandas as pd
    >>> from brecha.panel import Panel
    >>> p = Panel(pd.DataFrame({"unit": list("ABCD"), "year": 2010, "births": [10, 10, 10, 10],
    ...                         "deaths": [0, 0, 0, 0], "income": [1.0, 2.0, 3.0, 4.0]}))
    >>> covariate_inequality(p, "income", measures="gini")["estimate"].round(4).tolist()
    [0.25]
    """
    from ..covariates import attach_missing
    from ..errors import InputError, warn

    msg = MSG
    if weight in ("none", ""):
        weight = None
    columns = [covariate] + ([weight] if weight is not None else [])
    if any(col not in panel.data.columns for col in columns):
        # covariates brecha builds for the panel's country (e.g. health_spending_pc) are attached, with notes
        panel = attach_missing(panel, [col for col in columns if col not in panel.data.columns])
    for col in columns:
        if col not in panel.data.columns:
            raise InputError(msg("unknown", column=col), column=col,
                             hint=msg("have", have=", ".join(map(str, panel.data.columns)))
                             + buildable_hint(panel))
    requested = parse_measures(measures if measures != "all" else list(COVARIATE_MEASURES))
    bad = [m for m in requested if m not in COVARIATE_MEASURES]
    if bad:
        raise InputError(msg("not_applicable", names=", ".join(bad)),
                         hint=", ".join(COVARIATE_MEASURES))
    d = panel.data
    if years is not None:
        d = d[d["year"].isin([years] if isinstance(years, int) else list(years))]
    frame = pd.DataFrame({"unit": d["unit"].to_numpy(), "year": d["year"].to_numpy(),
                          "value": pd.to_numeric(d[covariate], errors="coerce").astype(float).to_numpy(),
                          "weight": (pd.to_numeric(d[weight], errors="coerce").astype(float).to_numpy()
                                     if weight is not None else 1.0)})
    if pool:
        span = sorted(frame["year"].unique())
        label = f"{span[0]}-{span[-1]}" if len(span) > 1 else str(span[0])
        frame = frame.groupby("unit", as_index=False)[["value", "weight"]].mean()
        frame["period"] = label
    else:
        frame["period"] = frame["year"].astype(str)
    rows = []
    empty = []
    for period, block in frame.groupby("period", sort=True):
        ok = np.isfinite(block["value"]) & np.isfinite(block["weight"]) & (block["weight"] > 0)
        if not ok.any():
            empty.append(str(period))
            continue
        if not ok.all():
            warn(msg("missing", period=period, n=int((~ok).sum()), covariate=covariate))
        block = block[ok]
        if len(block) < 2:
            continue
        sub = M.make_subgroups(block["weight"].to_numpy(), favourable=True, scale=1.0)
        names, _ = M.applicable(requested, sub)
        values = M.evaluate(block["value"].to_numpy(), sub, names)
        has_negative = bool((block["value"] < 0).any())
        for name in names:
            est = float(values[name])
            note = ""
            if not np.isfinite(est):
                note = MSG("note_undefined")
                est = np.nan
            elif has_negative and name in M.RELATIVE_MEASURES:
                note = MSG("note_negative")
            rows.append({"period": str(period), "outcome": covariate, "measure": name, "estimate": est,
                         "lower": np.nan, "upper": np.nan, "se": np.nan, "method": M.METHODS(name),
                         "ci_method": MSG("exact"), "conf_level": np.nan,
                         "n_units": len(block), "n_groups": pd.NA, "rank_by": "", "groups": pd.NA,
                         "advantaged": "", "reference": "", "bootstrap": 0, "seed": pd.NA, "note": note,
                         "label": MSG("mean_label") if name == "mean" else M.LABELS(name),
                         "weight": weight or "none"})
    if empty:
        warn(msg("empty", covariate=covariate, periods=", ".join(empty)))
    out = pd.DataFrame(rows, columns=RESULT_COLUMNS + ["weight"])
    for col in ("n_groups", "groups", "seed"):
        out[col] = out[col].astype("Int64")
    notes = list(getattr(panel, "notes", ()) or ())
    if notes:
        out.attrs["notes"] = notes
    return out


def _as_series(data, msg) -> dict[str, pd.Series]:
    """{measure label: Series indexed by period} from a result table or a Series."""
    from ..errors import InputError

    if isinstance(data, pd.Series):
        return {str(data.name or "series"): data.astype(float)}
    if not isinstance(data, pd.DataFrame) or not {"period", "measure", "estimate"} <= set(data.columns):
        raise InputError(msg("bad_series"))
    out = {}
    label_outcome = "outcome" in data.columns and data["outcome"].nunique() > 1
    for keys, block in data.groupby(["outcome", "measure"] if label_outcome else ["measure"], sort=False):
        keys = keys if isinstance(keys, tuple) else (keys,)
        label = ":".join(str(k) for k in keys)
        out[label] = pd.Series(block["estimate"].astype(float).to_numpy(), index=block["period"].astype(str))
    return out


def _fisher_ci(r: float, n: int, conf_level: float, variance_factor: float = 1.0):
    from ..intervals import z_value

    if n <= 3 or not np.isfinite(r):
        return np.nan, np.nan
    z = z_value(conf_level)
    if abs(r) >= 1:
        return float(r), float(r)
    zr = np.arctanh(r)
    half = z * np.sqrt(variance_factor / (n - 3))
    return float(np.tanh(zr - half)), float(np.tanh(zr + half))


def _t_p_value(r: float, n: int) -> float:
    from ..distributions import t_sf

    if n <= 2 or not np.isfinite(r):
        return np.nan
    if abs(r) >= 1:
        return 0.0
    t = r * np.sqrt((n - 2) / (1 - r * r))
    return float(2 * t_sf(abs(t), n - 2))


def comovement(series_a, series_b, method="both", conf_level=0.95, pairs="all") -> pd.DataFrame:
    """Correlation over years between two inequality series (e.g. Gini of IMR vs Gini of health income).

    ``series_a``/``series_b``: result tables (``period, measure, estimate``; every measure in each is
    paired with every measure in the other, or with ``pairs="same"`` only with the measure of the same
    name: Gini with Gini) or Series indexed by period. Periods present in both with finite values are used.

    - Pearson r; CI by Fisher's z, tanh(atanh r +/- z_{a/2} / sqrt(n - 3)) (Fisher 1921); p-value from
      t = r sqrt((n-2)/(1-r^2)) with n - 2 df.
    - Spearman rho (Pearson r of the ranks, ties averaged); CI by Fisher's z with variance 1.06/(n - 3)
      (Fieller, Hartley & Pearson 1957); p-value by the same t approximation (as scipy.stats.spearmanr).

    Returns ``measure_a, measure_b, method, estimate, lower, upper, p_value, n_years, conf_level,
    ci_method, periods``. With few years (say < 10) these correlations are fragile, and two series that
    both trend over time correlate whether or not they are linked: read them with the trends.
    """
    from ..errors import InputError

    msg = MSG
    if method not in ("pearson", "spearman", "both"):
        raise InputError(msg("bad_method"))
    if pairs not in ("all", "same"):
        raise InputError(msg("bad_pairs"))
    from ..intervals import check_conf_level

    conf_level = check_conf_level(conf_level)
    methods = ("pearson", "spearman") if method == "both" else (method,)
    a_all, b_all = _as_series(series_a, msg), _as_series(series_b, msg)
    rows = []
    for name_a, a in a_all.items():
        for name_b, b in b_all.items():
            if pairs == "same" and name_a.rsplit(":", 1)[-1] != name_b.rsplit(":", 1)[-1]:
                continue
            both = pd.concat([a.rename("a"), b.rename("b")], axis=1, join="inner").dropna()
            both = both[np.isfinite(both["a"]) & np.isfinite(both["b"])]
            n = len(both)
            for m in methods:
                if n >= 3:
                    x, y = both["a"].to_numpy(), both["b"].to_numpy()
                    if m == "spearman":
                        x = pd.Series(x).rank().to_numpy()
                        y = pd.Series(y).rank().to_numpy()
                    with np.errstate(invalid="ignore", divide="ignore"):
                        r = float(np.corrcoef(x, y)[0, 1])
                else:
                    r = np.nan
                lo, hi = _fisher_ci(r, n, conf_level, 1.06 if m == "spearman" else 1.0)
                rows.append({"measure_a": name_a, "measure_b": name_b, "method": m, "estimate": r, "lower": lo,
                             "upper": hi, "p_value": _t_p_value(r, n), "n_years": n, "conf_level": conf_level,
                             "ci_method": "Fisher z" + (" (variance 1.06/(n-3))" if m == "spearman" else ""),
                             "periods": ",".join(both.index.astype(str))})
    return pd.DataFrame(rows, columns=COMOVEMENT_COLUMNS)
