"""Spanish for argparse's own words (usage, options, its error messages), so `--lang es` is Spanish throughout.

argparse takes its texts through ``gettext``; the CLI swaps in this table for Spanish. Texts not listed
stay as argparse writes them.
"""
from __future__ import annotations

import argparse

SPANISH = {
    "usage: ": "uso: ",
    "options": "opciones",
    "optional arguments": "opciones",
    "positional arguments": "argumentos posicionales",
    "show this help message and exit": "muestra esta ayuda y termina",
    "show program's version number and exit": "muestra la versión y termina",
    "%(prog)s: error: %(message)s\n": "%(prog)s: error: %(message)s\n",
    "the following arguments are required: %s": "faltan los argumentos obligatorios: %s",
    "unrecognized arguments: %s": "argumentos no reconocidos: %s",
    "expected one argument": "se espera un valor",
    "expected at least one argument": "se espera al menos un valor",
    "invalid choice: %(value)r (choose from %(choices)s)": "opción no válida: %(value)r (elija entre %(choices)s)",
    "argument %(argument_name)s: %(message)s": "argumento %(argument_name)s: %(message)s",
    "invalid %(type)s value: %(value)r": "valor %(type)s no válido: %(value)r",
    "ambiguous option: %(option)s could match %(matches)s": "opción ambigua: %(option)s puede ser %(matches)s",
    "not allowed with argument %s": "no se permite junto con %s",
}


def _spanish(text: str) -> str:
    return SPANISH.get(text, text)


def _spanish_n(singular: str, plural: str, n: int) -> str:
    return _spanish(singular if n == 1 else plural)


def use_spanish(on: bool) -> None:
    """Make argparse speak Spanish (on) or English (off)."""
    import gettext

    argparse._ = _spanish if on else gettext.gettext
    argparse.ngettext = _spanish_n if on else gettext.ngettext
