"""Spanish and English messages and labels.

Each module keeps its own catalogue next to its code::

    MSG = Catalog({"saved": ("Guardado en {path}", "Saved to {path}")})
    print(MSG("saved", path=p))            # in the current language
    MSG("saved", lang="en", path=p)

A word that must agree with a count is written in the template as ``{field:singular|plural}``: the
singular when the field is 1, the plural otherwise (:func:`plural`), so that "1 unidad" and "3 unidades"
come from one message and each language keeps its own agreement (Spanish adjectives and verbs agree too)::

    MSG = Catalog({"rows": ("{n} {n:fila leída|filas leídas}", "{n} {n:row|rows} read")})
    MSG("rows", n=1)                       # '1 fila leída'; n=2: '2 filas leídas'

The language is chosen once per process (the CLI's ``--lang``; the ``BRECHA_LANG`` environment
variable; default Spanish, the language of most of our users).
"""
from __future__ import annotations

import os
import string

LANGUAGES = ("es", "en")
_current = {"lang": os.environ.get("BRECHA_LANG", "es") if os.environ.get("BRECHA_LANG") in LANGUAGES else "es"}


def set_language(lang: str) -> None:
    if lang not in LANGUAGES:
        raise ValueError(f"language must be one of {LANGUAGES}, not {lang!r}")
    _current["lang"] = lang


def get_language() -> str:
    return _current["lang"]


class Catalog:
    """A dictionary of messages, each a pair (Spanish, English) with ``str.format`` fields."""

    def __init__(self, messages: dict[str, tuple[str, str]]):
        for key, pair in messages.items():
            if len(pair) != 2:
                raise ValueError(f"message {key!r} needs a Spanish and an English text")
        self.messages = messages

    def __call__(self, key: str, lang: str | None = None, **fields) -> str:
        es, en = self.messages[key]
        text = en if (lang or get_language()) == "en" else es
        if not fields:
            return text
        # only a template that may hold a {field:singular|plural} choice goes through the slower Formatter
        return _AGREEING.vformat(text, (), fields) if "|" in text else text.format(**fields)

    def __contains__(self, key: str) -> bool:
        return key in self.messages


def plural(count, one: str, other: str) -> str:
    """``one`` when ``count`` is 1, ``other`` otherwise: "1 unidad", "0 unidades", "2 unidades"; "1 unit",
    "0 units". Both languages use the singular for exactly one only (0 takes the plural in Spanish as in
    English). A count already written as text is 1 only when it reads "1" ("1.000" is a thousand in Spanish).

    >>> plural(1, "unidad", "unidades"), plural(0, "unidad", "unidades"), plural("2", "unit", "units")
    ('unidad', 'unidades', 'units')
    """
    if isinstance(count, str):
        return one if count.strip() == "1" else other
    try:
        return one if count == 1 else other
    except (TypeError, ValueError):   # pd.NA and the like: no count, the plural
        return other


class _AgreeingFormatter(string.Formatter):
    """``str.format`` plus ``{field:singular|plural}``: the word that agrees with the field's count."""

    def format_field(self, value, format_spec: str) -> str:
        if "|" in format_spec:
            one, other = format_spec.split("|", 1)
            return plural(value, one, other)
        return super().format_field(value, format_spec)


_AGREEING = _AgreeingFormatter()


def format_count(value, lang: str | None = None) -> str:
    """A count with thousands separators in the language's way: 8.619 in Spanish, 8,619 in English."""
    text = f"{int(value):,}"
    return text.replace(",", ".") if (lang or get_language()) == "es" else text
