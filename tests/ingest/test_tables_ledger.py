"""`brecha ingest table`: names never go silently to another unit, and every row read is in the ledger.

The files are a user's own: written to disk, read back through the CLI (in-process) and the Python API.
"""
from __future__ import annotations

import json
import warnings

import pandas as pd
import pytest

from brecha.cli.main import main
from brecha.errors import BrechaWarning, InputError
from brecha.i18n import set_language
from brecha.ingest.ledger import Ledger
from brecha.ingest.tables import ingest_tables, read_tables

# A commune file of La Araucanía as an analyst types it: accents dropped, a blank line, a typo, a hospital
# label, a commune of another region, totals and the source's unknown commune.
ARAUCANIA = """comuna,anio,nacidos_vivos,defunciones_infantiles
TEMUCO,2020,3000,20
Padre las Casas,2020,800,5
Villarrica,2020,600,4
Angol,2020,500,3

Pucon,2020,300,1
Temuko,2021,10,0
Hospital de Lautaro,2020,5,0
Santa Bárbara,2020,100,1
Total Región de La Araucanía,2020,5315,34
Total país,2020,180000,1200
Comuna ignorada,2020,3,0
"""


@pytest.fixture(autouse=True)
def spanish():
    set_language("es")
    yield
    set_language("es")


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def run(argv, capsys):
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("lang", ["es", "en"])
def test_typos_long_labels_and_wrong_region_stop_with_every_problem(tmp_path, capsys, lang):
    src = write(tmp_path, "araucania.csv", ARAUCANIA)
    out = tmp_path / "panel.csv"
    code, stdout, err = run(["--lang", lang, "ingest", "table", str(src), "--name-col", "comuna", "-o", str(out)],
                            capsys)
    assert code == 2 and not out.exists() and not (tmp_path / "panel.ledger.csv").exists()
    if lang == "es":
        assert f"Error: archivo {src}; filas 8, 9, 10; columna 'comuna': 3 nombre(s) no se pueden asociar" in err
        assert ("'Temuko' (fila 8) no es un nombre oficial ni una variante conocida; parecido a: Temuco (09101, "
                "Región de La Araucanía)") in err
        assert "'Hospital de Lautaro' (fila 9) no es un nombre oficial" in err and "Lautaro (09108" in err
        assert ("'Santa Bárbara' (fila 10) sería Santa Bárbara (08311, Región del Bío-Bío), de otra región que "
                "las demás filas del archivo (Región de La Araucanía)") in err
        assert "--match approximate" in err
    else:
        assert f"Error: file {src}; rows 8, 9, 10; column 'comuna': 3 name(s) cannot be matched safely" in err
        assert "'Temuko' (row 8) is not an official name nor a known variant; close to: Temuco (09101" in err
        assert "'Santa Bárbara' (row 10) would be Santa Bárbara (08311, Región del Bío-Bío), in another region" in err
        assert "to accept approximate matches use --match approximate" in err
    # approximate matching does not lift the region rule
    code, _, err = run(["--lang", lang, "ingest", "table", str(src), "--name-col", "comuna", "--match",
                        "approximate", "-o", str(out)], capsys)
    assert code == 2 and not out.exists()
    assert ("1 nombre(s)" if lang == "es" else "1 name(s)") in err and "Santa Bárbara (08311" in err
    assert "Temuko" not in err


@pytest.mark.parametrize("lang", ["es", "en"])
def test_approximate_matches_are_printed_and_kept_in_the_ledger(tmp_path, capsys, lang):
    src = write(tmp_path, "araucania.csv", ARAUCANIA.replace("Santa Bárbara", "Lonquimay"))
    out = tmp_path / "panel.csv"
    code, stdout, err = run(["--lang", lang, "ingest", "table", str(src), "--name-col", "comuna", "--match",
                             "approximate", "-o", str(out)], capsys)
    assert code == 0, err
    if lang == "es":
        assert "'Temuko' leído como Temuco (09101, Región de La Araucanía) (coincidencia aproximada)" in stdout
        assert "'Hospital de Lautaro' leído como Lautaro (09108, Región de La Araucanía)" in stdout
        assert ("2 fila(s) excluida(s), fila de total o agregado (Total país, Región de ...): "
                "'Total Región de La Araucanía' (11), 'Total país' (12)") in stdout
        assert "filas leídas" in stdout and "Guardado:" in stdout
    else:
        assert "'Temuko' read as Temuco (09101, Región de La Araucanía) (approximate match)" in stdout
        assert "1 row(s) excluded, unit unknown to the source (Ignorada, 99999): 'Comuna ignorada' (13)" in stdout
        assert "rows read" in stdout and "Saved:" in stdout
    panel = pd.read_csv(out, dtype={"unit": str})
    assert sorted(zip(panel["unit"], panel["year"], panel["births"])) == [
        ("09101", 2020, 3000), ("09101", 2021, 10), ("09108", 2020, 5), ("09112", 2020, 800),
        ("09115", 2020, 300), ("09120", 2020, 600), ("09201", 2020, 500), ("09205", 2020, 100)]
    ledger = Ledger.beside(out)
    totals = ledger.totals().iloc[0]
    assert (totals["rows_read"], totals["counted"], totals["excluded"]) == (12, 8, 4)
    assert ledger.by_reason() == {"table_row": 6, "table_row_approximate": 2, "aggregate_row": 2,
                                  "unit_unknown_in_source": 1, "blank_row": 1}
    frame = pd.read_csv(tmp_path / "panel.ledger.csv", dtype=str)
    approx = frame[frame["reason"] == "table_row_approximate"].iloc[0]
    assert approx["lines"] == "8 9" and "'Temuko'" in approx["detail"] and "Lautaro (09108" in approx["detail"]
    assert frame.loc[frame["reason"] == "blank_row", "lines"].tolist() == ["6"]
    payload = json.loads((tmp_path / "panel.ledger.json").read_text(encoding="utf-8"))
    assert payload["totals"] == [{"file": str(src), "kind": "table", "rows_read": 12, "counted": 8, "excluded": 4}]


def test_a_table_keyed_by_codes_loses_its_totals_and_unknown_codes_with_a_count(tmp_path, capsys):
    src = write(tmp_path, "codigos.csv",
                "codigo_comuna,nombre_comuna,anio,nacidos_vivos,deaths\n"
                "09101,Temuco,2020,3000,20\n9112,Padre Las Casas,2020,800,5\n\n"
                "99999,Ignorada,2020,4,0\n,Total país,2020,180000,1200\nTotal,,2021,180000,1200\n")
    out = tmp_path / "panel.parquet"
    code, stdout, err = run(["--lang", "en", "ingest", "table", str(src), "-o", str(out)], capsys)
    assert code == 0, err
    assert "1 row(s) excluded, unit unknown to the source (Ignorada, 99999): '99999' (5)" in stdout
    assert "2 row(s) excluded, total or aggregate row (Total país, Región de ...): 'Total país' (6), 'Total' (7)" in stdout
    assert pd.read_parquet(out)["births"].tolist() == [3000, 800]
    totals = Ledger.beside(out).totals().iloc[0]
    assert (totals["rows_read"], totals["counted"], totals["excluded"]) == (6, 2, 4)
    assert Ledger.beside(out).by_reason() == {"table_row": 2, "aggregate_row": 2, "unit_unknown_in_source": 1,
                                              "blank_row": 1}


def test_wide_excel_with_a_blank_row_and_a_total_row(tmp_path, capsys):
    src = tmp_path / "nacimientos.xlsx"
    pd.DataFrame({"codigo_comuna": ["09101", None, "09112", "Total región"], "2019": [3100, None, 820, 3920],
                  "2020": [3000, None, 800, 3800]}).to_excel(src, index=False)
    deaths = write(tmp_path, "defunciones.csv", "codigo_comuna,anio,deaths\n09101,2019,21\n09101,2020,20\n"
                   "09112,2019,6\n09112,2020,5\n")
    out = tmp_path / "panel.csv"
    code, stdout, err = run(["ingest", "table", f"{src}=births", str(deaths), "-o", str(out), "--quiet"], capsys)
    assert code == 0, err
    assert "Registro de filas" not in stdout    # --quiet: no ledger printed, still saved
    totals = Ledger.beside(out).totals().set_index("file")
    assert totals.loc[str(src)].tolist() == ["table", 4, 2, 2]
    assert totals.loc[str(deaths)].tolist() == ["table", 4, 4, 0]
    panel = pd.read_csv(out, dtype={"unit": str})
    assert panel["births"].sum() == 3100 + 3000 + 820 + 800 and panel["deaths"].sum() == 52


def test_brazilian_homonym_takes_the_files_state_and_says_so(tmp_path, capsys):
    src = write(tmp_path, "piaui.csv", "municipio,ano,nascidos_vivos,obitos_infantis\nTeresina,2019,13000,150\n"
                "Parnaíba,2019,2300,30\nPicos,2019,1000,12\nFloriano,2019,900,10\nBom Jesus,2019,400,5\n"
                "Município ignorado - PI,2019,3,0\n")
    out = tmp_path / "pi.csv"
    code, stdout, err = run(["--lang", "en", "ingest", "table", str(src), "--name-col", "municipio", "--country",
                             "BR", "-o", str(out)], capsys)
    assert code == 0, err
    assert "'Bom Jesus' is in 5 states; Bom Jesus - PI (220190) was used, the file's state" in stdout
    assert "220190" in pd.read_csv(out, dtype={"unit": str})["unit"].tolist()
    assert Ledger.beside(out).by_reason() == {"table_row": 4, "table_row_homonym_region": 1,
                                              "unit_unknown_in_source": 1}
    # the same name in a file spread over the country: refused, with the candidates and their states
    national = write(tmp_path, "brasil.csv", "municipio,ano,nascidos_vivos,obitos_infantis\n"
                     "Curitiba,2019,20000,150\nManaus,2019,40000,500\nBom Jesus,2019,400,5\n")
    code, _, err = run(["--lang", "en", "ingest", "table", str(national), "--name-col", "municipio", "--country",
                        "BR", "-o", str(tmp_path / "br.csv")], capsys)
    assert code == 2
    assert "'Bom Jesus' (row 4) may be more than one unit: Bom Jesus - PI (220190), Bom Jesus - RN (240170)" in err
    assert "in Brazil write the state: 'Bom Jesus - PI'" in err


def test_python_api_approximate_keyword_warns_for_each_match(tmp_path):
    src = write(tmp_path, "a.csv", "comuna,anio,births,deaths\nTemuco,2020,3000,20\nAngol,2020,500,3\n"
                "Victoria,2020,400,2\nVilcun,2020,300,1\nCuracautn,2020,200,1\n")
    with pytest.raises(InputError) as info:
        read_tables([str(src)], {"name": "comuna"})
    assert info.value.rows == [6] and "Curacautín (09203, Región de La Araucanía)" in str(info.value)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        panel, ledger = ingest_tables([str(src)], {"name": "comuna"}, match="approximate")
    messages = [str(w.message) for w in caught if issubclass(w.category, BrechaWarning)]
    assert messages == [f"{src}: 'Curacautn' leído como Curacautín (09203, Región de La Araucanía) "
                        "(coincidencia aproximada)"]
    assert sorted(panel.unit_codes) == ["09101", "09119", "09201", "09203", "09211"]
    assert ledger.by_reason() == {"table_row": 4, "table_row_approximate": 1}
    with pytest.raises(InputError, match="modo de coincidencia 'fuzzy' desconocido"):
        read_tables([str(src)], {"name": "comuna"}, match="fuzzy")


def test_known_variants_are_exact_and_listed_in_the_ledger(tmp_path, capsys):
    src = write(tmp_path, "variantes.csv", "comuna,anio,births,deaths\nAISEN,2010,400,3\nLlay-Llay,2010,300,2\n"
                "La Calera,2010,700,5\nPaiguano,2010,50,0\nÑuñoa,2010,2500,9\n")
    out = tmp_path / "v.csv"
    code, stdout, err = run(["--lang", "en", "ingest", "table", str(src), "--name-col", "comuna", "-o", str(out)],
                            capsys)
    assert code == 0, err
    ledger = Ledger.beside(out)
    assert ledger.by_reason() == {"table_row_variant": 4, "table_row": 1}
    detail = ledger.to_frame("en").set_index("reason").loc["table_row_variant", "detail"]
    assert "AISEN -> Aysén (11201, Región de Aysén" in detail and "Paiguano -> Paihuano (04105" in detail


def test_many_unknown_names_one_error_first_ones_shown(tmp_path, capsys):
    lines = ["comuna,anio,births,deaths"] + [f"Lugar {i},2020,10,0" for i in range(30)]
    src = write(tmp_path, "lugares.csv", "\n".join(lines) + "\n")
    code, _, err = run(["--lang", "en", "ingest", "table", str(src), "--name-col", "comuna", "-o",
                        str(tmp_path / "x.csv")], capsys)
    assert code == 2
    assert "30 name(s) cannot be matched" in err and "'Lugar 19' (row 21)" in err and "'Lugar 20'" not in err
    assert "... and 10 more name(s)" in err and "rows 2, 3, 4" in err and "(+10 more)" in err


@pytest.mark.parametrize("lang", ["es", "en"])
def test_every_bad_cell_of_a_file_in_one_run(tmp_path, capsys, lang):
    lines = ["unit,year,births,deaths"] + [f"09101,{1900 + i},100,1" for i in range(120)]
    lines[56] = "09101,2055,-4,1"
    lines[82] = "09101,20x0,100,1"
    lines[100] = "09101,2099,100,tres"
    src = write(tmp_path, "tres.csv", "\n".join(lines) + "\n")
    code, _, err = run(["--lang", lang, "ingest", "table", str(src), "-o", str(tmp_path / "p.csv")], capsys)
    assert code == 2 and not (tmp_path / "p.csv").exists()
    if lang == "es":
        assert f"archivo {src}; filas 57, 83, 101: 3 problemas en el archivo" in err
        assert "columna 'births': conteos negativos: -4 (fila 57)" in err
        assert "columna 'year': año no entero: '20x0' (fila 83)" in err
        assert "columna 'deaths'" in err and "'tres' (fila 101)" in err
    else:
        assert f"file {src}; rows 57, 83, 101: 3 problems in the file" in err
        assert "column 'births': negative counts: -4 (row 57)" in err and "'tres' (row 101)" in err


def test_thirty_bad_counts_first_ones_listed_rest_counted(tmp_path):
    lines = ["unit,year,births,deaths"] + [f"09101,{1900 + i},{-1 if i < 30 else 100},1" for i in range(60)]
    src = write(tmp_path, "neg.csv", "\n".join(lines) + "\n")
    with pytest.raises(InputError) as info:
        read_tables([str(src)])
    assert info.value.rows == list(range(2, 32))
    text = str(info.value)
    assert "filas 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21 (y 10 más)" in text
    assert "-1 (fila 9) (y 22 más)" in text and "-1 (fila 10)" not in text   # 8 cells shown, the rest counted


@pytest.mark.parametrize("lang, words", [("en", "row 14; column 'unit'"), ("es", "fila 14; columna 'unit'")])
def test_an_unknown_code_after_excluded_rows_is_named_by_its_line_in_the_file(tmp_path, capsys, lang, words):
    """A total row, a unit the source does not know (99999) and a blank line are excluded before the Panel
    checks the codes: the unknown code 09999 on line 14 of the file was reported as "row 11" (its position
    among the rows kept). It is named by its own line now."""
    lines = ["unit,year,births,deaths", "09101,2021,2871,18", "09102,2021,208,0", "09103,2021,152,0",
             "Total regional,2021,9860,56", "99999,2021,1,0", "", "09104,2021,95,0", "09105,2021,235,0",
             "09106,2021,112,0", "09107,2021,126,0", "09108,2021,399,1", "09109,2021,182,2", "09999,2021,5,0",
             "09110,2021,63,1"]
    path = tmp_path / "con_totales.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert lines[13].startswith("09999")  # line 14 of the file
    assert main(["--lang", lang, "ingest", "table", str(path), "-o", str(tmp_path / "p.csv")]) == 2
    err = capsys.readouterr().err
    assert words in err and "09999" in err, err
    assert not (tmp_path / "p.csv").exists()


def test_deis_argentina_rows_that_are_not_provinces_are_excluded_and_counted(tmp_path, capsys):
    """DEIS Argentina's yearbook tables carry the country (00), Gran Buenos Aires (GBA, a sum of partidos
    overlapping 02 and 06), residence abroad (98) and unknown (99) beside the 24 provinces. `ingest table`
    stopped on them as "codes unknown to the AR registry" (advising about old commune codes); they are now
    excluded and counted in the ledger, as Chile's and Brazil's totals and unknown units are, and the panel
    is the 24 provinces' own counts."""
    from brecha import datasets

    panel = datasets.argentina().data[["unit", "year", "births", "deaths"]].copy()
    years = sorted(panel["year"].unique())
    extra = []
    for year in years:
        part = panel[panel["year"] == year]
        extra += [{"unit": "00", "year": year, "births": int(part["births"].sum()) + 900,
                   "deaths": int(part["deaths"].sum()) + 9},
                  {"unit": "GBA", "year": year, "births": 1000, "deaths": 10},
                  {"unit": "98", "year": year, "births": 100, "deaths": 1},
                  {"unit": "99", "year": year, "births": 800, "deaths": 8}]
    raw = pd.concat([pd.DataFrame(extra), panel.astype({"births": "int64", "deaths": "int64"})])
    raw = raw.rename(columns={"year": "anio", "unit": "prov", "births": "nv", "deaths": "def"})
    path = tmp_path / "deis_argentina.csv"
    raw[["anio", "prov", "nv", "def"]].to_csv(path, index=False)
    out = tmp_path / "p.csv"
    assert main(["--lang", "en", "ingest", "table", str(path), "--unit-col", "prov", "--births-col", "nv",
                 "--deaths-col", "def", "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "(00; GBA)" in printed and "(98; 99)" in printed
    ledger = pd.read_csv(tmp_path / "p.ledger.csv").set_index("reason")["rows"]
    assert ledger["aggregate_row"] == 2 * len(years) and ledger["unit_unknown_in_source"] == 2 * len(years)
    got = pd.read_csv(out, dtype={"unit": str}).set_index(["unit", "year"]).sort_index()
    want = panel.astype({"unit": str}).set_index(["unit", "year"]).sort_index()
    assert got.index.equals(want.index) and (got["births"] == want["births"]).all()
    assert (got["deaths"] == want["deaths"]).all() and got.index.get_level_values(0).nunique() == 24
