"""Writing files so that nothing the user owns is lost: atomic files, all-or-nothing groups, report folders
with a manifest, a lock against two runs at once, and a clear message when the disk says no.

The rules (docs/ARCHITECTURE.md, "Your files are safe"):

1. **Atomic file.** The content goes to a temporary file in the target's folder (``.NAME.XXXXXXXX.brecha-tmp.EXT``),
   is flushed to the disk (``fsync``) and renamed over the target with :func:`os.replace`, which is atomic
   within one file system on POSIX and Windows. Whatever happens before the rename (an error, a full disk,
   Ctrl-C), the target keeps its old bytes and the temporary file is removed.
2. **Groups.** Inside ``with together():`` every file written through :func:`write_file` (``io.write_table``,
   ``Panel.to_file``, ``Ledger.save``, :func:`open_atomic`) is staged that way and the renames happen together
   at the end, with Ctrl-C held back for the milliseconds they take: a panel and its ledger, a coefficient
   table and its sibling tables appear all together or not at all.
3. **Report folders** (:mod:`brecha.report.folder`): built in a temporary sibling folder and moved in under
   the lock, with a manifest of the files brecha wrote there; only those are ever replaced or removed.
4. **Lock.** While files are renamed into place a lock file ``.NAME.brecha-lock`` beside the target, created
   with ``O_EXCL``, holds the writer's process id. A second run waits for it (up to :data:`LOCK_WAIT_SECONDS`),
   then stops with a message naming the process. A lock whose process is gone (same machine) is stale and is
   taken over. The work of a run is done before the lock is taken, so two runs at once each compute and the
   one that finishes last leaves its complete result: never a mix of both.
5. **Inputs.** :func:`check_file_targets` (and ``report.folder.check_folder_target``) run before any work and refuse an
   output that is one of the inputs, compared after resolving relative paths and symbolic links and as the
   same file on disk (hard links, case-insensitive disks).

Ctrl-C: :func:`completed` lists the outputs this process finished, so the CLI can say what was kept
(:func:`interrupted_line`).
"""
from __future__ import annotations

import contextlib
import datetime as _dt
import errno
import hashlib
import json
import os
import re
import secrets
import shutil
import signal
import socket
import sys
import threading
import time
from pathlib import Path, PurePosixPath

from .errors import InputError
from .i18n import Catalog, get_language

LOCK_WAIT_SECONDS = 10.0
STALE_EMPTY_LOCK_SECONDS = 30.0  # a lock file left empty this long: its writer died between create and write

MSG = Catalog({
    "disk_full": ("no queda espacio en el disco ({error}); el archivo anterior, si había, queda intacto",
                  "the disk is full ({error}); the earlier file, if any, is unchanged"),
    "disk_full_hint": ("libere espacio o elija con -o una carpeta en otro disco",
                       "free some space or choose with -o a folder on another disk"),
    "too_long": ("el nombre es demasiado largo para el sistema de archivos ({n} bytes; máximo {limit})",
                 "the name is too long for the file system ({n} bytes; at most {limit})"),
    "too_long_os": ("el nombre o la ruta es demasiado largo para el sistema de archivos ({error})",
                    "the name or path is too long for the file system ({error})"),
    "too_long_hint": ("use un nombre más corto", "use a shorter name"),
    "read_only": ("no se puede escribir en la carpeta {folder}: es de solo lectura o no tiene permiso ({error})",
                  "cannot write in the folder {folder}: it is read-only or you lack permission ({error})"),
    "read_only_hint": ("elija con -o una carpeta donde pueda escribir; si el archivo está abierto en otro "
                       "programa (p. ej. Excel), ciérrelo",
                       "choose with -o a folder you can write in; if the file is open in another program "
                       "(e.g. Excel), close it"),
    "not_folder": ("una parte de la ruta ({folder}) es un archivo, no una carpeta",
                   "part of the path ({folder}) is a file, not a folder"),
    "not_folder_hint": ("corrija la ruta de -o", "correct the -o path"),
    "no_folder": ("no se pudo crear la carpeta {folder} ({error})", "could not create the folder {folder} ({error})"),
    "cannot_write": ("no se pudo escribir ({error}); el archivo anterior, si había, queda intacto",
                     "could not write ({error}); the earlier file, if any, is unchanged"),
    "cannot_write_hint": ("revise la ruta y el disco, o elija otra salida con -o",
                          "check the path and the disk, or choose another output with -o"),
    "is_folder": ("-o nombra una carpeta existente, y aquí se escribe un archivo",
                  "-o names an existing folder, and this output is a file"),
    "is_folder_hint": ("indique un nombre de archivo, p. ej. {example}", "give a file name, e.g. {example}"),
    "is_input": ("la salida es el archivo de entrada {input}; se perdería",
                 "the output is the input file {input}; it would be lost"),
    "is_input_hint": ("elija otro nombre de salida con -o", "choose another output name with -o"),
    "same_output": ("dos salidas nombran el mismo archivo", "two outputs name the same file"),
    "same_output_hint": ("dé a cada salida su propio nombre", "give each output a name of its own"),
    "busy": ("otra ejecución de brecha (proceso {pid}, desde las {since}) está escribiendo aquí; no se escribió "
             "nada",
             "another brecha run (process {pid}, since {since}) is writing here; nothing was written"),
    "busy_hint": ("espere a que termine y repita; si no hay otra ejecución, borre {lock}",
                  "wait for it to finish and run again; if no other run exists, delete {lock}"),
    "interrupted": ("Interrumpido: no se escribió nada", "Interrupted: nothing was written"),
    "interrupted_kept": ("Interrumpido: se conservan completos {paths}; nada más se escribió",
                         "Interrupted: kept complete {paths}; nothing else was written"),
})

_local = threading.local()  # the open group of this thread (``together``)
_completed: list[str] = []  # outputs finished by this process since forget_completed()


# ------------------------------------------------------------------------------------------ record

def completed() -> list[str]:
    """The outputs (files, report folders) this process finished since :func:`forget_completed`."""
    return list(dict.fromkeys(_completed))


def record_completed(path) -> None:
    """Note an output as finished (for the Ctrl-C line)."""
    _completed.append(str(path))


def forget_completed() -> None:
    """Start a new record (the CLI calls it when a command starts)."""
    _completed.clear()


def interrupted_line() -> str:
    """The one line the CLI prints on Ctrl-C: nothing was written, or which complete outputs were kept."""
    kept = completed()
    return MSG("interrupted_kept", paths=", ".join(kept)) if kept else MSG("interrupted")


# -------------------------------------------------------------------------------------- interrupts

@contextlib.contextmanager
def interrupts_held():
    """Hold Ctrl-C back inside the block (renames and clean-up: milliseconds) and deliver it at the end.

    Only the main thread receives signals in Python; elsewhere this does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    try:
        previous = signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    except (ValueError, OSError):  # no signal handling here (an embedded interpreter)
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if caught and callable(previous):
            previous(signal.SIGINT, None)  # Python's default handler raises KeyboardInterrupt


# ---------------------------------------------------------------------------- Ctrl-C in a command

_ctrl_c: list[int] = []  # the Ctrl-Cs the running command received (ctrl_c_watched)
_settled = [True]  # True: a Ctrl-C is only recorded (no command watched, or it is already stopping)


def _on_ctrl_c(signum, frame) -> None:
    _ctrl_c.append(signum)
    if not _settled[0]:
        raise KeyboardInterrupt


def _unraisable(previous):
    def hook(unraisable) -> None:
        # Python raises a Ctrl-C's KeyboardInterrupt wherever the main thread is; inside a weakref callback
        # or a __del__ it cannot propagate and Python would print "Exception ignored ..." and go on as if no
        # Ctrl-C had come (seen: a report finished with exit 0). It is recorded; stop_if_interrupted acts on it.
        if isinstance(unraisable.exc_value, KeyboardInterrupt):
            return
        previous(unraisable)
    return hook


@contextlib.contextmanager
def ctrl_c_watched(for_the_process: bool = False):
    """Run a command so that a Ctrl-C can neither be lost nor kill it half-way.

    Inside the block Ctrl-C raises KeyboardInterrupt (as Python's own handler does) and is recorded, so a
    KeyboardInterrupt that Python dropped (raised in a weakref callback or a ``__del__``) is raised again at
    the next :func:`stop_if_interrupted` (before any output is committed, and when the command ends). Once
    the command takes its Ctrl-C (:func:`settle`), further ones are only recorded: the clean-up and the exit
    are not cut short. ``for_the_process`` (the ``brecha`` program itself): the handler stays, settled, when
    the block ends, so a Ctrl-C during the interpreter's exit cannot turn exit 130 into death by signal.
    Elsewhere the earlier handler is put back. Outside the main thread this does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _ctrl_c.clear()
    try:
        previous = signal.signal(signal.SIGINT, _on_ctrl_c)
    except (ValueError, OSError):  # no signal handling here (an embedded interpreter)
        yield
        return
    previous_hook = sys.unraisablehook
    sys.unraisablehook = _unraisable(previous_hook)
    _settled[0] = False
    try:
        yield
    finally:
        _settled[0] = True
        sys.unraisablehook = previous_hook
        if not for_the_process:
            signal.signal(signal.SIGINT, previous)


def settle() -> None:
    """The command has taken its Ctrl-C and is stopping: further Ctrl-Cs are recorded, not raised."""
    _settled[0] = True


def stop_if_interrupted() -> None:
    """Raise KeyboardInterrupt if a Ctrl-C came to the watched command (:func:`ctrl_c_watched`) and was lost."""
    if _ctrl_c and not _settled[0]:
        raise KeyboardInterrupt


# ------------------------------------------------------------------------------------------- errors

def _errno(exc: OSError) -> int | None:
    """The errno of an OSError; pyarrow puts it only in the text ("[Errno 28] ...")."""
    if exc.errno is not None:
        return exc.errno
    found = re.search(r"\[errno (\d+)\]", str(exc), flags=re.IGNORECASE)
    return int(found.group(1)) if found else None


def os_error(exc: OSError, path) -> InputError:
    """A write that the system refused, as a message that names the path and says what to do."""
    code = _errno(exc)
    path = Path(path)
    text = exc.strerror or str(exc)
    folder = str(path.parent) if str(path.parent) else "."
    if code in (errno.ENOSPC, getattr(errno, "EDQUOT", -1)):
        return InputError(MSG("disk_full", error=text), file=str(path), hint=MSG("disk_full_hint"))
    if code == errno.ENAMETOOLONG:
        return InputError(MSG("too_long_os", error=text), file=str(path), hint=MSG("too_long_hint"))
    if code in (errno.EROFS, errno.EACCES, errno.EPERM):
        return InputError(MSG("read_only", folder=folder, error=text), file=str(path), hint=MSG("read_only_hint"))
    if code == errno.EISDIR:
        return InputError(MSG("is_folder"), file=str(path), hint=MSG("is_folder_hint", example=_example_file(path)))
    if code == errno.ENOTDIR:
        return InputError(MSG("not_folder", folder=_first_file_ancestor(path) or folder), file=str(path),
                          hint=MSG("not_folder_hint"))
    return InputError(MSG("cannot_write", error=text), file=str(path), hint=MSG("cannot_write_hint"))


def _example_file(folder: Path) -> str:
    """A file name inside the folder ``-o`` named, for the hint."""
    name = "results" if get_language() == "en" else "resultados"
    return str(Path(folder) / (name + (Path(folder).suffix or ".csv")))


def _first_file_ancestor(path: Path) -> str | None:
    for parent in reversed(Path(os.path.abspath(path)).parents):
        if parent.exists() and not parent.is_dir():
            return str(parent)
    return None


# -------------------------------------------------------------------------------------------- names

def _name_max(folder: Path) -> int:
    """The longest file name (in bytes) the file system of ``folder`` (or its nearest existing parent) takes."""
    probe = Path(os.path.abspath(folder))
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    try:
        return int(os.pathconf(probe, "PC_NAME_MAX"))
    except (AttributeError, OSError, ValueError, TypeError):  # Windows has no pathconf: NTFS takes 255
        return 255


def check_name(path) -> None:
    """Refuse a file or folder name longer than its file system takes (before any work)."""
    path = Path(path)
    limit = _name_max(path.parent)
    for part in Path(os.path.abspath(path)).parts[1:]:
        size = len(os.fsencode(part))
        if size > limit:
            raise InputError(MSG("too_long", n=size, limit=limit), file=str(path), hint=MSG("too_long_hint"))


def beside(path: Path, tag: str, suffix: str = "") -> Path:
    """A hidden name beside ``path`` (``.NAME.tag``), shortened to a hash when the full one would not fit."""
    name = f".{path.name}.{tag}{suffix}"
    if len(os.fsencode(name)) > min(_name_max(path.parent), 255):
        digest = hashlib.sha256(os.fsencode(path.name)).hexdigest()[:16]
        name = f".brecha-{digest}.{tag}{suffix[:20]}"
    return path.with_name(name)


def temp_beside(path: Path) -> Path:
    return beside(path, f"{secrets.token_hex(4)}.brecha-tmp", path.suffix)


def inside(parent: Path, child: Path) -> bool:
    try:
        Path(os.path.realpath(child)).relative_to(os.path.realpath(parent))
        return True
    except ValueError:
        return False


def _same(a: Path, b: Path) -> bool:
    """The same file: equal after resolving links and relative parts, or the same inode when both exist."""
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


# ----------------------------------------------------------------------------------- pre-flight checks

def check_parent(path: Path) -> None:
    """The nearest existing ancestor of ``path`` is a folder brecha can write in (missing folders are
    created when the output is written)."""
    probe = Path(os.path.abspath(path)).parent
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    if not probe.is_dir():
        raise InputError(MSG("not_folder", folder=str(probe)), file=str(path), hint=MSG("not_folder_hint"))
    if not os.access(probe, os.W_OK | os.X_OK):
        raise InputError(MSG("read_only", folder=str(probe), error=os.strerror(errno.EACCES)), file=str(path),
                         hint=MSG("read_only_hint"))


def check_file_targets(outputs, inputs=()) -> None:
    """Before any work: each output names a file (not an existing folder) whose name fits, in a folder that
    can be written, that is none of the inputs and that no other output names."""
    outputs = [Path(p) for p in outputs if p]
    inputs = [Path(p) for p in inputs if p]
    for i, out in enumerate(outputs):
        check_name(out)  # first: a too long name makes even "is it a folder?" fail
        if out.is_dir():
            raise InputError(MSG("is_folder"), file=str(out),
                             hint=MSG("is_folder_hint", example=_example_file(out)))
        check_parent(out)
        for source in inputs:
            if _same(out, source):
                raise InputError(MSG("is_input", input=source), file=str(out), hint=MSG("is_input_hint"))
        for other in outputs[:i]:
            if _same(out, other):
                raise InputError(MSG("same_output"), file=str(out), hint=MSG("same_output_hint"))


# --------------------------------------------------------------------------------------------- lock

def _pid_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    if pid == os.getpid():
        return True
    if os.name == "nt":  # os.kill(pid, 0) would end the process on Windows
        import ctypes

        kernel = ctypes.windll.kernel32
        handle = kernel.OpenProcess(0x1000, False, pid)  # PROCESS_QUERY_LIMITED_INFORMATION
        if not handle:
            return False
        code = ctypes.c_ulong()
        kernel.GetExitCodeProcess(handle, ctypes.byref(code))
        kernel.CloseHandle(handle)
        return code.value == 259  # STILL_ACTIVE
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class Lock:
    """``with Lock(target):`` the lock file ``.NAME.brecha-lock`` beside ``target`` (see the module's rule 4)."""

    def __init__(self, target, wait: float | None = None):
        self.target = Path(target)
        self.path = beside(Path(os.path.abspath(target)), "brecha-lock")
        self.wait = LOCK_WAIT_SECONDS if wait is None else wait
        self.text = ""

    def __enter__(self) -> "Lock":
        deadline = time.monotonic() + self.wait
        self.text = json.dumps({"pid": os.getpid(), "host": socket.gethostname(),
                                "since": _dt.datetime.now().isoformat(timespec="seconds")})
        while True:
            try:
                try:
                    with interrupts_held():  # never a lock file left empty by a Ctrl-C between create and write
                        fd = os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
                        with os.fdopen(fd, "w", encoding="utf-8") as handle:
                            handle.write(self.text)
                except KeyboardInterrupt:  # delivered once the lock was written: the caller never gets it
                    self._remove_if(self.text)
                    raise
                return self
            except FileExistsError:
                holder = self._holder()
                if holder is None:
                    continue  # removed meanwhile, or stale and just removed
                if time.monotonic() >= deadline:
                    raise InputError(MSG("busy", pid=holder.get("pid", "?"), since=holder.get("since", "?")),
                                     file=str(self.target), hint=MSG("busy_hint", lock=self.path)) from None
                time.sleep(0.05)
                continue
            except OSError as exc:
                raise os_error(exc, self.target) from None

    def _holder(self) -> dict | None:
        """Who holds the lock; None (after removing it) when that process is gone."""
        try:
            text = self.path.read_text(encoding="utf-8")
            age = time.time() - self.path.stat().st_mtime
        except FileNotFoundError:
            return None
        except OSError:
            return {}
        try:
            holder = json.loads(text)
            if not isinstance(holder, dict):
                raise ValueError(text)
        except ValueError:  # being written, or left empty by a writer that died at that moment
            return None if age > STALE_EMPTY_LOCK_SECONDS and self._remove_if(text) else {}
        try:
            pid = int(holder.get("pid", -1))
        except (TypeError, ValueError):
            pid = -1
        stale = holder.get("host") == socket.gethostname() and not _pid_alive(pid)
        return None if stale and self._remove_if(text) else holder

    def _remove_if(self, text: str) -> bool:
        """Remove the lock file if it still holds ``text`` (a new holder's lock is left alone)."""
        try:
            if self.path.read_text(encoding="utf-8") == text:
                self.path.unlink()
            return True
        except FileNotFoundError:
            return True
        except OSError:
            return False

    def __exit__(self, *exc) -> None:
        with interrupts_held():
            self._remove_if(self.text)


# ------------------------------------------------------------------------------------- file groups

def fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDWR | getattr(os, "O_BINARY", 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def fsync_folder(folder: Path) -> None:
    """Make a rename durable (POSIX); Windows cannot open a folder this way and needs nothing."""
    if os.name == "nt":
        return
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def make_folder(folder: Path, target: Path) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise InputError(MSG("not_folder", folder=_first_file_ancestor(folder) or str(folder)), file=str(target),
                         hint=MSG("not_folder_hint")) from None
    except OSError as exc:
        if _errno(exc) in (errno.ENOSPC, errno.ENAMETOOLONG, errno.EROFS, errno.EACCES, errno.EPERM,
                           errno.ENOTDIR):
            raise os_error(exc, target) from None
        raise InputError(MSG("no_folder", folder=folder, error=exc.strerror or exc), file=str(target),
                         hint=MSG("cannot_write_hint")) from None


class _Group:
    """Files staged beside their targets, renamed into place together by :meth:`commit`."""

    def __init__(self):
        self.staged: dict[str, tuple[Path, Path]] = {}  # absolute target -> (target as given, temp)
        self.temps: list[Path] = []

    def reserve(self, path: Path) -> Path:
        """Create the (empty) temporary file for ``path`` and return it."""
        check_name(path)
        if path.is_dir():
            raise InputError(MSG("is_folder"), file=str(path),
                             hint=MSG("is_folder_hint", example=_example_file(path)))
        make_folder(Path(os.path.abspath(path)).parent, path)
        temp = temp_beside(path)
        try:
            # 0o666 and the umask: the file gets the permissions a plain open() would give it
            os.close(os.open(temp, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666))
        except OSError as exc:
            raise os_error(exc, path) from None
        self.temps.append(temp)
        return temp

    def finish(self, path: Path, temp: Path) -> None:
        try:
            fsync(temp)
        except OSError as exc:
            raise os_error(exc, path) from None
        key = os.path.abspath(path)
        earlier = self.staged.pop(key, None)
        if earlier:
            earlier[1].unlink(missing_ok=True)
        self.staged[key] = (path, temp)

    def commit(self) -> None:
        if not self.staged:
            return
        stop_if_interrupted()  # a Ctrl-C Python dropped: nothing is committed
        with contextlib.ExitStack() as locks:
            for key in sorted(self.staged):  # one order for everyone: no two runs wait on each other
                locks.enter_context(Lock(key))
            with interrupts_held():
                for key, (path, temp) in self.staged.items():
                    if os.path.exists(key):
                        with contextlib.suppress(OSError):
                            shutil.copymode(key, temp)  # the user's permissions on the file stay
                    try:
                        os.replace(temp, key)
                    except OSError as exc:
                        raise os_error(exc, path) from None
                    _completed.append(str(path))
                for folder in {os.path.dirname(k) for k in self.staged}:
                    fsync_folder(Path(folder))

    def discard(self) -> None:
        with interrupts_held():
            for temp in self.temps:
                with contextlib.suppress(OSError):
                    temp.unlink(missing_ok=True)


@contextlib.contextmanager
def together():
    """Every :func:`write_file` inside the block is committed at its end, together, or not at all.

    Nested blocks join the outermost one."""
    outer = getattr(_local, "group", None)
    if outer is not None:
        yield outer
        return
    group = _Group()
    _local.group = group
    try:
        yield group
        group.commit()
    finally:
        _local.group = None
        group.discard()


def write_file(path, write) -> Path:
    """Write ``path`` atomically: ``write(temp_path)`` fills a temporary file beside it, which then replaces
    ``path`` (inside :func:`together`: at the end of the block). Returns ``path``."""
    path = Path(path)
    with together() as group:
        temp = group.reserve(path)
        try:
            write(temp)
        except OSError as exc:
            raise os_error(exc, path) from None
        group.finish(path, temp)
    return path


@contextlib.contextmanager
def open_atomic(path, mode: str = "w", **kwargs):
    """``with open_atomic(path, "wb") as handle:`` like :func:`open`, the file replaced only when the block
    ends without an error (for writers that stream, e.g. the synthetic DEIS files)."""
    path = Path(path)
    with together() as group:
        temp = group.reserve(path)
        try:
            with open(temp, mode, **kwargs) as handle:
                yield handle
        except OSError as exc:
            raise os_error(exc, path) from None
        group.finish(path, temp)
