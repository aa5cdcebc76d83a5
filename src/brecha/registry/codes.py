"""Unit codes: clean them (leading zeros, '9101.0') and map historical Chilean codes to the 2018 division.

Chile's commune codes (CUT) changed four times since 1999:

* ``pre_1999``: the old 3-digit codes (used by INE tabulations up to 2000);
* ``2000_2008``: the 4/5-digit CUT of 2000;
* ``2008_2010``: after regions XIV Los Ríos and XV Arica y Parinacota (2007);
* ``2010_2018``: after the province of Marga Marga (2010);
* ``2018``: after region XVI Ñuble (2018), the current division (346 communes).

The crosswalk is ``comunas_codigos_historicos.csv`` (Bentancor & Clarke 2017 replication material,
see ``brecha/data/PROVENANCE.md``). Four communes were created in 2004 by splitting a parent; their
pre-1999 code is the parent's, so a pre-1999 code always means the parent's (then larger) territory.
"""
from __future__ import annotations

import re

import numpy as np
import pandas as pd

from ..errors import InputError
from ..i18n import Catalog

MSG = Catalog({
    "bad_system": ("system debe ser 'auto' o uno de {systems}, no {value!r}",
                   "system must be 'auto' or one of {systems}, not {value!r}"),
    "bad_split": ("split debe ser 'keep' o 'merge', no {value!r}", "split must be 'keep' or 'merge', not {value!r}"),
    "bad_years": ("year debe ser un valor o uno por código ({n} {n:código|códigos}, {m} {m:año|años})",
                  "year must be one value or one per code ({n} {n:code|codes}, {m} {m:year|years})"),
})

SYSTEMS = ("pre_1999", "2000_2008", "2008_2010", "2010_2018", "2018")
SYSTEM_COLUMNS = {
    "pre_1999": "code_pre_1999",
    "2000_2008": "code_2000_2008",
    "2008_2010": "code_2008_2010",
    "2010_2018": "code_2010_2018",
    "2018": "code_2018",
}
UNKNOWN_COMMUNE = 99999
_TRAILING_ZERO_DECIMAL = re.compile(r"\.0+$")


def _factorize(values) -> tuple[np.ndarray, list]:
    """(index per value, distinct values); -1 for missing. Microdata repeat a few hundred codes millions of
    times, so the text work below is done once per distinct code."""
    if isinstance(values, pd.Series):
        s = values.reset_index(drop=True)
    elif isinstance(values, (pd.Index, np.ndarray, pd.api.extensions.ExtensionArray)):
        s = pd.Series(values)
    else:
        s = pd.Series(list(values), dtype="object")
    index, uniques = pd.factorize(s, use_na_sentinel=True)
    return index, uniques.tolist()  # not list(): pandas 3's text arrays give their items one by one (~1 µs each)


def _clean_one(value) -> str | None:
    if value is None or value is pd.NA:
        return None
    if isinstance(value, (float, np.floating)):
        if np.isnan(value):
            return None
        return str(int(value)) if float(value).is_integer() else str(value)
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    text = _TRAILING_ZERO_DECIMAL.sub("", str(value).strip())
    return text


def _take(index: np.ndarray, uniques: list) -> pd.Series:
    table = pd.array(list(uniques) + [None], dtype="string")
    return pd.Series(table.take(np.where(index < 0, len(uniques), index)), dtype="string")


def clean_code_text(values) -> pd.Series:
    """Codes as stripped text: 9101, 9101.0, '9101.0', ' 09101 ' -> '9101', '9101', '9101', '09101'; missing -> <NA>."""
    index, uniques = _factorize(values)
    return _take(index, [_clean_one(v) for v in uniques])


def _pad_chile(text: str | None) -> str | None:
    if text is not None and text.isdigit() and len(text) in (4, 5):
        return text.zfill(5)
    return text


def _pad_brazil(text: str | None) -> str | None:
    if text is not None and text.isdigit() and len(text) == 7:
        return text[:6]
    return text


def normalise_codes_chile(values) -> pd.Series:
    """Chilean commune codes as 5-digit text: '9101', '9101.0', 9101 -> '09101'.

    Only all-digit codes of 4 or 5 digits are padded; anything else is kept as text.
    """
    index, uniques = _factorize(values)
    return _take(index, [_pad_chile(_clean_one(v)) for v in uniques])


def normalise_codes_brazil(values) -> pd.Series:
    """Brazilian IBGE codes as 6-digit text: the 7-digit code loses its check digit."""
    index, uniques = _factorize(values)
    return _take(index, [_pad_brazil(_clean_one(v)) for v in uniques])


def system_for_year(year: int) -> str:
    """The code system in force for data of a given year (INE/DEIS practice).

    INE's 2000 tabulations still use the pre-1999 codes; 2001-2006 the CUT of 2000; 2007-2009 the codes
    with regions XIV and XV; 2010-2017 the codes with Marga Marga; 2018 on the current codes.
    """
    if year <= 2000:
        return "pre_1999"
    if year <= 2006:
        return "2000_2008"
    if year <= 2009:
        return "2008_2010"
    if year <= 2017:
        return "2010_2018"
    return "2018"


def _lookup_tables(history: pd.DataFrame, splits: pd.DataFrame) -> dict[str, dict[int, str]]:
    """For each system, integer code -> 2018 unit. A pre-1999 code shared by a parent and the
    commune later split from it means the parent."""
    children = set(splits["child"]) if splits is not None and len(splits) else set()
    tables: dict[str, dict[int, str]] = {}
    for system, column in SYSTEM_COLUMNS.items():
        table: dict[int, str] = {}
        for code, unit in zip(history[column].astype("int64"), history["unit"]):
            code = int(code)
            if code in table and unit in children:
                continue  # the parent keeps the shared code
            table[code] = unit
        tables[system] = table
    return tables


def harmonise_chile(codes, history: pd.DataFrame, splits: pd.DataFrame, *, year=None,
                    system: str = "auto", split: str = "keep") -> pd.DataFrame:
    """Map Chilean commune codes of any period to the 2018 code.

    Parameters
    ----------
    codes : sequence of codes (int or text, leading zeros optional).
    year : None, an int, or a sequence of ints aligned with ``codes``. With ``system="auto"`` the code is
        first looked up in the system in force that year (:func:`system_for_year`), then in any system.
    system : "auto" or one of :data:`SYSTEMS`; an explicit system looks only there.
    split : "keep" (communes created by a split stay apart from their creation year) or "merge"
        (the child is counted under its parent for the whole series).

    Returns
    -------
    DataFrame with ``code_in`` (the code as given, text), ``unit`` (5-digit 2018 code or <NA>),
    ``status`` in {"current", "harmonised", "merged", "unknown"} and ``note`` (why unknown, or which
    system the code came from).
    """
    if system != "auto" and system not in SYSTEMS:
        raise InputError(MSG("bad_system", systems=", ".join(SYSTEMS), value=system))
    if split not in ("keep", "merge"):
        raise InputError(MSG("bad_split", value=split))
    index, uniques = _factorize(codes)
    texts = [_clean_one(v) for v in uniques]
    n = len(index)
    if year is None:
        years = np.full(n, -1, dtype="int64")
    elif np.ndim(year) == 0:
        years = np.full(n, int(year), dtype="int64")
    else:
        years = pd.to_numeric(pd.Series(list(year) if not isinstance(year, (pd.Series, np.ndarray)) else year),
                              errors="coerce").fillna(-1).astype("int64").to_numpy()
        if len(years) != n:
            raise InputError(MSG("bad_years", n=n, m=len(years)))
    tables = _lookup_tables(history, splits)
    parent_of = dict(zip(splits["child"], splits["parent"])) if len(splits) else {}
    values = [int(t) if t is not None and t.isdigit() and len(t) <= 6 else -1 for t in texts]

    # distinct (code, year) pairs, each harmonised once
    key = (index.astype("int64") + 1) * 100_000 + np.clip(years, -1, 99_998) + 1
    groups, unique_keys = pd.factorize(key)
    unit, status, note = [], [], []
    for k in unique_keys:
        code_pos, y = int(k // 100_000) - 1, int(k % 100_000) - 1
        if code_pos < 0:
            u, st, nt = None, "unknown", "missing code"
        else:
            u, st, nt = _harmonise_one(values[code_pos], y, texts[code_pos] or "", tables, system)
        if u is not None and split == "merge" and u in parent_of:
            u, st = parent_of[u], "merged"
            nt = (nt + "; " if nt else "") + "split child counted under its parent"
        unit.append(u)
        status.append(st)
        note.append(nt)
    code_in = _take(index, texts)
    return pd.DataFrame({
        "code_in": code_in.astype("str").where(code_in.notna(), ""),
        "unit": pd.array(np.array(unit, dtype=object)[groups], dtype="string"),
        "status": np.array(status, dtype=object)[groups],
        "note": np.array(note, dtype=object)[groups],
    })


def _harmonise_one(value: int, year: int, text: str, tables, system: str):
    if value < 0:
        return None, "unknown", "not a numeric commune code"
    if value == UNKNOWN_COMMUNE:
        return None, "unknown", "99999 = commune not stated"
    if system != "auto":
        unit = tables[system].get(value)
        if unit is None:
            return None, "unknown", f"not a code of system {system}"
        return unit, _status(text, unit), "" if system == "2018" else f"system {system}"
    if year >= 0:
        own = system_for_year(year)
        unit = tables[own].get(value)
        if unit is not None:
            return unit, _status(text, unit), "" if own == "2018" else f"system {own}"
    found = {s: tables[s][value] for s in SYSTEMS if value in tables[s]}
    targets = sorted(set(found.values()))
    if not targets:
        return None, "unknown", "not a commune code of any period"
    if len(targets) > 1:
        listing = ", ".join(f"{s}->{u}" for s, u in found.items())
        return None, "unknown", f"ambiguous: {listing}; give the year or the system"
    unit = targets[0]
    systems = [s for s, u in found.items() if u == unit]
    return unit, _status(text, unit), "" if "2018" in systems else f"system {systems[-1]}"


def _status(text: str, unit: str) -> str:
    digits = text.lstrip("0")
    return "current" if digits and digits == unit.lstrip("0") else "harmonised"


def merge_target(units, splits: pd.DataFrame, split: str = "keep") -> pd.Series:
    """The unit each 2018 code is counted under: itself ("keep") or its parent for split children ("merge")."""
    units = pd.Series(units, dtype="string").reset_index(drop=True)
    if split == "keep":
        return units.copy()
    if split != "merge":
        raise InputError(MSG("bad_split", value=split))
    parent_of = dict(zip(splits["child"], splits["parent"]))
    return units.replace(parent_of).astype("string")
