"""Unit names (communes, municipalities) to codes, never guessing silently.

Rules, in order, for each distinct name of a file:

1. **Exact.** The name is reduced to a key: accents, case, spaces and punctuation dropped ("LLAY LLAY",
   "Llay-Llay" -> ``llayllay``; "Ránquil" -> ``ranquil``). The key must be that of an official name of the
   registry, or, failing that, of a known official variant (:data:`VARIANTS_CHILE`, :data:`VARIANTS_BRAZIL`:
   older spellings and names that INE, DEIS, SINIM, IBGE and the Atlas still print, e.g. Aisén/Aysén,
   Llay-Llay/Llaillay, La Calera/Calera, Paiguano/Paihuano, Embu/Embu das Artes). Nothing else is "exact":
   no letter is ever swapped by a rule, because "Iumbel" for Yumbel is as much a typo as "Temuko".
   Brazilian names may carry their state ("Bom Jesus - PI", "Bom Jesus (PI)", "Bom Jesus/PI").
2. **Homonyms.** A key shared by units of several regions (Brazil has about 240; Chile none) is resolved
   only when the file's other rows point to one region (see 4) and exactly one of the units lies there; the
   choice is reported (a warning and a ledger line). Otherwise it is an error listing the candidates.
3. **Approximate.** A name with no exact key may contain an official name ("Hospital de Temuco"), be
   contained in one, or be a close spelling (``difflib`` ratio >= 0.85, or one letter off: "Temuko"). Such a match is never
   applied unless the user asks (``approximate=True``; ``brecha ingest table --match approximate``), and
   then only when it points to one unit; each one is reported. Without that, it is an error that lists the
   candidates with code and region.
4. **Region.** The file's region is the one holding at least 80 % of its distinct, exactly matched units
   (and at least 3 of them): a commune file of La Araucanía. A name matched into another region is then
   always an error, exact or approximate. Region means the Chilean region, or the Brazilian state (UF).
5. **Rows that are not units.** Labels of totals and aggregates ("Total país", "Región de Valparaíso",
   "Provincia de Cautín", "Servicio de Salud Araucanía Sur", "Brasil") and the sources' own label for an
   unknown unit ("Ignorada", "Município ignorado - RO") are classified (``aggregate``, ``unit_unknown``)
   for the caller to exclude and count; they are never matched to a unit.

All the problems of a file are reported in one error (the first :data:`MAX_SHOWN` names with their rows,
the rest counted).
"""
from __future__ import annotations

import difflib
import re
import unicodedata
from collections import Counter

import pandas as pd

from ..errors import InputError
from ..i18n import Catalog
from .argentina import VARIANTS_ARGENTINA

MAX_SHOWN = 20
REGION_SHARE = 0.8      # share of a file's distinct exact units that makes their region "the file's region"
REGION_MIN_UNITS = 3    # ... and at least this many of them
NEAR_CUTOFF = 0.85      # difflib ratio for an approximate spelling (lowered to allow one letter in short names)

MSG = Catalog({
    "problem": ("{n} nombre(s) no se pueden asociar con seguridad a una unidad",
                "{n} name(s) cannot be matched safely to a unit"),
    "ambiguous": ("'{name}' ({rows}) puede ser más de una unidad: {candidates}",
                  "'{name}' ({rows}) may be more than one unit: {candidates}"),
    "inexact": ("'{name}' ({rows}) no es un nombre oficial ni una variante conocida; parecido a: {candidates}",
                "'{name}' ({rows}) is not an official name nor a known variant; close to: {candidates}"),
    "not_found": ("'{name}' ({rows}) no se encontró", "'{name}' ({rows}) was not found"),
    "not_found_near": ("'{name}' ({rows}) no se encontró (¿quizás {candidates}?)",
                       "'{name}' ({rows}) was not found (perhaps {candidates}?)"),
    "other_region": ("'{name}' ({rows}) sería {candidates}, de otra región que las demás filas del archivo "
                     "({file_region})", "'{name}' ({rows}) would be {candidates}, in another region than the "
                     "file's other rows ({file_region})"),
    "aggregate": ("'{name}' ({rows}) es una fila de total o agregado, no una unidad",
                  "'{name}' ({rows}) is a total or aggregate row, not a unit"),
    "unit_unknown": ("'{name}' ({rows}) es una unidad desconocida en la fuente",
                     "'{name}' ({rows}) is a unit unknown to the source"),
    "more": ("... y {n} nombre(s) más", "... and {n} more name(s)"),
    "row": ("fila {rows}", "row {rows}"),
    "rows": ("filas {rows}", "rows {rows}"),
    "hint": ("escriba el nombre oficial o use el código (los nombres oficiales están en "
             "brecha.registry.get_registry('{country}').units)",
             "write the official name or use the code (official names are in "
             "brecha.registry.get_registry('{country}').units)"),
    "hint_approximate": ("; para aceptar las coincidencias aproximadas use --match approximate (Python: "
                         "match='approximate'): cada una se avisa y queda en el ledger",
                         "; to accept approximate matches use --match approximate (Python: "
                         "match='approximate'): each one is reported and kept in the ledger"),
    "hint_region": ("; si el archivo cubre varias regiones, use códigos de unidad en vez de nombres",
                    "; if the file covers several regions, use unit codes instead of names"),
    "hint_state": ("; en Brasil escriba el estado: 'Bom Jesus - PI'", "; in Brazil write the state: 'Bom Jesus - PI'"),
    "homonym_note": ("'{name}' está en {n} regiones; se usó {label}, la región del archivo",
                     "'{name}' is in {n} regions; {label} was used, the file's region"),
    "homonym_note_br": ("'{name}' está en {n} estados; se usó {label}, el estado del archivo",
                        "'{name}' is in {n} states; {label} was used, the file's state"),
    "approximate_note": ("'{name}' leído como {label} (coincidencia aproximada)",
                         "'{name}' read as {label} (approximate match)"),
})

# Official variants: older or alternative names still printed by the sources (variant as written -> code).
# Chile: the spellings found in ../shared/data (comunas_codigos_historicos.csv, INE population, DEIS
# establishments, SINIM, CASEN/SAE poverty, PNDR, IDC) that differ from the 2018 CUT names beyond accents,
# case, spaces and punctuation; plus names in common use for a commune.
VARIANTS_CHILE = {
    "Aisén": "11201", "Puerto Aisén": "11201", "Puerto Aysén": "11201",   # historic file, INE, DEIS
    "Coihaique": "11101",                         # historic file, INE, SINIM
    "Paiguano": "04105",                          # historic file, INE, PNDR, SINIM
    "Marchihue": "06204",                         # historic file, censo 2024, SINIM, PNDR
    "Trehuaco": "16207",                          # censo 2024, SINIM 2019-2023
    "Llay-Llay": "05703", "Llay Llay": "05703",   # municipality's own name
    "La Calera": "05502",                         # SINIM, SAE poverty, IDC, DEIS establishments
    "Q. Tilcoco": "06114",                        # INE population 1990-2020
    "Pto. Saavedra": "09116", "Puerto Saavedra": "09116",   # SAE poverty 2009-2020
    "San J. de la Costa": "10306",                # SAE poverty 2009-2020
    "Puerto Natales": "12401",                    # IDC
    "Santiago Centro": "13101",
    "Navarino": "12201", "Cabo de Hornos (Ex-Navarino)": "12201",   # name before 2001
    "San Vicente de Tagua Tagua": "06117",
    "San Francisco de Mostazal": "06110",
    "Caleta Tortel": "11303",
    "Villa O'Higgins": "11302",
    "Rapa Nui": "05201",
    "Antártica Chilena": "12202",
    "Puerto Porvenir": "12301",
}
# Brazil: names of the Atlas do Desenvolvimento Humano (brasil_municipios_codigos_e_atlas_censos_1991_2010.csv)
# that differ from IBGE's current ones, and IBGE renames. Write the state with a homonym ("Santarém - PB").
VARIANTS_BRAZIL = {
    "Santarém - PB": "251365",        # Joca Claudino (PB) since 2010s; Atlas "Santarém (PB)"
    "Seridó": "251540",               # São Vicente do Seridó (PB); Atlas "Seridó (PB)"
    "Brasópolis": "310890",           # Brazópolis (MG)
    "Embu": "351500",                 # Embu das Artes (SP)
    "Mogi Mirim": "353080",           # Moji Mirim (SP)
    "Parati": "330380",               # Paraty (RJ)
    "Itapajé": "230630",              # Itapagé (CE)
    "Iguaracy": "260690",             # Iguaraci (PE)
    "Lagoa do Itaenga": "260850",     # Lagoa de Itaenga (PE)
    "Belém de São Francisco": "260160",   # Belém do São Francisco (PE)
    "Couto de Magalhães": "170600",   # Couto Magalhães (TO)
    "Poxoréu": "510700",              # Poxoréo (MT)
    "Tabocão": "170825",              # Fortaleza do Tabocão (TO)
}

_UF = {"RO", "AC", "AM", "RR", "PA", "AP", "TO", "MA", "PI", "CE", "RN", "PB", "PE", "AL", "SE", "BA", "MG",
       "ES", "RJ", "SP", "PR", "SC", "RS", "MS", "MT", "GO", "DF"}
_QUALIFIED = re.compile(r"^(.*?)\s*(?:[-/,(]\s*)([A-Za-z]{2})\)?\s*$")
# Labels that are not units, on the name's plain words (accents dropped, lower case).
_AGGREGATE = re.compile(
    r"^(?:sub\s?)?total\b|^(?:pais|chile|brasil|brazil|argentina|republica argentina|nacional|todo el pais"
    r"|todas las comunas|resto del pais|gran buenos aires|gba|otro pais|otros paises)$"
    r"|^region\b|^regiao\b|^provincia\b|^servicio de salud\b|^ss\s|^estado d[eo]\b|^unidade da federacao\b")
_UNKNOWN = re.compile(
    r"^(?:comuna |municipio |unidad )?(?:ignorad[oa]|desconocid[oa]|sin informacion|sin dato|no informad[oa]"
    r"|nao informad[oa]|ignorado na uf)\b")


def name_key(name) -> str:
    """The comparison key of a name: accents, case, spaces and punctuation dropped, nothing else."""
    text = unicodedata.normalize("NFKD", str(name)).encode("ascii", "ignore").decode("ascii").lower()
    return re.sub(r"[^a-z0-9]", "", text)


def _words(name) -> str:
    text = unicodedata.normalize("NFKD", str(name)).encode("ascii", "ignore").decode("ascii").lower()
    return re.sub(r"\s+", " ", re.sub(r"[^a-z0-9]+", " ", text)).strip()


def label_kind(name) -> str | None:
    """``"aggregate"`` (a total, region, province...), ``"unit_unknown"`` ("Ignorada") or None (a unit name)."""
    words = _words(name)
    if _UNKNOWN.match(words):
        return "unit_unknown"
    if _AGGREGATE.match(words):
        return "aggregate"
    return None


def _split_state(name: str) -> tuple[str, str | None]:
    """'Bom Jesus - PI' / 'Bom Jesus (PI)' / 'Bom Jesus/PI' -> ('Bom Jesus', 'PI')."""
    m = _QUALIFIED.match(name)
    if m and m.group(2).upper() in _UF and m.group(1):
        return m.group(1), m.group(2).upper()
    return name, None


class NameIndex:
    """Keys of the official names and known variants of a registry, built once."""

    def __init__(self, units: pd.DataFrame, country: str):
        self.country = country
        self.units = units
        self.official: dict[str, list[str]] = {}
        for unit, name in zip(units["unit"].tolist(), units["name"].tolist()):
            self.official.setdefault(name_key(name), []).append(unit)
        known = set(units["unit"].tolist())
        self.variants: dict[str, list[str]] = {}
        variants = {"CL": VARIANTS_CHILE, "BR": VARIANTS_BRAZIL, "AR": VARIANTS_ARGENTINA}.get(country, {})
        for name, unit in variants.items():
            if unit in known:
                self.variants.setdefault(name_key(_split_state(name)[0] if country == "BR" else name),
                                         []).append(unit)
        codes = units["unit"].tolist()  # lists, not item by item: ~1 µs each for pandas 3's text columns
        self.name_of = dict(zip(codes, units["name"].tolist()))
        self.state_of = dict(zip(codes, units["province_name"].tolist()))
        if country == "BR":   # the region of a Brazilian municipality, for names, is its state (UF)
            self.region_of = dict(self.state_of)
            self.region_name = {uf: uf for uf in self.state_of.values()}
        else:
            self.region_of = dict(zip(codes, units["region"].tolist()))
            self.region_name = dict(zip(units["region"].tolist(), units["region_name"].tolist()))
        self.keys = list(self.official)

    def _state(self, name: str) -> tuple[str, str | None]:
        return _split_state(name) if self.country == "BR" else (name, None)

    def _in_state(self, units, state):
        return [u for u in units if state is None or self.state_of.get(u) == state]

    def exact(self, name: str) -> tuple[list[str], str]:
        """(units, how): the units whose official name (how "exact") or else known variant ("variant") has
        the name's key; ([], "") when none."""
        name, state = self._state(name)
        key = name_key(name)
        if not key:
            return [], ""
        found = self._in_state(self.official.get(key, []), state)
        if found:
            return sorted(set(found)), "exact"
        found = self._in_state(self.variants.get(key, []), state)
        return (sorted(set(found)), "variant") if found else ([], "")

    def near(self, name: str) -> list[str]:
        """Units whose official name contains the name or is contained in it (4+ characters), or is a close
        spelling (difflib ratio >= :data:`NEAR_CUTOFF`)."""
        name, state = self._state(name)
        key = name_key(name)
        out: list[str] = []
        if len(key) >= 4:
            for k in self.keys:
                if key in k or (len(k) >= 4 and k in key):
                    out.extend(self.official[k])
        if not out and len(key) >= 4:
            # one letter wrong in a 6-letter name ("Temuko") has a ratio of 5/6 = 0.83: the cutoff allows it
            cutoff = min(NEAR_CUTOFF, 1 - 1 / len(key)) - 1e-9
            for k in difflib.get_close_matches(key, self.keys, n=5, cutoff=cutoff):
                out.extend(self.official[k])
        return sorted(set(self._in_state(out, state)))

    def suggest(self, name: str) -> list[str]:
        """Loose suggestions for a name not found (difflib ratio >= 0.6), for the message only."""
        key = name_key(self._state(name)[0])
        return [u for k in difflib.get_close_matches(key, self.keys, n=3, cutoff=0.6) for u in self.official[k]]

    def label(self, unit: str) -> str:
        """'Temuco (09101, Región de La Araucanía)'; Brazil: 'Bom Jesus - PI (220190)'."""
        name = self.name_of.get(unit, unit)
        if self.country == "BR":
            return f"{name} - {self.state_of.get(unit, '')} ({unit})"
        return f"{name} ({unit}, {self.region_name.get(self.region_of.get(unit), '')})"

    def file_region(self, units) -> str | None:
        """The region of at least REGION_SHARE of these distinct units (and REGION_MIN_UNITS of them), or None."""
        distinct = set(units)
        if len(distinct) < REGION_MIN_UNITS:
            return None
        region, n = Counter(self.region_of.get(u) for u in distinct).most_common(1)[0]
        return region if n >= REGION_SHARE * len(distinct) and n >= REGION_MIN_UNITS else None


def _is_missing(value) -> bool:
    return value is None or value is pd.NA or (isinstance(value, float) and value != value) or not str(value).strip()


def resolve_names(index: NameIndex, names, *, rows=None, approximate: bool = False) -> pd.DataFrame:
    """How each name is matched: one row per input name, in order.

    Columns: ``row`` (the file's row; default position + 2), ``name``, ``unit`` (<NA> unless matched),
    ``match`` (``exact``, ``variant``, ``homonym_region``, ``approximate``, ``aggregate``, ``unit_unknown``,
    ``missing`` for an empty cell, or "" for a problem), ``problem`` (``ambiguous``, ``inexact``,
    ``not_found``, ``other_region`` or ""), ``candidates`` (units, comma-separated), ``note`` (for the
    warnings and the ledger). ``attrs["region"]`` is the file's region (or None). See the module docstring.
    """
    values = [None if _is_missing(v) else str(v).strip() for v in pd.Series(names, dtype="object")]
    file_rows = [int(r) for r in rows] if rows is not None and len(rows) == len(values) else \
        list(range(2, len(values) + 2))
    distinct = list(dict.fromkeys(v for v in values if v is not None))
    exact = {name: index.exact(name) for name in distinct}
    sure = [found[0] for found, how in exact.values() if len(found) == 1]
    region = index.file_region(sure)
    outcome: dict[str, tuple] = {}   # name -> (unit, match, problem, candidates, note)
    for name in distinct:
        found, how = exact[name]
        if len(found) == 1:
            unit = found[0]
            if region is not None and index.region_of.get(unit) != region:
                outcome[name] = (None, "", "other_region", found, "")
            else:
                outcome[name] = (unit, how, "", found, "")
            continue
        if len(found) > 1:
            mine = [u for u in found if region is not None and index.region_of.get(u) == region]
            if len(mine) == 1:
                note = MSG("homonym_note_br" if index.country == "BR" else "homonym_note", name=name, n=len({index.region_of.get(u) for u in found}),
                           label=index.label(mine[0]))
                outcome[name] = (mine[0], "homonym_region", "", found, note)
            else:
                outcome[name] = (None, "", "ambiguous", found, "")
            continue
        kind = label_kind(index._state(name)[0] if index.country == "BR" else name)
        if kind is not None:
            outcome[name] = (None, kind, "", [], "")
            continue
        near = index.near(name)
        if region is not None and any(index.region_of.get(u) == region for u in near):
            near = [u for u in near if index.region_of.get(u) == region]
        if not near:
            outcome[name] = (None, "", "not_found", index.suggest(name), "")
        elif not approximate:
            outcome[name] = (None, "", "inexact", near, "")
        elif len(near) > 1:
            outcome[name] = (None, "", "ambiguous", near, "")
        elif region is not None and index.region_of.get(near[0]) != region:
            outcome[name] = (None, "", "other_region", near, "")
        else:
            note = MSG("approximate_note", name=name, label=index.label(near[0]))
            outcome[name] = (near[0], "approximate", "", near, note)
    records = []
    for value, row in zip(values, file_rows):
        if value is None:
            records.append((row, "", None, "missing", "", "", ""))
            continue
        unit, match, problem, candidates, note = outcome[value]
        records.append((row, value, unit, match, problem, ",".join(candidates), note))
    out = pd.DataFrame(records, columns=["row", "name", "unit", "match", "problem", "candidates", "note"])
    out["unit"] = out["unit"].astype("string")
    out.attrs["region"] = region
    return out


def _rows_text(rows: list[int]) -> str:
    shown = ", ".join(str(r) for r in rows[:5]) + (f", ... ({len(rows)})" if len(rows) > 5 else "")
    return MSG("rows" if len(rows) > 1 else "row", rows=shown)


def problems_error(index: NameIndex, resolved: pd.DataFrame, *, source: str | None = None,
                   column: str | None = None, refuse=("aggregate", "unit_unknown")) -> InputError | None:
    """One InputError for every problem name of ``resolved`` (from :func:`resolve_names`), or None.

    Each distinct name is listed once with its rows and candidates (code and region); the first
    :data:`MAX_SHOWN` names are shown and the rest counted. ``refuse``: the ``match`` kinds that are also
    problems here (callers that exclude aggregate rows themselves pass ``()``).
    """
    bad = resolved[(resolved["problem"] != "") | resolved["match"].isin(list(refuse))]
    if bad.empty:
        return None
    region = resolved.attrs.get("region")
    lines = []
    for name, group in bad.groupby("name", sort=False):
        problem = group["problem"].iloc[0] or group["match"].iloc[0]
        candidates = [u for u in group["candidates"].iloc[0].split(",") if u]
        text = ", ".join(index.label(u) for u in candidates[:12])
        fields = {"name": name, "rows": _rows_text(group["row"].tolist()), "candidates": text}
        if problem == "other_region":
            fields["file_region"] = index.region_name.get(region, region)
        key = "not_found_near" if problem == "not_found" and candidates else problem
        lines.append(MSG(key, **fields))
    problems = set(bad["problem"])
    hint = MSG("hint", country=index.country)
    if "inexact" in problems:
        hint += MSG("hint_approximate")
    if "other_region" in problems:
        hint += MSG("hint_region")
    if "ambiguous" in problems and index.country == "BR":
        hint += MSG("hint_state")
    shown = lines[:MAX_SHOWN]
    if len(lines) > MAX_SHOWN:
        shown.append(MSG("more", n=len(lines) - MAX_SHOWN))
    message = MSG("problem", n=len(lines)) + ":\n  - " + "\n  - ".join(shown)
    return InputError(message, file=source, rows=sorted(bad["row"].astype(int).tolist()) if source else None,
                      column=column, hint=hint)


def match_names(index: NameIndex, names, *, source: str | None = None, column: str | None = None,
                rows=None, approximate: bool = False) -> pd.Series:
    """Codes for names (see the module docstring); every problem name is reported at once in an InputError.

    Empty cells stay <NA>. A label of a total or of an unknown unit is a problem here (it is not a unit);
    :func:`brecha.ingest.tables.read_tables` excludes such rows and counts them in its ledger instead.
    """
    resolved = resolve_names(index, names, rows=rows, approximate=approximate)
    error = problems_error(index, resolved, source=source, column=column)
    if error is not None:
        raise error
    return pd.Series(resolved["unit"].to_numpy(), dtype="string",
                     index=names.index if isinstance(names, pd.Series) else None)
