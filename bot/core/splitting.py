"""Cutting long replies into pieces a platform accepts, at natural boundaries."""

from __future__ import annotations


def split_text(text: str, limit: int = 3000) -> list[str]:
    """Pieces of at most `limit` characters, cut at a paragraph, line, sentence or space.

    Escaped text holds no `<…>` links, and entities (`&amp;`) are never cut.
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
