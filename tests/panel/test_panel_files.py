"""Panel files end to end: every kind of bad input from a CSV and an Excel file through `brecha panel FILE`,
in Spanish and English, with the file's real row numbers; warnings; exact round trips of `panel.to_file`."""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from brecha import datasets
from brecha.cli.main import main
from brecha.errors import BrechaWarning, InputError
from brecha.i18n import set_language
from brecha.panel import Panel, read_panel


@pytest.fixture(autouse=True)
def spanish_afterwards():
    yield
    set_language("es")


def good() -> pd.DataFrame:
    return pd.DataFrame({"unit": ["01101", "01101", "01107", "01107", "13101"],
                         "year": [2010, 2011, 2010, 2011, 2010],
                         "births": [1000, 1100, 500, 520, 9000], "deaths": [8, 9, 4, 5, 60],
                         "poverty": [10.5, 11.0, 20.1, 19.0, 5.0]})


def _bad(kind: str) -> pd.DataFrame:
    d = good().astype(object)
    if kind == "duplicate":
        d.loc[3, "year"] = 2010                       # 01107 2010 twice: data rows 3 and 4
    elif kind == "negative":
        d.loc[2, "births"] = -5
    elif kind == "fraction":
        d.loc[4, "deaths"] = 2.5
    elif kind == "text_count":
        d.loc[2, "births"] = "abc"
    elif kind == "unknown":
        d.loc[1, "unit"] = "99999"
        d.loc[3, "unit"] = "88888"
    elif kind == "covariate":
        d.loc[2, "poverty"] = "alto"
    elif kind == "missing":
        d = d.drop(columns=["deaths"])
    return d


def _write(d: pd.DataFrame, path):
    """CSV with a blank line after the first data row (so file rows != data index + 2); Excel as written."""
    if path.suffix == ".csv":
        lines = d.to_csv(index=False).splitlines()
        path.write_text("\n".join(lines[:2] + [""] + lines[2:]) + "\n")
        return 1  # data rows after the blank line move down by one
    d.to_excel(path, index=False)
    return 0


# kind -> (data row indices with the problem, column, English words, Spanish words)
CASES = {
    "duplicate": ([2, 3], "unit, year", "repeated (unit, year) pairs: '01107 2010'", "pares (unidad, año) repetidos"),
    "negative": ([2], "births", "negative counts: -5", "conteos negativos: -5"),
    "fraction": ([4], "deaths", "counts that are not whole numbers: 2.5", "conteos no enteros: 2.5"),
    "text_count": ([2], "births", "non-numeric values in a count: 'abc'", "valores no numéricos en un conteo: 'abc'"),
    "unknown": ([1, 3], "unit", "2 codes unknown to the Chile registry: 88888, 99999",
                "2 códigos desconocidos en el registro de Chile: 88888, 99999"),
    "covariate": ([2], "poverty", "non-numeric covariate: 'alto'", "covariable no numérica: 'alto'"),
    "missing": ([], None, "required columns deaths are missing", "faltan las columnas obligatorias deaths"),
}


@pytest.mark.parametrize("suffix", [".csv", ".xlsx"])
@pytest.mark.parametrize("kind", list(CASES))
def test_bad_file_names_file_real_rows_and_column_in_both_languages(tmp_path, capsys, kind, suffix):
    path = tmp_path / f"{kind}{suffix}"
    shift = _write(_bad(kind), path)
    index, column, english, spanish = CASES[kind]
    # file row = data index + 2 (header is row 1), + 1 after the CSV's blank line
    rows = [i + 2 + (shift if i >= 1 else 0) for i in index]
    for lang, words, file_word, row_word, todo in (("en", english, "file", "row", "What to do"),
                                                  ("es", spanish, "archivo", "fila", "Qué hacer")):
        assert main(["--lang", lang, "panel", str(path)]) == 2
        err = capsys.readouterr().err
        assert f"{file_word} {path}" in err and words in err and f"{todo}:" in err, err
        if column:
            assert f"'{column}'" in err
        if rows:
            listed = ", ".join(map(str, rows))
            assert (f"{row_word}s {listed}" if len(rows) > 1 else f"{row_word} {listed}") in err, err
            assert f"({row_word} {rows[0]})" in err or kind == "unknown", err


@pytest.mark.parametrize("suffix", [".csv", ".xlsx"])
def test_deaths_above_births_and_zero_births_warn_and_are_listed(tmp_path, capsys, suffix):
    d = good()
    d.loc[0, "deaths"] = 2000
    d.loc[4, ["births", "deaths"]] = 0
    path = tmp_path / f"w{suffix}"
    d.to_csv(path, index=False) if suffix == ".csv" else d.to_excel(path, index=False)
    assert main(["--lang", "en", "panel", str(path)]) == 0
    out = capsys.readouterr().out
    assert "1 unit-year with more deaths than births (e.g. 01101 2010)" in out   # one: singular
    assert "1 unit-year with 0 births: the rate is undefined" in out and "13101 2010" in out
    assert "Panel is valid." in out
    with pytest.warns(BrechaWarning) as record:
        p = read_panel(path)
    assert len(record) == 2 and len(p.warnings) == 2


def test_excel_codes_that_became_numbers_get_their_zeros_back(tmp_path):
    d = good()
    d["unit"] = d["unit"].astype(float)               # 1101.0, as Excel stores a code typed as a number
    path = tmp_path / "numbers.xlsx"
    d.to_excel(path, index=False)
    p = read_panel(path)
    assert p.country == "CL" and p.unit_codes == ["01101", "01107", "13101"]
    assert p.data["unit"].dtype == object or str(p.data["unit"].dtype) in ("str", "string")


def test_brazilian_seven_digit_codes_are_accepted(tmp_path):
    path = tmp_path / "br.csv"
    path.write_text("unit,year,births,deaths\n3550308,2010,170000,1900\n1100015,2010,400,6\n")
    p = read_panel(path)
    assert p.country == "BR" and p.unit_codes == ["110001", "355030"]
    assert p.units.set_index("unit").loc["355030", "name"] == "São Paulo"


def _roundtrip_panel() -> Panel:
    chile = datasets.chile().subset(years=[2010, 2011])  # real covariates with full float precision
    return chile


@pytest.mark.filterwarnings("ignore::brecha.errors.BrechaWarning")
@pytest.mark.parametrize("suffix", [".csv", ".parquet", ".json", ".xlsx"])
def test_to_file_then_read_panel_round_trips(tmp_path, suffix):
    p = _roundtrip_panel()
    path = tmp_path / f"panel{suffix}"
    p.to_file(path)
    q = read_panel(path)
    assert q.country == "CL" and q.data.columns.tolist() == p.data.columns.tolist()
    assert q.data.dtypes.astype(str).tolist() == p.data.dtypes.astype(str).tolist()
    assert q.data["unit"].str.len().eq(5).all() and q.data["unit"].iloc[0] == "01101"
    # .xlsx keeps 15 significant digits (Excel's own precision); the other formats are bit-exact
    pd.testing.assert_frame_equal(q.data, p.data, check_exact=suffix != ".xlsx", rtol=1e-14)


@pytest.mark.parametrize("suffix", [".csv", ".parquet", ".json", ".xlsx"])
def test_round_trip_keeps_leading_zeros_and_missing_counts_without_a_registry(tmp_path, suffix):
    p = Panel(pd.DataFrame({"unit": ["001", "002", "010"], "year": [2010] * 3,
                            "births": pd.array([10, 20, pd.NA], dtype="Int64"), "deaths": [1, 0, 2],
                            "x": [1 / 3, np.nan, 2.5e-7]}))
    path = tmp_path / f"s{suffix}"
    p.to_file(path)
    q = read_panel(path, country=None)
    pd.testing.assert_frame_equal(q.data, p.data, check_exact=suffix != ".xlsx", rtol=1e-14)


def test_embedded_data_records_its_warnings_without_emitting_them():
    with warnings.catch_warnings():
        warnings.simplefilter("error", BrechaWarning)
        chile = datasets.chile()
    assert any("43" in w and "0" in w for w in chile.warnings)
    # the same data from a user's file still warns
    with pytest.warns(BrechaWarning, match="43"):
        Panel(chile.data[["unit", "year", "births", "deaths"]], country="CL")


def test_unknown_example_is_refused_in_both_languages():
    import brecha

    for lang, words in (("en", "unknown example 'peru'"), ("es", "ejemplo 'peru' desconocido")):
        set_language(lang)
        with pytest.raises(InputError, match=words):
            brecha.read_panel("example:peru")
        with pytest.raises(InputError, match=words):
            datasets.example("Peru")


def test_examples_are_read_above_the_panel():
    """brecha.read_panel reads "example:chile" (brecha.datasets, above the Panel); brecha.panel.read_panel
    reads files only and says where the examples are, in both languages."""
    import brecha

    chile = brecha.read_panel("example:CL")
    assert (len(chile.unit_codes), chile.years[0], chile.years[-1], chile.source) == (346, 2000, 2015,
                                                                                       "brecha.datasets.chile")
    assert int(chile.data["deaths"].sum()) == int(datasets.chile().data["deaths"].sum())
    assert len(datasets.example("brasil").unit_codes) == 5570
    for lang, words, hint in (("en", "'example:chile' names an embedded example, not a panel file",
                               "read it with brecha.read_panel('example:chile') or brecha.datasets.example('chile')"),
                              ("es", "'example:chile' nombra un ejemplo incluido, no un archivo de panel",
                               "léalo con brecha.read_panel('example:chile') o brecha.datasets.example('chile')")):
        set_language(lang)
        with pytest.raises(InputError) as caught:
            read_panel("example:chile")
        assert words in str(caught.value) and hint in str(caught.value)


def test_example_brazil_summary(capsys):
    assert main(["--lang", "en", "panel", "--example", "brazil"]) == 0
    out = capsys.readouterr().out
    assert "5570 units, years 2000-2019, 111400 rows, country BR" in out
    assert "SINASC" in out and "Panel is valid." in out


@pytest.mark.filterwarnings("ignore::brecha.errors.BrechaWarning")
def test_spanish_excel_csv_export_of_a_real_panel_reads_back_the_same_numbers(tmp_path, capsys):
    """The real Chile panel as a Spanish Excel saves it as CSV: ';' separator, thousands '.', decimal ','.
    read_panel and `brecha rates` give the numbers of the original panel."""
    p = datasets.chile().subset(years=[2010])
    d = p.data.copy()
    lines = [";".join(d.columns)]
    for row in d.itertuples(index=False):
        cells = []
        for col, value in zip(d.columns, row):
            if pd.isna(value):
                cells.append("")
            elif col in ("unit", "year"):
                cells.append(str(value))
            elif col in ("births", "deaths") or col.startswith("population"):
                cells.append(f"{int(value):,}".replace(",", "."))
            else:
                cells.append(repr(float(value)).replace(".", ","))
        lines.append(";".join(cells))
    path = tmp_path / "chile_es.csv"
    path.write_text("\n".join(lines) + "\n", encoding="cp1252")
    assert any("." in line.split(";")[2] for line in lines[1:])  # births above 999 have a thousands dot
    q = read_panel(path)
    pd.testing.assert_frame_equal(q.data, p.data, check_exact=True)
    assert main(["--lang", "en", "rates", str(path), "-o", str(tmp_path / "r.csv")]) == 0
    assert main(["--lang", "en", "rates", "--example", "chile", "--years", "2010", "-o",
                 str(tmp_path / "e.csv")]) == 0
    capsys.readouterr()
    mine, example = pd.read_csv(tmp_path / "r.csv"), pd.read_csv(tmp_path / "e.csv")
    pd.testing.assert_frame_equal(mine[["unit", "events", "births", "estimate"]],
                                  example[["unit", "events", "births", "estimate"]])


def test_panel_file_with_repeated_column_or_ragged_rows_is_one_message(tmp_path, capsys):
    path = tmp_path / "p.csv"
    path.write_text("unit,year,births,deaths,deaths\n01101,2010,1000,8,9\n")
    for lang, words in (("en", "repeated column names: 'deaths' (columns D, E)"),
                        ("es", "nombres de columna repetidos: 'deaths' (columnas D, E)")):
        assert main(["--lang", lang, "panel", str(path)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and words in err


@pytest.mark.parametrize("lang, words", [
    ("en", "2 unit-years without a count (deaths or births empty) are left out of every rate and of the totals "
           "they belong to (e.g. 01101 2011 (deaths), 01107 2010 (births))"),
    ("es", "2 unidad-años sin conteo (defunciones o nacimientos vacíos) quedan fuera de toda tasa y de los totales "
           "a que pertenecen (p. ej. 01101 2011 (defunciones), 01107 2010 (nacimientos))"),
])
def test_empty_counts_are_warned_about_naming_the_unit_years_not_left_out_silently(tmp_path, capsys, lang, words):
    """A count written as n/a, NA or left empty is a missing count (as Brazil's <NA>): the unit-year leaves
    every rate and every total it belongs to. It used to leave them without a word (a region's pooled total
    lost a commune-year's deaths, flag empty); the command now says which, whatever the file's spelling."""
    d = good().astype(object)
    d.loc[1, "deaths"] = "n/a"
    d.loc[2, "births"] = ""
    path = tmp_path / "na.csv"
    d.to_csv(path, index=False)
    assert main(["--lang", lang, "rates", str(path), "--pool", "--level", "country", "-o", str(tmp_path / "r.csv")]) == 0
    assert words in capsys.readouterr().err
    total = pd.read_csv(tmp_path / "r.csv")
    assert total["events"].iloc[0] == 8 + 5 + 60 and total["births"].iloc[0] == 1000 + 520 + 9000


@pytest.mark.parametrize("lang, words", [
    ("en", "column(s) 'comuna', 'nota' hold text and no number (names?): left out of the covariates"),
    ("es", "columna(s) 'comuna', 'nota' con texto y ningún número (¿nombres?): se dejan fuera de las covariables"),
])
def test_a_column_of_names_is_set_aside_not_an_error_and_a_typo_among_numbers_still_is(tmp_path, capsys, lang,
                                                                                         words):
    """A user's file often carries the communes' names ('comuna', 'nombre_comuna'): every analysis command
    refused it as a "non-numeric covariate" listing every row. A column with text and no number is set aside
    with a warning (as `ingest table` does); a covariate with numbers and one word is still an error naming
    the row."""
    d = good()
    d["comuna"] = ["Iquique", "Iquique", "Alto Hospicio", "Alto Hospicio", "Santiago"]
    d["nota"] = ["", "revisar", "", "", ""]
    path = tmp_path / "con_nombres.csv"
    d.to_csv(path, index=False)
    assert main(["--lang", lang, "rates", str(path), "--pool", "-o", str(tmp_path / "r.csv")]) == 0
    assert words in capsys.readouterr().err
    with pytest.warns(BrechaWarning):
        p = read_panel(path)
    assert "comuna" not in p.data.columns and "poverty" in p.data.columns
    d["poverty"] = d["poverty"].astype(object)
    d.loc[2, "poverty"] = "veinte"
    d.to_csv(path, index=False)
    assert main(["--lang", lang, "rates", str(path), "--pool"]) == 2
    err = capsys.readouterr().err
    assert "'veinte' (" in err and ("row 4" in err or "fila 4" in err), err


@pytest.mark.parametrize("lang, words", [
    ("en", "read the file with 'brecha ingest table FILE -o panel.csv', which recognises codigo_comuna, anio, "
           "nacidos_vivos, defunciones_infantiles... and takes --unit-col"),
    ("es", "lea el archivo con 'brecha ingest table ARCHIVO -o panel.csv', que reconoce codigo_comuna, anio, "
           "nacidos_vivos, defunciones_infantiles... y acepta --unit-col"),
])
def test_a_file_with_its_own_column_names_is_pointed_to_ingest_table_which_reads_it(tmp_path, capsys, lang, words):
    """An analysis command has no --unit-col: the message used to suggest it. It points to `ingest table`,
    and that command does read the file as the message says."""
    d = good()[["unit", "year", "births", "deaths"]]
    d.columns = ["codigo_comuna", "anio", "nacidos_vivos", "defunciones_infantiles"]
    path = tmp_path / "propio.csv"
    d.to_csv(path, index=False)
    assert main(["--lang", lang, "rates", str(path)]) == 2
    assert words in capsys.readouterr().err
    out = tmp_path / "panel.csv"
    assert main(["--lang", lang, "ingest", "table", str(path), "-o", str(out)]) == 0
    assert main(["--lang", lang, "rates", str(out), "--pool", "-o", str(tmp_path / "r.csv")]) == 0
    assert int(pd.read_csv(tmp_path / "r.csv")["events"].sum()) == int(d["defunciones_infantiles"].sum())


@pytest.mark.parametrize("lang, words", [("en", "the codes are Brazil's: give --country BR"),
                                         ("es", "los códigos son de Brasil: indique --country BR")])
def test_a_file_of_another_country_says_which_and_lists_fifty_codes_not_all(tmp_path, capsys, lang, words):
    """Brazil's 5,570 municipalities read with --country CL: the error listed every code (44 KB). It names
    50 and how many more, and says which country the codes are of."""
    path = tmp_path / "brasil.csv"
    datasets.brazil().subset(years=[2019]).to_file(path)
    assert main(["--lang", lang, "panel", str(path), "--country", "CL"]) == 2
    err = capsys.readouterr().err
    assert words in err and ("(+5520 more)" in err or "(y 5520 más)" in err), err[:400]
    assert len(err) < 2000
