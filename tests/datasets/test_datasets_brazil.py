"""The embedded Brazilian panel: 5,570 municipalities x 2000-2019, published national totals."""
import pytest

from brecha import datasets


@pytest.fixture(scope="module")
def brazil():
    return datasets.brazil()


def test_shape(brazil):
    assert brazil.country == "BR" and len(brazil.units) == 5570
    assert brazil.years == list(range(2000, 2020)) and len(brazil.data) == 5570 * 20
    assert set(brazil.covariates) == {"health_spending_per_capita", "population"}
    assert str(brazil.data["births"].dtype) == "Int64"


def test_national_totals(brazil):
    """SOURCES.md: deaths 2000 66,780 and 2019 35,293 (= official SIM total), births 2019 2,849,064. The
    deaths include those of 'unknown municipality' rows, which the panel leaves out and the ledger counts."""
    n = brazil.data.groupby("year")[["births", "deaths"]].sum()
    book = datasets.ledger("brazil")
    excluded = book[book["status"] == "excluded"].groupby("year")["deaths"].sum()
    assert n.loc[2000, "deaths"] + excluded[2000] == 66780
    assert n.loc[2019, "deaths"] + excluded[2019] == 35293
    assert n.loc[2005, "deaths"] + excluded[2005] == 51312
    assert n.loc[2019, "births"] == 2849064 and n.loc[2000, "births"] == 3204937
    imr = n["deaths"] / n["births"] * 1000
    assert round(float(imr[2019]), 1) == 12.4


def test_missing_births_stay_missing(brazil):
    d = brazil.data
    assert d["births"].isna().sum() == 162  # no SINASC row: <NA>, never 0
    assert d["deaths"].isna().sum() == 160
    assert any("<NA>" in note for note in brazil.notes)


def test_census_table():
    c = datasets.brazil_table("census")
    assert datasets.brazil_table_names() == ["census", "causes"]
    assert sorted(c["year"].unique()) == [1991, 2000, 2010] and len(c) == 5570 * 3
    row = c[(c["unit"] == "110001") & (c["year"] == 2010)].iloc[0]
    assert row["gini"] == pytest.approx(0.58) and row["income_per_capita"] == pytest.approx(476.99)
    assert row["poor_percent"] == pytest.approx(26.04)
    assert c.loc[c["year"] == 2010, "gini"].isna().sum() == 5  # created after 2010


def test_causes_add_up_to_deaths(brazil):
    c = datasets.brazil_table("causes")
    chapters = ["deaths_perinatal", "deaths_malformations", "deaths_ill_defined", "deaths_infectious",
                "deaths_respiratory", "deaths_external", "deaths_other"]
    full = c.dropna(subset=["deaths"])
    assert (full[chapters].sum(axis=1) == full["deaths"]).all()
    assert (c["deaths_primary_care_sensitive"].dropna() <= c.loc[c["deaths_primary_care_sensitive"].notna(), "deaths"]).all()
    assert c["deaths"].sum() == brazil.data["deaths"].sum()
