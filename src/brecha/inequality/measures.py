"""The 21 WHO summary measures of health inequality (and a few more) as vectorised array functions.

Definitions follow Schlotheuber & Hosseinpoor (2022) and WHO's healthequal/HEAT code, with the
corrections listed in docs/inequality.md. ``evaluate`` computes any set of measures for estimates
``y`` of shape (..., n_subgroups): the leading axes are bootstrap replicates, so a whole bootstrap is
one call. Population, order and reference are fixed across replicates (deaths are resampled given
births).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..i18n import Catalog
from . import extra, ordered

WHO_MEASURES = ("d", "r", "aci", "rci", "sii", "rii", "bgv", "bgsd", "cov", "mdmu", "mdmw", "mdbu", "mdbw",
                "mdru", "mdrw", "idisu", "idisw", "ti", "mld", "paf", "par")
EXTRA_MEASURES = ("mean", "gini", "concentration_index", "kunst_mackenbach", "ratio_p90p10",
                  *extra.MANY_SUBGROUP_DIFFERENCES, "bgv_true", "bgsd_true", "cov_true")
ALL_MEASURES = WHO_MEASURES + EXTRA_MEASURES
ORDERED_MEASURES = frozenset({"aci", "rci", "sii", "rii", "concentration_index", "kunst_mackenbach"})
REFERENCE_MEASURES = frozenset({"mdru", "mdrw"})
# Noise-corrected dispersion: need each subgroup's sampling variance (its SE, or its counts).
NOISE_MEASURES = frozenset({"bgv_true", "bgsd_true", "cov_true"})
# Functions of order statistics (percentiles): no delta-method SE (the bootstrap gives their CI).
PERCENTILE_MEASURES = frozenset({"ratio_p90p10", "d_p80p20", "d_p90p10", "d_p95p5"})
# CIs of these are built on the log scale (they are ratios, > 0).
RATIO_MEASURES = frozenset({"r", "rii", "kunst_mackenbach", "ratio_p90p10"})
# Relative measures do not change when every estimate is multiplied by a constant.
RELATIVE_MEASURES = frozenset({"r", "rci", "rii", "cov", "idisu", "idisw", "ti", "mld", "paf", "gini",
                               "concentration_index", "kunst_mackenbach", "ratio_p90p10", "cov_true"})

# What each measure is (the ``method`` column), in Spanish and English.
METHODS = Catalog({
    "mean": ("media ponderada por población (tasa global)", "population-weighted mean (overall rate)"),
    "d": ("diferencia D = y1 - y2 (selección de subgrupos de la OMS)",
          "difference D = y1 - y2 (WHO subgroup selection)"),
    "r": ("razón R = y1 / y2 (selección de subgrupos de la OMS)", "ratio R = y1 / y2 (WHO subgroup selection)"),
    "aci": ("índice de concentración absoluto, sum p_j (2X_j - 1) y_j",
            "absolute concentration index, sum p_j (2X_j - 1) y_j"),
    "rci": ("índice de concentración relativo ACI / media (fracción)",
            "relative concentration index ACI / mean (a fraction)"),
    "sii": ("índice de la pendiente: GLM logit binomial sobre el rango ridit, nacimientos como ensayos",
            "slope index of inequality: binomial logit GLM on the ridit rank, births as trials"),
    "rii": ("índice relativo: el mismo GLM, pi(1) / pi(0)", "relative index of inequality: same GLM, pi(1) / pi(0)"),
    "bgv": ("varianza entre grupos, sum p_j (y_j - media)^2", "between-group variance, sum p_j (y_j - mean)^2"),
    "bgsd": ("desviación estándar entre grupos, sqrt(BGV)", "between-group standard deviation, sqrt(BGV)"),
    "cov": ("coeficiente de variación, 100 BGSD / media", "coefficient of variation, 100 BGSD / mean"),
    "mdmu": ("diferencia media respecto de la media, no ponderada", "mean difference from the mean, unweighted"),
    "mdmw": ("diferencia media respecto de la media, ponderada", "mean difference from the mean, weighted"),
    "mdbu": ("diferencia media respecto del mejor subgrupo, no ponderada",
             "mean difference from the best subgroup, unweighted"),
    "mdbw": ("diferencia media respecto del mejor subgrupo, ponderada",
             "mean difference from the best subgroup, weighted"),
    "mdru": ("diferencia media respecto de la referencia, no ponderada",
             "mean difference from the reference, unweighted"),
    "mdrw": ("diferencia media respecto de la referencia, ponderada", "mean difference from the reference, weighted"),
    "idisu": ("índice de disparidad, 100 MDMU / media", "index of disparity, 100 MDMU / mean"),
    "idisw": ("índice de disparidad, 100 MDMW / media", "index of disparity, 100 MDMW / mean"),
    "ti": ("índice de Theil x 1000", "Theil index x 1000"),
    "mld": ("desviación logarítmica media x 1000", "mean log deviation x 1000"),
    "paf": ("fracción atribuible poblacional %, 100 PAR / media",
            "population attributable fraction %, 100 PAR / mean"),
    "par": ("riesgo atribuible poblacional, exceso de la media sobre la referencia (positivo = exceso)",
            "population attributable risk, the excess of the mean over the reference (positive = excess)"),
    "gini": ("coeficiente de Gini ponderado por población", "population-weighted Gini coefficient"),
    "concentration_index": ("índice de concentración, 1 - 2 x área bajo la curva de concentración",
                            "concentration index, 1 - 2 x area under the concentration curve"),
    "kunst_mackenbach": ("índice de Kunst-Mackenbach, tasa ajustada en el extremo desfavorecido / favorecido",
                         "Kunst-Mackenbach index, fitted rate at the disadvantaged end / advantaged end"),
    "ratio_p90p10": ("percentil 90 / percentil 10 de las estimaciones de los subgrupos (no ponderado)",
                     "90th / 10th percentile of the subgroup estimates (unweighted)"),
    "d_p80p20": ("percentil 80 - percentil 20 (HEAT, > 30 subgrupos)", "80th - 20th percentile (HEAT, > 30 subgroups)"),
    "d_q5q1": ("media del quinto superior - quinto inferior de los subgrupos (HEAT, > 30)",
               "mean of top fifth - mean of bottom fifth of subgroups (HEAT, > 30)"),
    "d_p90p10": ("percentil 90 - percentil 10 (HEAT, > 60 subgrupos)", "90th - 10th percentile (HEAT, > 60 subgroups)"),
    "d_d10d1": ("media del décimo superior - décimo inferior (HEAT, > 60)", "mean of top tenth - bottom tenth (HEAT, > 60)"),
    "d_p95p5": ("percentil 95 - percentil 5 (HEAT, > 100 subgrupos)", "95th - 5th percentile (HEAT, > 100 subgroups)"),
    "d_v20v1": ("media del vigésimo superior - vigésimo inferior (HEAT, > 100)",
                "mean of top twentieth - bottom twentieth (HEAT, > 100)"),
    "bgv_true": ("varianza entre grupos sin ruido, BGV - sum p_j (1 - p_j) s_j^2 (0 si es negativa)",
                 "noise-corrected between-group variance, BGV - sum p_j (1 - p_j) s_j^2 (0 if negative)"),
    "bgsd_true": ("desviación estándar entre grupos sin ruido, sqrt(bgv_true)",
                  "noise-corrected between-group SD, sqrt(bgv_true)"),
    "cov_true": ("coeficiente de variación sin ruido, 100 bgsd_true / media",
                 "noise-corrected coefficient of variation, 100 bgsd_true / mean"),
})
# English descriptions, for code and docs
DESCRIPTION = {name: METHODS(name, lang="en") for name in METHODS.messages}


LABELS = Catalog({
    "mean": ("Tasa global", "Overall rate"),
    "d": ("Diferencia (D)", "Difference (D)"),
    "r": ("Razón (R)", "Ratio (R)"),
    "aci": ("Índice de concentración absoluto (ACI)", "Absolute concentration index (ACI)"),
    "rci": ("Índice de concentración relativo (RCI)", "Relative concentration index (RCI)"),
    "sii": ("Índice de la pendiente de desigualdad (SII)", "Slope index of inequality (SII)"),
    "rii": ("Índice relativo de desigualdad (RII)", "Relative index of inequality (RII)"),
    "bgv": ("Varianza entre grupos (BGV)", "Between-group variance (BGV)"),
    "bgsd": ("Desviación estándar entre grupos (BGSD)", "Between-group standard deviation (BGSD)"),
    "cov": ("Coeficiente de variación (COV)", "Coefficient of variation (COV)"),
    "mdmu": ("Diferencia media respecto de la media, no ponderada (MDMU)",
             "Mean difference from mean, unweighted (MDMU)"),
    "mdmw": ("Diferencia media respecto de la media, ponderada (MDMW)", "Mean difference from mean, weighted (MDMW)"),
    "mdbu": ("Diferencia media respecto del mejor, no ponderada (MDBU)",
             "Mean difference from best, unweighted (MDBU)"),
    "mdbw": ("Diferencia media respecto del mejor, ponderada (MDBW)", "Mean difference from best, weighted (MDBW)"),
    "mdru": ("Diferencia media respecto de la referencia, no ponderada (MDRU)",
             "Mean difference from reference, unweighted (MDRU)"),
    "mdrw": ("Diferencia media respecto de la referencia, ponderada (MDRW)",
             "Mean difference from reference, weighted (MDRW)"),
    "idisu": ("Índice de disparidad, no ponderado (IDISU)", "Index of disparity, unweighted (IDISU)"),
    "idisw": ("Índice de disparidad, ponderado (IDISW)", "Index of disparity, weighted (IDISW)"),
    "ti": ("Índice de Theil (TI x 1000)", "Theil index (TI x 1000)"),
    "mld": ("Desviación logarítmica media (MLD x 1000)", "Mean log deviation (MLD x 1000)"),
    "paf": ("Fracción atribuible poblacional (PAF %)", "Population attributable fraction (PAF %)"),
    "par": ("Riesgo atribuible poblacional (PAR)", "Population attributable risk (PAR)"),
    "gini": ("Gini ponderado", "Weighted Gini"),
    "concentration_index": ("Índice de concentración (curva)", "Concentration index (curve)"),
    "kunst_mackenbach": ("Índice de Kunst-Mackenbach", "Kunst-Mackenbach index"),
    "ratio_p90p10": ("Razón P90/P10", "P90/P10 ratio"),
    "d_p80p20": ("Diferencia P80 - P20", "P80 - P20 difference"),
    "d_q5q1": ("Diferencia quinto superior - inferior", "Top fifth - bottom fifth difference"),
    "d_p90p10": ("Diferencia P90 - P10", "P90 - P10 difference"),
    "d_d10d1": ("Diferencia décimo superior - inferior", "Top tenth - bottom tenth difference"),
    "d_p95p5": ("Diferencia P95 - P5", "P95 - P5 difference"),
    "d_v20v1": ("Diferencia vigésimo superior - inferior", "Top twentieth - bottom twentieth difference"),
    "bgv_true": ("Varianza entre grupos sin ruido aleatorio", "Between-group variance net of random noise"),
    "bgsd_true": ("Desviación estándar entre grupos sin ruido aleatorio",
                  "Between-group standard deviation net of random noise"),
    "cov_true": ("Coeficiente de variación sin ruido aleatorio", "Coefficient of variation net of random noise"),
})


@dataclass(frozen=True)
class Subgroups:
    """The fixed side of a set of subgroups: population, order, reference, direction, scale."""

    population: np.ndarray
    share: np.ndarray
    order: np.ndarray | None
    rank: np.ndarray | None
    reference: np.ndarray | None  # boolean mask
    favourable: bool
    scale: float
    # sampling variance of each subgroup estimate: None (unknown), "poisson" (estimates are counts per
    # population x scale, variance scale * y / population, recomputed for every replicate) or an array
    noise: object = None

    @property
    def n(self) -> int:
        return len(self.population)

    @property
    def is_ordered(self) -> bool:
        return self.order is not None


def make_subgroups(population, order=None, reference=None, favourable=False, scale=1000.0,
                   noise=None) -> Subgroups:
    """Validate and freeze the fixed inputs. ``reference``: None, a 0-based position, positions, or a mask.

    ``noise``: the sampling variance of each subgroup estimate, for the noise-corrected measures: None,
    ``"poisson"`` (estimates are Poisson counts / population x scale) or an array (e.g. the SEs squared).
    """
    pop = np.asarray(population, dtype=float)
    if pop.ndim != 1 or len(pop) == 0:
        raise ValueError("population must be a non-empty 1-D array")
    if np.any(~np.isfinite(pop)) or np.any(pop < 0) or pop.sum() <= 0:
        raise ValueError("population must be finite, non-negative and not all zero")
    share = pop / pop.sum()
    rank = None
    if order is not None:
        order = np.asarray(order)
        if order.shape != pop.shape:
            raise ValueError("order must have one value per subgroup")
        rank = ordered.ridit(pop, order)
    mask = None
    if reference is not None:
        ref = np.asarray(reference)
        if ref.dtype == bool:
            if ref.shape != pop.shape:
                raise ValueError("a reference mask needs one value per subgroup")
            mask = ref
        else:
            mask = np.zeros(len(pop), dtype=bool)
            mask[np.atleast_1d(ref).astype(int)] = True
        if not mask.any():
            raise ValueError("the reference selects no subgroup")
    if noise is not None and not (isinstance(noise, str) and noise == "poisson"):
        noise = np.asarray(noise, dtype=float)
        if noise.shape != pop.shape:
            raise ValueError("noise needs one sampling variance per subgroup")
    return Subgroups(pop, share, order, rank, mask, bool(favourable), float(scale), noise)


def sampling_variance(y, sub: Subgroups):
    """Sampling variance of each subgroup estimate (same shape as ``y``): Poisson ``scale * y / pop``
    (so each bootstrap replicate carries its own), or the fixed array given."""
    if sub.noise is None:
        raise ValueError("the noise-corrected measures need the subgroups' sampling variance (noise=)")
    if isinstance(sub.noise, str):
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.asarray(y, dtype=float) * (sub.scale / sub.population)
    return np.broadcast_to(sub.noise, np.shape(y))


def applicable(names, sub: Subgroups) -> tuple[list[str], dict[str, str]]:
    """Split requested measures into those that can be computed and those skipped (with the reason)."""
    keep, skipped = [], {}
    for name in names:
        if name in ORDERED_MEASURES and not sub.is_ordered:
            skipped[name] = "needs an ordered dimension (rank_by)"
        elif name in REFERENCE_MEASURES and sub.reference is None:
            skipped[name] = "needs a reference subgroup"
        elif name in NOISE_MEASURES and sub.noise is None:
            skipped[name] = "needs the subgroups' sampling variance (SEs or counts)"
        elif name in extra.MANY_SUBGROUP_DIFFERENCES and sub.n <= extra.MANY_SUBGROUP_DIFFERENCES[name][2]:
            skipped[name] = f"needs more than {extra.MANY_SUBGROUP_DIFFERENCES[name][2]} subgroups"
        elif name in ("paf", "par") and sub.n <= 2:
            skipped[name] = "needs more than two subgroups"
        elif name in ("sii", "rii", "aci", "rci", "concentration_index", "kunst_mackenbach") and sub.n <= 2:
            skipped[name] = "needs more than two subgroups"
        else:
            keep.append(name)
    return keep, skipped


def _weighted_mean_of(y, sub: Subgroups, mask):
    w = sub.share * mask
    return (y @ w) / w.sum()


def _ends(y, sub: Subgroups):
    """(least advantaged, most advantaged) subgroup estimates of an ordered dimension."""
    least = _weighted_mean_of(y, sub, sub.order == sub.order.min())
    most = _weighted_mean_of(y, sub, sub.order == sub.order.max())
    return least, most


def pair(y, sub: Subgroups):
    """(y1, y2) of WHO's D and R (healthequal ``d``/``r``).

    Ordered: adverse y1 = most-disadvantaged, y2 = most-advantaged; favourable the reverse.
    Non-ordered without reference: y1 = max, y2 = min. With a reference: adverse y1 = max, y2 = ref;
    favourable y1 = ref, y2 = min.
    """
    if sub.is_ordered:
        least, most = _ends(y, sub)
        return (most, least) if sub.favourable else (least, most)
    if sub.reference is None:
        return y.max(-1), y.min(-1)
    ref = _weighted_mean_of(y, sub, sub.reference)
    return (ref, y.min(-1)) if sub.favourable else (y.max(-1), ref)


def reference_value(y, sub: Subgroups):
    """Reference estimate of PAR/PAF: the chosen reference; else the most-advantaged subgroup (ordered)
    or the best subgroup (non-ordered: max if favourable, min if adverse), as WHO."""
    if sub.reference is not None:
        return _weighted_mean_of(y, sub, sub.reference)
    if sub.is_ordered:
        return _ends(y, sub)[1]
    return y.max(-1) if sub.favourable else y.min(-1)


def reference_population(y, sub: Subgroups) -> float:
    """Population of the PAR reference (for Walter's variance); for 'best', that of the first best."""
    if sub.reference is not None:
        return float(sub.population[sub.reference].sum())
    if sub.is_ordered:
        return float(sub.population[sub.order == sub.order.max()].sum())
    idx = int(np.argmax(y)) if sub.favourable else int(np.argmin(y))
    return float(sub.population[idx])


def noise_bias(y, sub: Subgroups):
    """Expected excess of BGV over the variance of the true subgroup values: sum p_j (1 - p_j) v_j.

    With y_j = theta_j + e_j, Var(e_j) = v_j and mu = sum p_j y_j, E[sum p_j (y_j - mu)^2] =
    sum p_j (theta_j - theta_bar)^2 + sum p_j (1 - p_j) v_j. Subtracting the estimated term (v_j from the
    counts; unbiased for Poisson counts) gives a method-of-moments estimate of the between-unit variance
    of the underlying rates, truncated at 0 as the between-study variance of DerSimonian & Laird (1986).
    """
    return sampling_variance(y, sub) @ (sub.share * (1.0 - sub.share))


def evaluate(y, sub: Subgroups, names) -> dict[str, np.ndarray]:
    """Compute the measures ``names`` for estimates ``y`` (..., n). Returns name -> array (...)."""
    y = np.asarray(y, dtype=float)
    w = sub.share
    cache: dict = {}

    def get(key, fn):
        if key not in cache:
            cache[key] = fn()
        return cache[key]

    mu = get("mu", lambda: y @ w)
    dev = lambda: get("dev", lambda: np.abs(y - mu[..., None]))  # noqa: E731
    order_y = lambda: get("argsort", lambda: np.argsort(y, axis=-1))  # noqa: E731
    srt = lambda: get("sorted", lambda: np.take_along_axis(y, order_y(), axis=-1))  # noqa: E731
    bgv = lambda: get("bgv", lambda: ((y - mu[..., None]) ** 2) @ w)  # noqa: E731
    best = lambda: get("best", lambda: y.max(-1) if sub.favourable else y.min(-1))  # noqa: E731
    log_y = lambda: get("log_y", lambda: np.log(y))  # noqa: E731

    def logit_fit():
        def fit():
            prop = np.clip(y / sub.scale, 0.0, 1.0)
            return ordered.slope_and_relative_index(prop, sub.population, sub.rank, sub.scale)
        return get("logit", fit)

    def par():
        def f():
            yref = reference_value(y, sub)
            return yref - mu if sub.favourable else mu - yref
        return get("par", f)

    out = {}
    with np.errstate(divide="ignore", invalid="ignore"):
        for name in names:
            if name == "mean":
                v = mu
            elif name == "d":
                y1, y2 = get("pair", lambda: pair(y, sub))
                v = y1 - y2
            elif name == "r":
                y1, y2 = get("pair", lambda: pair(y, sub))
                v = y1 / y2
            elif name == "aci":
                v = ordered.absolute_concentration_index(y, w, sub.rank)
            elif name == "rci":
                v = ordered.absolute_concentration_index(y, w, sub.rank) / mu
            elif name == "sii":
                v = logit_fit()[0]
            elif name == "rii":
                v = logit_fit()[1]
            elif name == "bgv":
                v = bgv()
            elif name == "bgsd":
                v = np.sqrt(bgv())
            elif name == "cov":
                v = 100.0 * np.sqrt(bgv()) / mu
            elif name == "mdmu":
                v = dev().mean(-1)
            elif name == "mdmw":
                v = dev() @ w
            elif name == "mdbu":
                v = np.abs(y - best()[..., None]).mean(-1)
            elif name == "mdbw":
                v = np.abs(y - best()[..., None]) @ w
            elif name in ("mdru", "mdrw"):
                yref = _weighted_mean_of(y, sub, sub.reference)
                d = np.abs(y - yref[..., None])
                v = d.mean(-1) if name == "mdru" else d @ w
            elif name == "idisu":
                v = 100.0 * dev().mean(-1) / mu
            elif name == "idisw":
                v = 100.0 * (dev() @ w) / mu
            elif name == "ti":
                # sum p r ln r = (sum p y ln y) / mu - ln mu, with 0 ln 0 = 0
                y_log_y = np.where(y > 0, y * log_y(), 0.0)
                v = 1000.0 * ((y_log_y @ w) / mu - np.log(mu))
            elif name == "mld":
                # sum p (-ln r) = ln mu - sum p ln y  (infinite when a rate is 0)
                v = 1000.0 * (np.log(mu) - log_y() @ w)
            elif name == "par":
                v = par()
            elif name == "paf":
                v = 100.0 * par() / mu
            elif name == "gini":
                v = extra.weighted_gini(y, w, order_y(), srt())
            elif name == "concentration_index":
                v = ordered.concentration_index_from_curve(y, w, sub.rank)
            elif name == "kunst_mackenbach":
                v = ordered.kunst_mackenbach(y, w, sub.rank)
            elif name == "ratio_p90p10":
                v = extra.percentile_ratio(srt())
            elif name in extra.MANY_SUBGROUP_DIFFERENCES:
                v = extra.many_subgroup_difference(srt(), name)
            elif name in NOISE_MEASURES:
                v = get("bgv_true", lambda: np.maximum(bgv() - noise_bias(y, sub), 0.0))
                if name != "bgv_true":
                    v = np.sqrt(v)
                    if name == "cov_true":
                        v = 100.0 * v / mu
            else:
                raise ValueError(f"unknown measure {name!r}")
            out[name] = np.asarray(v, dtype=float)
    return out
