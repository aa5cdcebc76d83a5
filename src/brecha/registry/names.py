"""Tolerant matching of unit names (communes, municipalities) to codes.

A name is reduced to a key: accents, case, spaces and punctuation dropped, "y" read as "i" (Aysén/Aisén,
Llay-Llay/Llaillay, Coyhaique/Coihaique) and "gu" before a vowel read as "hu" (Paiguano/Paihuano,
Marchigüe/Marchihue, Treguaco/Trehuaco). Known alternative names that keys cannot catch (La Calera/Calera,
Santiago Centro/Santiago ...) are listed in ``ALIASES``. A name whose key is not found may still match one
unit by containment or by a close spelling; when more than one unit could be meant, nothing is guessed:
the name is reported with its candidates.
"""
from __future__ import annotations

import difflib
import re
import unicodedata

import pandas as pd

from ..errors import InputError
from ..i18n import Catalog

MSG = Catalog({
    "problem": ("{n} nombre(s) no se pudieron asociar a un código",
                "{n} name(s) could not be matched to a code"),
    "ambiguous": ("'{name}' es ambiguo: {candidates}", "'{name}' is ambiguous: {candidates}"),
    "unmatched": ("'{name}' no se encontró", "'{name}' was not found"),
    "unmatched_near": ("'{name}' no se encontró (¿quizás {candidates}?)",
                       "'{name}' was not found (perhaps {candidates}?)"),
    "hint": ("escriba el nombre oficial o use el código; los nombres oficiales están en "
             "brecha.registry.get_registry('{country}').units",
             "write the official name or use the code; official names are in "
             "brecha.registry.get_registry('{country}').units"),
})

# Alternative names whose keys differ from the official one (key of the variant -> 2018 code).
ALIASES_CHILE = {
    "lacalera": "05502",              # INE/BCN write "Calera"; common usage "La Calera"
    "santiagocentro": "13101",
    "navarino": "12201",              # Cabo de Hornos, formerly Navarino
    "cabodehornosexnavarino": "12201",
    "puertonatales": "12401",
    "puertoaisen": "11201",
    "sanvicentedetaguatagua": "06117",
    "villaohiggins": "11302",
    "rapanui": "05201",
    "antarticachilena": "12202",
    "puertoporvenir": "12301",
}

_UF = {"RO", "AC", "AM", "RR", "PA", "AP", "TO", "MA", "PI", "CE", "RN", "PB", "PE", "AL", "SE", "BA", "MG",
       "ES", "RJ", "SP", "PR", "SC", "RS", "MS", "MT", "GO", "DF"}
_QUALIFIED = re.compile(r"^(.*?)\s*(?:[-/,(]\s*)([A-Za-z]{2})\)?\s*$")


def name_key(name) -> str:
    """The comparison key of a name (see the module docstring)."""
    text = unicodedata.normalize("NFKD", str(name)).encode("ascii", "ignore").decode("ascii").lower()
    text = re.sub(r"[^a-z0-9]", "", text)
    text = text.replace("y", "i")
    text = re.sub(r"gu(?=[aeiou])", "hu", text)
    return text


def _split_state(name: str) -> tuple[str, str | None]:
    """'Bom Jesus - PI' / 'Bom Jesus (PI)' / 'Bom Jesus/PI' -> ('Bom Jesus', 'PI')."""
    m = _QUALIFIED.match(name)
    if m and m.group(2).upper() in _UF and m.group(1):
        return m.group(1), m.group(2).upper()
    return name, None


class NameIndex:
    """Keys of the official names of a registry, built once."""

    def __init__(self, units: pd.DataFrame, country: str):
        self.country = country
        self.units = units
        self.by_key: dict[str, list[str]] = {}
        for unit, name in zip(units["unit"], units["name"]):
            self.by_key.setdefault(name_key(name), []).append(unit)
        if country == "CL":
            for key, unit in ALIASES_CHILE.items():
                if unit in set(units["unit"]):
                    self.by_key.setdefault(key, [unit])
        self.name_of = dict(zip(units["unit"], units["name"]))
        self.state_of = dict(zip(units["unit"], units["province_name"]))
        self.keys = list(self.by_key)

    def candidates(self, name: str) -> tuple[list[str], bool]:
        """(units, exact): the unit(s) a name may mean, and whether the key matched exactly."""
        state = None
        if self.country == "BR":
            name, state = _split_state(name)
        key = name_key(name)
        if not key:
            return [], False
        found = self.by_key.get(key)
        exact = found is not None
        if not exact:
            found = self._near(key)
        if state is not None:
            found = [u for u in found if self.state_of.get(u) == state]
        return sorted(set(found)), exact

    def _near(self, key: str) -> list[str]:
        out: list[str] = []
        if len(key) >= 4:
            for k in self.keys:
                if key in k or (len(k) >= 4 and k in key):
                    out.extend(self.by_key[k])
        if not out:
            for k in difflib.get_close_matches(key, self.keys, n=5, cutoff=0.85):
                out.extend(self.by_key[k])
        return out

    def label(self, unit: str) -> str:
        name = self.name_of.get(unit, unit)
        if self.country == "BR":
            return f"{name} - {self.state_of.get(unit, '')} ({unit})"
        return f"{name} ({unit})"


def match_names(index: NameIndex, names, *, source: str | None = None, column: str | None = None,
                rows=None) -> pd.Series:
    """Codes for names; every ambiguous or unmatched name is reported at once in an InputError.

    A key that matches exactly one unit is accepted; a near match (containment of 4+ characters, or a
    difflib ratio >= 0.85) is accepted only when it points to a single unit. ``rows``: the file's row number
    of each name, for the message (default: position + 2, a spreadsheet with its header in row 1).
    """
    values = pd.Series(names, dtype="object").reset_index(drop=True)
    result: list = [None] * len(values)
    problems: dict[str, str] = {}
    bad_rows: list[int] = []
    file_rows = list(rows) if rows is not None and len(rows) == len(values) else None
    memo: dict[str, tuple[list[str], bool]] = {}
    for i, raw in enumerate(values):
        if raw is None or (isinstance(raw, float) and raw != raw):
            continue
        name = str(raw).strip()
        if name not in memo:
            memo[name] = index.candidates(name)
        found, exact = memo[name]
        if len(found) == 1:
            result[i] = found[0]
            continue
        bad_rows.append(int(file_rows[i]) if file_rows is not None else i + 2)
        if name in problems:
            continue
        if len(found) > 1:
            problems[name] = MSG("ambiguous", name=name, candidates=", ".join(index.label(u) for u in found[:12]))
        else:
            near = difflib.get_close_matches(name_key(name), index.keys, n=3, cutoff=0.6)
            units = [u for k in near for u in index.by_key[k]]
            problems[name] = (MSG("unmatched_near", name=name, candidates=", ".join(index.label(u) for u in units))
                              if units else MSG("unmatched", name=name))
    if problems:
        message = MSG("problem", n=len(problems)) + ": " + "; ".join(problems.values())
        raise InputError(message, file=source, rows=bad_rows if source else None, column=column,
                         hint=MSG("hint", country=index.country))
    return pd.Series(result, dtype="string", index=names.index if isinstance(names, pd.Series) else None)
