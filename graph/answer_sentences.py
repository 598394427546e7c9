"""What an extractive answer may quote: sentences, never headings.

A passage's text keeps its headings as lines of their own ("City Service
Centre opening hours" above its paragraph, or run straight into it when the
document had no blank line). A heading names a section; it answers nothing, so
it is never a candidate, nor the start of one: it is kept as the section of
the sentences under it, where it counts towards what they are about; so does a
sentence that asks ("How do I renew?" above its answer). A short
line without a full stop that still says something (a negation, an answer of
any kind, "Fee: 80 dollars", an English verb) is a sentence, not a heading. A
clause cut off at a semicolon is quoted with the rest of its sentence; a line
introducing a list ("You need:") is quoted with its items (`list_items`).
The order they are quoted in is graph.answer_order's.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from textkit.answer_type import holds
from textkit.polarity import negated
from textkit.scripts import plain
from textkit.tokens import keyword_tokens, stopwords

# an English word matched as the start of a longer one is at least this long
MIN_STEM = 4
# a heading is a name, not a statement: one short line
MAX_HEADING_CHARS = 80
# ... of a few words: a longer line without a full stop is a statement left unfinished
MAX_HEADING_WORDS = 8
# the kinds of answer a line may hold; one that holds any is a statement, not a name
LINE_KINDS = ("price", "time", "duration", "count", "amount", "date")
# a line that ends a statement or a clause (or continues after a clause mark)
_ENDS = re.compile(r"[.!?。！？:：;；,，、…]$")
_CLAUSE_MARK = re.compile(r"[。！？；;，,、]")
# a list item: a bullet, "1." / "1)" / "(a)", or a Chinese "（一）" / "一、"
_LIST_ITEM = re.compile(
    r"^(?:(?:[-*•‧·]|\d{1,3}[.)、]|\([a-z0-9]\))\s|[（(][一二三四五六七八九十]{1,3}[）)]|"
    r"[一二三四五六七八九十]{1,3}、)"
)
# a Chinese numbered item inside a sentence (its lines were joined): it starts one of its own
_CJK_ITEM_INSIDE = re.compile(r"\s+(?=[（(][一二三四五六七八九十]{1,3}[）)])")
# a line introducing a list: "You need:", "申請人需要："
_INTRO = re.compile(r"[:：]$")
# the items of a list quoted after its intro, beyond the answer's sentence cap
MAX_LIST_ITEMS = 12
_MARKDOWN_HEADING = re.compile(r"^#{1,6}\s+")
# "Fee: 80 dollars", "费用：1300元": a label and its value on one line
_LABEL_VALUE = re.compile(r"[:：]\s*\S")
# a verb that makes an English line a statement ("Parking is allowed", "Permits may ...")
_STATEMENT_VERB = re.compile(
    r"\b(?:is|are|was|were|be|can|cannot|could|may|might|must|will|would|should|shall)\b"
)
# a title may ask ("How to apply", "Who can apply"): its verb does not make it a statement
_ASKS = re.compile(r"^(?:how|what|who|whom|whose|when|where|which|why)\b")
# a line starting a sentence (a capital, a figure, a CJK character, a quote or bracket)
_OPENS = re.compile(r"^[A-Z0-9\u3400-\u9fff\"“(（「]")
_CLAUSE_CUT = re.compile(r"[;；]$")
# a question's end (a closing quote or bracket may follow its mark)
_QUESTION_END = re.compile(r"[?？][\"”’」』)）》〉]*$")
# quotation and title marks, opening and closing
# a question mark inside closing quotes ends a quoted title, not a question of the
# document's own: 'see the leaflet "Why renew early?"'
_QUOTED_QUESTION_END = re.compile(r"[?？][\"”’」』)）》〉]+$")
_QUOTES = (
    ("《", "》"),
    ("〈", "〉"),
    ("「", "」"),
    ("『", "』"),
    ("“", "”"),
    ("(", ")"),
    ("（", "）"),
)
_SPACE = re.compile(r"\s+")
# a line break inside Chinese text (a wrapped line): the sentence joins it with a space
_CJK_BREAK = re.compile(
    r"([\u3400-\u9fff，、；：（「]{1,3})[ \t]*\n[ \t]*([\u3400-\u9fff（「]{1,3})"
)


@dataclass(frozen=True)
class Quotable:
    """A sentence an answer may quote, and the section heading it sits under ("")."""

    sentence: str
    section: str


def _flat(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


def _rejoined(sentence: str, breaks: list[tuple[str, str]]) -> str:
    """`sentence` with its wrapped Chinese lines joined as written: no space where the
    text broke a line between two Chinese characters (Chinese puts none there; a
    space the document wrote stays)."""
    for spaced, joined in breaks:
        sentence = sentence.replace(spaced, joined)
    return sentence


def states(line: str) -> bool:
    """True when a line without a full stop still says something, so is never a heading:
    it holds a negation ("Parking is not allowed on Main Street", "Do not pay by gift
    card"), an answer of any kind ("Open daily 9am to 5pm", "费用：1300元"), a label with
    its value ("Fee: 80 dollars"), or reads as an English sentence (a verb "is", "can",
    "must"..., or more words than a title has)."""
    if negated(line) or _LABEL_VALUE.search(line):
        return True
    if any(holds(line, kind) for kind in LINE_KINDS):
        return True
    text = plain(line)
    if text.isascii() and not _ASKS.match(text):
        return bool(_STATEMENT_VERB.search(text)) or len(text.split()) > MAX_HEADING_WORDS
    return False


def asks(sentence: str) -> bool:
    """True when a sentence is a question ("How do I renew?" as a heading, "Lost your
    card?"): it answers nothing, and names the section of the sentences after it."""
    if not _QUESTION_END.search(sentence.strip()):
        return False
    # a title quoted in a statement may end in a question mark (《…有關嗎?》): a sentence
    # cut there, its quote left open, states something
    if any(sentence.count(a) > sentence.count(b) for a, b in _QUOTES):
        return False
    # a quote in straight marks ('the leaflet "Who needs a permit?" Apply…', cut at its
    # mark) is open at an odd count; one closing after the mark is a title
    return sentence.count('"') % 2 == 0 and not _QUOTED_QUESTION_END.search(sentence.strip())


def heading_lines(text: str) -> list[str]:
    """The lines of `text` that are headings: a Markdown `#` line, or one short line that
    ends no statement, holds no clause mark, says nothing (`states`), follows a blank
    line or a finished sentence, and is followed by a blank line or by a line opening a
    sentence (a line ending in a function word is a sentence wrapped, not a heading)."""
    lines = [line.strip() for line in text.splitlines()]
    out: list[str] = []
    for i, line in enumerate(lines):
        if not line or _LIST_ITEM.match(line):
            continue
        if _MARKDOWN_HEADING.match(line):
            out.append(_MARKDOWN_HEADING.sub("", line))
            continue
        if len(line) > MAX_HEADING_CHARS or _ENDS.search(line) or _CLAUSE_MARK.search(line):
            continue
        if states(line):
            continue
        before = lines[i - 1] if i else ""
        after = next((x for x in lines[i + 1 :] if x), "")
        if not after or (before and not _ENDS.search(before)):
            continue  # nothing under it, or the end of a wrapped sentence
        blank_after = i + 1 < len(lines) and not lines[i + 1]
        words = keyword_tokens(line)
        if not blank_after and (not _OPENS.match(after) or (words and words[-1] in stopwords())):
            continue
        out.append(line)
    return out


def quotable(sentences: Sequence[str], text: str, section: str = "") -> list[Quotable]:
    """The passage's sentences (`sentences`, in order, from `text`) an answer may quote:
    headings dropped (each becomes the section of the sentences after it), a heading run
    into its sentence cut off, a clause ending at a semicolon joined with the next.
    `section` is the passage's own heading (the chunk's)."""
    headings = [_flat(h) for h in heading_lines(text) if _flat(h)]
    breaks = [(f"{m[1]} {m[2]}", m[1] + m[2]) for m in _CJK_BREAK.finditer(text)]
    titles = {plain(h) for h in [*headings, section] if h}
    # a heading with its text on the very next line runs into its first sentence; one
    # above a blank line does not ("Parking" above "Parking is not allowed ...")
    run_in = [
        h for h in headings if re.search(rf"(?m)^[ \t#]*{re.escape(h)}[ \t]*\n[ \t]*\S", text)
    ]
    out: list[Quotable] = []
    pending = ""  # a clause cut at a semicolon, waiting for the rest of its sentence
    pieces = [p for raw in sentences for p in _CJK_ITEM_INSIDE.split(raw) if p.strip()]
    for raw in pieces:
        sentence = _rejoined(_flat(raw), breaks)
        if plain(_MARKDOWN_HEADING.sub("", sentence)) in titles or asks(sentence):
            section = _MARKDOWN_HEADING.sub("", sentence)
            continue
        for heading in run_in:
            if sentence.startswith(heading + " ") and len(sentence) > len(heading) + 1:
                section, sentence = heading, sentence[len(heading) + 1 :].lstrip()
                break
        sentence = f"{pending} {sentence}" if pending and sentence.isascii() else pending + sentence
        if _CLAUSE_CUT.search(sentence) and not _LIST_ITEM.match(sentence):
            pending = sentence
            continue
        pending = ""
        out.append(Quotable(sentence, section))
    if pending:
        out.append(Quotable(pending, section))
    return out


def is_list_item(sentence: str) -> bool:
    """True when `sentence` is an item of a list ("- proof of address", "2. 車輛登記證")."""
    return bool(_LIST_ITEM.match(sentence))


def list_items(sentences: Sequence[str], intro: int) -> list[int]:
    """The positions of the items of the list `sentences[intro]` introduces ("You need:"),
    in order (none when it introduces no list), at most `MAX_LIST_ITEMS`."""
    if not _INTRO.search(sentences[intro]):
        return []
    out: list[int] = []
    for pos in range(intro + 1, min(len(sentences), intro + 1 + MAX_LIST_ITEMS)):
        if not is_list_item(sentences[pos]):
            break
        out.append(pos)
    return out


def content_words(text: str) -> set[str]:
    """The text's keyword tokens less question and function words."""
    return {t for t in keyword_tokens(text) if t not in stopwords()}


def covered(wanted: set[str], text: str) -> int:
    """How many of the `wanted` words `text` holds: an English word also as the start
    of a longer one ("renew" in "renewal", "open" in "opening"), a Chinese word also
    inside a longer one (带 in 携带): jieba cuts neither suffixes nor compounds."""
    words = content_words(text)
    flat = plain(text)
    found = wanted & words
    stems = [w for w in words if w.isascii() and len(w) >= MIN_STEM]
    for word in wanted - found:
        if not word.isascii():
            if word in flat:
                found.add(word)
        elif len(word) >= MIN_STEM and any(w.startswith(word) or word.startswith(w) for w in stems):
            found.add(word)
    return len(found)


def whole_list(
    places: list[tuple[int, int]], candidates: Sequence[tuple[int, int, str, frozenset[str], str]]
) -> list[tuple[int, int]]:
    """The places (evidence index, position) of the list the items at `places` (of one
    passage, in order) belong to: the unbroken run of list items around them, when it
    holds at most `MAX_LIST_ITEMS`; a list cut at the sentence cap reads as if it were
    all. Items of two lists (a line between them), or of a longer list, stay as picked."""
    places = sorted(places)
    idx = places[0][0]
    items = {c[1] for c in candidates if c[0] == idx and is_list_item(c[2])}
    first, last = places[0][1], places[-1][1]
    if any(p not in items for p in range(first, last + 1)):
        return places  # not one list
    while first - 1 in items:
        first -= 1
    while last + 1 in items:
        last += 1
    if last - first + 1 > MAX_LIST_ITEMS:
        return places
    return [(idx, p) for p in range(first, last + 1)]
