"""The shipped Araucanía 2021 example through the whole DEIS path a user takes: raw DEIS death rows and INE
births written to disk -> ``brecha ingest deis --births-table`` -> panel file -> neonatal and post-neonatal
rates, smoothing and disparity on the command line. Checked against the source's own commune counts and
rates (IMR 5.68, NMR 4.16, PNMR 1.52 per 1,000) and against brute-force arithmetic."""
import csv
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from brecha import datasets
from brecha.cli.main import main
from brecha.i18n import get_language, set_language
from brecha.panel import read_panel

SOURCE = (Path(__file__).resolve().parents[3] / "shared" / "data"
          / "araucania_2021_nacidos_ine_y_defunciones_infantiles_deis_por_comuna.csv")


@pytest.fixture(autouse=True)
def keep_language():
    before = get_language()
    yield
    set_language(before)


@pytest.fixture(scope="module")
def ingested(tmp_path_factory):
    folder = tmp_path_factory.mktemp("araucania")
    files = datasets.write_araucania_files(folder)
    out = folder / "panel.csv"
    code = main(["--lang", "en", "ingest", "deis", "--deaths", str(files["deaths"]),
                 "--births-table", str(files["births"]), "-o", str(out)])
    assert code == 0
    return folder, files, out


def _expected():
    """The source table's counts (the shared file when present, else the shipped copy of its columns)."""
    if SOURCE.exists():
        with SOURCE.open(encoding="utf-8") as handle:
            return {r["codigo_comuna"]: (int(r["nacidos_vivos"]), int(r["def_infantiles_deis"]),
                                         int(r["def_neonatales_deis"]), int(r["def_postneonatales_deis"]))
                    for r in csv.DictReader(handle)}
    b = datasets.araucania_births()
    return {u: (int(x), int(y), int(z), int(w)) for u, x, y, z, w in
            zip(b["unit"], b["births"], b["check_deaths"], b["check_deaths_neonatal"], b["check_deaths_postneonatal"])}


def test_raw_file_is_the_deis_layout(ingested):
    _, files, _ = ingested
    raw = files["deaths"].read_bytes()
    assert raw.count(b"\n") == 8619 and raw.split(b"\n")[0].count(b";") == 26
    raw.decode("latin-1")


def test_commune_counts_equal_the_file(ingested):
    _, _, out = ingested
    panel = read_panel(out)
    assert panel.country == "CL" and panel.years == [2021] and len(panel.unit_codes) == 32
    d = panel.data.set_index("unit")
    expected = _expected()
    assert set(d.index) == set(expected)
    for unit, (births, deaths, neo, post) in expected.items():
        row = d.loc[unit]
        assert (int(row["births"]), int(row["deaths"]), int(row["deaths_neonatal"]),
                int(row["deaths_postneonatal"])) == (births, deaths, neo, post), unit


def test_ledger_beside_the_panel_counts_every_row(ingested):
    _, _, out = ingested
    ledger = pd.read_csv(out.with_name("panel.ledger.csv"))
    by = ledger.groupby(["kind", "status"])["rows"].sum()
    assert by[("deaths", "counted")] == 56 and by[("deaths", "excluded")] == 8563
    assert by[("births", "counted")] == 32


@pytest.mark.parametrize("outcome, column, rate", [("infant", "deaths", 5.68), ("neonatal", "deaths_neonatal", 4.16),
                                                   ("postneonatal", "deaths_postneonatal", 1.52)])
def test_region_rates(ingested, outcome, column, rate):
    folder, _, out = ingested
    target = folder / f"rates_{outcome}.csv"
    assert main(["--lang", "es", "rates", str(out), "--outcome", outcome, "--level", "country", "-o",
                 str(target)]) == 0
    r = pd.read_csv(target)
    assert len(r) == 1 and round(float(r["estimate"].iloc[0]), 2) == rate
    births, deaths = 9860, {"deaths": 56, "deaths_neonatal": 41, "deaths_postneonatal": 15}[column]
    assert float(r["estimate"].iloc[0]) == pytest.approx(1000 * deaths / births, rel=1e-12)


def test_smoothing_is_marshall_global_moments(ingested):
    """Empirical Bayes (Marshall 1991, global prior) recomputed by hand for the neonatal rates."""
    folder, _, out = ingested
    target = folder / "smooth.csv"
    assert main(["--lang", "en", "smooth", str(out), "--outcome", "neonatal", "-o", str(target)]) == 0
    s = pd.read_csv(target, dtype={"unit": str})
    s["unit"] = s["unit"].str.zfill(5)
    expected = _expected()
    n = np.array([expected[u][0] for u in s["unit"]], dtype=float)
    d = np.array([expected[u][2] for u in s["unit"]], dtype=float)
    r = d / n
    m = d.sum() / n.sum()
    variance = max((n * (r - m) ** 2).sum() / n.sum() - m / n.mean(), 0.0)
    weight = variance / (variance + m / n)
    smoothed = 1000 * (m + weight * (r - m))
    assert np.allclose(s["estimate"].to_numpy(), smoothed, rtol=1e-9)
    assert s["prior_mean"].iloc[0] == pytest.approx(4.158215, abs=1e-6)


def test_disparity_against_temuco(ingested):
    folder, _, out = ingested
    target = folder / "disparity.csv"
    assert main(["--lang", "en", "disparity", str(out), "--outcome", "postneonatal", "--reference", "09101",
                 "-o", str(target)]) == 0
    t = pd.read_csv(target, dtype={"unit": str})
    rr = t[(t["measure"] == "rate_ratio") & (t["unit"] == "09120")]      # Villarrica
    births, post = _expected()["09120"][0], _expected()["09120"][3]
    assert float(rr["estimate"].iloc[0]) == pytest.approx((post / births) / (3 / 2871), rel=1e-12)


def test_example_araucania_is_the_same_panel(ingested):
    _, _, out = ingested
    example = datasets.araucania()
    mine = read_panel(out).data.set_index("unit").sort_index()
    theirs = example.data.set_index("unit").sort_index()
    cols = ["births", "deaths", "deaths_neonatal", "deaths_postneonatal"]
    pd.testing.assert_frame_equal(mine[cols], theirs[cols], check_dtype=False)


def test_births_table_rows_outside_the_deaths_files_are_excluded_and_counted(tmp_path, capsys):
    files = datasets.write_araucania_files(tmp_path)
    table = pd.read_csv(files["births"], dtype=str)
    extra = pd.DataFrame({"codigo_comuna": ["13101", ""], "nombre_comuna": ["Santiago", "Total regional"],
                          "anio": ["2021", "2021"], "nacidos_vivos": ["5000", "9860"]})
    extra.loc[1, "codigo_comuna"] = "Total regional"
    births = tmp_path / "births_plus.csv"
    pd.concat([table, extra]).to_csv(births, index=False)
    out = tmp_path / "p.csv"
    assert main(["--lang", "en", "ingest", "deis", "--deaths", str(files["deaths"]), "--births-table", str(births),
                 "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "not added" in printed
    ledger = pd.read_csv(tmp_path / "p.ledger.csv")
    births_rows = ledger[ledger["kind"] == "births"].set_index("reason")["rows"]
    assert births_rows.to_dict() == {"aggregate_row": 1, "births_table_row": 32, "births_table_no_deaths": 1}
    assert read_panel(out).data["births"].sum() == 9860


def test_births_table_errors_name_rows(tmp_path, capsys):
    files = datasets.write_araucania_files(tmp_path)
    table = pd.read_csv(files["births"], dtype=str)
    table.loc[3, "nacidos_vivos"] = "-4"
    bad = tmp_path / "bad.csv"
    table.to_csv(bad, index=False)
    assert main(["--lang", "en", "ingest", "deis", "--deaths", str(files["deaths"]), "--births-table", str(bad),
                 "-o", str(tmp_path / "x.csv")]) == 2
    err = capsys.readouterr().err
    assert "bad.csv" in err and "5" in err and "nacidos_vivos" in err
    table = pd.read_csv(files["births"], dtype=str)
    table.loc[0, "codigo_comuna"] = "77777"
    table.to_csv(bad, index=False)
    assert main(["--lang", "es", "ingest", "deis", "--deaths", str(files["deaths"]), "--births-table", str(bad),
                 "-o", str(tmp_path / "x.csv")]) == 2
    assert "77777" in capsys.readouterr().err


def _infant_only(files, folder):
    """The deaths file cut to its infant deaths (EDAD_TIPO 2-4: months, days, hours; EDAD_TIPO 1 with age 0
    too), as a ministry's extract of infant deaths is: a commune without an infant death has no row at all."""
    lines = files["deaths"].read_text(encoding="latin-1").splitlines(keepends=True)
    keep = [line for line in lines if line.split(";")[3] in ("2", "3", "4")
            or (line.split(";")[3] == "1" and line.split(";")[4] == "0")]
    path = folder / "defunciones_infantiles.csv"
    path.write_text("".join(keep), encoding="latin-1")
    return path


@pytest.mark.parametrize("lang", ["en", "es"])
def test_an_infant_only_extract_with_deaths_cover_births_table_counts_communes_without_a_death(tmp_path, capsys,
                                                                                              lang):
    """An extract of infant deaths only has no record of a commune-year without one, so brecha cannot tell it
    from a commune the extract does not cover: by default those births rows are left out (with a hint
    naming the option), and Araucanía 2021 comes out at 56 / 7,702 = 7.27 per 1,000. With --deaths-cover
    births-table (the user's word that the extract covers the table's communes) they count 0 deaths: every
    birth is in, and the region's rate is the all-deaths file's, 56 / 9,860 = 5.68 (the source's own)."""
    files = datasets.write_araucania_files(tmp_path)
    deaths = _infant_only(files, tmp_path)
    default, covered = tmp_path / "default.csv", tmp_path / "covered.csv"
    assert main(["--lang", lang, "ingest", "deis", "--deaths", str(deaths), "--births-table", str(files["births"]),
                 "-o", str(default)]) == 0
    printed = capsys.readouterr().out
    assert "--deaths-cover births-table" in printed
    d = read_panel(default).data
    assert (int(d["deaths"].sum()), int(d["births"].sum())) == (56, 7702)
    assert main(["--lang", lang, "ingest", "deis", "--deaths", str(deaths), "--births-table", str(files["births"]),
                 "--deaths-cover", "births-table", "-o", str(covered)]) == 0
    printed = capsys.readouterr().out
    assert ("counted with 0 infant deaths" if lang == "en" else "se cuentan con 0 defunciones infantiles") in printed
    c = read_panel(covered).data.set_index("unit").sort_index()
    assert (int(c["deaths"].sum()), int(c["births"].sum()), len(c)) == (56, 9860, 32)
    assert round(1000 * 56 / 9860, 2) == 5.68
    expected = _expected()
    for unit, (births, infant, neonatal, post) in expected.items():  # every commune equals the source table
        assert tuple(int(v) for v in c.loc[unit, ["births", "deaths", "deaths_neonatal", "deaths_postneonatal"]]) \
            == (births, infant, neonatal, post), unit
    ledger = pd.read_csv(tmp_path / "covered.ledger.csv")
    rows = ledger[ledger["kind"] == "births"].set_index("reason")["rows"].to_dict()
    assert rows == {"births_table_row": 18, "births_table_zero_deaths": 14}  # reasons with 0 rows are not listed


def test_deaths_cover_needs_a_births_table(tmp_path, capsys):
    files = datasets.write_araucania_files(tmp_path)
    assert main(["--lang", "en", "ingest", "deis", "--deaths", str(files["deaths"]), "--deaths-cover",
                 "births-table", "-o", str(tmp_path / "p.csv")]) == 2
    assert "--deaths-cover births-table needs --births-table" in capsys.readouterr().err
    assert not (tmp_path / "p.csv").exists()


def test_a_births_table_with_a_commune_column_as_the_help_says(tmp_path):
    """The option's help says "columns commune, year, births": a column named 'commune' is the commune code."""
    files = datasets.write_araucania_files(tmp_path)
    table = pd.read_csv(files["births"], dtype=str).rename(columns={"codigo_comuna": "commune", "anio": "year",
                                                                     "nacidos_vivos": "births"})
    births = tmp_path / "births_en.csv"
    table.to_csv(births, index=False)
    out = tmp_path / "p.csv"
    assert main(["--lang", "en", "ingest", "deis", "--deaths", str(files["deaths"]), "--births-table", str(births),
                 "-o", str(out)]) == 0
    assert int(read_panel(out).data["births"].sum()) == 9860
