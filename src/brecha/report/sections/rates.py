"""Rates: the study area's rate per year (table and chart), the units' rates over the period, and the
region x year and unit x year tables (CSV and Excel only)."""
from __future__ import annotations

from .. import figures as F
from ..labels import cell_label


def build(res, page) -> None:
    L = page.L
    national = res.national
    page.add_table("rates_national", national, L("t_national"), "rates",
                   columns=["year", "events", "births", "estimate", "lower", "upper", "method", "flag"])
    page.add_table("rates_units_year", res.per_year, L("t_units_year", unit=page.unit))
    page.add_table("rates_national_pooled", res.national_pooled, L("t_national"))
    series = national.assign(label=L("country_total"))[["label", "year", "estimate", "lower", "upper"]]
    method = str(national["method"].iloc[0]) if len(national) else ""
    page.add_figure(F.line_chart("national_rate", series, ylabel=f"{L('imr_short')} ({L('per_1000')})",
                                 caption=L("cap_national", method=cell_label("method", method, page.lang))
                                 + page.caveat), "rates")
    if res.regions_year is not None:
        page.add_table("rates_regions", res.regions_year, L("t_regions"))
    page.add_table("rates_units_pooled", res.pooled, L("t_units_pooled", unit=page.unit, period=res.period), "rates",
                   columns=["unit", "name", "region", "events", "births", "estimate", "lower", "upper", "flag"])
