"""The Argentine example: 24 provinces x 2005-2024 with infant, neonatal and post-neonatal deaths, checked
against the source file (read here with the csv module) and against the source's stated caveats."""
import csv
from pathlib import Path

import pandas as pd
import pytest

from brecha import datasets
from brecha.rates import rates

SOURCE = Path(__file__).resolve().parents[3] / "shared" / "data" / "argentina_provincias_neonatal_posneonatal_2005_2024.csv"


@pytest.fixture(scope="module")
def panel():
    return datasets.argentina()


@pytest.fixture(scope="module")
def rows():
    if not SOURCE.exists():
        pytest.skip("shared source data not available")
    with SOURCE.open(encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_shape_outcomes_and_country(panel):
    assert panel.country == "AR" and panel.years == list(range(2005, 2025))
    assert len(panel.unit_codes) == 24 and len(panel.data) == 480
    assert panel.outcomes == ["infant", "neonatal", "postneonatal"]
    d = panel.data
    assert (d["deaths_neonatal"] + d["deaths_postneonatal"] == d["deaths"]).all()
    assert datasets.example("ar") is not None and datasets.read_panel("example:argentina").country == "AR"


def test_counts_equal_the_source_file(panel, rows):
    provinces = [r for r in rows if r["prov"] not in ("00", "98", "99", "GBA")]
    assert len(provinces) == 480
    d = panel.data.set_index(["unit", "year"])
    for r in provinces:
        got = d.loc[(r["prov"], int(r["anio"]))]
        assert int(got["births"]) == int(float(r["nv"]))
        assert (int(got["deaths"]), int(got["deaths_neonatal"]), int(got["deaths_postneonatal"])) == \
            (int(r["def"]), int(r["neo"]), int(r["posneo"]))


def test_provinces_plus_unknown_residence_equal_the_country_row(panel, rows):
    """SOURCES.md: provinces (+98/99) sum to the country row in every year except 2016 (no 98/99 rows)."""
    country = {int(r["anio"]): int(r["def"]) for r in rows if r["prov"] == "00"}
    other = pd.Series(0, index=range(2005, 2025))
    for r in rows:
        if r["prov"] in ("98", "99"):
            other[int(r["anio"])] += int(r["def"])
    summed = panel.data.groupby("year")["deaths"].sum()
    for year in range(2005, 2025):
        if year == 2016:
            assert other[year] == 0 and summed[year] < country[year]
        else:
            assert summed[year] + other[year] == country[year], year


def test_published_national_rates():
    """DEIS Argentina's published country rates (country row 00): 2005 IMR 13.3, 2024 IMR 8.5, NMR 6.0."""
    ledger = datasets.ledger("argentina")
    assert set(ledger["status"]) == {"read", "kept", "excluded", "note"}
    d = datasets.argentina().data
    y = d[d["year"] == 2024][["births", "deaths", "deaths_neonatal"]].sum()
    assert round(1000 * y["deaths"] / y["births"], 1) == 8.5
    assert round(1000 * y["deaths_neonatal"] / y["births"], 1) == 6.0


def test_ledger_adds_up():
    book = datasets.ledger("argentina")
    totals = book.groupby("status")[["rows", "births", "deaths"]].sum()
    for column in ("rows", "deaths"):
        assert totals.loc["read", column] == totals.loc["kept", column] + totals.loc["excluded", column]
    excluded = book[book["status"] == "excluded"]
    assert excluded.groupby("reason")["rows"].sum().sort_index().tolist() == [19, 20, 19, 19]
    assert int(excluded[excluded["reason"].str.contains("prov 9")]["deaths"].sum()) == 603


def test_caveats_travel_in_the_notes(panel):
    text = " ".join(panel.notes)
    for fragment in ("2016", "2024", "GBA", "(99", "Pampeana"):
        assert fragment in text


def test_neonatal_days_table():
    t = datasets.argentina_table("neonatal_days")
    assert len(t) == 480
    split = t.dropna(subset=["deaths_neonatal_early", "deaths_neonatal_late"])
    assert (split["deaths_neonatal_early"] + split["deaths_neonatal_late"] == split["deaths_neonatal"]).all()
    assert set(t.loc[t["deaths_neonatal_early"].isna(), "year"]) == {2016, 2024}


def test_rates_by_outcome_equal_brute_force(panel):
    for outcome, column in (("infant", "deaths"), ("neonatal", "deaths_neonatal"),
                            ("postneonatal", "deaths_postneonatal")):
        r = rates(panel, outcome=outcome, years=[2024]).set_index("unit")
        row = panel.data[(panel.data["unit"] == "34") & (panel.data["year"] == 2024)].iloc[0]
        assert r.loc["34", "estimate"] == pytest.approx(1000 * row[column] / row["births"], rel=1e-12)


def test_regional_aggregation_sums_members(panel):
    ev = panel.events("postneonatal", years=[2010], level="region").set_index("unit")
    d = panel.data[panel.data["year"] == 2010].merge(panel.units[["unit", "region"]], on="unit")
    expected = d.groupby("region")["deaths_postneonatal"].sum()
    assert ev["events"].astype(int).to_dict() == expected.astype(int).to_dict()
