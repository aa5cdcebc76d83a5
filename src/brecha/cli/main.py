"""Entry point of the ``brecha`` command: global options and the list of commands."""
from __future__ import annotations

import argparse
import importlib
import sys
import warnings

from .. import __version__
from ..errors import BrechaError, BrechaWarning
from ..i18n import Catalog, get_language, set_language
from .argparse_es import use_spanish

# One module per command in this package; each has add_parser(subparsers).
COMMANDS = ("panel", "ingest", "rates", "disparity", "smooth", "funnel", "inequality", "trends",
            "models", "report", "run")

MSG = Catalog({
    "description": ("brecha: desigualdad de la mortalidad infantil entre comunas",
                    "brecha: inequality in infant mortality between districts"),
    "lang_help": ("idioma de mensajes e informes (es|en)", "language of messages and reports (es|en)"),
    "version_help": ("muestra la versión y termina", "show the version and exit"),
    "error": ("Error", "Error"),
    "warning": ("Aviso", "Warning"),
})


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
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"{__package__}.{name}").add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
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
        label = MSG("warning") if issubclass(category, BrechaWarning) else category.__name__
        print(f"{label}: {message}", file=sys.stderr)

    with warnings.catch_warnings():  # restores the process's warning display when the command ends
        warnings.showwarning = show_warning
        return _run(args)


def _run(args) -> int:
    try:
        return int(args.func(args) or 0)
    except BrechaError as exc:
        print(f"{MSG('error')}: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `brecha ... | head`: the reader left; not an error of ours
        import os

        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
