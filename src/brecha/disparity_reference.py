"""The reference of a disparity analysis: which units, and the label that says how they were chosen.

A reference is one unit, several units pooled, the best unit (the lowest rate among the units large enough
for their rate to be reliable) or a covariate quintile (:func:`resolve_reference`). :func:`prepare_panel`
attaches the covariate a quintile reference needs (and aggregates to a level for the groups' covariates).
The measures themselves are in :mod:`brecha.disparity`.
"""
from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd

from .compat import isin
from .errors import InputError
from .i18n import Catalog, get_language
from .intervals import as_float
from .intervals import divide as _div
from .rates import events_table

MESSAGES = {
    "empty_reference": ("no se indicó referencia", "no reference was given"),
    "empty_reference_hint": ("use un código, varios códigos separados por comas, best o lowest-quintile:COVARIABLE",
                             "use a code, several codes separated by commas, best, or lowest-quintile:COVARIATE"),
    "unknown_codes": ("códigos de referencia que no están en el panel: {codes}",
                      "reference codes that are not in the panel: {codes}"),
    "unknown_codes_hint": ("los códigos del panel son como {examples}", "the panel's codes look like {examples}"),
    "bad_min_births": ("'{text}' no es un mínimo de nacimientos válido (best:N con N entero)",
                       "'{text}' is not a valid minimum of births (best:N with N a whole number)"),
    "negative_min_births": ("'{text}': el mínimo de nacimientos de best:N no puede ser negativo",
                            "'{text}': the minimum of births of best:N cannot be negative"),
    "negative_min_births_hint": ("use best:0 (sin mínimo), best (mínimo automático: 20 defunciones esperadas) o "
                                 "best:N con N >= 0, p. ej. best:500",
                                 "use best:0 (no minimum), best (automatic minimum: 20 expected deaths) or best:N "
                                 "with N >= 0, e.g. best:500"),
    "no_best": ("ninguna unidad tiene nacimientos suficientes para ser la mejor (mínimo {min_births})",
                "no unit has enough births to be the best one (minimum {min_births})"),
    "no_best_hint": ("use best:N con un N menor, best:0 (sin mínimo) o una referencia agrupada (códigos o "
                     "lowest-quintile:COVARIABLE)",
                     "use best:N with a smaller N, best:0 (no minimum) or a pooled reference (codes or "
                     "lowest-quintile:COVARIATE)"),
    "best_auto_extra": ("; la menor tasa entre {n:la|las} {n} {n:unidad|unidades} con al menos {min_births} "
                        "nacimientos, es decir {expected} defunciones esperadas a la tasa global de {overall:.2f} por "
                        "1.000 (regla de fiabilidad del NCHS); {excluded} {excluded:unidad más pequeña no se "
                        "considera|unidades más pequeñas no se consideran}; best:N fija otro mínimo",
                        "; the lowest rate among the {n} {n:unit|units} with at least {min_births} births, i.e. "
                        "{expected} expected deaths at the overall rate of {overall:.2f} per 1,000 (NCHS reliability "
                        "rule); {excluded} smaller {excluded:unit|units} not considered; best:N sets another minimum"),
    "no_covariate": ("la covariable '{name}' no está en el panel; covariables disponibles: {have}",
                     "covariate '{name}' is not in the panel; available covariates: {have}"),
    "buildable": ("; brecha puede agregar: {names}", "; brecha can add: {names}"),
    "no_covariate_hint": ("agregue la columna al archivo de panel o elija una de esas covariables",
                          "add the column to the panel file or choose one of those covariates"),
    "no_covariate_values": ("la covariable '{name}' no tiene valores en los años elegidos",
                            "covariate '{name}' has no values in the chosen years"),
    "best_label": ("mejor unidad: {unit}{name} ({rate:.2f} por 1.000 en {period}{extra})",
                   "best unit: {unit}{name} ({rate:.2f} per 1,000 over {period}{extra})"),
    "best_tied_label": ("mejores unidades empatadas en {rate:.2f} por 1.000 en {period}, agrupadas: {units}{extra}",
                        "best units tied at {rate:.2f} per 1,000 over {period}, pooled: {units}{extra}"),
    "best_extra": ("; {n:excluida|excluidas} {n} {n:unidad|unidades} con menos de {min_births} "
                   "{min_births:nacimiento|nacimientos}",
                   "; excluded {n} {n:unit|units} with fewer than {min_births} {min_births:birth|births}"),
    "quintile_label": ("{n} de {total} unidades con {side} {covariate} media ({period}; {op} {threshold:.4g})",
                       "{n} of {total} units with the {side} mean {covariate} ({period}; {op} {threshold:.4g})"),
    "lowest": ("menor", "lowest"),
    "highest": ("mayor", "highest"),
    "codes_label": ("{codes}", "{codes}"),
    "pooled_label": ("{n} {n:unidad agrupada|unidades agrupadas}: {codes}", "{n} {n:unit|units} pooled: {codes}"),
    "quintile_empty": ("la referencia '{text}' no nombra ninguna covariable",
                       "the reference '{text}' names no covariate"),
    "quintile_empty_hint": ("escriba {side}:COVARIABLE, p. ej. {side}:{example}; covariables disponibles: {have}",
                            "write {side}:COVARIATE, e.g. {side}:{example}; covariates available: {have}"),
}
MSG = Catalog(MESSAGES)

# ``best`` without a minimum: only units whose expected deaths at the overall rate reach this number are
# candidates. Fewer than 20 events give a relative standard error above 22 % (NCHS "unreliable" rates).
BEST_MIN_EXPECTED = 20


def _normalise_codes(panel, codes: list[str]) -> list[str]:
    units = getattr(panel, "units", None)
    if units is not None and "level" in units.columns:
        # an aggregated panel (regions, provinces): match codes with or without leading zeros
        known = {str(u).lstrip("0") or "0": str(u) for u in units["unit"]}
        return [known.get(c.lstrip("0") or "0", c) for c in codes]
    registry = getattr(panel, "registry", None)
    if registry is not None:
        try:
            return [str(c) for c in registry.normalise_codes(pd.Series(codes, dtype=str)).tolist()]
        except Exception:  # a registry that cannot read these codes: keep them as given
            return codes
    return codes


def _quintile_covariate(spec) -> str | None:
    """The covariate a ``lowest-quintile:``/``highest-quintile:`` reference names (None for others)."""
    if isinstance(spec, str) and spec.strip().lower().startswith(("lowest-quintile:", "highest-quintile:")):
        return spec.split(":", 1)[1].strip()
    return None


def prepare_panel(panel, reference=None, level: str | None = None):
    """The panel a disparity analysis works on: with the covariate a quintile reference needs, then aggregated.

    A covariate that the panel lacks but brecha can build for its country (``poverty`` for Chile, ...) is
    attached with :func:`brecha.covariates.attach_missing` (interpolated between survey years; its source,
    filling rule and caveats join the panel notes), before aggregating to ``level`` (births-weighted means).
    A plain events table is returned as it is.
    """
    from .panel import Panel

    if not isinstance(panel, Panel):
        return panel
    covariate = _quintile_covariate(reference)
    if covariate and covariate not in panel.data.columns:
        import warnings

        from .covariates import attach_missing

        # the attached panel is validated again: repeat only the warnings the user has not seen yet
        seen = set(panel.warnings)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            panel = attach_missing(panel, [covariate])
        for w in caught:
            if str(w.message) not in seen:
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return panel.aggregate(level, incomplete="available") if level else panel


def _covariate_means(panel, covariate: str, years, units) -> pd.Series:
    from .panel import Panel

    data = panel.data if isinstance(panel, Panel) else panel
    have = [c for c in data.columns if c not in ("unit", "year", "period", "events", "births", "deaths",
                                                  "deaths_neonatal", "deaths_postneonatal", "n_years", "name")]
    if covariate not in data.columns:
        buildable = ""
        country = str(getattr(panel, "country", "") or "").upper()
        if country in ("CL", "BR"):
            from .covariates import BRAZIL_SOURCES, CHILE_SOURCES

            names = CHILE_SOURCES if country == "CL" else BRAZIL_SOURCES
            buildable = MSG("buildable", names=", ".join(n for n in names if n not in have))
        raise InputError(MSG("no_covariate", name=covariate, have=", ".join(map(str, have)) or "-") + buildable,
                         column=covariate, hint=MSG("no_covariate_hint"))
    d = data
    if years is not None and "year" in d.columns:
        yrs = [years] if isinstance(years, int) else list(years)
        d = d[d["year"].isin(yrs)]
    if units is not None:
        d = d[isin(d["unit"].astype(str), units)]
    means = pd.to_numeric(d[covariate], errors="coerce").groupby(d["unit"].astype(str)).mean().dropna()
    if means.empty:
        raise InputError(MSG("no_covariate_values", name=covariate))
    return means


def _pool_quick(ev: pd.DataFrame) -> pd.DataFrame:
    """Pool an events table over its periods (years where both counts exist), as ``Panel.events(pool=True)``."""
    codes, uniques = pd.factorize(ev["unit"], sort=True)
    d = as_float(ev["events"])
    n = as_float(ev["births"])
    ok = np.isfinite(d) & np.isfinite(n)
    size = len(uniques)
    ds = np.bincount(codes, weights=np.where(ok, d, 0.0), minlength=size)
    ns = np.bincount(codes, weights=np.where(ok, n, 0.0), minlength=size)
    seen = np.bincount(codes, weights=ok.astype(float), minlength=size) > 0
    years = pd.to_numeric(ev["year"], errors="coerce").dropna() if "year" in ev.columns else pd.Series([])
    if len(years):
        lo, hi = int(years.min()), int(years.max())
        label = str(lo) if lo == hi else f"{lo}-{hi}"
    else:
        label = str(ev["period"].iloc[0]) if len(ev) else ""
    return pd.DataFrame({"unit": np.asarray(uniques, dtype=object), "period": label,
                         "events": np.where(seen, ds, np.nan), "births": np.where(seen, ns, np.nan)})


def resolve_reference(panel, spec, years=None, outcome: str = "infant", units=None, *,
                      _pooled=None) -> tuple[list[str], str]:
    """The reference units and a label saying how they were chosen.

    ``spec``:
    - a code (``"13114"``), codes separated by commas, or a list of codes: those units, pooled;
    - ``"best"``: the unit with the lowest rate over the whole period (deaths and births pooled over
      ``years``) among the units large enough for their rate to be reliable: births over the period of at
      least ceil(20 / overall rate), i.e. 20 expected deaths at the overall rate of the candidates (NCHS:
      rates on fewer than 20 events have a relative standard error above 22 %). The minimum is chosen on
      births, not on the unit's own deaths, so that the choice does not favour high rates. Without it a
      commune of a few births and no deaths is "best" (rate 0, every RR undefined).
      ``"best:N"`` only considers units with at least N births over the period; ``"best:0"`` any unit.
      Units with zero or missing births are never best. Units tied at the lowest rate are pooled.
    - ``"lowest-quintile:COVARIATE"``: the fifth of units with the lowest mean of COVARIATE over ``years``
      (e.g. the least poor fifth by poverty; "lowest" means the lowest covariate value, whatever the
      covariate measures), pooled. k = ceil(n/5) units with the lowest values, plus any units tied with the
      k-th; units with no value are left out. ``"highest-quintile:COVARIATE"``: the highest fifth.
    ``units`` restricts the candidates of ``best`` and the quintiles to the analysed units.

    Returns ``(codes, label)``.
    """
    if _pooled is None:
        panel = prepare_panel(panel, spec)
        ev, unit_attrs, _ = events_table(panel, outcome, years, pool=True)
    else:
        ev, unit_attrs = _pooled
    present = set(ev["unit"].tolist())
    if units is not None:
        ev = ev[isin(ev["unit"], units)]
    period = str(ev["period"].iloc[0]) if len(ev) else ""
    if spec is None or (isinstance(spec, str) and not spec.strip()) or (
            not isinstance(spec, str) and len(list(spec)) == 0):
        raise InputError(MSG("empty_reference"), hint=MSG("empty_reference_hint"))
    if not isinstance(spec, str):
        codes = _normalise_codes(panel, [str(c).strip() for c in spec])
        return _explicit(codes, present, unit_attrs)
    text = spec.strip()
    key = text.lower()
    if key == "best" or key.startswith("best:"):
        return _best_reference(ev, key, text, period, unit_attrs)
    if key.startswith(("lowest-quintile:", "highest-quintile:")):
        side, covariate = text.split(":", 1)
        covariate = covariate.strip()
        if not covariate:
            have = list(getattr(panel, "covariates", []))
            country = str(getattr(panel, "country", "") or "").upper()
            if country in ("CL", "BR"):  # those brecha builds for the country
                from .covariates import BRAZIL_SOURCES, CHILE_SOURCES

                have += [n for n in (CHILE_SOURCES if country == "CL" else BRAZIL_SOURCES) if n not in have]
            raise InputError(MSG("quintile_empty", text=text), argument="reference",
                             hint=MSG("quintile_empty_hint", side=side.lower(), have=", ".join(have) or "-",
                                      example=(have or ["poverty"])[0]))
        lowest = side.lower().startswith("lowest")
        means = _covariate_means(panel, covariate, years, None if units is None else list(units))
        means = means[isin(means.index, present)]
        total = len(means)
        k = max(1, math.ceil(total / 5))
        ordered = means.sort_values(ascending=lowest, kind="stable")
        threshold = float(ordered.iloc[k - 1])
        chosen = means[means <= threshold] if lowest else means[means >= threshold]
        codes = sorted(chosen.index.astype(str).tolist())
        label = MSG("quintile_label", n=len(codes), total=total, side=MSG("lowest" if lowest else "highest"),
                    covariate=covariate, period=period, op="≤" if lowest else "≥",
                    threshold=_ProseNumber(threshold))
        return codes, f"{side.lower()}:{covariate}: {label}"
    codes = _normalise_codes(panel, [c.strip() for c in text.split(",") if c.strip()])
    return _explicit(codes, present, unit_attrs)


def _best_reference(ev, key: str, text: str, period: str, unit_attrs) -> tuple[list[str], str]:
    """``best`` (automatic minimum of births: BEST_MIN_EXPECTED deaths at the overall rate) or ``best:N``."""
    d = as_float(ev["events"])
    n = as_float(ev["births"])
    ok = np.isfinite(d) & np.isfinite(n) & (n > 0)
    automatic = ":" not in key
    if automatic:
        overall = float(d[ok].sum() / n[ok].sum()) if ok.any() else 0.0
        min_births = math.ceil(BEST_MIN_EXPECTED / overall) if overall > 0 else 0
    else:
        number = key.split(":", 1)[1].strip()
        if re.fullmatch(r"-\d+(\.0*)?", number):
            raise InputError(MSG("negative_min_births", text=text), hint=MSG("negative_min_births_hint"))
        if not re.fullmatch(r"\d+(\.0*)?", number):  # 2.5 births is not read as 2
            raise InputError(MSG("bad_min_births", text=text), hint=MSG("empty_reference_hint"))
        min_births = int(float(number))
    enough = ok & (n >= min_births)
    if not enough.any():
        raise InputError(MSG("no_best", min_births=min_births), hint=MSG("no_best_hint"))
    rate = np.where(enough, _div(d, n), np.inf)
    best = rate.min()
    tied = enough & np.isclose(rate, best, rtol=1e-12, atol=0.0)
    codes = sorted(ev["unit"][tied].tolist())
    excluded = int((ok & ~enough).sum())
    if automatic and min_births > 0:
        extra = MSG("best_auto_extra", n=int(enough.sum()), min_births=min_births,
                    expected=BEST_MIN_EXPECTED, overall=_ProseNumber(overall * 1000), excluded=excluded)
    else:
        extra = MSG("best_extra", n=excluded, min_births=min_births) if min_births > 0 else ""
    if len(codes) == 1:
        name = _name_of(unit_attrs, codes[0])
        label = MSG("best_label", unit=codes[0], name=f" {name}" if name else "", rate=_ProseNumber(best * 1000),
                    period=period, extra=extra)
    else:
        label = MSG("best_tied_label", rate=_ProseNumber(best * 1000), period=period, units=", ".join(codes),
                    extra=extra)
    return codes, label


class _ProseNumber(float):
    """A number written into a sentence (a reference label): decimal comma in Spanish, point in English.
    Numeric columns keep their float values; only the words change."""

    def __format__(self, spec: str) -> str:
        text = float.__format__(self, spec)
        return text.replace(".", ",") if get_language() == "es" else text


def _name_of(unit_attrs, code: str) -> str:
    if unit_attrs is None or "name" not in unit_attrs.columns:
        return ""
    hit = unit_attrs.loc[unit_attrs["unit"].astype(str) == code, "name"]
    if hit.empty or pd.isna(hit.iloc[0]) or str(hit.iloc[0]) == code:
        return ""
    return str(hit.iloc[0])


def _explicit(codes, present, unit_attrs):
    if not codes:
        raise InputError(MSG("empty_reference"), hint=MSG("empty_reference_hint"))
    missing = [c for c in codes if c not in present]
    if missing:
        examples = ", ".join(sorted(present)[:3])
        raise InputError(MSG("unknown_codes", codes=", ".join(missing)), hint=MSG("unknown_codes_hint",
                                                                                  examples=examples))
    codes = sorted(dict.fromkeys(codes))
    if len(codes) == 1:
        name = _name_of(unit_attrs, codes[0])
        return codes, codes[0] + (f" {name}" if name else "")
    return codes, MSG("pooled_label", n=len(codes), codes=", ".join(codes))
