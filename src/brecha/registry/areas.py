"""Regions and provinces named as a user writes them (``--region``, ``Panel.subset(region=...)``).

An area is found by its code (``"9"`` and ``"09"`` are region 09) or by its name compared as unit names are
(:func:`brecha.registry.names.name_key`: case, accents, spaces and punctuation ignored), with the generic
words in front optional ("Región de La Araucanía", "Araucanía" and "ARAUCANIA" are region 09; "Provincia de
Cautín" and "Cautin" are province 092), plus the short names in everyday use listed in
:data:`SHORT_NAMES_CHILE` (Metropolitana, O'Higgins, Aysén, Magallanes). Nothing looser is applied: a name
that only appears inside an area's name ("Arica" in "Región de Arica y Parinacota") or that fits several
areas is an error listing the candidates with their codes, so a subset never silently takes another area.
"""
from __future__ import annotations

import re

import pandas as pd

from ..errors import InputError
from ..i18n import Catalog
from .names import _words

MSG = Catalog({
    "unknown_region": ("región '{value}' desconocida; regiones del panel: {have}",
                       "unknown region '{value}'; regions of the panel: {have}"),
    "unknown_province": ("provincia '{value}' desconocida; provincias del panel: {have}",
                         "unknown province '{value}'; provinces of the panel: {have}"),
    "unknown_hint": ("escriba el código o el nombre tal como aparece en la lista (sin importar tildes ni "
                     "mayúsculas)", "write the code or the name as the list shows it (accents and case do not "
                     "matter)"),
    "candidates_region": ("'{value}' no es el nombre de una región del panel, pero se parece a: {candidates}",
                          "'{value}' is not the name of a region of the panel, but resembles: {candidates}"),
    "candidates_province": ("'{value}' no es el nombre de una provincia del panel, pero se parece a: {candidates}",
                            "'{value}' is not the name of a province of the panel, but resembles: {candidates}"),
    "candidates_hint": ("escriba el código de la que quiere (p. ej. {example})",
                        "write the code of the one you mean (e.g. {example})"),
})

# "Región de", "Provincia de", "Estado do"... and a leading article: optional in a name
_GENERIC = re.compile(r"^(?:region|regiao|provincia|estado|departamento)\s+(?:(?:de|del|da|do|das|dos)\s+)?")
_ARTICLE = re.compile(r"^(?:la|el|los|las|o|a|os|as)\s+")
# Chile's regions as people name them, beside the registry's official names (by region code)
SHORT_NAMES_CHILE = {
    "06": ("O'Higgins", "Libertador General Bernardo O'Higgins"),
    "08": ("Biobío",),
    "11": ("Aysén", "Aisén", "Aysén del General Carlos Ibáñez del Campo"),
    "12": ("Magallanes", "Magallanes y de la Antártica Chilena"),
    "13": ("Metropolitana", "Región Metropolitana", "RM", "Santiago Metropolitana"),
}


def area_keys(name) -> set[str]:
    """The comparison keys of an area's name: whole, and without 'Región de' and a leading article."""
    words = _words(name)
    stripped = _GENERIC.sub("", words)
    forms = {words, stripped, _ARTICLE.sub("", stripped)}
    return {f.replace(" ", "") for f in forms if f}


def _core(name) -> str:
    """The words of a name after 'Región de': 'Región de Los Lagos' -> 'los lagos'."""
    return _GENERIC.sub("", _words(name))


def resolve_areas(units: pd.DataFrame, level: str, wanted, country: str | None = None) -> list[str]:
    """The codes of ``level`` ("region" or "province") in ``units`` that ``wanted`` (codes or names) name.

    Raises InputError for a value that names no area (listing the panel's areas) or that only resembles
    some (listing those candidates with their codes). ``country`` "CL" adds :data:`SHORT_NAMES_CHILE`."""
    wanted = [wanted] if isinstance(wanted, (str, int)) else list(wanted)
    have = units[level].astype(str)
    codes = sorted(have.dropna().unique())
    by_code = {c.lstrip("0"): c for c in codes}
    names = {}
    if f"{level}_name" in units:
        pairs = units[[level, f"{level}_name"]].drop_duplicates(level).astype(str)
        names = dict(zip(pairs[level], pairs[f"{level}_name"]))
    keys: dict[str, set[str]] = {}
    cores: dict[str, set[str]] = {}
    for code, name in names.items():
        short = SHORT_NAMES_CHILE.get(code, ()) if level == "region" and country == "CL" else ()
        for variant in (name, *short):
            for key in area_keys(variant):
                keys.setdefault(key, set()).add(code)
            cores.setdefault(_core(variant), set()).add(code)
    resolved = []
    for value in (str(w).strip() for w in wanted):
        if value in codes or value.lstrip("0") in by_code:
            resolved.append(value if value in codes else by_code[value.lstrip("0")])
            continue
        found = set().union(*(keys.get(k, set()) for k in area_keys(value))) if value else set()
        if len(found) == 1:
            resolved.append(found.pop())
            continue
        if not found:  # candidates only: whole words inside a name ("Arica", "Santiago") are never applied
            key = _ARTICLE.sub("", _core(value)) if len(_core(value).split()) > 1 else _core(value)
            found = {c for k, cs in cores.items() if key and f" {key} " in f" {k} " for c in cs}
        listing = [f"{c} {names[c]}" if c in names else c for c in codes]
        if found:
            shown = [f"{c} {names.get(c, '')}".strip() for c in sorted(found)]
            raise InputError(MSG(f"candidates_{level}", value=value, candidates=", ".join(shown)),
                             argument=level, hint=MSG("candidates_hint", example=sorted(found)[0]))
        raise InputError(MSG(f"unknown_{level}", value=value, have=", ".join(listing)), argument=level,
                         hint=MSG("unknown_hint"))
    return resolved
