"""Every commune-year / municipality-year of the sources is accounted for (kept or excluded with a reason)."""
import warnings
from pathlib import Path

import pandas as pd
import pytest

from brecha import datasets

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "data"
COUNTS = ["rows", "births", "deaths"]


def _panel(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return datasets.chile() if name == "chile" else datasets.brazil()


@pytest.mark.parametrize("name", ["chile", "brazil"])
def test_read_equals_kept_plus_excluded(name):
    book = datasets.ledger(name)
    assert set(book.columns) == {"source", "year", "status", "reason", "rows", "births", "deaths"}
    for (source, year), part in book.groupby(["source", "year"]):
        read = part[part["status"] == "read"][COUNTS].sum()
        out = part[part["status"].isin(["kept", "excluded"])][COUNTS].sum()
        assert (read == out).all(), (source, year)


@pytest.mark.parametrize("name", ["chile", "brazil"])
def test_panel_equals_kept(name):
    panel = _panel(name)
    book = datasets.ledger(name)
    used = book[book["status"].isin(["kept", "filled"])]
    n = panel.data.groupby("year")[["births", "deaths"]].sum()
    assert (used.groupby("year")["deaths"].sum() == n["deaths"]).all()
    assert (used.groupby("year")["births"].sum() == n["births"]).all()


def test_chile_ledger_reasons():
    book = datasets.ledger("chile")
    excluded = book[book["status"] == "excluded"]
    dup = excluded[excluded["reason"].str.contains("duplicates the parent")]
    assert dup["rows"].sum() == 4 and dup["births"].sum() == 4366 + 3917 + 287 + 578
    assert book.loc[book["status"] == "filled", "rows"].sum() == 27


def test_unknown_ledger_message():
    with pytest.raises(Exception, match="peru"):
        datasets.ledger("peru")


# --- against the source files (skipped when ../shared is not there) -------------------------------------
needs_shared = pytest.mark.skipif(not SHARED.exists(), reason="shared source data not available")


@needs_shared
def test_chile_sources_sum_back():
    panel = _panel("chile").data
    book = datasets.ledger("chile")
    read = book[book["status"] == "read"].set_index(["source", "year"])
    # deaths: every commune-year of the source is a panel row, except the 16 empty pre-creation rows
    d = pd.read_csv(SHARED / "ine_defunciones_infantiles_comuna_2000_2015.csv", dtype={"codigo_comuna": str})
    assert len(d) == book[(book["source"] == "ine_defunciones_infantiles_comuna_2000_2015.csv")
                          & (book["status"] == "read")]["rows"].sum()
    keys_src = set(zip(d["codigo_comuna"], d["anio"]))
    keys_panel = set(zip(panel["unit"], panel["year"]))
    dropped = keys_src - keys_panel
    assert len(dropped) == 16 and all(y < 2004 for _, y in dropped)
    assert d.loc[[k in dropped for k in zip(d["codigo_comuna"], d["anio"])], "defunciones_menores_1_anio"].isna().all()
    by_year = d.groupby("anio")["defunciones_menores_1_anio"].sum()
    assert (by_year == panel.groupby("year")["deaths"].sum()).all()
    assert (read.loc["ine_defunciones_infantiles_comuna_2000_2015.csv", "deaths"] == by_year).all()
    # births: DEIS (2000-2009) and INE (2010-2015), summed back by year
    b = pd.read_csv(SHARED / "nacimientos_comuna_2000_2011_deis_via_bentancor_clarke.csv", dtype={"codigo_comuna": str})
    src_b = b.groupby("anio")["nacidos_vivos_madres_15_49"].sum()
    assert (read.loc["nacimientos_comuna_2000_2011_deis_via_bentancor_clarke.csv", "births"] == src_b).all()
    i = pd.read_csv(SHARED / "ine_nacidos_vivos_defunciones_comuna_2010_2015.csv", dtype={"codigo_comuna": str})
    src_i = i.groupby("anio")["nacidos_vivos"].sum()
    pb = panel.groupby("year")["births"].sum()
    assert (pb.loc[2010:2015] == src_i).all()
    dup_2000 = 4366 + 3917 + 287 + 578
    assert pb.loc[2000] == src_b.loc[2000] - dup_2000
    assert (pb.loc[2001:2009] == src_b.loc[2001:2009]).all()
    # every DEIS births row 2000-2009 is in the panel with the same value, except the 4 duplicates
    merged = b[b["anio"] <= 2009].merge(panel, left_on=["codigo_comuna", "anio"], right_on=["unit", "year"], how="left")
    missing = merged["births"].isna()
    assert missing.sum() == 4 and (merged.loc[missing, "anio"] == 2000).all()
    assert (merged.loc[~missing, "births"] == merged.loc[~missing, "nacidos_vivos_madres_15_49"]).all()


@needs_shared
def test_brazil_source_sums_back():
    panel = _panel("brazil").data
    book = datasets.ledger("brazil")
    src = pd.read_csv(SHARED / "brasil_obitos_infantis_nascidos_vivos_municipio_2000_2019.csv",
                      dtype={"cod_ibge_6": str})
    read = book[book["status"] == "read"].set_index("year")
    assert read["rows"].sum() == len(src) == 111639
    assert (read["deaths"] == src.groupby("ano")["obitos_infantis"].sum()).all()
    assert (read["births"] == src.groupby("ano")["nascidos_vivos"].sum()).all()
    excluded = book[book["status"] == "excluded"]
    assert excluded["rows"].sum() == len(src) - len(panel) == 239
    assert (src.groupby("ano")["obitos_infantis"].sum()
            == panel.groupby("year")["deaths"].sum() + excluded.groupby("year")["deaths"].sum()).all()
