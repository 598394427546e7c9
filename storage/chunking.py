"""Sentence-aware chunking for Chinese and English text, with overlap, and FAQ entry splitting."""

from __future__ import annotations

import re
from dataclasses import dataclass

from textkit.sentences import ends_sentence, split_sentences


@dataclass(frozen=True)
class Block:
    """A run of text from one page or section of a source document."""

    text: str
    page: int | None = None
    heading: str | None = None
    question: str | None = None  # an FAQ entry's own question (also its heading)


@dataclass(frozen=True)
class TextChunk:
    """A chunk ready to embed: its text and where it came from."""

    text: str
    position: int
    page: int | None
    heading: str | None
    question: str | None = None  # the FAQ entry this chunk belongs to, if any


# An FAQ entry starts at "Q:", "Question:", "問：" (marked), or at a numbered
# question or a short line ending in a question mark; its answer runs to the next one.
_FAQ_QUESTION = re.compile(
    r"^\s*(?:(?:q|question|問|问|問題|问题)\s*\d*\s*[:：.．]\s*(?P<q>.+)"
    r"|(?:\d{1,3}\s*[.)、．]\s*)?(?P<line>.{2,200}[?？]))\s*$",
    re.IGNORECASE,
)
# a list item's line ("- ", "* ", "• ", "1. ", "(a) ")
_LIST_ITEM = re.compile(r"[ \t]*(?:[-*•‧·]|\d{1,3}[.)、]|\([a-z0-9]\))[ \t]")
MIN_FAQ_ENTRIES = 2  # one unmarked question line in prose is rhetoric, not an FAQ
# a lone entry is recognised by the pair "Q: …" / "A: …" ("Q3: revenue grew" is not one)
_LONE_QUESTION = re.compile(r"^\s*(?:q|question|問|问|問題|问题)\s*[:：]", re.IGNORECASE)
_ANSWER_LINE = re.compile(r"^\s*(?:a|answer|答|回答)\s*[:：]", re.IGNORECASE)


def faq_blocks(blocks: list[Block]) -> list[Block]:
    """FAQ-shaped blocks split into one block per entry, its question as heading and `question`.

    A block is FAQ-shaped when it holds two or more question lines, or opens
    with a "Q: …" line followed by an "A: …" line (a file holding a single
    entry), or opens with the question its heading asks (an entry split out
    before, rebuilt by `ragbot reindex --rechunk`); a block whose heading is a
    question is one entry too. The heading goes into
    every chunk's indexed text (`index_text`) and the question gets its own
    vector, so a long answer's later chunks still belong to the question they answer.
    """
    out: list[Block] = []
    for block in blocks:
        lines = block.text.splitlines()
        entries = [(i, q) for i, line in enumerate(lines) for q in [_faq_question(line)] if q]
        if not _is_faq(lines, entries, block.heading):
            # a section headed by a question ("## How do I renew?") is an entry too
            asked = _faq_question(block.heading) if block.heading and not entries else None
            out.append(Block(block.text, block.page, block.heading, asked))
            continue
        if entries[0][0] > 0 and "\n".join(lines[: entries[0][0]]).strip():
            out.append(Block("\n".join(lines[: entries[0][0]]), block.page, block.heading))
        bounds = [i for i, _ in entries] + [len(lines)]
        for (start, question), end in zip(entries, bounds[1:], strict=True):
            body = "\n".join(lines[start:end]).strip()
            out.append(Block(body, block.page, question, question))
    return out


def _is_faq(lines: list[str], entries: list[tuple[int, str]], heading: str | None) -> bool:
    if len(entries) >= MIN_FAQ_ENTRIES:
        return True
    if len(entries) != 1 or "\n".join(lines[: entries[0][0]]).strip():
        return False
    start, question = entries[0]
    rest = [line for line in lines[start + 1 :] if line.strip()]
    if not rest:
        return False
    marked = bool(_LONE_QUESTION.match(lines[start]) and _ANSWER_LINE.match(rest[0]))
    return marked or (heading is not None and _faq_question(heading) == question)


def _faq_question(line: str) -> str | None:
    match = _FAQ_QUESTION.match(line)
    if match is None:
        return None
    return (match.group("q") or match.group("line") or "").strip() or None


def _hard_split(sentence: str, size: int) -> list[str]:
    """A sentence longer than a chunk is cut at `size` characters (rare: tables, lists)."""
    return [sentence[i : i + size] for i in range(0, len(sentence), size)]


def chunk_blocks(blocks: list[Block], size: int = 500, overlap: int = 80) -> list[TextChunk]:
    """Pack sentences into chunks of about `size` characters.

    A chunk never spans two blocks, so its page and heading stay exact for
    citations. Consecutive chunks of a block share up to `overlap` characters
    of whole sentences, so an answer cut at a boundary is still found.
    """
    chunks: list[TextChunk] = []
    for block in blocks:
        sentences: list[str] = []
        for sentence in split_sentences(block.text):
            sentences.extend(_hard_split(sentence, size) if len(sentence) > size else [sentence])
        current: list[str] = []
        length = 0
        for sentence in sentences:
            if current and length + len(sentence) > size:
                chunks.append(_make(current, len(chunks), block))
                carried: list[str] = []
                carried_len = 0
                for prev in reversed(current):
                    if carried_len + len(prev) > overlap:
                        break
                    carried.insert(0, prev)
                    carried_len += len(prev)
                current, length = carried, carried_len
            current.append(sentence)
            length += len(sentence)
        if current:
            chunks.append(_make(current, len(chunks), block))
    return chunks


def _make(sentences: list[str], position: int, block: Block) -> TextChunk:
    """The chunk's text: its sentences joined as they were written.

    A line that ends without a sentence's punctuation (a heading, a list item)
    keeps its line break, so an answer quoting the chunk sees it as a sentence of
    its own ("Opening hours" is not run into "The centre is open…"); a list item
    stays on its own line. (A piece of a sentence cut at the chunk's size fills
    its chunk: it is never joined to another.)
    """
    joined = ""
    previous = ""
    for s in sentences:
        if joined:
            joined += _joint(previous, s)
        joined += s
        previous = s
    return TextChunk(joined, position, block.page, block.heading, block.question)


def _joint(previous: str, sentence: str) -> str:
    """What goes between two sentences of a chunk."""
    if _LIST_ITEM.match(sentence):
        return "\n"
    if not ends_sentence(previous):
        return "\n\n"
    # CJK sentences join without a space; English ones need one.
    return "" if _is_cjk(previous[-1]) or _is_cjk(sentence[0]) else " "


def _is_cjk(ch: str) -> bool:
    return "\u3000" <= ch <= "\u9fff" or "\uff00" <= ch <= "\uffef"
