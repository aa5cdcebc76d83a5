"""Commune x year covariates built from the shipped source tables, with explicit filling rules.

    >>> from brecha import covariates, datasets
    >>> covariates.covariate_sources()                                   # what, from where, how filled
    >>> table = covariates.chile_covariates(["poverty", "sapu"], years=range(2006, 2013))
    >>> panel = covariates.attach(datasets.chile(), ["poverty", "health_spending_pc"])

Every value is either observed in its year or filled by a stated rule, and ``<name>_filled`` says which.
Filling never crosses a methodology or definition break (a "segment"): inside a segment,

- ``fill="interpolate"``: linear interpolation between the two nearest observed years of the same unit;
  after the last observed year of the segment the last value is carried forward; before the first
  observed year the value stays missing (no back-casting).
- ``fill="carry-forward"``: the last observed value of the segment (missing before the first).
- ``fill="none"``: observed years only.

Chile (2018 commune codes; sources in ``brecha/data/PROVENANCE.md`` and ``covariate_sources()``):

- ``poverty``: income poverty, percent of persons. Two segments because of the 2013 change of the poverty
  line (MDSF): up to 2012 the traditional line, observed in 2006 (CASEN 2006 commune estimate carried by
  SINIM, the same value in every SINIM year 2006-2012, so only 2006 counts as observed), 2009 and 2011
  (CASEN small-area estimates, SAE); from 2013 the new line, observed in 2013, 2015, 2017, 2020, 2022.
- ``poverty_new``: income poverty on the new line only, observed 2011 (re-estimated), 2013, 2015, 2017,
  2020, 2022; missing before 2011.
- ``poverty_multidimensional``: multidimensional poverty, percent; observed 2015, 2017, 2022.
- ``health_spending_pc``: municipal primary-care health spending per head, thousands of nominal pesos
  (M$). Two segments: 2006-2012 SINIM ``saludtotalpc`` (per inhabitant) and 2019-2022 SINIM variable 1134
  (per *enrolled, validated* inhabitant: another denominator); 2013-2018 stay missing.
- ``schooling``: census 2017, percent of persons with a declared education level whose highest level is
  secondary or higher; time-invariant (the same value in every year, not flagged as filled).
- ``sapu``: 1 if the commune has at least one SAPU or SAR (primary-care emergency service) opened by that
  year, else 0. Facilities with the placeholder date 2009-01-01 (175 of 312) or no date (79) are counted as
  open in every year; a commune-year whose value rests on such a facility is flagged. The register is a
  2022-2023 snapshot: services closed before then are absent.
- ``distance_hospital_km``: great-circle (haversine, R = 6371.0088 km) distance from the commune seat to
  the nearest high-complexity hospital (DEIS register, ``Alta Complejidad``); time-invariant, current
  network (a 2022-2023 snapshot).

Brazil (IBGE 6-digit codes): ``health_spending_pc`` (SIOPS, nominal R$ per inhabitant, already in the
panel), and the census indicators of the Atlas Brasil (1991, 2000, 2010): ``poverty`` (% poor),
``income_pc`` (R$ of 2010) and ``gini``, filled between census years by the same rules.

Every text meant for the user (sources, rules, caveats, notes) is a (Spanish, English) pair and follows
``lang`` (default: the current language, ``brecha.i18n``).

``add_standard(data)`` adds the five standard Chilean covariates (poverty, health_spending_pc, schooling, sapu,
distance_hospital_km) to a long table before it becomes a Panel, for ``brecha.datasets.chile()``; the models
rebuild the ones they use (``buildable``/``attach_missing``) with the filling rule asked and full notes.
"""
from __future__ import annotations

import functools

import numpy as np
import pandas as pd

from . import data_files
from .covariate_filling import FILL_RULES, check_fill, fill_series  # noqa: F401
from .covariate_sources import (BRAZIL_SOURCES, CHILE_SOURCES, RULE_TEXT, SOURCE_FIELDS,  # noqa: F401
                                TIME_INVARIANT, covariate_sources, in_language, rule_text, sources_of)
from .errors import InputError
from .i18n import Catalog

DEFAULT_YEARS = range(2000, 2024)
EARTH_RADIUS_KM = 6371.0088
PLACEHOLDER_DATE = "2009-01-01"
# the covariates every embedded Chilean panel carries (``add_standard``), so that any command can use them
STANDARD = {"CL": ("poverty", "health_spending_pc", "schooling", "sapu", "distance_hospital_km")}

MSG = Catalog({
    "unknown": ("covariable desconocida '{name}'; disponibles: {names}", "unknown covariate '{name}'; available: {names}"),
    "no_country": ("el panel no indica país (CL o BR): no se pueden agregar covariables",
                   "the panel has no country (CL or BR): covariates cannot be added"),
    "no_country_hint": ("lea el panel con códigos de comuna (Chile) o de municipio IBGE (Brasil), o agregue "
                        "sus propias columnas de covariables al archivo del panel",
                        "read the panel with Chilean commune or Brazilian IBGE municipality codes, or add your "
                        "own covariate columns to the panel file"),
    "note": ("Covariable {name}: {source}; observada {years}; relleno: {rule}; {filled} de {rows} "
             "{rows:unidad-año|unidad-años} del panel con valor rellenado y {missing} sin valor. Advertencia: {caveat}",
             "Covariate {name}: {source}; observed {years}; filling: {rule}; {filled} of {rows} panel "
             "{rows:unit-year|unit-years} filled and {missing} missing. Caveat: {caveat}"),
    "standard_note": ("Covariables agregadas de las fuentes incluidas (relleno {fill}; fuentes, años observados, "
                      "reglas y advertencias: brecha.covariates.covariate_sources() y docs/covariates.md): {items}",
                      "Covariates attached from the shipped sources (filling {fill}; sources, years observed, "
                      "rules and caveats: brecha.covariates.covariate_sources() and docs/covariates.md): {items}"),
    "can_attach": ("; brecha puede agregar: {names}", "; brecha can attach: {names}"),
})


def haversine_km(lat1, lon1, lat2, lon2) -> np.ndarray:
    """Great-circle distance in km (haversine formula; mean Earth radius 6371.0088 km, IUGG)."""
    p1, p2 = np.radians(lat1), np.radians(lat2)
    dphi = p2 - p1
    dlmb = np.radians(lon2) - np.radians(lon1)
    a = np.sin(dphi / 2) ** 2 + np.cos(p1) * np.cos(p2) * np.sin(dlmb / 2) ** 2
    return 2 * EARTH_RADIUS_KM * np.arcsin(np.sqrt(np.clip(a, 0, 1)))


# --------------------------------------------------------------------------- Chile
def _chile_table(name: str) -> pd.DataFrame:
    return data_files.chile_table(name)


def _chile_units() -> list[str]:
    from .registry import get_registry

    return sorted(get_registry("CL").units["unit"].astype(str).tolist())


def _poverty(units, years, fill, which):
    pov = _chile_table("poverty")
    pov = pov.rename(columns={"poverty_percent": "value"})
    income = pov[pov["dimension"] == "ingresos"]
    new = income[income["measurement"].str.startswith("nueva")][["unit", "year", "value"]]
    if which == "poverty_new":
        return fill_series(new, units, years, fill, segments=((2011, None),))
    if which == "poverty_multidimensional":
        multi = pov[pov["dimension"] == "multidimensional"][["unit", "year", "value"]]
        return fill_series(multi, units, years, fill, segments=((2015, None),))
    trad = income[income["measurement"].str.startswith("tradicional")][["unit", "year", "value"]]
    sinim = _chile_table("sinim_2006_2012")
    casen2006 = sinim[sinim["year"] == 2006][["unit", "year", "pobreza"]].rename(columns={"pobreza": "value"})
    old = pd.concat([casen2006, trad], ignore_index=True)
    observed = pd.concat([old, new[new["year"] >= 2013]], ignore_index=True)
    return fill_series(observed, units, years, fill, segments=((None, 2012), (2013, None)))


SINIM_NO_DATA = 99.0  # SINIM 2006-2012's code for a municipality without data in its health area


def _sinim_health_per_head() -> pd.DataFrame:
    """SINIM 2006-2012 ``saludtotalpc`` (unit, year, value), missing where the row's health area is SINIM's
    no-data code: every health field 99, the amounts (total, staff, operation, investment, training, M$)
    and their percentages alike. 144 commune-years have it (every Aysén commune in every year: primary care
    there is run by the health service, not the municipalities; some in 13, 05, 12, 02, 06, 10 and 04);
    read as a number it was a spending of M$ 99 per head. A 99 beside real amounts (05603 in 2011: total
    M$ 1,589,445) is a value and kept."""
    sinim = _chile_table("sinim_2006_2012")
    health = [c for c in sinim.columns if c.startswith("salud")]
    no_data = sinim[health].apply(pd.to_numeric, errors="coerce").eq(SINIM_NO_DATA).all(axis=1)
    out = sinim[["unit", "year", "saludtotalpc"]].rename(columns={"saludtotalpc": "value"})
    out.loc[no_data.to_numpy(), "value"] = np.nan
    return out


def _health_spending(units, years, fill):
    sinim = _sinim_health_per_head()
    observed = sinim
    if max(int(y) for y in years) >= 2019:   # the second segment (the largest table) only when asked
        recent = _chile_table("sinim_2019_2023")
        recent = recent[recent["variable_id"] == 1134][["unit", "year", "value"]]
        observed = pd.concat([sinim, recent], ignore_index=True)
    return fill_series(observed, units, years, fill, segments=((2006, 2012), (2019, 2022)))


SECONDARY_OR_HIGHER = ("CientificoHumanista", "TecnicaProfesional", "Humanidades",
                       "Tecnica_ComercialIndustrialNormalista", "TecnicoSuperior", "Profesional", "Magister",
                       "Doctorado")


def _schooling(units, years):
    census = _chile_table("census_2017")
    level_cols = [c for c in census.columns if c.startswith("NivelEducacional_")
                  and not c.startswith("NivelEducacionalCompleto")]
    declared = [c for c in level_cols if not c.endswith(("_Noaplica", "_Missing"))]
    high = [f"NivelEducacional_{k}" for k in SECONDARY_OR_HIGHER]
    share = census[high].sum(axis=1, min_count=1) / census[declared].sum(axis=1, min_count=1) * 100
    return _constant(pd.DataFrame({"unit": census["unit"].astype(str), "value": share}), units, years)


def _grid(units, years) -> pd.DataFrame:
    units = [str(u) for u in units]
    years = sorted(int(y) for y in years)
    return pd.DataFrame({"unit": np.repeat(np.array(units, dtype=object), len(years)).astype(str),
                         "year": np.tile(np.array(years, dtype=np.int64), len(units))})


def _constant(values: pd.DataFrame, units, years) -> pd.DataFrame:
    grid = _grid(units, years)
    per_unit = values.groupby("unit")["value"].first()
    grid["value"] = grid["unit"].map(per_unit).astype(float).to_numpy()
    grid["filled"] = False
    return grid


def _sapu(units, years):
    fac = _chile_table("health_facilities")
    fac = fac[fac["urgency_type"].isin(["SAPU", "SAR"])].copy()
    uncertain = fac["opening_date"].isna() | (fac["opening_date"] == PLACEHOLDER_DATE)
    fac["opening"] = pd.to_numeric(fac["opening_year"], errors="coerce")
    grid = _grid(units, years)
    dated = fac[~uncertain].groupby("unit")["opening"].min()
    first_dated = grid["unit"].map(dated).astype(float).to_numpy()
    with np.errstate(invalid="ignore"):
        sure = first_dated <= grid["year"].to_numpy()
    assumed = grid["unit"].isin(set(fac.loc[uncertain, "unit"])).to_numpy()
    grid["value"] = (sure | assumed).astype(float)
    grid["filled"] = assumed & ~sure
    return grid


def _distance(units, years):
    from .registry import get_registry

    seats = get_registry("CL").units[["unit", "lat", "lon"]].copy()
    seats["unit"] = seats["unit"].astype(str)
    hosp = _chile_table("hospitals")
    hosp = hosp[hosp["complexity"].astype(str).str.startswith("Alta") & hosp["lat"].notna() & hosp["lon"].notna()]
    d = haversine_km(seats["lat"].to_numpy(float)[:, None], seats["lon"].to_numpy(float)[:, None],
                     hosp["lat"].to_numpy(float)[None, :], hosp["lon"].to_numpy(float)[None, :])
    with np.errstate(invalid="ignore"):
        nearest = np.where(np.isnan(d).all(axis=1), np.nan, np.nanmin(np.where(np.isnan(d), np.inf, d), axis=1))
    return _constant(pd.DataFrame({"unit": seats["unit"], "value": nearest}), units, years)


def chile_covariates(names=None, years=None, fill: str = "interpolate") -> pd.DataFrame:
    """Commune x year covariates for Chile: ``unit, year, <name>..., <name>_filled...``.

    ``names``: any of :func:`covariate_sources` ``("CL")`` (default: all). ``years``: default 2000-2023.
    ``fill``: interpolate, carry-forward or none (the module docstring states each rule; ``sapu``,
    ``schooling`` and ``distance_hospital_km`` have their own fixed rules).
    """
    fill = check_fill(fill)
    names = _names(names, CHILE_SOURCES)
    years = list(DEFAULT_YEARS if years is None else years)
    units = _chile_units()
    builders = {
        "poverty": lambda: _poverty(units, years, fill, "poverty"),
        "poverty_new": lambda: _poverty(units, years, fill, "poverty_new"),
        "poverty_multidimensional": lambda: _poverty(units, years, fill, "poverty_multidimensional"),
        "health_spending_pc": lambda: _health_spending(units, years, fill),
        "schooling": lambda: _schooling(units, years),
        "sapu": lambda: _sapu(units, years),
        "distance_hospital_km": lambda: _distance(units, years),
    }
    return _assemble(names, builders, units, years)


def _names(names, table) -> list[str]:
    if names is None:
        return list(table)
    if isinstance(names, str):
        names = names.split(",")
    out = []
    for n in names:
        key = str(n).strip()
        if key not in table:
            raise InputError(MSG("unknown", name=key, names=", ".join(table)))
        if key not in out:
            out.append(key)
    return out


def _assemble(names, builders, units, years) -> pd.DataFrame:
    """Every builder returns the units x years grid in the same order: the columns are placed side by side."""
    out = _grid(units, years)
    for name in names:
        part = builders[name]()
        assert len(part) == len(out) and (part["year"].to_numpy() == out["year"].to_numpy()).all()
        out[name] = part["value"].astype(float).to_numpy()
        out[f"{name}_filled"] = part["filled"].fillna(False).astype(bool).to_numpy()
    return out[["unit", "year", *names, *[f"{n}_filled" for n in names]]]


# --------------------------------------------------------------------------- Brazil
def brazil_covariates(names=None, years=None, fill: str = "interpolate", panel=None) -> pd.DataFrame:
    """Municipality x year covariates for Brazil (``poverty``, ``income_pc``, ``gini`` from the Atlas
    census indicators; ``health_spending_pc`` from the panel), same layout as :func:`chile_covariates`."""
    fill = check_fill(fill)
    names = _names(names, BRAZIL_SOURCES)
    years = list(range(2000, 2020) if years is None else years)
    census = data_files.brazil_table("census")
    units = sorted(census["unit"].astype(str).unique())
    columns = {"poverty": "poor_percent", "income_pc": "income_per_capita", "gini": "gini"}

    def census_var(name):
        obs = census[["unit", "year", columns[name]]].rename(columns={columns[name]: "value"})
        return fill_series(obs, units, years, fill)

    def spending():
        data = (panel.data if panel is not None else data_files.brazil_data())
        obs = data[["unit", "year", "health_spending_per_capita"]].rename(
            columns={"health_spending_per_capita": "value"})
        return fill_series(obs, units, years, "none")

    builders = {name: (lambda n=name: census_var(n)) for name in columns}
    builders["health_spending_pc"] = spending
    return _assemble(names, builders, units, years)


# --------------------------------------------------------------------------- panel
def _country(panel_or_country) -> str:
    text = panel_or_country if isinstance(panel_or_country, str) else getattr(panel_or_country, "country", "")
    return str(text or "").upper()


def _build(data: pd.DataFrame, country: str, names, fill: str, lang: str | None, panel=None):
    """The covariates for the rows of ``data`` (same order): (values table, one note per covariate)."""
    if country not in ("CL", "BR"):
        raise InputError(MSG("no_country", lang), hint=MSG("no_country_hint", lang))
    years = sorted(int(y) for y in data["year"].unique())
    if country == "CL":
        wanted = _names(names, CHILE_SOURCES)
        if set(wanted) <= set(STANDARD["CL"]):
            # the standard ones: the table add_standard built for an embedded panel of these years (cached;
            # each covariate is built on its own, so the columns are those chile_covariates(wanted) gives)
            full = _standard_table("CL", tuple(years), check_fill(fill))
            table = full[["unit", "year", *wanted, *[f"{n}_filled" for n in wanted]]]
        else:
            table = chile_covariates(wanted, years, fill)
    else:
        table = brazil_covariates(names, years, fill, panel=panel)
    sources = sources_of(country)
    names = [c for c in table.columns if c not in ("unit", "year") and not c.endswith("_filled")]
    rows = data[["unit", "year"]].astype({"unit": str, "year": "int64"}).merge(table, on=["unit", "year"],
                                                                                how="left")
    notes = []
    for name in names:
        s = sources[name]
        notes.append(MSG("note", lang, name=name, source=in_language(s["source"], lang),
                         years=in_language(s["years_observed"], lang), rule=rule_text(name, country, fill, lang),
                         filled=int(rows[f"{name}_filled"].fillna(False).astype(bool).sum()), rows=len(rows),
                         missing=int(rows[name].isna().sum()), caveat=in_language(s["caveat"], lang)))
    return rows[["unit", "year", *names]], notes


def attach(panel, names=None, fill: str = "interpolate", lang: str | None = None):
    """The panel with covariate columns added (left join on unit, year) and one note per covariate
    stating its source, observed years, filling rule, how many panel rows were filled or are missing,
    and its caveat (in ``lang``)."""
    values, notes = _build(panel.data, _country(panel), names, fill, lang, panel=panel)
    return panel.with_covariates(values.drop_duplicates(["unit", "year"]), notes=notes)


def add_standard(data: pd.DataFrame, country: str = "CL", fill: str = "interpolate",
                 lang: str | None = None, split: str = "keep") -> tuple[pd.DataFrame, str]:
    """``data`` (a long ``unit, year, ...`` table, before it becomes a Panel) with the standard covariates
    of the country added as columns (rows and their order kept), and one short note naming each one's
    source and rule. This is what ``brecha.datasets.chile()`` carries, so that every command can use
    ``poverty``, ``health_spending_pc``, ``schooling``, ``sapu`` and ``distance_hospital_km``.
    The models rebuild the covariates they use with full notes (``attach_missing``).

    ``split="merge"`` (the units of ``datasets.chile(split="merge")``): a parent commune that absorbs a
    commune created in 2004 gets the births-weighted mean of the two communes' values in each year (as
    ``Panel.aggregate`` does for covariates), and ``sapu`` = 1 if either has one.
    """
    country = _country(country)
    names = list(STANDARD.get(country, ()))
    if not names:
        return data, ""
    years = tuple(sorted(int(y) for y in data["year"].unique()))
    table = _standard_table(country, years, check_fill(fill))
    if split == "merge":
        table = _merge_split_communes(table, names)
    keys = data[["unit", "year"]].astype({"unit": str, "year": "int64"})
    values = keys.merge(table, on=["unit", "year"], how="left")
    out = data.copy()
    for name in names:
        out[name] = values[name].to_numpy(float)
    return out, standard_note(country, fill, lang)


def _merge_split_communes(table: pd.DataFrame, names) -> pd.DataFrame:
    """Commune values under the ``merge`` policy: births-weighted means over parent and child (plain means
    where neither has births), the maximum for the 0/1 ``sapu``."""
    from .registry import get_registry

    births = data_files.chile_data("keep", covariates=False)[["unit", "year", "births"]]
    d = table[["unit", "year", *names]].merge(births.astype({"unit": str, "year": "int64"}),
                                              on=["unit", "year"], how="left")
    d["target"] = get_registry("CL").merge_target(d["unit"], "merge").astype(str).to_numpy()
    w = pd.to_numeric(d["births"], errors="coerce").astype(float).fillna(0.0)
    out = d[["target", "year"]].drop_duplicates().rename(columns={"target": "unit"})
    groups = [d["target"], d["year"]]
    for name in names:
        x = d[name].astype(float)
        if name == "sapu":
            value = x.groupby(groups).max()
        else:
            seen = x.notna()
            weighted = (x.fillna(0) * w).groupby(groups).sum() / (w * seen).groupby(groups).sum()
            plain = x.groupby(groups).mean()
            value = weighted.where(np.isfinite(weighted), plain)
        value.index.names = ["unit", "year"]
        out = out.merge(value.rename(name).reset_index(), on=["unit", "year"], how="left")
    return out


@functools.lru_cache(maxsize=8)
def _standard_table(country: str, years: tuple, fill: str) -> pd.DataFrame:
    """The standard covariates for these years (cached: the shipped sources do not change in a process;
    callers only read it)."""
    return chile_covariates(list(STANDARD[country]), years, fill)


def standard_note(country: str = "CL", fill: str = "interpolate", lang: str | None = None) -> str:
    """The one-line note of :func:`add_standard`."""
    sources = sources_of(_country(country))
    items = "; ".join(f"{n} ({in_language(sources[n]['short'], lang)})" for n in STANDARD.get(_country(country), ()))
    return MSG("standard_note", lang, fill=fill, items=items)


def is_standard_note(note: str) -> bool:
    """True for the note of :func:`add_standard` (in either language)."""
    text = str(note)
    return any(text.startswith(pair.split("{", 1)[0]) for pair in MSG.messages["standard_note"])


def _attached(panel, name: str) -> bool:
    """True when :func:`attach` put ``name`` on the panel (its note is there, in either language)."""
    prefixes = tuple(pair.split("{name}", 1)[0] + f"{name}:" for pair in MSG.messages["note"])
    return any(str(n).startswith(prefixes) for n in getattr(panel, "notes", ()))


# other names users give the shipped covariates (Spanish, short forms); see :func:`resolve_names`
ALIASES = {"spending": "health_spending_pc", "health_spending": "health_spending_pc",
           "gasto_salud": "health_spending_pc", "pobreza": "poverty", "escolaridad": "schooling",
           "distance": "distance_hospital_km", "distancia": "distance_hospital_km"}


def resolve_names(names, columns=()) -> list[str]:
    """Covariate names as the analyses use them: a name that is a column of the panel is kept exactly as
    given (the user's own column always wins), otherwise a known alias (``spending`` ->
    ``health_spending_pc``, ``pobreza`` -> ``poverty``, ...) gives the shipped covariate's name; anything
    else is kept, so the caller's "not in the panel" message names what the user typed.

    >>> resolve_names(["spending", "pobreza"], columns=["unit", "year", "spending"])
    ['spending', 'poverty']
    """
    have = {str(c) for c in columns}
    out = []
    for name in names:
        text = str(name).strip()
        out.append(text if text in have else ALIASES.get(text, ALIASES.get(text.lower(), text)))
    return out


def buildable(panel, names) -> list[str]:
    """Those of ``names`` that brecha builds for the panel's country and that the models should (re)build:
    the ones the panel lacks, and, on an embedded panel (``brecha.datasets``), also the ones it carries by
    default (rebuilt with the filling rule and years asked, and with full notes). Columns of a panel file,
    and covariates the user attached with :func:`attach`, are kept as they are."""
    sources = {"CL": CHILE_SOURCES, "BR": BRAZIL_SOURCES}.get(_country(panel), {})
    embedded = str(getattr(panel, "source", "") or "").startswith("brecha.datasets")
    return [n for n in names if n in sources
            and (n not in panel.data.columns or (embedded and not _attached(panel, n)))]


def attach_missing(panel, names, fill: str = "interpolate", lang: str | None = None):
    """Attach those of ``names`` that :func:`buildable` selects (the rest are left alone, so an unknown
    name still gets the caller's "not in the panel" message)."""
    build = buildable(panel, names)
    return attach(panel, build, fill=fill, lang=lang) if build else panel


def buildable_hint(panel) -> str:
    """'; brecha can attach: ...' naming the covariates brecha builds for the panel's country, or '' (the
    end of the hint of an analysis asked for a covariate the panel lacks)."""
    country = _country(panel)
    names = list(sources_of(country)) if country in ("CL", "BR") else []
    return MSG("can_attach", names=", ".join(names)) if names else ""
