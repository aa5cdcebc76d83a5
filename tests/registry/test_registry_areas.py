"""Regions and provinces named as users write them: codes, names without accents or 'Región de', known short
names; a name that only resembles an area is an error listing the candidates, never applied."""
from __future__ import annotations

import pytest

from brecha import datasets
from brecha.cli.main import main
from brecha.errors import InputError
from brecha.i18n import set_language


@pytest.fixture(scope="module")
def chile():
    return datasets.chile(covariates=False)


@pytest.fixture(autouse=True)
def english():
    set_language("en")
    yield
    set_language("es")


@pytest.mark.parametrize("level, value, code", [
    ("region", "Araucania", "09"), ("region", "REGION DE LA ARAUCANÍA", "09"), ("region", "la araucanía", "09"),
    ("region", "9", "09"), ("region", "09", "09"), ("region", "Los Lagos", "10"), ("region", "Ñuble", "16"),
    ("region", "Nuble", "16"), ("region", "Bio Bio", "08"), ("region", "Metropolitana", "13"),
    ("region", "O'Higgins", "06"), ("region", "Aisen", "11"), ("region", "Magallanes", "12"),
    ("province", "Cautin", "091"), ("province", "Provincia de Cautín", "091"), ("province", "91", "091"),
])
def test_an_area_by_code_or_tolerant_name(chile, level, value, code):
    sub = chile.subset(**{level: value})
    assert sub.units[level].unique().tolist() == [code]
    assert len(sub.unit_codes) == int((chile.units[level] == code).sum())


@pytest.mark.parametrize("value, candidates", [
    ("Arica", "15 Región de Arica y Parinacota"),
    ("Santiago", "13 Región Metropolitana de Santiago"),
    ("Los", "10 Región de Los Lagos, 14 Región de Los Ríos"),
])
def test_a_name_inside_another_is_an_error_listing_candidates(chile, value, candidates):
    with pytest.raises(InputError) as err:
        chile.subset(region=value)
    assert f"'{value}' is not the name of a region of the panel, but resembles: {candidates}" in str(err.value)
    assert err.value.argument == "region" and "write the code of the one you mean" in err.value.hint


def test_an_unknown_region_lists_the_panels_regions(chile):
    with pytest.raises(InputError) as err:
        chile.subset(region=["9", "Gotham"])
    assert "unknown region 'Gotham'; regions of the panel: 01 Región de Tarapacá" in str(err.value)


@pytest.mark.parametrize("lang, words", [
    ("en", "Error: option --region: 'Arica' is not the name of a region of the panel, but resembles: 15 Región "
           "de Arica y Parinacota. What to do: write the code of the one you mean (e.g. 15)"),
    ("es", "Error: opción --region: 'Arica' no es el nombre de una región del panel, pero se parece a: 15 Región "
           "de Arica y Parinacota. Qué hacer: escriba el código de la que quiere (p. ej. 15)"),
])
def test_region_names_through_the_cli(tmp_path, capsys, lang, words):
    """A panel file of the user's: `--region Araucania` (no accent) works; `--region Arica` names the option."""
    path = tmp_path / "p.csv"
    datasets.chile(covariates=False).subset(years=[2015]).to_file(path)
    out = tmp_path / "r.csv"
    assert main(["--lang", lang, "rates", str(path), "--region", "Araucania", "-o", str(out)]) == 0
    import pandas as pd

    assert pd.read_csv(out, dtype={"unit": str})["unit"].str.startswith("09").all()
    assert len(pd.read_csv(out)) == 32
    capsys.readouterr()
    assert main(["--lang", lang, "rates", str(path), "--region", "Arica"]) == 2
    assert words in capsys.readouterr().err
