"""Disparity against a reference: RR, AR, AR%, PAR and PAR%, each with its confidence interval.

Specific measures compare each unit i with the reference r (one unit, several units pooled, the best unit,
or a covariate quintile), in the same period:

- rate ratio RR = R_i / R_r, CI = exp(ln RR ± z·SE) (log method). ``rr_method``:
  ``poisson`` SE² = 1/D_i + 1/D_r (births as person-time; ``epitools::rateratio(method="wald")``),
  ``binomial`` SE² = 1/D_i − 1/LB_i + 1/D_r − 1/LB_r (Katz 1978; ``epiR`` ``RR.strata.wald``),
  ``exact`` (conditional binomial, Clopper-Pearson; ``epiR`` IRR), ``midp`` (Rothman & Greenland's mid-p,
  median-unbiased estimate; ``epitools::rateratio(method="midp")``). ``rr_method`` also sets the variance
  family of AR and PAR: ``binomial`` uses D(1 − D/LB), the others the Poisson D.
- attributable risk AR = (R_i − R_r)·1000, Wald CI (``epiR`` ``ARate``/``ARisk``).
- AR% = (R_i − R_r)/R_i × 100 = (RR − 1)/RR × 100, CI from the RR limits (``epiR`` ``AFRate``/``AFRisk``).

Global measures compare the total T (all units analysed, reference included) with the reference, in rows
with ``unit = "TOTAL"``: the rate ratio R_T/R_r, PAR = (R_T − R_r)·1000 and PAR% = PAR/R_T × 100
(Schneider et al. 2002, PAHO). ``par_method``: ``delta`` (delta method that accounts for the reference being
part of the total; equals ``epiR``'s "Pirikahu" PAR for a 2×2 table), ``walter`` (Walter 1976, as WHO HEAT),
``jewell`` (Jewell 2004, log(1 − PAF) scale, ``epiR`` ``PAFRisk``), ``wald`` (independence, conservative;
``epiR`` ``PARate``), ``sullivan`` (limits combined from the exact Poisson CIs; ``epiR`` ``PAFRate``).

Sign: PAHO/Latin American convention, PAR > 0 when the reference does better than the total. WHO HEAT
reports y_ref − μ (negative for mortality): multiply by −1 to compare.

When a unit belongs to the reference (its counts are part of R_r), every Wald/delta variance accounts for
the overlap (a unit that is the whole reference gets RR = 1, AR = 0 and a zero-width interval).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .compat import isin
from .errors import InputError, warn
# the reference (which units, how chosen) lives in disparity_reference; its names stay importable from here
from .disparity_reference import (BEST_MIN_EXPECTED, _normalise_codes, _pool_quick, prepare_panel,  # noqa: F401
                                  resolve_reference)
from .disparity_reference import MESSAGES as REFERENCE_MESSAGES
from .i18n import Catalog
from .intervals import as_float, check_conf_level, join_flags, poisson_exact_limits, z_value
from .intervals import divide as _div
from .rates import carry_notes, events_table
# measure = "excess_deaths": D − B·r_ref (AR, PAR × births, as brecha.excess_deaths), built with the table
from .disparity_table import EXCESS, excess, method_codes, unit_column
from .disparity_table import categorical as _categorical, counts as _counts
from .disparity_exact import _conditional_rr

MSG = Catalog({
    **REFERENCE_MESSAGES,  # the reference's own (brecha.disparity_reference)
    "bad_rr": ("método de razón de tasas '{name}' desconocido; use {choices}",
               "unknown rate-ratio method '{name}'; use {choices}"),
    "bad_par": ("método de RAP '{name}' desconocido; use {choices}", "unknown PAR method '{name}'; use {choices}"),
    "reference_zero": ("la referencia ({label}) tiene 0 defunciones en {periods}: RR y AR% no están definidos "
                       "ahí; use una referencia agrupada o best:N (mínimo de nacimientos)",
                       "the reference ({label}) has 0 deaths in {periods}: RR and AR% are undefined there; "
                       "use a pooled reference or best:N (a minimum of births)"),
    "total_name": ("Total de las unidades analizadas", "Total of the units analysed"),
    "no_units": ("unidades pedidas que no están en el panel: {codes}",
                 "requested units that are not in the panel: {codes}"),
    "no_units_hint": ("use códigos del panel (p. ej. {examples}), separados por comas, u omita la lista para "
                      "analizar todas las unidades", "use codes of the panel (e.g. {examples}), separated by "
                      "commas, or leave the list out to analyse every unit"),
})

RR_METHODS = ("poisson", "binomial", "exact", "midp")
PAR_METHODS = ("delta", "walter", "jewell", "wald", "sullivan")
MEASURES = ("rate_ratio", "attributable_risk", "attributable_risk_percent", "par", "par_percent")
TOTAL = "TOTAL"
DISPARITY_COLUMNS = ["unit", "period", "outcome", "measure", "estimate", "lower", "upper", "method", "se",
                     "p_value", "conf_level", "events", "births", "rate", "reference", "reference_events",
                     "reference_births", "reference_rate", "flag"]
_RR_LABEL = {"poisson": "poisson-wald", "binomial": "binomial-katz", "exact": "exact-conditional",
             "midp": "midp-exact"}


# ---------------------------------------------------------------------------------------------- helpers
def _check_rr(name: str) -> str:
    key = str(name).strip().lower()
    key = {"wald": "poisson", "katz": "binomial", "mid-p": "midp", "conditional": "exact"}.get(key, key)
    if key not in RR_METHODS:
        raise InputError(MSG("bad_rr", name=name, choices=", ".join(RR_METHODS)))
    return key


def _check_par(name: str) -> str:
    key = str(name).strip().lower()
    key = {"pirikahu": "delta", "heat": "walter"}.get(key, key)
    if key not in PAR_METHODS:
        raise InputError(MSG("bad_par", name=name, choices=", ".join(PAR_METHODS)))
    return key


def _family(rr_method: str) -> str:
    return "binomial" if rr_method == "binomial" else "poisson"


def count_variance(events, births, family: str = "poisson") -> np.ndarray:
    """Variance of a death count: D (Poisson) or D(1 − D/LB) (binomial; 0 when D > LB)."""
    d = np.asarray(events, dtype="float64")
    if family == "poisson":
        return d.copy()
    n = np.asarray(births, dtype="float64")
    with np.errstate(divide="ignore", invalid="ignore"):
        v = d * (1.0 - d / n)
    return np.where(n > 0, np.maximum(v, 0.0), np.nan)


# ---------------------------------------------------------------------------------------------- RR
# exact and mid-p conditional limits: brecha.disparity_exact
def rate_ratio(events, births, ref_events, ref_births, method: str = "poisson", conf_level: float = 0.95,
               in_reference=None) -> dict:
    """Rate ratio RR = (D/LB) / (D_r/LB_r) with its CI, vectorised.

    ``method``: ``poisson`` (log Wald, SE² = 1/D + 1/D_r), ``binomial`` (Katz log, SE² = 1/D − 1/LB + 1/D_r −
    1/LB_r), ``exact`` (conditional binomial, Clopper-Pearson), ``midp`` (mid-p; the estimate is the
    median-unbiased one, as ``epitools``). ``in_reference`` (bool per row) says the unit's counts are part of
    the reference counts; those rows use the delta method with the covariance (``poisson``/``binomial``
    family) whatever the method. ``se`` is on the log scale. ``p_value``: ``poisson`` the conditional score
    test (as ``epitools`` ``rate2by2.test`` "wald"), ``binomial`` Pearson's χ² for the 2×2 table, ``exact``
    twice the smaller exact tail, ``midp`` the two-sided mid-p.

    Reference: Rothman K (1998) Epidemiology: An Introduction; Katz D et al. (1978) Biometrics 34:469-474.

    >>> r = rate_ratio([41], [28010], [15], [19017])
    >>> [round(float(r[k][0]), 6) for k in ("estimate", "lower", "upper")]
    [1.855759, 1.027226, 3.352563]
    """
    method = _check_rr(method)
    alpha = 1.0 - check_conf_level(conf_level)
    z = z_value(1.0 - alpha)
    d1, n1, d0, n0 = (as_float(v) for v in (events, births, ref_events, ref_births))
    d1, n1, d0, n0 = np.broadcast_arrays(d1, n1, d0, n0)
    inref = (np.zeros(d1.shape, dtype=bool) if in_reference is None
             else np.broadcast_to(np.asarray(in_reference, dtype=bool), d1.shape))
    family = _family(method)
    with np.errstate(divide="ignore", invalid="ignore"):
        r1 = _div(d1, n1)
        r0 = _div(d0, n0)
        est = _div(r1, r0)
        ratio = est.copy()
        m = inref.astype(float)
        d_rest = d0 - m * d1
        n_rest = n0 - m * n1
        v1 = count_variance(d1, n1, family)
        v_rest = count_variance(d_rest, n_rest, family)
        v_rest = np.where(n_rest > 0, v_rest, 0.0)
        g1 = _div(1.0, d1) - m * _div(1.0, d0)
        g_rest = -_div(1.0, d0)
        se = np.sqrt(g1 ** 2 * v1 + g_rest ** 2 * v_rest)
        se = np.where(inref & (d_rest == 0) & (n_rest == 0), 0.0, se)
        log_est = np.log(est)
        lower = np.exp(log_est - z * se)
        upper = np.exp(log_est + z * se)
        # score test conditional on D1 + D0 (Poisson) or Pearson chi-square (binomial)
        if family == "poisson":
            tot = d1 + d0
            p0 = n1 / (n1 + n0)
            score = (d1 - tot * p0) / np.sqrt(tot * p0 * (1 - p0))
        else:
            pooled = (d1 + d0) / (n1 + n0)
            score = (r1 - r0) / np.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n0))
    from scipy.special import ndtr

    pval = 2 * ndtr(-np.abs(score))
    labels = np.full(d1.shape, _RR_LABEL[method], dtype=object)
    if method in ("exact", "midp"):
        use = ~inref & np.isfinite(d1) & np.isfinite(d0) & (n1 > 0) & (n0 > 0) & (d1 + d0 > 0)
        if use.any():
            e2, l2, u2, p2 = _conditional_rr(d1[use], n1[use], d0[use], n0[use], method, alpha)
            est = est.copy()
            est[use], lower[use], upper[use], pval[use] = e2, l2, u2, p2
        labels[inref] = "poisson-wald (unit in reference)"
    else:
        # a zero count: the log interval is undefined on that side; RR = 0 keeps its lower limit 0
        zero1 = (d1 == 0) & ~inref
        lower = np.where(zero1, 0.0, lower)
        upper = np.where(zero1, np.nan, upper)
    pval = np.where(inref, np.nan, pval)
    bad = ~np.isfinite(est)
    est = np.where(bad, np.nan, est)
    lower = np.where(~np.isfinite(lower), np.where(est == 0, 0.0, np.nan), lower)
    upper = np.where(bad | ~np.isfinite(upper), np.nan, upper)
    se = np.where(np.isfinite(se), se, np.nan)
    ratio = np.where(np.isfinite(ratio), ratio, np.nan)
    return {"estimate": est, "lower": lower, "upper": upper, "se": se, "p_value": pval, "method": labels,
            "ratio": ratio}


def attributable_risk(events, births, ref_events, ref_births, family: str = "poisson", conf_level: float = 0.95,
                      in_reference=None, per: float = 1000) -> dict:
    """AR = (D/LB − D_r/LB_r)·per with a Wald CI (``epiR`` ``ARate`` for Poisson, ``ARisk`` for binomial).

    Var = D/LB² + D_r/LB_r² (Poisson) or R(1−R)/LB + R_r(1−R_r)/LB_r (binomial), with the covariance when
    the unit is part of the reference.

    >>> r = attributable_risk([41], [28010], [15], [19017])
    >>> [round(float(r[k][0]), 6) for k in ("estimate", "lower", "upper")]
    [0.674995, 0.074927, 1.275063]
    """
    z = z_value(check_conf_level(conf_level))
    d1, n1, d0, n0 = (as_float(v) for v in (events, births, ref_events, ref_births))
    d1, n1, d0, n0 = np.broadcast_arrays(d1, n1, d0, n0)
    m = (np.zeros(d1.shape) if in_reference is None
         else np.broadcast_to(np.asarray(in_reference, dtype=float), d1.shape))
    est = (_div(d1, n1) - _div(d0, n0))
    d_rest, n_rest = d0 - m * d1, n0 - m * n1
    v1 = count_variance(d1, n1, family)
    v_rest = np.where(n_rest > 0, count_variance(d_rest, n_rest, family), 0.0)
    g1 = _div(1.0, n1) - m * _div(1.0, n0)
    g_rest = -_div(1.0, n0)
    se = np.sqrt(g1 ** 2 * v1 + g_rest ** 2 * v_rest)
    return {"estimate": est * per, "lower": (est - z * se) * per, "upper": (est + z * se) * per,
            "se": se * per, "method": np.full(d1.shape, f"wald-{family}", dtype=object)}


def attributable_fraction(rr: dict) -> dict:
    """AR% = (RR − 1)/RR × 100 with the CI from the RR limits (``epiR`` ``AFRate``/``AFRisk``)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        f = lambda v: np.where(v > 0, (v - 1.0) / v * 100.0, np.nan)  # noqa: E731
        return {"estimate": f(rr.get("ratio", rr["estimate"])), "lower": f(rr["lower"]),
                "upper": np.where(np.isnan(rr["upper"]), np.nan, f(rr["upper"])),
                "se": np.full(np.shape(rr["estimate"]), np.nan),
                "method": _prefix("rr-limits:", rr["method"])}


def _prefix(prefix: str, labels) -> np.ndarray:
    codes, uniques = pd.factorize(np.asarray(labels, dtype=object))
    return np.array([prefix + str(u) for u in uniques], dtype=object)[codes]


# ---------------------------------------------------------------------------------------------- PAR
def population_attributable_risk(other_events, other_births, ref_events, ref_births, ref_out_events=0,
                                  ref_out_births=0, method: str = "delta", family: str = "poisson",
                                  conf_level: float = 0.95, per: float = 1000) -> dict:
    """PAR = (R_T − R_r)·per and PAR% = PAR/R_T × 100 with CIs (PAHO convention: positive = reference better).

    The total T is made of the non-reference units (``other_*``) and the reference units inside it
    (``ref_*``); ``ref_out_*`` are reference units outside the total (when only some units are analysed).
    R_r pools ``ref_*`` and ``ref_out_*``. Returns ``{"par": {...}, "par_percent": {...}, "rate_ratio":
    {...}}`` (the last is R_T/R_r with a log-scale delta CI).

    ``method``:
    - ``delta``: Var(PAR) = Σ_x (∂PAR/∂D_x)² Var(D_x) over the independent parts (delta method with the
      overlap of reference and total; = w_o²[R_o(1−R_o)/n_o + R_r(1−R_r)/n_r] for a 2×2 table, epiR's
      "Pirikahu" PAR). PAR% by the same delta method for 1 − R_r/R_T, on the fraction scale.
    - ``walter``: Var(PAF) = cN[ad(N−c) + bc²]/[(a+c)³(c+d)³] (Walter 1976), a, b non-reference deaths and
      survivors, c, d reference deaths and survivors; SE(PAR) = R_T·SE(PAF) as WHO HEAT.
    - ``jewell``: Var[ln(1−PAF)] = (b + PAF(a+d))/(Nc) (Jewell 2004, epiR ``PAFRisk``); PAR = R_T × limits.
    - ``wald``: Var(PAR) = Var(R_T) + Var(R_r), as if independent (epiR ``PARate``); PAR% = PAR limits/R_T.
    - ``sullivan``: PAF limits combined from the exact Poisson CIs of R_T and R_r (epiR ``PAFRate``).

    >>> r = population_attributable_risk([2500], [200000], [30], [6000], method="jewell", family="binomial")
    >>> [round(float(r["par_percent"][k][0]), 3) for k in ("estimate", "lower", "upper")]
    [59.289, 41.949, 71.449]
    """
    method = _check_par(method)
    alpha = 1.0 - check_conf_level(conf_level)
    z = z_value(1.0 - alpha)
    do, no, dr, nr, dq, nq = (as_float(v) for v in (other_events, other_births, ref_events, ref_births,
                                                     ref_out_events, ref_out_births))
    do, no, dr, nr, dq, nq = np.broadcast_arrays(do, no, dr, nr, dq, nq)
    dt, nt = do + dr, no + nr              # the total analysed
    dref, nref = dr + dq, nr + nq          # the reference
    rt, rref = _div(dt, nt), _div(dref, nref)
    par = rt - rref
    paf = _div(par, rt)
    with np.errstate(divide="ignore", invalid="ignore"):
        inv_nt, inv_nref = _div(1.0, nt), _div(1.0, nref)
        parts = [(do, no, inv_nt, 0.0), (dr, nr, inv_nt, inv_nref), (dq, nq, 0.0, inv_nref)]
        var_par = var_paf = var_logrr = 0.0
        for d, n, gt, gr in parts:
            v = np.where(n > 0, count_variance(d, n, family), 0.0)
            var_par = var_par + (gt - gr) ** 2 * v
            var_paf = var_paf + ((gr * rt - rref * gt) / rt ** 2) ** 2 * v
            var_logrr = var_logrr + (gt / rt - gr / rref) ** 2 * v
        se_logrr = np.sqrt(var_logrr)
        rr_est = _div(rt, rref)
        rr = {"estimate": np.where(np.isfinite(rr_est), rr_est, np.nan),
              "lower": rr_est * np.exp(-z * se_logrr), "upper": rr_est * np.exp(z * se_logrr),
              "se": se_logrr, "method": np.full(dt.shape, f"delta-{family}", dtype=object)}
        if method == "delta":
            se_par = np.sqrt(var_par)
            se_paf = np.sqrt(var_paf)
            par_lo, par_up = par - z * se_par, par + z * se_par
            paf_lo, paf_up = paf - z * se_paf, paf + z * se_paf
            label = f"delta-{family}"
        elif method == "wald":
            se_par = np.sqrt(count_variance(dt, nt, family) / nt ** 2 + count_variance(dref, nref, family) / nref ** 2)
            se_paf = se_par / rt
            par_lo, par_up = par - z * se_par, par + z * se_par
            paf_lo, paf_up = par_lo / rt, par_up / rt
            label = f"wald-{family}"
        else:
            a, b = do, no - do
            c, d = dref, nref - dref
            big_n = a + b + c + d
            if method == "walter":
                var = c * big_n * (a * d * (big_n - c) + b * c ** 2) / ((a + c) ** 3 * (c + d) ** 3)
                se_paf = np.sqrt(var)
                paf_lo, paf_up = paf - z * se_paf, paf + z * se_paf
                label = "walter"
            elif method == "jewell":
                var = (b + paf * (a + d)) / (big_n * c)
                se_paf = np.sqrt(var)  # on the log(1 - PAF) scale
                base = np.log1p(-paf)
                paf_lo = 1.0 - np.exp(base + z * se_paf)
                paf_up = 1.0 - np.exp(base - z * se_paf)
                label = "jewell"
            else:  # sullivan
                lt_, ut_ = poisson_exact_limits(dt, alpha / 2, alpha / 2)
                lr_, ur_ = poisson_exact_limits(dref, alpha / 2, alpha / 2)
                lt_, ut_, lr_, ur_ = lt_ / nt, ut_ / nt, lr_ / nref, ur_ / nref
                one = _div(lt_ - lr_, lt_)
                two = _div(ut_ - ur_, ut_)
                paf_lo, paf_up = np.fmin(one, two), np.fmax(one, two)
                se_paf = np.full(dt.shape, np.nan)
                label = "sullivan"
            se_par = rt * se_paf if method == "walter" else np.full(dt.shape, np.nan)
            par_lo, par_up = rt * paf_lo, rt * paf_up
    lab = np.full(dt.shape, label, dtype=object)
    par_out = {"estimate": par * per, "lower": par_lo * per, "upper": par_up * per, "se": se_par * per,
               "method": lab}
    se_pct = se_paf * 100 if method != "jewell" else se_paf
    paf_out = {"estimate": paf * 100, "lower": paf_lo * 100, "upper": paf_up * 100, "se": se_pct,
               "method": lab.copy()}
    return {"par": par_out, "par_percent": paf_out, "rate_ratio": rr}


# ---------------------------------------------------------------------------------------------- table
def disparity(panel, reference, outcome: str = "infant", years=None, pool: bool = False,
              conf_level: float = 0.95, rr_method: str = "poisson", par_method: str = "delta", units=None,
              level: str | None = None, per: float = 1000) -> pd.DataFrame:
    """RR, AR, AR% of every unit against the reference, and the total's RR, PAR and PAR%, per period.

    Parameters
    ----------
    panel : Panel or DataFrame (``unit, year|period, events, births``)
    reference : code, list of codes, ``"best"``, ``"best:N"``, ``"lowest-quintile:COVARIATE"`` or
        ``"highest-quintile:COVARIATE"`` (see :func:`resolve_reference`). The same reference units are used
        in every period; their counts are pooled period by period.
    rr_method : ``poisson`` | ``binomial`` | ``exact`` | ``midp`` (also the variance family of AR and PAR).
    par_method : ``delta`` | ``walter`` | ``jewell`` | ``wald`` | ``sullivan``.
    units : codes, optional
        Analyse only these units (rows and the total); the reference may lie outside them.
    level : None | ``province`` | ``region`` | ``country``
        Sum the counts up to that level first: each region against a reference region (a code, ``best``,
        or a covariate quintile of regions by their births-weighted mean) and the country's PAR.

    A quintile reference on a covariate the panel lacks attaches it when brecha can build it
    (:func:`prepare_panel`); its notes travel in ``table.attrs["notes"]``.

    Returns
    -------
    DataFrame ``unit, period, outcome, measure, estimate, lower, upper, method, se, p_value, conf_level,
    events, births, rate, reference, reference_events, reference_births, reference_rate, flag`` (+ ``name``).
    ``measure`` is ``rate_ratio``, ``attributable_risk``, ``attributable_risk_percent``, ``excess_deaths`` per
    unit, and ``rate_ratio``, ``par``, ``par_percent``, ``excess_deaths`` for ``unit = "TOTAL"``. ``se``: log
    scale for rate ratios and Jewell's PAR%, otherwise the estimate's scale. Flags: ``zero_births``, ``missing``,
    ``zero_events``, ``events_exceed_births``, ``in_reference``, ``reference_zero_events``,
    ``reference_zero_births`` (no reference unit has births in that period), ``reference_incomplete``.
    """
    plan = _Plan(panel, reference, outcome, years, pool, conf_level, rr_method, par_method, units, level, per)
    return plan.table(plan.rows, np.arange(plan.k))


def disparity_blocks(panel, reference, outcome: str = "infant", years=None, pool: bool = False,
                     conf_level: float = 0.95, rr_method: str = "poisson", par_method: str = "delta", units=None,
                     level: str | None = None, per: float = 1000, block_rows: int = 100_000):
    """The table of :func:`disparity` in consecutive pieces (same arguments), for writing it without holding
    it whole: pieces of at most ``block_rows`` unit-periods (four rows each), the ``TOTAL`` rows in the last.

    Concatenated, the pieces hold the same rows, in the same order and with the same numbers, as
    :func:`disparity` (each row's arithmetic depends only on its unit-period and the period's reference and
    total sums, computed once for the whole panel first). Text columns are categoricals whose categories may
    differ between pieces. Every piece carries the whole table's ``attrs`` (notes, reference label).
    """
    plan = _Plan(panel, reference, outcome, years, pool, conf_level, rr_method, par_method, units, level, per)
    step = max(1, int(block_rows))
    starts = list(range(0, len(plan.rows), step)) or [0]
    for i, start in enumerate(starts):
        last = i == len(starts) - 1
        yield plan.table(plan.rows[start:start + step], np.arange(plan.k) if last else np.arange(0))


class _Plan:
    """What every row of a disparity table needs, computed once for the whole panel: the events table, the
    reference (codes, label), per-period sums of the reference, of the analysed units and of the reference
    units left out, and the total's measures. :meth:`table` then builds the rows of any unit-periods."""

    def __init__(self, panel, reference, outcome, years, pool, conf_level, rr_method, par_method, units, level,
                 per):
        from .panel import Panel

        self.rr_method = _check_rr(rr_method)
        par_method = _check_par(par_method)
        self.conf_level = conf_level = check_conf_level(conf_level)
        self.family = family = _family(self.rr_method)
        self.per = per
        panel = prepare_panel(panel, reference)
        # by level: the groups' events from Panel.events(level=...) (births paired with this outcome's deaths);
        # the groups' covariates and codes, for the reference, from Panel.aggregate
        ev, unit_attrs, name = events_table(panel, outcome, years, pool, level)
        groups = prepare_panel(panel, None, level) if level and isinstance(panel, Panel) else panel
        if units is not None:
            wanted = _normalise_codes(groups, [units] if isinstance(units, str) else [str(u) for u in units])
            present = set(ev["unit"].unique().tolist())  # once, not per code asked for
            absent = [u for u in wanted if u not in present]
            if absent:  # never analyse fewer units than asked without a word
                raise InputError(MSG("no_units", codes=", ".join(absent[:10]) + (" ..." if len(absent) > 10 else "")),
                                 argument="units", hint=MSG("no_units_hint", examples=", ".join(
                                     map(str, pd.unique(ev["unit"])[:3]))))
            analysed = isin(ev["unit"], wanted)
            unit_list = sorted(set(wanted) & present)
        else:
            analysed = np.ones(len(ev), dtype=bool)
            unit_list = None
        if isinstance(reference, tuple) and len(reference) == 2 and isinstance(reference[1], str) \
                and not isinstance(reference[0], str):
            codes, label = list(reference[0]), reference[1]
        else:
            codes, label = resolve_reference(groups, reference, years, name, units=unit_list,
                                             _pooled=(_pool_quick(ev), unit_attrs))

        self.d = d = as_float(ev["events"])
        self.n = n = as_float(ev["births"])
        self.valid = valid = np.isfinite(d) & np.isfinite(n)
        self.is_ref = is_ref = isin(ev["unit"], codes)
        pidx, periods = pd.factorize(ev["period"].astype(str), sort=True)
        self.pidx, self.periods = pidx, np.asarray(periods, dtype=object)
        self.k = k = len(periods)

        def sums(mask):
            w = mask & valid
            return (np.bincount(pidx, weights=np.where(w, d, 0.0), minlength=k),
                    np.bincount(pidx, weights=np.where(w, n, 0.0), minlength=k))

        self.d_ref, self.n_ref = sums(is_ref)
        self.ref_incomplete = np.bincount(pidx, weights=(is_ref & ~valid).astype(float), minlength=k) > 0
        d_o, n_o = sums(analysed & ~is_ref)
        d_in, n_in = sums(analysed & is_ref)
        d_out, n_out = sums(~analysed & is_ref)
        self.zero_ref = (self.d_ref == 0) & (self.n_ref > 0)
        if self.zero_ref.any():
            warn(MSG("reference_zero", label=label, periods=", ".join(self.periods[self.zero_ref][:10])))
        # global measures, per period: rate_ratio, par, par_percent of the TOTAL
        total = population_attributable_risk(d_o, n_o, d_in, n_in, d_out, n_out, par_method, family,
                                             conf_level, per)
        total[EXCESS] = excess(total["par"], n_o + n_in, per)
        self.total = total
        self.d_total, self.n_total = d_o + d_in, n_o + n_in
        self.rows = np.flatnonzero(analysed)
        self.name, self.label, self.codes = name, label, list(codes)
        self.unit_codes, self.unit_values = pd.factorize(ev["unit"])
        self.names = None
        if unit_attrs is not None and "name" in unit_attrs.columns:
            attrs = unit_attrs.drop_duplicates("unit")
            where = pd.Index(attrs["unit"].astype(str)).get_indexer(ev["unit"])
            name_codes, name_values = pd.factorize(attrs["name"].to_numpy(dtype=object), use_na_sentinel=True)
            self.names = (np.where(where >= 0, name_codes[where], -1), list(name_values) + [MSG("total_name")])
        self.attrs = {"reference_units": list(codes), "reference_label": label}
        if level and isinstance(panel, Panel):  # the panel's notes and what the level's sums left out
            self.attrs["notes"] = list(ev.attrs["notes"])
        else:
            self.attrs.update(carry_notes(pd.DataFrame(), panel).attrs)

    def table(self, rows: np.ndarray, tp: np.ndarray) -> pd.DataFrame:
        """The rows of the events table's unit-periods ``rows`` (four each), then the ``TOTAL`` rows of the
        periods ``tp`` (four each)."""
        d, n, valid, pidx, per = self.d, self.n, self.valid, self.pidx, self.per
        d_ref, n_ref, zero_ref, ref_incomplete = self.d_ref, self.n_ref, self.zero_ref, self.ref_incomplete
        k = len(tp)
        # specific measures, one block of rows per unit-period: rate_ratio, attributable_risk, ..._percent
        pr = pidx[rows]
        du, nu = np.where(valid[rows], d[rows], np.nan), np.where(valid[rows], n[rows], np.nan)
        nu_ok = np.where(nu > 0, nu, np.nan)
        inref = self.is_ref[rows]
        rr = rate_ratio(du, nu_ok, d_ref[pr], n_ref[pr], self.rr_method, self.conf_level, in_reference=inref)
        ar = attributable_risk(du, nu_ok, d_ref[pr], n_ref[pr], self.family, self.conf_level, in_reference=inref,
                               per=per)
        af = attributable_fraction(rr)
        flags = join_flags(len(rows), [
            (~valid[rows], "missing"), (valid[rows] & (n[rows] == 0), "zero_births"),
            ((du == 0) & (nu > 0), "zero_events"), (inref, "in_reference"),
            (valid[rows] & (n[rows] > 0) & (d[rows] > n[rows]), "events_exceed_births"),
            (zero_ref[pr], "reference_zero_events"), (n_ref[pr] == 0, "reference_zero_births"),
            (ref_incomplete[pr], "reference_incomplete")])
        specific = ("rate_ratio", "attributable_risk", "attributable_risk_percent", EXCESS)
        results = (rr, ar, af, excess(ar, n[rows], per))
        nm = len(specific)

        def interleave(key, default=np.nan):
            return np.column_stack([np.asarray(r.get(key, np.full(len(rows), default)), dtype=float)
                                    for r in results]).ravel()

        total = {m: {key: np.asarray(value)[tp] for key, value in self.total[m].items()} for m in self.total}
        tmeasures = ("rate_ratio", "par", "par_percent", EXCESS)
        tflags = join_flags(k, [(self.n_total[tp] == 0, "zero_births"), (zero_ref[tp], "reference_zero_events"),
                                (n_ref[tp] == 0, "reference_zero_births"),
                                (ref_incomplete[tp], "reference_incomplete")])

        def tinterleave(key):
            stack = [np.asarray(total[m].get(key, np.full(k, np.nan)), dtype=float) for m in tmeasures]
            return np.column_stack(stack).ravel() if k else np.zeros(0)

        rep = np.repeat(rows, nm)
        trep = np.repeat(tp, len(tmeasures))
        tloc = np.repeat(np.arange(k), len(tmeasures))
        ref_rate = _div(d_ref, n_ref) * per
        # text columns with few distinct values are categoricals: 300,000+ rows of a long reference label
        # would otherwise cost more than all the arithmetic
        flag_codes, flag_values = pd.factorize(np.concatenate([flags, tflags]))
        flag_rows = np.concatenate([np.repeat(flag_codes[:len(rows)], nm), flag_codes[len(rows):][tloc]])
        order = MEASURES + (EXCESS,)
        out = pd.DataFrame({
            "unit": unit_column((self.unit_codes, self.unit_values), rep, len(trep), TOTAL),
            "period": _categorical(np.concatenate([pidx[rep], trep]), self.periods),
            "outcome": _categorical(np.zeros(len(rep) + len(trep), dtype=np.int64), [self.name]),
            "measure": _categorical(np.concatenate([np.tile([order.index(m) for m in specific], len(rows)),
                                                    np.tile([order.index(m) for m in tmeasures], k)]), order),
            "estimate": np.concatenate([interleave("estimate"), tinterleave("estimate")]),
            "lower": np.concatenate([interleave("lower"), tinterleave("lower")]),
            "upper": np.concatenate([interleave("upper"), tinterleave("upper")]),
            "method": _categorical(*method_codes([r["method"] for r in results],
                                                 [total[m]["method"] for m in tmeasures], len(rows), k)),
            "se": np.concatenate([interleave("se"), tinterleave("se")]),
            "p_value": np.concatenate([interleave("p_value"), np.full(len(trep), np.nan)]),
            "conf_level": self.conf_level,
            "events": _counts(np.concatenate([d[rep], self.d_total[trep]])),
            "births": _counts(np.concatenate([n[rep], self.n_total[trep]])),
            "rate": np.concatenate([(_div(du, nu_ok) * per)[np.repeat(np.arange(len(rows)), nm)],
                                    _div(self.d_total, self.n_total)[trep] * per]),
            "reference": _categorical(np.zeros(len(rep) + len(trep), dtype=np.int64), [self.label]),
            "reference_events": _counts(np.concatenate([d_ref[pidx[rep]], d_ref[trep]])),
            "reference_births": _counts(np.concatenate([n_ref[pidx[rep]], n_ref[trep]])),
            "reference_rate": np.concatenate([ref_rate[pidx[rep]], ref_rate[trep]]),
            "flag": _categorical(flag_rows, flag_values),
        })
        if self.names is not None:
            name_codes, categories = self.names
            out["name"] = _categorical(np.concatenate([name_codes[rep], np.full(len(trep), len(categories) - 1)]),
                                       categories)
        out.attrs.update({key: list(value) if isinstance(value, list) else value
                          for key, value in self.attrs.items()})
        return out
