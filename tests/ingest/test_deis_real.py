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
