"""The CLI skeleton: --help, --lang, `brecha panel`, `brecha ingest table`, outputs by extension."""
from __future__ import annotations

import json

import pandas as pd
import pytest

from brecha.cli.main import main
from brecha.i18n import set_language


@pytest.fixture(autouse=True)
def spanish_afterwards():
    yield
    set_language("es")


def test_help_lists_the_commands(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert "panel" in out and "rates" in out


def test_panel_summary_of_the_chilean_example_in_english(capsys, tmp_path):
    out_file = tmp_path / "summary.json"
    assert main(["--lang", "en", "panel", "--example", "chile", "-o", str(out_file)]) == 0
    text = capsys.readouterr().out
    assert "346 units" in text and "mothers aged 15-49" in text and "Panel is valid." in text
    rows = {r["year"]: r for r in json.loads(out_file.read_text())}
    # INE published national IMR 2010-2015 (deaths / births x 1000)
    assert [round(rows[y]["imr"], 1) for y in range(2010, 2016)] == [7.4, 7.7, 7.4, 7.0, 7.3, 6.9]


def test_panel_messages_in_spanish(capsys):
    assert main(["--lang", "es", "panel", "--example", "chile"]) == 0
    assert "Panel válido." in capsys.readouterr().out


def test_bad_panel_file_exits_2_with_the_message(capsys, tmp_path):
    f = tmp_path / "bad.csv"
    f.write_text("unit,year,births,deaths\n13101,2010,100,-3\n")
    assert main(["--lang", "en", "panel", str(f)]) == 2
    err = capsys.readouterr().err
    assert "bad.csv" in err and "row 2" in err and "deaths" in err and "What to do" in err


@pytest.mark.parametrize("suffix", [".csv", ".parquet", ".xlsx", ".json"])
def test_ingest_table_writes_the_canonical_panel_by_extension(tmp_path, suffix, capsys):
    src = tmp_path / "in.csv"
    src.write_text("codigo_comuna,anio,nacidos_vivos,def\n9101,2010,3000,20\n13101,2010,4503,31\n")
    out = tmp_path / f"panel{suffix}"
    assert main(["ingest", "table", str(src), "--deaths-col", "def", "-o", str(out)]) == 0
    back = pd.read_json(out, dtype={"unit": str}) if suffix == ".json" else (
        pd.read_excel(out, dtype={"unit": str}) if suffix == ".xlsx" else
        pd.read_parquet(out) if suffix == ".parquet" else pd.read_csv(out, dtype={"unit": str}))
    assert back.columns[:4].tolist() == ["unit", "year", "births", "deaths"]
    assert back["unit"].tolist() == ["09101", "13101"]  # leading zero restored
    assert back["deaths"].tolist() == [20, 31]


def test_unknown_output_extension_is_refused(tmp_path, capsys):
    assert main(["panel", "--example", "chile", "-o", str(tmp_path / "x.txt")]) == 2
    assert ".csv" in capsys.readouterr().err


def test_ingest_table_lists_data_warnings_once(tmp_path, capsys):
    src = tmp_path / "w.csv"
    src.write_text("unit,year,births,deaths\n01101,2010,3,5\n13101,2010,0,0\n")
    assert main(["--lang", "en", "ingest", "table", str(src), "-o", str(tmp_path / "p.parquet")]) == 0
    captured = capsys.readouterr()
    text = captured.out + captured.err
    assert text.count("more deaths than births (e.g. 01101 2010)") == 1
    assert text.count("0 births: the rate is undefined") == 1 and "Warnings:" in captured.out


def test_the_cli_restores_the_warning_display_when_it_ends():
    import warnings

    before = warnings.showwarning
    assert main(["panel", "--example", "chile"]) == 0
    assert warnings.showwarning is before


def test_brazil_note_counts_in_the_language_of_the_session():
    from brecha import datasets

    set_language("es")
    es = " ".join(datasets.brazil().notes)
    set_language("en")
    en = " ".join(datasets.brazil().notes)
    assert "2.480 defunciones" in es  # 2,480 infant deaths of unknown municipality, left out of the panel
    assert "2,480 infant deaths" in en
