"""Excel files as ministry staff export them: a title and a blank row above the header, a notes sheet before
the data. Built with openpyxl from real rows of the embedded Chilean panel, run through the command line as a
user runs it, and compared with the same rows read from a plain CSV (brecha.table_layout)."""
from __future__ import annotations

import openpyxl
import pandas as pd
import pytest

from brecha import datasets
from brecha.cli.main import build_parser, main
from brecha.errors import BrechaWarning
from brecha.i18n import set_language
from brecha.io import read_table
from brecha.panel import read_panel

COLUMNS = ["unit", "year", "births", "deaths"]
TITLE = "Mortalidad infantil por comuna, 2010-2015"


@pytest.fixture(autouse=True)
def spanish_afterwards():
    yield
    set_language("es")


@pytest.fixture(scope="module")
def rows() -> pd.DataFrame:
    """Six Araucanía communes, 2010-2015, as the embedded data hold them."""
    data = datasets.example("chile").data
    units = sorted(data.loc[data["unit"].str.startswith("091"), "unit"].unique())[:6]
    cut = data[data["unit"].isin(units) & data["year"].between(2010, 2015)]
    return cut[COLUMNS].reset_index(drop=True)


def _sheet(ws, table: pd.DataFrame, above=()) -> None:
    for line in above:
        ws.append(list(line))
    ws.append(COLUMNS)
    for unit, year, births, deaths in table.itertuples(index=False):
        ws.append([str(unit), int(year), int(births), int(deaths)])


@pytest.fixture(scope="module")
def files(rows, tmp_path_factory):
    folder = tmp_path_factory.mktemp("excel")
    paths = {"csv": folder / "plain.csv"}
    rows.to_csv(paths["csv"], index=False)

    book = openpyxl.Workbook()
    _sheet(book.active, rows, above=[[TITLE], []])                     # header on row 3
    paths["title"] = folder / "con_titulo.xlsx"
    book.save(paths["title"])

    book = openpyxl.Workbook()
    book.active.title = "notas"
    book.active.append(["Fuente: DEIS, Ministerio de Salud"])
    book.active.append(["Defunciones de menores de 1 año por comuna de residencia"])
    _sheet(book.create_sheet("datos"), rows)
    paths["sheets"] = folder / "dos_hojas.xlsx"
    book.save(paths["sheets"])

    book = openpyxl.Workbook()                                            # a title, then data without a header
    book.active.append([TITLE])
    book.active.append([])
    for unit, year, births, deaths in rows.itertuples(index=False):
        book.active.append([str(unit), int(year), int(births), int(deaths)])
    paths["no_header"] = folder / "sin_encabezado.xlsx"
    book.save(paths["no_header"])

    book = openpyxl.Workbook()                                            # sheets named by year
    book.active.title = "2014"
    _sheet(book.active, rows[rows["year"] == 2014])
    _sheet(book.create_sheet("2015"), rows[rows["year"] == 2015])
    paths["years"] = folder / "por_anio.xlsx"
    book.save(paths["years"])

    body = rows.astype(str).to_csv(sep=";", index=False)                  # Excel's own CSV: rows padded
    paths["title_csv"] = folder / "con_titulo.csv"
    paths["title_csv"].write_text(f'"{TITLE}";;;\n;;;\n{body}', encoding="utf-8")
    return paths


def _run(argv, capsys):
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def _rates(path, out, capsys, *extra, lang="es"):
    code, printed, err = _run(["--lang", lang, "rates", path, *extra, "-o", out], capsys)
    assert code == 0, printed + err
    return pd.read_csv(out, dtype={"unit": str}), err


# ---- a title above the header ----------------------------------------------------------------------------

@pytest.mark.parametrize("lang,words", [("es", "las filas 1-2 parecen un título"),
                                        ("en", "rows 1-2 look like a title")])
def test_title_rows_are_skipped_and_said(files, tmp_path, capsys, lang, words):
    expected, err = _rates(files["csv"], tmp_path / "plain.csv", capsys, lang=lang)
    assert err == ""
    got, err = _rates(files["title"], tmp_path / "title.csv", capsys, lang=lang)
    pd.testing.assert_frame_equal(got, expected)
    assert words in err and TITLE in err and str(files["title"]) in err
    assert ("encabezado se leyó de la fila 3" if lang == "es" else "header was read from row 3") in err
    assert (tmp_path / "title.csv").read_bytes() == (tmp_path / "plain.csv").read_bytes()


def test_title_rows_keep_the_file_row_numbers(files, rows):
    with pytest.warns(BrechaWarning, match="el encabezado se leyó de la fila 3"):
        table = read_table(files["title"], dtype={"unit": str})
    assert list(table.columns) == COLUMNS
    assert table.attrs["rows"] == tuple(range(4, 4 + len(rows)))  # data from row 4: messages name real rows
    assert table.attrs["header_row"] == 3
    pd.testing.assert_frame_equal(table.astype({"births": "int64", "deaths": "int64"}), rows,
                                  check_dtype=False)


@pytest.mark.parametrize("lang,words", [("es", ["fila 6", "columna 'births'", "conteos negativos"]),
                                        ("en", ["row 6", "column 'births'", "negative counts"])])
def test_an_error_below_a_title_names_the_row_of_the_file(rows, tmp_path, capsys, lang, words):
    bad = rows.copy()
    bad.loc[2, "births"] = -5                          # third data row: row 6 under a title, a blank row, the header
    path = tmp_path / "negativo.xlsx"
    book = openpyxl.Workbook()
    _sheet(book.active, bad, above=[[TITLE], []])
    book.save(path)
    code, _, err = _run(["--lang", lang, "rates", path, "-o", tmp_path / "r.csv"], capsys)
    assert code == 2 and str(path) in err
    for word in words:
        assert word in err, err


def test_brecha_panel_lists_the_title_among_the_warnings(files, capsys):
    code, printed, _ = _run(["--lang", "en", "panel", files["title"]], capsys)
    assert code == 0
    assert "Warnings:" in printed and "the header was read from row 3" in printed
    assert "6 units, years 2010-2015, 36 rows" in printed


def test_ingest_table_reads_below_the_title(files, rows, tmp_path, capsys):
    out = tmp_path / "panel.csv"
    code, printed, _ = _run(["--lang", "en", "ingest", "table", files["title"], "-o", out], capsys)
    assert code == 0, printed
    assert "the header was read from row 3" in printed
    got = pd.read_csv(out, dtype={"unit": str})
    pd.testing.assert_frame_equal(got[COLUMNS], rows, check_dtype=False)
    ledger = pd.read_csv(tmp_path / "panel.ledger.csv")
    # the title and the blank row above the header are not table rows: 36 read, 36 used, none excluded
    assert ledger[["status", "reason", "rows"]].values.tolist() == [["counted", "table_row", len(rows)]]


def test_an_excel_csv_with_a_title_reads_like_the_plain_csv(files, tmp_path, capsys):
    expected, _ = _rates(files["csv"], tmp_path / "plain.csv", capsys)
    got, err = _rates(files["title_csv"], tmp_path / "title.csv", capsys)
    pd.testing.assert_frame_equal(got, expected)
    assert "fila 3" in err


@pytest.mark.parametrize("lang,words", [
    ("es", ["archivo", "fila 3", "las filas 1-2 parecen un título",
            "no parece un encabezado", "Qué hacer", "inserte justo encima de la fila 3"]),
    ("en", ["file", "row 3", "rows 1-2 look like a title", "does not look like a header", "What to do",
            "insert a row with the column names"]),
])
def test_a_title_above_data_without_header_is_refused(files, tmp_path, capsys, lang, words):
    code, printed, err = _run(["--lang", lang, "rates", files["no_header"], "-o", tmp_path / "r.csv"], capsys)
    assert code == 2
    assert str(files["no_header"]) in err and "Traceback" not in err
    for word in words:
        assert word in err, err
    assert not (tmp_path / "r.csv").exists()


def test_a_csv_title_with_a_comma_above_a_semicolon_table(files, rows, tmp_path, capsys):
    """A title typed by hand, not padded by Excel, whose comma the table below never holds."""
    path = tmp_path / "titulo_a_mano.csv"
    path.write_text(f"{TITLE}\n\n" + rows.astype(str).to_csv(sep=";", index=False), encoding="utf-8")
    expected, _ = _rates(files["csv"], tmp_path / "plain.csv", capsys)
    got, err = _rates(path, tmp_path / "title.csv", capsys, lang="en")
    pd.testing.assert_frame_equal(got, expected)
    assert "the header was read from row 3" in err


def test_a_file_without_title_gives_no_warning(files, tmp_path, capsys):
    plain = tmp_path / "plain.xlsx"
    book = openpyxl.Workbook()
    _sheet(book.active, pd.read_csv(files["csv"], dtype={"unit": str}))
    book.save(plain)
    _, err = _rates(plain, tmp_path / "r.csv", capsys)
    assert err == ""


# ---- workbooks with several sheets -------------------------------------------------------------------------

@pytest.mark.parametrize("lang,words", [
    ("es", ["la hoja 'notas' no tiene las columnas obligatorias unit, year, births, deaths",
            "el libro tiene 2 hojas: 'notas', 'datos'", "la hoja 'datos' tiene esas columnas", "--sheet datos"]),
    ("en", ["sheet 'notas' lacks the required columns unit, year, births, deaths",
            "the workbook has 2 sheets: 'notas', 'datos'", "sheet 'datos' has those columns", "--sheet datos"]),
])
def test_a_notes_sheet_first_names_the_sheets(files, tmp_path, capsys, lang, words):
    code, _, err = _run(["--lang", lang, "rates", files["sheets"], "-o", tmp_path / "r.csv"], capsys)
    assert code == 2
    assert str(files["sheets"]) in err and "Traceback" not in err
    for word in words:
        assert word in err, err


@pytest.mark.parametrize("lang,words", [
    ("es", ["tiene encabezado (Fuente: DEIS) pero ninguna fila de datos", "el libro tiene 2 hojas ('notas', 'datos') "
            "y se leyó 'notas'", "--sheet datos"]),
    ("en", ["has a header (Fuente: DEIS) but no data rows", "the workbook has 2 sheets ('notas', 'datos') and "
            "'notas' was read", "--sheet datos"]),
])
def test_a_one_line_notes_sheet_names_the_other_sheets(rows, tmp_path, capsys, lang, words):
    path = tmp_path / "una_nota.xlsx"
    book = openpyxl.Workbook()
    book.active.title = "notas"
    book.active.append(["Fuente: DEIS"])
    _sheet(book.create_sheet("datos"), rows)
    book.save(path)
    code, _, err = _run(["--lang", lang, "rates", path, "-o", tmp_path / "r.csv"], capsys)
    assert code == 2 and str(path) in err
    for word in words:
        assert word in err, err


@pytest.mark.parametrize("sheet", ["datos", "1"])
def test_sheet_option_reads_the_data_sheet(files, tmp_path, capsys, sheet):
    expected, _ = _rates(files["csv"], tmp_path / "plain.csv", capsys)
    got, err = _rates(files["sheets"], tmp_path / "sheet.csv", capsys, "--sheet", sheet)
    pd.testing.assert_frame_equal(got, expected)
    assert err == ""


@pytest.mark.parametrize("command", [
    ["disparity", "--reference", "best", "--pool"],
    ["panel"],
    ["funnel"],
    ["smooth"],
])
def test_other_commands_read_the_sheet_like_the_csv(files, tmp_path, capsys, command):
    first = [*command[:1], str(files["csv"]), *command[1:], "-o", str(tmp_path / "plain.csv")]
    assert _run(first, capsys)[0] == 0
    second = [*command[:1], str(files["sheets"]), "--sheet", "datos", *command[1:], "-o", str(tmp_path / "x.csv")]
    code, printed, err = _run(second, capsys)
    assert code == 0, printed + err
    assert (tmp_path / "x.csv").read_bytes() == (tmp_path / "plain.csv").read_bytes()


def _panel_commands():
    """(name, subparser) of every command that takes a PANEL file."""
    parser = build_parser()
    found = []
    for action in parser._subparsers._group_actions:
        for name, sub in action.choices.items():
            stack = [(name, sub)]
            while stack:
                label, p = stack.pop()
                if any(a.dest == "panel" and not a.option_strings for a in p._actions):
                    found.append((label, p))
                for inner in (a for a in p._actions if a.__class__.__name__ == "_SubParsersAction"):
                    stack += [(f"{label} {n}", s) for n, s in inner.choices.items()]
    return found


def test_every_panel_command_has_sheet():
    commands = _panel_commands()
    names = {name for name, _ in commands}
    assert {"rates", "disparity", "inequality", "trends", "models", "panel"} <= {n.split()[0] for n in names}
    for name, parser in commands:
        assert "--sheet" in parser._option_string_actions, name


def test_sheet_given_in_python(files, rows):
    panel = read_panel(files["sheets"], sheet="datos")
    assert panel.data[COLUMNS].astype({"births": "int64", "deaths": "int64"}).equals(
        rows.astype({"births": "int64", "deaths": "int64"}))
    assert read_panel(files["sheets"], sheet=1).data.equals(panel.data)


def test_sheets_named_by_year(files, tmp_path, capsys, rows):
    got, _ = _rates(files["years"], tmp_path / "y.csv", capsys, "--sheet", "2015")
    assert set(got["period"].astype(str)) == {"2015"}
    first, _ = _rates(files["years"], tmp_path / "y0.csv", capsys, "--sheet", "0")
    assert set(first["period"].astype(str)) == {"2014"}


@pytest.mark.parametrize("lang,words", [("es", ["no hay hoja resumen", "notas, datos", "--sheet"]),
                                        ("en", ["there is no sheet resumen", "notas, datos", "--sheet"])])
def test_a_sheet_the_workbook_lacks(files, tmp_path, capsys, lang, words):
    code, _, err = _run(["--lang", lang, "rates", files["sheets"], "--sheet", "resumen", "-o", tmp_path / "r.csv"],
                        capsys)
    assert code == 2 and str(files["sheets"]) in err
    for word in words:
        assert word in err, err


@pytest.mark.parametrize("lang,words", [
    ("es", "no es un libro Excel (.xlsx) y no tiene hojas: --sheet datos no se aplica"),
    ("en", "it is not an Excel workbook (.xlsx) and has no sheets: --sheet datos does not apply"),
])
def test_sheet_on_a_csv_is_said_to_be_ignored(files, tmp_path, capsys, lang, words):
    expected, _ = _rates(files["csv"], tmp_path / "plain.csv", capsys, lang=lang)
    got, err = _rates(files["csv"], tmp_path / "sheet.csv", capsys, "--sheet", "datos", lang=lang)
    pd.testing.assert_frame_equal(got, expected)
    assert words in err and str(files["csv"]) in err


@pytest.mark.parametrize("lang,words", [("es", "--example no tiene hojas"), ("en", "--example has no sheets")])
def test_sheet_with_an_example_is_refused(capsys, lang, words):
    code, _, err = _run(["--lang", lang, "rates", "--example", "chile", "--sheet", "1"], capsys)
    assert code == 2 and words in err and "--sheet" in err


@pytest.mark.parametrize("records,expected", [
    ([["unit", "year"], ["01101", "2010"]], 0),                               # an ordinary header
    ([[TITLE, None], ["unit", "year"], ["01101", 2010]], 1),                  # a title above it
    ([[None, TITLE, None], ["Fuente: DEIS", None, None], ["unit", 2010, 2011], ["01101", 5, 6]], 2),  # wide
    ([["comuna"], ["Temuco"], ["Padre Las Casas"]], 0),                       # a one-column table: as it reads
    ([[TITLE], ["Temuco"], ["Padre Las Casas"]], 0),
])
def test_the_header_row_is_moved_only_where_the_first_row_cannot_be_it(records, expected):
    import warnings

    from brecha.table_layout import header_index

    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        assert header_index(records, list(range(1, len(records) + 1)), "f.xlsx") == expected
    assert len(said) == (1 if expected else 0)


def test_one_word_right_above_data_keeps_the_ordinary_message(tmp_path, capsys):
    path = tmp_path / "una_columna.csv"
    path.write_text("unit\n01101,2010,4366,40\n", encoding="utf-8")
    code, _, err = _run(["--lang", "en", "rates", path], capsys)
    assert code == 2 and "rows with 4 values, but the header has 1" in err and "title" not in err
