"""Ordinary tables: long or wide, with a column mapping, several files joined; errors name file/row/column."""
from __future__ import annotations

import pandas as pd
import pytest

from brecha.errors import InputError
from brecha.ingest.tables import read_long, read_tables, read_wide


def test_long_csv_with_mapping_keeps_codes_as_strings(tmp_path):
    f = tmp_path / "counts.csv"
    f.write_text("cod;anio;nv;def;pobreza\n01101;2010;3427;25;12,5\n01101;2011;3500;20;\n", encoding="latin-1")
    # a decimal comma in a ';' file is read as one (brecha.number_formats; refusals in tests/io)
    t = read_long(f, {"unit": "cod", "year": "anio", "births": "nv", "deaths": "def"})
    assert t["pobreza"].iloc[0] == 12.5 and t["pobreza"].isna().iloc[1]
    f.write_text("cod;anio;nv;def;pobreza\n01101;2010;3427;25;12.5\n01101;2011;3500;20;\n", encoding="latin-1")
    t = read_long(f, {"unit": "cod", "year": "anio", "births": "nv", "deaths": "def"})
    assert t["unit"].tolist() == ["01101", "01101"]
    assert t["births"].tolist() == [3427, 3500] and t["pobreza"].iloc[0] == 12.5


def test_wrong_mapping_names_the_option(tmp_path):
    f = tmp_path / "c.csv"
    f.write_text("unit,year,births,deaths\nA,2010,10,1\n")
    with pytest.raises(InputError) as err:
        read_long(f, {"births": "nacidos"})
    assert "nacidos" in str(err.value) and "--births-col" in str(err.value)


def test_wide_excel_and_long_csv_join_into_a_panel(tmp_path):
    births = pd.DataFrame({"codigo_comuna": ["13101", "13102"], "2010": [4503, 1236], "2011": [4400, 1200]})
    bfile = tmp_path / "births.xlsx"
    births.to_excel(bfile, index=False)
    deaths = tmp_path / "deaths.parquet"
    pd.DataFrame({"unit": ["13101", "13101", "13102", "13102"], "year": [2010, 2011, 2010, 2011],
                  "deaths": [30, 28, 9, 7]}).to_parquet(deaths)
    panel = read_tables([f"{bfile}=births", str(deaths)])
    assert panel.country == "CL"
    d = panel.data.set_index(["unit", "year"])
    assert d.loc[("13101", 2011), "births"] == 4400 and d.loc[("13102", 2010), "deaths"] == 9


def test_wide_table_without_variable_is_refused(tmp_path):
    f = tmp_path / "w.csv"
    f.write_text("unit,2010,2011\nA,1,2\n")
    with pytest.raises(InputError) as err:
        read_tables([str(f)])
    assert "FILE=births" in str(err.value) or "ARCHIVO=births" in str(err.value)
    long = read_wide(f, "births")
    assert long["year"].tolist() == [2010, 2011]


def test_the_same_variable_from_two_files_is_refused(tmp_path):
    a = tmp_path / "a.csv"
    b = tmp_path / "b.csv"
    a.write_text("unit,year,births,deaths\nA,2010,10,1\n")
    b.write_text("unit,year,births\nA,2010,11\n")
    with pytest.raises(InputError) as err:
        read_tables([str(a), str(b)], country=None)
    assert "births" in str(err.value) and "a.csv" in str(err.value)


def test_duplicate_rows_in_one_file_name_that_file(tmp_path):
    f = tmp_path / "dup.csv"
    f.write_text("unit,year,births,deaths\nA,2010,10,1\nA,2010,12,0\n")
    with pytest.raises(InputError) as err:
        read_long(f)
    assert "dup.csv" in str(err.value) and err.value.rows == [2, 3]


def test_empty_file(tmp_path):
    f = tmp_path / "empty.csv"
    f.write_text("")
    with pytest.raises(InputError) as err:
        read_long(f)
    assert "empty.csv" in str(err.value)


def test_units_from_names_with_spelling_variants(tmp_path):
    f = tmp_path / "by_name.csv"
    f.write_text("comuna,anio,nacidos_vivos,deaths\nAISEN,2010,400,3\nLlaillay,2010,300,2\n"
                 "Calera,2010,700,5\nPaihuano,2010,50,0\nÑuñoa,2010,2500,9\n", encoding="utf-8")
    t = read_long(f, {"name": "comuna", "country": "CL"})
    assert t["unit"].tolist() == ["11201", "05703", "05502", "04105", "13120"]


def test_ambiguous_or_unknown_names_are_all_listed(tmp_path):
    f = tmp_path / "names.csv"
    f.write_text("comuna,anio,births,deaths\nSanta,2010,1,0\nNarnia,2010,1,0\nTemuco,2010,5,0\n")
    with pytest.raises(InputError) as err:
        read_long(f, {"name": "comuna", "country": "CL"})
    text = str(err.value)
    assert "Narnia" in text and "Santa" in text and "Santa Cruz" in text and "names.csv" in text


def test_errors_give_the_files_real_rows_after_a_blank_line(tmp_path):
    f = tmp_path / "gap.csv"
    f.write_text("comuna,anio,births,deaths\nTemuco,2010,5,0\n\nSanta,2010,1,0\n")
    with pytest.raises(InputError) as err:
        read_long(f, {"name": "comuna", "country": "CL"})
    assert err.value.rows == [4]
    g = tmp_path / "gap2.csv"
    g.write_text("unit,year,births,deaths\n09101,2010,5,0\n\n09101,2010,7,1\n")
    with pytest.raises(InputError) as err:
        read_long(g)
    assert err.value.rows == [2, 4] and err.value.column == "unit, year"


def test_wide_excel_bad_cell_names_its_year_column_and_row(tmp_path):
    f = tmp_path / "wide.xlsx"
    pd.DataFrame({"codigo_comuna": ["9101", "13101"], "2010": [3000, -4], "2011": [3100, 4400]}).to_excel(f, index=False)
    with pytest.raises(InputError) as err:
        read_wide(f, "births")
    assert err.value.rows == [3] and err.value.column == "2010" and "wide.xlsx" in str(err.value)


def test_a_year_mapping_does_not_stop_a_wide_file(tmp_path):
    births = pd.DataFrame({"codigo_comuna": ["13101"], "2010": [4503], "2011": [4400]})
    bfile = tmp_path / "births.xlsx"
    births.to_excel(bfile, index=False)
    deaths = tmp_path / "deaths.csv"
    deaths.write_text("codigo_comuna,anio,deaths\n13101,2010,30\n13101,2011,28\n")
    panel = read_tables([f"{bfile}=births", str(deaths)], {"year": "anio"})
    d = panel.data.set_index("year")
    assert d.loc[2011, "births"] == 4400 and d.loc[2010, "deaths"] == 30
