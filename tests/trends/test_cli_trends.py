"""`brecha trends` end to end: the column contract, REFERENCE.md C.3 through the CLI, joinpoint rows."""
import numpy as np
import pandas as pd
import pytest

from brecha.cli.main import main
from brecha.i18n import get_language, set_language

CONTRACT = ["unit", "outcome", "n_years", "slope", "se", "p_value", "rho", "apc", "apc_lower", "apc_upper",
            "trend", "method"]


@pytest.fixture(autouse=True)
def keep_language():
    lang = get_language()
    yield
    set_language(lang)


@pytest.fixture
def panel_file(tmp_path):
    years = np.arange(2005, 2015)
    imr = np.array([9.1, 8.8, 8.6, 8.9, 8.2, 7.9, 7.8, 7.6, 7.4, 7.2])
    rows = [("A", int(y), 100_000, int(round(r * 100))) for y, r in zip(years, imr)]
    rows += [("B", int(y), 100_000, int(round(r * 100))) for y, r in zip(years, imr[::-1])]
    rows += [("C", int(y), 400, d) for y, d in zip(years, [2, 0, 3, 1, 0, 0, 2, 1, 2, 3])]
    path = tmp_path / "panel.csv"
    pd.DataFrame(rows, columns=["unit", "year", "births", "deaths"]).to_csv(path, index=False)
    return path


def test_cli_prais_winsten_contract_and_c3(panel_file, tmp_path, capsys):
    out = tmp_path / "trends.csv"
    assert main(["--lang", "en", "trends", str(panel_file), "-o", str(out)]) == 0
    table = pd.read_csv(out, dtype={"unit": str})
    assert list(table.columns[:12]) == CONTRACT
    a = table.set_index("unit").loc["A"]
    assert a["apc"] == pytest.approx(-2.6182, abs=5e-5)
    assert a["apc_lower"] == pytest.approx(-3.0637, abs=5e-5)
    assert a["apc_upper"] == pytest.approx(-2.1706, abs=5e-5)
    assert a["trend"] == "decreasing" and a["method"] == "prais-winsten"
    b = table.set_index("unit").loc["B"]
    assert b["trend"] == "increasing"
    c = table.set_index("unit").loc["C"]
    assert c["zero_rule"] == "add-half" and c["zero_years"] == 3
    text = capsys.readouterr().out
    assert "1 decreasing" in text and "1 increasing" in text and "add-half" in text


def test_cli_options_and_spanish_labels(panel_file, tmp_path):
    out = tmp_path / "t.csv"
    assert main(["--lang", "es", "trends", str(panel_file), "--df", "n-1", "--zero", "skip", "--rho", "dw",
                 "--years", "2005-2014", "--all-columns", "-o", str(out)]) == 0
    table = pd.read_csv(out, dtype={"unit": str}).set_index("unit")
    assert table.loc["A", "trend_label"] == "decreciente" and table.loc["A", "df"] == 9
    assert table.loc["A", "rho_method"] == "dw"
    assert np.isnan(table.loc["C", "slope"]) and table.loc["C", "zero_rule"] == "skip"


def test_cli_joinpoint_rows(panel_file, tmp_path):
    out = tmp_path / "jp.csv"
    assert main(["trends", str(panel_file), "--method", "joinpoint", "--max-joinpoints", "1",
                 "--aapc-years", "2008-2014", "-o", str(out)]) == 0
    table = pd.read_csv(out, dtype={"unit": str})
    assert list(table.columns[:12]) == CONTRACT
    assert {"row", "segment", "start_year", "end_year", "joinpoints"} <= set(table.columns)
    a = table[table.unit == "A"]
    assert a["row"].iloc[0] == "aapc" and set(a["row"].iloc[1:]) == {"segment"} and set(a["method"]) == {"joinpoint"}
    assert a["start_year"].iloc[0] == 2008 and a["end_year"].iloc[0] == 2014


def test_cli_bad_outcome_message(panel_file, capsys):
    assert main(["--lang", "en", "trends", str(panel_file), "--outcome", "neonatal"]) == 2
    err = capsys.readouterr().err
    assert "neonatal" in err


def test_cli_summary_flags_and_panel_notes(tmp_path, capsys):
    """Real Chile data: the Spanish summary names the classes with the shared labels, counts the sparse
    communes, and prints the panel's caveats (births 2000-2009 of mothers 15-49 only)."""
    out = tmp_path / "cl.csv"
    assert main(["--lang", "es", "trends", "--example", "chile", "-o", str(out)]) == 0
    text = capsys.readouterr().out
    assert "decrecientes" in text and "crecientes" in text and "estacionarias" in text
    assert "51 sin clasificar" in text and "10 sin estimación" in text and "add-half" in text
    assert "\nNotas:\n  - " in text and "15 a 49" in text  # the same notes block as every command
    assert "(alpha 0,05)" in text  # a number in a Spanish sentence takes a decimal comma
    table = pd.read_csv(out, dtype={"unit": str}).set_index("unit")
    assert {"first_year", "last_year", "sparse"} <= set(table.columns)
    assert table.loc["01107", "first_year"] == 2005 and "2004" in table.loc["01107", "note"]
    assert main(["--lang", "en", "trends", "--example", "chile", "--max-zero-share", "1", "-o", str(out)]) == 0
    assert "0 not classified" in capsys.readouterr().out
    assert main(["--lang", "en", "trends", "--example", "brazil", "--level", "country", "--incomplete", "drop",
                 "-o", str(out)]) == 0
    assert pd.read_csv(out).iloc[0]["n_years"] == 7
    assert main(["--lang", "en", "trends", "--example", "chile", "--max-zero-share", "2"]) == 2
    assert "option --max-zero-share: the largest share of years without deaths" in capsys.readouterr().err
