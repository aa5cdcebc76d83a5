"""The warnings shown with --years / --region (and by ``Panel.subset``) are those of the rows analysed.

Warnings about rows (0 births, deaths above births, empty counts...) count and name the unit-years kept;
warnings about the file (a text column set aside) are shown as they are; without a subset nothing changes.
Every expected count and example is computed here from the data with pandas, not by brecha's checks.
"""
from __future__ import annotations

import re
import warnings

import pandas as pd
import pytest

from brecha.cli.main import main
from brecha.datasets import example
from brecha.errors import BrechaWarning
from brecha.i18n import set_language
from brecha.panel import Panel

ZERO = {"en": r"(\d+) unit-years? with 0 births.*\(e\.g\. ([^)]*)\)",
        "es": r"(\d+) unidad-años? con 0 nacimientos.*\(p\. ej\. ([^)]*)\)"}
TEXT_COLUMN = {"en": "column(s) 'comment' hold text and no number", "es": "columna(s) 'comment' con texto"}


@pytest.fixture(autouse=True)
def spanish_afterwards():
    yield
    set_language("es")


@pytest.fixture(scope="module")
def chile_counts() -> pd.DataFrame:
    """The Chilean example's unit, year, births, deaths, sorted as a panel is (unit, then year)."""
    d = example("chile").data[["unit", "year", "births", "deaths"]]
    return d.sort_values(["unit", "year"]).reset_index(drop=True)


@pytest.fixture(scope="module")
def user_file(tmp_path_factory, chile_counts) -> str:
    """The Chilean counts as a user's CSV file, with a column of text brecha sets aside when reading."""
    path = tmp_path_factory.mktemp("user") / "chile.csv"
    chile_counts.assign(comment="revised").to_csv(path, index=False)
    return str(path)


def zero_births(d: pd.DataFrame, years=None, region=None) -> tuple[int, list[str]]:
    """How many unit-years have 0 births, and the first five as 'unit year', among the rows asked."""
    keep = d
    if years is not None:
        keep = keep[keep["year"].isin(years)]
    if region is not None:  # a Chilean commune code starts with its region's
        keep = keep[keep["unit"].str[:2] == region]
    zero = keep[keep["births"] == 0]
    return len(zero), [f"{u} {y}" for u, y in zip(zero["unit"].head(5), zero["year"].head(5))]


def zero_line(text: str, lang: str = "en") -> tuple[int, list[str]]:
    """The count and the examples of the one zero-births warning in ``text``."""
    found = re.findall(ZERO[lang], text)
    assert len(found) == 1, text
    return int(found[0][0]), found[0][1].split(", ")


def run(args, capsys) -> tuple[str, str]:
    assert main(args) == 0
    captured = capsys.readouterr()
    return captured.out, captured.err


YEARS = range(2010, 2016)


@pytest.mark.parametrize("lang", ["en", "es"])
def test_panel_years_count_and_name_only_the_years_analysed(capsys, chile_counts, lang):
    out, _ = run(["--lang", lang, "panel", "--example", "chile", "--years", "2010-2015"], capsys)
    n, shown = zero_line(out, lang)
    assert (n, shown) == zero_births(chile_counts, YEARS)
    assert n < zero_births(chile_counts)[0]  # the whole file has more: 2000-2009 too
    assert all(2010 <= int(item.split()[1]) <= 2015 for item in shown)
    assert "02202 2001" not in out.split("Warnings:" if lang == "en" else "Avisos:")[1]
    # the notes, about the source, are unchanged (they name 2000-2009 on purpose)
    assert "02202 2001" in out.split("Warnings:" if lang == "en" else "Avisos:")[0]


def test_panel_region_names_only_that_regions_units(capsys, chile_counts):
    out, _ = run(["--lang", "en", "panel", "--example", "chile", "--region", "12"], capsys)
    n, shown = zero_line(out)
    assert (n, shown) == zero_births(chile_counts, region="12")
    assert all(item.startswith("12") for item in shown)


def test_panel_without_a_subset_lists_the_whole_files_warnings(capsys, chile_counts):
    out, _ = run(["--lang", "en", "panel", "--example", "chile"], capsys)
    assert zero_line(out) == zero_births(chile_counts)
    assert zero_line(out)[0] == 43


def test_rates_on_a_file_with_years_keeps_the_files_own_warning(capsys, tmp_path, chile_counts, user_file):
    _, err = run(["--lang", "en", "rates", user_file, "--years", "2010-2015", "-o", str(tmp_path / "x.csv")],
                 capsys)
    assert err.count(TEXT_COLUMN["en"]) == 1
    assert zero_line(err) == zero_births(chile_counts, YEARS)
    assert not re.search(r"\b\d{5} 200\d\b", err)  # no unit-year of 2000-2009 is named
    # the file's warning first, as when reading: nothing reordered
    assert err.index(TEXT_COLUMN["en"]) < err.index("with 0 births")


def test_rates_on_a_file_with_a_region_names_only_its_units(capsys, tmp_path, chile_counts, user_file):
    _, err = run(["--lang", "es", "rates", user_file, "--region", "12", "-o", str(tmp_path / "x.csv")], capsys)
    assert err.count(TEXT_COLUMN["es"]) == 1
    n, shown = zero_line(err, "es")
    assert (n, shown) == zero_births(chile_counts, region="12")
    assert all(item.startswith("12") for item in shown)


def test_panel_command_on_a_file_lists_the_file_warning_and_the_rows_warning(capsys, chile_counts, user_file):
    out, _ = run(["--lang", "en", "panel", user_file, "--years", "2010-2015", "--region", "12"], capsys)
    listed = out.split("Warnings:")[1].split("Totals per year")[0]
    lines = [line for line in listed.splitlines() if line.startswith("  - ")]
    assert len(lines) == 2 and TEXT_COLUMN["en"] in lines[0]
    assert zero_line(lines[1]) == zero_births(chile_counts, YEARS, "12")


def test_without_a_subset_a_files_warnings_are_as_they_were(capsys, tmp_path, chile_counts, user_file):
    _, err = run(["--lang", "en", "rates", user_file, "-o", str(tmp_path / "x.csv")], capsys)
    n, shown = zero_births(chile_counts)
    said = [line for line in err.splitlines() if line.startswith("Warning: ")]
    assert said[0].startswith(f"Warning: {TEXT_COLUMN['en']}")
    assert said[1] == (f"Warning: {n} unit-years with 0 births: the rate is undefined and will be flagged "
                       f"(e.g. {', '.join(shown)})")


def test_disparity_in_a_region_keeps_a_reference_named_outside_it(capsys, tmp_path, chile_counts, user_file):
    """--region 12 with --reference 02202 (Ollagüe, region 2) analyses Ollagüe's rows too: they are counted."""
    _, err = run(["--lang", "en", "disparity", user_file, "--region", "12", "--reference", "02202",
                  "--years", "2010-2015", "-o", str(tmp_path / "d.csv")], capsys)
    region = zero_births(chile_counts, YEARS, "12")[0]
    ollague = zero_births(chile_counts[chile_counts["unit"] == "02202"], YEARS)
    n, shown = zero_line(err)
    assert n == region + ollague[0] and shown[:len(ollague[1])] == ollague[1][:5]


def quiet_panel(table: pd.DataFrame, **kwargs) -> Panel:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BrechaWarning)
        return Panel(table, **kwargs)


def test_subset_recounts_row_warnings_keeps_the_others_and_emits_nothing():
    set_language("en")
    table = pd.DataFrame({"unit": ["A", "A", "B", "B"], "year": [2010, 2011, 2010, 2011],
                          "births": [0, 10, 5, 0], "deaths": [0, 12, 1, 0]})
    p = quiet_panel(table)
    p.warnings.insert(0, "about the file")  # as read_panel keeps a text column set aside: first
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a subset says nothing on its own: loops of subsets stay silent
        only_2011 = p.subset(years=[2011])
        only_a_2010 = p.subset(units=["A"], years=[2010])
    assert p.warnings[1].startswith("1 unit-year") and "A 2011" in p.warnings[1]   # deaths above births
    assert p.warnings[2].startswith("2 unit-years") and "A 2010, B 2011" in p.warnings[2]  # 0 births
    assert only_2011.warnings[0] == "about the file"
    assert [w.split(" with")[0] for w in only_2011.warnings[1:]] == ["1 unit-year", "1 unit-year"]
    assert "B 2011" in only_2011.warnings[2] and "A 2010" not in only_2011.warnings[2]
    assert only_a_2010.warnings[0] == "about the file" and len(only_a_2010.warnings) == 2
    assert "A 2010" in only_a_2010.warnings[1]
    assert p.subset(units=["B"], years=[2010]).warnings == ["about the file"]


def test_aggregates_and_clean_panels_keep_their_warnings_whole():
    table = pd.DataFrame({"unit": ["13101", "13102", "13101", "13102"], "year": [2010, 2010, 2011, 2011],
                          "births": [0, 10, 5, 7], "deaths": [0, 1, 1, 0]})
    p = quiet_panel(table, country="CL")
    by_region = p.aggregate("region")
    # the warnings of the communes summed: the groups' sums would not show them, so they stay as they are
    assert by_region.subset(years=[2010]).warnings == by_region.warnings == [str(w) for w in p.warnings]
    clean = quiet_panel(table.assign(births=[3, 10, 5, 7]))
    assert clean.warnings == [] and clean.subset(years=[2011]).warnings == []


def test_a_count_given_nowhere_stays_a_choice_in_a_subset():
    """Births empty throughout (a deaths-only ingest) are no row's problem; births empty in some rows are,
    also in a subset that keeps only those rows."""
    deaths_only = quiet_panel(pd.DataFrame({"unit": ["A", "B"], "year": [2010, 2010],
                                            "births": [pd.NA, pd.NA], "deaths": [1, 2]}))
    assert deaths_only.warnings == [] and deaths_only.subset(units=["A"]).warnings == []
    some = quiet_panel(pd.DataFrame({"unit": ["A", "B"], "year": [2010, 2010],
                                     "births": [pd.NA, 100], "deaths": [1, 2]}))
    assert len(some.warnings) == 1
    assert some.subset(units=["A"]).warnings == some.warnings  # the same row, the same warning
    assert some.subset(units=["B"]).warnings == []


def test_a_reports_data_warnings_are_those_of_the_studys_rows(tmp_path, chile_counts, user_file):
    from brecha.report.blocks import Report
    from brecha.report.data import load_study_panel
    from brecha.study import read_study

    study_file = tmp_path / "study.toml"
    study_file.write_text(f'title = "x"\nlanguage = "en"\nperiod = "2010-2015"\n[data]\npanel = "{user_file}"\n'
                          '[units]\nregion = "12"\n', encoding="utf-8")
    set_language("en")
    study = read_study(study_file)
    report = Report(study=study, lang="en", title="t")
    with warnings.catch_warnings(record=True) as caught:  # what the report's build collects besides
        warnings.simplefilter("always")
        load_study_panel(study, report)
    said = [str(w.message) for w in caught]
    assert sum(TEXT_COLUMN["en"] in w for w in report.warnings) == 1
    zero = [w for w in report.warnings + said if "with 0 births" in w]
    assert zero and all(zero_line(w) == zero_births(chile_counts, YEARS, "12") for w in zero)  # not the file's
