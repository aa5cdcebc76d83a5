"""Decomposition of the concentration index by its determinants (Wagstaff, van Doorslaer & Watanabe 2003).

Units weighted by births (p_i = B_i/ΣB), rates y_i per 1,000, ranked by a covariate from the most
disadvantaged (fractional rank R_i near 0) to the most advantaged: R_i = the births share of the units
ranked before i plus half its own (units tied on the covariate share the midpoint of their block).

- Concentration index (covariance formula, Kakwani, Wagstaff & van Doorslaer 1997):
  C = 2 Σ p_i (y_i − μ)(R_i − ½) / μ = 2 cov_p(y, R)/μ. C < 0: the deaths are concentrated among the
  disadvantaged units.
- Decomposition: fit y = α + Σ_k β_k x_k + ε by weighted least squares (weights p). Then exactly
  C = Σ_k (β_k x̄_k/μ) C_k + GC_ε/μ, with elasticity η_k = β_k x̄_k/μ, C_k = 2 cov_p(x_k, R)/x̄_k the
  concentration index of the determinant, contribution η_k C_k = 2 β_k cov_p(x_k, R)/μ (defined even when
  x̄_k = 0), residual GC_ε/μ = 2 cov_p(ε, R)/μ. The contributions add up to C exactly because the weighted
  covariance is linear and the WLS residual has weighted mean 0.
- The births are analytic weights: the index and the decomposition use them only through p. (R's rineq
  treats them as frequency weights in its regression path and gets −0.2566 instead of −0.2145 on
  REFERENCE_WAVE2 W.2; brecha does not copy that.)
- Change between two periods (Wagstaff et al. 2003, eq. 8, Oaxaca-type): Δ(η_k C_k) =
  η_k,1 (C_k,1 − C_k,0) + C_k,0 (η_k,1 − η_k,0), columns ``change_concentration`` and ``change_elasticity``.

Bootstrap: deaths redrawn from Poisson(observed deaths), births and determinants fixed (all units of the
country are observed; the uncertainty is that of the death counts), every replicate's WLS solved at once
(one matrix product), percentile intervals.

>>> import numpy as np
>>> y = np.array([5.1, 6.3, 7.8, 9.2, 4.4, 12.7, 10.2, 8.8, 6.9, 3.9])
>>> w = np.array([1200, 800, 450, 300, 2500, 650, 400, 900, 700, 3000])
>>> income = np.array([520, 410, 300, 250, 610, 180, 220, 330, 390, 700])
>>> round(float(concentration_index(y, w, income)), 12)
-0.214452618614
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..errors import InputError, warn
from ..i18n import Catalog
from .decompose import bootstrap_interval
from .ordered import ridit

MSG = Catalog({
    "need_determinants": ("indique los determinantes (p. ej. --determinants poverty,schooling)",
                          "give the determinants (e.g. --determinants poverty,schooling)"),
    "unknown": ("determinante '{name}' no está en el panel ni se puede construir",
                "determinant '{name}' is not in the panel and cannot be built"),
    "unknown_hint": ("covariables del panel: {have}", "covariates of the panel: {have}"),
    "collinear": ("{period}: los determinantes son colineales ({names}); la regresión no se puede ajustar",
                  "{period}: the determinants are collinear ({names}); the regression cannot be fitted"),
    "collinear_hint": ("quite uno de ellos (o un determinante que no varía entre unidades)",
                       "leave one of them out (or a determinant that does not vary between units)"),
    "missing": ("{period}: {n} {n:unidad|unidades} sin valor de {names} {n:queda|quedan} fuera de la descomposición "
                "({units})",
                "{period}: {n} {n:unit|units} without a value of {names} {n:is|are} left out of the decomposition "
                "({units})"),
    "no_births": ("{period}: {n} {n:unidad|unidades} sin nacimientos o sin defunciones registradas {n:queda|quedan} "
                  "fuera",
                  "{period}: {n} {n:unit|units} without births or without recorded deaths {n:is|are} left out"),
    "skipped": ("{period}: sin descomposición, {names} no tiene valores ese período",
                "{period}: no decomposition, {names} has no values in that period"),
    "none_decomposed": ("ningún período tiene al menos {k} unidades con nacimientos y los determinantes: no hay "
                        "nada que descomponer", "no period has at least {k} units with births and the "
                        "determinants: there is nothing to decompose"),
    "none_decomposed_hint": ("analice más unidades (una región o el país entero) o menos determinantes",
                             "analyse more units (a region or the whole country) or fewer determinants"),
    "too_few": ("{period}: {n} {n:unidad|unidades} para {k} coeficientes; sin descomposición",
                "{period}: {n} {n:unit|units} for {k} coefficients; no decomposition"),
    "zero_mean": ("media 0: índice de concentración no definido", "mean 0: concentration index undefined"),
    "bad_change": ("--change necesita dos períodos analizados (p. ej. 2006,2012); hay: {have}",
                   "--change needs two analysed periods (e.g. 2006,2012); there are: {have}"),
})

COLUMNS = ["period", "outcome", "term", "coefficient", "mean", "elasticity", "concentration_index", "contribution",
           "percent", "lower", "upper", "se", "change_concentration", "change_elasticity", "method", "rank_by",
           "advantaged", "n_units", "n_excluded", "bootstrap", "seed", "note"]
METHOD = "Wagstaff-van Doorslaer-Watanabe 2003; births-weighted covariance formula"


def fractional_rank(weights, order) -> np.ndarray:
    """R_i: births share ranked before i plus half its own, ties sharing their block (``ridit``)."""
    return ridit(np.asarray(weights, dtype=float), np.asarray(order))


def concentration_index(y, weights, order) -> np.ndarray:
    """C = 2 Σ p_i (y_i − μ)(R_i − ½)/μ, ``y`` with the units on the last axis (any leading axes)."""
    p = np.asarray(weights, dtype=float) / np.sum(weights)
    r = fractional_rank(weights, order)
    y = np.asarray(y, dtype=float)
    mu = y @ p
    with np.errstate(divide="ignore", invalid="ignore"):
        return 2.0 * ((y * p) @ (r - 0.5)) / mu  # Σ p (R − ½) = 0, so the μ term drops out


class Decomposition:
    """What the decomposition of any rates needs from the determinants, the births and the ranking, computed
    once: births shares p, fractional ranks R, the WLS hat matrix, x̄_k, cov_p(x_k, R) and C_k. Called on
    rates ``y`` (…, n) it gives :func:`decompose_arrays`' result with one matrix product
    y @ [hat | p | p (R − ½)] (coefficients, μ and cov_p(y, R) together), so a block of replicates costs one
    pass over its rates."""

    def __init__(self, x, weights, order):
        p = np.asarray(weights, dtype=float) / np.sum(weights)
        x = np.asarray(x, dtype=float)
        r = fractional_rank(weights, order) - 0.5
        design = np.column_stack([np.ones(len(p)), x])
        gram = design.T @ (design * p[:, None])
        hat = (design * p[:, None]) @ np.linalg.inv(gram)  # (n, K+1): coefficients = y @ hat
        self.k = x.shape[1]
        self.products = np.ascontiguousarray(np.column_stack([hat, p, p * r]))  # Σ p r = 0: no μ term
        self.xbar = p @ x
        self.cov_x = (x * p[:, None]).T @ r  # cov_p(x_k, R)
        with np.errstate(divide="ignore", invalid="ignore"):
            self.ci_x = np.where(self.xbar != 0, 2.0 * self.cov_x / self.xbar, np.nan)

    def __call__(self, y) -> dict:
        prod = np.asarray(y, dtype=float) @ self.products
        coef, mu, cov_y = prod[..., :self.k + 1], prod[..., self.k + 1], prod[..., self.k + 2]
        with np.errstate(divide="ignore", invalid="ignore"):
            beta = coef[..., 1:]
            contribution = 2.0 * beta * self.cov_x / mu[..., None]
            total = 2.0 * cov_y / mu
            residual = total - contribution.sum(axis=-1)  # = 2 cov_p(ε, R)/μ (see the module docstring)
            elasticity = beta * self.xbar / mu[..., None]
        return {"coefficient": beta, "intercept": coef[..., 0], "mean": self.xbar, "elasticity": elasticity,
                "concentration_index": self.ci_x, "contribution": contribution, "residual": residual,
                "total": total, "mu": mu}


def decompose_arrays(y, x, weights, order) -> dict:
    """The decomposition of ``y`` ((…, n) rates) by the columns of ``x`` ((n, K) determinants).

    Returns arrays: ``coefficient`` (…, K), ``mean`` (K,), ``elasticity`` (…, K), ``concentration_index``
    (K,) of each determinant, ``contribution`` (…, K), ``residual`` (…,), ``total`` (…,) = C of y,
    ``mu`` (…,), ``intercept`` (…,).
    """
    return Decomposition(x, weights, order)(y)


def _check_rank(x, weights, names, period) -> None:
    design = np.column_stack([np.ones(len(x)), x]) * np.sqrt(np.asarray(weights, dtype=float))[:, None]
    if np.linalg.matrix_rank(design) < design.shape[1]:
        bad = [n for j, n in enumerate(names)
               if np.linalg.matrix_rank(np.delete(design, j + 1, axis=1)) == np.linalg.matrix_rank(design)]
        raise InputError(MSG("collinear", period=period, names=", ".join(bad or names)), argument="determinants",
                         hint=MSG("collinear_hint"))


def _values_by_unit(panel, names, years) -> pd.DataFrame:
    """Unit x covariate: the mean over ``years`` (one year, or the years of a pooled period)."""
    d = panel.data
    if years is not None:
        d = d[d["year"].isin(list(years))]
    values = d[list(names)].apply(pd.to_numeric, errors="coerce").astype(float)
    return values.groupby(d["unit"].astype(str).to_numpy()).mean()


def ci_decompose(panel, rank_by: str, determinants, outcome: str = "infant", years=None, pool: bool = False,
                 bootstrap: int = 0, seed: int = 20240601, conf_level: float = 0.95, advantaged: str | None = None,
                 change=None) -> pd.DataFrame:
    """Concentration index of the units' rates decomposed by ``determinants``, per period (or pooled).

    ``rank_by`` orders the units (``advantaged``: which end is better off, as ``inequality``; low for
    poverty and distance). Covariates the panel lacks are attached when brecha can build them. Units
    without a value of the rank or of a determinant are left out with a warning (and counted in
    ``n_excluded``). ``change=(y0, y1)`` adds rows ``period = "y0-y1"`` with the change of each
    contribution split as the module docstring says.

    Returns :data:`COLUMNS`: one row per determinant, ``residual`` and ``total`` (whose ``contribution`` is
    the concentration index of the outcome and equals the sum of the other rows); ``percent`` = contribution
    / C × 100; ``lower``/``upper`` the bootstrap interval of the contribution (empty without ``bootstrap``).
    """
    from ..intervals import check_conf_level
    from ..panel import resolve_outcome
    from ..threads import map_in_threads
    from .api import default_advantaged

    names = [d.strip() for d in (determinants.split(",") if isinstance(determinants, str) else determinants or [])
             if str(d).strip()]
    if not names:
        raise InputError(MSG("need_determinants"), argument="determinants")
    conf_level = check_conf_level(conf_level)
    outcome_name = resolve_outcome(outcome)
    wanted = list(dict.fromkeys([rank_by] + names))
    absent = [n for n in wanted if n not in panel.data.columns]
    if absent:
        from ..covariates import attach_missing, buildable_hint

        panel = attach_missing(panel, absent)
        for n in wanted:
            if n not in panel.data.columns:
                raise InputError(MSG("unknown", name=n), argument="determinants", column=n,
                                 hint=MSG("unknown_hint", have=", ".join(panel.covariates) or "-")
                                 + buildable_hint(panel))
    advantaged = advantaged or default_advantaged(rank_by)
    ev = panel.events(outcome_name, years=years, pool=pool)
    alpha_q = (1.0 - conf_level) / 2
    rows: list[dict] = []
    kept: dict[str, tuple] = {}
    pieces: list[dict] = []  # the periods' units, chosen (with their warnings) in order; computed in threads
    for period, block in ev.groupby(ev["period"].astype(str), sort=True):
        period_years = [int(period)] if not pool else (list(years) if years is not None else panel.years)
        values = _values_by_unit(panel, wanted, period_years)
        codes = block["unit"].astype(str).to_numpy()
        events = block["events"].astype("Float64").to_numpy(dtype=float, na_value=np.nan)
        births = block["births"].astype("Float64").to_numpy(dtype=float, na_value=np.nan)
        usable = np.isfinite(events) & np.isfinite(births) & (births > 0)
        if (~usable).any():
            warn(MSG("no_births", period=period, n=int((~usable).sum())))
        table = values.reindex(codes)
        empty = [n for n in wanted if not table.loc[usable, n].notna().any()]
        if empty:
            warn(MSG("skipped", period=period, names=", ".join(empty)))
            continue
        has = table.notna().all(axis=1).to_numpy()
        lacking = usable & ~has
        if lacking.any():
            which = [n for n in wanted if table.loc[lacking, n].isna().any()]
            warn(MSG("missing", period=period, n=int(lacking.sum()), names=", ".join(which),
                     units=", ".join(codes[lacking][:8]) + (" ..." if lacking.sum() > 8 else "")))
        ok = usable & has
        if ok.sum() <= len(names) + 1:
            warn(MSG("too_few", period=period, n=int(ok.sum()), k=len(names) + 1))
            continue
        x = table.loc[ok, names].to_numpy(dtype=float)
        rank_value = table.loc[ok, rank_by].to_numpy(dtype=float)
        order = rank_value if advantaged == "high" else -rank_value
        ev_ok, births_ok = events[ok], births[ok]
        _check_rank(x, births_ok, names, period)
        pieces.append(dict(period=period, events=ev_ok, births=births_ok, x=x, order=order,
                           base=dict(period=period, method=METHOD, n_units=int(ok.sum()),
                                     n_excluded=int((~ok).sum()))))
    if not pieces:  # no period with units enough: an empty table said nothing (exit 0, "Empty DataFrame")
        raise InputError(MSG("none_decomposed", k=len(names) + 2), hint=MSG("none_decomposed_hint"))

    def work(piece):
        return _period_results(piece, int(bootstrap or 0), seed)

    for piece, (point, reps) in zip(pieces, map_in_threads(work, pieces)):
        kept[piece["period"]] = (point, reps)
        rows += _rows(names, point, reps, piece["base"], alpha_q)
    if change is not None:
        rows += _change_rows(kept, change, names, alpha_q)
    out = pd.DataFrame(rows)
    for column in COLUMNS:
        if column not in out:
            out[column] = np.nan
    out["outcome"] = outcome_name
    out["rank_by"] = rank_by
    out["advantaged"] = advantaged
    out["bootstrap"] = int(bootstrap or 0)
    out["seed"] = int(seed) if bootstrap else pd.NA
    out["note"] = out["note"].fillna("") if len(out) else out["note"]
    out = out[COLUMNS]
    out.attrs["notes"] = list(getattr(panel, "notes", ()) or ())
    return out


# replicates x units drawn and decomposed at once: 64 K cells keep every pass over a block in a core's cache
# and the products small enough for the linear-algebra library to compute in the calling thread
BLOCK_CELLS = 1 << 16
PER_REPLICATE = ("coefficient", "intercept", "elasticity", "contribution", "residual", "total", "mu")


def _period_results(piece: dict, bootstrap: int, seed: int) -> tuple:
    """One period's decomposition and (with ``bootstrap``) its replicates' (:func:`replicate_decompositions`),
    from the period's own generator: what a period gives does not depend on the others, so the periods run
    in threads (:mod:`brecha.threads`)."""
    from .bootstrap import period_rng

    events, births, x, order = piece["events"], piece["births"], piece["x"], piece["order"]
    decomposition = Decomposition(x, births, order)
    point = decomposition(1000.0 * events / births)
    if not bootstrap:
        return point, None
    return point, replicate_decompositions(period_rng(seed, piece["period"]), events, births, decomposition,
                                           bootstrap)


def replicate_decompositions(rng, events, births, decomposition: Decomposition, bootstrap: int,
                             block_cells: int = BLOCK_CELLS) -> dict:
    """``decomposition`` (:class:`Decomposition`) of ``bootstrap`` replicates, deaths redrawn from Poisson(observed deaths) as
    bootstrap.draw_events draws them (births and determinants fixed), in blocks of replicates: the generator
    fills row after row, so the draws are those of one draw of every replicate at once, and no replicates x
    units array is kept. The per-replicate results of the blocks are stacked."""
    per_birth = 1000.0 / np.asarray(births, dtype=float)
    rows = max(1, block_cells // max(1, len(events)))
    parts = []
    for start in range(0, bootstrap, rows):
        rates = rng.poisson(events, size=(min(rows, bootstrap - start), len(events))) * per_birth
        parts.append(decomposition(rates))
    out = {key: np.concatenate([p[key] for p in parts], axis=0) for key in PER_REPLICATE}
    out["mean"], out["concentration_index"] = parts[0]["mean"], parts[0]["concentration_index"]
    return out


_interval = bootstrap_interval


def _rows(names, point, reps, base, alpha_q) -> list[dict]:
    total = float(point["total"])
    note = MSG("zero_mean") if not float(point["mu"]) else ""
    out = []
    for j, name in enumerate(names):
        value = float(point["contribution"][j])
        lo, hi, se = _interval(reps["contribution"][:, j], alpha_q) if reps is not None else (np.nan,) * 3
        out.append(dict(base, term=name, coefficient=float(point["coefficient"][j]), mean=float(point["mean"][j]),
                        elasticity=float(point["elasticity"][j]),
                        concentration_index=float(point["concentration_index"][j]), contribution=value,
                        percent=100.0 * value / total if total else np.nan, lower=lo, upper=hi, se=se, note=note))
    for term, key in (("residual", "residual"), ("total", "total")):
        value = float(point[key])
        lo, hi, se = _interval(reps[key], alpha_q) if reps is not None else (np.nan,) * 3
        out.append(dict(base, term=term, mean=float(point["mu"]) if term == "total" else np.nan,
                        concentration_index=value if term == "total" else np.nan, contribution=value,
                        percent=100.0 * value / total if total else np.nan, lower=lo, upper=hi, se=se, note=note))
    return out


def _change_rows(kept, change, names, alpha_q) -> list[dict]:
    periods = [str(p) for p in change]
    if len(periods) != 2 or any(p not in kept for p in periods):
        raise InputError(MSG("bad_change", have=", ".join(kept) or "-"), argument="change")
    (a, ra), (b, rb) = kept[periods[0]], kept[periods[1]]
    label = f"{periods[0]}-{periods[1]}"
    n = min(len(ra["total"]), len(rb["total"])) if ra is not None and rb is not None else 0
    out = []
    for j, name in enumerate(names):
        conc = float(b["elasticity"][j] * (b["concentration_index"][j] - a["concentration_index"][j]))
        elas = float(a["concentration_index"][j] * (b["elasticity"][j] - a["elasticity"][j]))
        value = float(b["contribution"][j] - a["contribution"][j])
        lo, hi, se = _interval(rb["contribution"][:n, j] - ra["contribution"][:n, j], alpha_q) if n else (np.nan,) * 3
        out.append(dict(period=label, term=name, contribution=value, change_concentration=conc,
                        change_elasticity=elas, lower=lo, upper=hi, se=se, method=METHOD + ", change (eq. 8)"))
    for term in ("residual", "total"):
        value = float(b[term] - a[term])
        lo, hi, se = _interval(rb[term][:n] - ra[term][:n], alpha_q) if n else (np.nan,) * 3
        out.append(dict(period=label, term=term, contribution=value, lower=lo, upper=hi, se=se,
                        method=METHOD + ", change (eq. 8)"))
    total = out[-1]["contribution"]
    for row in out:
        row["percent"] = 100.0 * row["contribution"] / total if total else np.nan
    return out
