"""Checking a study file: every problem found in one reading, each with its TOML key and what to write.

:class:`Checker` is what :func:`brecha.study.parse_study` validates with. A wrong field is recorded and the
reading goes on with that field's default, so a study with a misspelt outcome, an unknown covariate and a
bad option is refused once with the three listed, not three times in three runs. Where the value is close
to a valid one (``difflib``'s similarity ratio >= 0.6, as ``get_close_matches``), the message says
"did you mean ...?".

:func:`check_names` then checks the names a study refers to against what is known before any data is read:
covariates (the columns of the panel file's header, those of the embedded example, and those brecha builds
for Chile and Brazil), unit codes and regions (the country's registry).
"""
from __future__ import annotations

import difflib
from pathlib import Path

from .errors import InputError
from .i18n import Catalog

MSG = Catalog({
    "field_bad": ("campo '{field}': {problem}", "field '{field}': {problem}"),
    "unknown_field": ("campo desconocido '{field}'", "unknown field '{field}'"),
    "unknown_field_hint": ("los campos válidos aquí son: {valid}", "the valid fields here are: {valid}"),
    "did_you_mean": (" (¿quiso decir {names}?)", " (did you mean {names}?)"),
    "or": (" o ", " or "),
    "problems": ("{n} problemas en el estudio; nada se ha calculado:",
                 "{n} problems in the study; nothing was computed:"),
    "todo": ("qué hacer", "what to do"),
    "unknown_covariate": ("covariable desconocida {name!r}", "unknown covariate {name!r}"),
    "covariate_hint": ("covariables conocidas para estos datos: {names}",
                       "covariates known for these data: {names}"),
    "unknown_codes": ("códigos que no están en el registro de {country}: {codes}",
                      "codes not in the registry of {country}: {codes}"),
    "codes_hint": ("use códigos como los del registro, p. ej. {examples}",
                   "use codes as the registry writes them, e.g. {examples}"),
    "absent_codes": ("códigos que no están en los datos ({file}): {codes}",
                     "codes not in the data ({file}): {codes}"),
    "absent_codes_hint": ("use códigos de los datos, p. ej. {examples}", "use codes of the data, e.g. {examples}"),
    "unknown_region": ("no hay región {region!r} en {country}", "there is no region {region!r} in {country}"),
    "region_hint": ("regiones: {regions}", "regions: {regions}"),
})


def suggestion(value, valid) -> str:
    """' (did you mean 'infant'?)' when ``value`` is close to one or two of ``valid``, else ''."""
    if not isinstance(value, str) or not value:
        return ""
    choices = [str(v) for v in valid]
    lowered = {c.lower(): c for c in choices}
    close = difflib.get_close_matches(value.lower(), list(lowered), n=2, cutoff=0.6)
    if not close:
        return ""
    return MSG("did_you_mean", names=MSG("or").join(f"'{lowered[c]}'" for c in close))


class _Stop(Exception):
    """A field could not be read; the problem is recorded, the reading goes on with the next field."""


class Checker:
    """Records the problems of one study file (field, problem, hint); :meth:`raise_all` raises them as one
    InputError naming the file. ``fail`` records and stops the current field (see :meth:`guard`)."""

    def __init__(self, path: Path | None, messages: Catalog, expected_text=lambda english: english):
        self.path = path
        self.file = str(path) if path else None
        self.msg = messages  # the study's catalogue: expected_type, one_of, range, bad_code
        self.expected_text = expected_text  # what a field should hold, in the session's language
        self.problems: list[tuple[str | None, str, str | None]] = []

    def note(self, field_name: str | None, problem: str, hint: str | None = None) -> None:
        self.problems.append((field_name, problem, hint))

    def fail(self, field_name: str | None, problem: str, hint: str | None = None):
        self.note(field_name, problem, hint)
        raise _Stop(field_name)

    def guard(self, read, *args, default=None):
        """``read(*args)``, or ``default`` when it failed (its problem is recorded)."""
        try:
            return read(*args)
        except _Stop:
            return default

    def raise_all(self) -> None:
        """One problem: 'file F: field 'x': problem. What to do: hint'. Several: a numbered list, one a line."""
        if not self.problems:
            return
        if len(self.problems) == 1:
            name, problem, hint = self.problems[0]
            text = MSG("field_bad", field=name, problem=problem) if name else problem
            raise InputError(text, file=self.file, hint=hint)
        lines = [MSG("problems", n=len(self.problems))]
        for i, (name, problem, hint) in enumerate(self.problems, 1):
            text = MSG("field_bad", field=name, problem=problem) if name else problem
            lines.append(f"  {i}. {text}" + (f"; {MSG('todo')}: {hint}" if hint else ""))
        raise InputError("\n".join(lines), file=self.file)

    def known(self, table: dict, valid, prefix: str = "") -> None:
        """Each key of ``table`` not in ``valid`` is recorded (with the closest valid one); the others are read."""
        for key in table:
            if key not in valid:
                self.note(None, MSG("unknown_field", field=prefix + key) + suggestion(key, valid),
                          MSG("unknown_field_hint", valid=", ".join(valid) or "-"))

    def typed(self, field_name: str, value, kind: str, allowed=None):
        """``value`` as ``kind`` ("str", "int", "float", "bool", "codes", "names"), within ``allowed`` (a
        tuple of values for text and names, a (low, high) range for numbers)."""
        expected = {"str": "text", "int": "a whole number", "float": "a number", "bool": "true or false",
                    "codes": "a list of unit codes", "names": "a list of names"}[kind]
        one_of = self.msg

        def bad():
            self.fail(field_name, one_of("expected_type", expected=self.expected_text(expected), got=value))

        if kind == "str":
            if not isinstance(value, str):
                bad()
            if isinstance(allowed, tuple) and value not in allowed:
                self.fail(field_name, one_of("one_of", valid=", ".join(allowed), got=value) + suggestion(value, allowed))
            return value
        if kind == "bool":
            if not isinstance(value, bool):
                bad()
            return value
        if kind in ("int", "float"):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or (
                    kind == "int" and not isinstance(value, int)):
                bad()
            if allowed and not (allowed[0] <= value <= allowed[1]):
                self.fail(field_name, one_of("range", low=allowed[0], high=allowed[1], got=value))
            return float(value) if kind == "float" else int(value)
        if kind == "codes":
            return self.codes(field_name, value)
        if kind == "names":
            if isinstance(value, str):
                value = [v.strip() for v in value.split(",") if v.strip()]
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                bad()
            if isinstance(allowed, tuple):
                wrong = [v for v in value if v not in allowed]
                for v in wrong:
                    self.note(field_name, one_of("one_of", valid=", ".join(allowed), got=v) + suggestion(v, allowed))
                if wrong:
                    raise _Stop(field_name)
            return list(value)
        raise AssertionError(kind)

    def codes(self, field_name: str, value) -> list[str]:
        import re

        one_of, expected_text = self.msg, self.expected_text

        if isinstance(value, (str, int)) and not isinstance(value, bool):
            value = [value]
        if not isinstance(value, list) or not value:
            self.fail(field_name, one_of("expected_type", expected=expected_text("a list of unit codes"), got=value))
        out = []
        for v in value:
            if isinstance(v, bool) or not isinstance(v, (str, int)) or not re.fullmatch(r"\d{1,7}", str(v).strip()):
                self.fail(field_name, one_of("bad_code", code=v))
            out.append(str(v).strip())
        return out


# ------------------------------------------------------------------------------ names the study refers to

def panel_columns(path) -> list[str] | None:
    """The column names of a panel file, read from its header only (None when they cannot be read cheaply:
    the reader then says what is wrong with the file when the study runs)."""
    path = Path(path)
    suffix = path.suffix.lower()
    try:
        if suffix == ".parquet":
            import pyarrow.parquet as pq

            return [str(c).strip() for c in pq.read_schema(path).names]
        if suffix == ".csv":
            import pandas as pd

            head = pd.read_csv(path, nrows=0, sep=None, engine="python", encoding_errors="replace")
            return [str(c).strip() for c in head.columns]
        if suffix in (".xlsx", ".xlsm"):
            from openpyxl import load_workbook

            book = load_workbook(path, read_only=True)
            try:
                first = next(book.worksheets[0].iter_rows(max_row=1, values_only=True), ())
            finally:
                book.close()
            return [str(c).strip() for c in first if c is not None]
    except Exception:  # noqa: BLE001 - a file that cannot be read is reported by the panel reader
        return None
    return None


def panel_units(path) -> list[str] | None:
    """The unit codes of a panel file (its ``unit`` column, as text), or None when the file cannot be read
    here: the panel reader then says what is wrong with it when the study runs."""
    import warnings

    from .io import read_table

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            table = read_table(path, dtype={"unit": str})
    except Exception:  # noqa: BLE001 - reported by the panel reader, with the file's rows
        return None
    if "unit" not in table.columns:
        return None
    return list(dict.fromkeys(str(u).strip() for u in table["unit"].dropna()))


def known_covariates(data: dict, country: str | None) -> list[str] | None:
    """Covariate names these data can give: the panel file's other columns (or the embedded example's), plus
    those brecha builds for the country (both countries when the study does not say). None: unknown."""
    from . import covariates
    from .panel import ATTRIBUTE_COLUMNS, COUNT_COLUMNS

    if "example" in data:
        import pyarrow.parquet as pq

        from .registry import data_path

        shipped_panel = {"chile": "cl_panel.parquet", "brazil": "br_panel.parquet",
                         "argentina": "ar_panel.parquet"}.get(data["example"])
        columns = pq.read_schema(data_path(shipped_panel)).names if shipped_panel else []
    elif "panel" in data:
        columns = panel_columns(data["panel"])
        if columns is None:
            return None
    else:  # DEIS microdata carry no covariates
        columns = []
    own = [c for c in columns if c not in ("unit", "year", *COUNT_COLUMNS, *ATTRIBUTE_COLUMNS)]
    shipped = {"CL": list(covariates.CHILE_SOURCES), "BR": list(covariates.BRAZIL_SOURCES)}
    built = shipped[country] if country in shipped else ([] if country else shipped["CL"] + shipped["BR"])
    return list(dict.fromkeys(own + built))


def check_covariates(check: Checker, named: list[tuple[str, str]], known: list[str] | None) -> None:
    """Each (field, name) whose name is not among ``known`` is a problem naming the field."""
    if known is None:
        return
    for field_name, name in named:
        if name and name not in known:
            check.note(field_name, MSG("unknown_covariate", name=name) + suggestion(name, known),
                       MSG("covariate_hint", names=", ".join(known)))


def check_units(check: Checker, country: str | None, codes: list[tuple[str, list[str]]],
                region: str | None, present: list[str] | None = None, source=None) -> None:
    """Unit codes must be in the country's registry and, when the data's codes are known (``present``, read
    from the panel file ``source``), in the data too; the region must be in the registry. The registry checks
    are skipped when the country is unknown; codes are compared after the registry's normalisation ('9101'
    is '09101'), or with leading zeros ignored when there is no registry."""
    import pandas as pd

    from .registry import get_registry

    registry = get_registry(country) if country in ("CL", "BR", "AR") else None

    def normal(values) -> list[str]:
        if registry is not None:
            return list(registry.normalise_codes(pd.Series(values, dtype=str)))
        return [str(v).strip().lstrip("0") for v in values]

    have = set(normal(present)) if present else None
    for field_name, values in codes:
        if not values:
            continue
        if registry is not None:
            known = registry.is_known(pd.Series(normal(values), dtype=str))
            missing = [v for v, ok in zip(values, known) if not ok]
            if missing:
                check.note(field_name, MSG("unknown_codes", country=country, codes=", ".join(missing)),
                           MSG("codes_hint", examples=", ".join(registry.units["unit"].astype(str).head(3))))
                values = [v for v, ok in zip(values, known) if ok]
        if have is not None:
            absent = [v for v, n in zip(values, normal(values)) if n not in have]
            if absent:
                check.note(field_name, MSG("absent_codes", file=Path(str(source)).name, codes=", ".join(absent)),
                           MSG("absent_codes_hint", examples=", ".join(present[:3])))
    if registry is None:
        return
    if region:
        units = registry.units
        regions = dict(zip(units["region"].astype(str).tolist(), units["region_name"].astype(str).tolist()))
        if region not in regions and region.lstrip("0") not in regions:
            check.note("units.region", MSG("unknown_region", region=region, country=country),
                       MSG("region_hint", regions=", ".join(f"{k} {v}" for k, v in sorted(regions.items()))))
