"""A Chinese question searched in the other Chinese script too, for the documents written in it.

The keyword side of the search folds both scripts into one (textkit.scripts); the
embedder does not: "停车证多少钱？" is further from the Traditional "停車許可證" page than
"停車證多少錢？" is, and its passages fell under the loosest threshold, so the
Simplified question was refused where the Traditional one was answered. So a question
in one Chinese script is searched a second time written in the other, and the
passages of documents in that other script are taken from that search (their reader
would have asked it so); every other document's passages come from the question as
written. The second search runs only when the first found no passage in the question's
own language family, or only passages of documents in the other script: a passage
written as asked was found, and the embedder read it as the asker wrote. A question
whose characters read the same in both scripts is searched once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from textkit.scripts import ZH_HANS, ZH_HANT, detect_language, to_script


def other_script(question: str) -> str | None:
    """The other Chinese script than `question`'s (zh-hant or zh-hans), when writing it
    there changes it; None for an English question or one reading alike in both."""
    asked = detect_language(question)
    if asked not in (ZH_HANT, ZH_HANS):
        return None
    other = ZH_HANS if asked == ZH_HANT else ZH_HANT
    return other if to_script(question, other) != question else None


def unread_script(hits: Sequence[Any], script: str) -> bool:
    """True when the question's search (`hits`) found no passage in its own language
    family, or only passages of documents in `script` (the other Chinese script): those
    are read better by the question written in it."""
    native = [h for h in hits if not getattr(h, "cross_language", False)]
    return all(getattr(h, "language", None) == script for h in native)


def in_script(text: str, script: str) -> str:
    """`text` written in `script` (its Chinese characters converted; the rest as is)."""
    return to_script(text, script)


def fold_scripts(written: Sequence[Any], converted: Sequence[Any], script: str) -> list[Any]:
    """The hits of the question as `written` for the documents not in `script`, then those
    of the question `converted` to `script` for the documents in it."""
    return [
        *(h for h in written if getattr(h, "language", None) != script),
        *(h for h in converted if getattr(h, "language", None) == script),
    ]
