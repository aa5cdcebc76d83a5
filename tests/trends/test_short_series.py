"""Very short series: a degenerate Prais-Winsten fit is reported, never classified and never a crash."""
from __future__ import annotations

import numpy as np
import pandas as pd

from brecha.panel import Panel
from brecha.trends import prais
from brecha.trends.apc import trends


def _three_year_panel() -> Panel:
    rng = np.random.default_rng(5)
    rows = []
    for u in range(40):
        for year in (2019, 2020, 2021):
            births = int(rng.integers(800, 3000))
            rows.append({"unit": f"U{u:02d}", "year": year, "births": births,
                         "deaths": int(rng.poisson(births * 0.008))})
    return Panel(pd.DataFrame(rows))


def test_three_years_give_estimates_but_no_class():
    """Every 3-year series drives rho to -1 (the transformed fit is then exact, SE ~ 1e-9): before, 27 of 152
    Chilean commune series got an 'increasing'/'decreasing' class from p ~ 1e-8."""
    from brecha.i18n import set_language

    set_language("en")
    try:
        out = trends(_three_year_panel())
    finally:
        set_language("es")
    fitted = out[np.isfinite(out["slope"])]
    assert len(fitted) >= 30
    assert (fitted["rho"].abs() >= 1 - 1e-8).all()
    assert fitted["trend"].isna().all()
    assert fitted["note"].str.contains("rho reached -1").all()


def test_a_degenerate_series_does_not_stop_the_others():
    """One series with a NaN rho among good ones: NaN estimates for it, the OLS answer for the others."""
    x = np.arange(6, dtype=float)
    X = np.column_stack([np.ones(6), x - x.mean()])
    y = np.vstack([1.0 + 0.5 * x + np.array([0.1, -0.2, 0.05, 0.0, 0.1, -0.05]),
                   np.full(6, 2.0)])
    fit = prais._fit_at(y, np.broadcast_to(X, (2, 6, 2)), np.array([0.0, np.nan]), False)
    ols = np.linalg.lstsq(X, y[0], rcond=None)[0]
    np.testing.assert_allclose(fit["beta"][0], ols, rtol=1e-12)
    assert np.isnan(fit["beta"][1]).all()
