"""Through the real CLI: -o never destroys an input, is checked before any work, multi-file outputs appear whole
or not at all, and Ctrl-C prints one line and exits 130 (issue 11, points 4-6; brecha.outputs)."""
import errno
import hashlib
import os
import shutil
from pathlib import Path

import pandas as pd
import pytest

import brecha.i18n
from brecha import io
from brecha.cli.main import main
from brecha.datasets import chile

REFERENCE = Path(__file__).parents[1] / "reference"
RAW_DEATHS = REFERENCE / "deis_defunciones_formato_crudo_araucania_2021.csv"


@pytest.fixture(autouse=True)
def keep_language(monkeypatch):
    monkeypatch.setitem(brecha.i18n._current, "lang", brecha.i18n.get_language())  # restored afterwards


@pytest.fixture()
def panel_file(tmp_path):
    path = tmp_path / "data" / "panel.csv"
    path.parent.mkdir()
    chile().subset(region="11").to_file(path)
    return path


def digest(path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def hidden_leftovers(folder) -> list[str]:
    return [p.name for p in Path(folder).rglob("*") if "brecha-tmp" in p.name or "brecha-lock" in p.name]


@pytest.mark.parametrize("how", ["same", "relative", "symlink", "ledger"])
def test_o_equal_to_the_input_is_refused_before_any_work(panel_file, tmp_path, monkeypatch, capsys, how):
    ledger = panel_file.with_name("panel.ledger.json")
    ledger.write_text('{"totals": [], "entries": [], "notes": []}')
    before = {p: digest(p) for p in (panel_file, ledger)}
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sub").mkdir()
    (tmp_path / "link.csv").symlink_to(panel_file)
    out = {"same": str(panel_file), "relative": "sub/../data/panel.csv", "symlink": "link.csv",
           "ledger": "data/panel.ledger.json"}[how]
    assert main(["--lang", "en", "rates", "data/panel.csv", "-o", out]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""  # nothing computed, nothing printed
    expected = "panel.ledger.json" if how == "ledger" else "panel.csv"
    assert f"the output is the input file data/{expected}; it would be lost" in captured.err
    assert "choose another output name with -o" in captured.err
    assert {p: digest(p) for p in before} == before
    assert main(["--lang", "es", "models", "data/panel.csv", "--covariates", "poverty", "-o", out]) == 2
    assert "la salida es el archivo de entrada" in capsys.readouterr().err
    assert {p: digest(p) for p in before} == before


def test_ingest_deis_refuses_an_output_whose_ledger_is_an_input(tmp_path, capsys):
    deaths = tmp_path / "araucania.ledger.csv"  # an odd name, but the user's file
    shutil.copy(RAW_DEATHS, deaths)
    before = digest(deaths)
    out = tmp_path / "araucania.csv"
    assert main(["--lang", "en", "ingest", "deis", "--deaths", str(deaths), "-o", str(out)]) == 2
    captured = capsys.readouterr()
    assert f"the output is the input file {deaths}" in captured.err and captured.out == ""
    assert digest(deaths) == before and sorted(os.listdir(tmp_path)) == ["araucania.ledger.csv"]
    assert main(["--lang", "en", "ingest", "deis", "--deaths", str(deaths), "-o", str(deaths)]) == 2
    assert digest(deaths) == before


@pytest.mark.parametrize("lang, words", [("en", "unknown output type '.txt'"),
                                         ("es", "tipo de salida '.txt' desconocido")])
def test_unknown_output_extension_is_refused_before_the_work(tmp_path, capsys, lang, words):
    out = tmp_path / "coefficients.txt"
    assert main(["--lang", lang, "models", "--example", "chile", "--covariates", "poverty", "-o", str(out)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""  # the models' summary is printed before writing: not reached
    assert words in captured.err and str(out) in captured.err
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("lang, words", [
    ("en", "brecha does not write the old Excel 97-2003 format (.xls). What to do: use .xlsx (e.g. -o rates.xlsx)"),
    ("es", "brecha no escribe el formato antiguo de Excel 97-2003 (.xls). Qué hacer: use .xlsx (p. ej. -o rates.xlsx)")])
def test_xls_output_is_refused_not_written_as_xlsx_bytes(tmp_path, capsys, lang, words):
    """Before: .xls became .xlsx bytes under an .xls name, which Excel opens only after a warning."""
    from brecha.errors import InputError
    from brecha.io import write_table

    out = tmp_path / "rates.xls"
    assert main(["--lang", lang, "rates", "--example", "chile", "--years", "2010", "-o", str(out)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and words in captured.err and str(out) in captured.err
    assert os.listdir(tmp_path) == []
    with pytest.raises(InputError, match=r"\.xls"):
        write_table(pd.DataFrame({"a": [1]}), out)
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("lang, words, example", [("en", "-o names an existing folder", "results.csv"),
                                                   ("es", "-o nombra una carpeta existente", "resultados.csv")])
def test_o_naming_a_folder_for_a_file_output(tmp_path, capsys, lang, words, example):
    (tmp_path / "results").mkdir()
    assert main(["--lang", lang, "rates", "--example", "chile", "-o", str(tmp_path / "results")]) == 2
    err = capsys.readouterr().err
    assert words in err and str(tmp_path / "results" / example) in err
    assert os.listdir(tmp_path / "results") == []


def test_funnel_o_and_curve_naming_one_file_are_refused(tmp_path, capsys):
    out = tmp_path / "f.csv"
    assert main(["--lang", "en", "funnel", "--example", "chile", "-o", str(out), "--curve", str(out)]) == 2
    assert "two outputs name the same file" in capsys.readouterr().err and not out.exists()


def test_models_files_appear_all_or_none(panel_file, tmp_path, monkeypatch, capsys):
    out = tmp_path / "coef.csv"
    args = ["--lang", "en", "models", str(panel_file), "--covariates", "poverty", "--models", "pooled,fe",
            "-o", str(out)]
    assert main(args) == 0
    names = ["coef.csv", "coef.tests.csv", "coef.notes.csv", "coef.fit_info.csv"]
    assert sorted(p.name for p in tmp_path.glob("coef*")) == sorted(names)
    before = {n: digest(tmp_path / n) for n in names}
    capsys.readouterr()
    real = io._write_now

    def disk_full_on_the_last(df, path, suffix, sheets):
        real(df, path, suffix, sheets)
        if "fit_info" in Path(path).name:
            raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(io, "_write_now", disk_full_on_the_last)
    args[args.index("pooled,fe")] = "pooled"  # different coefficients: a partial update would show
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "the disk is full" in err and "coef.fit_info.csv" in err
    assert {n: digest(tmp_path / n) for n in names} == before
    assert hidden_leftovers(tmp_path) == []


def test_ctrl_c_in_ingest_deis_leaves_neither_panel_nor_ledger(tmp_path, monkeypatch, capsys):
    from brecha.ingest.ledger import Ledger

    real = Ledger.save

    def save_then_interrupt(self, output):
        real(self, output)  # staged with the panel: nothing is in place yet
        raise KeyboardInterrupt

    monkeypatch.setattr(Ledger, "save", save_then_interrupt)
    out = tmp_path / "out" / "araucania.parquet"
    assert main(["--lang", "en", "ingest", "deis", "--deaths", str(RAW_DEATHS), "-o", str(out), "--quiet"]) == 130
    captured = capsys.readouterr()
    assert captured.err == "Interrupted: nothing was written\n"
    assert "Traceback" not in captured.out
    assert list((tmp_path / "out").iterdir()) == []
    monkeypatch.setattr(Ledger, "save", real)
    assert main(["--lang", "es", "ingest", "deis", "--deaths", str(RAW_DEATHS), "-o", str(out), "--quiet"]) == 0
    assert {"araucania.ledger.csv", "araucania.ledger.json", "araucania.parquet"} <= set(os.listdir(out.parent))
    assert int(pd.read_parquet(out)["deaths"].sum()) == 56


def test_ctrl_c_after_the_report_is_written_says_it_was_kept(tmp_path, monkeypatch, capsys):
    from brecha.cli import report as cli_report

    study = tmp_path / "tiny.toml"
    study.write_text('period = "2010-2012"\n[data]\nexample = "chile"\n[units]\nregion = "11"\n[analyses.rates]\n',
                     encoding="utf-8")

    def interrupt(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli_report, "print_summary", interrupt)
    out = tmp_path / "rep"
    assert main(["--lang", "es", "report", str(study), "-o", str(out)]) == 130
    err = capsys.readouterr().err
    assert err == f"Interrumpido: se conservan completos {out}; nada más se escribió\n"
    assert (out / "index.html").read_text(encoding="utf-8").rstrip().endswith("</html>")
    assert hidden_leftovers(tmp_path) == []
