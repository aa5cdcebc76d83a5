"""`brecha ingest table`: every column of the user's file is used, read as percentages (and said so) or listed
as set aside; when no column holds codes, the message says which option to give (--name-col, --sheet).

The files are a user's own, written to disk and read back through the CLI (in-process), in both languages.
"""
from __future__ import annotations

import json

import pandas as pd
import pytest

from brecha.cli.main import main
from brecha.i18n import set_language

ROWS = [("09101", 2014, 4120, 32, "12,5%", "revisado"), ("09101", 2015, 4077, 38, "13%", "revisado"),
        ("09102", 2014, 328, 1, "1.234,5%", ""), ("09102", 2015, 300, 2, "", "falta")]


@pytest.fixture(autouse=True)
def spanish_afterwards():
    yield
    set_language("es")


def _spanish_export(path):
    """A ';' file as Excel in Spanish writes it: a percentage column and a column of remarks."""
    lines = ["comuna_cod;anio;nacidos_vivos;defunciones_infantiles;pobreza;comentario"]
    lines += [";".join(map(str, row)) for row in ROWS]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.mark.parametrize("lang, percent, aside", [
    ("en", "datos.csv: column 'pobreza' written as percentages (e.g. '12,5%'): read as numbers from 0 to 100, "
           "without the % sign",
     "datos.csv: columns not used, because they hold only text (not codes, years, counts or numeric "
     "covariates): comentario"),
    ("es", "datos.csv: columna 'pobreza' escrita como porcentaje (p. ej. '12,5%'): leída como número de 0 a 100, "
           "sin el signo %",
     "datos.csv: columnas no usadas, porque tienen solo texto (no son códigos, años, conteos ni covariables "
     "numéricas): comentario"),
])
@pytest.mark.parametrize("quiet", [False, True])
def test_percent_column_is_read_and_text_column_is_listed(tmp_path, monkeypatch, capsys, lang, percent, aside,
                                                          quiet):
    """Before: the '12,5%' column was dropped with no word in the output or the ledger."""
    monkeypatch.chdir(tmp_path)
    _spanish_export(tmp_path / "datos.csv")
    argv = ["--lang", lang, "ingest", "table", "datos.csv", "-o", "p.csv"] + (["--quiet"] if quiet else [])
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert f"* {percent}" in out and f"* {aside}" in out
    panel = pd.read_csv(tmp_path / "p.csv")
    assert panel["pobreza"].tolist()[:3] == [12.5, 13.0, 1234.5] and pd.isna(panel["pobreza"].iloc[3])
    assert "comentario" not in panel.columns
    notes = json.loads((tmp_path / "p.ledger.json").read_text(encoding="utf-8"))["notes"]
    assert notes == [percent, aside]


def test_a_column_with_some_percent_cells_is_not_guessed(tmp_path, capsys):
    """'12,5%' beside a plain '13': the column is refused naming the cell, not half-read."""
    path = tmp_path / "mixed.csv"
    path.write_text("unit;year;births;deaths;poverty\n09101;2014;100;1;12,5%\n09102;2014;90;0;13\n",
                    encoding="utf-8")
    assert main(["--lang", "en", "ingest", "table", str(path), "-o", str(tmp_path / "p.csv")]) == 2
    err = capsys.readouterr().err
    assert "poverty" in err and "12,5%" in err and "row 2" in err
    assert not (tmp_path / "p.csv").exists()


@pytest.mark.parametrize("lang, words", [
    ("en", "What to do: column 'comuna' holds unit names (e.g. 'Temuco'): give --name-col comuna; if a column "
           "holds codes, give it with --unit-col"),
    ("es", "Qué hacer: la columna 'comuna' tiene nombres de unidad (p. ej. 'Temuco'): indique --name-col comuna"),
])
def test_names_without_name_col_suggests_it(tmp_path, capsys, lang, words):
    path = tmp_path / "nombres.csv"
    path.write_text("comuna,anio,nacidos_vivos,defunciones_infantiles\nTemuco,2014,4120,32\nPadre Las Casas,"
                    "2014,900,6\nVilcún,2014,300,2\n", encoding="utf-8")
    assert main(["--lang", lang, "ingest", "table", str(path), "-o", str(tmp_path / "p.csv")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"Error: {'file' if lang == 'en' else 'archivo'} {path}") and words in err
    # and the suggestion works as written
    assert main(["--lang", lang, "ingest", "table", str(path), "--name-col", "comuna", "--country", "CL",
                 "-o", str(tmp_path / "p.csv")]) == 0
    assert pd.read_csv(tmp_path / "p.csv", dtype={"unit": str})["unit"].tolist() == ["09101", "09112", "09119"]  # Vilcún is 09119


@pytest.mark.parametrize("lang, words", [
    ("en", "What to do: the workbook has 2 sheets (notas, datos) and 'notas' was read: if the data are on "
           "another, give it with --sheet, e.g. --sheet datos"),
    ("es", "Qué hacer: el libro tiene 2 hojas (notas, datos) y se leyó 'notas': si los datos están en otra, "
           "indíquela con --sheet, p. ej. --sheet datos"),
])
def test_data_on_the_second_sheet_lists_the_sheets_and_suggests_sheet(tmp_path, capsys, lang, words):
    path = tmp_path / "libro.xlsx"
    with pd.ExcelWriter(path) as writer:
        pd.DataFrame({"nota": ["Fuente: DEIS", "2010-2014"]}).to_excel(writer, sheet_name="notas", index=False)
        pd.DataFrame({"unit": ["09101", "09102"], "year": [2014, 2014], "births": [4120, 328],
                      "deaths": [32, 1]}).to_excel(writer, sheet_name="datos", index=False)
    assert main(["--lang", lang, "ingest", "table", str(path), "-o", str(tmp_path / "p.csv")]) == 2
    err = capsys.readouterr().err
    assert str(path) in err and words in err
    assert main(["--lang", lang, "ingest", "table", str(path), "--sheet", "datos", "-o",
                 str(tmp_path / "p.csv")]) == 0
    assert pd.read_csv(tmp_path / "p.csv")["births"].sum() == 4448
