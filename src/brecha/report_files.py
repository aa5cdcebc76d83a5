"""Which files a report writes: its page (``index.html``, with ``figures/``), its workbook (``brecha.xlsx``),
its tables (``tables/*.csv``) and its dashboard (``dashboard.html``). All four unless the study's ``[output]``
table (``files = ["tables"]``) or the command's ``--files tables,workbook`` names fewer.

Why choose: a script that reruns a study for its tables (a nightly job feeding another system, a study run
once per region) needs neither the page nor the dashboard, and they are a third of the run's time on the
national Chilean study (``benchmarks/bench_against_r.py``). The analyses are the same whatever is written:
every file that is written is the same bytes as in the full report. A file of an earlier report in the
folder that this run does not write is removed with the folder's other stale files
(:mod:`brecha.report.folder`, the manifest rule), so the folder never mixes two runs.
"""
from __future__ import annotations

from .i18n import Catalog

FILES = ("page", "workbook", "tables", "dashboard")
ALIASES = {"html": "page", "index.html": "page", "excel": "workbook", "xlsx": "workbook", "brecha.xlsx": "workbook",
           "csv": "tables", "dashboard.html": "dashboard",
           # the same in Spanish, as the report and its messages name them
           "página": "page", "pagina": "page", "informe": "page", "libro": "workbook", "tablas": "tables",
           "tablero": "dashboard"}

MSG = Catalog({
    "not_table": ("se esperaba una tabla [output] con files = [...]", "expected an [output] table with files = [...]"),
    "none": ("ningún archivo pedido: nombre al menos uno de {valid}",
             "no file asked for: name at least one of {valid}"),
    "option": ("--files: {problem}", "--files: {problem}"),
    "unknown": ("'{got}' no es un archivo del informe (se esperaba {valid})",
                "'{got}' is not one of the report's files (expected {valid})"),
    "option_hint": ("p. ej. --files tables,workbook", "e.g. --files tables,workbook"),
    "study_hint": ("escriba p. ej. files = [\"tables\", \"workbook\"] (también: tablas, libro, página, tablero), "
                   "o quite [output] para escribirlos todos",
                   "write e.g. files = [\"tables\", \"workbook\"], or leave [output] out to write them all"),
})


def normalised(names) -> tuple[tuple[str, ...], list[str]]:
    """The files named (aliases such as ``csv`` or ``xlsx`` read as theirs), in :data:`FILES`' order, and the
    names not understood."""
    keys = {str(name): ALIASES.get(str(name).strip().lower(), str(name).strip().lower()) for name in names}
    wrong = [name for name, key in keys.items() if key not in FILES]
    return tuple(f for f in FILES if f in keys.values()), wrong


def parse_output(check, table) -> tuple[str, ...]:
    """A study's ``[output]`` table (``files = ["page", "workbook", "tables", "dashboard"]``), read with the
    study's checker (each problem named by its TOML key)."""
    if not isinstance(table, dict):
        check.fail("output", MSG("not_table"))
    check.known(table, ("files",), "output.")
    if "files" not in table:
        return FILES
    files, wrong = normalised(check.typed("output.files", table["files"], "names"))
    if wrong:  # every name not understood, each named
        for got in wrong[:-1]:
            check.note("output.files", MSG("unknown", got=got, valid=", ".join(FILES)), MSG("study_hint"))
        check.fail("output.files", MSG("unknown", got=wrong[-1], valid=", ".join(FILES)), MSG("study_hint"))
    if not files:
        check.fail("output.files", MSG("none", valid=", ".join(FILES)), MSG("study_hint"))
    return files


def parse_files_option(text) -> tuple[str, ...]:
    """The command line's ``--files page,tables`` (the same names as the study's ``[output] files``; a list
    of names is taken too, as ``run_study(files=...)`` gives them)."""
    from .errors import InputError

    parts = str(text).split(",") if isinstance(text, str) else [str(name) for name in text]
    files, wrong = normalised(part for part in parts if part.strip())
    if wrong:
        problem = "; ".join(MSG("unknown", got=got, valid=", ".join(FILES)) for got in wrong)
        raise InputError(MSG("option", problem=problem), hint=MSG("option_hint"))
    if not files:
        raise InputError(MSG("option", problem=MSG("none", valid=", ".join(FILES))), hint=MSG("option_hint"))
    return files


def with_files(study, names):
    """``study`` writing the files ``names`` (text ``"tables,workbook"`` or a list) instead of its own
    ``[output] files``: the command's ``--files`` and ``run_study(files=...)``."""
    import dataclasses

    return dataclasses.replace(study, files=parse_files_option(names))


def wanted(report, name: str) -> bool:
    """Whether ``report`` writes the file ``name`` (one of :data:`FILES`)."""
    return name in getattr(getattr(report, "study", None), "files", FILES)
