"""The model frame: one row per usable unit-year, the outcome, the covariates and the index arrays.

Built once from a Panel (or any long DataFrame) and shared by every estimator, so that all models of one
call use exactly the same rows. Exclusions (zero or missing births, missing covariates) are counted and
stated in the notes, never dropped quietly.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..errors import InputError
from ..i18n import Catalog

MSG = Catalog({
    "no_covariates": ("indique al menos una covariable (p. ej. poverty, health_spending_pc)",
                      "give at least one covariate (e.g. poverty, health_spending_pc)"),
    "unknown_covariates": ("covariables que no están en el panel: {names}; covariables disponibles: {have}",
                           "covariates not in the panel: {names}; covariates available: {have}"),
    "unknown_covariates_hint": ("elija --covariates de la lista disponible (las de Chile o Brasil se construyen "
                                "solas si el panel tiene códigos de comuna o municipio), o agregue la columna "
                                "al archivo del panel",
                                "choose --covariates from the list available (the Chilean or Brazilian ones are "
                                "built when the panel has commune or municipality codes), or add the column to "
                                "the panel file"),
    "bad_weights": ("weights debe ser None o 'births', no {weights!r}",
                    "weights must be None or 'births', not {weights!r}"),
    "missing_column": ("la tabla no tiene la columna '{column}'", "the table has no column '{column}'"),
    "too_few": ("{n:queda|quedan} {n} {n:fila utilizable|filas utilizables} con {k} términos: no se puede estimar",
                "only {n} usable {n:row is|rows are} left for {k} terms: cannot estimate"),
    "too_few_hint": ("amplíe los años o las unidades, o use menos covariables",
                     "widen the years or units, or use fewer covariates"),
    "collinear": ("las covariables ({names}) son colineales: una es combinación de las otras o constante",
                  "the covariates ({names}) are collinear: one is a combination of the others, or constant"),
    "collinear_hint": ("quite una de ellas", "drop one of them"),
    "constant": ("{count:la covariable|las covariables} {values} no {count:cambia|cambian} en ninguna de las {rows} "
                 "filas usadas: {count:su efecto no se distingue|sus efectos no se distinguen} de la constante del "
                 "modelo",
                 "{count:covariate|covariates} {values} {count:has|have} the same value in all {rows} rows used: "
                 "{count:its effect cannot be told|their effects cannot be told} apart from the model's intercept"),
    "constant_hint": ("quite {count:esa covariable|esas covariables} de --covariates, o use otras unidades o años",
                      "leave {count:it|them} out of --covariates, or use other units or years"),
    "excluded_births": ("{n} {n:unidad-año excluido|unidad-años excluidos} por nacimientos cero o faltantes (la tasa "
                        "no está definida)",
                        "{n} {n:unit-year|unit-years} excluded for zero or missing births (the rate is undefined)"),
    "excluded_deaths": ("{n} {n:unidad-año excluido|unidad-años excluidos} por defunciones faltantes",
                        "{n} {n:unit-year|unit-years} excluded for missing deaths"),
    "excluded_covariates": ("{n} {n:unidad-año excluido|unidad-años excluidos} por covariables faltantes ({detail})",
                            "{n} {n:unit-year|unit-years} excluded for missing covariates ({detail})"),
    "rows_used": ("{n} {n:unidad-año|unidad-años} de {units} {units:unidad|unidades}, años {years}",
                  "{n} {n:unit-year|unit-years} of {units} {units:unit|units}, years {years}"),
    "time_invariant": ("covariables sin variación dentro de las unidades (constantes en el tiempo): {names}; "
                       "desaparecen en efectos fijos y primeras diferencias; use re o cre (Mundlak) para "
                       "estimarlas",
                       "covariates with no variation within units (time-invariant): {names}; they vanish "
                       "under fixed effects and first differences; use re or cre (Mundlak) to estimate them"),
    "few_varying": ("{name} cambia en el tiempo en solo {k} de {n} unidades: sus estimaciones dentro de las "
                    "unidades (fe, fe2, fd, cre, poisson_fe, negbin_fe) descansan en esas unidades y sus errores "
                    "agrupados son poco fiables con tan pocos grupos",
                    "{name} changes over time in only {k} of {n} units: its within-unit estimates (fe, fe2, fd, "
                    "cre, poisson_fe, negbin_fe) rest on those units alone, and clustered errors are unreliable "
                    "with so few clusters"),
    "outcome_title": ("tasa de mortalidad {outcome} por 1.000 nacidos vivos", "{outcome} mortality rate per 1,000 live births"),
    "outcome_counts": (" / defunciones (modelos de conteo)", " / deaths (count models)"),
    "outcome_rate": ("resultado: tasa de mortalidad {outcome} por 1.000 nacidos vivos (defunciones/nacimientos*1000)",
                     "outcome: {outcome} mortality rate per 1,000 live births (deaths/births*1000)"),
})


@dataclass
class Design:
    """Rows used by the models, sorted by unit and year, with integer codes for units and years."""

    frame: pd.DataFrame            # unit, year, y, covariates, (deaths, births, weight)
    outcome: str                   # column of y in frame
    covariates: list[str]
    time_varying: list[str]
    time_invariant: list[str]
    weights: str | None = None     # column of weights in frame
    counts: tuple[str, str] | None = None   # (deaths, births) columns for count models
    notes: list[str] = field(default_factory=list)
    # units of the table before rows were excluded, and why they were (identification.py names them when the
    # exclusions leave one unit: a region whose other communes lack a covariate is not "a panel of one unit")
    units_read: int = 0
    excluded: list[str] = field(default_factory=list)
    _arrays: object = field(default=None, init=False, repr=False, compare=False)

    def arrays(self):
        """The call's :class:`~brecha.models.panel_arrays.PanelArrays` (y, X, codes, weights; unit means
        and transforms computed once and shared by every model and test of the call)."""
        if self._arrays is None:
            from .panel_arrays import PanelArrays

            self._arrays = PanelArrays.from_design(self)
        return self._arrays

    @property
    def unit_index(self) -> np.ndarray:
        return pd.factorize(self.frame["unit"], sort=True)[0]

    @property
    def year_index(self) -> np.ndarray:
        return pd.factorize(self.frame["year"], sort=True)[0]

    @property
    def n_units(self) -> int:
        if self._arrays is not None:   # counted once with the arrays (nunique of text units is slow)
            return self._arrays.n_units
        return int(self.frame["unit"].nunique())

    @property
    def nobs(self) -> int:
        return len(self.frame)

    def indexed(self, columns=None) -> pd.DataFrame:
        """The frame with a (unit, year) MultiIndex, as linearmodels wants it; units as integer codes
        (linearmodels is many times slower with pandas' Arrow-backed strings). ``columns`` keeps only
        those (a fit copies only what it uses: less memory on large panels, issue 19)."""
        keep = [c for c in self.frame.columns if c not in ("unit", "year")] if columns is None else list(columns)
        out = self.frame[keep]
        out.index = panel_index(self.unit_index, self.frame["year"].to_numpy())
        return out


def panel_index(unit_codes, years) -> pd.MultiIndex:
    """(unit, year) MultiIndex with integer unit codes."""
    return pd.MultiIndex.from_arrays([np.asarray(unit_codes, dtype=np.int64), np.asarray(years, dtype=np.int64)],
                                     names=["unit", "year"])


OUTCOME_LABELS = {"infant": ("infantil", "infant"), "neonatal": ("neonatal", "neonatal"),
                  "postneonatal": ("posneonatal (infantil tardía)", "post-neonatal")}


def outcome_label(name: str, lang: str | None = None) -> str:
    from ..i18n import get_language

    es, en = OUTCOME_LABELS.get(name, (name, name))
    return en if (lang or get_language()) == "en" else es


def _span(years) -> str:
    years = sorted(int(y) for y in years)
    if not years:
        return "-"
    if years == list(range(years[0], years[-1] + 1)):
        return f"{years[0]}-{years[-1]}" if len(years) > 1 else str(years[0])
    return ",".join(str(y) for y in years)


# fewer units than this (or than this share of the units) with within-unit variation get a note
FEW_VARYING_UNITS = 10
FEW_VARYING_SHARE = 0.05


def varying_units(frame: pd.DataFrame, columns, unit: str = "unit") -> dict[str, int]:
    """For each column, the number of units inside which it varies over time."""
    columns = list(columns)
    if not columns or not len(frame):
        return {c: 0 for c in columns}
    g = frame.groupby(unit)[columns]
    spread = g.max() - g.min()
    scale = np.maximum(frame[columns].abs().max(), 1.0)
    return {c: int((spread[c] > 1e-10 * scale[c]).sum()) for c in columns}


def within_variation(frame: pd.DataFrame, columns, unit: str = "unit") -> dict[str, bool]:
    """True for each column that varies over time inside at least one unit."""
    return {c: k > 0 for c, k in varying_units(frame, columns, unit).items()}


def design_from_frame(frame: pd.DataFrame, outcome: str, covariates, *, unit: str = "unit",
                      year: str = "year", weights: str | None = None, lang: str | None = None) -> Design:
    """A Design from any long table (e.g. Grunfeld: unit='firm', year='year', outcome='inv')."""
    covariates = list(covariates)
    for c in [unit, year, outcome, *covariates] + ([weights] if weights else []):
        if c not in frame.columns:
            raise InputError(MSG("missing_column", lang, column=c), column=c)
    cols = [unit, year, outcome, *covariates] + ([weights] if weights else [])
    d = frame[cols].rename(columns={unit: "unit", year: "year"}).copy()
    d["unit"] = d["unit"].astype(str)
    d["year"] = d["year"].astype(int)
    for c in [outcome, *covariates] + ([weights] if weights else []):
        d[c] = pd.to_numeric(d[c], errors="coerce").astype(float)
    notes = []
    units_read = int(d["unit"].nunique())
    missing = d[covariates + [outcome]].isna().any(axis=1)
    if missing.any():
        detail = ", ".join(f"{c}: {int(d[c].isna().sum())}" for c in covariates + [outcome] if d[c].isna().any())
        notes.append(MSG("excluded_covariates", lang, n=int(missing.sum()), detail=detail))
        d = d[~missing]
    return _finish(d, outcome, covariates, weights, None, notes, lang, units_read=units_read, excluded=list(notes))


def _finish(d, outcome, covariates, weights, counts, notes, lang=None, units_read=0, excluded=()) -> Design:
    d = d.sort_values(["unit", "year"]).reset_index(drop=True)
    k = len(covariates) + 1
    if len(d) <= k:
        why = "; ".join(str(note) for note in excluded)  # e.g. a covariate without a value in any row asked
        raise InputError(MSG("too_few", lang, n=len(d), k=k) + (f" ({why})" if why else ""),
                         hint=MSG("too_few_hint", lang))
    X = np.column_stack([np.ones(len(d)), d[covariates].to_numpy(float)])
    if np.linalg.matrix_rank(X) < X.shape[1]:
        # a covariate with one value in every row (common in one region: a source that gives the whole
        # region one figure) is named, with its value, rather than called "collinear"
        constant = [c for c, column in zip(covariates, X[:, 1:].T) if column.min() == column.max()]
        if constant:
            values = ", ".join(f"{c} ({d[c].iloc[0]:g})" for c in constant)
            raise InputError(MSG("constant", lang, count=len(constant), values=values, rows=len(d)),
                             hint=MSG("constant_hint", lang, count=len(constant)), argument="covariates")
        raise InputError(MSG("collinear", lang, names=", ".join(covariates)), hint=MSG("collinear_hint", lang))
    varying = varying_units(d, covariates)
    tv = [c for c in covariates if varying[c]]
    ti = [c for c in covariates if not varying[c]]
    n_units = d["unit"].nunique()
    notes = list(notes)
    notes.append(MSG("rows_used", lang, n=len(d), units=n_units, years=_span(d["year"].unique())))
    if ti and d["unit"].duplicated().any():   # with one year per unit every covariate is "time-invariant"
        notes.append(MSG("time_invariant", lang, names=", ".join(ti)))
    for c in tv:
        if varying[c] < min(n_units, max(FEW_VARYING_UNITS, FEW_VARYING_SHARE * n_units)):
            notes.append(MSG("few_varying", lang, name=c, k=varying[c], n=n_units))
    return Design(d, outcome, covariates, tv, ti, weights, counts, notes, units_read=units_read or n_units,
                  excluded=list(excluded))


def design_from_panel(panel, outcome: str = "infant", covariates=(), years=None,
                      weights: str | None = None, lang: str | None = None) -> Design:
    """The Design of a Panel: rate per 1,000 = deaths / births * 1000, births > 0 only.

    ``weights="births"`` weights each unit-year by its births (the precision of a rate grows with births).
    """
    from ..panel import OUTCOMES, resolve_outcome

    covariates = [c.strip() for c in (covariates or []) if str(c).strip()]
    if not covariates:
        raise InputError(MSG("no_covariates", lang))
    name = resolve_outcome(outcome)
    deaths_col = OUTCOMES[name]
    data = panel.data
    if years is not None:
        data = data[data["year"].isin(list(years))]
    if deaths_col not in data.columns:
        raise InputError(MSG("missing_column", lang, column=deaths_col), column=deaths_col,
                         file=getattr(panel, "source", None))
    unknown = [c for c in covariates if c not in data.columns]
    if unknown:
        have = [c for c in getattr(panel, "covariates", []) if c not in ("births",)]
        from ..covariates import BRAZIL_SOURCES, CHILE_SOURCES

        country = str(getattr(panel, "country", "") or "").upper()
        built = list({"CL": CHILE_SOURCES, "BR": BRAZIL_SOURCES}.get(country, {}))
        have += [c for c in built if c not in have]
        raise InputError(MSG("unknown_covariates", lang, names=", ".join(unknown), have=", ".join(have) or "-"),
                         column=", ".join(unknown), file=getattr(panel, "source", None),
                         hint=MSG("unknown_covariates_hint", lang))
    d = pd.DataFrame({
        "unit": data["unit"].astype(str).to_numpy(),
        "year": data["year"].astype(int).to_numpy(),
        "deaths": pd.to_numeric(data[deaths_col], errors="coerce").astype(float).to_numpy(),
        "births": pd.to_numeric(data["births"], errors="coerce").astype(float).to_numpy(),
    })
    for c in covariates:
        d[c] = pd.to_numeric(data[c], errors="coerce").astype(float).to_numpy()
    notes = [MSG("outcome_rate", lang, outcome=outcome_label(name, lang))]
    units_read = len(np.unique(d["unit"].to_numpy()))
    bad_births = ~(d["births"] > 0)
    if bad_births.any():
        notes.append(MSG("excluded_births", lang, n=int(bad_births.sum())))
        d = d[~bad_births]
    bad_deaths = d["deaths"].isna()
    if bad_deaths.any():
        notes.append(MSG("excluded_deaths", lang, n=int(bad_deaths.sum())))
        d = d[~bad_deaths]
    missing = d[covariates].isna().any(axis=1)
    if missing.any():
        detail = ", ".join(f"{c}: {int(d[c].isna().sum())}" for c in covariates if d[c].isna().any())
        notes.append(MSG("excluded_covariates", lang, n=int(missing.sum()), detail=detail))
        d = d[~missing]
    d["rate"] = d["deaths"] / d["births"] * 1000.0
    w = None
    if weights:
        if weights != "births":
            raise InputError(MSG("bad_weights", lang, weights=weights))
        d["weight"] = d["births"]
        w = "weight"
    return _finish(d, "rate", covariates, w, ("deaths", "births"), notes, lang, units_read=units_read,
                   excluded=notes[1:])
