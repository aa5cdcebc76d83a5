"""Tolerant name matching, and refusing ambiguous names with a clear message."""
import pytest

from brecha.errors import InputError
from brecha.registry import get_registry
from brecha.registry.names import name_key


@pytest.fixture(scope="module")
def reg():
    return get_registry("CL")


@pytest.mark.parametrize("variant, official, code", [
    ("Aisen", "Aysén", "11201"),
    ("Aisén", "Aysén", "11201"),
    ("Llay-Llay", "Llaillay", "05703"),
    ("LLAY LLAY", "Llaillay", "05703"),
    ("La Calera", "Calera", "05502"),
    ("Paiguano", "Paihuano", "04105"),
    ("Marchihue", "Marchigüe", "06204"),
    ("O'Higgins", "O'Higgins", "11302"),
    ("OHIGGINS", "O'Higgins", "11302"),
    ("Coihaique", "Coyhaique", "11101"),
    ("Los Álamos", "Los Alamos", "08206"),
    ("Ránquil", "Ranquil", "16206"),
    ("Trehuaco", "Treguaco", "16207"),
    ("CHOL CHOL", "Cholchol", "09121"),
    ("ñuñoa", "Ñuñoa", "13120"),
    ("  CONCEPCION ", "Concepción", "08101"),
])
def test_spelling_variants(reg, variant, official, code):
    assert reg.units.set_index("unit").loc[code, "name"] == official
    assert reg.match_names([variant]).tolist() == [code]


def test_every_official_name_matches_itself(reg):
    out = reg.match_names(reg.units["name"])
    assert out.tolist() == reg.units["unit"].tolist()
    # keys are unique, so no official name is ambiguous
    keys = reg.units["name"].map(name_key)
    assert keys.is_unique


def test_la_florida_and_florida_stay_apart(reg):
    assert reg.match_names(["La Florida", "Florida"]).tolist() == ["13110", "08104"]


def test_ambiguous_and_unmatched_are_all_reported(reg):
    with pytest.raises(InputError) as info:
        reg.match_names(["Santiago", "Puerto", "Xyzzy", "Santa", "Puerto"], source="comunas.csv", column="comuna")
    text = str(info.value)
    assert "comunas.csv" in text and "comuna" in text
    assert "3 " in text  # three distinct problem names
    assert "'Puerto'" in text and "Puerto Montt (10101)" in text and "Puerto Varas (10109)" in text
    assert "'Santa'" in text and "Santa Cruz (06310)" in text and "Santa Bárbara (08311)" in text
    assert "'Xyzzy'" in text
    assert info.value.rows == [3, 4, 5, 6]


def test_unmatched_suggests_close_names(reg):
    with pytest.raises(InputError, match="Valparaíso"):
        reg.match_names(["Valpo raizo"])


def test_brazil_names_need_state_when_repeated():
    br = get_registry("BR")
    assert br.match_names(["Bom Jesus - PI", "Bom Jesus (SC)", "São Paulo", "sao paulo/SP"]).tolist() == [
        "220190", "420253", "355030", "355030"]
    with pytest.raises(InputError, match="Bom Jesus - PI"):
        br.match_names(["Bom Jesus"])


def test_known_alternative_names(reg):
    names = ["Puerto Natales", "San Vicente de Tagua Tagua", "Cabo de Hornos (Ex-Navarino)", "Rapa Nui",
             "Puerto Aysén", "Villa O'Higgins", "Santiago Centro"]
    assert reg.match_names(names).tolist() == ["12401", "06117", "12201", "05201", "11201", "11302", "13101"]


def test_missing_names_stay_missing(reg):
    import pandas as pd

    out = reg.match_names(pd.Series(["Temuco", None], index=[10, 11]))
    assert out.index.tolist() == [10, 11] and out[10] == "09101" and pd.isna(out[11])
