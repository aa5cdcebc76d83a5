"""DEIS deaths ingest on real DEIS rows (Araucanía 2021, Lautaro 2016-2022).

The reference is the independent extract of infant-death records published with the sample
(tests/reference/deis_defunciones_infantiles_extracto_araucania.csv, UTF-8 with a header), counted here with
plain pandas: neonatal = EDAD_TIPO 4, or EDAD_TIPO 3 with EDAD_CANT < 28; post-neonatal = the other infant
rows (SOURCES.md, section 1).
"""
from __future__ import annotations

import warnings
from pathlib import Path

import pandas as pd
import pytest

from brecha.ingest.deis import ingest_deis
from brecha.ingest.deis_layout import DEATHS_COLUMNS

REF = Path(__file__).resolve().parents[1] / "reference"
RAW = REF / "deis_defunciones_formato_crudo_araucania_2021.csv"
EXTRACT = REF / "deis_defunciones_infantiles_extracto_araucania.csv"
SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "data"


def _extract(source: str) -> pd.DataFrame:
    ex = pd.read_csv(EXTRACT, dtype={"CODIGO_COMUNA_RESIDENCIA": str})
    ex = ex[ex["extracto_fuente"] == source].copy()
    ex["unit"] = ex["CODIGO_COMUNA_RESIDENCIA"].str.zfill(5)
    ex["neonatal"] = (ex["EDAD_TIPO"] == 4) | ((ex["EDAD_TIPO"] == 3) & (ex["EDAD_CANT"] < 28))
    return ex


@pytest.fixture(scope="module")
def araucania():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ingest_deis(deaths=[RAW])


def test_araucania_infant_deaths_by_commune_match_the_extract(araucania):
    ex = _extract("region_araucania_2021")
    expected = ex.groupby("unit").agg(deaths=("neonatal", "size"), deaths_neonatal=("neonatal", "sum"))
    expected["deaths_postneonatal"] = expected["deaths"] - expected["deaths_neonatal"]
    got = araucania.panel.data.set_index("unit")
    assert araucania.panel.years == [2021]
    assert len(got) == 32                                    # the 32 communes of the file
    assert int(got["deaths"].sum()) == 56
    assert int(got["deaths_neonatal"].sum()) == 41
    assert int(got["deaths_postneonatal"].sum()) == 15
    with_deaths = got[got["deaths"] > 0]
    assert sorted(with_deaths.index) == sorted(expected.index)
    for column in ("deaths", "deaths_neonatal", "deaths_postneonatal"):
        assert with_deaths[column].astype(int).to_dict() == expected[column].astype(int).to_dict(), column
    assert got["births"].isna().all()                        # no births file: not available, not zero


def test_araucania_ledger_accounts_for_every_row(araucania):
    totals = araucania.ledger.totals().iloc[0]
    assert totals["rows_read"] == 8619
    assert totals["counted"] == 56 and totals["excluded"] == 8563
    reasons = araucania.ledger.by_reason("deaths")
    # SOURCES.md: EDAD_TIPO counts 1: 8,563, 2: 14, 3: 19, 4: 23 (no age-1 record with EDAD_CANT 0)
    assert reasons["not_infant"] == 8563
    ex = _extract("region_araucania_2021")
    early = int(((ex["EDAD_TIPO"] == 4) | ((ex["EDAD_TIPO"] == 3) & (ex["EDAD_CANT"] < 7))).sum())
    assert reasons["infant_neonatal_early"] == early
    assert reasons["infant_neonatal_late"] == int(((ex["EDAD_TIPO"] == 3) & ex["EDAD_CANT"].between(7, 27)).sum())
    assert reasons["infant_postneonatal"] == 15
    assert sum(reasons.values()) == 8619
    by_age = araucania.deaths_by_age
    assert int(by_age["early_neonatal"].sum()) == early


def test_araucania_codes_are_current_2018_codes(araucania):
    codes = araucania.codes
    assert set(codes["status"]) == {"current"}
    assert codes["unit"].str.startswith("09").all() and int(codes["n"].sum()) == 8619


def test_araucania_in_english_and_spanish(araucania):
    assert "8,619" in araucania.ledger.format("en") and "rows read" in araucania.ledger.format("en")
    assert "filas leídas" in araucania.ledger.format("es")


@pytest.mark.skipif(not (SHARED / "deis_defunciones_comuna_lautaro_2016_2022.csv").exists(),
                    reason="../shared/data not available")
def test_lautaro_2016_2022_comma_separated_with_header():
    # a re-published copy: ',' separator, UTF-8, header row, quoted text fields
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = ingest_deis(deaths=[SHARED / "deis_defunciones_comuna_lautaro_2016_2022.csv"])
    ex = pd.concat([_extract("comuna_lautaro_2016_2022"), _extract("region_araucania_2021")])
    ex = ex[ex["unit"] == "09108"]
    expected = ex.groupby("ANO_DEF").agg(deaths=("neonatal", "size"), neo=("neonatal", "sum"))
    got = result.panel.data.set_index("year")
    assert result.panel.unit_codes == ["09108"]
    assert got["deaths"].astype(int).to_dict() == expected["deaths"].astype(int).to_dict()
    assert got["deaths_neonatal"].astype(int).to_dict() == expected["neo"].astype(int).to_dict()
    totals = result.ledger.totals().iloc[0]
    assert totals["rows_read"] == 1899 and totals["counted"] == 27


@pytest.mark.parametrize("header, warned", [
    (";".join(DEATHS_COLUMNS), False),                                   # DEIS names: found by name
    (";".join(c.lower() for c in DEATHS_COLUMNS), False),
    ("\ufeff" + ";".join(DEATHS_COLUMNS), False),                         # UTF-8 byte-order mark
    (";".join(c.replace("ANO_DEF", "AÑO_DEF").replace("EDAD_TIPO", "TIPO EDAD") for c in DEATHS_COLUMNS), True),
])
def test_a_header_on_the_real_rows_is_detected_and_not_counted(tmp_path, araucania, header, warned):
    f = tmp_path / "def.csv"
    f.write_bytes(header.encode("utf-8") + b"\n" + RAW.read_bytes())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = ingest_deis(deaths=[f])
    assert result.ledger.by_reason("deaths") == araucania.ledger.by_reason("deaths")   # 8,619, none lost
    assert result.panel.data.equals(araucania.panel.data)
    messages = [str(w.message) for w in caught]
    assert any("ANO_DEF" in m and "def.csv" in m for m in messages) == warned


def test_a_first_record_is_never_taken_for_a_header(tmp_path, araucania):
    # the first line of the raw file is a record (numbers in ANO_DEF, EDAD_TIPO...): it must be counted
    from brecha.ingest.deis_layout import inspect_deaths

    assert inspect_deaths(RAW).header is False
    assert araucania.ledger.totals().iloc[0]["rows_read"] == 8619


def _lautaro_rows(year: int) -> bytes:
    """The Lautaro (9108) rows of the raw Araucanía file, with their year of death rewritten."""
    rows = [r for r in RAW.read_bytes().split(b"\n") if r.split(b";")[5:6] == [b"9108"]]
    return b"\n".join(str(year).encode() + r[4:] for r in rows) + b"\n"


def test_a_one_commune_extract_covers_only_its_commune(tmp_path, araucania):
    # Araucanía 2021 (32 communes) + a Lautaro-only file of 2020: Temuco 2020 is not in any file, so its
    # deaths are not available (<NA>), not zero; Lautaro 2020 has the extract's counts
    extract = tmp_path / "lautaro_2020.csv"
    extract.write_bytes(_lautaro_rows(2020))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = ingest_deis(deaths=[RAW, extract])
    got = result.panel.data.set_index(["unit", "year"])
    lautaro_2021 = got.loc[("09108", 2021)]
    assert got.loc[("09108", 2020), "deaths"] == lautaro_2021["deaths"]
    assert got.loc[("09108", 2020), "deaths_neonatal"] == lautaro_2021["deaths_neonatal"]
    assert got.xs(2020, level="year").drop("09108")["deaths"].isna().all()
    assert got.xs(2021, level="year")["deaths"].notna().all()
    assert got.xs(2021, level="year")["deaths"].astype(int).sum() == 56
    assert any("31" in n and "<NA>" in n for n in result.panel.notes)       # 31 communes x 2020, said
    assert not any("09108 2020" in str(w.message) for w in caught)        # no overlap: no warning


def test_overlapping_files_are_warned_about(tmp_path):
    # the same Lautaro 2021 rows again beside the region's file: counted twice, so a warning names the cell
    extract = tmp_path / "lautaro_2021.csv"
    extract.write_bytes(_lautaro_rows(2021))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ingest_deis(deaths=[RAW, extract])
    messages = [str(w.message) for w in caught]
    assert any("09108 2021" in m and "lautaro_2021.csv" in m for m in messages), messages


def test_cli_in_spanish_prints_and_saves_the_ledger(tmp_path, capsys, monkeypatch):
    import brecha.i18n
    from brecha.cli.main import main as brecha_main

    monkeypatch.setitem(brecha.i18n._current, "lang", brecha.i18n.get_language())  # restored afterwards
    out = tmp_path / "araucania.csv"
    assert brecha_main(["--lang", "es", "ingest", "deis", "--deaths", str(RAW), "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "Registro de filas" in printed and "filas leídas" in printed and "8.619" in printed and "8,619" not in printed
    assert "56 defunciones infantiles (41 neonatales, 15 posneonatales)" in printed
    ledger = pd.read_csv(tmp_path / "araucania.ledger.csv")
    assert "edad 1 año o más (no es defunción infantil)" in set(ledger["label"])
    assert ledger["rows"].sum() == 8619 and ledger.loc[ledger["status"] == "counted", "rows"].sum() == 56
    panel = pd.read_csv(out)
    assert panel["deaths"].sum() == 56
