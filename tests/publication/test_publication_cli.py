"""--suppress K (with --round, --zeros) through the real command line, on a panel file written to disk and
read back: the Araucanía region's 32 communes of the Chilean example."""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from lp_audit import audit, hierarchy

import brecha
from brecha.cli.main import main
from brecha.i18n import get_language, set_language


@pytest.fixture(autouse=True)
def keep_language():
    before = get_language()
    yield
    set_language(before)


@pytest.fixture(scope="module")
def panel_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("pub") / "araucania.csv"
    brecha.read_panel("example:chile").subset(region=["09"], years=[2013, 2014, 2015]).to_file(path)
    return path


@pytest.fixture(scope="module")
def truth(panel_file):
    return brecha.read_panel(str(panel_file)).events(years=[2015]).set_index("unit")


def run(args, lang="en"):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return main(["--lang", lang] + [str(a) for a in args])


def read(path):
    return pd.read_csv(path, dtype={"unit": str, "period": str, "flag": str}, keep_default_na=True)


def hidden(t):
    return t["flag"].fillna("").str.contains("suppressed")


def test_rates_suppress_hides_small_counts_adds_totals_and_survives_the_lp_audit(panel_file, truth, tmp_path,
                                                                                  capsys):
    out = tmp_path / "rates.csv"
    assert run(["rates", panel_file, "--years", "2015", "--suppress", "5", "-o", out]) == 0
    said = capsys.readouterr().out
    assert "Protected publication: counts of 1 to 5 deaths are hidden" in said
    t = read(out)
    units = t[t["unit"].isin(truth.index)].set_index("unit")
    assert len(units) == 32
    small = truth.index[truth["events"].between(1, 5)]
    assert len(small) > 5 and hidden(units.reset_index()).set_axis(units.index)[small].all()
    gone = hidden(units.reset_index()).to_numpy()
    assert units.loc[gone, ["events", "estimate", "lower", "upper"]].isna().all().all()
    shown = units[~hidden(units.reset_index()).to_numpy()]
    assert (shown["events"] == truth.loc[shown.index, "events"]).all()  # published numbers unchanged
    # the totals it is published with: the region and the country (here the same 32 communes)
    region = t.set_index("unit").loc["region:09"]
    total = t.set_index("unit").loc["TOTAL"]
    assert region["events"] == total["events"] == truth["events"].sum()
    assert region["estimate"] == pytest.approx(1000 * truth["events"].sum() / truth["births"].sum())
    assert region["name"] == "Región de La Araucanía"
    # reliability: unstable below 20 deaths, on published rows
    assert (shown["reliability"].fillna("") == np.where(shown["events"] < 20, "unstable", "")).all()
    bounds = audit(t, hierarchy(brecha.read_panel(str(panel_file)), ["region"]))
    assert len(bounds) == hidden(t).sum() and ((bounds["high"] - bounds["low"]) >= 5).all()


def test_spanish_messages_and_notes_sheet(panel_file, tmp_path, capsys):
    out = tmp_path / "tasas.xlsx"
    assert run(["rates", panel_file, "--years", "2015", "--suppress", "3", "-o", out], lang="es") == 0
    said = capsys.readouterr().out
    assert "Publicación protegida (K = 3)" in said and "Columna reliability = 'unstable'" in said
    notes = pd.read_excel(out, sheet_name="notes")["note"].tolist()
    assert any(n.startswith("Publicación protegida: los conteos de 1 a 3 defunciones") for n in notes)


def test_rounding_changes_only_counts_and_flags_them(panel_file, truth, tmp_path):
    exact, rounded = tmp_path / "a.csv", tmp_path / "b.csv"
    assert run(["rates", panel_file, "--years", "2015", "--suppress", "5", "-o", exact]) == 0
    assert run(["rates", panel_file, "--years", "2015", "--suppress", "5", "--round", "5", "-o", rounded]) == 0
    a, b = read(exact), read(rounded)
    shown = ~hidden(b)
    assert (b.loc[shown, "events"] % 5 == 0).all()
    changed = shown & (a["events"] != b["events"])
    assert changed.any() and b.loc[changed, "flag"].str.contains("rounded").all()
    assert not b.loc[shown & ~changed, "flag"].fillna("").str.contains("rounded").any()
    np.testing.assert_array_equal(a["estimate"].to_numpy(), b["estimate"].to_numpy())  # rates on exact counts


def test_zeros_hide(panel_file, truth, tmp_path):
    out = tmp_path / "z.csv"
    assert run(["rates", panel_file, "--years", "2015", "--suppress", "5", "--zeros", "hide", "-o", out]) == 0
    t = read(out).set_index("unit")
    zeros = truth.index[truth["events"] == 0]
    assert len(zeros) and hidden(t.reset_index()).set_axis(t.index)[zeros].all()


def test_disparity_smooth_funnel_hide_what_reveals_the_count(panel_file, truth, tmp_path):
    small = truth.index[truth["events"].between(1, 5)]
    for command, extra, columns in (
            ("disparity", ["--reference", "09101"], ["estimate", "lower", "upper", "se", "rate", "events"]),
            ("smooth", [], ["raw_rate", "estimate", "lower", "upper", "events"]),
            ("funnel", [], ["rate", "z", "z_adjusted", "events"])):
        out = tmp_path / f"{command}.csv"
        assert run([command, panel_file, "--years", "2015", "--suppress", "5", *extra, "-o", out]) == 0
        t = read(out)
        rows = t[t["unit"].isin(small)]
        assert len(rows) and hidden(rows).all(), command
        assert rows[columns].isna().all().all(), command
        assert rows["births"].notna().all(), command
        if command == "disparity":  # the reference's own numbers are published (Temuco: 35 deaths)
            assert (rows["reference_events"] == truth.loc["09101", "events"]).all()
        if command == "funnel":
            assert rows["flag_95"].isna().all()
            assert set(t.loc[~hidden(t) & t["unit"].isin(truth.index), "flag"]) <= {"within", "above", "below"}


def test_reliability_without_suppression(panel_file, truth, tmp_path):
    out = tmp_path / "r.csv"
    assert run(["rates", panel_file, "--years", "2015", "-o", out]) == 0
    t = read(out).set_index("unit")
    assert "flag" in t and not t["flag"].fillna("").str.contains("suppressed").any()
    assert list(t["reliability"].fillna("")) == ["unstable" if e < 20 else "" for e in truth.loc[t.index, "events"]]


def test_commands_without_counts_accept_the_option_and_write_the_same_table(panel_file, tmp_path):
    for command, extra in (("trends", []), ("inequality", ["--measures", "cov,gini,ti,d", "--groups", "5", "--rank-by", "poverty"])):
        a, b = tmp_path / f"{command}_a.csv", tmp_path / f"{command}_b.csv"
        assert run([command, panel_file, *extra, "-o", a]) == 0
        assert run([command, panel_file, *extra, "--suppress", "5", "-o", b]) == 0
        pd.testing.assert_frame_equal(read(a), read(b))


def test_inequality_between_units_hides_the_measures_that_are_one_units_rate(panel_file, truth, tmp_path):
    """D is the highest unit rate minus the lowest (0), here a hidden unit's rate; hidden with R and PAF,
    while the CV, which mixes every unit, stays. With --groups (fifths of births) nothing is hidden."""
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    args = ["inequality", panel_file, "--years", "2015", "--measures", "d,r,paf,cov"]
    assert run([*args, "-o", a]) == 0 and run([*args, "--suppress", "5", "-o", b]) == 0
    full, safe = read(a).set_index("measure"), read(b).set_index("measure")
    rates = 1000 * truth["events"] / truth["births"]
    assert full.loc["d", "estimate"] == pytest.approx(rates.max() - rates.min())
    assert truth.loc[rates.idxmax(), "events"] <= 5  # the highest rate is a hidden unit's
    assert safe.loc[["d", "r", "paf"], ["estimate", "lower", "upper"]].isna().all().all()
    assert (safe.loc[["d", "r", "paf"], "flag"] == "suppressed_secondary").all()
    assert safe.loc["cov", "estimate"] == full.loc["cov", "estimate"]


@pytest.mark.parametrize("value", ["0", "100", "-3"])
def test_a_wrong_threshold_is_refused(panel_file, value, capsys):
    assert run(["rates", panel_file, "--suppress", value]) == 2
    err = capsys.readouterr().err
    assert "option --suppress" in err and "whole number from 1 to 99" in err


def test_a_small_reference_hides_every_gap_measure(panel_file, truth, tmp_path):
    """Reference 09106 has 2 deaths in 2015: RR = rate / reference rate would give its rate back from any
    published rate, so every measure and the reference's numbers are hidden; the units' own counts stay."""
    assert truth.loc["09106", "events"] == 2
    out = tmp_path / "gap.csv"
    assert run(["disparity", panel_file, "--years", "2015", "--reference", "09106", "--suppress", "5",
                "-o", out]) == 0
    t = read(out)
    measures = t[t["measure"].notna()]
    assert len(measures) > 60 and measures[["estimate", "lower", "upper", "reference_events",
                                            "reference_rate"]].isna().all().all()
    assert hidden(measures).all()
    big = t[(t["unit"] == "09101") & t["measure"].notna()]  # Temuco keeps its own published count
    assert (big["events"] == truth.loc["09101", "events"]).all()
