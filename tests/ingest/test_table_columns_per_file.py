"""`brecha ingest table`: each file names its own columns (`FILE=ROLE:COLUMN,...`), and `FILE=births` on a long
table reads its one count column as births instead of being ignored.

Before, `--births-col`/`--deaths-col` applied to every file, so a deaths file whose count is `defunciones` and a
births file whose count is `nacidos` could not be read together, and `nacidos.csv=births` (a long file) was read
as if `=births` were not there. The files are real rows of the Chilean example, written to disk and read back
through the command line (in-process), in both languages; every row read stays in the ledger.
"""
from __future__ import annotations

import pandas as pd
import pytest

from brecha import datasets
from brecha.cli.main import main
from brecha.errors import BrechaWarning
from brecha.i18n import set_language
from brecha.ingest.ledger import Ledger
from brecha.ingest.tables import ingest_tables

YEARS = range(2012, 2016)


@pytest.fixture(autouse=True)
def spanish_afterwards():
    yield
    set_language("es")


@pytest.fixture(scope="module")
def source():
    """Real rows: every Chilean commune, 2012-2015 (unit, year, births, deaths)."""
    data = datasets.example("chile").data
    data = data[data["year"].isin(YEARS)][["unit", "year", "births", "deaths"]]
    return data.astype({"births": "int64", "deaths": "int64"}).sort_values(["unit", "year"]).reset_index(drop=True)


def write_files(folder, source, births_suffix=".xlsx"):
    """A deaths CSV whose count is `defunciones` (with a 'Total país' row, as ministry exports have) and a births
    table whose count is `nacidos`; returns their paths."""
    deaths = folder / "defunciones.csv"
    total = pd.DataFrame({"unit": ["Total país"], "year": [2015],
                          "deaths": [int(source.loc[source["year"] == 2015, "deaths"].sum())]})
    pd.concat([source[["unit", "year", "deaths"]], total]).rename(columns={"deaths": "defunciones"}).to_csv(
        deaths, index=False)
    births = folder / f"nacidos{births_suffix}"
    table = source[["unit", "year", "births"]].rename(columns={"births": "nacidos"})
    if births_suffix == ".xlsx":
        table.to_excel(births, index=False)
    else:
        table.to_csv(births, index=False)
    return deaths, births


def ingest(argv, capsys, lang="en"):
    code = main(["--lang", lang, "ingest", "table", *[str(a) for a in argv], "-q"])
    out = capsys.readouterr()
    return code, out.out, out.err


def read_back(path):
    return pd.read_parquet(path).sort_values(["unit", "year"]).reset_index(drop=True)


def assert_same_counts(panel, source):
    assert panel[["unit", "year"]].astype({"year": "int64"}).equals(source[["unit", "year"]])
    assert panel["births"].astype("int64").tolist() == source["births"].tolist()
    assert panel["deaths"].astype("int64").tolist() == source["deaths"].tolist()


def assert_every_row_in_ledger(out, deaths, births, n):
    totals = Ledger.beside(out).totals().set_index("file")
    assert totals.loc[str(deaths)].to_dict() == {"kind": "table", "rows_read": n + 1, "counted": n, "excluded": 1}
    assert totals.loc[str(births)].to_dict() == {"kind": "table", "rows_read": n, "counted": n, "excluded": 0}


@pytest.mark.parametrize("births_suffix", [".xlsx", ".csv"])
def test_each_file_names_its_own_count_column(tmp_path, capsys, source, births_suffix):
    deaths, births = write_files(tmp_path, source, births_suffix)
    out = tmp_path / "panel.parquet"
    code, stdout, err = ingest([f"{deaths}=deaths:defunciones", f"{births}=births:nacidos", "-o", out], capsys)
    assert code == 0, err
    panel = read_back(out)
    assert_same_counts(panel, source)
    assert "defunciones" not in panel.columns and "nacidos" not in panel.columns
    assert_every_row_in_ledger(out, deaths, births, len(source))


def test_a_long_file_given_a_variable_reads_its_one_count_column(tmp_path, capsys, source):
    """`nacidos.xlsx=births`: its one column besides unit and year is the births, whatever its name (before:
    `=births` was ignored and `nacidos` became a covariate)."""
    deaths, births = write_files(tmp_path, source)
    named, bare = tmp_path / "named.parquet", tmp_path / "bare.parquet"
    assert ingest([f"{deaths}=deaths:defunciones", f"{births}=births:nacidos", "-o", named], capsys)[0] == 0
    assert ingest([f"{deaths}=deaths", f"{births}=births", "-o", bare], capsys)[0] == 0
    assert_same_counts(read_back(bare), source)
    pd.testing.assert_frame_equal(read_back(bare), read_back(named))
    assert_every_row_in_ledger(bare, deaths, births, len(source))


def test_a_long_file_given_a_covariate_takes_its_name(tmp_path, capsys, source):
    deaths, births = write_files(tmp_path, source)
    cover = tmp_path / "pobreza.csv"
    source[["unit", "year"]].assign(pct=1.5).to_csv(cover, index=False)
    out = tmp_path / "p.parquet"
    assert ingest([f"{deaths}=deaths", f"{births}=births", f"{cover}=poverty", "-o", out], capsys)[0] == 0
    panel = read_back(out)
    assert (panel["poverty"] == 1.5).all() and "pct" not in panel.columns


@pytest.mark.parametrize("lang, words", [
    ("en", ["the table is long (year column 'year') and was given =births, but more than one column could hold "
            "it: nacidos, pobreza", "What to do: say which: {path}=births:nacidos"]),
    ("es", ["la tabla es larga (columna de año 'year') y se indicó =births, pero más de una columna podría "
            "contenerla: nacidos, pobreza", "Qué hacer: indique cuál: {path}=births:nacidos"]),
])
def test_a_long_file_given_a_variable_with_several_candidates_is_refused(tmp_path, capsys, source, lang, words):
    births = tmp_path / "nacidos.csv"
    source[["unit", "year", "births"]].rename(columns={"births": "nacidos"}).assign(pobreza=2.0).to_csv(
        births, index=False)
    out = tmp_path / "p.parquet"
    code, _, err = ingest([f"{births}=births", "-o", out], capsys, lang)
    assert code == 2 and not out.exists()
    assert err.startswith(f"Error: {'file' if lang == 'en' else 'archivo'} {births}")
    for text in words:
        assert text.format(path=births) in err


def test_a_long_file_given_a_variable_it_does_not_hold_is_refused(tmp_path, capsys, source):
    """Before: `defunciones.csv=births` read the deaths as deaths, with no word about `=births`."""
    deaths = tmp_path / "deaths.csv"
    source[["unit", "year", "deaths"]].to_csv(deaths, index=False)
    code, _, err = ingest([f"{deaths}=births", "-o", tmp_path / "p.parquet"], capsys)
    assert code == 2
    assert (f"Error: file {deaths}: the table is long (year column 'year') and was given =births, but no column is "
            f"left to read as births (columns: unit, year, deaths). What to do: if the file does not hold births, "
            f"leave out =births; if it does, name its column: {deaths}=births:COLUMN") in err


@pytest.mark.parametrize("lang, words", [
    ("en", "column 'defuncion': there is no column 'defuncion' given for deaths in '{spec}' (the file's columns: "
           "unit, year, defunciones). What to do: write {path}=deaths:COLUMN with one of the file's columns "
           "(case and accents count), e.g. {path}=deaths:defunciones"),
    ("es", "columna 'defuncion': no existe la columna 'defuncion' indicada para deaths en '{spec}' (columnas del "
           "archivo: unit, year, defunciones). Qué hacer: escriba {path}=deaths:COLUMNA con una de las columnas "
           "del archivo (cuentan mayúsculas y tildes), p. ej. {path}=deaths:defunciones"),
])
def test_a_wrong_column_names_the_file_the_column_and_what_to_write(tmp_path, capsys, source, lang, words):
    deaths, births = write_files(tmp_path, source)
    out = tmp_path / "panel.parquet"
    spec = f"{deaths}=deaths:defuncion"
    code, _, err = ingest([spec, f"{births}=births:nacidos", "-o", out], capsys, lang)
    assert code == 2 and not out.exists() and not (tmp_path / "panel.ledger.csv").exists()
    assert err.startswith(f"Error: {'file' if lang == 'en' else 'archivo'} {deaths}; ")
    assert words.format(spec=spec, path=deaths) in err and "Traceback" not in err


@pytest.mark.parametrize("spec, words", [
    ("{d}=birth:defunciones", "'birth' in '{d}=birth:defunciones' is not a column role. What to do: write "
                              "{d}=births:defunciones; ROLE is unit, name, year, births, deaths, neonatal or "
                              "postneonatal"),
    ("{d}=deaths:", "'deaths:' in '{d}=deaths:' names no column after ':'"),
    ("{d}=deaths:defunciones,deaths:x", "'{d}=deaths:defunciones,deaths:x' gives deaths twice"),
    ("{d}=births,deaths", "names more than one variable without a column (births, deaths). What to do: a wide "
                          "table holds one variable ({d}=births); in a long table name the column of each: "
                          "{d}=births:COLUMN,deaths:COLUMN"),
    ("{d}=year", "'{d}=year': year is a column, not a variable a file holds. What to do: write {d}=year:COLUMN"),
])
def test_a_malformed_spec_is_refused_with_the_syntax(tmp_path, capsys, source, spec, words):
    deaths, _ = write_files(tmp_path, source)
    code, _, err = ingest([spec.format(d=deaths), "-o", tmp_path / "p.parquet"], capsys)
    assert code == 2 and err.startswith(f"Error: file {deaths}: ") and words.format(d=deaths) in err


def test_a_file_given_twice_is_refused(tmp_path, capsys, source):
    """Read twice, its rows would be counted twice in the ledger and each count kept again as a covariate."""
    both = tmp_path / "datos.csv"
    source.rename(columns={"births": "nacidos", "deaths": "defunciones"}).to_csv(both, index=False)
    code, _, err = ingest([f"{both}=births:nacidos", f"{both}=deaths:defunciones", "-o", tmp_path / "p.parquet"],
                          capsys)
    assert code == 2 and "the file is given twice" in err
    assert f"give it once, with all its columns: {both}=births:COLUMN,deaths:COLUMN" in err
    out = tmp_path / "p.parquet"
    assert ingest([f"{both}=births:nacidos,deaths:defunciones", "-o", out], capsys)[0] == 0
    assert_same_counts(read_back(out), source)


def test_a_wide_file_given_a_count_column_is_refused(tmp_path, capsys, source):
    """`births.xlsx=births:2014` on a table with one column per year would leave the other years unread."""
    wide = source.pivot(index="unit", columns="year", values="births")
    wide.columns = [str(c) for c in wide.columns]
    path = tmp_path / "births.xlsx"
    wide.reset_index().to_excel(path, index=False)
    code, _, err = ingest([f"{path}=births:2014", "-o", tmp_path / "p.parquet"], capsys)
    assert code == 2
    assert (f"Error: file {path}; column '2014': the table is wide (one column per year: 2012, 2013, 2014, 2015), "
            f"so its births are not in one column '2014'. What to do: write {path}=births, without ':2014'") in err


def test_a_file_names_its_own_keys_beside_a_wide_table(tmp_path, capsys, source):
    """A wide births table beside a long deaths table keyed `cod_com`, `ano`: `--unit-col` would apply to both."""
    wide = source.pivot(index="unit", columns="year", values="births")
    wide.columns = [str(c) for c in wide.columns]
    births = tmp_path / "births.xlsx"
    wide.reset_index().to_excel(births, index=False)
    deaths = tmp_path / "def.csv"
    source[["unit", "year", "deaths"]].rename(columns={"unit": "cod_com", "year": "ano"}).to_csv(deaths, index=False)
    out = tmp_path / "p.parquet"
    code, _, err = ingest([f"{births}=births", f"{deaths}=unit:cod_com,year:ano", "-o", out], capsys)
    assert code == 0, err
    assert_same_counts(read_back(out), source)
    # the option alone cannot: it names a column the wide table does not have, and says what to write
    code, _, err = ingest([f"{births}=births", deaths, "--unit-col", "cod_com", "--year-col", "ano", "-o", out],
                          capsys)
    assert code == 2 and f"file {births}" in err and "for one file only write FILE=unit:COLUMN" in err


def test_the_old_syntax_gives_the_same_panel(tmp_path, capsys, source):
    """`FILE=births` on a wide table, plain long files, and the options over one file: as before, and the same
    panel as the new per-file columns."""
    wide = source.pivot(index="unit", columns="year", values="births")
    wide.columns = [str(c) for c in wide.columns]
    births = tmp_path / "births.xlsx"
    wide.reset_index().to_excel(births, index=False)
    deaths = tmp_path / "deaths.csv"
    source[["unit", "year", "deaths"]].to_csv(deaths, index=False)
    old = tmp_path / "old.parquet"
    assert ingest([f"{births}=births", deaths, "-o", old], capsys)[0] == 0
    assert_same_counts(read_back(old), source)

    both = tmp_path / "datos.csv"
    source.rename(columns={"unit": "cod", "births": "nacidos", "deaths": "defunciones"}).to_csv(both, index=False)
    options, own = tmp_path / "options.parquet", tmp_path / "own.parquet"
    assert ingest([both, "--unit-col", "cod", "--births-col", "nacidos", "--deaths-col", "defunciones", "-o",
                   options], capsys)[0] == 0
    assert ingest([f"{both}=unit:cod,births:nacidos,deaths:defunciones", "-o", own], capsys)[0] == 0
    pd.testing.assert_frame_equal(read_back(options), read_back(own))
    pd.testing.assert_frame_equal(read_back(options), read_back(old))


def test_python_api_takes_the_same_specs_and_keeps_the_ledger_true(tmp_path, source):
    deaths, births = write_files(tmp_path, source, ".csv")
    with pytest.warns(BrechaWarning, match="Total país"):  # excluded, and said so
        panel, ledger = ingest_tables([f"{deaths}=deaths:defunciones", f"{births}=births:nacidos"], country="CL")
    got = panel.data.sort_values(["unit", "year"]).reset_index(drop=True)
    assert_same_counts(got, source)
    ledger.check()
    assert ledger.totals()["rows_read"].tolist() == [len(source) + 1, len(source)]


@pytest.mark.parametrize("how", ["spec", "option"])
def test_a_column_named_as_a_count_read_from_another_is_refused(tmp_path, capsys, source, how):
    """`births` and `nacidos` in one file, the births given as `nacidos`: before, the `births` column was kept
    as a covariate of the same name and silently replaced the births read from `nacidos`."""
    path = tmp_path / "datos.csv"
    source.assign(nacidos=source["births"] + 1).to_csv(path, index=False)
    argv = [f"{path}=births:nacidos"] if how == "spec" else [path, "--births-col", "nacidos"]
    code, _, err = ingest([*argv, "-o", tmp_path / "p.parquet"], capsys)
    assert code == 2 and not (tmp_path / "p.parquet").exists()
    assert (f"Error: file {path}; column 'births': column 'births' has the name of a panel column, but births is "
            f"read from 'nacidos', as given. What to do: rename or remove one of the two columns, or read this "
            f"one: {path}=births:births") in err
