"""The report's tables protected as one publication (a study's ``[publication]``, :mod:`brecha.publication`).

A report publishes the same counts several times: each unit per year, each unit pooled over the period,
each region per year, the country per year and pooled, and numbers derived from them (disparity, smoothed
rates, the funnel). Protecting each table alone would leak: a unit's pooled count minus its published years
gives back a hidden year. So the report decides once, per outcome, which cells are hidden
(:class:`Protection`), and every table it writes hides the same cells (:meth:`Protection.apply`):

- per year: the unit x year table with its region and country totals, suppressed by
  :func:`brecha.publication.suppress_cells`;
- pooled over the period: a unit (region, country) is hidden when any of its years is. This is enough:
  the direction that moves a hidden year cell without changing any published number of that year moves
  its pooled cells the same way, and those are all hidden, so every hidden pooled cell keeps an interval
  of positive width (tested by linear programming in ``tests/publication``).

A table row is matched by its unit code (a unit, a province or state, a region, or the country: ``TOTAL``
or the country's code) and its period (``period``, else ``year``, else the study's period).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .publication import ONE_UNIT_MEASURES, TOTAL, Policy, notes, reliability, unstable_note
from .publication_tables import add_reliability, apply_status, protect


# a table shows a unit's count, or a number that gives it back with the births (a rate, RR, AR, the smoothed
# rate): only such tables are matched (a trend's slope or a unit's fifth reveal no count)
REVEALING = {"events", "estimate", "rate", "raw_rate", "rr", "ar", "smoothed", "excess_deaths"}


def _span(years) -> str:
    """The pooled tables' period label (:func:`brecha.panel.period_label`), so the cells match theirs."""
    from .panel import period_label

    return period_label(years)


class Protection:
    """Which cells of one outcome's tables are hidden (module docstring)."""

    def __init__(self, panel, policy: Policy, outcome: str = "infant", years=None):
        self.policy = policy
        years = sorted(set(years) & set(panel.years)) if years else list(panel.years)
        self.pooled = _span(years)
        self.status: dict[tuple[str, str], str] = {}
        self._codes = _code_nodes(panel)
        self._rates = None
        if policy.suppress is None:
            return
        yearly = panel.events(outcome, years)
        table = pd.DataFrame({"unit": yearly["unit"].astype(str), "period": yearly["period"].astype(str),
                              "events": yearly["events"], "births": yearly["births"]})
        done = protect(table, policy, panel)
        flags = done["flag"].astype(object).fillna("").astype(str)
        hidden = flags.str.contains("suppressed")
        nodes = done.loc[hidden, "unit"].astype(str)
        for node, period, flag in zip(nodes, done.loc[hidden, "period"].astype(str), flags[hidden]):
            self.status[(node, period)] = flag
        self._rates = yearly.assign(rate=1000 * yearly["events"].astype("float64")
                                    / yearly["births"].astype("float64").where(yearly["births"] > 0))
        pooled = panel.events(outcome, years, pool=True).set_index("unit")["events"]
        k = policy.suppress
        for node in set(nodes):
            value = pooled.get(node, np.nan)
            small = pd.notna(value) and 1 <= value <= k
            self.status[(node, self.pooled)] = "suppressed" if small else "suppressed_secondary"

    def hidden_units(self, period: str | None = None) -> set:
        """The unit codes hidden in ``period`` (the study's pooled period by default): greyed on maps."""
        period = period or self.pooled
        return {node for node, p in self.status if p == period and ":" not in node and node != TOTAL}

    def apply(self, df: pd.DataFrame, name: str = "") -> pd.DataFrame:
        """The table as the report may write it: the hidden cells' numbers left empty, ``flag``,
        ``reliability`` where it has death counts, and the policy's notes. ``name`` (the report's table):
        the inequality between units hides the measures that are a unit's rate, the distribution table the
        percentiles that rest on a hidden unit's rate."""
        if self.policy.suppress is not None and name.startswith("inequality_") and "measure" in df.columns \
                and not name.startswith("inequality_ordered"):
            return _hide_rows(df, df["measure"].astype(str).isin(ONE_UNIT_MEASURES).to_numpy())
        if self.policy.suppress is not None and name.startswith("distribution") and self._rates is not None:
            return self._distribution(df)
        if "unit" not in df.columns or not self.policy.active or not REVEALING & set(df.columns):
            return add_reliability(df) if "unit" in df.columns else df
        out = df.copy()
        if "period" in out.columns:
            periods = out["period"].astype(str)
        elif "year" in out.columns:
            periods = out["year"].astype("string").fillna(self.pooled)
        else:
            periods = pd.Series(self.pooled, index=out.index)
        nodes = [self._codes.get(str(code), str(code)) for code in out["unit"]]
        status = np.array([self.status.get((n, p), "") for n, p in zip(nodes, periods)], dtype=object)
        events = pd.to_numeric(out["events"], errors="coerce").astype("float64") if "events" in out else None
        if events is not None:
            out["reliability"] = reliability(events)
        out = apply_status(out, status, self.policy, events)
        out.attrs = dict(df.attrs)
        out.attrs["notes"] = list(dict.fromkeys([*df.attrs.get("notes", ()), *notes(self.policy),
                                                 *([unstable_note()] if events is not None else [])]))
        return out


    def published_rows(self, df: pd.DataFrame) -> pd.DataFrame:
        """The rows of a unit x year table whose cell is published (for a chart that draws every unit)."""
        periods = df["period"].astype(str) if "period" in df.columns else df["year"].astype("Int64").astype(str)
        keep = [(self._codes.get(str(u), str(u)), p) not in self.status
                for u, p in zip(df["unit"].tolist(), periods.tolist())]
        return df[np.array(keep, dtype=bool)]

    def _distribution(self, df: pd.DataFrame) -> pd.DataFrame:
        """Percentiles of the unit rates per year (pandas' linear interpolation between the order statistics
        at (n - 1) p): a percentile is hidden when either unit it rests on is hidden that year; the mean and
        SD of the rates in a year with a hidden unit."""
        out = df.copy()
        columns = {c: (0.0 if c == "min" else 1.0 if c == "max" else float(c.rstrip("%")) / 100)
                   for c in out.columns if c in ("min", "max") or str(c).endswith("%")}
        rates = self._rates.dropna(subset=["rate"])
        for i, year in zip(out.index, out["year"]):
            one = rates[rates["year"] == int(year)].sort_values("rate", kind="stable")
            n = len(one)
            if not n:
                continue
            gone = np.array([(u, str(int(year))) in self.status for u in one["unit"].astype(str)])
            if gone.any():  # the mean (and SD) of the rates times n, minus the published ones, would be one
                out.loc[i, [c for c in ("mean", "std") if c in out.columns]] = np.nan  # more equation
            for col, p in columns.items():
                h = (n - 1) * p
                lo, hi = int(np.floor(h)), int(np.ceil(h))
                # ties: any unit with the same rate as an order statistic could be the one it rests on
                values = one["rate"].to_numpy()
                near = np.isin(values, values[[lo, hi]])
                if (gone & near).any():
                    out.loc[i, col] = np.nan
        out.attrs = dict(df.attrs)
        return out


def _hide_rows(df: pd.DataFrame, hide: np.ndarray) -> pd.DataFrame:
    """Every number of the ``hide`` rows left empty, flag ``suppressed_secondary``."""
    if not hide.any():
        return df
    out = df.copy()
    for col in out.columns:
        if col not in ("year", "n_years", "conf_level") and pd.api.types.is_numeric_dtype(out[col].dtype) \
                and not pd.api.types.is_bool_dtype(out[col].dtype):
            out[col] = out[col].mask(hide)
    own = (out["flag"].astype(object).fillna("").astype(str).to_numpy() if "flag" in out.columns
           else np.full(len(out), ""))
    out["flag"] = np.where(hide, "suppressed_secondary", own)
    out.attrs = dict(df.attrs)
    return out


def _code_nodes(panel) -> dict:
    """A code as a table writes it -> its node: units stay, ``13`` -> ``region:13``, the country -> TOTAL."""
    out = {TOTAL: TOTAL}
    units = panel.units
    if units is not None:
        for level in ("region", "province"):  # a unit's own code wins over a group's (below)
            if level in units.columns:
                out.update({str(c): f"{level}:{c}" for c in units[level].dropna().astype(str).unique()})
    country = getattr(panel, "country", None)
    if country:
        out[str(country)] = TOTAL
    out.update({str(u): str(u) for u in panel.unit_codes})
    return out
