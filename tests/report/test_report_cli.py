"""`brecha report` / `brecha run` from the command line: files, progress and the closing summary."""
import pandas as pd

from brecha.cli.main import main


def test_cli_report_writes_and_summarises(tiny_study_path, tmp_path, capsys):
    out = tmp_path / "rep"
    assert main(["--lang", "en", "report", str(tiny_study_path), "-o", str(out)]) == 0
    text = capsys.readouterr().out
    assert "Report ready in" in text
    assert str(out / "index.html") in text and str(out / "brecha.xlsx") in text
    assert "Caveats:" in text and "15-49" in text
    assert (out / "index.html").exists() and any((out / "tables").glob("*.csv"))
    # --lang en beats the study's language = "es"
    assert '<html lang="en">' in (out / "index.html").read_text(encoding="utf-8")


def test_cli_run_alias_and_spanish(tiny_study_path, tmp_path, capsys):
    out = tmp_path / "rep"
    assert main(["run", str(tiny_study_path), "-o", str(out)]) == 0
    text = capsys.readouterr().out
    assert "Informe listo en" in text
    national = pd.read_csv(out / "tables" / "rates_national.csv")
    assert list(national["year"]) == list(range(2008, 2013))
    # the first screen's headline, printed as text: the latest rate of the study area, to one decimal
    assert "Hallazgos principales:" in text
    last = national.iloc[-1]
    assert f"{last['estimate']:.1f}".replace(".", ",") in text.split("Hallazgos principales:")[1]


def test_cli_bad_study_is_a_clear_error(tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text('[data]\nexample = "chile"\n[analyses.rates]\nci = "guess"\n', encoding="utf-8")
    assert main(["--lang", "en", "report", str(bad), "-o", str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err
    assert "analyses.rates.ci" in err and str(bad) in err


def test_cli_study_and_example_together_is_refused(tiny_study_path, tmp_path, capsys):
    assert main(["--lang", "en", "report", str(tiny_study_path), "--example", "chile",
                 "-o", str(tmp_path)]) == 2
    assert "not both" in capsys.readouterr().err
