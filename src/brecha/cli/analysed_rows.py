"""The rows a command analyses (--years, --region), and the warnings of a panel file shown for them.

A command reads the whole file before it knows which rows it analyses, and the file warns while it is
read. With --years or --region those warnings are held, then shown for the rows analysed
(:func:`brecha.panel_warnings.say_for_rows`): "16 unit-years with 0 births (e.g. 02202 2010, ...)" under
``--years 2010-2015`` on the Chilean data, not the 43 of the whole file nor years left out. Warnings about
the file itself (a text column set aside) are shown as they were. Without --years and --region nothing is
held: the output is the same as before this module existed.
"""
from __future__ import annotations

from ..errors import InputError


def read_for_rows(read, args, also_units=()):
    """``read()`` (reads a panel file), its warnings shown for :func:`rows_analysed` when --years or --region
    is given (:func:`brecha.panel_warnings.read_for_rows`); as they come otherwise."""
    if not (getattr(args, "years", None) or getattr(args, "region", None)):
        return read()
    from ..panel_warnings import read_for_rows as read_said_for_rows

    return read_said_for_rows(read, lambda panel: rows_analysed(panel, args, also_units))


def wanted_regions(args) -> list[str] | None:
    """The codes (or names) of ``--region``, separated by commas; None without it."""
    text = getattr(args, "region", None)
    return [r.strip() for r in text.split(",") if r.strip()] if text else None


def rows_analysed(panel, args, also_units=()):
    """The part of ``panel`` a command analyses: the --years of the units of --region, and of
    ``also_units`` (codes analysed besides them: a disparity's reference named outside the region). The
    panel itself when --years or --region cannot be applied: the command then says why."""
    years = getattr(args, "years", None)
    wanted = wanted_regions(args)
    kept = panel
    try:
        if wanted:
            codes = set(panel.subset(region=wanted).unit_codes)
            if also_units:
                import pandas as pd

                extra = pd.Series([str(c).strip() for c in also_units], dtype=str)
                if panel.registry is not None:
                    extra = panel.registry.normalise_codes(extra)
                codes |= set(extra) & set(panel.unit_codes)
            kept = panel.subset(units=sorted(codes))
        if years:
            kept = kept.subset(years=years)
    except InputError:
        return panel
    return kept
