"""Run the analyses of a study and keep their tables: computing only, no labels, no layout.

A :class:`StudyResults` is made for one outcome of a parsed study and its Panel; each function below runs
one analysis through the public API of its module (rates, disparity, smoothing, trends, inequality,
models) and stores the tidy tables, and the facts other sections need (the reference, the smoothed
rates, the trend classes ...), on it. The section modules (:mod:`brecha.report.sections`) turn them into
blocks. A module that is missing, or a function it lacks, raises :class:`~brecha.report.calls.Unavailable`.

Headline gap (:func:`gap`, plain arithmetic on counts): the units are sorted by their rate over the whole
period (empirical-Bayes smoothed when smoothing ran, so small units do not land in the extremes by chance)
and cut into fifths of births; each fifth's rate per year is ΣD/ΣLB × 1000, and the gap is the ratio of
the highest to the lowest fifth (Kunst & Mackenbach 1994's rate ratio of extreme groups). Its direction is
the annual percent change of that ratio, APC = (e^b − 1) × 100 from an OLS fit of ln(ratio) on year, with
a t-based 95 % CI (a gap "closes" when the whole CI is below 0).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..compat import isin
from ..panel import parse_years
from ..panel_levels import sum_members
from .calls import Unavailable, _call, _function, _module
from .data import _names, short_region
from .headline import extreme_fifths, log_linear_apc, rate_ratio_ci
from .labels import trend_codes

LARGE = 1500  # units above which the per-unit x year disparity table is left out of the report


@dataclass
class StudyResults:
    """The tables and facts of one outcome of a study (attributes stay None until their analysis ran)."""

    study: object
    panel: object
    outcome: str
    notes: list = field(default_factory=list)  # caveats the analyses found (moved to the report after each step)
    national: pd.DataFrame | None = None  # the study area's rates per year (unit TOTAL)
    national_pooled: pd.DataFrame | None = None
    per_year: pd.DataFrame | None = None  # unit x year rates
    pooled: pd.DataFrame | None = None  # unit rates over the period, with the unit's region
    regions_year: pd.DataFrame | None = None  # region x year rates (summed counts)
    smoothed_table: pd.DataFrame | None = None
    smoothed: pd.Series | None = None  # unit -> smoothed pooled rate
    smoothed_ci: pd.DataFrame | None = None
    smooth_method: str = "EB"
    reference: tuple | None = None  # (codes, label) of the study's reference, once resolved
    disparity_year: pd.DataFrame | None = None  # the TOTAL rows per year (PAR, PAR% ...)
    disparity_units_year: pd.DataFrame | None = None
    disparity_pooled: pd.DataFrame | None = None
    disparity_wide: pd.DataFrame | None = None  # one row per unit: rate, RR, AR, AR% (pooled)
    focus: pd.DataFrame | None = None  # the study's focus units, from the wide table
    focus_column: tuple | None = None  # (column, covariate, year) of the focus table's covariate value
    national_trend: pd.DataFrame | None = None
    gap_test: pd.DataFrame | None = None  # "is the gap closing?": comparability tests (analyses_joinpoint)
    joinpoint_fits: dict | None = None  # joinpoint fits drawn in the trends section (analyses_joinpoint)
    trends_table: pd.DataFrame | None = None
    trend_classes: pd.Series | None = None  # unit -> class code
    distribution: pd.DataFrame | None = None
    distribution_points: pd.DataFrame | None = None
    inequality_year: pd.DataFrame | None = None
    inequality_pooled: pd.DataFrame | None = None
    inequality_reference: str = ""  # "study" (measured against the study's reference), "fallback" or ""
    inequality_fallback: str = ""  # why the study's reference could not be used
    ordered: pd.DataFrame | None = None  # inequality between groups ranked by a covariate, per year
    ordered_missing_years: list = field(default_factory=list)
    covariate_table: pd.DataFrame | None = None
    covariate_year: pd.DataFrame | None = None  # the same with an int ``year`` column (for the charts)
    comovement: pd.DataFrame | None = None
    comovement_gini: pd.DataFrame | None = None  # x (covariate Gini), y (rate Gini) by period
    funnel_table: pd.DataFrame | None = None
    spatial: dict | None = None  # Moran, LISA, BYM2 tables (analyses_spatial, issue 15)
    models: object = None
    models_covariates: list = field(default_factory=list)
    gap: dict | None = None  # the headline numbers (see :func:`gap`)
    gap_where: dict | None = None  # "Where is the gap?" (brecha.report.analyses_gap_where)
    _national_events: pd.DataFrame | None = None

    @property
    def years(self) -> list[int]:
        return self.panel.years

    @property
    def period(self) -> str:
        y = self.years
        return f"{y[0]}-{y[-1]}" if len(y) > 1 else str(y[0])

    @property
    def names(self) -> dict:
        return _names(self.panel)

    def options(self, analysis: str, default=None) -> dict:
        return self.study.analyses.get(analysis, default) if default is not None else self.study.analyses[analysis]


# ------------------------------------------------------------------------------------------------ rates

def rates(res: StudyResults) -> None:
    fn = _function("rates", "rates", _lang())
    opts = res.options("rates", {"ci": "exact", "level": 0.95})
    kw = dict(outcome=res.outcome, years=res.years, ci=opts["ci"], conf_level=opts["level"])
    national = _call(fn, national_events(res), pool=False, **kw)
    national["year"] = national["period"].astype(int)
    pooled = with_region(_call(fn, res.panel, pool=True, **kw), res.panel)
    per_year = _call(fn, res.panel, pool=False, **kw)
    per_year["year"] = per_year["period"].astype(int)
    res.national_pooled = _call(fn, national_events(res), pool=True, **kw)
    units = res.panel.units
    if units is not None and "region" in units and 1 < units["region"].nunique() <= 30:
        # regions summed over their units that have data (Panel.events(level="region"))
        reg = _call(fn, res.panel, pool=False, level="region", **kw)
        reg["year"] = reg["period"].astype(int)
        res.regions_year = reg
    res.national, res.pooled, res.per_year = national, pooled, per_year


def national_events(res: StudyResults) -> pd.DataFrame:
    """Deaths and births of the whole study area per year (``Panel.events(level="country")``: the sums over
    the units that have both this outcome's deaths and births), with the panel's note on the unit-years
    left out (e.g. the 162 Brazilian municipality-years without births)."""
    if res._national_events is None:
        ev = res.panel.events(res.outcome, years=res.years, level="country")
        # only the note on unit-years left out of the sums (not the generic "aggregated" one)
        res.notes.extend(str(n) for n in ev.attrs.get("notes", ())
                         if str(n) not in res.panel.notes and "units_missing" in str(n))
        ev = ev.assign(unit="TOTAL").dropna(subset=["events", "births"])
        res._national_events = ev[["unit", "year", "events", "births"]].reset_index(drop=True)
    return res._national_events


def with_region(table: pd.DataFrame, panel) -> pd.DataFrame:
    """The table with each unit's region (short name) after its name."""
    u = panel.units
    if u is None or "region_name" not in u or "region" in table:
        return table
    reg = {k: short_region(v) for k, v in zip(u["unit"].astype(str).tolist(), u["region_name"].astype(str).tolist())}
    out = table.copy()
    pos = list(out.columns).index("name") + 1 if "name" in out else 1
    out.insert(pos, "region", out["unit"].map(reg))
    return out


# ------------------------------------------------------------------------------------- smoothing, funnel

def smoothing(res: StudyResults) -> None:
    smooth = _function("smoothing", "smooth", _lang())
    opts = res.options("smoothing", {"prior": "global"})
    table = _call(smooth, res.panel, outcome=res.outcome, years=res.years, pool=True, prior=opts.get("prior", "global"))
    col = _first(table, ("smoothed", "smoothed_rate", "eb_rate", "estimate"))
    res.smoothed = pd.Series(table[col].astype(float).to_numpy(), index=table["unit"].astype(str))
    res.smoothed_ci = pd.DataFrame({"lower": table["lower"].astype(float).to_numpy(),
                                    "upper": table["upper"].astype(float).to_numpy()}, index=table["unit"].astype(str))
    res.smooth_method = str(table["method"].iloc[0]) if "method" in table and len(table) else "EB"
    res.smoothed_table = table


def funnel(res: StudyResults) -> None:
    fn = _function("smoothing", "funnel", _lang())
    opts = res.options("funnel")
    table = _call(fn, res.panel, outcome=res.outcome, years=res.years, pool=True,
                  overdispersion=opts["overdispersion"])
    if "name" not in table:
        table = table.assign(name=table["unit"].astype(str).map(res.names))
    res.funnel_table = table


def normalise_funnel(table: pd.DataFrame) -> pd.DataFrame:
    """Map the funnel module's column names onto those the plot reads; flags as high / low / ''."""
    t = table.copy()
    rename = {}
    for col in t.columns:
        low = col.lower()
        if low in ("rate",) and "estimate" not in t:
            rename[col] = "estimate"
        for lvl, tag in (("95", "95"), ("0.95", "95"), ("99.8", "998"), ("998", "998"), ("0.998", "998")):
            for side in ("lower", "upper"):
                if low in (f"{side}_{lvl}", f"{side}{lvl}", f"{side}_limit_{lvl}", f"{side}_{lvl}_limit"):
                    rename[col] = f"{side}_{tag}"
        if low in ("target", "mean", "centre", "center", "overall_rate") and "target" not in t:
            rename[col] = "target"
        if low in ("outlier", "flag_998", "signal") and "flag" not in t:
            rename[col] = "flag"
    t = t.rename(columns=rename)
    if "flag" in t:
        f = t["flag"].astype(str).str.lower()
        t["flag"] = np.where(f.str.contains("high|above|upper"), "high",
                             np.where(f.str.contains("low|below"), "low", ""))
    return t


# ------------------------------------------------------------------------------------------- disparity

def reference(res: StudyResults, quiet: bool = False):
    """``(codes, label)`` of the study's reference, resolved once on this outcome's rates; None when the
    disparity module cannot resolve it (``quiet``: any failure gives None, for the analyses that fall back
    on their own default)."""
    if res.reference is not None:
        return res.reference
    try:
        resolve = getattr(_module("disparity", _lang()), "resolve_reference", None)
    except Unavailable:
        if quiet:
            return None
        raise
    if resolve is None or (quiet and not res.study.reference):
        return None
    try:
        codes, label = _call(resolve, res.panel, res.study.reference, years=res.years, outcome=res.outcome)
    except Exception:  # noqa: BLE001 - without a reference the measures use WHO's default
        if quiet:
            return None
        raise
    res.reference = (list(codes), label)
    return res.reference


def disparity(res: StudyResults) -> None:
    fn = _function("disparity", "disparity", _lang())
    opts = res.options("disparity")
    ref = res.study.reference
    if getattr(_module("disparity", _lang()), "resolve_reference", None) is not None:
        ref = reference(res)
    kw = dict(outcome=res.outcome, years=res.years, conf_level=opts["level"])
    if opts["per_year"]:
        per_year = _call(fn, res.panel, ref, pool=False, **kw)
        per_year["year"] = period_years(per_year["period"])
        res.disparity_year = per_year[per_year["unit"] == "TOTAL"].copy()
        if len(res.panel.unit_codes) <= LARGE:
            res.disparity_units_year = per_year[per_year["unit"] != "TOTAL"]
    if opts["pooled"] or opts["focus"]:
        pooled = _call(fn, res.panel, ref, pool=True, **kw)
        res.disparity_pooled = pooled
        res.disparity_wide = with_region(wide_disparity(pooled[pooled["unit"] != "TOTAL"]), res.panel)
        if opts["focus"]:
            focus = res.disparity_wide[res.disparity_wide["unit"].isin(opts["focus"])].copy()
            cov = opts.get("focus_covariate") or ""
            if cov and cov in res.panel.covariates:
                # the value of one stated year (the last of the study with data), not a mean across years:
                # survey covariates change definition (poverty: new line from 2013)
                d = res.panel.data
                seen = d.loc[d[cov].notna() & d["unit"].isin(opts["focus"]), "year"]
                if len(seen):
                    year = int(seen.max())
                    column = f"{cov}_{year}"
                    values = d[d["year"] == year].set_index("unit")[cov]
                    focus.insert(2, column, focus["unit"].map(values).astype(float).to_numpy())
                    res.focus_column = (column, cov, year)
            res.focus = focus


def period_years(periods: pd.Series) -> pd.Series:
    """``pd.to_numeric(periods, errors="coerce")``, the same values and dtype, each distinct period read
    once: a per-year table of every unit and measure repeats a dozen periods over its rows (Brazil's gap
    against the reference: 0.18 s of CPU to read each row's period, issue 19)."""
    codes, uniques = pd.factorize(periods)
    if (codes < 0).any() or not len(uniques):
        return pd.to_numeric(periods, errors="coerce")
    years = pd.to_numeric(pd.Series(uniques), errors="coerce")  # the whole column's dtype rule (int64, Int64, float)
    return pd.Series(years.array.take(codes), index=periods.index, name=periods.name)


def wide_disparity(units: pd.DataFrame) -> pd.DataFrame:
    """One row per unit: rate, RR (CI), AR, AR%."""
    base_cols = [c for c in ("unit", "name", "events", "births", "rate") if c in units.columns]
    base = units.drop_duplicates("unit")[base_cols].set_index("unit")
    parts = [base]
    for measure, short in (("rate_ratio", "rr"), ("attributable_risk", "ar"), ("attributable_risk_percent", "ar_pct")):
        m = units[units["measure"] == measure].set_index("unit")
        if len(m):
            parts.append(m[["estimate", "lower", "upper"]].rename(columns={
                "estimate": short, "lower": f"{short}_lower", "upper": f"{short}_upper"}))
    out = pd.concat(parts, axis=1).reset_index()
    if "rate" in out:
        out = out.sort_values("rate", ascending=False, kind="stable")
    return out


# ----------------------------------------------------------------------------------- trends, distribution

def trends(res: StudyResults) -> None:
    fn = _function("trends", "trends", _lang())
    opts = res.options("trends")
    kw = dict(outcome=res.outcome, years=res.years, method=opts["method"], zero=opts["zero"], alpha=opts["alpha"],
              selection=opts.get("selection", "wbic"))
    national = _call(fn, national_events(res), **kw)
    table = with_region(_call(fn, res.panel, **kw), res.panel)
    if "row" in table.columns:  # joinpoint: the AAPC row (whole period) classifies the unit
        rank = table["row"].astype(str).map({"aapc": 0, "unit": 1}).fillna(2)
        per_unit = table.assign(_rank=rank.to_numpy()).sort_values(["unit", "_rank"], kind="stable")
        per_unit = per_unit.drop_duplicates("unit").drop(columns="_rank")
    else:
        per_unit = table
    res.trend_classes = pd.Series(trend_codes(per_unit).to_numpy(), index=per_unit["unit"].astype(str))
    res.national_trend, res.trends_table = national, table


def distribution(res: StudyResults) -> None:
    """Percentiles of the unit rates per year (units with births)."""
    if res.per_year is None:
        raise Unavailable(_missing("brecha.rates"))
    py = res.per_year.dropna(subset=["estimate"])
    py = py[py["births"].astype(float) > 0]
    q = py.groupby("year")["estimate"].describe(percentiles=[0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95])
    res.distribution = q.rename(columns={"count": "n_units"}).reset_index()
    res.distribution_points = py


# -------------------------------------------------------------------------------------------- inequality

def inequality(res: StudyResults) -> None:
    mod = _module("inequality", _lang())
    fn = getattr(mod, "inequality", None)
    if fn is None:
        raise Unavailable(_missing("brecha.inequality.inequality"))
    opts = res.options("inequality")
    kw = dict(outcome=res.outcome, years=res.years, bootstrap=opts["bootstrap"], seed=opts["seed"])
    if opts["measures"]:
        kw["measures"] = opts["measures"]
    # between all units (non-ordered), with the module's CIs whatever the number of units; D, R, PAR and PAF
    # against the study's reference (that of the disparity section), not WHO's default "best unit", whose
    # rate is 0 when the units are single communes (PAF = 100 %)
    ref = reference(res, quiet=True)
    per_year = pooled = None
    if ref is not None:
        from ..errors import InputError

        try:
            per_year = _call(fn, res.panel, pool=False, reference=ref[0], **kw)
            pooled = _call(fn, res.panel, pool=True, reference=ref[0], **kw)
            res.inequality_reference = "study"
        except InputError as exc:  # e.g. a reference unit without births in some year
            res.inequality_reference, res.inequality_fallback = "fallback", str(exc).splitlines()[0]
            per_year = None
    if per_year is None:
        per_year = _call(fn, res.panel, pool=False, **kw)
        pooled = _call(fn, res.panel, pool=True, **kw)
    per_year = per_year.copy()
    per_year["year"] = pd.to_numeric(per_year["period"], errors="coerce")
    res.inequality_year, res.inequality_pooled = per_year, pooled
    # ordered by a covariate, in groups of equal births: each year ranked by that year's covariate (observed
    # or filled by the study's rule); the years in which no unit has it (poverty before its first survey) get
    # no ordered measures
    rank_by = opts["rank_by"]
    if rank_by and rank_by in res.panel.covariates:
        ordered = _call(fn, res.panel, pool=False, **dict(kw, rank_by=rank_by, groups=opts["groups"])).copy()
        ordered["year"] = pd.to_numeric(ordered["period"], errors="coerce")
        have = res.panel.data.groupby("year")[rank_by].count()
        res.ordered = ordered
        res.ordered_missing_years = [int(y) for y in res.years if have.get(y, 0) == 0]


def covariate_inequality(res: StudyResults) -> None:
    mod = _module("inequality", _lang())
    fn = getattr(mod, "covariate_inequality", None)
    if fn is None:
        raise Unavailable(_missing("brecha.inequality.covariate_inequality"))
    opts = res.options("covariate_inequality")
    cov = opts["covariate"]
    if not cov or cov not in res.panel.covariates:
        raise Unavailable(_absent_covariates([cov] if cov else [], res))
    weight = None if opts["weight"] == "none" else opts["weight"]
    table = _call(fn, res.panel, cov, weight=weight)
    res.covariate_table = table
    table = table.assign(year=pd.to_numeric(table["period"], errors="coerce"))
    res.covariate_year = table
    comove = getattr(mod, "comovement", None)
    a = res.inequality_year
    if comove is None or a is None:
        return
    present = set(a["measure"].tolist()) & set(table["measure"].tolist())
    common = [m for m in ("gini", "ti", "cov") if m in present
              and table.loc[table["measure"] == m, "estimate"].notna().sum() >= 3]
    parts = []
    for m in common:
        out = _call(comove, a[a["measure"] == m], table[table["measure"] == m])
        parts.append(out if isinstance(out, pd.DataFrame) else pd.DataFrame([out]))
    if not parts:
        return
    res.comovement = pd.concat(parts, ignore_index=True)
    if "gini" in common:
        x = table[table["measure"] == "gini"].set_index("period")["estimate"]
        y = a[a["measure"] == "gini"].set_index("period")["estimate"]
        res.comovement_gini = pd.concat([x, y], axis=1, keys=["x", "y"]).dropna()


# ------------------------------------------------------------------------------------------------ models

def models(res: StudyResults) -> None:
    fit = _function("models", "fit_models", _lang())
    opts = res.options("models")
    covs = opts["covariates"] or res.study.covariates
    absent = [c for c in covs if c not in res.panel.covariates]
    if absent:
        raise Unavailable(_absent_covariates(absent, res))
    years = res.years
    if opts["years"]:  # the study's text, checked when the study was read ('2006–2012' with an en dash too)
        years = [y for y in parse_years(str(opts["years"]).replace("–", "-")) if y in set(res.years)]
    res.models = _call(fit, res.panel, outcome=res.outcome, covariates=covs, models=opts["models"], se=opts["se"],
                       years=years, fill=res.study.fill, lang=_lang())
    res.models_covariates = list(covs)


# ---------------------------------------------------------------------------------------------- headline

def gap(res: StudyResults) -> None:
    """The headline numbers: the extreme fifths of births by (smoothed) rate, their rates per year and over
    the period with the ratio's CI, the APC of the ratio, and the units ranked by rate."""
    if res.national is None:
        raise Unavailable(_missing("brecha.rates"))
    pooled = res.pooled.set_index("unit")
    score = res.smoothed if res.smoothed is not None else pooled["estimate"].astype(float)
    groups = extreme_fifths(pooled["births"].astype(float), score)
    py = res.per_year
    py = py[isin(py["unit"], groups.index)]
    g = py.assign(group=py["unit"].map(groups))
    g = g[g["group"].isin(["high", "low"])]
    # the fifths' totals by the one summing rule (brecha.panel_levels): a unit-year enters with both its
    # deaths and its births or not at all
    counts = g[["events", "births"]].astype(float)
    lacking = counts.isna().any(axis=1)
    lacking = pd.DataFrame({"events": lacking, "births": lacking})
    sums, _ = sum_members(counts, [g["year"], g["group"]], lacking, "available")
    rate = (sums["events"] / sums["births"] * 1000).unstack("group")
    series = pd.DataFrame({"year": rate.index.astype(int), "high": rate["high"].to_numpy(),
                           "low": rate["low"].to_numpy()})
    series["ratio"] = series["high"] / series["low"]
    series["difference"] = series["high"] - series["low"]
    tot, _ = sum_members(counts, [g["group"]], lacking, "available")
    out = {"groups": groups, "series": series,
           "high_rate": tot.loc["high", "events"] / tot.loc["high", "births"] * 1000,
           "low_rate": tot.loc["low", "events"] / tot.loc["low", "births"] * 1000,
           "ratio": rate_ratio_ci(tot.loc["high", "events"], tot.loc["high", "births"], tot.loc["low", "events"],
                                  tot.loc["low", "births"])}
    smoothed = res.smoothed_table
    if smoothed is not None and "shrinkage" in smoothed:
        w = smoothed["births"].astype(float).fillna(0.0)
        out["shrinkage"] = (float((smoothed["shrinkage"].astype(float).fillna(1.0) * w).sum() / w.sum())
                            if w.sum() else np.nan)
    if res.disparity_pooled is not None:
        par = res.disparity_pooled
        par = par[(par["unit"] == "TOTAL") & (par["measure"] == "par_percent")]
        ref_rate = res.disparity_pooled.get("reference_rate")
        if len(par):
            out["par"] = par.iloc[0]
            out["reference_rate"] = (float(ref_rate.dropna().iloc[0]) if ref_rate is not None
                                     and ref_rate.notna().any() else np.nan)
    ok = series.dropna()
    ok = ok[(ok["ratio"] > 0) & np.isfinite(ok["ratio"])]
    if len(ok) >= 3:
        out["apc"] = log_linear_apc(ok["year"].to_numpy(float), ok["ratio"].to_numpy(float))
        out["trend_series"] = ok
    # the units ranked by rate, each with its 95 % interval (posterior interval of the smoothed rate, or
    # the exact Poisson CI of the observed one, among units with at least the median births, 500 or more)
    cols = ["name", "estimate", "births"] if "name" in pooled else ["estimate", "births"]
    if res.smoothed is not None:
        rank = pd.DataFrame({"smoothed": res.smoothed}).join(res.smoothed_ci).join(pooled[cols])
        out["min_births"] = 0
    else:
        out["min_births"] = int(max(500, np.nanmedian(pooled["births"].astype(float))))
        rank = pooled[pooled["births"].astype(float) >= out["min_births"]][cols + ["lower", "upper"]].copy()
        rank["smoothed"] = rank["estimate"]
    rank = rank.dropna(subset=["smoothed"])
    rank = rank[rank["births"].astype(float) > 0]
    # five each, never the same unit in both lists (with fewer than ten units ranked, the upper half and the
    # lower half: four communes of 500 births or more gave the same four in both lists, in reverse)
    shown = min(5, len(rank) // 2) if len(rank) < 10 else 5
    out["worst"] = rank.sort_values("smoothed", ascending=False).head(shown)
    out["best"] = rank.sort_values("smoothed").head(shown)
    if res.funnel_table is not None:
        t = normalise_funnel(res.funnel_table)
        if "flag" in t:
            out["funnel_high"] = t[t["flag"] == "high"].sort_values("estimate", ascending=False)
            out["funnel_units"] = len(t)
    res.gap = out


# ----------------------------------------------------------------------------------------------- helpers

def _first(table: pd.DataFrame, names) -> str:
    for n in names:
        if n in table.columns:
            return n
    raise Unavailable(f"none of the columns {', '.join(names)} in the result")


def _lang() -> str:
    from ..i18n import get_language

    return get_language()  # the report's language: build_report sets it while the report is built


def _missing(module: str) -> str:
    from .labels import L

    return L("module_missing", _lang(), module=module)


def _absent_covariates(names, res: StudyResults) -> str:
    """The reason a covariate analysis cannot run (a message, as every Unavailable's)."""
    from .labels import L, covariate_with_code

    country = getattr(res.panel, "country", None)
    shown = ", ".join(covariate_with_code(c, _lang(), country) for c in names) or "-"
    return L("ex_covariate", _lang(), name=shown, reason=L("missing", _lang()))
