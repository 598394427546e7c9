"""File names from outside (chat uploads, folders): checked, then stored only in a clean form."""

from __future__ import annotations

import re
import unicodedata
from pathlib import PurePath

MAX_NAME_CHARS = 200


def display_name(name: str) -> str:
    """A name safe to print in a terminal or chat: control characters shown as escapes."""
    shown = "".join(
        ch if unicodedata.category(ch)[0] != "C" else ch.encode("unicode_escape").decode("ascii")
        for ch in name
    )
    return shown[:MAX_NAME_CHARS]


def name_problem(name: str) -> str | None:
    """Why a file name is refused, or None.

    Control characters (terminal escapes, right-to-left overrides that disguise
    an extension) and folder parts (`../../x.md`) have no place in a document's
    name: such files are refused with the reason rather than silently renamed.
    """
    if any(unicodedata.category(ch) in ("Cc", "Cf") for ch in name):
        return "the file name contains control characters; rename the file and send it again"
    parts = name.replace("\\", "/").split("/")
    if len(parts) > 1 or name in ("..", "."):
        return "the file name contains folder parts (such as ../); send it under a plain name"
    if not name.strip(" ."):
        return "the file has no name"
    return None


def clean_file_name(name: str) -> str:
    """A file name safe to store and show: no folders, control characters or odd spaces."""
    base = PurePath(name.replace("\\", "/")).name
    base = "".join(ch for ch in base if unicodedata.category(ch)[0] != "C")
    base = re.sub(r"\s+", " ", unicodedata.normalize("NFC", base)).strip(" .")
    return base[:MAX_NAME_CHARS] or "upload"


def clean_title(title: str) -> str:
    """A document title safe to store and show: no control characters, single spaces."""
    kept = "".join(ch for ch in title if unicodedata.category(ch)[0] != "C" or ch in "\t\n")
    return re.sub(r"\s+", " ", unicodedata.normalize("NFC", kept)).strip()[:MAX_NAME_CHARS]
