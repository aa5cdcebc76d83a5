"""The embedded Chilean panel: INE's published national IMR, split layouts, births caveat, covariate tables."""
import warnings

import pandas as pd
import pytest

from brecha import datasets
from brecha.errors import InputError


@pytest.fixture(scope="module")
def chile():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return datasets.chile()


def national(panel):
    return panel.data.groupby("year")[["births", "deaths"]].sum()


def test_shape_and_types(chile):
    d = chile.data
    assert chile.country == "CL" and len(chile.units) == 346
    assert chile.years == list(range(2000, 2016))
    assert len(d) == 346 * 16 - 4 * 4  # the four 2004 children have no rows for 2000-2003
    assert str(d["births"].dtype) == "Int64" and str(d["deaths"].dtype) == "Int64"
    assert d["unit"].str.fullmatch(r"\d{5}").all() and d["births"].notna().all() and d["deaths"].notna().all()
    assert set(chile.covariates) == {"population", "population_age0", "poverty", "health_spending_pc", "schooling",
                                     "sapu", "distance_hospital_km"}
    assert d.loc[d["unit"] == "01107", "year"].min() == 2004


def test_national_imr_2010_2015_matches_ine():
    """INE's published national infant mortality rates 2010-2015 (per 1,000 live births), to one decimal."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        panel = datasets.chile()
    n = national(panel)
    imr = (n["deaths"] / n["births"] * 1000).astype(float).round(1)
    assert imr.loc[2010:2015].tolist() == [7.4, 7.7, 7.4, 7.0, 7.3, 6.9]
    # the same through the Panel's own events() (the input of every analysis)
    ev = panel.events(years=range(2010, 2016)).groupby("year")[["events", "births"]].sum()
    assert (ev["events"] / ev["births"] * 1000).astype(float).round(1).tolist() == [7.4, 7.7, 7.4, 7.0, 7.3, 6.9]


def test_national_totals_match_sources(chile):
    n = national(chile)
    # SOURCES.md: INE infant deaths by year; INE births 2010-2015; DEIS (15-49) births 2000, 2005, 2009
    assert n["deaths"].tolist() == [2336, 2159, 1964, 1935, 2034, 1911, 1839, 2009, 1948, 1997, 1862, 1908, 1812,
                                    1692, 1825, 1683]
    assert n.loc[2010:2015, "births"].tolist() == [250643, 247358, 243635, 242005, 250997, 244670]
    # 2000: the four duplicated child rows (9,148 births) are not counted twice
    assert n.loc[2000, "births"] == 256982 - 9148
    assert n.loc[2005, "births"] == 229890 and n.loc[2009, "births"] == 251093


def test_notes_carry_the_caveats(chile):
    text = " ".join(chile.notes)
    assert "15" in text and "49" in text and "2-5 %" in text
    assert "split='keep'" in text
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        merged = datasets.chile(split="merge")
    assert "split='merge'" in " ".join(merged.notes)


def test_split_merge_sums_children_into_parents(chile):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        merged = datasets.chile(split="merge")
    assert len(merged.units) == 342 and len(merged.data) == 342 * 16
    assert not merged.data["unit"].isin(["01107", "08112", "08314", "09121"]).any()
    keep = chile.data.set_index(["unit", "year"])
    m = merged.data.set_index(["unit", "year"])
    for child, parent in [("01107", "01101"), ("08112", "08110"), ("08314", "08311"), ("09121", "09111")]:
        for year in (2003, 2004, 2010):
            expected = keep.loc[(parent, year), "deaths"] + (keep.loc[(child, year), "deaths"] if year >= 2004 else 0)
            assert m.loc[(parent, year), "deaths"] == expected
    # Iquique + Alto Hospicio 2005 births: 3,071 + 1,334 (source values)
    assert m.loc[("01101", 2005), "births"] == 3071 + 1334
    # national totals do not change
    assert national(merged).equals(national(chile))
    assert merged.data["population"].sum() == pytest.approx(chile.data["population"].sum())


def test_births_zero_where_source_has_no_row(chile):
    d = chile.data.set_index(["unit", "year"])
    # Río Verde (12103) has no births row 2001-2009 in the DEIS source and no infant death
    assert (d.loc["12103"].loc[2001:2009, "births"] == 0).all()
    assert (d.loc["12103"].loc[2001:2009, "deaths"] == 0).all()


def test_population_keep_layout_covers_parent_territory(chile):
    pop = datasets.chile_table("population").set_index(["unit", "year"])["population"]
    d = chile.data.set_index(["unit", "year"])["population"]
    assert d.loc[("01101", 2003)] == pytest.approx(pop.loc[("01101", 2003)] + pop.loc[("01107", 2003)])
    assert d.loc[("01101", 2004)] == pytest.approx(pop.loc[("01101", 2004)])
    assert chile.data.loc[chile.data["year"] < 2002, "population"].isna().all()
    # INE's 2017-based national total for 2015 (summed over communes)
    assert d.xs(2015, level="year").sum() == pytest.approx(pop.xs(2015, level="year").sum())


def test_without_covariates():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        panel = datasets.chile(covariates=False)
    assert panel.covariates == []


def test_bad_split_message():
    with pytest.raises(InputError, match="split"):
        datasets.chile(split="join")


def test_tables_all_have_units():
    from brecha.registry import get_registry

    known = set(get_registry("CL").units["unit"])
    assert datasets.chile_table_names() == ["population", "population_base2002", "poverty", "sinim_2006_2012",
                                            "sinim_2019_2023", "health_facilities", "hospitals", "census_2017",
                                            "rurality"]
    for name in datasets.chile_table_names():
        table = datasets.chile_table(name)
        assert "unit" in table.columns and table["unit"].isin(known).all(), name
        assert len(table) > 0


def test_poverty_is_percent_in_both_sources():
    p = datasets.chile_table("poverty")
    # Iquique 2009 income poverty: 0.14 (proportion) in the 2009-2020 file -> 14 %
    row = p[(p["unit"] == "01101") & (p["year"] == 2009)]
    assert row["poverty_percent"].tolist() == [pytest.approx(14.0)]
    # 2022 file already in percent: Iquique 7.89 %
    row = p[(p["unit"] == "01101") & (p["year"] == 2022) & (p["dimension"] == "ingresos")]
    assert row["poverty_percent"].tolist() == [pytest.approx(7.890380841254656)]
    assert p["poverty_percent"].max() <= 100


def test_sinim_2006_2012_codes_harmonised():
    s = datasets.chile_table("sinim_2006_2012")
    assert len(s) == 345 * 7 and s["year"].tolist()[:1] == [2006]
    # Chillán: 8401 in the 2010-2018 system -> 16101
    assert s.loc[s["code_2010_2018"] == "8401", "unit"].unique().tolist() == ["16101"]
    assert s["saludtotalpc"].dtype == "float64"


def test_facilities_opening_dates():
    f = datasets.chile_table("health_facilities")
    counts = f["urgency_type"].value_counts()
    assert counts["SAPU"] == 237 and counts["SUR"] == 149 and counts["SAR"] == 75
    # Excel serial 39814 = 2009-01-01
    assert f.loc[f["opening_serial"] == 39814, "opening_date"].unique().tolist() == ["2009-01-01"]
    h = datasets.chile_table("hospitals")
    assert len(h) == 231 and set(h["complexity"]) >= {"Alta Complejidad", "Mediana Complejidad", "Baja Complejidad"}


def test_unknown_table_message():
    with pytest.raises(InputError, match="unknown table 'pobreza'|tabla 'pobreza' desconocida"):
        datasets.chile_table("pobreza")
