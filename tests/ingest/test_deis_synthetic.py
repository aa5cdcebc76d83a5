"""DEIS ingest on synthetic files with known true counts (brecha.ingest.synthetic).

The generator draws each record's truth (year, 2018 commune, age group) and then writes it the way DEIS
does (codes of the year's code system, EDAD_TIPO/EDAD_CANT, Latin-1 text); the expected panel and ledger
come from the drawn truth, not from parsing the files.
"""
from __future__ import annotations

import json
import warnings

import pandas as pd
import pytest

from brecha.cli.main import main as brecha_main
from brecha.ingest import synthetic
from brecha.ingest.deis import ingest_deis
from brecha.ingest.ledger import REASONS


def _ingest(**kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ingest_deis(**kw)


def _nonzero(frame: pd.DataFrame) -> pd.DataFrame:
    # codes compared as plain text (the truth keeps pandas' "string" dtype, the Panel its own text dtype,
    # which differ on pandas 2)
    frame = frame.assign(unit=frame["unit"].astype(str))
    frame = frame.set_index(["unit", "year"])[["births", "deaths", "deaths_neonatal", "deaths_postneonatal"]]
    frame = frame.astype("int64")
    return frame[(frame != 0).any(axis=1)].sort_index()


def _assert_exact(result, files, years=None, split="keep"):
    assert _nonzero(result.panel.data).equals(_nonzero(files.expected_panel(years=years, split=split)))
    assert {k: result.ledger.by_reason(k) for k in ("deaths", "births")} == files.expected_ledger(years=years)
    result.ledger.check()


@pytest.mark.parametrize("variant", sorted(synthetic.BIRTHS_VARIANTS))
def test_every_births_variant_reproduces_the_truth(tmp_path, variant):
    files = synthetic.generate(tmp_path, deaths_rows=8000, births_rows=6000, seed=11, years=(1995, 2012),
                               births_variant=variant)
    _assert_exact(_ingest(deaths=files.deaths, births=files.births), files)


def test_years_and_merge_of_split_communes(tmp_path):
    files = synthetic.generate(tmp_path, deaths_rows=20000, births_rows=15000, seed=3, years=(1998, 2010))
    for years, split in ((range(2002, 2008), "keep"), (None, "merge")):
        result = _ingest(deaths=files.deaths, births=files.births, years=years, split=split)
        _assert_exact(result, files, years=years, split=split)
    # merge: the four communes created in 2004 are not in the panel; keep: they start in 2004
    merged = result.panel.unit_codes
    assert "01107" not in merged and "01101" in merged
    kept = _ingest(deaths=files.deaths, births=files.births).panel.data
    assert kept.loc[kept["unit"] == "01107", "year"].min() == 2004


def test_several_files_add_up(tmp_path):
    files = synthetic.generate(tmp_path, deaths_rows=9000, births_rows=7000, seed=5, years=(2005, 2012),
                               deaths_files=3, births_files=2)
    result = _ingest(deaths=files.deaths, births=files.births)
    _assert_exact(result, files)
    assert len(result.ledger.totals()) == 5


def test_historical_codes_are_harmonised(tmp_path):
    files = synthetic.generate(tmp_path, deaths_rows=12000, births_rows=3000, seed=8, years=(1999, 2019))
    result = _ingest(deaths=files.deaths, births=files.births)
    status = result.codes.groupby("status")["n"].sum()
    assert status.get("harmonised", 0) > 0 and status.get("current", 0) > 0
    # e.g. Chillán written 8401 (2010-2018 system) counts under 16101
    truth = files.deaths_truth
    chillan = truth[(truth["code_written"] == 8401)]
    assert len(chillan) and set(chillan["unit"]) == {"16101"}
    assert "16101" in result.panel.unit_codes and "08401" not in result.panel.unit_codes


def test_age_edge_cases_each_have_a_reason(tmp_path):
    # one record per edge case; (EDAD_TIPO, EDAD_CANT) -> expected ledger reason
    cases = [
        ("1", "0", "infant_age_group_unknown"), ("2", "0", "infant_age_group_unknown"),
        ("2", "11", "infant_postneonatal"), ("2", "12", "not_infant_other_units"),
        ("3", "0", "infant_neonatal_early"), ("3", "6", "infant_neonatal_early"),
        ("3", "7", "infant_neonatal_late"), ("3", "27", "infant_neonatal_late"),
        ("3", "28", "infant_postneonatal"), ("3", "364", "infant_postneonatal"),
        ("3", "365", "not_infant_other_units"), ("4", "0", "infant_neonatal_early"),
        ("4", "23", "infant_neonatal_early"), ("4", "24", "infant_neonatal_hours_24_plus"),
        ("4", "671", "infant_neonatal_hours_24_plus"), ("4", "672", "infant_postneonatal_hours"),
        ("4", "8760", "not_infant_other_units"), ("9", "", "age_unknown"), ("9", "99", "age_unknown"),
        ("1", "1", "not_infant"), ("1", "", "age_invalid"), ("3", "", "age_invalid"), ("7", "3", "age_invalid"),
        ("", "3", "age_invalid"), ("3", "-1", "age_invalid"),
    ]
    tail = ";".join(["x"] * 19)
    lines = [f"2015;2015-01-01;Mujer;{t};{c};9101;Temuco;Araucanía;{tail}" for t, c, _ in cases]
    f = tmp_path / "edad.csv"
    f.write_bytes(("\n".join(lines) + "\n").encode("latin-1"))
    result = _ingest(deaths=[f])
    expected = pd.Series([r for _, _, r in cases]).value_counts().to_dict()
    assert result.ledger.by_reason("deaths") == expected
    d = result.panel.data.iloc[0]
    infant = sum(v for k, v in expected.items() if k.startswith("infant_"))
    assert int(d["deaths"]) == infant == 14
    assert int(d["deaths_neonatal"]) == 8 and int(d["deaths_postneonatal"]) == 4   # 2 without age group
    assert any("0" in n and "neonatal" in n for n in result.panel.notes)


def test_births_layout_filter_excludes_with_a_reason(tmp_path):
    f = tmp_path / "nac.csv"
    f.write_text("ANO_NAC;COMUNA;TIPO\n2010;9101;1\n2010;9101;2\n2010;9101;\n2010;13101;1\n", encoding="utf-8")
    result = _ingest(births=[f], births_layout="keep=TIPO:1")
    assert result.ledger.by_reason("births") == {"birth": 2, "filtered": 2}
    assert result.panel.data.set_index("unit")["births"].astype(int).to_dict() == {"09101": 1, "13101": 1}
    assert result.panel.data["deaths"].isna().all()


def test_births_by_position_without_header(tmp_path):
    f = tmp_path / "nac.txt"
    f.write_text("x|2011|5|1101\nx|2011|5|1101\nx|2012|5|99999\n", encoding="latin-1")
    result = _ingest(births=[f], births_layout="year=2,commune=4,sep=pipe")
    assert result.ledger.by_reason("births") == {"birth": 2, "commune_unknown": 1}
    assert result.panel.data.set_index(["unit", "year"])["births"].astype(int).to_dict() == {
        ("01101", 2011): 2, ("01101", 2012): 0}


def test_cli_writes_panel_and_ledger(tmp_path, capsys, monkeypatch):
    import brecha.i18n

    monkeypatch.setitem(brecha.i18n._current, "lang", brecha.i18n.get_language())  # restored afterwards
    files = synthetic.generate(tmp_path / "in", deaths_rows=5000, births_rows=5000, seed=2, years=(2010, 2014))
    out = tmp_path / "out" / "panel.parquet"
    code = brecha_main(["--lang", "en", "ingest", "deis", "--deaths", *map(str, files.deaths),
                        "--births", *map(str, files.births), "-o", str(out), "--years", "2011-2013"])
    assert code == 0
    printed = capsys.readouterr().out
    assert "Record ledger" in printed and "rows read" in printed and "outside the requested years" in printed
    panel = pd.read_parquet(out)
    expected = files.expected_panel(years=range(2011, 2014))
    assert int(panel["deaths"].sum()) == int(expected["deaths"].sum())
    assert int(panel["births"].sum()) == int(expected["births"].sum())
    ledger = pd.read_csv(tmp_path / "out" / "panel.ledger.csv")
    assert set(ledger["reason"]) <= set(REASONS)
    assert ledger.groupby("kind")["rows"].sum().to_dict() == {"births": 5000, "deaths": 5000}
    saved = json.loads((tmp_path / "out" / "panel.ledger.json").read_text(encoding="utf-8"))
    assert [t["rows_read"] for t in saved["totals"]] == [5000, 5000]


def test_generator_command_line(tmp_path):
    code = synthetic.main(["--deaths-rows", "3000", "--births-rows", "2000", "--out", str(tmp_path),
                           "--seed", "4", "--years", "2015-2016"])
    assert code == 0
    truth = json.loads((tmp_path / "truth.json").read_text(encoding="utf-8"))
    result = _ingest(deaths=[tmp_path / "deaths.csv"], births=[tmp_path / "births.csv"])
    assert {k: result.ledger.by_reason(k) for k in ("deaths", "births")} == truth["ledger"]
    assert int(result.panel.data["births"].sum()) == truth["totals"]["births"]
    assert int(result.panel.data["deaths"].sum()) == truth["totals"]["deaths"]


def test_record_of_a_split_child_before_its_creation_is_not_lost(tmp_path):
    # Alto Hospicio (01107) was created in 2004; a 2002 record already coded 1107 keeps its code
    tail = ";".join(["x"] * 19)
    rows = [f"{y};{y}-05-01;Mujer;3;{d};{c};n;r;{tail}" for y, d, c in
            ((2002, 2, 1107), (2002, 40, 1101), (2005, 3, 1107))]
    f = tmp_path / "def.csv"
    f.write_text("\n".join(rows) + "\n", encoding="latin-1")
    keep = _ingest(deaths=[f]).panel.data.set_index(["unit", "year"])["deaths"].astype(int).to_dict()
    assert keep[("01107", 2002)] == 1 and keep[("01101", 2002)] == 1 and keep[("01107", 2005)] == 1
    merged = _ingest(deaths=[f], split="merge").panel.data.set_index(["unit", "year"])["deaths"]
    assert merged.astype(int).to_dict() == {("01101", 2002): 2, ("01101", 2005): 1}


def test_strict_reader_agrees_with_the_fast_reader(tmp_path, monkeypatch):
    # the strict reader (pyarrow, line numbers) is the fallback: on a clean file both give the same result
    files = synthetic.generate(tmp_path, deaths_rows=6000, births_rows=4000, seed=9, years=(2008, 2012),
                               births_variant="header-comma-utf8")
    fast = _ingest(deaths=files.deaths, births=files.births)
    from brecha.ingest import deis_reader

    monkeypatch.setattr(deis_reader, "_count_byte", lambda path, byte: -1)     # every file fails the count check
    strict = _ingest(deaths=files.deaths, births=files.births)
    assert strict.panel.data.equals(fast.panel.data)
    assert strict.ledger.to_frame("en").equals(fast.ledger.to_frame("en"))
    frame = fast.ledger.to_frame("en")
    details = frame.loc[frame["reason"] == "commune_unrecognised", "detail"]
    assert len(details) and details.str.startswith("12999 (").all()     # the codes travel in the ledger
