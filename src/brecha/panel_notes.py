"""The notes of a panel file: the caveats that travel with its results, kept beside the file.

A Panel carries notes (``panel.notes``: e.g. "births 2000-2009 count mothers aged 15-49 only", how communes
created in 2004 are counted, which covariates brecha attached and how). Every command prints them and the
report lists them, and the report's headline qualifies the rates of those years. A CSV, Parquet or Excel
panel file has no place for them, so :meth:`Panel.to_file` writes them beside the file as
``<name>.notes.json`` and :func:`brecha.panel.read_panel` reads them back: the embedded example written to a
file and read back gives the same notes, not only the same numbers. The file is plain JSON::

    {"notes": ["...", "..."], "language": "en", "panel": {"rows": 5520, "births": 3813329, "deaths": 29934}}

``panel`` is a fingerprint of the panel the notes were written for. When the panel file read beside it
differs (another panel saved under the same name by another tool, or the file edited by hand), its notes
may not apply: they are left out and a warning says so, naming the notes file. Notes keep the language
they were written in (``language``), as a ledger does.
"""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from .errors import warn
from .i18n import Catalog, get_language

MSG = Catalog({
    "stale": ("las notas de {notes} se escribieron para otro panel ({then}; el archivo tiene {now}) y no se "
              "usan; bórrelo o vuelva a guardar el panel con Panel.to_file",
              "the notes in {notes} were written for another panel ({then}; the file has {now}) and are not "
              "used; delete it or save the panel again with Panel.to_file"),
    "fingerprint": ("{rows} {rows:fila|filas}, {births} {births:nacimiento|nacimientos}, {deaths} "
                    "{deaths:defunción|defunciones}",
                    "{rows} {rows:row|rows}, {births} {births:birth|births}, {deaths} {deaths:death|deaths}"),
    "unreadable": ("no se pudieron leer las notas de {notes} ({error}); el panel se usa sin ellas",
                   "could not read the notes in {notes} ({error}); the panel is used without them"),
})


def notes_path(panel_file) -> Path:
    """``<stem>.notes.json`` beside a panel file (``panel.csv`` -> ``panel.notes.json``)."""
    path = Path(panel_file)
    base = path.with_suffix("") if path.suffix else path
    return base.parent / f"{base.name}.notes.json"


def fingerprint(data: pd.DataFrame) -> dict:
    """Rows and total births and deaths of a panel table (what must match for its notes to apply)."""
    def total(column):
        if column not in data.columns:
            return None
        return int(pd.to_numeric(data[column], errors="coerce").sum())

    return {"rows": int(len(data)), "births": total("births"), "deaths": total("deaths")}


def write_notes(panel_file, notes, data: pd.DataFrame) -> Path:
    """Write the notes of the panel ``data`` beside ``panel_file`` (atomically; inside
    :func:`brecha.outputs.together` with the panel file itself)."""
    from .outputs import write_file

    payload = {"notes": [str(n) for n in notes], "language": get_language(), "panel": fingerprint(data)}
    text = json.dumps(payload, indent=1, ensure_ascii=False)
    return write_file(notes_path(panel_file), lambda temp: Path(temp).write_text(text, encoding="utf-8"))


def read_notes(panel_file, data: pd.DataFrame, warnings: list | None = None) -> tuple:
    """The notes saved beside ``panel_file`` for this panel table ``data`` (empty when there are none; a
    warning, also appended to ``warnings`` (the panel's), when they belong to another panel or cannot be
    read)."""
    path = notes_path(panel_file)
    if not path.is_file():
        return ()
    try:
        payload = json.loads(path.read_text(encoding="utf-8"))
        notes = tuple(str(n) for n in payload["notes"])
        then = payload.get("panel") or {}
    except (OSError, ValueError, KeyError, TypeError) as exc:
        _warn(MSG("unreadable", notes=path, error=type(exc).__name__), warnings)
        return ()
    now = fingerprint(data)
    if then != now:
        _warn(MSG("stale", notes=path, then=MSG("fingerprint", **_shown(then)), now=MSG("fingerprint", **now)),
              warnings)
        return ()
    return notes


def _warn(message: str, warnings: list | None) -> None:
    if warnings is not None:
        warnings.append(message)
    warn(message)


def _shown(print_: dict) -> dict:
    return {key: print_.get(key, "?") for key in ("rows", "births", "deaths")}
