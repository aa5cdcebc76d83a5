"""Name matching: exact up to accents, case, spaces, punctuation and known variants; anything looser, any
homonym and any name in another region than the rest is refused with its candidates unless asked for."""
import pytest

from brecha.errors import InputError
from brecha.i18n import set_language
from brecha.registry import get_registry
from brecha.registry.names import MAX_SHOWN, label_kind, name_key

ARAUCANIA = ["Temuco", "Padre Las Casas", "Villarrica", "Angol", "Pucón", "Lautaro"]


@pytest.fixture(autouse=True)
def spanish():
    set_language("es")
    yield
    set_language("es")


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
    # spellings of the real files in shared/data (INE, SINIM, SAE poverty, IDC)
    ("Q. Tilcoco", "Quinta de Tilcoco", "06114"),
    ("Pto. Saavedra", "Saavedra", "09116"),
    ("San J. de la Costa", "San Juan de la Costa", "10306"),
    ("puerto natales", "Natales", "12401"),
    ("TREHUACO", "Treguaco", "16207"),
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
    assert "3 nombre(s) no se pueden asociar" in text  # three distinct problem names
    assert "'Puerto' (filas 3, 6)" in text and "Puerto Montt (10101, Región de Los Lagos)" in text
    assert "Puerto Varas (10109, Región de Los Lagos)" in text
    assert "'Santa' (fila 5)" in text and "Santa Cruz (06310, Región del Libertador" in text
    assert "Santa Bárbara (08311, Región del Bío-Bío)" in text
    assert "'Xyzzy' (fila 4) no se encontró" in text
    assert info.value.rows == [3, 4, 5, 6]


def test_unmatched_suggests_close_names(reg):
    with pytest.raises(InputError, match=r"Valparaíso \(05101, Región de Valparaíso\)"):
        reg.match_names(["Valpo raizo"])


def test_keys_are_strict_no_letter_is_swapped_by_a_rule(reg):
    # "y" for "i" is a typo unless the variant is listed: Aisén is, Iumbel is not
    assert name_key("Llay-Llay") == "llayllay" and name_key("Aysén") == "aysen"
    assert reg.match_names(["Aisen"]).tolist() == ["11201"]
    with pytest.raises(InputError) as info:
        reg.match_names(["Iumbel"])
    assert "'Iumbel' (fila 2) no es un nombre oficial ni una variante conocida" in str(info.value)
    assert "Yumbel (08313, Región del Bío-Bío)" in str(info.value)
    assert reg.match_names(["Iumbel"], approximate=True).tolist() == ["08313"]


@pytest.mark.parametrize("written, code", [("Temuko", "09101"), ("Hospital de Temuco", "09101"),
                                           ("Municipalidad de Lautaro", "09108"), ("Valparaiso.", "05101")])
def test_one_letter_typos_and_longer_labels_need_approximate(reg, written, code):
    resolved = reg.resolve_names([written])
    if written == "Valparaiso.":     # punctuation only: exact
        assert resolved["match"].tolist() == ["exact"] and resolved["unit"].tolist() == [code]
        return
    assert resolved["problem"].tolist() == ["inexact"] and resolved["candidates"].tolist() == [code]
    with pytest.raises(InputError) as info:
        reg.match_names([written], source="f.csv", column="comuna")
    assert "--match approximate" in str(info.value) and info.value.rows == [2]
    out = reg.resolve_names([written], approximate=True)
    assert out["unit"].tolist() == [code] and out["match"].tolist() == ["approximate"]
    assert f"'{written}' leído como" in out["note"].iloc[0]


def test_a_name_in_another_region_than_the_file_is_refused_even_exact(reg):
    names = ARAUCANIA + ["Santa Bárbara", "Temuco"]
    for approximate in (False, True):
        with pytest.raises(InputError) as info:
            reg.match_names(names, source="araucania.csv", column="comuna", approximate=approximate)
        text = str(info.value)
        assert "1 nombre(s)" in text and info.value.rows == [8]
        assert ("'Santa Bárbara' (fila 8) sería Santa Bárbara (08311, Región del Bío-Bío), de otra región que "
                "las demás filas del archivo (Región de La Araucanía)") in text
        assert "use códigos de unidad" in text
    set_language("en")
    with pytest.raises(InputError) as info:
        reg.match_names(names, source="araucania.csv", column="comuna")
    assert ("'Santa Bárbara' (row 8) would be Santa Bárbara (08311, Región del Bío-Bío), in another region than "
            "the file's other rows (Región de La Araucanía)") in str(info.value)
    # an approximate match into another region is refused the same way
    with pytest.raises(InputError, match=r"'Yumbell' \(row 8\) would be Yumbel"):
        reg.match_names(ARAUCANIA + ["Yumbell"], approximate=True)
    # a national file has no region of its own: nothing is refused for its spread
    assert reg.match_names(ARAUCANIA[:2] + ["Santa Bárbara", "Arica"]).tolist() == ["09101", "09112", "08311",
                                                                                   "15101"]


def test_totals_and_unknown_labels_are_not_units(reg):
    for label in ("Total país", "TOTAL", "Región de Valparaíso", "Region de la Araucania", "Provincia de Cautín",
                  "Servicio de Salud Araucanía Sur", "Subtotal", "Chile", "País"):
        assert label_kind(label) == "aggregate", label
    for label in ("Ignorada", "Comuna ignorada", "Sin información", "Município ignorado - RO"):
        assert label_kind(label) == "unit_unknown", label
    assert reg.resolve_names(["Región de Valparaíso"])["match"].tolist() == ["aggregate"]
    with pytest.raises(InputError, match="'Región de Valparaíso' \\(fila 2\\) es una fila de total"):
        reg.match_names(["Región de Valparaíso"])


@pytest.mark.parametrize("country", ["CL", "BR"])
def test_no_official_name_looks_like_a_total(country):
    names = get_registry(country).units["name"]
    assert [n for n in names if label_kind(n) is not None] == []


def test_all_problems_listed_first_ones_shown_rest_counted(reg):
    names = [f"Nowhere{i:02d}" for i in range(MAX_SHOWN + 5)]
    with pytest.raises(InputError) as info:
        reg.match_names(names, source="many.csv", column="comuna")
    text = str(info.value)
    assert f"{MAX_SHOWN + 5} nombre(s)" in text and "'Nowhere19'" in text and "'Nowhere20'" not in text
    assert "... y 5 nombre(s) más" in text
    assert info.value.rows == list(range(2, MAX_SHOWN + 7))


def test_brazil_names_need_state_when_repeated():
    br = get_registry("BR")
    assert br.match_names(["Bom Jesus - PI", "Bom Jesus (SC)", "São Paulo", "sao paulo/SP"]).tolist() == [
        "220190", "420253", "355030", "355030"]
    with pytest.raises(InputError, match="Bom Jesus - PI") as info:
        br.match_names(["Bom Jesus"])
    assert "'Bom Jesus' (fila 2) puede ser más de una unidad" in str(info.value)
    assert "escriba el estado" in str(info.value)


def test_brazil_homonym_takes_the_state_of_the_file_and_says_so():
    br = get_registry("BR")
    names = ["Teresina", "Parnaíba", "Picos", "Floriano", "Bom Jesus"]
    out = br.resolve_names(names)
    assert out.attrs["region"] == "PI"
    assert out["unit"].tolist() == ["221100", "220770", "220800", "220390", "220190"]
    assert out["match"].iloc[-1] == "homonym_region"
    assert out["note"].iloc[-1] == "'Bom Jesus' está en 5 estados; se usó Bom Jesus - PI (220190), el estado del archivo"
    # a national file: the homonym stays ambiguous
    with pytest.raises(InputError, match="'Bom Jesus' \\(fila 5\\) puede ser más de una unidad"):
        br.match_names(["Teresina", "Curitiba", "Manaus", "Bom Jesus"])


def test_every_brazilian_municipality_matches_with_its_state():
    br = get_registry("BR")
    written = br.units["name"] + " - " + br.units["province_name"]
    assert br.match_names(written).tolist() == br.units["unit"].tolist()


@pytest.mark.parametrize("written, code", [("Embu", "351500"), ("Mogi Mirim - SP", "353080"),
                                           ("Brasópolis", "310890"), ("Santarém - PB", "251365"),
                                           ("Santarém", "150680"), ("Parati", "330380")])
def test_brazilian_variants_from_the_atlas_and_ibge(written, code):
    assert get_registry("BR").match_names([written]).tolist() == [code]


def test_known_alternative_names(reg):
    names = ["Puerto Natales", "San Vicente de Tagua Tagua", "Cabo de Hornos (Ex-Navarino)", "Rapa Nui",
             "Puerto Aysén", "Villa O'Higgins", "Santiago Centro"]
    assert reg.match_names(names).tolist() == ["12401", "06117", "12201", "05201", "11201", "11302", "13101"]


def test_missing_names_stay_missing(reg):
    import pandas as pd

    out = reg.match_names(pd.Series(["Temuco", None], index=[10, 11]))
    assert out.index.tolist() == [10, 11] and out[10] == "09101" and pd.isna(out[11])
