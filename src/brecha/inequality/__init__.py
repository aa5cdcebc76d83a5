"""Inequality across all units: WHO summary measures, Gini, concentration, bootstrap, co-movement.

- :func:`inequality` — measures per year (or pooled) between the units of a Panel, or between quantile
  groups of units ranked by a covariate; analytic or seeded bootstrap CIs.
- :func:`summary_measures` — the same on arrays of subgroup estimates (the WHO healthequal interface).
- :func:`concentration_curve` — points to plot the concentration curve.
- :func:`covariate_inequality`, :func:`comovement` — inequality of a covariate and its correlation over
  years with the inequality of mortality.
- :func:`ci_decompose` — the concentration index decomposed by determinants; the between/within
  decomposition by a grouping is ``brecha.inequality.decompose_table.decompose`` (the arithmetic is the
  module ``brecha.inequality.decompose``, hence not re-exported under that name) (docs/decompose.md).
- ``bgv_true``, ``bgsd_true``, ``cov_true`` — dispersion of the underlying rates net of the Poisson noise
  of small units (which inflates every dispersion measure of unit rates).

See docs/inequality.md for the formulas, references and where brecha differs from WHO healthequal/HEAT.
"""
from .api import concentration_curve, inequality, parse_measures, summary_measures  # noqa: F401
from .covariates import comovement, covariate_inequality  # noqa: F401
from .ci_decompose import ci_decompose  # noqa: F401
from .measures import ALL_MEASURES, EXTRA_MEASURES, WHO_MEASURES  # noqa: F401

__all__ = ["inequality", "summary_measures", "concentration_curve", "covariate_inequality", "comovement",
           "ci_decompose",
           "parse_measures", "ALL_MEASURES", "WHO_MEASURES", "EXTRA_MEASURES"]
