"""The Panel: validation messages (file, row, column, what to do), warnings, and operations."""
from __future__ import annotations

import warnings

import pandas as pd
import pytest

from brecha.errors import BrechaWarning, InputError
from brecha.panel import Panel, resolve_outcome


def table(**over):
    base = {"unit": ["A", "A", "B", "B"], "year": [2010, 2011, 2010, 2011],
            "births": [1000, 900, 500, 400], "deaths": [8, 9, 6, 2]}
    base.update(over)
    return pd.DataFrame(base)


def test_missing_required_column_names_it_and_says_what_to_do():
    with pytest.raises(InputError) as err:
        Panel(table().drop(columns="births"), source="counts.csv")
    text = str(err.value)
    assert "counts.csv" in text and "births" in text and "--births-col" in text


def test_duplicate_unit_year_lists_rows():
    d = table(year=[2010, 2010, 2010, 2011])
    with pytest.raises(InputError) as err:
        Panel(d, source="f.csv")
    assert err.value.rows == [2, 3]  # spreadsheet rows (header = row 1)
    assert "A 2010" in str(err.value) and "f.csv" in str(err.value)


@pytest.mark.parametrize("bad, word", [(-1, "negative"), (2.5, "whole"), ("x", "non-numeric")])
def test_bad_counts_name_row_and_column(bad, word):
    from brecha.i18n import set_language

    set_language("en")
    try:
        d = table(deaths=[8, bad, 6, 2])
        with pytest.raises(InputError) as err:
            Panel(d, source="f.csv")
        assert err.value.column == "deaths" and err.value.rows == [3]
        assert word in str(err.value)
    finally:
        set_language("es")


def test_non_numeric_covariate_is_an_error_with_its_column():
    d = table(poverty=["0.1", "0,2", "0.3", ""])
    with pytest.raises(InputError) as err:
        Panel(d, source="cov.csv")
    assert err.value.column == "poverty" and err.value.rows == [3]


def test_messages_are_bilingual():
    from brecha.i18n import set_language

    d = table(deaths=[8, -1, 6, 2])
    set_language("es")
    with pytest.raises(InputError) as es:
        Panel(d)
    set_language("en")
    try:
        with pytest.raises(InputError) as en:
            Panel(d)
    finally:
        set_language("es")
    assert "negativos" in str(es.value) and "negative" in str(en.value)


def test_deaths_above_births_and_zero_births_warn_not_fail():
    d = table(births=[1000, 0, 2, 400], deaths=[8, 0, 6, 2])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        p = Panel(d)
    kinds = [w for w in caught if issubclass(w.category, BrechaWarning)]
    assert len(kinds) == 2 and len(p.warnings) == 2
    assert "B 2010" in p.warnings[0]  # deaths above births
    assert "A 2011" in p.warnings[1]  # zero births


def test_unknown_units_are_all_listed_never_dropped():
    pytest.importorskip("brecha.registry")
    d = pd.DataFrame({"unit": ["13101", "99998", "13102", "77777"], "year": 2010,
                      "births": [10, 10, 10, 10], "deaths": [0, 0, 0, 0]})
    with pytest.raises(InputError) as err:
        Panel(d, country="CL", source="p.csv")
    assert "99998" in str(err.value) and "77777" in str(err.value)
    assert err.value.rows == [3, 5]


def test_four_digit_chilean_codes_get_their_leading_zero_back():
    pytest.importorskip("brecha.registry")
    d = pd.DataFrame({"unit": ["9101", "13101"], "year": 2010, "births": [10, 10], "deaths": [0, 1]})
    p = Panel(d, country="CL")
    assert p.unit_codes == ["09101", "13101"]
    assert p.units.set_index("unit").loc["09101", "name"] == "Temuco"


def test_events_and_pooling_sum_counts():
    p = Panel(table())
    ev = p.events()
    assert ev.columns.tolist() == ["unit", "period", "year", "events", "births"]
    pooled = p.events(pool=True)
    assert pooled.set_index("unit").loc["A", "events"] == 17
    assert pooled.set_index("unit").loc["B", "births"] == 900
    assert (pooled["period"] == "2010-2011").all()


def test_pooling_skips_years_with_missing_births_and_says_how_many_were_used():
    d = table(births=pd.array([1000, pd.NA, 500, 400], dtype="Int64"))
    pooled = Panel(d).events(pool=True).set_index("unit")
    assert pooled.loc["A", "events"] == 8 and pooled.loc["A", "n_years"] == 1


def test_subset_and_aggregate_up_the_hierarchy():
    d = table(region=["R1", "R1", "R2", "R2"], poverty=[10.0, 10.0, 30.0, 30.0])
    p = Panel(d)
    assert p.subset(units=["B"]).unit_codes == ["B"]
    assert p.subset(years=[2011]).years == [2011]
    assert p.subset(region="R2").unit_codes == ["B"]
    country = p.aggregate("country")
    row = country.data.set_index("year").loc[2010]
    assert row["births"] == 1500 and row["deaths"] == 14
    # births-weighted covariate mean: (1000*10 + 500*30) / 1500
    assert row["poverty"] == pytest.approx(50 / 3)
    regions = p.aggregate("region")
    assert regions.unit_codes == ["R1", "R2"]


def test_aggregate_is_missing_when_any_member_is_missing():
    d = table(births=pd.array([1000, pd.NA, 500, 400], dtype="Int64"))
    c = Panel(d).aggregate("country").data.set_index("year")
    assert pd.isna(c.loc[2011, "births"]) and c.loc[2010, "births"] == 1500


def test_outcome_aliases():
    assert resolve_outcome("imr") == "infant"
    assert resolve_outcome("tardia") == "postneonatal"
    with pytest.raises(InputError):
        resolve_outcome("perinatal")
    p = Panel(table())
    with pytest.raises(InputError) as err:
        p.events("neonatal")
    assert "deaths_neonatal" in str(err.value)


def test_shuffled_rows_give_the_same_panel():
    d = table()
    a = Panel(d).data
    b = Panel(d.sample(frac=1, random_state=3)).data
    pd.testing.assert_frame_equal(a, b)


def test_aggregate_can_sum_the_available_members_and_says_how_many_are_missing():
    d = table(births=pd.array([1000, pd.NA, 500, 400], dtype="Int64"))
    agg = Panel(d).aggregate("country", incomplete="available")
    c = agg.data.set_index("year")
    assert c.loc[2011, "births"] == 400 and c.loc[2011, "units_missing"] == 1
    assert c.loc[2010, "units_missing"] == 0
    assert any("units_missing" in n for n in agg.notes)


def test_available_aggregate_leaves_out_the_deaths_of_a_unit_year_without_births():
    d = table(births=pd.array([1000, pd.NA, 500, 400], dtype="Int64"), deaths=[8, 5, 6, 2])
    c = Panel(d).aggregate("country", incomplete="available").data.set_index("year")
    # A 2011 has deaths but no births: both are left out, so the rate is B's alone (2 / 400)
    assert c.loc[2011, "deaths"] == 2 and c.loc[2011, "births"] == 400


def test_one_year_parser_serves_the_cli_and_the_study_files():
    import argparse

    from brecha.cli.common import parse_years as cli_years
    from brecha.panel import parse_years
    from brecha.study import parse_period

    assert parse_years("2005-2007, 2010") == [2005, 2006, 2007, 2010] == cli_years("2005:2007,2010")
    assert parse_period("2005–2007") == [2005, 2006, 2007]  # en dash, as word processors write it
    for bad in ("2007-2005", "05-07", "2005–2007"):
        with pytest.raises(ValueError):
            parse_years(bad)
        with pytest.raises(argparse.ArgumentTypeError):
            cli_years(bad)


def test_events_remembered_gives_the_same_tables_as_computing_them_afresh():
    """Inside ``events_remembered`` each request is computed once; every call still gets its own copy
    (changing one never changes the next), and outside the block a changed ``data`` is seen at once."""
    p = Panel(table(), country=None)
    requests = [dict(), dict(years=[2010]), dict(years=2011), dict(pool=True), dict(years=(2010, 2011), pool=True),
                dict(years=range(2010, 2012))]
    fresh = [p.events(**kw) for kw in requests]
    calls = []
    original = Panel._events

    def counted(self, *args):
        calls.append(args)
        return original(self, *args)

    Panel._events = counted
    try:
        with p.events_remembered():
            for _ in range(3):
                for kw, want in zip(requests, fresh):
                    got = p.events(**kw)
                    pd.testing.assert_frame_equal(got, want)
                    got.loc[:, "events"] = 0  # a caller that edits its table
                    got.attrs["notes"] = ["edited"]
            assert len(calls) == len(requests)  # computed once each
            spent = p.events(years=(y for y in [2010]), pool=True)  # a generator of years: read once
            pd.testing.assert_frame_equal(spent, p.events(years=[2010], pool=True))
            assert p.events(pool=True).attrs.get("notes") != ["edited"]
        assert "_events_memo" not in p.__dict__
        p.data.loc[:, "deaths"] = p.data["deaths"] * 2  # edited between calls, outside the block: seen
        assert p.events()["events"].tolist() == [16, 18, 12, 4]
    finally:
        Panel._events = original


def test_the_report_asks_each_events_table_once(monkeypatch, tmp_path):
    """The default Chilean report reads a dozen events tables: four distinct ones, each computed once."""
    from brecha.report.build import build_report
    from brecha.study import example_study

    monkeypatch.setenv("BRECHA_JOBS", "1")  # every analysis in this process, so every call is counted
    calls = []
    original = Panel._events

    def counted(self, *args):
        calls.append(args)
        return original(self, *args)

    monkeypatch.setattr(Panel, "_events", counted)
    study = example_study("chile")
    build_report(study, tmp_path / "r", lang="en", write=False)
    asked = [repr(args) for args in calls]
    assert 0 < len(asked) == len(set(asked)) <= 6, asked
