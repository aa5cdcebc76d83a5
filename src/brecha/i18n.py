"""Spanish and English messages and labels.

Each module keeps its own catalogue next to its code::

    MSG = Catalog({"saved": ("Guardado en {path}", "Saved to {path}")})
    print(MSG("saved", path=p))            # in the current language
    MSG("saved", lang="en", path=p)

The language is chosen once per process (the CLI's ``--lang``; the ``BRECHA_LANG`` environment
variable; default Spanish, the language of most of our users).
"""
from __future__ import annotations

import os

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
        return text.format(**fields) if fields else text

    def __contains__(self, key: str) -> bool:
        return key in self.messages


def format_count(value, lang: str | None = None) -> str:
    """A count with thousands separators in the language's way: 8.619 in Spanish, 8,619 in English."""
    text = f"{int(value):,}"
    return text.replace(",", ".") if (lang or get_language()) == "es" else text
