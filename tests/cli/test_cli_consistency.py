"""Promises shared by every command, as a user scripting against several of them relies on them:
the same notes block, numbers in Spanish sentences with a decimal comma (tables keep '.'), --region
wherever units are analysed, and the same output option everywhere."""
from __future__ import annotations

import re
import warnings

import pandas as pd
import pytest

from brecha import datasets
from brecha.cli.main import main
from brecha.i18n import get_language, set_language


@pytest.fixture(autouse=True)
def keep_language():
    """main(["--lang", ...]) sets the process language; put it back for the other tests."""
    before = get_language()
    yield
    set_language(before)


@pytest.fixture(scope="module")
def region13():
    units = datasets.chile().units
    return set(units.loc[units["region"] == "13", "unit"])


COMMANDS = [
    ["panel", "--example", "chile"],
    ["rates", "--example", "chile", "--years", "2015"],
    ["disparity", "--example", "chile", "--years", "2015", "--reference", "13132"],
    ["smooth", "--example", "chile", "--years", "2015"],
    ["funnel", "--example", "chile", "--years", "2015"],
    ["inequality", "--example", "chile", "--years", "2015", "--measures", "d,gini"],
    ["trends", "--example", "chile", "--years", "2010-2015"],
]


@pytest.mark.parametrize("lang,header", [("es", "Notas:"), ("en", "Notes:")])
def test_every_command_prints_the_same_notes_block(tmp_path, capsys, lang, header):
    """The Chilean caveat on births 2000-2009 (mothers 15-49) is printed by every command, under the same
    header and bullet, so a script can cut it out the same way everywhere."""
    caveat = "15 a 49" if lang == "es" else "15-49"
    for i, command in enumerate(COMMANDS):
        assert main(["--lang", lang, *command, "-o", str(tmp_path / f"out{i}.csv")]) == 0, command
        out = capsys.readouterr().out
        assert f"\n{header}\n  - " in "\n" + out, (command, out[:300])
        block = out.split(header + "\n", 1)[1]
        assert caveat in block.splitlines()[0]
        assert "Panel notes" not in out and "Notas del panel" not in out


def test_reference_label_uses_the_decimal_comma_in_spanish_only(tmp_path, capsys):
    """The best unit's pooled rate (Vitacura 13132, 2000-2015) is written 4,85 in Spanish prose and 4.85 in
    English; the table's numeric reference_rate keeps its float value."""
    data = datasets.chile().data
    vitacura = data[data["unit"] == "13132"]
    rate = 1000 * vitacura["deaths"].sum() / vitacura["births"].sum()  # independent: the raw counts
    text = f"{rate:.2f}"
    overall = f"{1000 * data['deaths'].sum() / data['births'].sum():.2f}"
    out = tmp_path / "gap.csv"
    assert main(["--lang", "es", "disparity", "--example", "chile", "--reference", "best", "--pool",
                 "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    assert f"13132 Vitacura ({text.replace('.', ',')} por 1.000 en 2000-2015" in printed
    assert f"tasa global de {overall.replace('.', ',')} por 1.000" in printed
    table = pd.read_csv(out, dtype={"unit": str})
    assert table["reference_rate"].iloc[0] == pytest.approx(rate, rel=1e-12)
    assert main(["--lang", "en", "disparity", "--example", "chile", "--reference", "best", "--pool"]) == 0
    printed = capsys.readouterr().out
    assert f"13132 Vitacura ({text} per 1,000 over 2000-2015" in printed
    assert f"overall rate of {overall} per 1,000" in printed


def test_quintile_reference_threshold_in_spanish_prose(capsys):
    assert main(["--lang", "es", "disparity", "--example", "chile", "--reference", "lowest-quintile:poverty",
                 "--years", "2010"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    threshold = re.search(r"≤ (\S+)\)", first).group(1)
    assert "," in threshold and "." not in threshold


def test_trends_summary_alpha_in_spanish_prose(capsys):
    assert main(["--lang", "es", "trends", "--example", "chile", "--years", "2010-2015", "--alpha", "0.1"]) == 0
    assert "(alpha 0,1)" in capsys.readouterr().out
    assert main(["--lang", "en", "trends", "--example", "chile", "--years", "2010-2015", "--alpha", "0.1"]) == 0
    assert "(alpha 0.1)" in capsys.readouterr().out


@pytest.mark.parametrize("command", [
    ["trends", "--example", "chile", "--years", "2005-2014"],
    ["inequality", "--example", "chile", "--years", "2014", "--measures", "d"],
    ["rates", "--example", "chile", "--years", "2014"],
])
def test_region_option_keeps_that_regions_units(tmp_path, capsys, region13, command):
    """--region 13 analyses the 52 communes of the Santiago Metropolitan Region, as for rates."""
    out = tmp_path / "r.csv"
    assert main([*command, "--region", "13", "-o", str(out)]) == 0
    table = pd.read_csv(out, dtype={"unit": str})
    if "unit" in table.columns:
        assert set(table["unit"]) == region13 and len(region13) == 52
    else:
        assert set(table["n_units"]) == {52}  # inequality: one row per measure, over the region's units


def test_inequality_xlsx_gets_a_notes_sheet(tmp_path, capsys):
    out = tmp_path / "ineq.xlsx"
    assert main(["--lang", "en", "inequality", "--example", "chile", "--years", "2015", "--measures", "d,gini",
                 "-o", str(out)]) == 0
    sheets = pd.read_excel(out, sheet_name=None)
    assert list(sheets) == ["results", "notes"]
    assert list(sheets["results"].columns[:8]) == ["period", "outcome", "measure", "estimate", "lower", "upper",
                                                   "se", "method"]
    assert any("15-49" in note for note in sheets["notes"]["note"])
    out = tmp_path / "trends.xlsx"  # trends too, like rates, disparity, smooth and funnel
    assert main(["--lang", "en", "trends", "--example", "chile", "--years", "2010-2015", "-o", str(out)]) == 0
    sheets = pd.read_excel(out, sheet_name=None, dtype={"unit": str})
    assert list(sheets) == ["results", "notes"] and len(sheets["results"]) == 346
    assert any("15-49" in note for note in sheets["notes"]["note"])


def test_panel_with_output_does_not_announce_a_table_it_does_not_print(tmp_path, capsys):
    assert main(["--lang", "es", "panel", "--example", "chile", "-o", str(tmp_path / "s.csv")]) == 0
    out = capsys.readouterr().out
    assert "Totales por año" not in out and "Guardado:" in out
    assert main(["--lang", "es", "panel", "--example", "chile"]) == 0
    assert "Totales por año" in capsys.readouterr().out


def test_ingest_table_output_option_has_help(capsys):
    with pytest.raises(SystemExit):
        main(["--lang", "en", "ingest", "table", "--help"])
    help_text = capsys.readouterr().out
    assert re.search(r"-o OUT, --output OUT\s+output file; the format follows the extension", help_text)


def test_ingest_deis_summary_groups_thousands_like_the_ledger(tmp_path, capsys):
    """Spanish: 39.899 nacidos vivos (as the ledger's 'filas leídas 20.000'); English: 39,899. The count
    itself is checked against the generator's truth."""
    from brecha.ingest.synthetic import generate

    files = generate(tmp_path, deaths_rows=300, births_rows=2500, seed=3, years=(2010, 2012))
    births = int(files.expected_panel()["births"].sum())
    assert births >= 1000  # so that the thousands are grouped
    assert main(["--lang", "es", "ingest", "deis", "--quiet", "--deaths", str(files.deaths[0]),
                 "--births", str(files.births[0]), "-o", str(tmp_path / "p.parquet")]) == 0
    assert f"{births:,} nacidos vivos".replace(",", ".") in capsys.readouterr().out
    assert main(["--lang", "en", "ingest", "deis", "--quiet", "--deaths", str(files.deaths[0]),
                 "--births", str(files.births[0]), "-o", str(tmp_path / "p.parquet")]) == 0
    assert f"{births:,} live births" in capsys.readouterr().out


def test_panel_takes_years_and_region_like_the_analyses(tmp_path, capsys, region13):
    """`brecha panel --years 2010-2015 --region 13` summarises what `rates --years ... --region 13` uses:
    the totals per year are the sums of the 52 communes' raw counts."""
    out = tmp_path / "s.csv"
    assert main(["--lang", "en", "panel", "--example", "chile", "--years", "2010-2015", "--region", "13",
                 "-o", str(out)]) == 0
    assert "52 units, years 2010-2015" in capsys.readouterr().out
    summary = pd.read_csv(out).set_index("year")
    data = datasets.chile().data
    raw = data[data["unit"].isin(region13) & data["year"].between(2010, 2015)].groupby("year")
    assert list(summary.index) == list(range(2010, 2016))
    assert (summary["births"] == raw["births"].sum().astype(int)).all()
    assert (summary["deaths"] == raw["deaths"].sum().astype(int)).all()


def test_trends_table_has_the_period_column_of_the_other_tables(tmp_path, capsys):
    """trends carries `period` like rates/disparity/inequality (so results join on unit and period), and
    joinpoint segment years are whole years."""
    out = tmp_path / "t.csv"
    assert main(["trends", "--example", "chile", "--years", "2005-2014", "-o", str(out)]) == 0
    table = pd.read_csv(out, dtype={"unit": str, "period": str})
    assert set(table["period"]) == {"2005-2014"}
    rates_out = tmp_path / "r.csv"
    assert main(["rates", "--example", "chile", "--years", "2005-2014", "--pool", "-o", str(rates_out)]) == 0
    rates = pd.read_csv(rates_out, dtype={"unit": str, "period": str})
    assert set(rates["period"]) == {"2005-2014"}
    assert len(table.merge(rates, on=["unit", "period", "outcome"])) == len(table)
    jp = tmp_path / "jp.csv"
    assert main(["trends", "--example", "chile", "--level", "country", "--method", "joinpoint", "--years",
                 "2005-2014", "-o", str(jp)]) == 0
    with open(jp) as f:
        f.readline()
        first = f.readline()
    assert ",2005,2014," in first and "2005.0" not in first


def test_years_outside_the_panel_are_named(tmp_path, capsys):
    """--years 2014-2016 on Chile (2000-2015): 2016 is named in a warning, 2014-2015 are analysed; with no
    year of the panel at all the analysis' error stands (exit 2)."""
    out = tmp_path / "r.csv"
    warning = "Warning: requested years not in the panel (2000-2015): 2016; the others are used"
    with warnings.catch_warnings():
        warnings.simplefilter("always")  # shown even under `pytest -W ignore`
        assert main(["--lang", "en", "rates", "--example", "chile", "--years", "2014-2016", "-o", str(out)]) == 0
        assert warning in capsys.readouterr().err  # the CLI prints warnings on stderr
        assert set(pd.read_csv(out)["period"]) == {2014, 2015}
        assert main(["--lang", "en", "trends", "--example", "chile", "--years", "2010-2016", "-o", str(out)]) == 0
        assert warning in capsys.readouterr().err
    assert main(["--lang", "en", "rates", "--example", "chile", "--years", "2016"]) == 2
    assert "none of the requested years (2016) is in the panel" in capsys.readouterr().err


def test_trends_takes_conf_level_like_the_other_commands(tmp_path, capsys):
    """--conf-level 0.9 is --alpha 0.1: same table; the two disagreeing is an error (exit 2)."""
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    base = ["trends", "--example", "chile", "--years", "2010-2015", "--all-columns"]
    assert main([*base, "--conf-level", "0.9", "-o", str(a)]) == 0
    assert main([*base, "--alpha", "0.1", "-o", str(b)]) == 0
    ta, tb = pd.read_csv(a), pd.read_csv(b)
    pd.testing.assert_frame_equal(ta, tb)
    assert set(ta["conf_level"].dropna()) == {0.9}
    capsys.readouterr()
    assert main(["--lang", "en", *base, "--conf-level", "0.9", "--alpha", "0.05"]) == 2
    assert "disagree" in capsys.readouterr().err


def test_funnel_accepts_pool_like_the_other_commands(tmp_path, capsys):
    """The funnel pools the years by default; --pool (given to every command by a script) says the same."""
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    assert main(["funnel", "--example", "chile", "--years", "2010-2015", "-o", str(a)]) == 0
    assert main(["funnel", "--example", "chile", "--years", "2010-2015", "--pool", "-o", str(b)]) == 0
    pd.testing.assert_frame_equal(pd.read_csv(a), pd.read_csv(b))
    assert set(pd.read_csv(b)["period"]) == {"2010-2015"}
    capsys.readouterr()
    assert main(["--lang", "en", "funnel", "--example", "chile", "--pool", "--by-year"]) == 2
    assert "--by-year" in capsys.readouterr().err


@pytest.mark.parametrize("argv,message", [
    (["inequality", "--example", "chile", "--years", "2015", "--bootstrap", "-5"],
     "--bootstrap must be 0 (analytic CIs) or a positive number of replicates, not -5"),
    (["trends", "--example", "chile", "--level", "country", "--method", "joinpoint", "--selection",
      "permutation", "--permutations", "-3"], "--permutations must be a whole number >= 1, not -3"),
    (["trends", "--example", "chile", "--level", "country", "--method", "joinpoint", "--max-joinpoints", "-1"],
     "--max-joinpoints must be a whole number >= 0, not -1"),
    (["trends", "--example", "chile", "--conf-level", "95"],
     "option --conf-level: the confidence level must be between 0 and 1, not 95.0. What to do: 95 looks like a "
     "percentage: write 0.95"),
])
def test_bad_numbers_are_input_errors_with_exit_code_2(argv, message, capsys):
    """Before: a traceback (exit 1) for negative permutations or joinpoints, a silent -5 replicates."""
    assert main(["--lang", "en", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_ingest_table_unknown_sheet_is_an_input_error(tmp_path, capsys):
    """--sheet 5 on a one-sheet workbook: a message naming the file and its sheets (was a traceback)."""
    path = tmp_path / "births.xlsx"
    with pd.ExcelWriter(path) as writer:
        pd.DataFrame({"unit": ["13101"], "2015": [1000]}).to_excel(writer, sheet_name="nacimientos", index=False)
    for sheet, shown in (("5", "5"), ("Hoja2", "Hoja2")):
        assert main(["--lang", "en", "ingest", "table", f"{path}=births", "--sheet", sheet,
                     "-o", str(tmp_path / "p.csv")]) == 2
        err = capsys.readouterr().err
        assert f"there is no sheet {shown} (the file has 1: nacimientos)" in err and str(path) in err
    deaths = tmp_path / "deaths.csv"
    pd.DataFrame({"unit": ["13101"], "year": [2015], "deaths": [7]}).to_csv(deaths, index=False)
    assert main(["--lang", "en", "ingest", "table", f"{path}=births", str(deaths), "--sheet", "nacimientos",
                 "-o", str(tmp_path / "p.csv")]) == 0
    panel = pd.read_csv(tmp_path / "p.csv", dtype={"unit": str})
    assert panel[["births", "deaths"]].values.tolist() == [[1000, 7]]


def test_panel_country_that_contradicts_the_example_is_refused(capsys):
    """--country was silently ignored with --example; now a contradiction is an input error, agreement is fine."""
    assert main(["--lang", "en", "panel", "--example", "chile", "--country", "BR"]) == 2
    assert "--example chile is country CL; --country BR does not apply" in capsys.readouterr().err
    assert main(["--lang", "en", "panel", "--example", "chile", "--country", "cl"]) == 0


def test_inequality_reference_reads_codes_as_disparity_does(tmp_path, capsys):
    """São Paulo as a Brazilian analyst writes it (7-digit IBGE 3550308) is the panel's 355030, as in
    `brecha disparity --reference`; a code that is not in the panel is named with examples of the panel's."""
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    base = ["inequality", "--example", "brazil", "--years", "2019", "--measures", "d,r"]
    assert main([*base, "--reference", "3550308", "-o", str(a)]) == 0
    assert main([*base, "--reference", "355030", "-o", str(b)]) == 0
    pd.testing.assert_frame_equal(pd.read_csv(a), pd.read_csv(b))
    capsys.readouterr()
    assert main(["--lang", "en", *base, "--reference", "9999999"]) == 2
    err = capsys.readouterr().err
    assert "reference '9999999' is not among the units" in err and "'110001'" in err and "13101" not in err
