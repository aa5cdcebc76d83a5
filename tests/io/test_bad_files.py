"""Every bad input file is one message: `brecha rates FILE` prints one `Error: ...` line naming the file (and
rows, columns where known) and what to do, exits 2, never a traceback; in Spanish and English. The files are
built as a user would have them: a real panel written to disk, then damaged, renamed or cut."""
from __future__ import annotations

import os
import shutil

import openpyxl
import pytest

from brecha import datasets
from brecha.cli.main import main
from brecha.errors import InputError
from brecha.i18n import set_language
from brecha.io import read_table
from brecha.panel import read_panel


@pytest.fixture(autouse=True)
def spanish_afterwards():
    yield
    set_language("es")


@pytest.fixture(scope="module")
def good(tmp_path_factory):
    """A real panel (Chile 2010, with covariates) in the four formats."""
    folder = tmp_path_factory.mktemp("good")
    panel = datasets.chile().subset(years=[2010])
    paths = {}
    for suffix in (".csv", ".xlsx", ".parquet", ".json"):
        paths[suffix] = folder / f"panel{suffix}"
        panel.to_file(paths[suffix])
    return paths


def _make(kind: str, folder, good) -> os.PathLike:
    if kind == "ragged":
        path = folder / "ragged.csv"
        path.write_text("unit,year,births,deaths\n01101,2010,1000,8\n01107,2010,500,4,99\n13101,2010,9000\n"
                        "13102,2010,800,7\n")
    elif kind == "csv_named_xlsx":
        path = folder / "panel.xlsx"
        shutil.copy(good[".csv"], path)
    elif kind == "xlsx_named_csv":
        path = folder / "panel.csv"
        shutil.copy(good[".xlsx"], path)
    elif kind == "parquet_named_csv":
        path = folder / "panel.csv"
        shutil.copy(good[".parquet"], path)
    elif kind == "old_xls":
        path = folder / "panel.xls"
        path.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 504)
    elif kind == "bad_json":
        path = folder / "panel.json"
        text = good[".json"].read_text()
        path.write_text(text[: len(text) // 2])
    elif kind == "json_not_records":
        path = folder / "panel.json"
        path.write_text('{"unit": "01101", "year": 2010}')
    elif kind == "json_nested":
        path = folder / "nested.json"
        path.write_text('[{"unit": "09101", "year": 2010, "births": 10, "deaths": 0},\n'
                        ' {"unit": "09102", "year": 2010, "counts": {"births": 1, "deaths": 0}}]')
    elif kind == "json_duplicate_key":
        path = folder / "twice.json"
        path.write_text('[{"unit": "09101", "year": 2010, "births": 10, "births": 11, "deaths": 0}]')
    elif kind == "truncated_parquet":
        path = folder / "panel.parquet"
        raw = good[".parquet"].read_bytes()
        path.write_bytes(raw[: len(raw) // 2])
    elif kind == "damaged_xlsx":
        path = folder / "panel.xlsx"
        raw = good[".xlsx"].read_bytes()
        path.write_bytes(raw[: len(raw) // 2])
    elif kind == "binary":
        path = folder / "garbage.csv"
        path.write_bytes(bytes(range(256)) * 8)
    elif kind == "folder":
        path = folder / "panel.csv"
        path.mkdir()
    elif kind == "missing":
        path = folder / "nowhere.csv"
    elif kind == "empty":
        path = folder / "empty.csv"
        path.write_text("\n\n")
    elif kind == "header_only":
        path = folder / "header.csv"
        path.write_text("unit,year,births,deaths\n")
    elif kind == "empty_sheet":
        path = folder / "empty.xlsx"
        openpyxl.Workbook().save(path)
    elif kind == "duplicate_columns":
        path = folder / "dup.csv"
        path.write_text("unit,year,births,deaths,births\n01101,2010,1000,8,1001\n")
    elif kind == "mixed_encoding":
        path = folder / "mixed.csv"
        path.write_bytes("unit,year,births,deaths,name\n01101,2010,1000,8,Peñalolén\n".encode()
                         + "13122,2010,900,7,Peñalolén\n".encode("latin-1"))
    elif kind == "unknown_type":
        path = folder / "panel.dat"
        path.write_text("unit,year,births,deaths\n")
    elif kind == "blank_header":
        path = folder / "blank.csv"
        path.write_text("unit,year,births,deaths,\n01101,2010,1000,8,5\n")
    return path


# kind -> (English words, Spanish words, rows named or None)
CASES = {
    "ragged": ("rows with 3, 5 values, but the header has 4 columns", "filas con 3, 5 valores", [3, 4]),
    "csv_named_xlsx": ("the content is of type CSV, but the name ends in .xlsx. What to do: rename it to end in .csv",
                       "el contenido es de tipo CSV, pero el nombre termina en .xlsx", None),
    "xlsx_named_csv": ("the content is of type Excel (.xlsx), but the name ends in .csv. What to do: rename it to "
                       "end in .xlsx", "el contenido es de tipo Excel (.xlsx)", None),
    "parquet_named_csv": ("the content is of type Parquet, but the name ends in .csv",
                          "el contenido es de tipo Parquet", None),
    "old_xls": ("Excel 97-2003 (.xls)", "guárdelo como .xlsx", None),
    "bad_json": ("invalid JSON at line", "JSON no válido en la línea", None),
    "json_not_records": ("the JSON is not a list of records", "el JSON no es una lista de registros", None),
    "json_nested": ("nested values (lists or objects) under key 'counts'",
                    "valores anidados (listas u objetos) en la clave 'counts'", [3]),
    "json_duplicate_key": ("key 'births' is repeated in one record", "la clave 'births' se repite en un mismo registro",
                           None),
    "truncated_parquet": ("is not a readable Parquet file (truncated or damaged)", "no es un archivo Parquet legible",
                          None),
    "damaged_xlsx": ("is not a readable Excel workbook", "no es un libro Excel legible", None),
    "binary": ("is not a text (CSV) file", "no es un archivo de texto (CSV)", None),
    "folder": ("is a folder, not a file", "es una carpeta, no un archivo", None),
    "missing": ("file not found", "no se encuentra el archivo", None),
    "empty": ("the file is empty", "el archivo está vacío", None),
    "header_only": ("the file has a header (unit, year, births, deaths) but no data rows",
                    "el archivo tiene encabezado (unit, year, births, deaths) pero ninguna fila de datos", None),
    "empty_sheet": ("sheet 'Sheet' is empty", "la hoja 'Sheet' está vacía", None),
    "duplicate_columns": ("repeated column names: 'births' (columns C, E)",
                          "nombres de columna repetidos: 'births' (columnas C, E)", [1]),
    "mixed_encoding": ("the text mixes encodings: most is UTF-8, but line 3 is not (byte 0xF1)",
                       "el texto mezcla codificaciones", [3]),
    "unknown_type": ("unknown file type '.dat'", "tipo de archivo '.dat' desconocido", None),
    "blank_header": ("column E has data but no name", "la columna E tiene datos pero no tiene nombre", [2]),
}


@pytest.mark.parametrize("kind", list(CASES))
def test_bad_file_gives_one_error_line_in_both_languages(tmp_path, capsys, good, kind):
    path = _make(kind, tmp_path, good)
    english, spanish, rows = CASES[kind]
    for lang, words, file_word, row_word, todo in (("en", english, "file", "row", "What to do:"),
                                                  ("es", spanish, "archivo", "fila", "Qué hacer:")):
        assert main(["--lang", lang, "rates", str(path)]) == 2
        out = capsys.readouterr()
        assert out.out == "", out.out
        lines = out.err.splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"Error: {file_word} {path}"), out.err
        assert words in lines[0] and todo in lines[0], lines[0]
        if rows:
            shown = ", ".join(map(str, rows))
            assert f"{row_word}{'s' if len(rows) > 1 else ''} {shown}" in lines[0]
    with pytest.raises(InputError) as err:
        read_panel(path)
    assert err.value.file == str(path) and err.value.hint
    if rows:
        assert err.value.rows == rows


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their permissions")
def test_unreadable_file(tmp_path, capsys, good):
    path = tmp_path / "locked.csv"
    shutil.copy(good[".csv"], path)
    path.chmod(0)
    assert main(["--lang", "en", "rates", str(path)]) == 2
    assert "cannot read the file (permission denied)" in capsys.readouterr().err


def test_permission_error_is_a_message_even_as_root(tmp_path, monkeypatch):
    """As root chmod cannot make a file unreadable; the same PermissionError is raised by hand instead."""
    path = tmp_path / "locked.csv"
    path.write_text("unit,year,births,deaths\n01101,2010,1000,8\n")
    from pathlib import Path

    def refuse(self):
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "read_bytes", refuse)
    set_language("en")
    with pytest.raises(InputError, match="cannot read the file \\(permission denied\\). What to do: ask for read"):
        read_table(path)


def test_utf16_and_latin1_and_excel_sep_line_are_read(tmp_path):
    """Excel's "Unicode text" (UTF-16, tabs), a Windows-1252 CSV and a first line 'sep=;' all read right."""
    text = "unit\tyear\tbirths\tdeaths\tname\n13122\t2010\t1.234\t8\tPeñalolén\n"
    (tmp_path / "u16.csv").write_bytes(text.encode("utf-16"))
    (tmp_path / "w.csv").write_bytes(text.replace("\t", ";").encode("cp1252"))
    (tmp_path / "sep.csv").write_text("sep=;\n" + text.replace("\t", ";"))
    for name in ("u16.csv", "w.csv", "sep.csv"):
        t = read_table(tmp_path / name)
        assert t["name"].tolist() == ["Peñalolén"] and t["births"].tolist() == [1234], name
        assert t.attrs["rows"] == (2,)


def test_blank_lines_and_quoted_line_breaks_keep_spreadsheet_row_numbers(tmp_path):
    path = tmp_path / "rows.csv"
    path.write_text('unit,year,births,deaths,note\n01101,2010,1000,8,"two\nlines"\n\n01107,2010,-5,4,x\n')
    set_language("en")
    with pytest.raises(InputError) as err:
        read_panel(path)
    assert err.value.rows == [4] and err.value.column == "births"


def test_excel_rows_are_the_sheet_rows(tmp_path):
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append([])
    sheet.append(["unit", "year", "births", "deaths"])
    sheet.append(["01101", 2010, 1000, 8])
    sheet.append([])
    sheet.append(["01107", 2010, "abc", 4])
    path = tmp_path / "rows.xlsx"
    book.save(path)
    with pytest.raises(InputError) as err:
        read_panel(path)
    assert err.value.rows == [5] and err.value.column == "births"


def test_missing_sheet_is_named_with_the_sheets_there_are(tmp_path, good):
    set_language("en")
    with pytest.raises(InputError, match="there is no sheet datos \\(the file has 1: results\\)"):
        read_table(good[".xlsx"], sheet="datos")
