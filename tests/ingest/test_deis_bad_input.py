"""Bad DEIS input: a clear error naming the file and line, or a ledger entry with its lines; never silent loss."""
from __future__ import annotations

import gzip
import warnings
from pathlib import Path

import pytest

from brecha.errors import InputError
from brecha.ingest.deis import ingest_deis
from brecha.ingest.ledger import Ledger, LedgerError

RAW = Path(__file__).resolve().parents[1] / "reference" / "deis_defunciones_formato_crudo_araucania_2021.csv"


def _lines(n: int) -> list[bytes]:
    """The first n real rows of the Araucanía sample (Latin-1 bytes, no newline)."""
    with open(RAW, "rb") as handle:
        return [handle.readline().rstrip(b"\n") for _ in range(n)]


def _write(path: Path, lines: list[bytes], end: bytes = b"\n") -> Path:
    path.write_bytes(b"\n".join(lines) + end)
    return path


def _ingest(**kw):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = ingest_deis(**kw)
    result.caught = [str(w.message) for w in caught]
    return result


def _error(**kw) -> InputError:
    with pytest.raises(InputError) as err:
        ingest_deis(**kw)
    return err.value


def test_empty_file(tmp_path):
    f = tmp_path / "vacio.csv"
    f.write_bytes(b"")
    err = _error(deaths=[f])
    assert err.file == str(f) and ("vacío" in str(err) or "empty" in str(err))
    f.write_bytes(b"\n\n  \n")                                # blank lines only
    err = _error(births=[f])
    assert err.file == str(f) and ("vacío" in str(err) or "empty" in str(err))


def test_missing_file(tmp_path):
    err = _error(deaths=[tmp_path / "no_existe.csv"])
    assert err.file.endswith("no_existe.csv")


def test_utf16_is_refused_with_what_to_do(tmp_path):
    f = tmp_path / "utf16.csv"
    f.write_bytes("\n".join(x.decode("latin-1") for x in _lines(5)).encode("utf-16"))
    err = _error(deaths=[f])
    assert "UTF-16" in str(err) and err.file == str(f) and err.hint


def test_utf8_instead_of_latin1_gives_the_same_counts(tmp_path):
    lines = _lines(400)
    latin = _write(tmp_path / "latin1.csv", lines)
    utf8 = _write(tmp_path / "utf8.csv", [x.decode("latin-1").encode("utf-8") for x in lines])
    a, b = _ingest(deaths=[latin]), _ingest(deaths=[utf8])
    assert a.panel.data.equals(b.panel.data)
    assert a.ledger.by_reason("deaths") == b.ledger.by_reason("deaths")


def test_compressed_and_spreadsheet_files_are_refused(tmp_path):
    gz = tmp_path / "d.csv.gz"
    gz.write_bytes(gzip.compress(b"\n".join(_lines(3))))
    assert "gzip" in str(_error(deaths=[gz]))
    xlsx = tmp_path / "d.xlsx"
    xlsx.write_bytes(b"PK\x03\x04" + b"\x00" * 100)
    err = _error(deaths=[xlsx])
    assert "ZIP" in str(err) and "Excel" in str(err)


def test_wrong_column_count_names_line_one(tmp_path):
    lines = [b";".join(x.split(b";")[:20]) for x in _lines(10)]
    f = _write(tmp_path / "cortado.csv", lines)
    err = _error(deaths=[f])
    assert err.rows == [1] and "20" in str(err) and "27" in str(err)


def test_malformed_rows_go_to_the_ledger_with_their_lines(tmp_path):
    lines = _lines(30)
    lines[4] = lines[4] + b";extra"                       # line 5: 28 columns
    lines[11] = b";".join(lines[11].split(b";")[:9])       # line 12: 9 columns
    f = _write(tmp_path / "mal.csv", lines)
    result = _ingest(deaths=[f])
    entry = result.ledger.to_frame("en").set_index("reason").loc["malformed_columns"]
    assert entry["rows"] == 2 and entry["lines"] == "5 12"
    totals = result.ledger.totals().iloc[0]
    assert totals["rows_read"] == 30 and totals["counted"] + totals["excluded"] == 30
    assert any("5, 12" in w for w in result.caught)


def test_truncated_file_last_line(tmp_path):
    lines = _lines(25)
    lines[-1] = lines[-1][:17]                             # the copy stopped in the middle of a row
    f = _write(tmp_path / "truncado.csv", lines, end=b"")
    result = _ingest(deaths=[f])
    entry = result.ledger.to_frame("en").set_index("reason").loc["malformed_columns"]
    assert entry["rows"] == 1 and entry["lines"] == "25"
    assert result.ledger.totals().iloc[0]["rows_read"] == 25


def test_blank_lines_and_bad_values(tmp_path):
    lines = _lines(20)
    lines[2] = b"20x1" + lines[2][4:]                      # line 3: year not a number
    lines[6] = _set_field(_set_field(_set_field(lines[6], 5, b""), 3, b"3"), 4, b"2")   # line 7: infant, no commune
    lines[7] = _set_field(lines[7], 5, b"")               # line 8: adult, no commune: not an infant first
    lines.insert(9, b"")                                   # line 10: blank
    f = _write(tmp_path / "valores.csv", lines)
    result = _ingest(deaths=[f])
    frame = result.ledger.to_frame("en").set_index("reason")
    assert frame.loc["year_invalid", "rows"] == 1 and frame.loc["year_invalid", "lines"] == "3"
    assert frame.loc["commune_missing", "rows"] == 1 and frame.loc["commune_missing", "lines"] == "7"
    assert frame.loc["blank_line", "rows"] == 1
    assert result.ledger.totals().iloc[0]["rows_read"] == 21


def _set_field(line: bytes, index: int, value: bytes) -> bytes:
    fields = line.split(b";")
    fields[index] = value
    return b";".join(fields)


def test_quoted_separators_are_read_by_the_strict_reader(tmp_path):
    lines = _lines(15)
    lines[3] = _set_field(lines[3], 10, b'"Enfermedades; del sistema"')
    f = _write(tmp_path / "comillas.csv", lines)
    result = _ingest(deaths=[f])
    assert result.ledger.by_reason("deaths") == {"not_infant": 15}


def test_births_file_given_as_deaths(tmp_path):
    with_header = tmp_path / "nac_header.csv"
    with_header.write_text("SEXO;DIA_NAC;MES_NAC;ANO_NAC;PESO;COMUNA\n1;2;3;2010;3300;9101\n", encoding="latin-1")
    err = _error(deaths=[with_header])
    assert "--births" in str(err) and err.rows == [1]
    from brecha.ingest import synthetic

    files = synthetic.generate(tmp_path / "s", deaths_rows=10, births_rows=50, seed=1,
                               births_variant="noheader-semicolon-latin1")
    err = _error(deaths=files.births)
    assert "--births" in str(err) and err.file == str(files.births[0])


def test_deaths_file_given_as_births(tmp_path):
    f = _write(tmp_path / "def.csv", _lines(20))
    err = _error(births=[f])
    assert "--deaths" in str(err) and err.file == str(f)


def test_births_without_header_and_unknown_layout(tmp_path):
    f = tmp_path / "nac.csv"
    f.write_text("1;2010;9101;3300\n2;2010;9101;3100\n", encoding="latin-1")
    err = _error(births=[f])
    assert "--births-layout" in str(err) and err.file == str(f)
    # a layout pointing at the weight column as the year is refused from the sample
    err = _error(births=[f], births_layout="year=4,commune=3")
    assert "year" in str(err) and "3300" in str(err)
    ok = _ingest(births=[f], births_layout="year=2,commune=3")
    assert int(ok.panel.data["births"].sum()) == 2


def test_bad_layout_text():
    for text in ("year", "year=ANO,color=red", "sep=@", "keep=TIPO:a"):
        with pytest.raises(InputError) as err:
            ingest_deis(births=["x.csv"], births_layout=text)
        assert "year=" in str(err.value)


def test_header_missing_a_column(tmp_path):
    f = tmp_path / "def.csv"
    f.write_text("ANO_DEF;EDAD_TIPO;EDAD_CANT;COMUNA\n2010;1;50;9101\n", encoding="latin-1")
    err = _error(deaths=[f])
    assert "CODIGO_COMUNA_RESIDENCIA" in str(err) and err.rows == [1]


def test_nothing_counted_is_an_error_with_the_ledger(tmp_path):
    f = _write(tmp_path / "def.csv", _lines(20))
    err = _error(deaths=[f], years=[1995])
    assert "fuera de los años pedidos" in str(err) or "outside the requested years" in str(err)


def test_same_file_twice_is_refused(tmp_path):
    f = _write(tmp_path / "def.csv", _lines(5))
    err = _error(deaths=[f, tmp_path / "." / "def.csv"])
    assert "def.csv" in str(err)


def test_no_input_and_bad_split():
    with pytest.raises(InputError):
        ingest_deis()
    with pytest.raises(InputError):
        ingest_deis(deaths=[RAW], split="join")


def test_ledger_refuses_totals_that_do_not_add_up():
    led = Ledger()
    led.start_file("a.csv", "deaths", rows_read=10)
    led.add("a.csv", "not_infant", 9)
    with pytest.raises(LedgerError):
        led.check()
    led.add("a.csv", "age_unknown", 1)
    led.check()
    with pytest.raises(LedgerError):
        led.add("a.csv", "no_such_reason", 1)


def test_panel_totals_must_equal_the_ledger():
    import pandas as pd

    from brecha.ingest.deis import _check_totals

    led = Ledger()
    led.start_file("n.csv", "births", rows_read=3)
    led.add("n.csv", "birth", 2)
    led.add("n.csv", "commune_unknown", 1)
    _check_totals(pd.DataFrame({"births": [2], "deaths": [0]}), led)           # equal: silent
    with pytest.raises(LedgerError) as err:
        _check_totals(pd.DataFrame({"births": [1], "deaths": [0]}), led)       # one birth lost
    assert "(2, 0)" in str(err.value)


def test_ledger_round_trip(tmp_path):
    led = Ledger()
    led.start_file("a.csv", "deaths", rows_read=3)
    led.add("a.csv", "malformed_columns", 1, lines=[7])
    led.add("a.csv", "infant_neonatal_early", 2)
    csv_path, json_path = led.save(tmp_path / "panel.parquet")
    assert csv_path.name == "panel.ledger.csv" and json_path.name == "panel.ledger.json"
    back = Ledger.load(json_path)
    assert back.totals().equals(led.totals())
    assert sorted(back.to_frame("en")["lines"].tolist()) == ["", "7"]
    # the ledger beside a panel file, for reports
    beside = Ledger.beside(tmp_path / "panel.parquet")
    assert beside.totals().equals(led.totals()) and beside.to_frame("es").equals(led.to_frame("es"))
    assert Ledger.beside(tmp_path / "other.parquet") is None


def test_cli_reports_the_error_and_writes_nothing(tmp_path, capsys, monkeypatch):
    from brecha.cli.main import main as brecha_main
    import brecha.i18n

    monkeypatch.setitem(brecha.i18n._current, "lang", brecha.i18n.get_language())  # restored afterwards

    f = tmp_path / "vacio.csv"
    f.write_bytes(b"")
    out = tmp_path / "panel.parquet"
    assert brecha_main(["--lang", "en", "ingest", "deis", "--deaths", str(f), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "vacio.csv" in err and "empty" in err
    assert not out.exists() and not (tmp_path / "panel.ledger.csv").exists()


def test_quoted_number_beyond_the_head_is_read(tmp_path):
    lines = _lines(1200)                                   # ~350 KB: more than the head that is sniffed
    lines[1100] = b'"2021"' + lines[1100][4:]
    f = _write(tmp_path / "comillas_tarde.csv", lines)
    result = _ingest(deaths=[f])
    reasons = result.ledger.by_reason("deaths")
    assert "year_invalid" not in reasons and sum(reasons.values()) == 1200


@pytest.mark.parametrize("lang, words", [
    ("en", "Warning: 2 records excluded that may have been infant deaths or births (commune unknown (99999): 1; "
           "age empty or invalid (EDAD_TIPO/EDAD_CANT): 1); details in "),  # in the order of cli.ingest.DOUBTFUL
    ("es", "Aviso: 2 registros excluidos que podrían ser defunciones infantiles o nacimientos (comuna ignorada "
           "(99999): 1; edad vacía o inválida (EDAD_TIPO/EDAD_CANT): 1); detalle en "),
])
def test_quiet_still_says_what_was_excluded_that_may_have_been_an_infant_death(tmp_path, capsys, lang, words):
    """`ingest deis --quiet` leaves the ledger out of the screen; records excluded for a reason that does not
    put them out of scope (commune 99999, an invalid age) are still said, on stderr, with the ledger's path.
    Adults' records (out of scope) are not: they are in the ledger only."""
    from brecha.cli.main import main

    lines = _lines(30)
    fields = [line.split(b";") for line in lines]
    fields[0][3:6] = [b"3", b"5", b"99999"]  # an infant death (5 days) of commune unknown
    fields[1][3] = b"7"           # EDAD_TIPO 7: not a unit of age
    path = _write(tmp_path / "def.csv", [b";".join(f) for f in fields])
    out = tmp_path / "p.csv"
    assert main(["--lang", lang, "ingest", "deis", "--deaths", str(path), "--quiet", "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert words + str(tmp_path / "p.ledger.csv") in err
    assert main(["--lang", lang, "ingest", "deis", "--deaths", str(_write(tmp_path / "ok.csv", lines[2:])), "--quiet",
                 "-o", str(tmp_path / "q.csv")]) == 0
    assert capsys.readouterr().err == ""  # only adults' records excluded: nothing to say
