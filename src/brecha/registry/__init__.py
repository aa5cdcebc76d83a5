"""Country registries: the units (communes, municipalities), their hierarchy, names, code history, polygons.

    >>> from brecha.registry import get_registry
    >>> reg = get_registry("CL")
    >>> len(reg.units)
    346
    >>> reg.normalise_codes(["9101", 9101.0]).tolist()
    ['09101', '09101']
    >>> reg.harmonise_codes([1201, 10501], year=2005)["unit"].tolist()
    ['15101', '14101']

The tables are built from ``../shared/data`` by ``tools/build_data.py`` and shipped in ``brecha/data``;
their sources and every transformation are in ``brecha/data/PROVENANCE.md``.
"""
from __future__ import annotations

import functools
import gzip
import json
from importlib import resources

import numpy as np
import pandas as pd

from ..compat import isin
from ..errors import InputError
from ..i18n import Catalog
from . import argentina as _argentina
from . import codes as _codes
from . import names as _names

__all__ = ["Registry", "get_registry", "COUNTRIES", "data_path", "country_by_names"]

COUNTRIES = {"CL": "Chile", "BR": "Brazil", "AR": "Argentina"}
MSG = Catalog({
    "unknown_country": ("país '{country}' desconocido", "unknown country '{country}'"),
    "unknown_country_hint": ("use 'CL' (Chile), 'BR' (Brasil), 'AR' (Argentina) o none (sin registro)",
                             "use 'CL' (Chile), 'BR' (Brazil), 'AR' (Argentina) or none (no registry)"),
})
_ALIASES = {"cl": "CL", "chile": "CL", "chl": "CL", "br": "BR", "brazil": "BR", "brasil": "BR", "bra": "BR",
            "ar": "AR", "argentina": "AR", "arg": "AR"}
UNIT_COLUMNS = ["unit", "name", "province", "province_name", "region", "region_name", "country", "lat", "lon"]


def data_path(name: str):
    """Path (a Traversable) of an embedded data file."""
    return resources.files("brecha") / "data" / name


def read_embedded(name: str) -> pd.DataFrame:
    """An embedded Parquet table."""
    with data_path(name).open("rb") as handle:
        return pd.read_parquet(handle)


class Registry:
    """The units of one country and the tools to recognise their codes and names.

    Attributes: ``country`` ("CL"/"BR"), ``units`` (one row per unit, columns :data:`UNIT_COLUMNS`),
    ``code_history`` (Chile: the crosswalk of codes 1999-2018; Brazil: None), ``splits`` (child, parent,
    created_year: communes created by splitting a parent).
    """

    def __init__(self, country: str, units: pd.DataFrame, code_history: pd.DataFrame | None,
                 splits: pd.DataFrame, polygons_file: str | None):
        self.country = country
        self.units = units
        self.code_history = code_history
        self.splits = splits
        self._polygons_file = polygons_file
        self._known = set(units["unit"].tolist())

    def __repr__(self) -> str:
        return f"Registry({self.country}: {len(self.units)} units)"

    # codes -----------------------------------------------------------------------------------------
    def normalise_codes(self, values) -> pd.Series:
        """Codes as canonical text. Chile: '9101', '9101.0', 9101 -> '09101'. Brazil: 7-digit IBGE -> 6-digit.
        Codes that are not recognisable are returned as text, unchanged (see :meth:`is_known`)."""
        if self.country == "CL":
            return _codes.normalise_codes_chile(values)
        if self.country == "AR":
            return _argentina.normalise_codes_argentina(values)
        return _codes.normalise_codes_brazil(values)

    def is_known(self, codes) -> np.ndarray:
        """True where the (normalised) code is a unit of the registry."""
        normal = self.normalise_codes(codes)
        return isin(normal, self._known)

    def harmonise_codes(self, codes, year=None, system: str = "auto", split: str = "keep") -> pd.DataFrame:
        """Map codes of any period to current units: DataFrame ``code_in, unit, status, note``.

        Chile: see :func:`brecha.registry.codes.harmonise_chile` (historical code systems pre-1999,
        2000-2008, 2008-2010, 2010-2018 -> 2018; ``split`` "keep" or "merge"). Brazil: 6/7-digit codes
        are normalised; status "current" or "unknown" (the municipality list has no code history).
        """
        if self.country == "CL":
            return _codes.harmonise_chile(codes, self.code_history, self.splits, year=year, system=system,
                                          split=split)
        code_in = _codes.clean_code_text(codes)
        normal = self.normalise_codes(code_in)
        known = pd.Series(isin(normal, self._known), index=normal.index)
        return pd.DataFrame({
            "code_in": code_in.astype("str").where(code_in.notna(), ""),
            "unit": normal.where(known, pd.NA).astype("string"),
            "status": np.where(known, "current", "unknown"),
            "note": np.where(known, "", "not a province code" if self.country == "AR" else "not a municipality code"),
        })

    def merge_target(self, units, split: str = "keep") -> pd.Series:
        """The unit each current code is counted under with the given split policy."""
        return _codes.merge_target(units, self.splits, split)

    # names -----------------------------------------------------------------------------------------
    @functools.cached_property
    def _name_index(self) -> _names.NameIndex:
        return _names.NameIndex(self.units, self.country)

    def match_names(self, names, *, source: str | None = None, column: str | None = None,
                    rows=None, approximate: bool = False) -> pd.Series:
        """Codes for names: exact up to accents, case, spaces and punctuation, or a known official variant
        (rules in :mod:`brecha.registry.names`).

        Ambiguous, unknown, only approximately matching names and names in another region than the rest
        raise :class:`brecha.errors.InputError` listing all of them with candidates (code and region;
        ``source``/``column``/``rows`` name the file, column and rows). ``approximate=True`` accepts a
        single approximate candidate (a typo, a name inside a longer label). Brazil: names repeat across
        states, so write 'Bom Jesus - PI' or 'Bom Jesus (PI)'.
        """
        return _names.match_names(self._name_index, names, source=source, column=column, rows=rows,
                                  approximate=approximate)

    def resolve_names(self, names, *, rows=None, approximate: bool = False) -> pd.DataFrame:
        """How each name is matched (unit, match kind, problem, candidates, note), without raising:
        :func:`brecha.registry.names.resolve_names`. ``names_error(resolved, ...)`` gives the error."""
        return _names.resolve_names(self._name_index, names, rows=rows, approximate=approximate)

    def names_error(self, resolved: pd.DataFrame, *, source: str | None = None, column: str | None = None,
                    refuse=("aggregate", "unit_unknown")):
        """The InputError listing every problem of ``resolved`` (or None): :func:`brecha.registry.names.problems_error`."""
        return _names.problems_error(self._name_index, resolved, source=source, column=column, refuse=refuse)

    def name_label(self, unit: str) -> str:
        """'Temuco (09101, Región de La Araucanía)' / 'Bom Jesus - PI (220190)', as messages show a unit."""
        return self._name_index.label(unit)

    # geometry --------------------------------------------------------------------------------------
    def polygons(self) -> dict | None:
        """GeoJSON FeatureCollection (lon/lat, EPSG:4674) with ``properties.unit``; None when not shipped."""
        if self._polygons_file is None:
            return None
        return _load_polygons(self._polygons_file)


@functools.lru_cache(maxsize=None)
def _load_polygons(name: str) -> dict:
    with data_path(name).open("rb") as handle:
        return json.loads(gzip.decompress(handle.read()).decode("utf-8"))


def _country_code(country: str) -> str:
    key = str(country).strip()
    if key.upper() in COUNTRIES:
        return key.upper()
    if key.lower() in _ALIASES:
        return _ALIASES[key.lower()]
    raise InputError(MSG("unknown_country", country=country), hint=MSG("unknown_country_hint"))


def country_by_names(names) -> str:
    """The registry whose official names or variants match most of ``names`` exactly (ties and no match at all:
    "CL", the default registry), for a table keyed by names without ``country``."""
    distinct = list(dict.fromkeys(str(n).strip() for n in pd.Series(names).dropna()))
    best, best_count = "CL", 0
    for code in COUNTRIES:
        index = get_registry(code)._name_index
        count = sum(1 for n in distinct if index.exact(n)[0])
        if count > best_count:
            best, best_count = code, count
    return best


def get_registry(country: str = "CL") -> Registry:
    """The registry of a country ("CL"/"chile" or "BR"/"brazil"); loaded once per process."""
    return _build(_country_code(country))


@functools.lru_cache(maxsize=None)
def _build(code: str) -> Registry:
    units = read_embedded(f"{code.lower()}_units.parquet")
    units["lat"] = units["lat"].astype("float64")
    units["lon"] = units["lon"].astype("float64")
    if code == "CL":
        history = read_embedded("cl_code_history.parquet")
        splits = read_embedded("cl_splits.parquet")
        return Registry(code, units, history, splits, "cl_polygons.geojson.gz")
    splits = pd.DataFrame({"child": pd.Series([], dtype="str"), "parent": pd.Series([], dtype="str"),
                           "created_year": pd.Series([], dtype="int64")})
    return Registry(code, units, None, splits, None)
