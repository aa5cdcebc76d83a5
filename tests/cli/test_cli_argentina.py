"""The Argentine example through every command and the report, in Spanish and English (issue 18)."""
from __future__ import annotations

import pandas as pd
import pytest

from brecha import datasets
from brecha.cli.main import main
from brecha.i18n import get_language, set_language
from brecha.study import example_path


@pytest.fixture(autouse=True)
def keep_language():
    before = get_language()
    yield
    set_language(before)


@pytest.fixture(scope="module")
def data():
    return datasets.argentina().data


COMMANDS = [
    ["panel", "--example", "argentina"],
    ["rates", "--example", "argentina", "--years", "2024", "--outcome", "neonatal"],
    ["rates", "--example", "argentina", "--years", "2010", "--level", "region", "--outcome", "postneonatal"],
    ["disparity", "--example", "argentina", "--years", "2024", "--reference", "02"],
    ["smooth", "--example", "argentina", "--years", "2020-2024", "--pool", "--outcome", "postneonatal"],
    ["funnel", "--example", "argentina", "--years", "2024"],
    ["inequality", "--example", "argentina", "--years", "2024", "--measures", "d,r,gini", "--outcome", "neonatal"],
    ["trends", "--example", "argentina", "--years", "2005-2024", "--outcome", "postneonatal"],
    ["rates", "--example", "argentina", "--years", "2015", "--region", "Patagonia"],
]


@pytest.mark.parametrize("lang", ["es", "en"])
@pytest.mark.parametrize("args", COMMANDS, ids=[" ".join(a[:1] + a[3:]) for a in COMMANDS])
def test_every_command_runs(args, lang, capsys):
    assert main(["--lang", lang, *args]) == 0, capsys.readouterr().err
    out = capsys.readouterr().out
    assert "Chile" not in out and "comuna" not in out.lower() and "commune" not in out.lower()


def test_rates_file_equals_brute_force(tmp_path, data):
    out = tmp_path / "r.csv"
    assert main(["--lang", "en", "rates", "--example", "argentina", "--years", "2024", "--outcome",
                 "postneonatal", "-o", str(out)]) == 0
    r = pd.read_csv(out, dtype={"unit": str}).set_index("unit")
    assert len(r) == 24
    d = data[data["year"] == 2024].set_index("unit")
    expected = 1000 * d["deaths_postneonatal"].astype(float) / d["births"].astype(float)
    assert r["estimate"].sort_index().to_numpy() == pytest.approx(expected.sort_index().to_numpy(), rel=1e-12)


def test_region_option_takes_indec_names(tmp_path):
    out = tmp_path / "r.csv"
    assert main(["--lang", "en", "rates", "--example", "argentina", "--years", "2015", "--region", "Noreste",
                 "-o", str(out)]) == 0
    assert sorted(pd.read_csv(out, dtype={"unit": str})["unit"]) == ["18", "22", "34", "54"]


def test_models_without_covariates_is_a_clear_refusal(capsys):
    assert main(["--lang", "en", "models", "--example", "argentina"]) == 2
    assert "covariate" in capsys.readouterr().err.lower()


@pytest.mark.parametrize("lang, words", [("es", ("provincias", "Argentina", "posneonatal")),
                                         ("en", ("provinces", "Argentina", "post-neonatal"))])
def test_report_in_both_languages(tmp_path, lang, words, capsys):
    out = tmp_path / f"rep_{lang}"
    assert main(["--lang", lang, "report", str(example_path("argentina")), "-o", str(out)]) == 0
    html = (out / "index.html").read_text(encoding="utf-8")
    for word in words:
        assert word in html
    figures = {p.name for p in (out / "figures").iterdir()}
    assert {"map_rate.svg", "map_smoothed.svg", "map_trend.svg"} <= figures
    assert "national_rate_neonatal.svg" in figures and "national_rate_postneonatal.svg" in figures
    # nothing Chilean where the registry answers: no commune wording anywhere in the page
    assert "comuna" not in html.lower() and "commune" not in html.lower()


def test_a_province_table_by_names_is_read_with_the_argentine_registry(tmp_path, data):
    """A user's table keyed by province names (no codes, no --country): the registry is found from the names,
    the country and GBA rows are excluded and counted, and the counts come through unchanged."""
    from brecha.panel import read_panel

    names = datasets.argentina().units.set_index("unit")["name"]
    d = data[data["year"] == 2020].copy()
    table = pd.DataFrame({"provincia": d["unit"].map(names).str.upper(), "anio": d["year"],
                          "births": d["births"].astype(int), "deaths": d["deaths"].astype(int)})
    table.loc[table["provincia"].str.startswith("CIUDAD"), "provincia"] = "CABA"
    extra = pd.DataFrame({"provincia": ["Total del país", "GBA"], "anio": [2020, 2020],
                          "births": [int(d["births"].sum()), 1], "deaths": [int(d["deaths"].sum()), 1]})
    source = tmp_path / "provincias.csv"
    pd.concat([table, extra]).to_csv(source, index=False)
    out = tmp_path / "p.csv"
    assert main(["--lang", "en", "ingest", "table", str(source), "--name-col", "provincia", "-o", str(out)]) == 0
    panel = read_panel(out)
    assert panel.country == "AR" and len(panel.unit_codes) == 24
    assert int(panel.data["deaths"].sum()) == int(d["deaths"].sum())
    ledger = pd.read_csv(tmp_path / "p.ledger.csv")
    assert int(ledger.loc[ledger["reason"] == "aggregate_row", "rows"].sum()) == 2


def test_araucania_report_reads_the_raw_rows(tmp_path):
    """The Araucanía 2021 example study: from raw DEIS rows to a report with neonatal and post-neonatal
    sections; the region's rates are the source's (NMR 4.16, PNMR 1.52 per 1,000)."""
    out = tmp_path / "rep"
    assert main(["--lang", "en", "report", str(example_path("araucania")), "-o", str(out)]) == 0
    figures = {p.name for p in (out / "figures").iterdir()}
    assert {"map_rate.svg", "map_smoothed.svg"} <= figures
    html = (out / "index.html").read_text(encoding="utf-8")
    assert "Neonatal mortality rate" in html and "Post-neonatal mortality rate" in html
    assert "4.16" in html and "1.52" in html


def test_example_araucania_on_the_command_line(tmp_path):
    out = tmp_path / "r.csv"
    assert main(["--lang", "es", "rates", "--example", "araucania", "--outcome", "postneonatal", "--level",
                 "country", "-o", str(out)]) == 0
    r = pd.read_csv(out)
    assert int(r["events"].iloc[0]) == 15 and int(r["births"].iloc[0]) == 9860
    assert round(float(r["estimate"].iloc[0]), 2) == 1.52
