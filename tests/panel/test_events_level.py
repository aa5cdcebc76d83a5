"""Panel.events(level=...): the one sum of a level's events and births (brecha.panel_levels).

A member unit-year enters a group's sums only with both the outcome's own deaths and its births: neonatal
deaths are never paired with births counted for the infant deaths, nor births without their deaths.
"""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from brecha.errors import BrechaWarning
from brecha.panel import OUTCOMES, Panel

BIRTHS = {"13101": 3000, "13102": 2500, "13103": 1500, "05101": 1800, "05102": 900}
NEONATAL = {"13101": 7, "13102": 6, "13103": 4, "05101": 5, "05102": 2}
POSTNEONATAL = {"13101": 3, "13102": 4, "13103": 2, "05101": 3, "05102": 1}
COUNTS = ["births", "deaths", "deaths_neonatal", "deaths_postneonatal"]


def gapped_table() -> pd.DataFrame:
    """Five Chilean communes (three in region 13, two in region 05), 2010-2013, with gaps:
    13101 2011 has births and neonatal deaths but no infant (nor post-neonatal) deaths; 13102 2011 the
    reverse (infant deaths, no neonatal); 13103 2012 deaths without births; 05101 2013 births only."""
    rows = []
    for unit in BIRTHS:
        for year in range(2010, 2014):
            k = year - 2010
            rows.append({"unit": unit, "year": year, "births": BIRTHS[unit] + 10 * k,
                         "deaths": NEONATAL[unit] + POSTNEONATAL[unit] + 2 * k,
                         "deaths_neonatal": NEONATAL[unit] + k, "deaths_postneonatal": POSTNEONATAL[unit] + k})
    d = pd.DataFrame(rows).astype({c: "Int64" for c in COUNTS})
    for unit, year, cols in (("13101", 2011, ["deaths", "deaths_postneonatal"]),
                             ("13102", 2011, ["deaths_neonatal"]),
                             ("13103", 2012, ["births"]),
                             ("05101", 2013, ["deaths", "deaths_neonatal", "deaths_postneonatal"])):
        d.loc[(d["unit"] == unit) & (d["year"] == year), cols] = pd.NA
    return d


@pytest.fixture(scope="module")
def panel() -> Panel:
    return Panel(gapped_table(), country="CL")


def cell(table, unit, year=None):
    rows = table[table["unit"].astype(str) == unit]
    if year is not None:
        rows = rows[rows["period"].astype(str) == str(year)]
    assert len(rows) == 1
    return rows.iloc[0]


def test_each_outcome_pairs_its_own_deaths_with_births(panel):
    neo = panel.events("neonatal", level="region")
    # region 13, 2011: 13101 (8 neonatal deaths, 3,010 births) + 13103 (5, 1,510); 13102 has no neonatal count
    r = cell(neo, "13", 2011)
    assert (r["events"], r["births"], r["units_missing"]) == (8 + 5, 3010 + 1510, 1)
    # region 13, 2012: 13103 has deaths but no births -> left out whole: 13101 (9, 3,020) + 13102 (8, 2,520)
    r = cell(neo, "13", 2012)
    assert (r["events"], r["births"], r["units_missing"]) == (9 + 8, 3020 + 2520, 1)
    # region 05, 2013: 05101 has births only -> 05102 alone (5, 930)
    r = cell(neo, "05", 2013)
    assert (r["events"], r["births"], r["units_missing"]) == (5, 930, 1)
    infant = panel.events("infant", level="region")
    # region 13, 2011 for infant deaths: 13102 (12, 2,510) + 13103 (8, 1,510); 13101 has no infant count
    r = cell(infant, "13", 2011)
    assert (r["events"], r["births"], r["units_missing"]) == (12 + 8, 2510 + 1510, 1)
    post = panel.events("postneonatal", level="region")
    r = cell(post, "13", 2011)
    assert (r["events"], r["births"], r["units_missing"]) == (5 + 3, 2510 + 1510, 1)
    # complete group-years have nothing left out
    r = cell(neo, "13", 2010)
    assert (r["events"], r["births"], r["units_missing"]) == (7 + 6 + 4, 3000 + 2500 + 1500, 0)


def test_the_counts_panel_aggregate_keeps_its_rule_but_analyses_use_events(panel):
    """Panel.aggregate leaves out a unit-year without infant deaths for every count: the neonatal rate of
    its regions would count 13102's births without its neonatal deaths. Analyses by level use events."""
    old = panel.aggregate("region", incomplete="available").events("neonatal")
    r = cell(old, "13", 2011)
    assert (r["events"], r["births"]) == (5, 2510 + 1510)  # 13101 dropped, 13102's births kept: wrong pair
    r = cell(panel.events("neonatal", level="region"), "13", 2011)
    assert (r["events"], r["births"]) == (13, 4520)


def test_rates_and_disparity_by_level_count_the_right_births(panel):
    from brecha.disparity import disparity
    from brecha.rates import rates

    out = rates(panel, outcome="neonatal", level="region")
    r = cell(out, "13", 2011)
    assert (r["events"], r["births"]) == (13, 4520)
    assert r["estimate"] == pytest.approx(13 / 4520 * 1000, rel=1e-12)
    assert r["name"] == "Región Metropolitana de Santiago" and r["outcome"] == "neonatal"
    assert list(out.columns) == ["unit", "period", "outcome", "events", "births", "estimate", "lower", "upper",
                                 "method", "conf_level", "flag", "name"]
    pooled = rates(panel, outcome="neonatal", level="region", pool=True)
    r = cell(pooled, "13")
    # 2010: 17/7,000, 2011: 13/4,520, 2012: 17/5,540, 2013: 26/7,090
    assert (r["events"], r["births"], r["n_years"]) == (17 + 13 + 17 + 26, 7000 + 4520 + 5540 + 7090, 4)

    gap = disparity(panel, "05", outcome="neonatal", level="region", years=[2011, 2013])
    rr = gap[(gap["unit"] == "13") & (gap["measure"] == "rate_ratio")].set_index("period")
    assert (rr.loc["2011", "events"], rr.loc["2011", "births"]) == (13, 4520)
    # the reference, region 05: 2011 both communes (5+1+2+1 = 9 deaths, 1,810 + 910 births), 2013 05102 alone
    assert (rr.loc["2011", "reference_events"], rr.loc["2011", "reference_births"]) == (9, 2720)
    assert (rr.loc["2013", "reference_events"], rr.loc["2013", "reference_births"]) == (5, 930)
    assert rr.loc["2011", "estimate"] == pytest.approx((13 / 4520) / (9 / 2720), rel=1e-12)
    total = gap[(gap["unit"] == "TOTAL") & (gap["measure"] == "par")].set_index("period")
    assert (total.loc["2011", "events"], total.loc["2011", "births"]) == (13 + 9, 4520 + 2720)
    notes = gap.attrs["notes"]
    assert any("2 unit-years" in n or "2 unidad-años" in n for n in notes)  # 13102 2011 and 05101 2013


@pytest.mark.parametrize("outcome", ["infant", "neonatal", "postneonatal"])
@pytest.mark.parametrize("level", ["province", "region", "country"])
@pytest.mark.parametrize("pool", [False, True])
def test_events_by_level_is_the_sum_of_its_members_events(panel, outcome, level, pool):
    members = panel.events(outcome)
    group = panel.units.set_index("unit")[level].astype(str) if level != "country" else None
    members["group"] = members["unit"].map(group) if group is not None else "CL"
    ok = members["events"].notna() & members["births"].notna()
    by_year = members[ok].groupby(["group", "year"])[["events", "births"]].sum()
    missing = (~ok).groupby([members["group"], members["year"]]).sum()
    got = panel.events(outcome, level=level, pool=pool)
    if pool:
        expected = by_year.groupby(level=0).sum()
        assert got["n_years"].tolist() == by_year.groupby(level=0).size().tolist()
        assert got["units_missing"].tolist() == missing.groupby(level=0).sum().tolist()
        assert got["period"].eq("2010-2013").all() and got["year"].isna().all()
    else:
        expected = by_year
        assert got["units_missing"].tolist() == missing.tolist()
    assert got["unit"].tolist() == expected.index.get_level_values(0).tolist()
    np.testing.assert_array_equal(got["events"].to_numpy(dtype=float), expected["events"].to_numpy(dtype=float))
    np.testing.assert_array_equal(got["births"].to_numpy(dtype=float), expected["births"].to_numpy(dtype=float))
    assert str(got["events"].dtype) == "Int64" and str(got["births"].dtype) == "Int64"


def test_missing_rule_blanks_a_group_year_when_any_member_lacks_either_count(panel):
    strict = panel.events("neonatal", level="region", incomplete="missing").set_index(["unit", "year"])
    assert strict["events"].isna().tolist() == [False, False, False, True, False, True, True, False]
    assert strict["births"].isna().tolist() == strict["events"].isna().tolist()
    assert (strict.loc[("13", 2013), "events"], strict.loc[("13", 2013), "births"]) == (26, 7090)
    # pooled: only the complete years (2010 and 2013 for region 13)
    pooled = panel.events("neonatal", level="region", incomplete="missing", pool=True).set_index("unit")
    assert (pooled.loc["13", "events"], pooled.loc["13", "births"], pooled.loc["13", "n_years"]) == \
        (17 + 26, 7000 + 7090, 2)


def test_level_events_carry_the_notes_and_refuse_what_cannot_be_summed(panel):
    from brecha.errors import InputError
    from brecha.i18n import set_language

    set_language("en")
    try:
        ev = panel.events("neonatal", level="region", years=[2011, 2012])
        assert ev.attrs["notes"][-2:] == [
            "aggregated to region: counts and population summed; other covariates as births-weighted means",
            "aggregated to region: 2 unit-years without births or deaths were left out of the sums "
            "(see units_missing)"]
        assert panel.events("neonatal", level="region", years=[2010]).attrs["notes"][-1].startswith(
            "aggregated to region: counts")  # nothing left out: no such note
        with pytest.raises(InputError, match="unknown level 'district'"):
            panel.events(level="district")
        with pytest.raises(InputError, match="incomplete must be"):
            panel.events(level="region", incomplete="drop")
        plain = Panel(gapped_table().assign(unit=lambda t: "X" + t["unit"]))  # no registry: no regions
        with pytest.raises(InputError, match="cannot aggregate to 'region'"):
            plain.events(level="region")
        assert plain.events(level="country")["unit"].unique().tolist() == ["ALL"]
    finally:
        set_language("es")


def test_trends_by_level_sum_the_outcome_own_pairs(panel):
    from brecha.trends import trends

    hand = panel.events("neonatal", level="region")[["unit", "year", "events", "births"]]
    by_level = trends(panel, outcome="neonatal", level="region").set_index("unit")
    by_hand = trends(hand.astype({"events": float, "births": float})).set_index("unit")
    np.testing.assert_allclose(by_level.loc[["05", "13"], ["slope", "se", "apc"]].to_numpy(float),
                               by_hand.loc[["05", "13"], ["slope", "se", "apc"]].to_numpy(float), rtol=1e-12)
    assert by_level.loc["13", "n_years"] == 4 and "2011: 1, 2012: 1" in by_level.loc["13", "note"]
    assert by_level.loc["13", "name"] == "Región Metropolitana de Santiago"
    with pytest.warns(BrechaWarning, match="^1 "):  # region 13 keeps 2 complete years: no estimate
        strict = trends(panel, outcome="neonatal", level="region", incomplete="drop").set_index("unit")
    assert strict.loc["13", "dropped_years"] == "2011,2012" and strict.loc["05", "dropped_years"] == "2013"
    assert strict.loc["13", "n_years"] == 2 and np.isnan(strict.loc["13", "slope"])


def test_a_users_file_through_the_cli(tmp_path):
    """Her panel file with deaths by age, read back by `brecha rates|disparity --level region`."""
    from brecha.cli.main import main

    path = tmp_path / "counts.csv"
    gapped_table().to_csv(path, index=False)
    out = tmp_path / "regions.csv"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(["--lang", "en", "rates", str(path), "--level", "region", "--outcome", "neonatal",
                     "-o", str(out)]) == 0
    table = pd.read_csv(out, dtype={"unit": str})
    r = table[(table["unit"] == "13") & (table["period"] == 2011)].iloc[0]
    assert (r["events"], r["births"]) == (13, 4520)
    gaps = tmp_path / "gaps.csv"
    assert main(["--lang", "en", "disparity", str(path), "--level", "region", "--outcome", "postneonatal",
                 "--reference", "05", "--years", "2011", "-o", str(gaps)]) == 0
    table = pd.read_csv(gaps, dtype={"unit": str})
    r = table[(table["unit"] == "13") & (table["measure"] == "rate_ratio")].iloc[0]
    # 13101 has no post-neonatal count in 2011: 13102 (5, 2,510) + 13103 (3, 1,510); reference 05: 2+3+2 deaths
    assert (r["events"], r["births"], r["reference_events"], r["reference_births"]) == (8, 4020, 4 + 2, 2720)


@pytest.mark.parametrize("name", ["chile", "brazil"])
def test_embedded_data_infant_numbers_are_those_of_before(name):
    """For infant deaths the new sums are the old ones (``aggregate(level, "available").events()``),
    for every level, pooled or not; a few totals pinned as computed before the change."""
    from brecha import datasets

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        p = getattr(datasets, name)()
    for level in ("province", "region", "country"):
        for pool in (False, True):
            for years in (None, list(range(2005, 2015))):
                old = p.aggregate(level, incomplete="available").events(years=years, pool=pool)
                new = p.events(years=years, pool=pool, level=level)
                pd.testing.assert_frame_equal(old, new.drop(columns="units_missing"))
            pd.testing.assert_frame_equal(p.units_at(level), p.aggregate(level).units)
    country = p.events(years=range(2005, 2015), pool=True, level="country").iloc[0]
    pinned = {"chile": ("CL", 18803, 2431062, 0), "brazil": ("BR", 424112, 29250309, 47)}[name]
    assert (country["unit"], country["events"], country["births"], country["units_missing"]) == pinned
    # deaths without births (2 Brazilian municipality-years) never enter a sum
    total = int(p.events(level="country")["units_missing"].sum())
    assert total == {"chile": 0, "brazil": 162}[name]
    assert total == int((p.data["births"].isna() | p.data[OUTCOMES["infant"]].isna()).sum())
