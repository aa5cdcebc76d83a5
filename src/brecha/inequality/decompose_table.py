"""``decompose``: between/within decomposition of the units' rates by a grouping, per period, as a tidy table.

The arithmetic (GE(α), Theil T, MLD, Gini; Mookherjee-Shorrocks change) is in
:mod:`brecha.inequality.decompose`; this module picks the units and their groups from a Panel, redraws the
deaths for the bootstrap and writes the rows. Units are weighted by births. The indices are scale-free;
``scale`` multiplies every index value (1 by default; WHO HEAT reports Theil and MLD ×1000), and the
``scale`` column says which was used.

Bootstrap: deaths redrawn from Poisson(births × rate) with births fixed, the rates those of
:func:`world_rates` (the observed ones pulled towards their group's mean until their spread is the true
one), one generator per period from ``seed`` (:func:`brecha.inequality.bootstrap.period_rng`), every measure
and component evaluated on the same replicates, percentile intervals. With ``smoothed=True`` each replicate
is smoothed again (Marshall's global prior, :func:`brecha.smoothing.marshall_prior`), so the interval carries
the smoothing.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..errors import InputError, warn
from ..i18n import Catalog
from . import decompose as D

MSG = Catalog({
    "bad_measure": ("medida '{name}' desconocida para la descomposición; use theil, mld, gini o geA (p. ej. ge2, "
                    "ge0.5, ge-1)", "unknown measure '{name}' for the decomposition; use theil, mld, gini or geA "
                    "(e.g. ge2, ge0.5, ge-1)"),
    "bad_by": ("no se puede agrupar por '{by}': no es una columna de las unidades ({units}) ni del panel ({data})",
               "cannot group by '{by}': it is not a column of the units ({units}) nor of the panel ({data})"),
    "by_hint": ("use region, province, una columna del panel, o COVARIABLE:K para K clases de nacimientos "
                "iguales (p. ej. poverty:5)", "use region, province, a column of the panel, or COVARIATE:K for K "
                "classes of equal births (e.g. poverty:5)"),
    "bad_classes": ("'{by}': K debe ser un número entero entre 2 y 50", "'{by}': K must be a whole number from 2 "
                    "to 50"),
    "not_constant": ("la columna '{column}' cambia de valor dentro del período agrupado {period} en {n} {n:unidad|unidades} "
                     "(p. ej. {units}); el grupo de una unidad debe ser uno solo",
                     "column '{column}' changes value within the pooled period {period} in {n} {n:unit|units} (e.g. "
                     "{units}); a unit must belong to one group"),
    "not_constant_hint": ("analice año por año (sin --pool) o use una columna que no cambie",
                          "analyse year by year (without --pool) or use a column that does not change"),
    "no_group": ("{period}: {n} {n:unidad|unidades} sin valor de '{by}' {n:queda|quedan} fuera de la descomposición "
                 "({units})",
                 "{period}: {n} {n:unit|units} without a value of '{by}' {n:is|are} left out of the decomposition "
                 "({units})"),
    "no_births": ("{period}: {n} {n:unidad|unidades} sin nacimientos o sin defunciones registradas {n:queda|quedan} "
                  "fuera",
                  "{period}: {n} {n:unit|units} without births or without recorded deaths {n:is|are} left out"),
    "zero_rates": ("{measure} no está definida con tasas 0 (ln 0): {n} {n:unidad|unidades} con tasa 0 en {periods}; se deja "
                   "vacía. Use --smoothed para calcularla sobre tasas suavizadas (Bayes empírico), o theil, ge2 o "
                   "gini, que admiten tasas 0",
                   "{measure} is undefined with zero rates (ln 0): {n} {n:unit|units} with rate 0 in {periods}; left "
                   "empty. Use --smoothed to compute it on smoothed rates (empirical Bayes), or theil, ge2 or "
                   "gini, which accept zero rates"),
    "undefined_note": ("no definida: {n} {n:unidad|unidades} con tasa 0", "undefined: {n} {n:unit|units} with rate 0"),
    "too_few": ("{period}: menos de 2 unidades con nacimientos; sin descomposición",
                "{period}: fewer than 2 units with births; no decomposition"),
    "none_decomposed": ("ningún período tiene al menos 2 unidades con nacimientos y grupo: no hay nada que "
                        "descomponer", "no period has at least 2 units with births and a group: there is nothing "
                        "to decompose"),
    "none_decomposed_hint": ("analice más unidades (una región o el país entero)",
                             "analyse more units (a region or the whole country)"),
    "bad_change": ("--change necesita dos períodos analizados (p. ej. 2001,2011); hay: {have}",
                   "--change needs two analysed periods (e.g. 2001,2011); there are: {have}"),
    "change_pool": ("--change compara dos años: no se puede usar con --pool",
                    "--change compares two years: it cannot be used with --pool"),
    "bad_scale": ("escala {scale}: use 1 (por defecto) o 1000 (como WHO HEAT)",
                  "scale {scale}: use 1 (the default) or 1000 (as WHO HEAT)"),
    "bootstrap_note": ("IC bootstrap paramétrico ({n} {n:réplica|réplicas}, semilla {seed})",
                       "parametric bootstrap CI ({n} {n:replicate|replicates}, seed {seed})"),
})

MEASURES = ("theil", "mld", "ge2", "gini")
COLUMNS = ["period", "outcome", "measure", "component", "group", "estimate", "lower", "upper", "share", "se",
           "scale", "method", "by", "group_index", "group_rate", "group_births_share", "n_units", "n_excluded",
           "bootstrap", "seed", "note"]
# replicates x units evaluated at once: 64 K cells (512 KB per array: a few fit in a core's L2 cache) keep
# memory flat and every pass over the block in cache; only the sums of a block are kept, and the per-group
# results are computed once for all the blocks (on 5,570 Brazilian units the Gini's sorts, gathers and sums
# of a year took 0.33 s of CPU in blocks of 8 replicates, 0.87 s with the 1,000 at once). The block size
# changes no number (tests/inequality/test_decompose_speed.py).
CHUNK_CELLS = 1 << 16


def parse_measures(measures) -> list[str]:
    names = measures.split(",") if isinstance(measures, str) else list(measures or MEASURES)
    out = []
    for raw in names:
        name = str(raw).strip().lower()
        if not name:
            continue
        name = {"t": "theil", "ge1": "theil", "ge0": "mld"}.get(name, name)
        if name != "gini" and D.parse_alpha(name) is None:
            raise InputError(MSG("bad_measure", name=raw), argument="measures")
        if name not in out:
            out.append(name)
    return out


def _method(name: str) -> str:
    if name == "gini":
        return "gini three-term (within, between, overlap; Dagum 1997)"
    return f"GE({D.parse_alpha(name):g}) between/within (Shorrocks 1980), births-weighted"


def unit_groups(panel, by: str, ev: pd.DataFrame, years, pool: bool) -> tuple[pd.Series, str]:
    """Each unit-period's group label (index aligned with ``ev``) and the grouping's name."""
    units = panel.units if panel.units is not None else pd.DataFrame({"unit": panel.unit_codes})
    column, _, classes = str(by).partition(":")
    if not classes and column in units.columns and column != "unit":
        names = f"{column}_name"
        lookup = units.drop_duplicates("unit").set_index("unit")
        label = lookup[column].astype("string")
        if names in lookup.columns:  # "09 Araucanía": the code keeps groups apart, the name is for reading
            label = label + " " + lookup[names].astype("string")
        return ev["unit"].astype(str).map(label), column
    data = panel.data
    if column not in data.columns:
        from ..covariates import attach_missing

        try:
            panel = attach_missing(panel, [column])
            data = panel.data
        except InputError:
            pass
    if column not in data.columns:
        raise InputError(MSG("bad_by", by=by, units=", ".join(c for c in units.columns if c != "unit"),
                             data=", ".join(panel.covariates) or "-"), argument="by", column=column,
                         hint=MSG("by_hint"))
    d = data[["unit", "year", column]].copy()
    d["period"] = d["year"].astype(str)
    if pool:
        d["period"] = ev["period"].iloc[0] if len(ev) else ""
        if years is not None:
            d = d[d["year"].isin(list(years))]
    if classes:
        try:
            k = int(classes)
        except ValueError:
            k = 0
        if not 2 <= k <= 50:
            raise InputError(MSG("bad_classes", by=by), argument="by")
        from .api import quantile_groups

        values = pd.to_numeric(d[column], errors="coerce")
        mean = values.groupby([d["period"], d["unit"]]).mean()
        key = pd.MultiIndex.from_arrays([ev["period"].astype(str), ev["unit"].astype(str)])
        value = mean.reindex(key).to_numpy(dtype=float)
        out = pd.Series(pd.NA, index=ev.index, dtype="string")
        births = ev["births"].astype(float).to_numpy()
        for period in pd.unique(ev["period"].astype(str)):
            rows = (ev["period"].astype(str) == period).to_numpy() & np.isfinite(value) & (births > 0)
            if rows.any():
                cls = quantile_groups(value[rows], births[rows], k)
                out.iloc[np.flatnonzero(rows)] = [f"{column} Q{c}" for c in cls]
        return out, by
    distinct = d.dropna(subset=[column]).groupby(["period", "unit"])[column].nunique()
    if (distinct > 1).any():
        bad = distinct[distinct > 1].index.get_level_values("unit")
        raise InputError(MSG("not_constant", column=column, period=d["period"].iloc[0], n=len(bad),
                             units=", ".join(map(str, bad[:5]))), column=column, hint=MSG("not_constant_hint"))
    first = d.dropna(subset=[column]).groupby(["period", "unit"])[column].first()
    key = pd.MultiIndex.from_arrays([ev["period"].astype(str), ev["unit"].astype(str)])
    values = first.reindex(key)
    if pd.api.types.is_numeric_dtype(values) and np.all(np.mod(values.dropna(), 1) == 0):
        values = values.astype("Int64")  # class 2, not 2.0
    return pd.Series(values.astype("string").to_numpy(), index=ev.index), column


def world_rates(events, births, groups) -> np.ndarray:
    """The rates the bootstrap redraws deaths from: each group's rates pulled towards the group's mean
    until their births-weighted variance is the estimated true variance of the group (Marshall 1991's
    moments: θ_i = m_g + c_g (r_i − m_g), c_g = sqrt(A_g / s²_g)), as the noise-corrected measures of
    :mod:`brecha.inequality.bootstrap` do.

    Redrawn around the observed rates, the replicates would hold the Poisson noise twice (the observed
    spread already holds it) and the intervals would sit above the estimate; redrawn around the empirical
    Bayes rates, whose spread is smaller than the true one, they would sit below it. On 346 Chilean
    communes (2011 births) with gamma-distributed true rates around 16 regional means (200 simulations x 300
    replicates) the 95 % percentile intervals of Theil T and the Gini (total, between, within) covered the
    expected index 85-95 % of the time this way, and 12-80 % with the empirical Bayes rates
    (tests/inequality/test_decompose_calibration.py repeats a smaller version).
    """
    from ..smoothing import marshall_prior

    events = np.asarray(events, dtype=float)
    births = np.asarray(births, dtype=float)
    groups = np.asarray(groups, dtype=np.int64)
    m, a, _, _ = marshall_prior(events, births, groups)
    rate = events / births
    spread = np.bincount(groups, births * (rate - m[groups]) ** 2) / np.bincount(groups, births)
    with np.errstate(divide="ignore", invalid="ignore"):
        c = np.where(spread > 0, np.sqrt(a / spread), 0.0)
    return m[groups] + c[groups] * (rate - m[groups])


def _smooth_replicates(sim, births, groups=None):
    """Each replicate's rates smoothed with Marshall's prior (as :func:`brecha.smoothing.smooth`): one
    global prior, or one prior per group (``groups``: codes 0..G-1)."""
    from ..smoothing import marshall_prior

    out = np.empty_like(sim)
    for r in range(sim.shape[0]):
        m, a, _, gidx = marshall_prior(sim[r], births, groups)
        m, a = m[gidx], a[gidx]
        with np.errstate(divide="ignore", invalid="ignore"):
            weight = np.where(a > 0, a / (a + m / births), 0.0)
        out[r] = m + weight * (sim[r] / births - m)
    return out


def decompose(panel, by: str = "region", measures=MEASURES, outcome: str = "infant", years=None,
              pool: bool = False, bootstrap: int = 0, seed: int = 20240601, conf_level: float = 0.95,
              smoothed: bool = False, scale: float = 1.0, change=None) -> pd.DataFrame:
    """Between/within decomposition of the units' rates by ``by``, per period (or pooled).

    Parameters
    ----------
    by : ``region``, ``province`` (or another column of ``panel.units``), a column of the panel (a unit's
        value must not change inside a pooled period), or ``COVARIATE:K`` (K classes of equal births by the
        covariate, as ``inequality --groups``).
    measures : ``theil``, ``mld``, ``ge2``, ``gini`` (default: all four) or any ``geA``.
    smoothed : decompose the empirical-Bayes smoothed rates (:func:`brecha.smoothing.smooth`, global
        prior) instead of the observed ones; needed for MLD and GE(α ≤ 0) when a unit has 0 deaths.
    scale : 1 (default) or 1000 (WHO HEAT's Theil and MLD).
    change : two periods (e.g. ``(2001, 2011)``): add the change between them split into its parts
        (:func:`brecha.inequality.decompose.change`), ``component = change_total, change_within_intensity,
        change_within_shares, change_between_shares, change_between_means`` (+ ``change_overlap``, Gini).

    Returns a DataFrame with :data:`COLUMNS`: per period and measure the components ``total``, ``between``,
    ``within`` (+ ``overlap`` for the Gini) and one ``group`` row per group (its contribution to within,
    with the group's own index, rate per 1,000 and births share); ``share`` = row / total.

    >>> import pandas as pd
    >>> from brecha.panel import Panel
    >>> data = pd.DataFrame({"unit": list("abcd"), "year": 2010, "births": [1000, 1000, 1000, 1000],
    ...                      "deaths": [5, 10, 5, 10], "zone": [1, 1, 2, 2]})
    >>> out = decompose(Panel(data), by="zone", measures="theil")
    >>> out.set_index("component")["estimate"].round(6).to_dict()
    {'total': 0.056633, 'between': 0.0, 'within': 0.056633, 'group': 0.028317}
    """
    from ..intervals import check_conf_level
    from ..panel import resolve_outcome
    from ..threads import map_in_threads

    names = parse_measures(measures)
    conf_level = check_conf_level(conf_level)
    if float(scale) not in (1.0, 1000.0):
        raise InputError(MSG("bad_scale", scale=scale), argument="scale")
    if change is not None and pool:
        raise InputError(MSG("change_pool"), argument="change")
    outcome_name = resolve_outcome(outcome)
    ev = panel.events(outcome_name, years=years, pool=pool)
    label, by_name = unit_groups(panel, by, ev, years, pool)
    smooth_rates = None
    if smoothed:
        from ..smoothing import smooth

        sm = smooth(panel, outcome=outcome_name, years=years, pool=pool)
        smooth_rates = sm.set_index(["period", "unit"])["estimate"] / 1000.0
    alpha_q = (1.0 - conf_level) / 2
    rows: list[dict] = []
    kept: dict[str, tuple] = {}  # period -> (point decompositions, replicate decompositions, labels)
    zero_periods: dict[str, list] = {}
    pieces: list[dict] = []  # the periods' units, chosen (with their warnings) in order; computed in threads
    for period, block in ev.groupby(ev["period"].astype(str), sort=True):
        events = block["events"].astype("Float64").to_numpy(dtype=float, na_value=np.nan)
        births = block["births"].astype("Float64").to_numpy(dtype=float, na_value=np.nan)
        lab = label.loc[block.index]
        usable = np.isfinite(events) & np.isfinite(births) & (births > 0)
        if (~usable).any():
            warn(MSG("no_births", period=period, n=int((~usable).sum())))
        missing = usable & lab.isna().to_numpy()
        if missing.any():
            codes = block["unit"].astype(str).to_numpy()[missing]
            warn(MSG("no_group", period=period, n=int(missing.sum()), by=by_name,
                     units=", ".join(codes[:8]) + (" ..." if len(codes) > 8 else "")))
        ok = usable & ~missing
        n_excluded = int((~ok).sum())
        if ok.sum() < 2:
            warn(MSG("too_few", period=period))
            continue
        events, births = events[ok], births[ok]
        codes_ok = block["unit"].astype(str).to_numpy()[ok]
        group_code, group_labels = pd.factorize(lab.to_numpy()[ok], sort=True)
        if smooth_rates is not None:
            rate = smooth_rates.reindex(pd.MultiIndex.from_arrays([[period] * len(codes_ok), codes_ok])).to_numpy()
        else:
            rate = events / births
        pieces.append(dict(period=period, rate=rate, events=events, births=births, group_code=group_code,
                           group_labels=list(group_labels), n_units=int(ok.sum()), n_excluded=n_excluded))

    if not pieces:  # no period with 2 units: an empty table said nothing (exit 0, "Empty DataFrame")
        raise InputError(MSG("none_decomposed"), hint=MSG("none_decomposed_hint"))

    def work(piece):
        return _period_results(piece, names, bootstrap, seed, smoothed)

    for piece, (point, reps) in zip(pieces, map_in_threads(work, pieces)):
        period, rate, group_labels, n_excluded = (piece["period"], piece["rate"], piece["group_labels"],
                                                  piece["n_excluded"])
        kept[period] = (point, reps, list(group_labels))
        zero = int(np.sum(rate <= 0))
        for name in names:
            alpha = D.parse_alpha(name)
            undefined = alpha is not None and alpha <= 0 and zero > 0
            if undefined:
                zero_periods.setdefault(name, []).append((period, zero))
            base = dict(period=period, measure=name, method=_method(name) + (", smoothed (EB)" if smoothed else ""),
                        n_units=piece["n_units"], n_excluded=n_excluded,
                        note=MSG("undefined_note", n=zero) if undefined else "")
            rows += _rows(name, point[name], None if reps is None else reps[name], group_labels, base, alpha_q,
                          scale)
    for name, where in zero_periods.items():
        warn(MSG("zero_rates", measure=name.upper(), n=max(n for _, n in where),
                 periods=", ".join(p for p, _ in where[:8]) + (" ..." if len(where) > 8 else "")))
    if change is not None:
        rows += _change_rows(kept, change, names, alpha_q, scale)
    out = pd.DataFrame(rows)
    if not len(out):
        out = pd.DataFrame(columns=COLUMNS)
    out["outcome"] = outcome_name
    out["by"] = by_name
    out["scale"] = float(scale)
    out["bootstrap"] = int(bootstrap or 0)
    out["seed"] = int(seed) if bootstrap else pd.NA
    for column in COLUMNS:
        if column not in out:
            out[column] = np.nan if column not in ("group", "note") else ""
    out = out[COLUMNS]
    out.attrs["notes"] = list(getattr(panel, "notes", ()) or ())
    return out


def _period_results(piece: dict, names, bootstrap: int, seed: int, smoothed: bool) -> tuple:
    """One period's decompositions and (with ``bootstrap``) those of its replicates, from its own generator
    (:func:`brecha.inequality.bootstrap.period_rng`): what a period gives does not depend on the others, so
    the periods run in threads (:mod:`brecha.threads`)."""
    from .bootstrap import period_rng

    rate, births, group_code = piece["rate"], piece["births"], piece["group_code"]
    groups = D.Groups(group_code)
    cache: dict = {}
    point = {name: D.decompose_measure(name, rate, births, groups, cache) for name in names}
    if not bootstrap:
        return point, None
    rng = period_rng(seed, piece["period"])
    events = piece["events"]
    chunks: dict[str, list] = {name: [] for name in names}
    expected = births * world_rates(events, births, group_code)
    chunk = max(1, CHUNK_CELLS // len(births))
    per_birth = 1.0 / births
    shares = births / np.sum(births)
    logs, use_logs = None, not smoothed and any(D.parse_alpha(name) in (0.0, 1.0) for name in names)
    work = D.Workspace()  # the blocks' scratch arrays, reused block after block (same numbers, no fresh pages)
    for start in range(0, bootstrap, chunk):
        sim = rng.poisson(expected, size=(min(chunk, bootstrap - start), len(births)))  # as draw_events
        if smoothed:
            y = _smooth_replicates(sim.astype(float), births)
        else:
            y = np.multiply(sim, per_birth, out=work.array("rates", sim.shape))
        cache = {"work": work}  # shared by the measures of this block (y p, ln y, the group masses)
        if use_logs:  # a table of ln(k/B) for k up to well above the counts drawn (rebuilt if exceeded)
            if logs is None or not logs.covers(sim):
                top = np.maximum(sim.max(axis=0), 0 if logs is None else logs.max_counts)
                logs = D.CountLogs(per_birth, top + 4 + 3 * np.sqrt(top).astype(np.int64))
            logs.fill(sim, groups, cache, minus_inf="mld" in names)
        for name in names:
            chunks[name].append(D.replicate_sums(name, y, shares, groups, cache))
    big_p = groups.sums(shares)  # the per-group results: once for all the blocks
    reps = {name: D.from_sums(name, tuple(np.concatenate(k, axis=0) for k in zip(*parts)), big_p)
            for name, parts in chunks.items()}
    return point, reps


_interval = D.bootstrap_interval


def _intervals(matrix, alpha_q) -> list[tuple]:
    """:func:`_interval` of every column of ``matrix`` (replicates x columns), the columns without a
    missing replicate in one call of ``np.quantile`` and of ``std`` (each column is still reduced on its own,
    so the numbers are the same as column by column)."""
    m = np.asarray(matrix, dtype=float)
    out = [(np.nan,) * 3] * m.shape[1]
    whole = np.isfinite(m).all(axis=0) if m.shape[0] >= 2 else np.zeros(m.shape[1], dtype=bool)
    if whole.any():
        cols = m[:, whole]
        lo, hi = np.quantile(cols, [alpha_q, 1 - alpha_q], axis=0)
        se = np.ascontiguousarray(cols.T).std(axis=1, ddof=1)
        for k, j in enumerate(np.flatnonzero(whole)):
            out[j] = (float(lo[k]), float(hi[k]), float(se[k]))
    for j in np.flatnonzero(~whole):
        out[j] = _interval(m[:, j], alpha_q)
    return out


def _rows(name, point, reps, group_labels, base, alpha_q, scale) -> list[dict]:
    """The component rows and the group rows of one measure in one period."""
    total = float(point["total"])
    components = ["total", "between", "within"] + (["overlap"] if name == "gini" else [])
    out = []
    if reps is not None:
        parts = _intervals(np.column_stack([reps[c] for c in components]), alpha_q)
        groups = _intervals(reps["contribution"], alpha_q)
    for i, component in enumerate(components):
        value = float(point[component])
        lo, hi, se = parts[i] if reps is not None else (np.nan,) * 3
        out.append(dict(base, component=component, group="", estimate=value * scale, lower=lo * scale,
                        upper=hi * scale, se=se * scale, share=value / total if total else np.nan))
    for j, group in enumerate(group_labels):
        value = float(point["contribution"][j])
        lo, hi, se = groups[j] if reps is not None else (np.nan,) * 3
        out.append(dict(base, component="group", group=str(group), estimate=value * scale, lower=lo * scale,
                        upper=hi * scale, se=se * scale, share=value / total if total else np.nan,
                        group_index=float(point["group_index"][j]) * scale,
                        group_rate=float(point["group_mean"][j]) * 1000.0,
                        group_births_share=float(point["group_share"][j])))
    return out


def _align(decomposition: dict, labels: list, union: list) -> dict:
    """A decomposition's per-group arrays on the union of both periods' groups (absent: share 0)."""
    where = [labels.index(g) if g in labels else -1 for g in union]
    out = dict(decomposition)
    for key in ("weight", "group_index", "group_mean", "group_share", "contribution"):
        v = np.asarray(decomposition[key], dtype=float)
        taken = np.take(v, [max(i, 0) for i in where], axis=-1)
        absent = np.array([i < 0 for i in where])
        out[key] = np.where(absent, 0.0, taken)
    return out


def _change_rows(kept, change, names, alpha_q, scale) -> list[dict]:
    periods = [str(p) for p in change]
    if len(periods) != 2 or any(p not in kept for p in periods):
        raise InputError(MSG("bad_change", have=", ".join(kept) or "-"), argument="change")
    (p0, r0, l0), (p1, r1, l1) = kept[periods[0]], kept[periods[1]]
    union = sorted(set(l0) | set(l1))
    rows = []
    for name in names:
        parts = D.change(name, _align(p0[name], l0, union), _align(p1[name], l1, union))
        reps = None
        if r0 is not None and r1 is not None:
            n = min(len(r0[name]["total"]), len(r1[name]["total"]))
            cut = {k: v[:n] for k, v in r0[name].items()}, {k: v[:n] for k, v in r1[name].items()}
            reps = D.change(name, _align(cut[0], l0, union), _align(cut[1], l1, union))
        total = float(parts["total"])
        for component in D.CHANGE_COMPONENTS:
            if component == "overlap" and name != "gini":
                continue
            value = float(parts[component])
            lo, hi, se = _interval(reps[component], alpha_q) if reps is not None else (np.nan,) * 3
            rows.append(dict(period=f"{periods[0]}-{periods[1]}", measure=name, component=f"change_{component}",
                             group="", estimate=value * scale, lower=lo * scale, upper=hi * scale, se=se * scale,
                             share=value / total if total else np.nan,
                             method="change split: Mookherjee & Shorrocks 1982 (within), Shapley (between)"))
    return rows
