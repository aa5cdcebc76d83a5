"""Locale-formatted numbers in the user's own files: read right when the file tells, refused (naming file, rows,
column and --decimal) when it does not; through read_panel, read_table, `brecha rates` and `brecha ingest table`,
in Spanish and English."""
from __future__ import annotations

import openpyxl
import pandas as pd
import pytest

from brecha.cli.main import main
from brecha.errors import InputError
from brecha.i18n import set_language
from brecha.io import read_table
from brecha.panel import read_panel


@pytest.fixture(autouse=True)
def spanish_afterwards():
    yield
    set_language("es")


def write(path, text: str):
    path.write_text(text, encoding="utf-8")
    return path


SPANISH = ("unit;year;births;deaths;population;poverty\n"
           "01101;2010;3.427;20;180.556;12,5\n"
           "01107;2010;1.851;9;1.098.765;8,25\n"
           "13101;2010;12;0;950;3\n")


def test_spanish_export_reads_thousands_dots_and_decimal_commas(tmp_path):
    p = read_panel(write(tmp_path / "es.csv", SPANISH))
    d = p.data.set_index("unit")
    assert d["births"].tolist() == [3427, 1851, 12]
    assert d["population"].tolist() == [180556.0, 1098765.0, 950.0]
    assert d["poverty"].tolist() == [12.5, 8.25, 3.0]


def test_population_180_556_alone_in_a_semicolon_file_is_thousands(tmp_path):
    """The issue's case: no other column tells; a population is a whole number, so '.' groups thousands."""
    path = write(tmp_path / "pop.csv", "unit;year;births;deaths;population\n01101;2010;3427;20;180.556\n"
                                       "01107;2010;1851;9;98.765\n")
    assert read_panel(path).data["population"].tolist() == [180556.0, 98765.0]


def test_english_file_with_thousands_commas(tmp_path):
    path = write(tmp_path / "en.csv", 'unit,year,births,deaths,population,poverty\n'
                                      '01101,2010,"3,427",20,"1,180,556",12.5\n01107,2010,1851,9,"98,765",8.25\n')
    d = read_panel(path).data
    assert d["births"].tolist() == [3427, 1851]
    assert d["population"].tolist() == [1180556.0, 98765.0] and d["poverty"].tolist() == [12.5, 8.25]


def test_comma_separated_file_keeps_point_decimals_with_three_digits(tmp_path):
    """A ','-separated CSV cannot hold unquoted decimal commas: 1.234 there is one point two three four."""
    path = write(tmp_path / "c.csv", "unit,year,births,deaths,poverty\n01101,2010,3427,20,1.234\n"
                                     "01107,2010,1851,9,2.345\n")
    assert read_panel(path).data["poverty"].tolist() == [1.234, 2.345]


def test_other_columns_of_the_file_settle_an_ambiguous_one(tmp_path):
    path = write(tmp_path / "f.csv", "unit;year;births;deaths;poverty;schooling\n01101;2010;3427;20;1.234;12,5\n"
                                     "01107;2010;1851;9;2.345;8\n")
    assert read_panel(path).data["poverty"].tolist() == [1234.0, 2345.0]


AMBIGUOUS = "unit;year;births;deaths;poverty\n01101;2010;3427;20;1.234\n01107;2010;1851;9;2.345\n"


def test_ambiguous_column_is_refused_naming_rows_column_and_option_in_both_languages(tmp_path, capsys):
    path = write(tmp_path / "amb.csv", AMBIGUOUS)
    with pytest.raises(InputError) as err:
        read_panel(path)
    assert err.value.rows == [2, 3] and err.value.column == "poverty" and err.value.file == str(path)
    assert main(["--lang", "en", "rates", str(path)]) == 2
    out = capsys.readouterr()
    assert out.out == "" and out.err.count("\n") == 1
    assert out.err.startswith(f"Error: file {path}; rows 2, 3; column 'poverty': numbers that read two ways: "
                              "'1.234' (row 2) = 1234 if '.' separates thousands, 1.234 if it is the decimal mark")
    assert "--decimal ," in out.err and "--decimal ." in out.err
    assert main(["--lang", "es", "rates", str(path)]) == 2
    err_es = capsys.readouterr().err
    assert err_es.startswith(f"Error: archivo {path}; filas 2, 3; columna 'poverty': números que se leen de dos "
                             "maneras: '1.234' (fila 2) = 1234 si '.' separa miles, 1,234 si es decimal")
    assert "indique la convención: --decimal ," in err_es


@pytest.mark.parametrize("decimal, expected", [(",", [1234.0, 2345.0]), (".", [1.234, 2.345])])
def test_decimal_option_settles_it_in_python_and_on_the_command_line(tmp_path, capsys, decimal, expected):
    path = write(tmp_path / "amb.csv", AMBIGUOUS)
    assert read_panel(path, decimal=decimal).data["poverty"].tolist() == expected
    out = tmp_path / "panel.csv"
    assert main(["--lang", "en", "rates", str(path), "--decimal", decimal]) == 0
    assert "01101" in capsys.readouterr().out
    assert main(["--lang", "en", "ingest", "table", str(path), "--decimal", decimal, "-o", str(out)]) == 0
    assert pd.read_csv(out)["poverty"].tolist() == expected


def test_decimal_option_against_the_file_is_refused(tmp_path):
    path = write(tmp_path / "d.csv", "unit;year;births;deaths;poverty\n01101;2010;3427;20;12,5\n"
                                     "01107;2010;1851;9;8\n")
    set_language("en")
    with pytest.raises(InputError) as err:
        read_panel(path, decimal=".")
    assert err.value.rows == [2] and err.value.column == "poverty"
    assert "numbers written with decimal ',' ('12,5' (row 2)), but --decimal . was given" in str(err.value)


def test_mixed_decimal_marks_in_one_column_are_refused(tmp_path):
    set_language("en")
    path = write(tmp_path / "m.csv", "unit;year;births;deaths;poverty\n01101;2010;3427;20;12,5\n"
                                     "01107;2010;1851;9;8.75\n")
    with pytest.raises(InputError) as err:
        read_panel(path)
    assert err.value.column == "poverty"
    assert "mixes decimal points ('8.75' (row 3)) and decimal commas ('12,5' (row 2))" in str(err.value)


def test_count_that_cannot_be_whole_either_way_is_still_refused(tmp_path):
    set_language("en")
    path = write(tmp_path / "r.csv", "unit;year;births;deaths\n01101;2010;3427;2,5\n01107;2010;1851;9\n")
    with pytest.raises(InputError) as err:
        read_panel(path)
    assert err.value.column == "deaths" and err.value.rows == [2] and "not whole numbers: 2.5" in str(err.value)


def test_codes_keep_leading_zeros_and_words_stay_text(tmp_path):
    path = write(tmp_path / "t.csv", "region;unit;year;births;deaths;name\n05;01101;2010;3.427;20;Iquique\n"
                                     "13;01107;2010;1.851;9;Alto Hospicio\n")
    t = read_table(path)
    assert t["region"].tolist() == ["05", "13"] and t["unit"].tolist() == ["01101", "01107"]
    assert t["births"].tolist() == [3427, 1851] and t["name"].tolist() == ["Iquique", "Alto Hospicio"]
    assert t.attrs["decimal"] == {"births": ","}


def test_excel_cells_stored_as_text_are_read_by_the_same_rules(tmp_path):
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(["unit", "year", "births", "deaths", "population", "poverty"])
    sheet.append(["01101", 2010, "3.427", 20, "180.556", "12,5"])   # text cells, as a Spanish Excel keeps them
    sheet.append(["01107", 2010, 1851, 9, 98765, 8.25])               # number cells
    path = tmp_path / "text_cells.xlsx"
    book.save(path)
    d = read_panel(path).data
    assert d["births"].tolist() == [3427, 1851] and d["population"].tolist() == [180556.0, 98765.0]
    assert d["poverty"].tolist() == [12.5, 8.25]


def test_excel_text_cells_that_read_two_ways_are_refused(tmp_path):
    set_language("en")
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(["unit", "year", "births", "deaths", "poverty"])
    sheet.append(["01101", 2010, 3427, 20, "1.234"])
    sheet.append(["01107", 2010, 1851, 9, 2.5])
    path = tmp_path / "amb.xlsx"
    book.save(path)
    with pytest.raises(InputError) as err:
        read_panel(path)
    assert err.value.rows == [2] and err.value.column == "poverty" and "read two ways" in str(err.value)
    assert read_panel(path, decimal=",").data["poverty"].tolist() == [1234.0, 2.5]


def test_ingest_table_reads_a_spanish_wide_table_of_counts(tmp_path):
    path = write(tmp_path / "nac.csv", "codigo_comuna;2010;2011\n01101;3.427;3.500\n01107;1.851;1.900\n")
    deaths = write(tmp_path / "def.csv", "codigo_comuna;2010;2011\n01101;20;21\n01107;9;8\n")
    out = tmp_path / "panel.csv"
    assert main(["--lang", "en", "ingest", "table", f"{path}=births", f"{deaths}=deaths", "-o", str(out)]) == 0
    got = pd.read_csv(out, dtype={"unit": str}).sort_values(["unit", "year"])
    assert got["births"].tolist() == [3427, 3500, 1851, 1900]
