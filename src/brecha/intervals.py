"""Confidence intervals for a rate (deaths over live births), vectorised over units.

Private helper of :mod:`brecha.rates`; the public entry point is :func:`brecha.rates.rate_interval`.
Only ``scipy.special`` is imported (cheap), never ``scipy.stats``.

Methods (the code travels in the ``method`` column of every result):

``exact``
    Exact Poisson (Garwood 1936): lower = G⁻¹(α/2; D), upper = G⁻¹(1 − α/2; D + 1), with G the regularised
    gamma function, i.e. χ²(α/2; 2D)/2 and χ²(1 − α/2; 2D + 2)/2. Lower = 0 when D = 0. This is
    ``epitools::pois.exact`` and PHEindicatormethods ``phe_rate`` for D < 10.
``byar``
    Byar's approximation as PHE uses it (Breslow & Day 1987):
    lower = D(1 − 1/(9D) − z/(3√D))³, upper = (D+1)(1 − 1/(9(D+1)) + z/(3√(D+1)))³. Lower = 0 when D = 0.
``byar-epitools``
    The variant of ``epitools::pois.byar``: D′ = D + 0.5 in both limits. Its lower limit is negative when
    D = 0 (−1.56e-6 for 0/1000); we clip it to 0 and flag the row ``lower_clipped``.
``phe``
    PHEindicatormethods' rule: ``exact`` when D < 10, ``byar`` otherwise.
``wilson``
    Wilson score interval for a binomial proportion D/LB (Wilson 1927).
``clopper-pearson``
    Exact binomial (Clopper & Pearson 1934): Beta quantiles.
"""
from __future__ import annotations

import numpy as np

from .errors import InputError
from .i18n import Catalog

MSG = Catalog({
    "bad_method": ("método de intervalo '{name}' desconocido; use uno de: {choices}",
                   "unknown interval method '{name}'; use one of: {choices}"),
    "bad_conf": ("nivel de confianza {value} fuera de (0, 1)", "confidence level {value} is not in (0, 1)"),
    "bad_conf_hint": ("escriba el nivel como proporción: 0.95 para un 95 %",
                      "write the level as a proportion: 0.95 for 95 %"),
    "bad_conf_percent_hint": ("{value} parece un porcentaje: escriba {proportion} (el nivel va como proporción, "
                              "0.95 para un 95 %)",
                              "{value} looks like a percentage: write {proportion} (the level is a proportion, "
                              "0.95 for 95 %)"),
    "negative": ("conteos negativos en el cálculo de tasas", "negative counts in a rate calculation"),
})

CI_METHODS = ("exact", "byar", "byar-epitools", "phe", "wilson", "clopper-pearson")
BINOMIAL_METHODS = ("wilson", "clopper-pearson")
_ALIASES = {
    "exact": "exact", "garwood": "exact", "poisson": "exact", "exact-poisson": "exact", "pois.exact": "exact",
    "byar": "byar", "byars": "byar", "byar-phe": "byar", "phe-byar": "byar",
    "byar-epitools": "byar-epitools", "pois.byar": "byar-epitools", "epitools-byar": "byar-epitools",
    "phe": "phe", "wilson": "wilson", "score": "wilson",
    "clopper-pearson": "clopper-pearson", "clopper_pearson": "clopper-pearson", "cp": "clopper-pearson",
    "exact-binomial": "clopper-pearson", "binomial": "clopper-pearson",
}

# flag labels (stable codes: users filter on them)
ZERO_BIRTHS = "zero_births"
MISSING = "missing"
EVENTS_ABOVE_BIRTHS = "events_exceed_births"
LOWER_CLIPPED = "lower_clipped"


def resolve_ci_method(name: str) -> str:
    key = str(name).strip().lower().replace(" ", "-")
    if key not in _ALIASES:
        raise InputError(MSG("bad_method", name=name, choices=", ".join(CI_METHODS)))
    return _ALIASES[key]


def check_conf_level(conf_level) -> float:
    """``conf_level`` as a float in (0, 1), or an InputError about the argument ``conf_level`` (the CLI
    names ``--conf-level``)."""
    value = float(conf_level)
    if not 0.0 < value < 1.0:
        raise InputError(MSG("bad_conf", value=conf_level), hint=conf_level_hint(value), argument="conf_level")
    return value


def conf_level_hint(value, lang: str | None = None) -> str:
    """What to write instead of a confidence level outside (0, 1): 95 (a percentage) -> 'write 0.95'."""
    value = float(value)
    if 50.0 <= value < 100.0:  # 90, 95, 99: a percentage
        return MSG("bad_conf_percent_hint", lang, value=f"{value:g}", proportion=f"{value / 100:g}")
    return MSG("bad_conf_hint", lang)


def z_value(conf_level: float) -> float:
    from scipy.special import ndtri

    return float(ndtri(1.0 - (1.0 - conf_level) / 2.0))


def as_float(values) -> np.ndarray:
    """Counts as float64 with NaN for missing (accepts pandas nullable arrays)."""
    if hasattr(values, "to_numpy"):
        values = values.to_numpy(dtype="float64", na_value=np.nan)
    return np.atleast_1d(np.asarray(values, dtype="float64"))


def divide(a, b) -> np.ndarray:
    """a / b elementwise as float64, NaN where b is 0 (no division warning)."""
    a = np.asarray(a, dtype="float64")
    b = np.asarray(b, dtype="float64")
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(b != 0, a / np.where(b != 0, b, 1.0), np.nan)


def join_flags(n: int, pairs) -> np.ndarray:
    """Combine (mask, label) pairs into one ';'-separated text per row ('' when none applies)."""
    out = np.full(n, "", dtype=object)
    for mask, label in pairs:
        mask = np.asarray(mask, dtype=bool)
        if not mask.any():
            continue
        cur = out[mask]
        out[mask] = np.where(cur == "", label, cur + ";" + label)
    return out


def poisson_exact_limits(events, alpha_lower: float, alpha_upper: float):
    """Garwood limits for the expected count: (G⁻¹(α_l; D), G⁻¹(1 − α_u; D + 1)); 0 below when D = 0."""
    from scipy.special import gammaincinv

    d = np.asarray(events, dtype="float64")
    # counts repeat a lot (a few thousand distinct values in 100,000 unit-years): invert once per value
    values, inverse = np.unique(d, return_inverse=True)
    inverse = inverse.reshape(d.shape)
    lower = np.zeros_like(values)
    pos = values > 0
    lower[pos] = gammaincinv(values[pos], alpha_lower)
    upper = gammaincinv(values + 1.0, 1.0 - alpha_upper)
    return lower[inverse], upper[inverse]


def _byar(d, z):
    with np.errstate(divide="ignore", invalid="ignore"):
        lower = np.where(d > 0, d * (1.0 - 1.0 / (9.0 * d) - z / (3.0 * np.sqrt(d))) ** 3, 0.0)
    d1 = d + 1.0
    upper = d1 * (1.0 - 1.0 / (9.0 * d1) + z / (3.0 * np.sqrt(d1))) ** 3
    return lower, upper


def _byar_epitools(d, z):
    a = d + 0.5
    lower = a * (1.0 - 1.0 / (9.0 * a) - z / (3.0 * np.sqrt(a))) ** 3
    upper = a * (1.0 - 1.0 / (9.0 * a) + z / (3.0 * np.sqrt(a))) ** 3
    return lower, upper


def interval_detail(events, births, method: str = "exact", conf_level: float = 0.95, per: float = 1000):
    """Estimate, limits, the method used per row and flags, as a dict of arrays.

    Rows with zero or missing births, or missing events, get NaN (never a division warning) and a flag.
    """
    method = resolve_ci_method(method)
    conf_level = check_conf_level(conf_level)
    d = as_float(events)
    n = as_float(births)
    d, n = np.broadcast_arrays(d, n)
    d = d.astype("float64", copy=True)
    n = n.astype("float64", copy=True)
    if (d < 0).any() or (n < 0).any():
        raise InputError(MSG("negative"))
    size = d.shape[0]
    missing = np.isnan(d) | np.isnan(n)
    zero_births = ~missing & (n == 0)
    ok = ~missing & ~zero_births
    above = ok & (d > n)
    alpha = 1.0 - conf_level
    z = z_value(conf_level)

    estimate = np.full(size, np.nan)
    lower = np.full(size, np.nan)
    upper = np.full(size, np.nan)
    used = np.full(size, method, dtype=object)
    clipped = np.zeros(size, dtype=bool)

    dd, nn = d[ok], n[ok]
    estimate[ok] = dd / nn
    if method == "exact":
        lo, up = poisson_exact_limits(dd, alpha / 2, alpha / 2)
        lo, up = lo / nn, up / nn
    elif method == "byar":
        lo, up = _byar(dd, z)
        lo, up = lo / nn, up / nn
    elif method == "phe":
        elo, eup = poisson_exact_limits(dd, alpha / 2, alpha / 2)
        blo, bup = _byar(dd, z)
        small = dd < 10
        lo = np.where(small, elo, blo) / nn
        up = np.where(small, eup, bup) / nn
        used[ok] = np.where(small, "phe:exact", "phe:byar")
    elif method == "byar-epitools":
        lo, up = _byar_epitools(dd, z)
        lo, up = lo / nn, up / nn
        neg = lo < 0
        clipped[np.flatnonzero(ok)[neg]] = True
        lo = np.where(neg, 0.0, lo)
    else:  # binomial methods: undefined when deaths exceed births
        lo = np.full(dd.shape, np.nan)
        up = np.full(dd.shape, np.nan)
        fine = dd <= nn
        x, m = dd[fine], nn[fine]
        if method == "wilson":
            p = x / m
            z2 = z * z
            centre = (p + z2 / (2 * m)) / (1 + z2 / m)
            half = z / (1 + z2 / m) * np.sqrt(p * (1 - p) / m + z2 / (4 * m * m))
            lo_f = np.where(x > 0, np.maximum(centre - half, 0.0), 0.0)
            up_f = np.where(x < m, np.minimum(centre + half, 1.0), 1.0)
        else:  # clopper-pearson
            from scipy.special import betaincinv

            with np.errstate(invalid="ignore", divide="ignore"):
                lo_f = np.where(x > 0, betaincinv(np.maximum(x, 1e-300), m - x + 1, alpha / 2), 0.0)
                up_f = np.where(x < m, betaincinv(x + 1, np.maximum(m - x, 1e-300), 1 - alpha / 2), 1.0)
        lo[fine] = lo_f
        up[fine] = up_f
    lower[ok] = lo
    upper[ok] = up
    if per != 1:
        estimate *= per
        lower *= per
        upper *= per
    flag = join_flags(size, [(missing, MISSING), (zero_births, ZERO_BIRTHS), (above, EVENTS_ABOVE_BIRTHS),
                             (clipped, LOWER_CLIPPED)])
    return {"estimate": estimate, "lower": lower, "upper": upper, "method": used, "flag": flag,
            "events": d, "births": n}
