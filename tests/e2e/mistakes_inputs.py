"""Mistake cases about the user's input: unit names (class 2), locale numbers (3), broken or odd files and
outputs (6); implausible data and requests (7) are in :mod:`mistakes_requests`. See :mod:`mistakes` for the
runner and the meaning of each outcome."""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

import mistake_data as md
import mistake_inject as inj
from mistake_harness import Case


def _write(name, df_fn=md.base, **kw):
    return lambda folder: md.write(folder, name, df_fn(), **kw)


def _text(name, text, encoding="utf-8"):
    return lambda folder: md.text_file(folder, name, text, encoding)


def _edited(name, edit, df_fn=md.base, **kw):
    """A base file with ``edit(df)`` applied (the edit returns the frame to write)."""
    return lambda folder: md.write(folder, name, edit(df_fn()), **kw)


def _lines(name, edit, sep=","):
    """The base panel's CSV lines, edited as text (for rows a DataFrame cannot hold: ragged, two headers)."""
    return lambda folder: md.text_file(folder, name, "\n".join(edit(md.csv_lines(md.base(), sep))) + "\n")


B, D = None, None


def _totals():
    global B, D
    if B is None:
        B, D = md.totals()
    return B, D


INGEST = ["ingest", "table"]


# ------------------------------------------------------------------------------------------ class 2: names
def _names_edit(mapping: dict):
    """The names file with some names replaced (code -> written name)."""
    def edit(df):
        out = md.with_names(df)
        for code, written in mapping.items():
            out.loc[df["unit"] == code, "comuna"] = written
        return out
    return edit


def names_cases() -> list[Case]:
    b, d = _totals()
    ok = md.panel_totals("p.csv", b, d, 160)
    out = ("p.csv", "p.ledger.*")
    name_run = [[*INGEST, "nombres.csv", "--name-col", "comuna", "-o", "p.csv"]]

    def case(cid, title, mapping, expect, mentions=(), check=None, argv=None, **kw):
        return Case(cid, 2, title, argv or name_run, expect, _edited("nombres.csv", _names_edit(mapping)),
                    mentions=mentions, check=check if check is not None else (ok if expect != "error" else None),
                    outputs=out, **kw)

    upper = {c: n.upper() for c, n in md.names().items() if c.startswith("09")}
    cases = [
        case("names-exact", "official names", {}, "ok"),
        case("names-upper", "names in capitals", upper, "ok"),
        case("names-no-accents", "names without accents", {c: md.plain(n) for c, n in upper.items()}, "ok"),
        case("names-spaces-punctuation", "'  Padre  Las-Casas ', 'NUEVA IMPERIAL.'",
             {"09112": "  Padre  Las-Casas ", "09111": "NUEVA IMPERIAL."}, "ok"),
        case("names-variant", "a known official variant: 'Pto. Saavedra' for Saavedra", {"09116": "Pto. Saavedra"}, "ok"),
        case("names-typo", "one-letter typo 'Temucco'", {"09101": "Temucco"}, "error", ("Temucco", "09101")),
        case("names-typo-2", "typo 'Lautaaro'", {"09108": "Lautaaro"}, "error", ("Lautaaro", "09108")),
        case("names-hospital-label", "'Hospital de Temuco' (a name inside a longer label)",
             {"09101": "Hospital de Temuco"}, "error", ("Hospital de Temuco", "09101")),
        case("names-comuna-de", "'Comuna de Villarrica'", {"09120": "Comuna de Villarrica"}, "error",
             ("Comuna de Villarrica", "09120")),
        case("names-other-region-exact", "'San Pedro' (an RM commune) among Araucanía names: another region",
             {"09119": "San Pedro"}, "error", ("San Pedro",)),
        case("names-other-region-santiago", "'Santiago' in an Araucanía file", {"09103": "Santiago"}, "error",
             ("Santiago",)),
        case("names-unknown", "'Ciudad Gótica'", {"09104": "Ciudad Gótica"}, "error", ("Ciudad Gótica",)),
        case("names-approximate-asked", "'Temucco' with --match approximate: applied, printed, in the ledger",
             {"09101": "Temucco"}, "warn", ("Temucco",),
             argv=[[*INGEST, "nombres.csv", "--name-col", "comuna", "--match", "approximate", "-o", "p.csv"]]),
        case("names-approximate-ambiguous", "'San' with --match approximate: several candidates, an error",
             {"09101": "San"}, "error", ("'San'",),
             argv=[[*INGEST, "nombres.csv", "--name-col", "comuna", "--match", "approximate", "-o", "p.csv"]]),
        case("names-typo-es", "typo 'Temucco', in Spanish", {"09101": "Temucco"}, "error", ("Temucco", "09101"),
             lang="es"),
        case("names-wrong-name-col", "--name-col comunas (the column is 'comuna')", {}, "error", ("comunas",),
             argv=[[*INGEST, "nombres.csv", "--name-col", "comunas", "-o", "p.csv"]]),
        case("names-without-name-col", "names in the file, no --name-col", {}, "error", ("--name-col",),
             argv=[[*INGEST, "nombres.csv", "-o", "p.csv"]],
             why="silent in the issue: the file has no code column; the fix is to name the names column"),
        case("names-same-unit-twice", "'Temuco' and 'TEMUCO' in the same year", {"09102": "TEMUCO"}, "error",
             ("nombres.csv",), why="Carahue renamed Temuco: two rows now for one commune-year"),
    ]

    def blank_name(df):
        out = md.with_names(df)
        out.loc[55, "comuna"] = ""
        return out
    cases.append(Case("names-blank", 2, "a blank name in row 57", name_run, "error",
                      _edited("nombres.csv", blank_name), mentions=("57",)))
    cases.append(Case("names-latin1", 2, "names file in Latin-1 (Windows Excel 'CSV')", name_run, "ok",
                      _edited("nombres.csv", md.with_names, encoding="latin-1", sep=";"), check=ok, outputs=out))
    cases.append(Case("names-xlsx", 2, "names in an Excel file",
                      [[*INGEST, "nombres.xlsx", "--name-col", "comuna", "-o", "p.csv"]], "ok",
                      _edited("nombres.xlsx", md.with_names), check=ok, outputs=out))
    # codes
    cases += [
        Case("codes-no-leading-zero", 2, "codes written 9101 (Excel dropped the zero)",
             [["panel", "panel.csv", "-o", "s.csv"]], "ok",
             _edited("panel.csv", lambda df: df.assign(unit=df["unit"].str.lstrip("0"))),
             check=md.summary_totals("s.csv", b, d), outputs=("s.csv",)),
        Case("codes-typo", 2, "a code with an extra digit, 091010, in row 57", [["panel", "panel.csv"]], "error",
             _edited("panel.csv", lambda df: df.assign(unit=df["unit"].where(df.index != 55, "091010"))),
             mentions=("091010", "57")),
        Case("codes-brazil-among-chile", 2, "a Brazilian code among Chilean ones", [["panel", "panel.csv"]], "error",
             _edited("panel.csv", lambda df: df.assign(unit=df["unit"].where(df.index != 55, "355030"))),
             mentions=("355030",)),
        Case("codes-mixed-names", 2, "some rows with names in the code column", [["panel", "panel.csv"]], "error",
             _edited("panel.csv", lambda df: df.assign(unit=df["unit"].where(df.index != 55, "Temuco"))),
             mentions=("Temuco",)),
    ]
    cases += _brazil_names()
    return cases


def _brazil_names() -> list[Case]:
    """Homonyms: Brazil has about 240 names shared by municipalities of several states."""
    def files(extra_rows: list[str]):
        def setup(folder):
            from brecha.registry import get_registry

            units = get_registry("BR").units
            pi = units[(units["province"].astype(str) == "22") & (units["name"] != "Bom Jesus")].head(6)
            names = list(pi["name"]) + extra_rows
            df = pd.DataFrame({"municipio": names, "ano": 2015, "nascidos": 100, "obitos": 1})
            md.write(folder, "br.csv", df)
        return setup
    argv = [[*INGEST, "br.csv", "--name-col", "municipio", "--country", "BR", "--births-col", "nascidos",
             "--deaths-col", "obitos", "--year-col", "ano", "-o", "p.csv"]]
    return [
        Case("names-br-homonym-resolved", 2, "'Bom Jesus' in a file of Piauí municipalities: resolved to PI and said",
             argv, "warn", files(["Bom Jesus"]), mentions=("Bom Jesus",), outputs=("p.csv", "p.ledger.*"),
             check=md.panel_totals("p.csv", 700, 7, 7)),
        Case("names-br-homonym-alone", 2, "'Bom Jesus' and 'Santa Helena' with no state to tell",
             [[*INGEST, "br2.csv", "--name-col", "municipio", "--country", "BR", "--births-col", "nascidos",
               "--deaths-col", "obitos", "--year-col", "ano", "-o", "p.csv"]], "error",
             _write("br2.csv", lambda: pd.DataFrame({"municipio": ["Bom Jesus", "Santa Helena"], "ano": 2015,
                                                      "nascidos": 100, "obitos": 1})), mentions=("Bom Jesus",)),
    ]


# ------------------------------------------------------------------------------------------ class 3: locale
def _semicolon(edit_cols: dict, extra: dict | None = None):
    """A ';' file of the base panel with columns written as text by functions (col -> f(value))."""
    def setup(folder):
        df = md.base()
        for col, values in (extra or {}).items():
            df[col] = values(df)
        out = df.astype(object)
        for col, f in edit_cols.items():
            out[col] = [f(v) for v in df[col]]
        md.write(folder, "datos.csv", out, sep=";")
    return setup


def _pop(df):
    return (df["births"] * 70 + 50_000).astype("int64")   # every value > 50,000: "180.556"-like when dotted


def _poverty(df):
    return ((df["deaths"] * 7 % 23) + 10.5).astype(float)


def locale_cases() -> list[Case]:
    b, d = _totals()
    base = md.base()
    pop_total = int(_pop(base).sum())
    pov_total = float(_poverty(base).sum())
    run = [[*INGEST, "datos.csv", "-o", "p.csv"]]
    out = ("p.csv", "p.ledger.*")
    ok = md.panel_totals("p.csv", b, d, 160)
    th = md.es_thousands
    cases = [
        Case("locale-births-thousands-dot", 3, "';' file, births '1.234'", run, "ok", _semicolon({"births": th}),
             check=ok, outputs=out),
        Case("locale-population-dots", 3, "';' file, population '180.556' in every row: must not become 180.556",
             run, "ok", _semicolon({"population": th}, {"population": _pop}),
             check=md.panel_totals("p.csv", b, d, 160, population=pop_total), outputs=out, also_error=True,
             mentions=("--decimal",)),
        Case("locale-population-dots-millions", 3, "';' file, population '1.234.567' and '180.556': unambiguous",
             run, "ok", _semicolon({"population": th}, {"population": lambda df: _pop(df) * 7}),
             check=md.panel_totals("p.csv", b, d, 160, population=pop_total * 7), outputs=out),
        Case("locale-poverty-decimal-comma", 3, "';' file, poverty '12,5'", run, "ok",
             _semicolon({"poverty": md.es_decimal}, {"poverty": _poverty}),
             check=md.panel_totals("p.csv", b, d, 160, poverty=pov_total), outputs=out),
        Case("locale-full-spanish-format", 3, "';' file, spending '1.234,5'", run, "ok",
             _semicolon({"spending": md.es_decimal}, {"spending": lambda df: df["births"] * 1.5}),
             check=md.panel_totals("p.csv", b, d, 160, spending=float((base["births"] * 1.5).sum())), outputs=out),
        Case("locale-brazil-format", 3, "';' file, '1.234.567,8' (Portuguese export)", run, "ok",
             _semicolon({"income": lambda v: md.es_decimal(v, 2)}, {"income": lambda df: df["births"] * 1000.25}),
             check=md.panel_totals("p.csv", b, d, 160, income=float((base["births"] * 1000.25).sum())), outputs=out),
        Case("locale-decimal-point-in-semicolon", 3, "';' file, poverty '12.5' (one decimal: not thousands)", run, "ok",
             _semicolon({"poverty": lambda v: f"{v:.1f}"}, {"poverty": _poverty}),
             check=md.panel_totals("p.csv", b, d, 160, poverty=pov_total), outputs=out),
        Case("locale-ambiguous-column", 3, "one column with '1.234' and '1,234': refused naming rows and --decimal",
             run, "error", _text("datos.csv", "unit;year;births;deaths;x\n" + "\n".join(
                 f"{u};{y};{bb};{dd};{'1.234' if i % 2 else '1,234'}"
                 for i, (u, y, bb, dd) in enumerate(base.itertuples(index=False))) + "\n"),
             mentions=("--decimal", "x")),
        Case("locale-comma-file-quoted-thousands", 3, "',' file, births \"1,234\" quoted (English Excel)", run, "ok",
             _text("datos.csv", "unit,year,births,deaths\n" + "\n".join(
                 f'{u},{y},"{bb:,}",{dd}' for u, y, bb, dd in base.itertuples(index=False)) + "\n"),
             check=ok, outputs=out),
        Case("locale-tab-decimal-comma", 3, "tab-separated, poverty '12,5'", run, "ok",
             _text("datos.csv", "unit\tyear\tbirths\tdeaths\tpoverty\n" + "\n".join(
                 f"{u}\t{y}\t{bb}\t{dd}\t{md.es_decimal(p)}" for (u, y, bb, dd), p in
                 zip(base.itertuples(index=False), _poverty(base))) + "\n"),
             check=md.panel_totals("p.csv", b, d, 160, poverty=pov_total), outputs=out),
        Case("locale-count-with-comma-zero", 3, "';' file, births '1234,0'", run, "ok",
             _semicolon({"births": lambda v: f"{v},0"}), check=ok, outputs=out),
        Case("locale-deaths-as-rate-decimal-comma", 3, "';' file, deaths '8,3' (a rate): refused", run, "error",
             _semicolon({"deaths": lambda v: md.es_decimal(v + 0.3)}), mentions=("deaths",)),
        Case("locale-space-thousands", 3, "births '1 234' (space as thousands separator)", run, "ok",
             _semicolon({"births": lambda v: f"{v:,}".replace(",", " ")}), check=ok, outputs=out, also_error=True),
        Case("locale-nbsp-thousands", 3, "births '1\u00a0234' (no-break space, LibreOffice)", run, "ok",
             _semicolon({"births": lambda v: f"{v:,}".replace(",", "\u00a0")}), check=ok, outputs=out,
             also_error=True),
        Case("locale-percent-sign", 3, "poverty '12,5%'", run, "ok",
             _semicolon({"poverty": lambda v: md.es_decimal(v) + "%"}, {"poverty": _poverty}),
             check=md.panel_totals("p.csv", b, d, 160, poverty=pov_total), outputs=out, also_error=True),
        Case("locale-decimal-option", 3, "the ambiguous '180.556' file with --decimal , (the user states it)",
             [[*INGEST, "datos.csv", "--decimal", ",", "-o", "p.csv"]], "ok",
             _semicolon({"population": th}, {"population": _pop}),
             check=md.panel_totals("p.csv", b, d, 160, population=pop_total), outputs=out),
        Case("locale-panel-command", 3, "`brecha panel` on a ';' file with births '1.234'",
             [["panel", "datos.csv", "-o", "s.csv"]], "ok", _semicolon({"births": th}),
             check=md.summary_totals("s.csv", b, d), outputs=("s.csv",)),
        Case("locale-rates-command", 3, "`brecha rates` on a ';' file with births '1.234'",
             [["rates", "datos.csv", "-o", "r.csv"]], "ok", _semicolon({"births": th}),
             check=md.rates_totals("r.csv", b, d, 160), outputs=("r.csv",),
             why="rates writes events and births: its columns are checked for the intended totals"),
        Case("locale-xlsx-text-numbers", 3, "Excel with births typed as text '1.234'",
             [[*INGEST, "datos.xlsx", "-o", "p.csv"]], "ok",
             _edited("datos.xlsx", lambda df: df.assign(births=[th(v) for v in df["births"]])), check=ok, outputs=out),
        Case("locale-wide-semicolon", 3, "wide ';' births table with '1.234'",
             [[*INGEST, "wide.csv=births", "deaths.csv", "-o", "p.csv"]], "ok",
             lambda f: (md.write(f, "wide.csv", base.pivot(index="unit", columns="year", values="births")
                                 .map(th).reset_index(), sep=";"),
                        md.write(f, "deaths.csv", base[["unit", "year", "deaths"]])), check=ok, outputs=out),
        Case("locale-population-dots-es", 3, "'180.556' population, in Spanish", run, "ok",
             _semicolon({"population": th}, {"population": _pop}),
             check=md.panel_totals("p.csv", b, d, 160, population=pop_total), outputs=out, also_error=True,
             mentions=("--decimal",), lang="es"),
    ]
    return cases


# ------------------------------------------------------------------------------------------ class 6: files
def _ragged_extra(lines):
    lines[56] += ",999"
    return lines


def _ragged_short(lines):
    lines[82] = ",".join(lines[82].split(",")[:3])
    return lines


def _two_headers(lines):
    return [lines[0], "código,año,nacidos,defunciones"] + lines[1:]


def file_cases() -> list[Case]:
    b, d = _totals()
    ok_p = md.panel_totals("p.csv", b, d, 160)
    out = ("p.csv", "p.ledger.*")
    base_csv = md.base().to_csv(index=False)

    def err(cid, title, setup, name, cmd="panel", more=(), **kw):
        argv = [*INGEST, name, "-o", "p.csv"] if cmd == "ingest" else [cmd, name, *more]
        return Case(cid, 6, title, [argv], "error", setup, mentions=kw.pop("mentions", (name,)), **kw)

    def parquet_truncated(folder):
        md.write(folder, "p0.parquet", md.base())
        raw = (Path(folder) / "p0.parquet").read_bytes()
        (Path(folder) / "p0.parquet").unlink()
        (Path(folder) / "cut.parquet").write_bytes(raw[: len(raw) // 2])

    def xlsx_truncated(folder):
        md.write(folder, "x0.xlsx", md.base())
        raw = (Path(folder) / "x0.xlsx").read_bytes()
        (Path(folder) / "x0.xlsx").unlink()
        (Path(folder) / "cut.xlsx").write_bytes(raw[: len(raw) // 2])

    def renamed(src_ext, name):
        def setup(folder):
            tmp = md.write(folder, "tmp_src" + src_ext, md.base())
            tmp.rename(Path(folder) / name)
        return setup

    def directory(folder):
        (Path(folder) / "panel.csv").mkdir()

    def sheets(folder):
        md.write(folder, "libro.xlsx", None, sheets={"notas": pd.DataFrame({"nota": ["Fuente: DEIS", "2010-2014"]}),
                                                     "datos": md.base()})

    def merged_header(folder):
        from openpyxl import Workbook

        wb = Workbook()
        ws = wb.active
        ws["A1"] = "Nacidos vivos y defunciones infantiles por comuna, La Araucanía 2010-2014"
        ws.merge_cells("A1:D1")
        ws.append([])
        ws.append(["unit", "year", "births", "deaths"])
        for row in md.base().itertuples(index=False):
            ws.append([row.unit, int(row.year), int(row.births), int(row.deaths)])
        wb.save(Path(folder) / "titulo.xlsx")

    def ods(folder):
        md.text_file(folder, "datos.ods", "PK\x03\x04 not really an ods")

    long_name = "resultado_" + "x" * 300 + ".csv"
    cases = [
        err("file-ragged-extra-field", "CSV row 57 with an extra field", _lines("bad.csv", _ragged_extra), "bad.csv",
            mentions=("bad.csv", "57")),
        err("file-ragged-extra-field-ingest", "the same through ingest table", _lines("bad.csv", _ragged_extra),
            "bad.csv", cmd="ingest", mentions=("bad.csv", "57")),
        err("file-ragged-short-row", "CSV row 83 with a field missing", _lines("bad.csv", _ragged_short), "bad.csv",
            mentions=("bad.csv", "83"), why="silent in the issue: a short row is a broken line, not missing data"),
        err("file-two-header-rows", "two header rows (Spanish and English)", _lines("bad.csv", _two_headers),
            "bad.csv", mentions=("bad.csv",)),
        err("file-csv-named-xlsx", "a CSV file named .xlsx", renamed(".csv", "datos.xlsx"), "datos.xlsx"),
        err("file-csv-named-xlsx-ingest", "a CSV named .xlsx through ingest table", renamed(".csv", "datos.xlsx"),
            "datos.xlsx", cmd="ingest"),
        err("file-xlsx-named-csv", "an Excel file named .csv", renamed(".xlsx", "datos.csv"), "datos.csv"),
        err("file-parquet-named-csv", "a Parquet file named .csv", renamed(".parquet", "datos.csv"), "datos.csv"),
        err("file-csv-named-parquet", "a CSV named .parquet", renamed(".csv", "datos.parquet"), "datos.parquet"),
        err("file-csv-named-json", "a CSV named .json", renamed(".csv", "datos.json"), "datos.json"),
        err("file-json-truncated", "malformed JSON (cut half-way)",
            _text("datos.json", md.base().to_json(orient="records")[:2000]), "datos.json"),
        err("file-json-nested", "JSON with nested objects",
            _text("datos.json", json.dumps([{"unit": "09101", "year": 2010, "counts": {"births": 1, "deaths": 0}}])),
            "datos.json"),
        err("file-json-empty-list", "JSON '[]'", _text("datos.json", "[]"), "datos.json"),
        err("file-json-scalar", "JSON '42'", _text("datos.json", "42"), "datos.json"),
        err("file-parquet-truncated", "Parquet cut half-way", parquet_truncated, "cut.parquet"),
        err("file-parquet-truncated-ingest", "truncated Parquet through ingest table", parquet_truncated,
            "cut.parquet", cmd="ingest"),
        err("file-xlsx-truncated", "Excel file cut half-way", xlsx_truncated, "cut.xlsx"),
        err("file-xlsx-truncated-ingest", "truncated Excel through ingest table", xlsx_truncated, "cut.xlsx",
            cmd="ingest"),
        err("file-xlsx-garbage", "random bytes named .xlsx", _text("datos.xlsx", "\x00\x01garbage" * 50, "latin-1"),
            "datos.xlsx"),
        err("file-csv-binary", "binary garbage named .csv",
            lambda f: (Path(f) / "datos.csv").write_bytes(bytes(range(256)) * 40), "datos.csv"),
        err("file-empty-csv", "an empty CSV (0 bytes)", _text("vacio.csv", ""), "vacio.csv"),
        err("file-empty-parquet", "an empty .parquet (0 bytes)", _text("vacio.parquet", ""), "vacio.parquet"),
        err("file-blank-lines-csv", "a CSV of blank lines", _text("vacio.csv", "\n\n   \n\n"), "vacio.csv"),
        err("file-header-only-csv", "header only", _text("vacio.csv", "unit,year,births,deaths\n"), "vacio.csv"),
        err("file-header-only-csv-ingest", "header only through ingest table",
            _text("vacio.csv", "unit,year,births,deaths\n"), "vacio.csv", cmd="ingest"),
        err("file-header-only-xlsx", "Excel with the header only", _write("vacio.xlsx", lambda: md.base().head(0)),
            "vacio.xlsx"),
        err("file-header-only-parquet", "Parquet with no rows", _write("vacio.parquet", lambda: md.base().head(0)),
            "vacio.parquet"),
        err("file-empty-sheet", "Excel whose sheet is empty", _write("vacio.xlsx", lambda: pd.DataFrame()),
            "vacio.xlsx"),
        err("file-input-is-directory", "the PANEL argument is a folder", directory, "panel.csv"),
        err("file-missing", "a file that is not there", None, "panle.csv"),
        err("file-missing-ingest", "a missing file through ingest table", None, "panle.csv", cmd="ingest"),
        err("file-ods", "a LibreOffice .ods", ods, "datos.ods"),
        err("file-panel-xlsx-data-on-second-sheet", "`panel` on a workbook whose data are on sheet 2", sheets,
            "libro.xlsx"),
        err("file-duplicate-header", "the births column twice in the header",
            _text("dup.csv", base_csv.replace("unit,year,births,deaths", "unit,year,births,births", 1)), "dup.csv",
            mentions=("dup.csv", "births")),
        err("file-excel-dates-as-year", "Excel with the year as a date",
            _edited("fechas.xlsx", lambda df: df.assign(year=pd.to_datetime(df["year"].astype(str) + "-01-01"))),
            "fechas.xlsx", cmd="ingest",
            why="silent in the issue: 2010-01-01 is not a year; refuse naming the column rather than guess"),
        Case("file-sheet-second-default", 6, "ingest table on a workbook whose first sheet is notes",
             [[*INGEST, "libro.xlsx", "-o", "p.csv"]], "error", sheets, mentions=("libro.xlsx", "--sheet")),
        Case("file-sheet-named", 6, "--sheet datos", [[*INGEST, "libro.xlsx", "--sheet", "datos", "-o", "p.csv"]],
             "ok", sheets, check=ok_p, outputs=out),
        Case("file-sheet-missing", 6, "--sheet 7 on a two-sheet workbook",
             [[*INGEST, "libro.xlsx", "--sheet", "7", "-o", "p.csv"]], "error", sheets, mentions=("libro.xlsx", "7")),
        Case("file-merged-title-row", 6, "Excel with a merged title row above the header",
             [[*INGEST, "titulo.xlsx", "-o", "p.csv"]], "ok", merged_header, check=ok_p, outputs=out,
             also_error=True, mentions=("titulo.xlsx",),
             why="silent: a tool may find the header below a title, or refuse naming the file; never misread"),
        Case("file-bom", 6, "UTF-8 with BOM (Excel 'CSV UTF-8')", [[*INGEST, "bom.csv", "-o", "p.csv"]], "ok",
             _write("bom.csv", bom=True), check=ok_p, outputs=out),
        Case("file-bom-semicolon-crlf", 6, "BOM, ';' and CRLF (Excel in Spanish)", [[*INGEST, "x.csv", "-o", "p.csv"]],
             "ok", _write("x.csv", bom=True, sep=";", newline="\r\n"), check=ok_p, outputs=out),
        Case("file-utf16", 6, "UTF-16 'Unicode text' from Excel", [[*INGEST, "u16.csv", "-o", "p.csv"]], "ok",
             _write("u16.csv", encoding="utf-16", sep="\t"), check=ok_p, outputs=out, also_error=True,
             mentions=("u16.csv",)),
        Case("file-header-spaces-case", 6, "header ' Unit ', 'YEAR', 'Births ', 'DEATHS'",
             [[*INGEST, "h.csv", "-o", "p.csv"]], "ok",
             _text("h.csv", base_csv.replace("unit,year,births,deaths", " Unit ,YEAR,Births ,DEATHS", 1)),
             check=ok_p, outputs=out),
        Case("file-trailing-delimiters", 6, "every line ends with ',' (an empty unnamed column)",
             [[*INGEST, "t.csv", "-o", "p.csv"]], "ok",
             _text("t.csv", "\n".join(line + "," for line in base_csv.splitlines()) + "\n"), check=ok_p, outputs=out),
        Case("file-comment-line", 6, "a '# Fuente: DEIS' line above the header", [[*INGEST, "c.csv", "-o", "p.csv"]],
             "ok", _text("c.csv", "# Fuente: DEIS\n" + base_csv), check=ok_p, outputs=out, also_error=True,
             mentions=("c.csv",)),
        Case("file-txt-extension", 6, "a CSV saved as .txt", [[*INGEST, "datos.txt", "-o", "p.csv"]], "ok",
             _write("datos.txt"), check=ok_p, outputs=out, also_error=True, mentions=("datos.txt",)),
        Case("file-parquet-int-codes", 6, "Parquet with codes as integers (9101)", [["panel", "p.parquet", "-o", "s.csv"]],
             "ok", _edited("p.parquet", lambda df: df.assign(unit=df["unit"].astype(int))),
             check=md.summary_totals("s.csv", b, d), outputs=("s.csv",)),
        Case("file-parquet-text-years", 6, "Parquet with years as text", [["panel", "p.parquet", "-o", "s.csv"]],
             "ok", _edited("p.parquet", lambda df: df.assign(year=df["year"].astype(str))),
             check=md.summary_totals("s.csv", b, d), outputs=("s.csv",)),
        Case("file-json-text-numbers", 6, "JSON with counts as strings", [["panel", "p.json", "-o", "s.csv"]], "ok",
             _edited("p.json", lambda df: df.astype(str)), check=md.summary_totals("s.csv", b, d), outputs=("s.csv",)),
        Case("file-json-columns-orient", 6, "JSON written column-wise ({'unit': [...], ...})",
             [["panel", "p.json", "-o", "s.csv"]], "ok",
             _text("p.json", json.dumps({c: md.base()[c].tolist() for c in md.base().columns})),
             check=md.summary_totals("s.csv", b, d), outputs=("s.csv",), also_error=True, mentions=("p.json",)),
        Case("file-xlsx-codes-as-numbers", 6, "Excel with codes as numbers", [["panel", "p.xlsx", "-o", "s.csv"]], "ok",
             _edited("p.xlsx", lambda df: df.assign(unit=df["unit"].astype(int))),
             check=md.summary_totals("s.csv", b, d), outputs=("s.csv",)),
        # output problems
        Case("out-is-folder", 6, "-o naming an existing folder", [["rates", "panel.csv", "-o", "resultados"]], "error",
             lambda f: (md.write(f, "panel.csv", md.base()), (Path(f) / "resultados").mkdir()),
             mentions=("resultados",)),
        Case("out-trailing-slash", 6, "-o 'nuevo/' (a folder name)", [["rates", "panel.csv", "-o", "nuevo/"]], "error",
             _write("panel.csv"), mentions=("nuevo",)),
        Case("out-parent-is-file", 6, "-o panel.csv/out.csv (a file as a folder)",
             [["rates", "panel.csv", "-o", "panel.csv/out.csv"]], "error", _write("panel.csv"),
             mentions=("panel.csv/out.csv",)),
        Case("out-name-too-long", 6, "-o a name longer than the file system allows",
             [["rates", "panel.csv", "-o", long_name]], "error", _write("panel.csv"), mentions=("resultado_xxxx",)),
        Case("out-unknown-extension", 6, "-o out.txt", [["rates", "panel.csv", "-o", "out.txt"]], "error",
             _write("panel.csv"), mentions=("out.txt",)),
        Case("out-no-extension", 6, "-o resultados (no extension)", [["rates", "panel.csv", "-o", "resultados"]],
             "error", _write("panel.csv"), mentions=("resultados",)),
        Case("out-xls", 6, "-o out.xls (legacy Excel)", [["rates", "panel.csv", "-o", "out.xls"]], "error",
             _write("panel.csv"), mentions=("out.xls",),
             why="silent in the issue: brecha writes .xlsx only; an .xlsx named .xls makes Excel complain"),
        Case("out-upper-extension", 6, "-o OUT.CSV", [["rates", "panel.csv", "-o", "OUT.CSV"]], "ok",
             _write("panel.csv"), check=md.output_rows("OUT.CSV", 160), outputs=("OUT.CSV",)),
        Case("report-o-file", 6, "report -o naming an existing file", [["report", "study.toml", "-o", "notas.txt"]],
             "error", lambda f: (_tiny_study(f), md.text_file(f, "notas.txt", "mine\n")), mentions=("notas.txt",)),
        Case("report-o-long-name", 6, "report -o a folder name too long",
             [["report", "study.toml", "-o", "d" * 300]], "error", _tiny_study, mentions=("ddddd",)),
        # studies
        Case("study-toml-syntax", 6, "study with a TOML syntax error", [["report", "study.toml", "-o", "r"]], "error",
             _text("study.toml", 'title = "x\nperiod = 2010-2014\n'), mentions=("study.toml",)),
        Case("study-binary", 6, "study file of binary garbage", [["report", "study.toml", "-o", "r"]], "error",
             lambda f: (Path(f) / "study.toml").write_bytes(bytes(range(256))), mentions=("study.toml",)),
        Case("study-panel-missing", 6, "study naming a panel file that is not there",
             [["report", "study.toml", "-o", "r"]], "error",
             _text("study.toml", _study_text(data='panel = "nope.csv"')), mentions=("nope.csv",)),
        Case("study-panel-ragged", 6, "study whose panel file has a ragged row",
             [["report", "study.toml", "-o", "r"]], "error",
             lambda f: (_lines("bad.csv", _ragged_extra)(f),
                        md.text_file(f, "study.toml", _study_text(data='panel = "bad.csv"'))), mentions=("bad.csv",)),
        # unexpected internal errors
        Case("internal-error-rates", 6, "a bug inside the rates: short message and --debug, no traceback",
             [["rates", "panel.csv"]], "internal", _write("panel.csv"),
             inject=lambda: inj.inside("brecha/rates.py", ZeroDivisionError)),
        Case("internal-error-rates-es", 6, "the same in Spanish", [["rates", "panel.csv"]], "internal",
             _write("panel.csv"), inject=lambda: inj.inside("brecha/rates.py", ZeroDivisionError), lang="es"),
        Case("internal-error-models", 6, "a bug inside the models", [["models", "panel.csv", "--covariates", "poverty"]],
             "internal", _write("panel.csv"), inject=lambda: inj.inside("brecha/models/linear.py", IndexError)),
        Case("internal-error-debug", 6, "--debug shows the full traceback", [["--debug", "rates", "panel.csv"]],
             "debug", _write("panel.csv"), inject=lambda: inj.inside("brecha/rates.py", ZeroDivisionError),
             why="the issue names --debug without a place; a global option, like --lang"),
    ]
    if not md.is_root():
        def unreadable(folder):
            p = md.write(folder, "secreto.csv", md.base())
            p.chmod(0)
        cases.append(err("file-unreadable", "a file without read permission", unreadable, "secreto.csv"))
    return cases


def _study_text(**kw) -> str:
    return md.study(**kw)


def _tiny_study(folder):
    md.write(folder, "panel.csv", md.base())
    md.text_file(folder, "study.toml", _study_text())


def input_cases() -> list[Case]:
    from mistakes_requests import request_cases

    cases = names_cases() + locale_cases() + file_cases() + request_cases()
    # a Spanish sample of the refusals whose message must name language-neutral things (files, options, values)
    spanish = []
    for c in cases:
        if c.expect == "error" and c.lang == "en" and c.cls in (6, 7) and c.id in SPANISH_SAMPLE:
            spanish.append(Case(**{**c.__dict__, "id": c.id + "-es", "lang": "es"}))
    return cases + spanish


SPANISH_SAMPLE = {
    "file-ragged-extra-field", "file-csv-named-xlsx", "file-json-truncated", "file-parquet-truncated",
    "file-header-only-csv", "file-empty-csv", "out-is-folder", "out-name-too-long", "report-o-file",
    "data-year-20015", "req-groups-0", "req-best-negative", "req-covariate-misspelt", "study-empty",
    "study-several-errors", "req-years-20015", "req-conf-level-95", "file-duplicate-header",
}
