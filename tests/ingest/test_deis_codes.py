"""Commune codes of every period in DEIS deaths files, harmonised to the 2018 division.

The expected communes are written by hand from the code tables (INE/SUBDERE; ../shared/data/
comunas_codigos_historicos.csv): each case is one record, so every count is 0 or 1 and a wrong mapping
shows as a record in the wrong commune.
"""
from __future__ import annotations

import os
import warnings

import pytest

from brecha.ingest.deis import ingest_deis

TAIL = ";".join(["x"] * 19)

# (year of death, code as written, 2018 commune with split=keep, with split=merge); None = excluded
CASES = [
    (1998, "201", "15101", "15101"),      # Arica, pre-1999 3-digit code
    (2005, "1201", "15101", "15101"),     # Arica, 2000-2008 code (region I)
    (2005, " 1201", "15101", "15101"),    # with a leading space
    (2019, "15101", "15101", "15101"),    # Arica, current code
    (2005, "8401", "16101", "16101"),     # Chillán, Ñuble as province 84 of region VIII
    (2019, "8401", "16101", "16101"),     # an old code in a recent year: the only commune it ever meant
    (2005, "415", "16101", "16101"),      # Chillán, pre-1999 code, in a later year
    (2012, "8402", "16102", "16102"),     # Bulnes, 2010-2018 code
    (2005, "10501", "14101", "14101"),    # Valdivia, before region XIV (2007)
    (1998, "210", "01101", "01101"),      # Iquique and Alto Hospicio shared 210 before the 2004 split
    (2000, "0210", "01101", "01101"),     # ... with a leading zero
    (2005, "1107", "01107", "01101"),     # Alto Hospicio after its creation (2004)
    (1998, "445", "08311", "08311"),      # Los Ángeles (Alto Biobío's parent), pre-1999
    (1999, "507", "09111", "09111"),      # Nueva Imperial (Cholchol's parent), pre-1999
    (2005, "99999", None, None),          # commune not stated
    (2005, "8499", None, None),           # no commune of any period
    (2005, "12999", None, None),
]


@pytest.fixture()
def deaths_file(tmp_path):
    path = tmp_path / "defunciones.csv"
    lines = [f"{y};{y}-01-01;Mujer;3;5;{code};Ñuble;Región;{TAIL}" for y, code, _, _ in CASES]
    path.write_bytes(("\n".join(lines) + "\n").encode("latin-1"))
    return path


def _expected(column: int) -> dict:
    out: dict = {}
    for case in CASES:
        if case[column] is not None:
            key = (case[column], case[0])
            out[key] = out.get(key, 0) + 1
    return out


@pytest.mark.parametrize("split, column", [("keep", 2), ("merge", 3)])
def test_codes_of_every_period_count_in_their_2018_commune(deaths_file, split, column):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = ingest_deis(deaths=[deaths_file], split=split)
    data = result.panel.data.dropna(subset=["deaths"]).set_index(["unit", "year"])["deaths"].astype(int)
    assert data[data > 0].to_dict() == _expected(column)
    reasons = result.ledger.by_reason("deaths")
    assert reasons == {"infant_neonatal_early": 14, "commune_unknown": 1, "commune_unrecognised": 2}
    frame = result.ledger.to_frame("en")
    detail = frame.loc[frame["reason"] == "commune_unrecognised", "detail"].item()
    assert "8499 (1)" in detail and "12999 (1)" in detail
    assert any("8499" in str(w.message) for w in caught)            # and a warning lists them
    codes = result.codes.set_index(["code", "year"])
    assert codes.loc[(8401, 2005), "unit"] == "16101" and codes.loc[(8401, 2005), "status"] == "harmonised"


def test_chunk_size_variable_is_set_only_while_reading(deaths_file, monkeypatch):
    # polars reads POLARS_CSV_CHUNK_SIZE at each collect (it has no argument for it): brecha sets it while
    # its scans run, then restores the previous state; a value the user set is kept
    from brecha.ingest import deis_reader

    seen = []
    original = deis_reader._fast_query

    def spy(spec):
        seen.append(os.environ.get("POLARS_CSV_CHUNK_SIZE"))
        return original(spec)

    monkeypatch.setattr(deis_reader, "_fast_query", spy)
    monkeypatch.delenv("POLARS_CSV_CHUNK_SIZE", raising=False)
    for user_value in (None, "123456"):
        if user_value:
            monkeypatch.setenv("POLARS_CSV_CHUNK_SIZE", user_value)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ingest_deis(deaths=[deaths_file])
        assert os.environ.get("POLARS_CSV_CHUNK_SIZE") == user_value
    assert seen == [str(4 << 20), "123456"]
