"""What a citation's source view shows: the document as published now, its cited passage
marked, its title in the reader's script; or why the link does not open.

Consecutive chunks of a document share a few sentences (chunking overlaps them so
an answer cut at a boundary is still found); the view shows that text once. The
cited chunk is shown whole, so the passage the answer quoted is marked as it was
quoted: the overlap is then taken off the chunk before it instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from bot.core.source_links import LANGUAGES, SourceLinks
from storage.db import Database
from storage.repositories.source_texts import Passage, source_text
from textkit.scripts import to_script

Outcome = Literal["ok", "expired", "invalid", "gone"]
MAX_OVERLAP = 1000  # characters compared at a boundary: chunks overlap by far less


@dataclass(frozen=True)
class Segment:
    """A run of the document's text; `cited`: the passage the link points at."""

    text: str
    page: int | None
    cited: bool = False
    joined: bool = False  # continues the segment before it (the same block of text)


@dataclass(frozen=True)
class SourceView:
    """The page's content: the title in the reader's script, the text, the document's link."""

    title: str
    language: str
    segments: list[Segment]
    url: str | None
    # True: the passage is marked; False: it is no longer in the document; None: the
    # link names no passage (an answer remembered from before citations named theirs)
    cited: bool | None


def _overlap(before: str, after: str) -> int:
    """How many leading characters of `after` end `before` (the chunks' shared sentences)."""
    for size in range(min(len(before), len(after), MAX_OVERLAP), 0, -1):
        if before.endswith(after[:size]):
            return size
    return 0


def segments(passages: list[Passage], cited: int | None) -> list[Segment]:
    """The document's text once, in order, with the chunk `cited` whole and marked."""
    out: list[Segment] = []
    previous: Passage | None = None
    shown_previous = False  # out[-1] is the previous chunk's text
    for passage in passages:
        text = passage.text
        shared = 0
        if previous is not None and (previous.page, previous.heading) == (
            passage.page,
            passage.heading,
        ):
            shared = _overlap(previous.text, text)
        is_cited = passage.id == cited
        if shared and is_cited and shown_previous and len(out[-1].text) >= shared:
            # the marked chunk keeps its start: the one before gives the shared text up
            last = out[-1]
            out[-1] = Segment(last.text[:-shared], last.page, last.cited, last.joined)
        elif shared:
            text = text[shared:]
        shown_previous = bool(text.strip())
        if shown_previous:
            out.append(Segment(text, passage.page, is_cited, joined=bool(shared)))
        previous = passage
    return out


class SourceViews:
    """Opens a signed link: the view it shows, or why it shows none."""

    def __init__(self, db: Database, links: SourceLinks) -> None:
        self._db = db
        self._links = links

    async def open(
        self,
        document: str,
        collection: str,
        chunk: int | None,
        language: str,
        expires: int,
        sig: str,
    ) -> tuple[Outcome, SourceView | None]:
        """The view of a link, once its signature and expiry are checked; `gone` when the
        document is no longer published in the collection the link was signed for."""
        checked = await self._links.check(document, collection, chunk, language, expires, sig)
        if checked != "ok":
            return checked, None
        async with self._db.sessions() as session:
            found = await source_text(session, document, collection)
        if found is None:
            return "gone", None
        shown = language if language in LANGUAGES else "en"
        parts = segments(found.passages, chunk)
        return "ok", SourceView(
            title=to_script(found.title, shown),
            language=shown,
            segments=parts,
            url=found.url,
            cited=None if chunk is None else any(s.cited for s in parts),
        )
