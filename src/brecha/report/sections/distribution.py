"""The distribution of the unit rates per year: percentiles (table) and the spread around the whole area's
rate (chart)."""
from __future__ import annotations

from .. import figures as F


def build(res, page) -> None:
    L = page.L
    page.add_table("distribution", res.distribution, L("t_distribution", units=page.units, unit=page.unit),
                   "distribution")
    points = res.distribution_points
    if page.publication:  # a study's [publication]: hidden units' rates are not drawn
        points = page.publication.published_rows(points)
    page.add_figure(F.distribution_chart(
        "distribution", points[["year", "estimate"]], ylabel=f"{L('imr_short')} ({L('per_1000')})",
        national=res.national[["year", "estimate"]], national_label=L("country_total"),
        caption=L("cap_distribution", units=page.units, unit=page.unit) + page.caveat), "distribution")
