"""Cutting long replies into pieces a platform accepts, at natural boundaries."""

from __future__ import annotations

import re

# a list item's line, as answers write it (`- `) or as a platform shows it (`• `)
_ITEM = re.compile(r"^[-•][ \t]", re.MULTILINE)


def split_text(text: str, limit: int = 3000) -> list[str]:
    """Pieces of at most `limit` characters, cut at a paragraph, line, sentence or space.

    A list item (a line starting `- ` or `• `) is never cut when it fits a piece
    of its own: the piece ends before it instead. Escaped text holds no `<…>`
    links, and entities (`&amp;`) are never cut.
    """
    pieces: list[str] = []
    rest = text.strip()
    while len(rest) > limit:
        window = rest[:limit]
        cut = -1
        for sep in ("\n\n", "\n", "。", ". ", "！", "？", "! ", "? ", " "):
            at = window.rfind(sep)
            if at > limit // 3:
                cut = at + len(sep)
                break
        cut = _before_item(rest, window, cut, limit)
        if cut <= 0:
            cut = limit
            amp = window.rfind("&", limit - 6)
            if amp != -1 and ";" not in window[amp:]:
                cut = amp  # never split an entity
        pieces.append(rest[:cut].strip())
        rest = rest[cut:].strip()
    if rest:
        pieces.append(rest)
    return pieces


def _before_item(rest: str, window: str, cut: int, limit: int) -> int:
    """`cut`, or the start of the list item it falls inside when that item fits a piece."""
    cut_at = cut if cut > 0 else limit
    start = max((m.start() for m in _ITEM.finditer(window) if 0 < m.start() < cut_at), default=-1)
    if start == -1:
        return cut
    end = rest.find("\n", start)
    end = len(rest) if end == -1 else end
    if end <= cut_at or end - start > limit:  # cut at the item's end or later; or it is too long
        return cut
    return start
