"""Numbers in terminal messages are written the language's way: 5,2 s and 8.619 in Spanish, 5.2 s and 8,619
in English (the report CLI's summary and progress, the DEIS record ledger, the report's counts)."""
from types import SimpleNamespace

import pandas as pd
import pytest

from brecha.cli.report import print_summary
from brecha.ingest.ledger import Ledger


def _fake_report(n_tables: int = 3, n_figures: int = 2):
    figures = [SimpleNamespace(filename=f"f{i}.svg") for i in range(n_figures)]
    return SimpleNamespace(headline={}, tables={f"t{i}": None for i in range(n_tables)}, figures=figures,
                           files={"html": "out/index.html", "excel": "out/brecha.xlsx", "tables": "out/tables",
                                  "figures": "out/figures"}, excluded=[], notes=[])


@pytest.mark.parametrize("lang, ready, tables", [("es", "Informe listo en 5,2 s:", "(1.234 tablas)"),
                                                 ("en", "Report ready in 5.2 s:", "(1,234 tables)")])
def test_summary_seconds_and_counts_in_the_language(capsys, lang, ready, tables):
    print_summary(_fake_report(n_tables=1234), 5.234, lang)
    text = capsys.readouterr().out
    assert ready in text and tables in text


def test_cli_spanish_summary_writes_seconds_with_a_comma(tiny_study_path, tmp_path, capsys):
    import re

    from brecha.cli.main import main

    assert main(["report", str(tiny_study_path), "-o", str(tmp_path / "rep")]) == 0  # the study says "es"
    text = capsys.readouterr().out
    assert re.search(r"Informe listo en \d+,\d s:", text), text


@pytest.mark.parametrize("lang, expected", [("es", "Carga (1.234,5 s)"), ("en", "Carga (1,234.5 s)")])
def test_progress_seconds_in_the_language(monkeypatch, lang, expected):
    from brecha.report import build

    ticks = iter([0.0, 1234.5])
    monkeypatch.setattr(build.time, "perf_counter", lambda: next(ticks))
    seen = []
    clock = build._Clock(seen.append, lang, {})
    with clock("Carga"):
        pass
    assert seen == [expected]


def _ledger():
    ledger = Ledger()
    ledger.start_file("DEF.csv", "deaths", 1_208_619)
    ledger.add("DEF.csv", "infant_neonatal_early", 8_619)
    ledger.add("DEF.csv", "not_infant", 1_200_000)
    ledger.start_file("NAC.csv", "births", 2_500)
    ledger.add("NAC.csv", "birth", 2_500)
    return ledger


def test_ledger_prints_thousands_the_spanish_way():
    text = _ledger().format("es")
    assert "1.208.619" in text and "8.619" in text and "1.200.000" in text and "2.500" in text
    assert "8,619" not in text and "1,208,619" not in text
    # the totals line of several files too
    assert "TOTAL defunciones: filas leídas 1.208.619, contadas 8.619, excluidas 1.200.000" in text
    # the columns stay aligned: every count ends in the same column
    counts = [line for line in text.splitlines() if line.rstrip().endswith(("1.208.619", "8.619", "1.200.000"))
              and not line.startswith("TOTAL")]
    assert len({len(line.rstrip()) for line in counts}) == 1


def test_ledger_prints_thousands_the_english_way():
    text = _ledger().format("en")
    assert "1,208,619" in text and "8,619" in text
    assert "TOTAL deaths: rows read 1,208,619, counted 8,619, excluded 1,200,000" in text


@pytest.mark.parametrize("lang, expected", [("es", "Se muestran 400 de 1.500 filas"),
                                            ("en", "Showing 400 of 1,500 rows")])
def test_report_table_more_rows_note_in_the_language(lang, expected):
    from brecha.report.html import table_html

    html = table_html(pd.DataFrame({"unit": [str(i) for i in range(1500)]}), lang, max_rows=400, file="t.csv")
    assert expected in html


def test_excluded_counts_in_the_language():
    from brecha.report.data import _count

    assert _count(5570, "es") == "5.570" and _count(5570, "en") == "5,570"
