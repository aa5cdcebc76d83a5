"""Chilean registry: units, code normalisation, historical code harmonisation, splits, polygons."""
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from brecha.errors import InputError
from brecha.i18n import set_language
from brecha.registry import get_registry

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "data"


@pytest.fixture(scope="module")
def reg():
    return get_registry("CL")


def test_units_table(reg):
    u = reg.units
    assert reg.country == "CL"
    assert list(u.columns) == ["unit", "name", "province", "province_name", "region", "region_name", "country",
                               "lat", "lon"]
    assert len(u) == 346 and u["unit"].is_unique
    assert u["unit"].str.fullmatch(r"\d{5}").all()
    assert u["region"].nunique() == 16 and u["province"].nunique() == 56
    seats = u[u["unit"] != "12202"]
    assert seats["lat"].between(-56, -17).all() and seats["lon"].between(-110, -66).all()
    assert u.set_index("unit").loc["12202", ["lat", "lon"]].isna().all()  # 0, 0 in the source
    row = u.set_index("unit").loc["01101"]
    assert row["name"] == "Iquique" and row["province"] == "011" and row["region"] == "01"
    # Ñuble is region 16 in the 2018 division
    assert u.set_index("unit").loc["16101", "name"] == "Chillán"


def test_get_registry_aliases_and_cache(reg):
    assert get_registry("chile") is reg and get_registry("cl") is reg
    for lang, words in (("en", "unknown country 'peru'"), ("es", "país 'peru' desconocido")):
        set_language(lang)
        with pytest.raises(InputError, match=words):
            get_registry("peru")
    set_language("es")


def test_normalise_codes(reg):
    out = reg.normalise_codes(["9101", "9101.0", 9101, 9101.0, " 09101 ", "13101", None, "abc"])
    assert out.tolist()[:6] == ["09101"] * 5 + ["13101"]
    assert out.isna().tolist()[6] and out.tolist()[7] == "abc"


def test_is_known(reg):
    assert reg.is_known(["9101", "13101", "99999", "1201", "abc"]).tolist() == [True, True, False, False, False]
    assert isinstance(reg.is_known(["9101"]), np.ndarray)


def test_harmonise_examples_from_sources(reg):
    # SOURCES.md: Arica 1201 -> 15101; Valdivia 10501 -> 14101; Quilpué 5106 -> 5801; Chillán 8401 -> 16101
    out = reg.harmonise_codes([1201, 10501, 5106, 8401])
    assert out["unit"].tolist() == ["15101", "14101", "05801", "16101"]
    assert (out["status"] == "harmonised").all()
    assert out["code_in"].tolist() == ["1201", "10501", "5106", "8401"]


def test_harmonise_with_year_and_system(reg):
    out = reg.harmonise_codes(["1201", "15101", "8401", "210", "9101"], year=[2005, 2009, 2012, 1998, 2014])
    assert out["unit"].tolist() == ["15101", "15101", "16101", "01101", "09101"]
    assert out["status"].tolist() == ["harmonised", "current", "harmonised", "harmonised", "current"]
    # an explicit system only looks there
    explicit = reg.harmonise_codes(["1201", "15101"], system="2010_2018")
    assert explicit["unit"].isna().tolist() == [True, False]
    assert explicit["status"].tolist() == ["unknown", "current"]
    for lang, words in (("en", "system must be 'auto' or one of"), ("es", "system debe ser 'auto' o uno de")):
        set_language(lang)
        with pytest.raises(InputError, match=words):
            reg.harmonise_codes(["1201"], system="1990")
    set_language("es")
    with pytest.raises(InputError, match="split"):
        reg.harmonise_codes(["1201"], split="join")


def test_harmonise_unknown(reg):
    out = reg.harmonise_codes([99999, "123456", "x", 1, None])
    assert (out["status"] == "unknown").all() and out["unit"].isna().all()
    assert "99999" in out["note"][0]


def test_pre_1999_code_of_a_split_means_the_parent(reg):
    # 210 was Iquique's code before Alto Hospicio (2004) existed; both carry it in the crosswalk
    out = reg.harmonise_codes([210, 456, 445, 507], year=2000)
    assert out["unit"].tolist() == ["01101", "08110", "08311", "09111"]


def test_splits_table(reg):
    s = reg.splits.sort_values("child")
    assert s["child"].tolist() == ["01107", "08112", "08314", "09121"]
    assert s["parent"].tolist() == ["01101", "08110", "08311", "09111"]
    assert (s["created_year"] == 2004).all()


def test_split_keep_and_merge(reg):
    keep = reg.harmonise_codes(["1107", "1101", "8112"], year=2008, split="keep")
    assert keep["unit"].tolist() == ["01107", "01101", "08112"]
    assert keep["status"].tolist() == ["current", "current", "current"]
    merge = reg.harmonise_codes(["1107", "1101", "8112"], year=2008, split="merge")
    assert merge["unit"].tolist() == ["01101", "01101", "08110"]
    assert merge["status"].tolist() == ["merged", "current", "merged"]
    assert reg.merge_target(["01107", "13101"], "merge").tolist() == ["01101", "13101"]
    assert reg.merge_target(["01107", "13101"], "keep").tolist() == ["01107", "13101"]


def test_code_history(reg):
    h = reg.code_history
    assert len(h) == 346 and set(h["unit"]) == set(reg.units["unit"])
    ñuble = h[h["unit"].str.startswith("16")]
    assert len(ñuble) == 21 and ñuble["code_2010_2018"].astype(str).str.startswith("84").all()


def test_polygons(reg):
    geo = reg.polygons()
    assert geo["type"] == "FeatureCollection" and len(geo["features"]) == 345
    keys = {f["properties"]["unit"] for f in geo["features"]}
    assert keys == set(reg.units["unit"]) - {"12202"}  # Antártica has no polygon in the source
    # the commune seat of Santiago lies inside the bounding box of its polygon
    feature = next(f for f in geo["features"] if f["properties"]["unit"] == "13101")
    pts = np.array([p for poly in feature["geometry"]["coordinates"] for ring in poly for p in ring])
    lat, lon = reg.units.set_index("unit").loc["13101", ["lat", "lon"]]
    assert pts[:, 0].min() <= lon <= pts[:, 0].max() and pts[:, 1].min() <= lat <= pts[:, 1].max()


@pytest.mark.skipif(not SHARED.exists(), reason="shared source data not available")
def test_harmonisation_reproduces_ine_source_mapping(reg):
    """Independent check: the INE deaths file records the code as written in each year's sheet and the 2018
    code assigned to it (mapped by the data curator); our harmonisation, given only the code and the year,
    must give the same commune for all 5,424 rows with a source code."""
    d = pd.read_csv(SHARED / "ine_defunciones_infantiles_comuna_2000_2015.csv", dtype=str)
    d = d[d["codigo_comuna_fuente"].notna()]
    out = reg.harmonise_codes(d["codigo_comuna_fuente"], year=d["anio"].astype(int))
    assert (out["unit"].to_numpy() == d["codigo_comuna"].to_numpy()).all()
    assert len(d) == 5424


@pytest.mark.skipif(not SHARED.exists(), reason="shared source data not available")
def test_harmonisation_reproduces_poverty_publication_codes(reg):
    p = pd.read_csv(SHARED / "pobreza_comunal_sae_2009_2020.csv", dtype=str)
    out = reg.harmonise_codes(p["codigo_comuna_publicado"], year=p["anio"].astype(int))
    assert (out["unit"].to_numpy() == p["codigo_comuna_2018"].to_numpy()).all()
