"""Entry point of the ``brecha`` command: global options and the list of commands."""
from __future__ import annotations

import argparse
import importlib
import os
import sys
import warnings

from .. import cores  # noqa: F401 - first: its clock of idle cores starts with the command (brecha/cores.py)
from .. import __version__, progress
from ..errors import BrechaError, BrechaWarning
from ..i18n import Catalog, get_language, set_language
from .argparse_es import use_spanish

# One module per command in this package; each has add_parser(subparsers).
COMMANDS = ("panel", "ingest", "rates", "disparity", "smooth", "funnel", "inequality", "trends",
            "models", "report", "run", "spatial", "dashboard", "decompose")

MSG = Catalog({
    "description": ("brecha: desigualdad de la mortalidad infantil entre territorios (comunas, municipios, "
                    "provincias)",
                    "brecha: inequality in infant mortality between districts"),
    "lang_help": ("idioma de mensajes e informes (es|en)", "language of messages and reports (es|en)"),
    "version_help": ("muestra la versión y termina", "show the version and exit"),
    "quiet_help": ("sin barras de progreso (se muestran solo si stderr es una terminal)",
                   "no progress bars (shown only when stderr is a terminal)"),
    "error": ("Error", "Error"),
    "warning": ("Aviso", "Warning"),
    "debug_help": ("ante un error, mostrar el detalle completo (traceback) para informar un fallo; también con "
                   "la variable de entorno BRECHA_DEBUG=1",
                   "on an error, show the full detail (traceback) to report a bug; also with the environment "
                   "variable BRECHA_DEBUG=1"),
    "internal": ("error interno inesperado en 'brecha {command}' (un fallo de brecha, no de sus datos): {error}",
                 "unexpected internal error in 'brecha {command}' (a bug in brecha, not in your data): {error}"),
    "internal_hint": ("para ver el detalle completo repita la orden con --debug (brecha --debug {command} ...) o "
                      "con BRECHA_DEBUG=1, y envíelo a quien mantiene brecha",
                      "to see the full detail run the command again with --debug (brecha --debug {command} ...) "
                      "or with BRECHA_DEBUG=1, and send it to brecha's maintainers"),
})

# Exit codes (docs/ARCHITECTURE.md, CLI): 0 done; 1 unexpected internal error (a bug: a short message, the
# traceback only with --debug or BRECHA_DEBUG=1); 2 a problem with the input or the options (BrechaError,
# and argparse's own usage errors).
EXIT_INTERNAL = 1
EXIT_INPUT = 2


def _language_from_argv(argv: list[str]) -> str:
    for i, a in enumerate(argv):
        if a == "--lang" and i + 1 < len(argv):
            return argv[i + 1]
        if a.startswith("--lang="):
            return a.split("=", 1)[1]
    return ""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="brecha", description=MSG("description"))
    parser.add_argument("--lang", choices=["es", "en"], help=MSG("lang_help"))
    parser.add_argument("--version", action="version", version=f"brecha {__version__}", help=MSG("version_help"))
    parser.add_argument("-q", "--quiet", action="store_true", help=MSG("quiet_help"))
    parser.add_argument("--debug", action="store_true", help=MSG("debug_help"))
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"{__package__}.{name}").add_parser(sub)
    _global_options_after_the_command(parser)
    return parser


def _global_options_after_the_command(parser: argparse.ArgumentParser) -> None:
    """`brecha report --quiet` and `brecha rates --lang en ...` mean what `brecha --quiet report` means: each
    command (and sub-command) accepts the global options too. Their default is SUPPRESS, so a command line
    that gives them before the command keeps that value; a command that has its own option of that name
    (``ingest table --quiet``) keeps its own."""
    for action in parser._actions:
        if not isinstance(action, argparse._SubParsersAction):
            continue
        for command in dict.fromkeys(action.choices.values()):
            for flags, options in ((("--lang",), dict(choices=["es", "en"], help=MSG("lang_help"))),
                                   (("-q", "--quiet"), dict(action="store_true", help=MSG("quiet_help"))),
                                   (("--debug",), dict(action="store_true", help=MSG("debug_help")))):
                taken = [f for f in flags if f in command._option_string_actions]
                if not taken:
                    command.add_argument(*flags, default=argparse.SUPPRESS, **options)
            _global_options_after_the_command(command)


def main(argv: list[str] | None = None) -> int:
    from ..threads import one_blas_thread

    one_blas_thread()  # before numpy loads OpenBLAS: the cores are used by brecha's own threads (brecha.threads)
    # the command draws figures to files only: matplotlib need not look for a screen backend (it imports
    # pyplot to do so, 0.1 s of the report's CPU; issue 19). A backend the user set is kept.
    os.environ.setdefault("MPLBACKEND", "agg")
    argv_given = argv  # None: this is the `brecha` program (its process ends with this call)
    argv = list(sys.argv[1:] if argv is None else argv)
    lang = _language_from_argv(argv)
    if lang in ("es", "en"):
        set_language(lang)
    use_spanish(get_language() == "es")
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0

    def show_warning(message, category, filename, lineno, file=None, line=None):
        # one line, no file path or source line: a library's RuntimeWarning or ConvergenceWarning is named
        # by its class, after the word "Warning" in the session's language
        label = MSG("warning") if issubclass(category, BrechaWarning) else f"{MSG('warning')} ({category.__name__})"
        progress.write(f"{label}: {message}", file=sys.stderr)  # above any progress bar, not through it

    # progress bars on stderr only when it is a terminal and --quiet is not given (brecha.progress)
    with warnings.catch_warnings(), progress.for_terminal(sys.stderr, quiet=args.quiet):
        # (catch_warnings restores the process's warning display when the command ends)
        warnings.showwarning = show_warning
        code = _run(args, _option_names(parser, args), for_the_process=argv_given is None)
    if argv_given is None:
        end_program(code)
    return code


def end_program(code: int) -> None:
    """End the ``brecha`` program now, with ``code``, without the interpreter's teardown: after a command
    every file it wrote is closed and in place, and what is left to Python's exit is freeing the objects of
    every module one by one (pandas, numpy, scipy, the command's tables): 0.06 s after ``import pandas``
    alone, 0.13-0.16 s after ``brecha rates`` or ``brecha report`` (a fifth of a small command; issue 19).
    The exit functions registered with :mod:`atexit` run first, as at a normal exit, then stdout and stderr
    are flushed; when a thread other than the main one is still running, the normal exit is kept (it waits
    for that thread). Only for the program itself: ``main(argv)`` called from Python returns."""
    import atexit
    import threading

    if threading.active_count() > 1:
        return
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a reader that left (`brecha ... | head`), a closed stream
            pass
    os._exit(code)


def _debugging(args) -> bool:
    """--debug, or BRECHA_DEBUG set to anything but '', '0', 'no', 'false'."""
    import os

    env = os.environ.get("BRECHA_DEBUG", "").strip().lower()
    return bool(getattr(args, "debug", False)) or env not in ("", "0", "no", "false")


def _option_names(parser: argparse.ArgumentParser, args) -> dict[str, str]:
    """Each argument name of the command run (``conf_level``) -> the option the user types (``--conf-level``),
    so an error about a function's argument names the option (:meth:`brecha.errors.InputError.as_option`)."""
    names: dict[str, str] = {}
    while parser is not None:
        chosen = None
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                chosen = action.choices.get(getattr(args, action.dest, None) or "")
            elif action.option_strings:
                names[action.dest] = max(action.option_strings, key=len)  # the sub-command's own wins
        parser = chosen
    return names


def _run(args, options: dict[str, str] | None = None, for_the_process: bool = False) -> int:
    from .. import outputs

    outputs.forget_completed()
    with outputs.ctrl_c_watched(for_the_process):  # a Ctrl-C is never lost, nor raised again while stopping
        return _command(args, options)


def _command(args, options: dict[str, str] | None) -> int:
    from .. import outputs
    from ..errors import InputError
    from .common import check_output_paths

    try:
        check_output_paths(args)  # before any work: -o is writable, of a known type, and none of the inputs
        code = int(args.func(args) or 0)
        outputs.stop_if_interrupted()  # a Ctrl-C whose KeyboardInterrupt Python dropped on the way
        return code
    except BrechaError as exc:
        if isinstance(exc, InputError) and exc.argument and exc.argument in (options or {}):
            exc.as_option(options[exc.argument])
        if _debugging(args):
            import traceback

            traceback.print_exc(file=sys.stderr)
        print(f"{MSG('error')}: {exc}", file=sys.stderr)
        return EXIT_INPUT
    except BrokenPipeError:  # `brecha ... | head`: the reader left; not an error of ours
        import os

        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:  # Ctrl-C: one line saying what was kept (outputs are whole or absent), no traceback
        outputs.settle()  # another Ctrl-C now does not cut this short
        # CPython (3.11-3.13): a Ctrl-C landing inside an eval of text (scipy's import of numpy.f2py runs
        # hundreds) marks the process to kill itself by SIGINT at exit even though it was caught here: run as
        # `python -m brecha.cli.main`, exit -2, not 130 (seen in CI). Any eval that completes clears the mark
        # (tests/cli/test_ctrl_c_never_lost.py)
        eval("0")  # noqa: S307 - a constant, for the reason above
        print(outputs.interrupted_line(), file=sys.stderr)
        return 130
    except Exception as exc:  # a bug of ours: one short message, the traceback only when asked for
        return _internal_error(args, exc)


def _internal_error(args, exc: Exception) -> int:
    """Print 'Error: unexpected internal error in brecha COMMAND: TypeError: ...' and how to see the
    traceback (a user gets a sentence, not 40 lines of Python); with --debug, the traceback too."""
    import traceback

    if _debugging(args):
        traceback.print_exc(file=sys.stderr)
    command = " ".join(str(getattr(args, key)) for key in ("command", "source") if getattr(args, key, None))
    text = " ".join(str(exc).split())  # one line
    if len(text) > 300:
        text = text[:297] + "..."
    error = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    print(f"{MSG('error')}: {MSG('internal', command=command, error=error)}", file=sys.stderr)
    if not _debugging(args):
        print(f"  {MSG('internal_hint', command=command)}", file=sys.stderr)
    return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
