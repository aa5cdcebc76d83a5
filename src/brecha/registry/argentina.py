"""Argentina's 24 provinces (23 provinces and the Ciudad Autónoma de Buenos Aires): codes, name variants,
INDEC regions, and the labels of the source rows that are not provinces.

Codes are INDEC's 2-digit province codes (``"02"`` Ciudad Autónoma de Buenos Aires, ``"06"`` Buenos Aires,
... ``"94"`` Tierra del Fuego), the codes of DEIS Argentina's vital statistics; ``2``, ``"2"`` and ``2.0``
are read as ``"02"``. Regions are INDEC's statistical regions as the Encuesta Permanente de Hogares codes
them (:data:`REGIONS`): Gran Buenos Aires (01), Noroeste (40), Noreste (41), Cuyo (42), Pampeana (43),
Patagonia (44). INDEC's Gran Buenos Aires region is the Ciudad plus the 24 partidos around it, which belong
to the province of Buenos Aires; a province-level panel cannot split that province, so here the region
"Gran Buenos Aires" holds the Ciudad only and the whole province of Buenos Aires is in "Pampeana".

Rows of DEIS Argentina's tables that are not provinces (:data:`AGGREGATE_CODES`): ``00`` the whole country,
``98`` other country / ``99`` unknown residence, and ``GBA`` Gran Buenos Aires (a sum that overlaps the
Ciudad and the province of Buenos Aires). They are excluded, counted and reported, never read as provinces.

    >>> normalise_codes_argentina([2, "6", "94", "GBA"]).tolist()
    ['02', '06', '94', 'GBA']
"""
from __future__ import annotations

from .codes import _clean_one, _factorize, _take

REGIONS = {"01": "Gran Buenos Aires", "40": "Noroeste", "41": "Noreste", "42": "Cuyo", "43": "Pampeana",
           "44": "Patagonia"}

# code -> (name as INDEC writes it, INDEC region code)
PROVINCES = {
    "02": ("Ciudad Autónoma de Buenos Aires", "01"),
    "06": ("Buenos Aires", "43"),
    "10": ("Catamarca", "40"),
    "14": ("Córdoba", "43"),
    "18": ("Corrientes", "41"),
    "22": ("Chaco", "41"),
    "26": ("Chubut", "44"),
    "30": ("Entre Ríos", "43"),
    "34": ("Formosa", "41"),
    "38": ("Jujuy", "40"),
    "42": ("La Pampa", "43"),
    "46": ("La Rioja", "40"),
    "50": ("Mendoza", "42"),
    "54": ("Misiones", "41"),
    "58": ("Neuquén", "44"),
    "62": ("Río Negro", "44"),
    "66": ("Salta", "40"),
    "70": ("San Juan", "42"),
    "74": ("San Luis", "42"),
    "78": ("Santa Cruz", "44"),
    "82": ("Santa Fe", "43"),
    "86": ("Santiago del Estero", "40"),
    "90": ("Tucumán", "40"),
    "94": ("Tierra del Fuego, Antártida e Islas del Atlántico Sur", "44"),
}

# Names in everyday and official use besides INDEC's (variant as written -> code); accents, case, spaces and
# punctuation are ignored anyway (brecha.registry.names.name_key).
VARIANTS_ARGENTINA = {
    "CABA": "02", "Capital Federal": "02", "Ciudad de Buenos Aires": "02", "Ciudad Autónoma de Bs. As.": "02",
    "C.A.B.A.": "02", "Ciudad Autónoma": "02",
    "Provincia de Buenos Aires": "06", "Buenos Aires (provincia)": "06", "PBA": "06",
    "Tierra del Fuego": "94", "Tierra del Fuego, Antártida e Islas del Atl. Sur": "94",
    "Santiago del Estero": "86", "Sgo. del Estero": "86", "Stgo. del Estero": "86",
}

# DEIS Argentina rows that are not provinces: code -> reason key (see datasets / the build's ledger)
AGGREGATE_CODES = {"00": "country_total", "98": "residence_abroad", "99": "residence_unknown",
                   "GBA": "gran_buenos_aires"}


def _pad(text: str | None) -> str | None:
    if text is not None and text.isdigit() and len(text) in (1, 2):
        return text.zfill(2)
    return text


def normalise_codes_argentina(values):
    """INDEC province codes as 2-digit text: 2, '2', '2.0' -> '02'. Anything else is kept as text."""
    index, uniques = _factorize(values)
    return _take(index, [_pad(_clean_one(v)) for v in uniques])
