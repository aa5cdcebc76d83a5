"""Analytic standard errors and confidence intervals of the summary measures.

With subgroup SEs (always for panel data, from the counts) every SE is the sampling error of the
counts propagated to the measure:
- ACI, RCI, concentration index: delta method (below).
- SII, RII: the logit fit's sensitivity to the counts (implicit-function sandwich with the counts'
  variance), delta method to pi(1) - pi(0) and ln(pi(1)/pi(0)).
Without subgroup SEs (WHO's interface) ACI/RCI take the OLS SE of Kakwani's convenient regression and
SII/RII the HC1 sandwich, as healthequal; those measure the scatter of the subgroup points around the
fitted line, not the sampling error (docs/inequality.md).
- BGV: Ahn et al. (2018) variance, as healthequal.
- PAF, PAR: Walter (1978) variance of the attributable fraction from the 2x2 table of the reference
  against the rest; SE(PAF %) = 100 SE(fraction), SE(PAR) = mean x SE(fraction) (WHO adds the fraction
  SE to a percentage, see docs/inequality.md).
- Everything else: first-order delta method, SE^2 = sum_j (dM/dy_j)^2 se_j^2 with the subgroup
  estimates independent, from closed-form gradients in O(n) (checked against central differences in
  the tests). For TI and MLD this is exactly WHO's analytic formula (scaled by 1000 like the
  estimate); for D it is sqrt(se_1^2 + se_2^2) and for R it is WHO's delta formula.
- Percentiles (P90/P10 and HEAT's percentile differences): no analytic SE. The delta method would
  charge the whole sampling variance of the one or two subgroups at the percentile, while with many
  subgroups a neighbour takes their place: on Chilean communes it overstated the bootstrap SE 4-10
  times. Use the bootstrap.
"""
from __future__ import annotations

import numpy as np

from ..i18n import Catalog
from . import measures as M
from . import ordered

REGRESSION = frozenset({"aci", "rci", "concentration_index"})
LOGIT = frozenset({"sii", "rii"})
WALTER = frozenset({"par", "paf"})

CI_METHOD = Catalog({
    "regression": ("EE de MCO de la regresión conveniente de Kakwani (OMS; sin EE de los subgrupos)",
                   "OLS SE of Kakwani's convenient regression (WHO; no subgroup SEs given)"),
    "logit": ("EE sándwich HC1, método delta (OMS; sin EE de los subgrupos)",
              "HC1 sandwich SE, delta method (WHO; no subgroup SEs given)"),
    "logit_counts": ("varianza muestral de los conteos a través del score del GLM (sándwich), método delta",
                     "sampling variance of the counts through the GLM score (sandwich), delta method"),
    "bgv": ("varianza analítica de Ahn et al. (2018)", "Ahn et al. (2018) analytic variance"),
    "walter": ("varianza de Walter (1978) de la fracción atribuible",
               "Walter (1978) variance of the attributable fraction"),
    "delta": ("método delta (EE de los subgrupos, subgrupos independientes)",
              "delta method (subgroup SEs, independent subgroups)"),
    "percentile": ("sin IC analítico (un percentil de las estimaciones de los subgrupos): use el bootstrap",
                   "none analytic (a percentile of the subgroup estimates): use the bootstrap"),
})


def _z(conf_level: float) -> float:
    from ..intervals import z_value

    return z_value(conf_level)


def bgv_variance(y, se, share) -> float:
    """Var(BGV) = 4 sum p_j^2 s_j^2 (y_j - mu)^2 + 2[(sum p_j^2 s_j^2)^2 - sum p_j^4 s_j^4
    + sum p_j^2 (1 - p_j)^2 s_j^4] (Ahn et al. 2018, as in healthequal ``bgv``)."""
    mu = np.sum(share * y)
    ps2 = share ** 2 * se ** 2
    first = 4.0 * np.sum(ps2 * (y - mu) ** 2)
    second = 2.0 * (np.sum(ps2) ** 2 - np.sum(share ** 4 * se ** 4) + np.sum(share ** 2 * (1 - share) ** 2 * se ** 4))
    return float(first + second)


def walter_fraction_variance(ref_rate, ref_population, mean, total_population, scale) -> float:
    """Walter (1978) variance of the population attributable fraction (as a fraction).

    With c = reference events, d = reference non-events, a = events elsewhere, b = non-events elsewhere
    and N the total: Var = c N [a d (N - c) + b c^2] / [(a + c)^3 (c + d)^3].
    """
    c = ref_rate / scale * ref_population
    d = ref_population - c
    a = mean / scale * total_population - c
    b = total_population - a - ref_population
    n = a + b + c + d
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(c * n * (a * d * (n - c) + b * c ** 2) / ((a + c) ** 3 * (c + d) ** 3))


def numerical_delta_se(y, se, sub: M.Subgroups, names) -> dict[str, float]:
    """Delta-method SEs with the gradient by central differences (one-sided where a step would make a
    rate negative). O(n^2) in time and memory: the check of :func:`delta_se` in the tests, not used on
    panels (5,570 Brazilian municipalities would need a 11,140 x 5,570 batch)."""
    y = np.asarray(y, dtype=float)
    n = len(y)
    h = 1e-6 * (np.abs(y) + np.mean(np.abs(y)) + 1e-12)
    down = np.minimum(h, np.maximum(y, 0.0))
    eye = np.eye(n)
    batch = np.concatenate([y + eye * h[:, None], y - eye * down[:, None]], axis=0)
    vals = M.evaluate(batch, sub, names)
    out = {}
    for name in names:
        with np.errstate(invalid="ignore"):
            grad = (vals[name][:n] - vals[name][n:]) / (h + down)
        out[name] = float(np.sqrt(np.sum(grad ** 2 * se ** 2))) if np.all(np.isfinite(grad)) else np.nan
    return out


def _selector(y, sub: M.Subgroups, which: str) -> np.ndarray:
    """Gradient of a selected estimate: 'max' / 'min' (the first such subgroup), 'ref' (the reference's
    population-weighted mean), 'least' / 'most' (the ends of an ordered dimension)."""
    g = np.zeros(len(y))
    if which in ("max", "min"):
        g[int(np.argmax(y) if which == "max" else np.argmin(y))] = 1.0
        return g
    if which == "ref":
        mask = sub.reference
    else:
        mask = sub.order == (sub.order.min() if which == "least" else sub.order.max())
    w = sub.share * mask
    return w / w.sum()


def _pair_gradients(y, sub: M.Subgroups):
    """Gradients of (y1, y2) of D and R under the selection of :func:`measures.pair`."""
    if sub.is_ordered:
        least, most = _selector(y, sub, "least"), _selector(y, sub, "most")
        return (most, least) if sub.favourable else (least, most)
    if sub.reference is None:
        return _selector(y, sub, "max"), _selector(y, sub, "min")
    ref = _selector(y, sub, "ref")
    return (ref, _selector(y, sub, "min")) if sub.favourable else (_selector(y, sub, "max"), ref)


def _ratio_gradient(num, g_num, den, g_den):
    """Gradient of num / den."""
    return (g_num * den - num * g_den) / den ** 2


def _mean_abs_gradient(y, centre, g_centre, weight):
    """Gradient of sum_j c_j |y_j - m(y)| with m's gradient ``g_centre`` (c = 1/n or the shares)."""
    sign = np.sign(y - centre)
    return weight * sign - np.sum(weight * sign) * g_centre


def gradients(y, sub: M.Subgroups, names, values: dict) -> dict[str, np.ndarray | None]:
    """Closed-form gradient dM/dy_j of each measure at ``y`` (None: no delta-method SE, e.g. percentiles).

    O(n) per measure (O(n log n) with a sort). Where a measure is not differentiable (a max, a min, an
    absolute value at 0) the gradient of the side the estimate sits on is used, as any first-order delta
    method does. ``values`` holds the estimates (``measures.evaluate``).
    """
    y = np.asarray(y, dtype=float)
    n = len(y)
    w = sub.share
    mu = float(y @ w)
    out: dict[str, np.ndarray | None] = {}
    cache: dict = {}

    def get(key, fn):
        if key not in cache:
            cache[key] = fn()
        return cache[key]

    g_bgv = lambda: get("bgv", lambda: 2.0 * w * (y - mu))  # noqa: E731  (sum p_j (y_j - mu) = 0)
    unweighted = np.full(n, 1.0 / n)
    best = "max" if sub.favourable else "min"

    def linear_ratio(a_coef, b_coef):
        """Gradient of (a.y) / (b.y)."""
        return _ratio_gradient(y @ a_coef, a_coef, y @ b_coef, b_coef)

    with np.errstate(divide="ignore", invalid="ignore"):
        for name in names:
            if name in M.PERCENTILE_MEASURES:
                g = None
            elif name == "mean":
                g = w.copy()
            elif name in ("d", "r"):
                g1, g2 = _pair_gradients(y, sub)
                if name == "d":
                    g = g1 - g2
                else:
                    g = _ratio_gradient(y @ g1, g1, y @ g2, g2)
            elif name == "aci":
                g = w * (2.0 * sub.rank - 1.0)
            elif name == "rci":
                g = linear_ratio(w * (2.0 * sub.rank - 1.0), w)
            elif name == "concentration_index":
                levels, inverse = np.unique(np.asarray(sub.rank), return_inverse=True)
                block = np.bincount(inverse, weights=w, minlength=len(levels))
                above = np.cumsum(block[::-1])[::-1]
                g = -2.0 * linear_ratio(w * ((2.0 * above - block) / 2.0)[inverse], w)
            elif name == "kunst_mackenbach":
                xbar = np.sum(w * sub.rank)
                c_slope = w * (sub.rank - xbar) / np.sum(w * (sub.rank - xbar) ** 2)
                c_intercept = w - c_slope * xbar
                g = linear_ratio(c_intercept, c_intercept + c_slope)
            elif name == "bgv":
                g = g_bgv()
            elif name in ("bgsd", "cov"):
                sd = np.sqrt(float(values.get("bgv", np.sum(w * (y - mu) ** 2))))
                g_sd = g_bgv() / (2.0 * sd)
                g = g_sd if name == "bgsd" else 100.0 * _ratio_gradient(sd, g_sd, mu, w)
            elif name in ("mdmu", "mdmw", "idisu", "idisw"):
                weight = unweighted if name in ("mdmu", "idisu") else w
                g = _mean_abs_gradient(y, mu, w, weight)
                if name.startswith("idis"):
                    g = 100.0 * _ratio_gradient(float(np.sum(weight * np.abs(y - mu))), g, mu, w)
            elif name in ("mdbu", "mdbw"):
                g_best = _selector(y, sub, best)
                g = _mean_abs_gradient(y, y @ g_best, g_best, unweighted if name == "mdbu" else w)
            elif name in ("mdru", "mdrw"):
                g_ref = _selector(y, sub, "ref")
                g = _mean_abs_gradient(y, y @ g_ref, g_ref, unweighted if name == "mdru" else w)
            elif name == "ti":
                # 1000 p_j (1 + ln r_j - sum_k p_k r_k (1 + ln r_k)) / mu; a rate of 0 has an SE of 0 from
                # its counts, and its term is taken as 0 (y ln y is flat at 0 from the right)
                r = y / mu
                log_term = np.where(r > 0, 1.0 + np.log(np.where(r > 0, r, 1.0)), 0.0)
                g = 1000.0 * w * (log_term - np.sum(w * r * log_term)) / mu
            elif name == "mld":
                g = 1000.0 * (w / mu - w / y)
            elif name == "gini":
                idx = np.argsort(y, kind="stable")
                ps = w[idx]
                coef = np.empty(n)
                coef[idx] = ps * (2.0 * np.cumsum(ps) - ps - 1.0)  # G = sum p_i y_i (2F_i - 1) / mu
                g = _ratio_gradient(float(y @ coef), coef, mu, w)
            elif name in ("d_q5q1", "d_d10d1", "d_v20v1"):
                idx = np.argsort(y, kind="stable")
                k = max(1, n // int(extra_fraction(name)))
                g = np.zeros(n)
                g[idx[n - k:]] += 1.0 / k
                g[idx[:k]] -= 1.0 / k
            elif name in M.NOISE_MEASURES:
                bgv_true = float(values["bgv_true"] if "bgv_true" in values
                                 else M.evaluate(y, sub, ["bgv_true"])["bgv_true"])
                if not bgv_true > 0:
                    g = None  # truncated at 0: no first-order SE
                else:
                    g_true = g_bgv().copy()
                    if isinstance(sub.noise, str):  # the Poisson variance moves with the estimate
                        g_true -= w * (1.0 - w) * sub.scale / sub.population
                    if name == "bgv_true":
                        g = g_true
                    else:
                        sd = np.sqrt(bgv_true)
                        g_sd = g_true / (2.0 * sd)
                        g = g_sd if name == "bgsd_true" else 100.0 * _ratio_gradient(sd, g_sd, mu, w)
            else:
                raise ValueError(f"no gradient for {name!r}")
            out[name] = g
    return out


def extra_fraction(name: str) -> int:
    """5, 10 or 20: the fraction of subgroups compared by d_q5q1, d_d10d1, d_v20v1."""
    from .extra import MANY_SUBGROUP_DIFFERENCES

    return int(MANY_SUBGROUP_DIFFERENCES[name][1])


def delta_se(y, se, sub: M.Subgroups, names, values: dict | None = None) -> dict[str, float]:
    """First-order delta-method SEs, SE^2 = sum_j (dM/dy_j)^2 se_j^2, from closed-form gradients
    (:func:`gradients`); NaN where a measure has none (percentiles) or its gradient is not finite."""
    y = np.asarray(y, dtype=float)
    se = np.asarray(se, dtype=float)
    if values is None:
        values = M.evaluate(y, sub, names)
    out = {}
    for name, g in gradients(y, sub, names, values).items():
        if g is None:
            out[name] = np.nan
            continue
        # a subgroup with an SE of 0 (no deaths) adds nothing, even where its gradient is infinite
        with np.errstate(invalid="ignore", over="ignore"):
            terms = np.where(se == 0, 0.0, g * se)
        out[name] = float(np.sqrt(np.sum(terms ** 2))) if np.all(np.isfinite(terms)) else np.nan
    return out


def analytic_se(y, se, sub: M.Subgroups, names, estimates: dict) -> dict[str, tuple[float, str]]:
    """SE (on the scale of the estimate) and the CI method of each measure."""
    y = np.asarray(y, dtype=float)
    out: dict[str, tuple[float, str]] = {}
    rest = []
    for name in names:
        if name in REGRESSION and se is None:
            s = ordered.concentration_regression_se(y, sub.population, sub.rank)
            if name != "aci":
                s = s / estimates["_mean"]
            out[name] = (s, CI_METHOD("regression"))
        elif name in LOGIT:
            prop = np.clip(y / sub.scale, 0.0, 1.0)
            _, rii, se_sii, se_log_rii = ordered.slope_and_relative_index(prop, sub.population, sub.rank,
                                                                          sub.scale, with_se=True, se=se)
            out[name] = (se_sii if name == "sii" else rii * se_log_rii,
                         CI_METHOD("logit") if se is None else CI_METHOD("logit_counts"))
        elif name in WALTER:
            yref = float(M.reference_value(y, sub))
            var = walter_fraction_variance(yref, M.reference_population(y, sub), estimates["_mean"],
                                           sub.population.sum(), sub.scale)
            # a reference without events (rate 0) makes Walter's variance 0: no usable interval
            frac_se = np.sqrt(var) if var >= 0 and yref > 0 else np.nan
            out[name] = (100.0 * frac_se if name == "paf" else estimates["_mean"] * frac_se, CI_METHOD("walter"))
        elif name == "bgv":
            out[name] = ((np.sqrt(bgv_variance(y, se, sub.share)) if se is not None else np.nan), CI_METHOD("bgv"))
        else:
            rest.append(name)
    if rest:
        values = delta_se(y, se, sub, rest, estimates) if se is not None else {k: np.nan for k in rest}
        for name in rest:
            if name in M.PERCENTILE_MEASURES:
                out[name] = (np.nan, CI_METHOD("percentile"))
            else:
                out[name] = (values[name], CI_METHOD("delta"))
    return out


def interval(estimate, se, name: str, conf_level: float) -> tuple[float, float]:
    """Normal CI; for ratio measures on the log scale, exp(ln R +/- z se/R); noise-corrected dispersion
    bounded below by 0."""
    z = _z(conf_level)
    if not (np.isfinite(estimate) and np.isfinite(se)):
        return np.nan, np.nan
    if name in M.RATIO_MEASURES:
        if estimate <= 0:
            return np.nan, np.nan
        half = z * se / estimate
        return float(estimate * np.exp(-half)), float(estimate * np.exp(half))
    lower = estimate - z * se
    if name in M.NOISE_MEASURES:  # a variance, SD or CV of the true rates cannot be negative
        lower = max(lower, 0.0)
    return float(lower), float(estimate + z * se)
