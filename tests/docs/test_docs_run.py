"""Every `brecha ...` command shown in README.md and docs/*.md runs as written.

The pages name the user's files (`my_panel.csv`, `births.xlsx`, `DEFUNCIONES.csv`, `my_study.toml`, ...).
:func:`build_files` makes each of them from the embedded data (and the synthetic DEIS generator) in one
folder, and every shown command then runs there through the real command line, in process. A command shown
with `$ brecha ...` and the lines it prints must print those lines; any other shown command must succeed
(exit 0) without a traceback. The study file `my_study.toml` is the TOML example of docs/studies.md itself.

This runs every shown command (about 80, the reports included), so it takes a minute or two; the cheap
check that each shown command parses (a renamed or removed option, caught in well under a second) comes first.
"""
from __future__ import annotations

import re
import shlex
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def shown_commands(path: Path) -> list[tuple[str, str, list[str]]]:
    """(where, command, shown output lines) for each `brecha ...` line in the page's code blocks.

    Continued lines (ending in a backslash) are joined. After a `$ brecha ...` line, the lines up to the next
    `$` line or the end of the block are what the command prints."""
    found: list[tuple[str, str, list[str]]] = []
    block, buffer, start, prompt = False, "", 0, False
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip().startswith("```"):
            block = not block
            prompt = False
            continue
        if not block:
            continue
        text = line.rstrip()
        if buffer:
            buffer += " " + text.strip()
        elif re.match(r"^\s*(\$ )?brecha\b", text):
            prompt = text.lstrip().startswith("$ ")
            buffer, start = re.sub(r"^\s*\$ ", "", text).strip(), number
        elif prompt and found and text.strip():
            found[-1][2].append(text.strip())
            continue
        else:
            continue
        if buffer.endswith("\\"):
            buffer = buffer[:-1].rstrip()
            continue
        found.append((f"{path.name}:{start}", buffer, []))
        buffer = ""
    return found


COMMANDS = [item for page in PAGES for item in shown_commands(page)]


def study_example() -> str:
    """The TOML block of docs/studies.md's "A study of your own" section."""
    text = (ROOT / "docs" / "studies.md").read_text(encoding="utf-8")
    match = re.search(r"## A study of your own.*?```toml\n(.*?)```", text, flags=re.S)
    assert match, "docs/studies.md lost its 'A study of your own' TOML example"
    return match.group(1)


def _wide(data: pd.DataFrame, column: str) -> pd.DataFrame:
    wide = data.pivot(index="unit", columns="year", values=column)
    wide.columns = [str(c) for c in wide.columns]
    return wide.reset_index()


def _births_layout_file(path: Path, births: pd.DataFrame) -> None:
    """Headerless `;` births records with the year in field 4 and the commune code in field 25 (the layout of
    docs/ingest-deis.md's third example); one record per birth."""
    rows = births.loc[births.index.repeat(births["births"].astype(int))]
    fields = [[""] * 25 for _ in range(len(rows))]
    for record, (unit, year) in zip(fields, zip(rows["unit"], rows["year"])):
        record[3], record[24] = str(year), str(unit)
        record[0] = "1"
    path.write_text("\n".join(";".join(r) for r in fields) + "\n", encoding="latin-1")


def _workbook_as_exported(path: Path, data: pd.DataFrame) -> None:
    """An .xlsx as ministry staff export one: a notes sheet first, then the data under a title and a blank row
    (header on row 3; docs/panel.md, "Excel workbooks as they are exported")."""
    import openpyxl

    book = openpyxl.Workbook()
    book.active.title = "notas"
    book.active.append(["Fuente: DEIS, Ministerio de Salud"])
    book.active.append(["Defunciones de menores de 1 año por comuna de residencia"])
    sheet = book.create_sheet("datos")
    sheet.append(["Mortalidad infantil por comuna, 2010-2015"])
    sheet.append([])
    sheet.append(["unit", "year", "births", "deaths"])
    for unit, year, births, deaths in data[["unit", "year", "births", "deaths"]].itertuples(index=False):
        sheet.append([str(unit), int(year), int(births), int(deaths)])
    book.save(path)


def build_files(folder: Path) -> None:
    """Every file the documentation names, made from the embedded data."""
    from brecha import datasets
    from brecha.ingest import synthetic

    chile = datasets.chile(covariates=False)
    recent = chile.subset(years=range(2010, 2016))
    recent.to_file(folder / "my_panel.csv")
    chile.to_file(folder / "chile.csv")                                 # docs/panel.md, "Panel files"
    # a panel of the user's own with a covariate of hers (an income index: here 100 - poverty, a stand-in)
    own = datasets.chile().subset(years=range(2010, 2016)).data.copy()
    own["income"] = 100.0 - own["poverty"]
    own.to_csv(folder / "panel.csv", index=False)
    data = recent.data.astype({"births": "float64", "deaths": "float64"})
    with pd.ExcelWriter(folder / "births.xlsx") as writer:          # wide births, one column per year
        _wide(data, "births").to_excel(writer, index=False)
    data[["unit", "year", "deaths"]].astype({"deaths": "int64"}).to_csv(folder / "deaths.csv", index=False)
    # long tables with the user's own column names (--unit-col cod_com --year-col ano_registro)
    own_names = data.rename(columns={"unit": "cod_com", "year": "ano_registro"}).astype(
        {"births": "int64", "deaths": "int64"})
    own_names[["cod_com", "ano_registro", "births"]].to_csv(folder / "nacimientos.csv", index=False)
    own_names[["cod_com", "ano_registro", "deaths"]].to_csv(folder / "defunciones.csv", index=False)
    # long tables whose counts have other names in each file (docs/panel.md: FILE=deaths:defunciones ...)
    counts = data.astype({"births": "int64", "deaths": "int64"})
    counts[["unit", "year", "deaths"]].rename(columns={"deaths": "defunciones"}).to_csv(
        folder / "def_infantiles.csv", index=False)
    counts[["unit", "year", "births"]].rename(columns={"births": "nacidos"}).to_excel(
        folder / "nacidos.xlsx", index=False)
    # a file with a negative count in spreadsheet row 4 (the error shown in docs/panel.md)
    bad = data.head(6)[["unit", "year", "births", "deaths"]].astype({"births": "int64", "deaths": "int64"})
    bad.loc[bad.index[2], "births"] = -5
    bad.to_excel(folder / "deaths.xlsx", index=False)
    _workbook_as_exported(folder / "mortalidad.xlsx", recent.subset(region="09").data)   # docs/panel.md
    # DEIS microdata (synthetic, DEIS layout) under every name the pages use
    made = synthetic.generate(folder / "_deis", deaths_rows=30_000, births_rows=60_000, seed=3,
                              years=(1992, 2021))
    for names, source in ((("DEFUNCIONES.csv", "DEFUNCIONES_FUENTE_DEIS_1990_2021.csv"), made.deaths[0]),
                          (("NACIMIENTOS.csv", "NAC_1992_2021.csv"), made.births[0])):
        for name in names:
            (folder / name).write_bytes(Path(source).read_bytes())
    for year in (2019, 2020, 2021):
        one = synthetic.generate(folder / f"_deis{year}", deaths_rows=3_000, births_rows=6_000, seed=year,
                                 years=(year, year))
        (folder / f"def_{year}.csv").write_bytes(Path(one.deaths[0]).read_bytes())
        (folder / f"nac_{year}.csv").write_bytes(Path(one.births[0]).read_bytes())
    # a table keyed by official commune names (docs/panel.md, "Names")
    araucania = recent.subset(region="09")
    names = araucania.units.set_index("unit")["name"]
    by_name = araucania.data.assign(comuna=araucania.data["unit"].map(names)).rename(columns={"year": "anio"})
    by_name[["comuna", "anio", "births", "deaths"]].to_csv(folder / "comunas.csv", index=False)
    small = chile.subset(years=[2000], region="09").data
    _births_layout_file(folder / "nacimientos_1995.txt", small.assign(year=1995))
    (folder / "my_study.toml").write_text(study_example(), encoding="utf-8")
    raw = datasets.write_araucania_files(folder / "araucania")   # docs/data.md: the DEIS path on real rows
    # docs/ingest-deis.md, "An extract of infant deaths only": the real rows cut to the infant deaths (age in
    # months, days or hours, or 0 years), and the births table under the names the page uses
    lines = raw["deaths"].read_text(encoding="latin-1").splitlines(keepends=True)
    infant = [line for line in lines if line.split(";")[3] in ("2", "3", "4")
              or line.split(";")[3:5] == ["1", "0"]]
    (folder / "infantiles_araucania_2021.csv").write_text("".join(infant), encoding="latin-1")
    (folder / "nacidos_2021.csv").write_bytes(raw["births"].read_bytes())


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("docs")
    build_files(folder)
    return folder


def test_the_pages_show_commands():
    assert len(COMMANDS) >= 60
    pages = {where.split(":")[0] for where, _, _ in COMMANDS}
    assert pages >= {"README.md", "rates.md", "trends.md", "inequality.md", "panel.md", "ingest-deis.md",
                     "models.md", "report.md", "studies.md"}


@pytest.mark.parametrize("where,command,shown", COMMANDS, ids=[where for where, _, _ in COMMANDS])
def test_shown_command_parses(where, command, shown, capsys):
    from brecha.cli.main import build_parser

    argv = shlex.split(command, comments=True)[1:]
    if argv in (["--help"], ["-h"]):
        return
    try:
        args = build_parser().parse_args(argv)
    except SystemExit:
        pytest.fail(f"{where}: `{command}` is refused: {capsys.readouterr().err.strip()}")
    assert getattr(args, "func", None) is not None, f"{where}: `{command}` names no command"


def _normal(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


@pytest.mark.parametrize("where,command,shown", COMMANDS, ids=[where for where, _, _ in COMMANDS])
def test_shown_command_runs(where, command, shown, workdir, monkeypatch, capsys):
    from brecha.cli.main import main
    from brecha.i18n import set_language

    monkeypatch.chdir(workdir)
    monkeypatch.setenv("COLUMNS", "200")
    set_language("es")
    argv = shlex.split(command, comments=True)[1:]
    try:
        code = main(argv)
    except SystemExit as exc:  # --help
        code = exc.code or 0
    finally:
        set_language("es")
    out = capsys.readouterr()
    printed = out.out + out.err
    assert "Traceback" not in printed, f"{where}: `{command}` printed a traceback:\n{printed[-3000:]}"
    if shown:
        for line in shown:
            line = re.sub(r"\s*(\.\.\.|…)$", "", line)  # a line shown cut short ("...") matches its start
            assert _normal(line) in _normal(printed), f"{where}: `{command}` does not print\n{line}\nbut\n{printed}"
        if any(line.startswith("Error") for line in shown):
            assert code == 2, f"{where}: `{command}` should fail with exit code 2, not {code}"
            return
    assert code == 0, f"{where}: `{command}` exited {code}:\n{printed[-3000:]}"
