"""The source view's text: a document's overlapping chunks shown once, the cited one whole;
PUBLIC_BASE_URL refused at start when it is no http(s) address."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from bot.core.source_view import segments
from storage.chunking import Block, chunk_blocks
from storage.repositories.source_texts import Passage
from tests.support.core_fixtures import settings_for_tests

SENTENCES = [f"Sentence number {i} of the rules says what rule {i} is." for i in range(1, 13)]


def _passages() -> list[Passage]:
    """The chunks ingestion makes of one block of twelve sentences (they overlap)."""
    block = Block(" ".join(SENTENCES), page=1, heading="Rules")
    chunks = chunk_blocks([block], size=200, overlap=80)
    assert len(chunks) > 2 and SENTENCES[2] in chunks[0].text and SENTENCES[2] in chunks[1].text
    return [Passage(10 + c.position, c.page, c.heading, c.text) for c in chunks]


@pytest.mark.parametrize("cited", [None, 10, 11, 12])
def test_the_text_is_shown_once_and_the_cited_chunk_whole(cited: int | None) -> None:
    passages = _passages()
    shown = segments(passages, cited)
    text = " ".join(s.text.strip() for s in shown)
    assert all(text.count(sentence) == 1 for sentence in SENTENCES), text
    marked = [s.text for s in shown if s.cited]
    if cited is None:
        assert marked == []
    else:
        assert marked == [next(p.text for p in passages if p.id == cited)]


def test_public_base_url_is_an_http_address_without_its_trailing_slash() -> None:
    made = settings_for_tests(PUBLIC_BASE_URL="https://ragbot.example.org/")
    assert made.public_base_url == "https://ragbot.example.org"
    assert settings_for_tests(PUBLIC_BASE_URL="").public_base_url is None
    with pytest.raises(ValidationError, match="PUBLIC_BASE_URL"):
        settings_for_tests(PUBLIC_BASE_URL="ragbot.example.org")
