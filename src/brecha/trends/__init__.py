"""Trends: Prais-Winsten regression, annual percent change per unit, joinpoint regression.

- :func:`prais_winsten`: the general estimator (R ``prais`` / Stata ``prais`` compatible), vectorised.
- :func:`trends`: per-unit log10-rate trends with APC, CI and class (increasing/decreasing/stationary).
- :data:`TREND_LABELS` / :func:`trend_labels`: the Spanish and English labels of the class codes
  (creciente / decreciente / estacionaria), the one place the report and the CLI take them from.
- :func:`joinpoint`: NCI-style joinpoint (segmented log-linear) regression with APC and AAPC: WBIC (default),
  BIC, BIC3 or permutation selection, continuous joinpoints, AAPC intervals (:mod:`.aapc`); comparability
  tests (:mod:`.comparability`, :func:`.compare_panel.compare_trends`), a jump at a year
  (:mod:`.joinpoint_jump`), the Poisson model on counts (:mod:`.joinpoint_poisson`).
"""
from .apc import TREND_CLASSES, TREND_LABELS, ZERO_RULES, classify, trend_label, trend_labels, trends  # noqa: F401
from .prais import RHO_METHODS, PraisResult, durbin_watson, estimate_rho, prais_winsten  # noqa: F401
from .joinpoint import JoinpointResult, joinpoint, max_joinpoints_default  # noqa: F401
