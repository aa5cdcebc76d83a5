"""The headline gap: extreme fifths of births by rate, and the annual percent change of their ratio.

Units are sorted by their rate over the whole period and cut at a fifth of all births from each end; the
gap in year t is rate(highest fifth)_t / rate(lowest fifth)_t (Kunst & Mackenbach 1994), each fifth's rate
being ΣD/ΣLB × 1000 over its units. Its direction is APC = (e^b − 1) × 100, b the OLS slope of ln(gap_t)
on t, with a t-based CI on n − 2 degrees of freedom.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd


def extreme_fifths(births: pd.Series, score: pd.Series) -> pd.Series:
    """'high' / 'low' / 'middle' per unit: units sorted by score, cut at a fifth of births from each end.

    A unit is in the lowest fifth when the births of the units ranked before it make up less than 20 % of
    all births (so each group holds about a fifth of the births; a unit straddling the cut goes to the end
    group it starts in).
    """
    s = pd.DataFrame({"births": births.astype(float), "score": score.reindex(births.index).astype(float)})
    s = s[(s["births"] > 0) & s["score"].notna()].sort_values("score", kind="stable")
    share_before = (s["births"].cumsum() - s["births"]) / s["births"].sum()
    share_after = 1 - s["births"].cumsum() / s["births"].sum()
    group = np.where(share_before < 0.2, "low", np.where(share_after < 0.2, "high", "middle"))
    return pd.Series(group, index=s.index.astype(str))


def log_linear_apc(years: np.ndarray, values: np.ndarray, conf_level: float = 0.95) -> tuple[float, float, float]:
    """APC = (e^b − 1) × 100 from OLS of ln(value) on year, with a t-based CI (n − 2 df)."""
    from ..distributions import t_quantile

    x = years - years.mean()
    y = np.log(values)
    b = float((x * (y - y.mean())).sum() / (x * x).sum())
    resid = y - y.mean() - b * x
    n = len(x)
    se = math.sqrt(float((resid ** 2).sum()) / (n - 2) / float((x * x).sum())) if n > 2 else float("nan")
    t = float(t_quantile(0.5 + conf_level / 2, n - 2))
    return (math.expm1(b) * 100, math.expm1(b - t * se) * 100, math.expm1(b + t * se) * 100)


def rate_ratio_ci(events_high: float, births_high: float, events_low: float, births_low: float,
                  conf_level: float = 0.95) -> tuple[float, float, float]:
    """Ratio of two Poisson rates with its log-method CI: exp(ln RR ± z·sqrt(1/D1 + 1/D0))
    (Rothman, Greenland & Lash 2008, ch. 14). NaN when either group has no deaths."""
    from ..distributions import normal_quantile

    if min(events_high, events_low, births_high, births_low) <= 0:
        return (float("nan"),) * 3
    rr = (events_high / births_high) / (events_low / births_low)
    z = float(normal_quantile(0.5 + conf_level / 2))
    se = math.sqrt(1 / events_high + 1 / events_low)
    return rr, rr * math.exp(-z * se), rr * math.exp(z * se)
