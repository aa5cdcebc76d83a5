"""Spatial autocorrelation of rates: global Moran's I, local Moran (LISA) and Getis-Ord Gi*.

The statistics are computed by :mod:`brecha.spatial.moran` (esda's numbers, without importing esda; the
names below are esda's classes that give the same values).

Rates with different denominators have different variances, so Moran's I of raw rates mixes noise with
pattern. The main measure, ``moran_rate``, is Moran's I of the Assunção-Reis (1999, Stat Med 18:2147-2162)
empirical-Bayes standardised rates z_i = (r_i − b)/√(a + b/n_i), b = ΣD/ΣLB, a = Σn_i(r_i − b)²/Σn_i − b/n̄
(esda ``Moran_Rate``; ``moran`` is Moran's I of the raw rates, esda ``Moran``). Weights are row-standardised.

Global table (one row per period x measure x method; ``estimate`` is I, ``expected`` E[I] = −1/(n − 1)):
    ``normality``       z and two-sided p under the normality assumption (Cliff & Ord 1981);
    ``randomisation``   z and two-sided p under randomisation (Cliff & Ord 1981);
    ``permutation``     ``permutations`` random relabellings (seeded): z from the permutation mean and sd,
                        esda's pseudo p-value (1 + min(#{I_perm ≥ I}, P − #{I_perm ≥ I}))/(P + 1), P the
                        permutations (the smaller tail's count).
Local table (per unit and period):
    ``lisa``, ``lisa_p``  local Moran of the EB-standardised rates (Anselin 1995; esda ``Moran_Local_Rate``),
                          conditional-permutation pseudo p-value (seeded; the same count per unit; at least 99
                          permutations, also with ``permutations=0``);
    ``lisa_q``            Benjamini-Hochberg (1995) q-value of ``lisa_p`` over the units of the period (scipy
                          ``false_discovery_control``; :func:`brecha.spatial.moran.benjamini_hochberg`): the
                          false discovery rate is controlled at the level α (default 0.05) by calling a unit
                          a cluster when ``lisa_q`` ≤ α;
    ``cluster``           ``high-high``, ``low-low``, ``high-low``, ``low-high`` (the unit's EB-standardised
                          rate, then its neighbours' mean) when ``lisa_q`` ≤ α, else ``not_significant``; units
                          without a statistic carry their reason (``island``, ``no_polygon``, ``no_seat``,
                          ``no_births``; :mod:`brecha.spatial.neighbours`), or ``no_variation`` when every unit
                          of the period has the same rate (all statistics undefined, p-values missing; esda
                          would call every unit low-low: :mod:`brecha.spatial.moran`), or ``all_neighbours``
                          for a unit linked to every other unit (its conditional permutations cannot vary:
                          no p-value, not counted in the q-values);
    ``gi_star``, ``gi_z``, ``gi_p``  Getis-Ord Gi* (Ord & Getis 1995; esda ``G_Local(star=True)``) of the
                          empirical-Bayes smoothed rates (Marshall 1991 global prior, as :func:`brecha.smooth`;
                          Gi* needs non-negative values, which the standardised rates are not) with binary
                          weights and w_ii = 1: Σ_j w_ij x_j/Σ_j x_j, its analytic z (Ord & Getis 1995, eq. 9)
                          and two-sided normal p-value. When Marshall's between-unit variance is estimated at 0,
                          every smoothed rate is the prior mean: z is 0/0 and is left missing, with a warning
                          (esda's z is then rounding noise: 0, 1e-8 or −inf). (esda's analytic variance is the
                          binary-weight formula; with row-standardised weights it would be wrong, so brecha
                          passes binary weights.)
Clusters describe where similar rates sit together; they do not explain why (and with 346 communes some
"clusters" arise by chance: hence the FDR control).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..errors import InputError, warn
from ..i18n import Catalog
from ..intervals import as_float
from ..rates import attach_names, carry_notes, events_table

MSG = Catalog({
    "isolated": ("análisis espacial {period}: {count} {count:unidad|unidades} sin estadístico local ni parte del "
                 "I de Moran ({detail}); columna cluster del archivo local",
                 "spatial analysis {period}: {count} {count:unit|units} without a local statistic and not in "
                 "Moran's I ({detail}); see the cluster column of the local file"),
    "too_few": ("análisis espacial {period}: {count:queda|quedan} {count} {count:unidad|unidades} con tasa y vecinos; "
                "se necesitan al menos 3",
                "spatial analysis {period}: {count} {count:unit has|units have} a rate and neighbours; at least 3 are "
                "needed"),
    "too_few_hint": ("agrupe años (--pool) o analice más unidades (sin --region)",
                     "pool years (--pool) or analyse more units (without --region)"),
    "too_few_hint_pooled": ("analice más unidades (sin --region, o un área mayor)",
                            "analyse more units (without --region, or a larger area)"),
    "no_variation": ("análisis espacial {period}: todas las unidades tienen la misma tasa ({rate} por 1.000); el I "
                     "de Moran y los estadísticos locales no están definidos (cluster no_variation)",
                     "spatial analysis {period}: every unit has the same rate ({rate} per 1,000); Moran's I and the "
                     "local statistics are undefined (cluster no_variation)"),
    "all_neighbours": ("análisis espacial {period}: {names} {count:es vecina|son vecinas} de todas las demás "
                       "unidades; la prueba de permutación condicional no puede decir nada de {count:ella|ellas} "
                       "(sin p, cluster all_neighbours)",
                       "spatial analysis {period}: {names} {count:neighbours|neighbour} every other unit; the "
                       "conditional permutation test cannot tell anything about {count:it|them} (no p-value, "
                       "cluster all_neighbours)"),
    "gi_flat": ("análisis espacial {period}: las tasas suavizadas por Bayes empírico son todas iguales (la "
                "variación entre unidades no supera la del azar), así que Gi* no tiene z ni p",
                "spatial analysis {period}: the empirical-Bayes smoothed rates are all equal (the variation "
                "between units is no more than chance), so Gi* has no z or p-value"),
    "bad_permutations": ("--permutations debe ser 0 o al menos 99, no {value}",
                         "--permutations must be 0 or at least 99, not {value}"),
    "bad_seed": ("la semilla debe ser un entero no negativo, no {value}",
                 "the seed must be a non-negative integer, not {value}"),
    "bad_alpha": ("alpha debe estar entre 0 y 1, no {value}", "alpha must be between 0 and 1, not {value}"),
})

GLOBAL_COLUMNS = ["period", "outcome", "measure", "estimate", "expected", "z", "p_value", "method", "n_units",
                  "n_isolated", "neighbours", "permutations", "seed"]
LOCAL_COLUMNS = ["unit", "period", "outcome", "lisa", "lisa_p", "lisa_q", "cluster", "gi_star", "gi_z", "gi_p",
                 "events", "births", "rate", "eb_rate", "n_neighbours"]
QUADRANTS = {1: "high-high", 2: "low-high", 3: "low-low", 4: "high-low"}


def eb_rates(events, births):
    """Marshall (1991) global empirical-Bayes rates (per birth): m + C_i(r_i − m), C_i = A/(A + m/n_i)."""
    from ..smoothing import marshall_prior

    d, n = as_float(events), as_float(births)
    m, a, _, _ = marshall_prior(d, n)
    m, a = float(m[0]), float(a[0])
    r = d / n
    c = a / (a + m / n) if a > 0 else np.zeros_like(r)
    return m + c * (r - m)


def _global_rows(moran, measure, permutations):
    rows = [(measure, moran["I"], moran["EI"], moran["z_norm"], moran["p_norm"], "normality"),
            (measure, moran["I"], moran["EI"], moran["z_rand"], moran["p_rand"], "randomisation")]
    if permutations:
        rows.append((measure, moran["I"], moran["EI"], moran["z_sim"], moran["p_sim"], "permutation"))
    return rows


def _check(permutations, seed, alpha):
    if not (permutations == 0 or permutations >= 99):
        raise InputError(MSG("bad_permutations", value=permutations), argument="permutations")
    if seed is None or int(seed) < 0:
        raise InputError(MSG("bad_seed", value=seed), argument="seed")
    if not 0 < float(alpha) < 1:
        raise InputError(MSG("bad_alpha", value=alpha), argument="alpha")


def spatial_autocorrelation(panel, outcome: str = "infant", years=None, pool: bool = False,
                            neighbours="queen", permutations: int = 999, seed: int = 12345,
                            alpha: float = 0.05):
    """Global Moran's I (EB-standardised and raw rates) and the local table (LISA, clusters, Gi*).

    ``neighbours`` is a kind (``queen``, ``rook``, ``knn:K``) or a :class:`~brecha.spatial.neighbours.Neighbours`.
    Returns ``(global_table, local_table)`` with the columns of :data:`GLOBAL_COLUMNS` and
    :data:`LOCAL_COLUMNS` (+ ``name``). Per period, only the units with births and at least one neighbour
    among them enter; the others are in the local table with their reason as ``cluster`` (and a warning).
    """
    from .moran import assuncao_reis, benjamini_hochberg, getis_ord_star, global_moran, local_moran
    from .neighbours import as_neighbours

    permutations = int(permutations)
    _check(permutations, seed, alpha)
    nb = as_neighbours(panel, neighbours)
    ev, units, name = events_table(panel, outcome, years, pool)
    glob, local = [], []
    for period, part in ev.groupby("period", sort=True):
        part = part.set_index("unit")
        d, n = as_float(part["events"]), as_float(part["births"])
        has_rate = pd.Series(np.isfinite(d) & np.isfinite(n) & (n > 0), index=part.index)
        sub = nb.restrict([u for u in nb.units if u in has_rate.index and has_rate[u]])
        ids = sub.units
        if len(ids) < 3:
            raise InputError(MSG("too_few", period=period, count=len(ids)),
                             hint=MSG("too_few_hint_pooled" if pool else "too_few_hint"))
        dd = as_float(part.loc[ids, "events"])
        nn = as_float(part.loc[ids, "births"])
        w = sub.w
        standardised = assuncao_reis(dd, nn)
        m_rate = global_moran(standardised, w, permutations, seed)
        m_raw = global_moran(dd / nn, w, permutations, seed)
        lisa = local_moran(standardised, w, max(permutations, 99), seed)
        eb = eb_rates(dd, nn)
        gi = getis_ord_star(eb, w)
        for row in _global_rows(m_rate, "moran_rate", permutations) + _global_rows(m_raw, "moran", permutations):
            glob.append(dict(zip(("measure", "estimate", "expected", "z", "p_value", "method"), row),
                             period=str(period), n_units=len(ids), neighbours=nb.kind))
        q = benjamini_hochberg(lisa["p_sim"])
        cluster = np.where(q <= alpha, pd.Series(lisa["q"]).map(QUADRANTS).to_numpy(), "not_significant")
        gi_star, gi_z, gi_p = gi["Gs"], gi["Zs"], gi["p_norm"]
        same = not np.ptp(dd / nn) > 0  # every rate equal: nothing to compare between neighbours
        if same:  # every statistic blank here, whatever the smoothing's arithmetic gives
            cluster = np.full(len(ids), "no_variation", dtype=object)
            gi_star = gi_z = gi_p = np.full(len(ids), np.nan)
            warn(MSG("no_variation", period=period, rate=f"{1000 * float(dd.sum() / nn.sum()):.3g}"))
        elif not np.ptp(eb) > 0:
            warn(MSG("gi_flat", period=period))
        if not same and lisa["every_other"].any():
            cluster = np.where(lisa["every_other"], "all_neighbours", cluster)
            named = [u for u, every in zip(ids, lisa["every_other"]) if every]
            warn(MSG("all_neighbours", period=period, names=", ".join(named), count=len(named)))
        card = w.cardinalities
        local.append(pd.DataFrame({
            "unit": ids, "period": str(period), "lisa": lisa["Is"], "lisa_p": lisa["p_sim"], "lisa_q": q,
            "cluster": cluster, "gi_star": gi_star, "gi_z": gi_z, "gi_p": gi_p,
            "eb_rate": eb * 1000, "n_neighbours": [int(card[u]) for u in ids]}))
        held = set(ids)  # once: not once per unit (quadratic in the units)
        out_units = [u for u in part.index if u not in held]
        # a unit with births that the weights do not hold at all has no neighbour either
        reasons = {u: sub.isolated.get(u, "island" if has_rate[u] else "no_births") for u in out_units}
        if reasons:
            local.append(pd.DataFrame({"unit": list(reasons), "period": str(period),
                                       "cluster": list(reasons.values()), "n_neighbours": 0}))
            counts = pd.Series(list(reasons.values())).value_counts()
            detail = "; ".join(f"{k}: {', '.join(u for u, r in reasons.items() if r == k)}" for k in counts.index)
            warn(MSG("isolated", period=period, count=len(reasons), detail=detail))
        for row in glob[-(6 if permutations else 4):]:
            row["n_isolated"] = len(reasons)
    gt = pd.DataFrame(glob)
    gt["outcome"] = name
    gt["permutations"] = permutations
    gt["seed"] = int(seed)
    gt = gt[GLOBAL_COLUMNS]
    lt = pd.concat(local, ignore_index=True)
    counts = ev.assign(unit=ev["unit"].astype(str), period=ev["period"].astype(str))
    lt = lt.merge(counts[["unit", "period", "events", "births"]], on=["unit", "period"], how="left")
    lt["outcome"] = name
    lt["rate"] = as_float(lt["events"]) / as_float(lt["births"]).clip(min=np.nextafter(0, 1)) * 1000
    lt.loc[~(as_float(lt["births"]) > 0), "rate"] = np.nan
    lt = lt.sort_values(["period", "unit"], kind="stable").reset_index(drop=True)
    lt = attach_names(lt[LOCAL_COLUMNS], units)
    return carry_notes(gt, panel), carry_notes(lt, panel)
