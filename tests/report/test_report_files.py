"""Which of the report's files a run writes (brecha.report_files; issue 19): the study's ``[output] files``
and the command's ``--files``; the files written are the full report's bytes; a folder rewritten with fewer
files loses the earlier run's other files (not the user's); the page says where a long table went."""
from __future__ import annotations

import pytest

from brecha import outputs
from brecha.cli.main import main
from brecha.errors import InputError
from brecha.report_files import FILES, parse_files_option
from brecha.study import parse_study

BASE = {"data": {"example": "chile"}, "units": {"region": "11"}, "period": "2010-2012",
        "analyses": {"rates": {}, "disparity": {}}}


def study_with(output) -> object:
    return parse_study({**BASE, "output": output})


def test_all_four_files_by_default():
    assert parse_study(BASE).files == FILES == ("page", "workbook", "tables", "dashboard")
    assert study_with({}).files == FILES


@pytest.mark.parametrize("names, expected", [
    (["tables"], ("tables",)),
    (["csv", "xlsx"], ("workbook", "tables")),            # aliases, in the report's own order
    (["dashboard", "html", "HTML"], ("page", "dashboard")),
    ("tables, workbook", ("workbook", "tables")),         # a text with commas, as names are written elsewhere
    (["tablas", "Página", "tablero", "libro"], FILES),     # the Spanish names
])
def test_the_files_named_by_the_study(names, expected):
    assert study_with({"files": names}).files == expected


@pytest.mark.parametrize("output, words", [
    ({"files": ["tables", "pdf", "word"]}, ["output.files", "'pdf'", "'word'", "page, workbook, tables, dashboard"]),
    ({"files": []}, ["output.files", "no file asked for"]),
    ({"files": 3}, ["output.files"]),
    ({"file": ["tables"]}, ["output.file", "files"]),
    ("tables", ["[output]"]),
])
def test_a_wrong_output_table_names_its_key(output, words):
    from brecha.i18n import set_language

    set_language("en")
    try:
        with pytest.raises(InputError) as err:
            study_with(output)
    finally:
        set_language("es")
    text = str(err.value)
    assert all(w in text for w in words), text


def test_the_command_line_option():
    assert parse_files_option("tables,workbook") == ("workbook", "tables")
    assert parse_files_option(" csv , page ") == ("page", "tables")
    with pytest.raises(InputError):
        parse_files_option("tables,pdf")
    with pytest.raises(InputError):
        parse_files_option(",")


@pytest.mark.parametrize("value, words", [("pdf", ["'pdf'"]), ("", ["no file asked for"])])
def test_a_wrong_option_stops_the_command_before_any_work(tiny_study_path, tmp_path, capsys, value, words):
    code = main(["--lang", "en", "report", str(tiny_study_path), "-o", str(tmp_path / "r"), "--files", value])
    err = capsys.readouterr().err
    assert code == 2 and "--files" in err and all(w in err for w in words) and not (tmp_path / "r").exists()


def test_fewer_files_are_the_full_reports_and_the_folder_keeps_only_them(tiny_study_path, tmp_path, capsys,
                                                                          files_of):
    def run(out, *files):
        outputs.forget_completed()
        assert main(["--lang", "en", "report", str(tiny_study_path), "-o", str(out), *files]) == 0
        return capsys.readouterr().out

    run(tmp_path / "full")
    full = files_of(tmp_path / "full")
    printed = run(tmp_path / "part", "--files", "tables")
    part = {n: v for n, v in files_of(tmp_path / "part").items() if not n.startswith(".")}
    assert sorted(part) == sorted(n for n in full if n.startswith("tables/")) and part
    assert all(part[n] == full[n] for n in part)
    assert "tables:" in printed and "report:" not in printed and "Excel:" not in printed
    # the same folder rewritten with the page and the workbook: the tables of the first run are removed
    # (the manifest rule), their empty folder too, a user's own file stays
    (tmp_path / "part" / "my notes.txt").write_text("mine", encoding="utf-8")
    printed = run(tmp_path / "part", "--files", "page,workbook")
    now = {n: v for n, v in files_of(tmp_path / "part").items() if not n.startswith(".")}
    assert not (tmp_path / "part" / "tables").exists()
    assert now["my notes.txt"] == b"mine"
    assert sorted(now) == sorted([n for n in full if n == "index.html" or n == "brecha.xlsx"
                                  or n.startswith("figures/")] + ["my notes.txt"])
    assert all(now[n] == full[n] for n in now if n != "my notes.txt")
    assert "report:" in printed and "Excel:" in printed and "tables:" not in printed


def test_the_study_file_chooses_and_the_option_wins(tiny_study_path, tmp_path, capsys):
    study = tmp_path / "study.toml"
    study.write_text(tiny_study_path.read_text(encoding="utf-8") + '\n[output]\nfiles = ["dashboard"]\n',
                     encoding="utf-8")
    outputs.forget_completed()
    assert main(["--lang", "en", "run", str(study), "-o", str(tmp_path / "a")]) == 0
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == [".brecha-manifest.json", "dashboard.html"]
    outputs.forget_completed()
    assert main(["--lang", "en", "run", str(study), "-o", str(tmp_path / "b"), "--files", "workbook"]) == 0
    assert sorted(p.name for p in (tmp_path / "b").iterdir()) == [".brecha-manifest.json", "brecha.xlsx"]


@pytest.mark.parametrize("files, where", [(("page", "tables"), "the full table is in tables/rates.csv"),
                                          (("page", "workbook"), "the full table is in brecha.xlsx"),
                                          (("page",), "the full table was not written")])
def test_the_page_says_where_a_long_table_is(files, where):
    """A table cut at 400 rows on the page: the note names the CSV file, else the workbook, else says the
    whole table was not written."""
    import dataclasses
    import types

    import pandas as pd

    from brecha.report.html import _table_file, table_html

    report = types.SimpleNamespace(study=dataclasses.replace(parse_study(BASE), files=files))
    df = pd.DataFrame({"unit": [str(i) for i in range(500)]})
    note = table_html(df, "en", max_rows=400, file=_table_file(report, "rates"))
    assert "Showing 400 of 500 rows" in note and where in note, note[-300:]


def test_the_python_api_takes_the_files_too(tiny_study_path, tmp_path):
    from brecha.study import run_study

    outputs.forget_completed()
    report = run_study(tiny_study_path, tmp_path / "api", files=["csv"])
    assert set(report.files) == {"tables"}
    assert sorted(p.name for p in (tmp_path / "api").iterdir()) == [".brecha-manifest.json", "tables"]


def test_an_empty_folder_of_the_users_own_is_left_alone(tiny_study_path, tmp_path):
    """Only a tables/ or figures/ folder brecha's earlier files were in is removed when left empty."""
    out = tmp_path / "r"
    (out / "figures").mkdir(parents=True)  # the user's own, empty, before any report
    outputs.forget_completed()
    assert main(["--lang", "en", "report", str(tiny_study_path), "-o", str(out), "--files", "tables"]) == 0
    assert (out / "figures").is_dir() and (out / "tables").is_dir()
