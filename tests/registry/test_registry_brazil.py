"""Brazilian registry: 5,570 municipalities, IBGE 6/7-digit codes, states and macro-regions."""
import pytest

from brecha.registry import get_registry


@pytest.fixture(scope="module")
def br():
    return get_registry("BR")


def test_units(br):
    u = br.units
    assert br.country == "BR" and get_registry("brazil") is br and get_registry("brasil") is br
    assert len(u) == 5570 and u["unit"].is_unique and u["unit"].str.fullmatch(r"\d{6}").all()
    assert u["province_name"].nunique() == 27 and u["province"].nunique() == 27
    assert sorted(u["region"].unique()) == ["1", "2", "3", "4", "5"]
    names = u.drop_duplicates("region").set_index("region")["region_name"].to_dict()
    assert names == {"1": "Norte", "2": "Nordeste", "3": "Sudeste", "4": "Sul", "5": "Centro-Oeste"}
    ro = u.set_index("unit").loc["110001"]
    assert ro["province"] == "11" and ro["province_name"] == "RO" and ro["name"] == "Alta Floresta D'Oeste"
    assert u["lat"].isna().all() and br.polygons() is None


def test_codes(br):
    # 7-digit IBGE codes carry a check digit: 1100015 -> 110001; São Paulo 3550308 -> 355030
    assert br.normalise_codes(["1100015", 110001, "110001.0", 3550308]).tolist() == ["110001", "110001",
                                                                                        "110001", "355030"]
    assert br.is_known(["3550308", "110000", "431453"]).tolist() == [True, False, False]
    out = br.harmonise_codes(["3550308", "110000"])
    assert out["unit"].tolist()[0] == "355030" and out["status"].tolist() == ["current", "unknown"]
