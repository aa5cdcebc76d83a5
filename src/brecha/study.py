"""Studies: a TOML file that names the data, the period, the outcomes, the reference, the covariates and
the analyses, and runs the whole flow (Panel -> analyses -> report).

A study file looks like this (every field is explained in ``docs/studies.md``)::

    title = "Comunas de la Región Metropolitana, 2005-2014"
    language = "es"
    country = "CL"
    period = "2005-2014"
    outcomes = ["infant"]      # or several (DEIS microdata): ["infant", "neonatal", "postneonatal"]

    [data]
    example = "chile"          # or: panel = "my_panel.csv"   or: deis = { deaths = [...], births = [...] }

    [units]
    region = "13"              # or: codes = ["13101", ...]   or: all = true

    [reference]
    rule = "best"              # or: codes = ["13114"]        or: rule = "lowest-quintile:poverty"

    [covariates]
    names = ["poverty"]
    fill = "interpolate"       # how survey years that are missing are filled (flagged in the output)

    [analyses.rates]
    ci = "exact"
    [analyses.trends]
    method = "prais-winsten"

Reading validates every field once (:func:`read_study`); every problem is an
:class:`~brecha.errors.InputError` that names the file and the field and says what to write instead.
Relative paths in ``[data]`` are resolved against the folder of the study file.
"""
from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from .errors import InputError
from .i18n import Catalog
from .inequality.bootstrap import minimum_replicates
from .publication import parse_publication
from .report_files import FILES, parse_output
from .study_check import Checker, check_covariates, check_units, known_covariates, panel_units, suggestion

MSG = Catalog({
    "unknown_field_hint": ("los campos válidos aquí son: {valid}", "the valid fields here are: {valid}"),
    "toml_syntax": ("el archivo no es TOML válido: {error}", "the file is not valid TOML: {error}"),
    "toml_hint": ("revise comillas, corchetes y signos '=' en la línea indicada",
                  "check quotes, brackets and '=' signs on the line shown"),
    "not_found": ("no existe el archivo de estudio", "study file not found"),
    "unreadable": ("no se puede leer el archivo de estudio: {reason}", "the study file cannot be read: {reason}"),
    "unreadable_hint": ("revise los permisos del archivo", "check the file's permissions"),
    "not_utf8": ("el archivo de estudio no es texto UTF-8 (byte {byte} en la línea {line})",
                 "the study file is not UTF-8 text (byte {byte} on line {line})"),
    "not_utf8_hint": ("un estudio es un archivo de texto TOML: guárdelo con codificación UTF-8 desde un editor de "
                      "texto, o copie un estudio de ejemplo (docs/studies.md)",
                      "a study is a TOML text file: save it with UTF-8 encoding from a text editor, or copy an "
                      "example study (docs/studies.md)"),
    "empty": ("el archivo de estudio está vacío (no define nada)", "the study file is empty (it defines nothing)"),
    "empty_hint": ("escriba al menos [data] example = \"chile\" y un período, o copie un estudio de ejemplo "
                   "(docs/studies.md); sin archivo, brecha report ejecuta el ejemplo chileno",
                   "write at least [data] example = \"chile\" and a period, or copy an example study "
                   "(docs/studies.md); without a file, brecha report runs the Chilean example"),
    "not_found_hint": ("revise la ruta, o use --example chile|brazil|argentina",
                       "check the path, or use --example chile|brazil|argentina"),
    "expected_type": ("se esperaba {expected}, no {got!r}", "expected {expected}, not {got!r}"),
    "one_of": ("debe ser uno de {valid}, no {got!r}", "must be one of {valid}, not {got!r}"),
    "data_one": ("indique exactamente una fuente: example, panel o deis",
                 "give exactly one source: example, panel or deis"),
    "data_hint": ("p. ej. [data] example = \"chile\"  o  panel = \"panel.csv\"",
                  "e.g. [data] example = \"chile\"  or  panel = \"panel.csv\""),
    "file_missing": ("no existe el archivo {path}", "file {path} does not exist"),
    "file_hint": ("las rutas relativas se leen desde la carpeta del estudio ({folder})",
                  "relative paths are read from the study's folder ({folder})"),
    "deis_need": ("deis necesita listas 'deaths' y 'births' de archivos",
                  "deis needs lists 'deaths' and 'births' of files"),
    "units_one": ("indique solo una de: all, region, codes", "give only one of: all, region, codes"),
    "bad_code": ("código de unidad no válido {code!r} (solo dígitos)", "invalid unit code {code!r} (digits only)"),
    "bad_period": ("no se entiende {got!r} como período; escriba p. ej. \"2005-2014\"",
                   "cannot read {got!r} as a period; write e.g. \"2005-2014\""),
    "ref_one": ("indique solo una de: codes, rule", "give only one of: codes, rule"),
    "ref_rule": ("regla de referencia no válida {got!r}", "invalid reference rule {got!r}"),
    "min_births_best": ("min_births solo se usa con rule = \"best\"", "min_births only goes with rule = \"best\""),
    "ref_rule_hint": ("use \"best\", \"lowest-quintile:COVARIABLE\" o codes = [\"13114\"]",
                      "use \"best\", \"lowest-quintile:COVARIATE\" or codes = [\"13114\"]"),
    "few_replicates": ("{n} {n:réplica bootstrap es muy poco|réplicas bootstrap son muy pocas}: cada límite de un IC "
                       "de 95 % descansaría en menos de 5 réplicas", "{n} bootstrap {n:replicate is|replicates are} "
                       "too few: each limit of a 95 % CI would rest on fewer than 5 replicates"),
    "few_replicates_hint": ("escriba bootstrap = 0 (IC analíticos) o al menos {minimum} (1000 es lo habitual)",
                            "write bootstrap = 0 (analytic CIs) or at least {minimum} (1000 is usual)"),
    "unknown_analysis": ("análisis desconocido '{name}'", "unknown analysis '{name}'"),
    "no_analyses": ("no se pidió ningún análisis", "no analysis was asked for"),
    "no_analyses_hint": ("agregue al menos una tabla [analyses.rates]", "add at least one [analyses.rates] table"),
    "range": ("debe estar entre {low} y {high}, no {got!r}", "must be between {low} and {high}, not {got!r}"),
    "unknown_example": ("no hay un estudio de ejemplo llamado {name!r}; los hay: {valid}",
                        "there is no example study called {name!r}; there are: {valid}"),
})

# what a field should hold, in the message's language (the English text is the key)
_EXPECTED = {
    "text": "texto", "a whole number": "un número entero", "a number": "un número", "true or false": "true o false",
    "a list of unit codes": "una lista de códigos de unidad", "a list of names": "una lista de nombres",
    "a list such as [\"infant\"]": "una lista como [\"infant\"]", "a table [data]": "una tabla [data]",
    "a file path": "la ruta de un archivo", 'a table [units] or "all"': 'una tabla [units] o "all"',
    "true": "true", 'a region code such as "13"': 'un código de región como "13"',
    "a table [covariates]": "una tabla [covariates]", "a list of analysis names": "una lista de nombres de análisis",
    "a table [analyses.NAME]": "una tabla [analyses.NOMBRE]", "a table of options": "una tabla de opciones",
}


def _what(english: str) -> str:
    from .i18n import get_language

    return english if get_language() == "en" else _EXPECTED.get(english, english)


COUNTRIES = {"CL": "CL", "CHILE": "CL", "BR": "BR", "BRAZIL": "BR", "BRASIL": "BR", "AR": "AR", "ARGENTINA": "AR"}
EXAMPLE_COUNTRY = {"chile": "CL", "brazil": "BR", "argentina": "AR", "araucania": "CL"}
EXAMPLE_DATA = tuple(EXAMPLE_COUNTRY)
OUTCOME_NAMES = ("infant", "neonatal", "postneonatal")
OUTCOME_ALIASES = {"imr": "infant", "infantil": "infant", "nmr": "neonatal", "pnmr": "postneonatal",
                   "tardia": "postneonatal", "post-neonatal": "postneonatal"}
FILL_RULES = ("interpolate", "carry-forward", "none")
LANGUAGES = ("es", "en")

# The analyses a study can ask for and their options: name -> (kind, allowed values or None, default).
# kind: "str", "int", "float", "bool", "codes" (list of unit codes), "names" (list of strings).
ANALYSES: dict[str, dict[str, tuple[str, Any, Any]]] = {
    "rates": {
        "ci": ("str", ("exact", "byar", "wilson", "clopper-pearson"), "exact"),
        "level": ("float", (0.5, 0.999), 0.95),
    },
    "disparity": {
        "per_year": ("bool", None, True),
        "pooled": ("bool", None, True),
        "focus": ("codes", None, []),
        "focus_covariate": ("str", None, ""),
        "level": ("float", (0.5, 0.999), 0.95),
    },
    "smoothing": {
        "prior": ("str", ("global", "region"), "global"),
    },
    "funnel": {
        "overdispersion": ("bool", None, False),
    },
    "distribution": {},
    "trends": {
        "method": ("str", ("prais-winsten", "joinpoint"), "prais-winsten"),
        "zero": ("str", ("add-half", "pool-years", "skip"), "add-half"),
        "alpha": ("float", (0.001, 0.5), 0.05),
        "selection": ("str", ("wbic", "bic", "bic3", "permutation"), "wbic"),  # joinpoint (issue 13)
    },
    "inequality": {
        "rank_by": ("str", None, ""),
        "groups": ("int", (2, 100), 5),
        "measures": ("names", None, []),
        "bootstrap": ("int", (0, 100_000), 0),
        "seed": ("int", (0, 2**32 - 1), 2024),
    },
    "covariate_inequality": {
        "covariate": ("str", None, ""),
        "weight": ("str", ("none", "population", "births"), "none"),
    },
    "models": {
        "covariates": ("names", None, []),
        "models": ("names", ("pooled", "fe", "fe2", "re", "between", "fd", "cre", "poisson", "negbin",
                             "poisson_fe", "poisson_re"), ["pooled", "fe", "re"]),
        "se": ("str", ("unadjusted", "robust", "clustered", "driscoll-kraay"), "clustered"),
        "years": ("str", None, ""),
    },
    "decompose": {  # "Where is the gap?" (issue 14): between/within by a grouping; determinants of the CI
        "by": ("str", None, "region"),
        "measures": ("names", None, ["theil", "gini"]),
        "rank_by": ("str", None, ""),
        "determinants": ("names", None, []),
        "years": ("str", None, ""),
        "bootstrap": ("int", (0, 100_000), 0),
        "seed": ("int", (0, 2**32 - 1), 2024),
    },
    "spatial": {  # Moran's I, LISA clusters, BYM2 (issue 15)
        "neighbours": ("str", None, "queen"),
        "permutations": ("int", (0, 100_000), 999),
        "seed": ("int", (0, 2**32 - 1), 12345),
        "bym2": ("bool", None, True),
    },
    "maps": {
        "smoothed": ("bool", None, True),
        "trend": ("bool", None, True),
    },
}

TOP_FIELDS = ("title", "language", "country", "period", "outcomes", "data", "units", "reference",
              "covariates", "analyses", "publication", "output")


@dataclass(frozen=True)
class Study:
    """A validated study. ``analyses`` maps each requested analysis to its options (defaults filled in)."""

    path: Path | None
    title: str
    country: str | None
    data: dict
    units: dict
    years: list[int] | None
    outcomes: list[str]
    reference: str
    covariates: list[str] = field(default_factory=list)
    fill: str = "interpolate"
    analyses: dict[str, dict] = field(default_factory=dict)
    language: str | None = None
    titles: dict = field(default_factory=dict)
    publication: dict = field(default_factory=dict)  # [publication] suppress, round, zeros (brecha.publication)
    files: tuple = FILES  # [output] files: which of the report's files are written (brecha.report_files)

    def title_in(self, lang: str) -> str:
        """The title in ``lang`` when the study gives one per language."""
        return self.titles.get(lang) or self.title

    @property
    def period(self) -> str:
        if not self.years:
            return ""
        return f"{self.years[0]}-{self.years[-1]}" if len(self.years) > 1 else str(self.years[0])

    def wants(self, name: str) -> bool:
        return name in self.analyses


# ---------------------------------------------------------------------------------------------- parsing

def _Checker(path: Path | None) -> Checker:  # noqa: N802 - the study's checker, with its messages
    """Records every problem of one study file (brecha.study_check), in the session's language."""
    return Checker(path, MSG, _what)


def parse_period(text) -> list[int]:
    """'2005-2014' -> [2005, ..., 2014]; '2005,2007' -> [2005, 2007]; 2010 -> [2010]. A study file may also
    write the range with an en dash ('2005–2014'), as word processors do."""
    from .panel import parse_years

    return parse_years(str(text).replace("–", "-"))


def read_study(path) -> Study:
    """Read and validate a study file (TOML)."""
    path = Path(path)
    if not path.is_file():
        raise InputError(MSG("not_found"), file=str(path), hint=MSG("not_found_hint"))
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(MSG("unreadable", reason=exc.strerror or exc), file=str(path),
                         hint=MSG("unreadable_hint")) from None
    try:
        raw = tomllib.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:  # a binary file, or text saved in Latin-1 / Windows-1252
        raise InputError(MSG("not_utf8", byte=f"0x{data[exc.start]:02X}", line=data[:exc.start].count(b"\n") + 1),
                         file=str(path), hint=MSG("not_utf8_hint")) from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(MSG("toml_syntax", error=exc), file=str(path), hint=MSG("toml_hint")) from None
    return parse_study(raw, path=path)


def parse_study(raw: dict, path: Path | None = None) -> Study:
    """Validate a study given as a mapping (the parsed TOML). ``path`` names the file in errors.

    Every field is read even after a wrong one, and the names the study refers to (covariates, unit codes,
    region) are checked against the data's header and the registry, so one InputError lists every problem
    with its TOML key (and the closest valid value) before anything is computed."""
    check = _Checker(path)
    base = path.resolve().parent if path else Path.cwd()
    if not raw:
        raise InputError(MSG("empty"), file=check.file, hint=MSG("empty_hint"))
    check.known(raw, TOP_FIELDS)
    title, titles = check.guard(_parse_title, check, raw.get("title", ""), default=("", {}))
    language = raw.get("language")
    if language is not None:
        language = check.guard(check.typed, "language", language, "str", LANGUAGES)
    data = check.guard(_parse_data, check, raw.get("data"), base, default={})
    country = check.guard(_parse_country, check, raw, data)
    units = check.guard(_parse_units, check, raw.get("units", {"all": True}), default={"all": True})
    years = check.guard(_parse_period_field, check, raw["period"]) if "period" in raw else None
    outcomes = check.guard(_parse_outcomes, check, raw.get("outcomes", ["infant"]), default=["infant"])
    reference = check.guard(_parse_reference, check, raw.get("reference", "best"), default="best")
    covariates, fill = check.guard(_parse_covariates, check, raw.get("covariates", {}),
                                   default=([], "interpolate"))
    analyses = check.guard(_parse_analyses, check, raw.get("analyses"), default={})
    publication = check.guard(parse_publication, check, raw.get("publication", {}), default={})
    files = check.guard(parse_output, check, raw.get("output", {}), default=FILES)
    if data:
        _check_names(check, data, country, units, reference, covariates, analyses)
    check.raise_all()
    return Study(path=path, title=title, titles=titles, country=country, data=data, units=units, years=years,
                 outcomes=outcomes, reference=reference, covariates=covariates,
                 fill=fill, analyses=analyses, language=language, publication=publication,
                 files=files)


def _parse_title(check: _Checker, title) -> tuple[str, dict]:
    titles = {}
    if isinstance(title, dict):  # title = { es = "...", en = "..." }
        check.known(title, LANGUAGES, "title.")
        for key, value in title.items():
            if not isinstance(value, str):
                check.fail(f"title.{key}", MSG("expected_type", expected=_what("text"), got=value))
        titles = dict(title)
        title = titles.get("es") or titles.get("en") or ""
    elif not isinstance(title, str):
        check.fail("title", MSG("expected_type", expected=_what("text"), got=title))
    return title, titles


def _parse_country(check: _Checker, raw: dict, data: dict) -> str | None:
    # without a country, a panel file's codes pick the registry (brecha.panel.read_panel)
    country_raw = raw.get("country", EXAMPLE_COUNTRY.get(data.get("example", ""), None))
    if country_raw is not None and (not isinstance(country_raw, str) or country_raw.upper() not in COUNTRIES):
        check.fail("country", MSG("one_of", valid="CL, BR, AR", got=country_raw))
    country = COUNTRIES[country_raw.upper()] if country_raw is not None else None
    if data.get("example") and EXAMPLE_COUNTRY[data["example"]] != country:
        check.fail("country", MSG("one_of", valid=EXAMPLE_COUNTRY[data["example"]], got=country_raw))
    return country


def _parse_period_field(check: _Checker, period, field_name: str = "period") -> list[int]:
    if isinstance(period, bool) or not isinstance(period, (str, int)):
        check.fail(field_name, MSG("bad_period", got=period))
    try:
        return parse_period(period)
    except InputError as exc:  # years outside 1900..next year: the message says which
        check.fail(field_name, exc.problem, exc.hint)
    except ValueError:
        check.fail(field_name, MSG("bad_period", got=period))


def _parse_outcomes(check: _Checker, outcomes) -> list[str]:
    if isinstance(outcomes, str):
        outcomes = [outcomes]
    if not isinstance(outcomes, list) or not outcomes or not all(isinstance(o, str) for o in outcomes):
        check.fail("outcomes", MSG("expected_type", expected=_what("a list such as [\"infant\"]"), got=outcomes))
    resolved = []
    for o in outcomes:  # every wrong one is recorded, each with the closest valid name
        name = OUTCOME_ALIASES.get(o.lower(), o.lower())
        if name not in OUTCOME_NAMES:
            check.note("outcomes", MSG("one_of", valid=", ".join(OUTCOME_NAMES), got=o)
                       + suggestion(o, OUTCOME_NAMES + tuple(OUTCOME_ALIASES)))
        resolved.append(name)
    return list(dict.fromkeys(r for r in resolved if r in OUTCOME_NAMES)) or ["infant"]


def _check_names(check: _Checker, data, country, units, reference, covariates, analyses) -> None:
    """Covariates, unit codes and the region the study names, against the data's header and the registry."""
    named = [("covariates.names", name) for name in covariates]
    if ":" in reference and not reference.startswith("best"):
        named.append(("reference.rule", reference.split(":", 1)[1]))
    for key, field_name in (("inequality", "rank_by"), ("disparity", "focus_covariate"),
                            ("covariate_inequality", "covariate")):
        named.append((f"analyses.{key}.{field_name}", analyses.get(key, {}).get(field_name) or ""))
    named += [("analyses.models.covariates", name) for name in analyses.get("models", {}).get("covariates", [])]
    check_covariates(check, named, known_covariates(data, country))
    reference_codes = reference.split(",") if reference[:1].isdigit() else []
    present = panel_units(data["panel"]) if "panel" in data else None
    if country is None and present:  # the registry the panel's codes point to (as read_panel picks it)
        from .panel import detect_country

        import pandas as pd

        country = detect_country(pd.Series(present, dtype=str))
    check_units(check, country, [("units.codes", units.get("codes", [])), ("reference.codes", reference_codes),
                                 ("analyses.disparity.focus", analyses.get("disparity", {}).get("focus", []))],
                units.get("region"), present=present, source=data.get("panel"))


def _parse_data(check: _Checker, table, base: Path) -> dict:
    if table is None:
        table = {"example": "chile"}
    if not isinstance(table, dict):
        check.fail("data", MSG("expected_type", expected=_what("a table [data]"), got=table), MSG("data_hint"))
    check.known(table, ("example", "panel", "deis", "split"), "data.")
    sources = [k for k in ("example", "panel", "deis") if k in table]
    if len(sources) != 1:
        check.fail("data", MSG("data_one"), MSG("data_hint"))
    out: dict[str, Any] = {}
    if "split" in table:
        out["split"] = check.typed("data.split", table["split"], "str", ("keep", "merge"))
    kind = sources[0]
    if kind == "example":
        out["example"] = check.typed("data.example", table["example"], "str", EXAMPLE_DATA)
    elif kind == "panel":
        out["panel"] = _existing_file(check, "data.panel", table["panel"], base)
    else:
        deis = table["deis"]
        if not isinstance(deis, dict) or not {"deaths", "births"} <= set(deis):
            check.fail("data.deis", MSG("deis_need"))
        check.known(deis, ("deaths", "births"), "data.deis.")
        files = {}
        for part in ("deaths", "births"):
            items = deis[part]
            if isinstance(items, str):
                items = [items]
            if not isinstance(items, list) or not items:
                check.fail(f"data.deis.{part}", MSG("deis_need"))
            files[part] = [_existing_file(check, f"data.deis.{part}", item, base) for item in items]
        out["deis"] = files
    return out


def _existing_file(check: _Checker, name: str, value, base: Path) -> Path:
    if not isinstance(value, str) or not value:
        check.fail(name, MSG("expected_type", expected=_what("a file path"), got=value))
    p = Path(value).expanduser()
    if not p.is_absolute():
        p = base / p
    if not p.exists():
        check.fail(name, MSG("file_missing", path=p), MSG("file_hint", folder=base))
    return p


def _parse_units(check: _Checker, table) -> dict:
    if table == "all":
        return {"all": True}
    if not isinstance(table, dict):
        check.fail("units", MSG("expected_type", expected=_what('a table [units] or "all"'), got=table))
    check.known(table, ("all", "region", "codes"), "units.")
    given = [k for k in ("all", "region", "codes") if k in table]
    if len(given) > 1:
        check.fail("units", MSG("units_one"))
    if not given:
        return {"all": True}
    if "all" in table:
        if table["all"] is not True:
            check.fail("units.all", MSG("expected_type", expected=_what("true"), got=table["all"]))
        return {"all": True}
    if "region" in table:
        region = table["region"]
        if isinstance(region, bool) or not isinstance(region, (str, int)) or not re.fullmatch(
                r"\d{1,2}|[A-Z]{2}", str(region).strip()):
            check.fail("units.region", MSG("expected_type", expected=_what('a region code such as "13"'), got=region))
        region = str(region).strip()
        return {"region": region.zfill(2) if region.isdigit() else region}
    return {"codes": check.codes("units.codes", table["codes"])}


def _parse_reference(check: _Checker, value) -> str:
    """A reference as the disparity module reads it: 'best', 'CODE[,CODE...]' or 'lowest-quintile:COV'."""
    min_births = None
    if isinstance(value, dict):
        check.known(value, ("codes", "rule", "min_births"), "reference.")
        if ("codes" in value) == ("rule" in value):
            check.fail("reference", MSG("ref_one"), MSG("ref_rule_hint"))
        if "min_births" in value:
            min_births = check.typed("reference.min_births", value["min_births"], "int", (0, 10**9))
            if "codes" in value or str(value.get("rule", "")).strip() != "best":
                check.fail("reference.min_births", MSG("min_births_best"), MSG("ref_rule_hint"))
        if "codes" in value:
            return ",".join(check.codes("reference.codes", value["codes"]))
        value = value["rule"]
        name = "reference.rule"
    else:
        name = "reference"
    if isinstance(value, list):
        return ",".join(check.codes(name, value))
    if not isinstance(value, str):
        check.fail(name, MSG("ref_rule", got=value), MSG("ref_rule_hint"))
    text = value.strip()
    if text == "best" and min_births is not None:  # min_births = 0: any unit with births may be the reference
        return f"best:{min_births}"
    if re.fullmatch(r"best(:\d+)?", text) or re.fullmatch(r"(lowest|highest)-quintile:[A-Za-z_][\w]*", text):
        return text
    if re.fullmatch(r"\d{1,7}(\s*,\s*\d{1,7})*", text):
        return ",".join(c.strip() for c in text.split(","))
    check.fail(name, MSG("ref_rule", got=value), MSG("ref_rule_hint"))


def _parse_covariates(check: _Checker, table) -> tuple[list[str], str]:
    if isinstance(table, list):
        table = {"names": table}
    if not isinstance(table, dict):
        check.fail("covariates", MSG("expected_type", expected=_what("a table [covariates]"), got=table))
    check.known(table, ("names", "fill"), "covariates.")
    names = check.typed("covariates.names", table.get("names", []), "names")
    fill = check.typed("covariates.fill", table.get("fill", "interpolate"), "str", FILL_RULES)
    return names, fill


def _parse_analyses(check: _Checker, table) -> dict[str, dict]:
    if table is None:
        table = {"rates": {}}
    if isinstance(table, list):  # analyses = ["rates", "trends"]
        if not all(isinstance(t, str) for t in table):
            check.fail("analyses", MSG("expected_type", expected=_what("a list of analysis names"), got=table))
        table = {name: {} for name in table}
    if not isinstance(table, dict):
        check.fail("analyses", MSG("expected_type", expected=_what("a table [analyses.NAME]"), got=table))
    if not table:
        check.fail(None, MSG("no_analyses"), MSG("no_analyses_hint"))
    out: dict[str, dict] = {}
    for name, options in table.items():
        if name not in ANALYSES:
            check.note(None, MSG("unknown_analysis", name=f"analyses.{name}") + suggestion(name, ANALYSES),
                       MSG("unknown_field_hint", valid=", ".join(ANALYSES)))
            continue
        if options is True:
            options = {}
        if options is False:
            continue
        if not isinstance(options, dict):
            check.note(f"analyses.{name}", MSG("expected_type", expected=_what("a table of options"), got=options))
            continue
        spec = ANALYSES[name]
        check.known(options, tuple(spec), f"analyses.{name}.")
        resolved = {}
        for key, (kind, allowed, default) in spec.items():
            resolved[key] = list(default) if isinstance(default, list) else default
            if key in options:
                resolved[key] = check.guard(check.typed, f"analyses.{name}.{key}", options[key], kind, allowed,
                                            default=resolved[key])
        if name == "models" and resolved["years"]:
            check.guard(_parse_period_field, check, resolved["years"], "analyses.models.years")
        if name in ("inequality", "decompose") and 0 < resolved["bootstrap"] < minimum_replicates(0.95):
            check.note(f"analyses.{name}.bootstrap", MSG("few_replicates", n=resolved["bootstrap"]),
                       MSG("few_replicates_hint", minimum=minimum_replicates(0.95)))
        out[name] = resolved
    return out


# ------------------------------------------------------------------------------------------- examples

EXAMPLES = {
    "chile": "chile_all_communes.toml",
    "chile-best": "chile_best_commune.toml",
    "chile-santiago": "chile_santiago_2005_2014.toml",
    "chile-all": "chile_all_communes.toml",
    "brazil": "brazil_municipalities.toml",
    "argentina": "argentina_provinces.toml",
    "araucania": "araucania_2021.toml",
}


def example_path(name: str = "chile") -> Path:
    """The path of a study shipped with the package (``chile`` is the default report's study)."""
    if name not in EXAMPLES:
        raise InputError(MSG("unknown_example", name=name, valid=", ".join(EXAMPLES)))
    return Path(str(resources.files("brecha") / "studies" / EXAMPLES[name]))


def example_study(name: str = "chile") -> Study:
    return read_study(example_path(name))


# ------------------------------------------------------------------------------------------------ run

def run_study(study: Study | str | Path, output_dir, *, lang: str | None = None, progress=None, files=None):
    """Run a study end to end and write its report into ``output_dir``; returns the built report.

    ``progress`` is a callable taking one message (the CLI prints them); ``lang`` overrides the study's
    language; ``files`` (e.g. ``["tables"]``) the study's ``[output] files`` (:mod:`brecha.report_files`). The study reads and checks the file; the report (:mod:`brecha.report`) takes the parsed Study
    and never imports this module, so the dependency runs one way (imported here, when a report is asked
    for, so that reading a study does not load matplotlib).
    """
    from .report.build import build_report

    if not isinstance(study, Study):
        study = read_study(study)
    if files is not None:
        from .report_files import with_files

        study = with_files(study, files)
    return build_report(study, output_dir, lang=lang, progress=progress)
