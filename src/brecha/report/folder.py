"""A report folder replaced whole, and only brecha's own files in it.

:func:`report_folder` gives the report a new, empty temporary folder beside ``out`` to write into. When the
report is complete its files move into ``out`` one rename each, under the lock of :class:`brecha.outputs.Lock`
and with Ctrl-C held back for those milliseconds; a new folder is renamed into place whole. Until then an
earlier report in ``out`` is untouched; on an error or Ctrl-C the temporary folder is removed and ``out``
stays as it was.

The manifest rule. ``out/.brecha-manifest.json`` lists the files brecha wrote there (paths relative to the
folder). A new report replaces those files and removes those of them it no longer writes (a table of an
analysis dropped from the study); nothing else in the folder is ever touched, so a user's notes or data
beside the report survive every run. A file the manifest does not list but whose name the new report
writes (a user's own ``index.html``, ``tables/rates.csv``) is never overwritten: the run stops, names the
files and writes nothing. A folder that is not empty and has no manifest is written into on these terms
(the user's files stay, a name clash stops the run). One exception: a folder whose ``index.html`` ends with
the footer of a brecha report and has no manifest (a report made before manifests existed) is taken as
brecha's: its files with the new report's names are replaced, nothing else in it is removed.
"""
from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
from pathlib import Path, PurePosixPath

from ..errors import InputError
from ..i18n import Catalog, get_language
from ..outputs import (Lock, beside, check_name, check_parent, fsync, fsync_folder, inside, interrupts_held,
                       make_folder, os_error, record_completed, stop_if_interrupted, temp_beside)

MANIFEST = ".brecha-manifest.json"
REPORT_FIXED = ("index.html", "brecha.xlsx", "dashboard.html")  # the files every report writes at its top
REPORT_FOLDERS = ("tables", "figures")

MSG = Catalog({
    "is_file": ("-o nombra un archivo existente, y el informe es una carpeta",
                "-o names an existing file, and the report is a folder"),
    "is_file_hint": ("indique una carpeta (nueva o de un informe anterior), p. ej. {example}",
                     "give a folder (new, or one of an earlier report), e.g. {example}"),
    "input_in_report": ("el archivo de entrada {input} está en la carpeta del informe, donde el informe escribe",
                        "the input file {input} is in the report folder, where the report writes"),
    "input_in_report_hint": ("mueva la entrada fuera de esa carpeta, o elija otra carpeta con -o",
                             "move the input out of that folder, or choose another folder with -o"),
    "foreign": ("la carpeta tiene archivos propios con el nombre de archivos del informe: {files}; no se "
                "sobrescriben y no se escribió nada",
                "the folder holds files of your own with the names of report files: {files}; they are not "
                "overwritten and nothing was written"),
    "foreign_hint": ("elija otra carpeta con -o, o mueva esos archivos",
                     "choose another folder with -o, or move those files"),
})


def example_folder(path: Path) -> str:
    """A folder name beside the file ``-o`` named, for the hint."""
    path = Path(path)
    if path.suffix:
        return str(path.with_suffix(""))
    return f"{path}-{'report' if get_language() == 'en' else 'informe'}"


def check_folder_target(folder, inputs=()) -> None:
    """Before any work: a report folder is not an existing file, its name fits, it can be written, no input
    lies where the report writes, and no file of the user's own has the name of ``index.html``/``brecha.xlsx``."""
    folder = Path(folder)
    check_name(folder)  # first: a too long name makes even "does it exist?" fail
    if folder.exists() and not folder.is_dir():
        raise InputError(MSG("is_file"), file=str(folder),
                         hint=MSG("is_file_hint", example=example_folder(folder)))
    check_parent(folder / "index.html")
    ours, legacy = _previous_files(folder)
    for source in (Path(p) for p in inputs if p):
        if not inside(folder, source):
            continue
        rel = Path(os.path.realpath(source)).relative_to(os.path.realpath(folder)).as_posix()
        if rel in ours or rel in REPORT_FIXED or rel == MANIFEST or rel.split("/")[0] in REPORT_FOLDERS:
            raise InputError(MSG("input_in_report", input=source), file=str(folder),
                             hint=MSG("input_in_report_hint"))
    if folder.is_dir() and not legacy:
        clash = [name for name in REPORT_FIXED if (folder / name).exists() and name not in ours]
        if clash:
            raise InputError(MSG("foreign", files=", ".join(clash)), file=str(folder), hint=MSG("foreign_hint"))


def _previous_files(folder: Path) -> tuple[set[str], bool]:
    """The files an earlier report wrote in ``folder`` (from its manifest), and whether the folder is a
    brecha report from before manifests (an ``index.html`` with brecha's footer and no manifest)."""
    try:
        listed = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))["files"]
    except FileNotFoundError:
        listed = None
    except (OSError, ValueError, KeyError, TypeError):  # damaged: its own name is still ours
        listed = []
    if listed is None:
        try:
            with open(folder / "index.html", "rb") as handle:
                handle.seek(0, os.SEEK_END)
                handle.seek(max(0, handle.tell() - 400))
                tail = handle.read().decode("utf-8", errors="replace")
            return set(), "</footer></main></body></html>" in tail and "brecha —" in tail
        except OSError:
            return set(), False
    ours = set()
    for name in listed if isinstance(listed, list) else []:
        parts = PurePosixPath(str(name)).parts
        if parts and not PurePosixPath(str(name)).is_absolute() and ".." not in parts:
            ours.add(PurePosixPath(*parts).as_posix())
    return ours, False


def _write_manifest(where: Path, files) -> None:
    from .. import __version__

    payload = {"written_by": f"brecha {__version__}", "note": "files brecha wrote here; only these are ever "
               "replaced or removed by a later report", "files": sorted(files)}
    temp = temp_beside(where / MANIFEST)
    temp.write_text(json.dumps(payload, indent=1, ensure_ascii=False), encoding="utf-8")
    fsync(temp)
    os.replace(temp, where / MANIFEST)


def _files_under(folder: Path) -> list[str]:
    found = [p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()]
    # the entry page last: whoever opens the folder meanwhile finds the earlier report or the whole new one
    return sorted(found, key=lambda name: (name in REPORT_FIXED, name == "index.html", name))


def _install(stage: Path, out: Path) -> None:
    new = _files_under(stage)
    with Lock(out):
        if not out.exists():
            with interrupts_held():
                _write_manifest(stage, new)
                os.rename(stage, out)
                fsync_folder(out.parent)
                record_completed(out)
            return
        if not out.is_dir():
            raise InputError(MSG("is_file"), file=str(out), hint=MSG("is_file_hint", example=example_folder(out)))
        ours, legacy = _previous_files(out)
        clash = [] if legacy else [n for n in new if n not in ours and os.path.lexists(out / n)]
        if clash:
            shown = ", ".join(clash[:10]) + (f" (+{len(clash) - 10})" if len(clash) > 10 else "")
            raise InputError(MSG("foreign", files=shown), file=str(out), hint=MSG("foreign_hint"))
        with interrupts_held():
            # first a manifest naming old and new files: a run cut short here (power loss) leaves a folder a
            # later report still knows to be its own
            _write_manifest(out, ours | set(new))
            for sub in sorted(p.relative_to(stage) for p in stage.rglob("*") if p.is_dir()):
                (out / sub).mkdir(parents=True, exist_ok=True)
            for name in new:
                (out / name).parent.mkdir(parents=True, exist_ok=True)
                os.replace(stage / name, out / name)
            for name in sorted(ours - set(new)):
                target = out / name
                if target.is_file() and not target.is_symlink() and inside(out, target):
                    target.unlink()
            for sub in REPORT_FOLDERS:  # brecha's folder its files left empty (no longer written: [output])
                had = any(n.startswith(f"{sub}/") for n in ours)
                if had and not any(n.startswith(f"{sub}/") for n in new):
                    with contextlib.suppress(OSError):  # not empty: a user's file in it
                        (out / sub).rmdir()
            _write_manifest(out, new)
            fsync_folder(out)
            record_completed(out)


@contextlib.contextmanager
def report_folder(out):
    """``with report_folder(out) as stage:`` write the report's files into ``stage`` (a new, empty sibling
    folder); when the block ends without an error they replace the earlier report in ``out`` (module rule 3).
    On an error or Ctrl-C, ``out`` is left as it was and the stage is removed."""
    out = Path(out)
    check_name(out)
    if out.exists() and not out.is_dir():
        raise InputError(MSG("is_file"), file=str(out), hint=MSG("is_file_hint", example=example_folder(out)))
    parent = Path(os.path.abspath(out)).parent
    make_folder(parent, out)
    stage = beside(Path(os.path.abspath(out)), f"{secrets.token_hex(4)}.brecha-tmp")
    try:
        stage.mkdir(0o777)  # the umask applies, as for a folder made by hand
    except OSError as exc:
        raise os_error(exc, out) from None
    try:
        try:
            yield stage
        except OSError as exc:
            raise os_error(exc, out) from None
        stop_if_interrupted()  # a Ctrl-C Python dropped: the earlier report stays
        try:
            _install(stage, out)
        except OSError as exc:
            raise os_error(exc, out) from None
    finally:
        with interrupts_held():
            shutil.rmtree(stage, ignore_errors=True)
