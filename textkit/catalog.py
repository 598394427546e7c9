"""The catalog of user-facing words: catalog.toml, read once, asked by key and language.

Graph, core and adapters all say their fixed texts through `say`, so a
translator reviews one file (catalog.toml) and no words live in the code.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from functools import cache
from pathlib import Path

from textkit.scripts import EN, LANGUAGES

__all__ = ["LANGUAGES", "entries", "known", "say"]

FALLBACK = EN  # said when the language is unknown
_FILE = Path(__file__).with_name("catalog.toml")


@cache
def entries() -> Mapping[str, Mapping[str, str]]:
    """Every message: key → language → text (read on first use, then kept; do not mutate)."""
    with _FILE.open("rb") as file:
        return tomllib.load(file)


def known(key: str) -> bool:
    """Whether the catalog has the message `key`."""
    return key in entries()


def say(key: str, language: str, **fields: object) -> str:
    """The message `key` in `language` (English when the language is unknown), filled in.

    A missing key is a bug in the code and raises KeyError.
    """
    texts = entries()[key]
    return texts.get(language, texts[FALLBACK]).format(**fields)
