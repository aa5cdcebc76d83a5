"""The dashboard's data: the tables the report registered (``Report.tables``), as column arrays for the page.

Nothing here recomputes a result of the report: each array is a column of a table that the report also
writes to ``tables/*.csv`` and ``brecha.xlsx`` (after any publication rule the report applies to them), so the
dashboard shows the same numbers. Two things are the dashboard's own and are said on the page: the
covariate of a unit over the whole period (the plain mean of the years it has) and the line of the
determinants' scatter, a least-squares line weighted by live births (:func:`fitted_line`).

Numbers travel exactly (the JSON text of each float reads back to the same float), and the page rounds
them as the report does (Python's rounding of the exact binary value, ties to even); undefined values (NaN,
a suppressed cell) travel as ``null`` and read "–". Units are referred to by their position in ``units`` to keep the
Brazilian file small.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ...compat import isin

MODEL_COVARIATES_SKIPPED = ("population",)  # counts of people, not explanatory levels


def number(value):
    """A JSON number, exactly the table's float (Python writes the shortest text that reads back to the same
    float); None when undefined."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        return None
    if not math.isfinite(v):
        return None
    return int(v) if v.is_integer() and abs(v) < 1e15 else v


def numbers(series) -> list:
    """:func:`number` of each value of a column, vectorised: each distinct number made once (by its bits, so
    -0.0 stays -0.0), then taken for every row (a rate of 0, a count or a covariate repeat; issue 19)."""
    values = pd.to_numeric(pd.Series(series), errors="coerce").astype("float64").to_numpy()
    codes, bits = pd.factorize(values.view(np.int64))
    values = bits.view(np.float64)
    finite = np.isfinite(values)
    whole = finite & (values == np.round(values)) & (np.abs(np.where(finite, values, 0.0)) < 1e15)
    made = [None if not f else int(x) if w else x for x, f, w in zip(values.tolist(), finite.tolist(), whole.tolist())]
    return [made[c] for c in codes.tolist()]


def texts(series) -> list:
    return [None if (v is None or (isinstance(v, float) and math.isnan(v)) or v is pd.NA) else str(v)
            for v in pd.Series(series).astype(object)]


def fitted_line(x, y, w) -> tuple[float, float, int] | None:
    """Intercept a and slope b minimising Σ wᵢ (yᵢ − a − b xᵢ)² over the points with finite x, y and w > 0
    (weighted least squares; the weights are the units' live births). ``numpy.polyfit`` with weights √w.
    None with fewer than three points or no spread in x."""
    return _line(floats(x), floats(y), floats(w))


def floats(values) -> np.ndarray:
    """A column as float64, what is not a number NaN."""
    # to_numpy(na_value=nan): nullable columns (Int64, Float64) keep their missing values missing on every
    # supported pandas (2.1 refuses np.asarray of a masked array with missing values)
    return pd.to_numeric(pd.Series(values), errors="coerce").astype("Float64").to_numpy(dtype=float, na_value=np.nan)


def _line(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> tuple[float, float, int] | None:
    """:func:`fitted_line` of columns already made :func:`floats`."""
    keep = np.isfinite(x) & np.isfinite(y) & np.isfinite(w) & (w > 0)
    if keep.sum() < 3 or np.ptp(x[keep]) == 0:
        return None
    slope, intercept = np.polyfit(x[keep], y[keep], 1, w=np.sqrt(w[keep]))
    return float(intercept), float(slope), int(keep.sum())


class Tables:
    """The report's tables by name, with the further outcomes' suffix (``rates_national_neonatal``)."""

    def __init__(self, report):
        self.report = report

    def get(self, name: str, outcome_suffix: str = "") -> pd.DataFrame | None:
        item = self.report.tables.get(name + outcome_suffix)
        return None if item is None else item[0]


def positions(codes, index: dict) -> list:
    """Each unit code's position in the page's ``units`` (None for a code it does not list): looked up once
    per distinct code, then taken for every row (Brazil's unit-years: 111,400 rows, 5,570 codes; issue 19)."""
    found, uniques = pd.factorize(pd.Series(codes).astype(str), use_na_sentinel=False)
    made = [index.get(code) for code in np.asarray(uniques, dtype=object).tolist()]
    return [made[c] for c in found.tolist()]


def _years(df: pd.DataFrame) -> list:
    if "year" in df.columns:
        years = pd.to_numeric(df["year"], errors="coerce").to_numpy(dtype=float, na_value=np.nan)
        found, uniques = pd.factorize(years, use_na_sentinel=False)  # a few distinct years: each made once
        made = [None if math.isnan(v) else int(v) for v in uniques.tolist()]
        return [made[c] for c in found.tolist()]
    return texts(df["period"])


def _series(df, index=None, code="unit") -> dict:
    """Rates with CIs: ``u`` (unit position or code), ``y`` (the year; none in a pooled table, whose period the
    page names once), est, lo, hi, events, births."""
    out = {"est": numbers(df["estimate"]), "lo": numbers(df["lower"]), "hi": numbers(df["upper"])}
    if "year" in df.columns:
        out["y"] = _years(df)
    for col, key in (("events", "ev"), ("births", "bi")):
        if col in df.columns:
            out[key] = numbers(df[col])
    if index is not None:
        out["u"] = positions(df[code], index)
    elif code in df.columns:
        out["u"] = texts(df[code])
    return out


def outcome_data(tables: Tables, suffix: str, index: dict) -> dict:
    """The Explore view of one outcome: national, regional and unit rates per year and pooled, smoothed
    rates, trend classes and APCs, rate ratios against the reference."""
    out: dict = {}
    t = tables.get("rates_national", suffix)
    if t is not None:
        out["national"] = _series(t)
    t = tables.get("rates_national_pooled", suffix)
    if t is not None and len(t):
        out["national_pooled"] = _series(t)
    t = tables.get("rates_regions", suffix)
    if t is not None:
        out["regions"] = _series(t)
    t = tables.get("rates_units_year", suffix)
    if t is not None:
        out["units_year"] = _series(t, index)
    t = tables.get("rates_units_pooled", suffix)
    if t is not None:
        out["units_pooled"] = _series(t, index)
    t = tables.get("smoothed", suffix)
    if t is not None:
        out["smoothed"] = _series(t, index)
    t = tables.get("trends_units", suffix)
    if t is not None:
        from ..labels import trend_codes  # the report's classes: sparse and no_trend where it has no class

        out["trends"] = {"u": positions(t["unit"], index), "trend": texts(trend_codes(t)),
                         "est": numbers(t["apc"]), "lo": numbers(t["apc_lower"]), "hi": numbers(t["apc_upper"])}
    t = tables.get("disparity_units_year", suffix)
    if t is not None:
        rr = t[t["measure"].astype(str) == "rate_ratio"]
        out["rr_year"] = _series(rr, index)
    t = tables.get("disparity_units_pooled", suffix)
    if t is not None:
        out["rr_pooled"] = {"u": positions(t["unit"], index), "est": numbers(t["rr"]),
                            "lo": numbers(t["rr_lower"]), "hi": numbers(t["rr_upper"])}
    return out


def _measure_rows(df, measure: str) -> dict | None:
    if df is None:
        return None
    rows = df[df["measure"].astype(str) == measure]
    if rows.empty:
        return None
    out = {"y": _years(rows), "est": numbers(rows["estimate"]), "lo": numbers(rows["lower"]),
           "hi": numbers(rows["upper"])}
    if "rank_by" in rows.columns:
        out["rank_by"] = texts(rows["rank_by"].head(1))[0]
    return out


def compare_data(tables: Tables, index: dict) -> dict:
    """The Compare view (first outcome): SII and RII (ordered by the study's covariate), Theil, PAR% per year
    with CIs; the ratio of the fifths (no CI in the report's table); funnel; trend classes."""
    out: dict = {"inequality": {}}
    ordered = tables.get("inequality_ordered_year")
    plain = tables.get("inequality_year")
    for key, df, measure in (("sii", ordered, "sii"), ("rii", ordered, "rii"), ("ti", plain, "ti"),
                             ("par_percent", tables.get("disparity_total_year"), "par_percent")):
        rows = _measure_rows(df, measure)
        if rows is not None:
            out["inequality"][key] = rows
    fifths = tables.get("gap_fifths")
    if fifths is not None:
        out["inequality"]["fifths"] = {"y": _years(fifths), "est": numbers(fifths["ratio"]),
                                       "lo": [None] * len(fifths), "hi": [None] * len(fifths)}
    funnel = tables.get("funnel")
    if funnel is not None:
        out["funnel"] = {"u": positions(funnel["unit"], index),
                         "bi": numbers(funnel["births"]), "est": numbers(funnel["rate"]),
                         "target": number(funnel["target"].iloc[0]) if len(funnel) else None,
                         "flag": texts(funnel["flag"]),
                         **{k: numbers(funnel[k]) for k in ("lower_95", "upper_95", "lower_998", "upper_998")}}
    classes = tables.get("trend_classes")
    if classes is not None:
        out["trend_classes"] = {"code": texts(classes["code"]), "n": numbers(classes["n"])}
    return out


def determinants_data(report, tables: Tables, index: dict, covariates: list[str]) -> dict:
    """Per covariate: its value per unit and year (panel data) and over the period (plain mean of the years
    it has), and the weighted line of the rate on it per year and for the period; the models' coefficients."""
    panel = report.panel
    out: dict = {"covariates": [], "values": {}, "fits": {}}
    year_rates = tables.get("rates_units_year")
    pooled = tables.get("rates_units_pooled")
    data = panel.data
    for cov in covariates:
        if cov not in data.columns:
            continue
        frame = data[["unit", "year", cov]].copy()
        frame["unit"] = frame["unit"].astype(str)
        frame = frame[isin(frame["unit"], index.keys())]
        frame[cov] = pd.to_numeric(frame[cov], errors="coerce").astype(float)
        frame = frame[np.isfinite(frame[cov])]
        if frame.empty:
            continue
        out["covariates"].append(cov)
        out["values"][cov] = {"u": [index[u] for u in frame["unit"].tolist()],
                              "y": [int(v) for v in frame["year"].tolist()],
                              "x": numbers(frame[cov])}
        fits = {}
        if year_rates is not None:
            joined = year_rates.assign(unit=year_rates["unit"].astype(str), year=year_rates["year"].astype(int)) \
                .merge(frame, on=["unit", "year"], how="inner")
            # the columns made numbers once, then each year's rows (the lines of joined.groupby("year"))
            years = joined["year"].to_numpy()
            x, y, w = floats(joined[cov]), floats(joined["estimate"]), floats(joined["births"])
            for year in np.unique(years):
                rows = years == year
                line = _line(x[rows], y[rows], w[rows])
                if line is not None:
                    fits[str(int(year))] = [number(line[0]), number(line[1]), line[2]]
        if pooled is not None:
            means = frame.groupby("unit")[cov].mean()
            part = pooled.assign(unit=pooled["unit"].astype(str)).merge(means.rename("x"), left_on="unit",
                                                                         right_index=True, how="inner")
            line = fitted_line(part["x"], part["estimate"], part["births"])
            if line is not None:
                fits["pooled"] = [number(line[0]), number(line[1]), line[2]]
            out["values"][cov]["pooled"] = {"u": [index[u] for u in means.index.tolist()], "x": numbers(means)}
        out["fits"][cov] = fits
    coefs = tables.get("model_coefficients")
    if coefs is not None and len(coefs):
        out["models"] = {"model": texts(coefs["model"]), "term": texts(coefs["term"]),
                         "est": numbers(coefs["estimate"]), "lo": numbers(coefs["lower"]),
                         "hi": numbers(coefs["upper"]), "p": numbers(coefs["p_value"])}
    return out
