"""Argentina's registry: the 24 INDEC province codes, names and variants, INDEC regions, centroids."""
import math

import pytest

from brecha.errors import InputError
from brecha.registry import get_registry

# INDEC's statistical regions (EPH), written here from INDEC's definitions, independently of the module
REGIONS = {
    "Noroeste": {"38", "66", "90", "10", "86", "46"},
    "Noreste": {"18", "22", "34", "54"},
    "Cuyo": {"50", "70", "74"},
    "Pampeana": {"06", "14", "30", "42", "82"},
    "Patagonia": {"26", "58", "62", "78", "94"},
    "Gran Buenos Aires": {"02"},
}
# the seats of the provincial governments (approximate, degrees): every centroid lies within 450 km of its seat
CAPITALS = {"02": (-34.60, -58.38), "06": (-34.92, -57.95), "10": (-28.47, -65.78), "14": (-31.42, -64.18),
            "18": (-27.47, -58.83), "22": (-27.45, -58.99), "26": (-43.30, -65.10), "30": (-31.73, -60.53),
            "34": (-26.18, -58.17), "38": (-24.19, -65.30), "42": (-36.62, -64.29), "46": (-29.41, -66.86),
            "50": (-32.89, -68.83), "54": (-27.37, -55.90), "58": (-38.95, -68.06), "62": (-40.81, -62.99),
            "66": (-24.79, -65.41), "70": (-31.54, -68.54), "74": (-33.30, -66.34), "78": (-51.62, -69.22),
            "82": (-31.63, -60.70), "86": (-27.79, -64.26), "90": (-26.82, -65.22), "94": (-54.80, -68.30)}


def _km(a, b):
    lat1, lon1, lat2, lon2 = map(math.radians, (*a, *b))
    h = math.sin((lat2 - lat1) / 2) ** 2 + math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2
    return 2 * 6371 * math.asin(math.sqrt(h))


@pytest.fixture(scope="module")
def ar():
    return get_registry("AR")


def test_24_provinces_with_indec_codes_and_regions(ar):
    u = ar.units
    assert len(u) == 24 and u["unit"].is_unique and set(u["country"]) == {"AR"}
    assert set(u["unit"]) == set(CAPITALS)
    got = {name: set(g["unit"]) for name, g in u.groupby("region_name")}
    assert got == REGIONS
    assert (u["province"] == u["unit"]).all()
    assert get_registry("argentina") is ar and get_registry("ar") is ar


def test_centroids_are_near_the_capitals(ar):
    u = ar.units.set_index("unit")
    assert u[["lat", "lon"]].notna().all().all()
    for code, seat in CAPITALS.items():
        assert _km((u.loc[code, "lat"], u.loc[code, "lon"]), seat) < 450, code
    # Tierra del Fuego: Ushuaia, not the Antarctic centroid of the georef API
    assert u.loc["94", "lat"] > -56


def test_codes_normalised(ar):
    assert ar.normalise_codes([2, "6", 94.0, "02", "GBA"]).tolist() == ["02", "06", "94", "02", "GBA"]
    assert ar.is_known(["02", "2", "00", "98", "99", "GBA"]).tolist() == [True, True, False, False, False, False]
    h = ar.harmonise_codes(["6", "99"])
    assert h["unit"].tolist()[0] == "06" and h["status"].tolist() == ["current", "unknown"]


def test_names_and_variants(ar):
    names = ["CABA", "Capital Federal", "Tucuman", "TIERRA DEL FUEGO", "Provincia de Buenos Aires", "Buenos Aires",
             "Ciudad Autónoma de Buenos Aires", "Sgo. del Estero", "Entre Rios", "neuquén"]
    assert ar.match_names(names).tolist() == ["02", "02", "90", "94", "06", "06", "02", "86", "30", "58"]


def test_aggregate_rows_are_not_provinces(ar):
    resolved = ar.resolve_names(["Total del país", "Argentina", "GBA", "Gran Buenos Aires", "Salta"])
    assert resolved["match"].tolist() == ["aggregate"] * 4 + ["exact"]
    with pytest.raises(InputError):
        ar.match_names(["Patagonia Norte"])
