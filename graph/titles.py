"""Document titles as a reader sees them: in the reader's Chinese script.

A title is stored as the document was named (停車許可證); a Simplified reader
sees 停车许可证 in the answer's lead and its sources, whether the answer was just
written or comes from the answer memory. The stored title (`document`) is
unchanged: links, memory and reports key on it.
"""

from __future__ import annotations

from typing import Any

from textkit.scripts import to_script


def display_title(title: str, language: str) -> str:
    """A document's title in the reader's Chinese script (English titles as they are)."""
    return to_script(title, language)


def with_display_titles(citations: list[dict[str, Any]], language: str) -> list[dict[str, Any]]:
    """Each citation with `title`, its document's title in the reader's script."""
    return [{**c, "title": display_title(str(c["document"]), language)} for c in citations]
