"""Citation checks for model answers: a cited passage must say what the sentence says.

`CitationGate` sits between the model's stream and the user: it releases a
sentence only once it is complete and checked. A sentence citing [n] is shown
only when passage n supports it in what it claims, not only in its words:

- most of its content words are in the passage (`MIN_SENTENCE_SUPPORT`);
- it rests on one place in the passage: the clause holding most of its words
  (of equals, the one holding most of the question's), with the neighbouring
  clauses that only continue it (a neighbour repeating the question's words is
  a parallel statement about something else). Every number of the claim, and
  every word it adds to the question that the passage holds, must be in that
  place: naming the passage's other entity, or its other figure, is not
  support;
- every content word of the claim is in the passage or the question ("open"
  where the passage says "closed" is a word of the model's own), and the
  question's words it restates are in the passage or its document's name (a
  fact of the Taipei 101 passage told of the 北堤 is about something else);
- its yes/no polarity agrees with the passage's: an affirmative claim may not
  rest on a word the passage only negates ("no evidence that ..." is not
  "yes, ..."), a negative claim must rest on what the passage negates.

A cited sentence that fails is never shown, and the answer stops there with
the reason (the caller discards it and falls back: a model that misread one
passage is not trusted on the others). A sentence without [n] is attributed to
the passage that supports it (by the same checks), or held back when none does
(a model's own knowledge is not an answer from the documents). Citations are
numbered per document: a sentence citing the second chunk of a document
already numbered shows that document's first number, so the source list names
it once. An abbreviation's full stop ("U.S.", "e.g.", "Dr.") ends no sentence.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from graph.claim_checks import (
    MIN_SENTENCE_SUPPORT,
    Passage,
    Words,
    content_words,
    disagreement,
    sentence_support,
)
from textkit.sentences import ends_with_abbreviation

CITATION = re.compile(r"\[(\d{1,2})\]")
_REPEATED = re.compile(r"\[(\d{1,2})\](?:\s*\[\1\])+")
# A sentence ends at a CJK stop, or at . ! ? before a space, or at a line break;
# citation marks after the stop stay with their sentence.
_BOUNDARY = re.compile(r"(?:[。！？]|[.!?](?=\s)|\n)(?:\s*\[\d{1,2}\])*[ \t]*\n*(?=[^\s\[])")
# Where a clause of a sentence still being written ends: a CJK comma, enumeration comma,
# semicolon or colon, or an English one before a space (not "1,300").
_CLAUSE_END = re.compile(r"[，、；：]|[,;:](?=\s)")
# A clause shown ahead of its sentence names at least this many content words: fewer
# ("In 2010,") say too little to show and are too easily found in any passage.
EARLY_CLAUSE_WORDS = 3
# Each try checks the whole prefix again: a sentence of many short clauses (a list cut by
# 、) is tried this often at most, and not past this length (the cost stays a few checks).
EARLY_TRIES = 3
EARLY_MAX_CHARS = 300


# (sentence, passages, question) → (the sentence to show, with its citation; None: hold it
# back) and why it does not hold (None: it holds, or says nothing to check)
Check = Callable[[str, list[Passage], Words | None], tuple[str | None, str | None]]


def check_sentence(
    sentence: str, passages: list[Passage], question: Words | None = None
) -> tuple[str | None, str | None]:
    """(the sentence to show, with its citation; None: hold it back) and why it was held
    back when it claims something its citation does not support (None otherwise)."""
    cited = [int(n) for n in CITATION.findall(sentence)]
    body = CITATION.sub("", sentence).strip()
    if not body.strip(" -*•.。"):
        return None, None
    if cited:
        valid = [n for n in cited if 1 <= n <= len(passages)]
        reasons = [disagreement(body, passages[n - 1], question) for n in valid]
        if any(r is None for r in reasons):
            return sentence, None
        return None, (reasons[0] if reasons else "unsupported")
    scores = [sentence_support(body, p) for p in passages]
    for best in sorted(range(len(scores)), key=lambda i: -scores[i]):
        if scores[best] < MIN_SENTENCE_SUPPORT:
            break
        if disagreement(body, passages[best], question) is None:
            trail = sentence[len(sentence.rstrip()) :]
            return f"{sentence.rstrip()} [{best + 1}]{trail}", None
    return None, None


class CitationGate:
    """Buffers streamed answer text and releases checked sentences through `emit`."""

    def __init__(
        self,
        evidence: list[dict[str, Any]],
        emit: Callable[[str], None],
        question: str = "",
        passages: list[Passage] | None = None,
        check: Check | None = None,
    ) -> None:
        """`passages`: `cut_passages(evidence)`, or None to `take` them later (cut off the
        event loop while the model starts writing); text fed until then waits. `check`:
        how a sentence is judged (`check_sentence`, by words, unless another is given)."""
        self._check = check or check_sentence
        self._passages = passages
        self._flush_owed = False
        self._question = Words.of(question) if question.strip() else None
        self._numbers = document_numbers(evidence)
        self._emit = emit
        self._buffer = ""
        # Clauses of the sentence being written may be shown before it ends (`early`: the
        # caller says when, e.g. once the model has said the sources answer); `_ahead` is
        # the part of `_buffer` already shown that way.
        self.early = False
        self._ahead = ""
        self._tried = 0  # the clause end last tried (each is tried once, not every token)
        self._tries = 0  # tries of the sentence being written (EARLY_TRIES at most)
        self.shown: list[str] = []
        # why a cited sentence did not hold ("" while all did): the answer stops there, and
        # the caller discards it (a model that misread one passage is not trusted on others)
        self.rejected = ""

    @property
    def waiting(self) -> bool:
        """True until the passages are here (`take`)."""
        return self._passages is None

    def take(self, passages: list[Passage]) -> None:
        """The cut passages: the sentences that waited for them are checked now."""
        self._passages = passages
        self.feed("")
        if self._flush_owed:
            self.flush()

    def feed(self, text: str) -> None:
        """Add streamed text; complete sentences are checked and released."""
        if self.rejected:
            return
        self._buffer += text
        passages = self._passages
        if passages is None:
            return
        end = 0
        for match in _BOUNDARY.finditer(self._buffer):
            stop = match.start() + 1
            if self._buffer[match.start()] == "." and ends_with_abbreviation(
                self._buffer[end:stop]
            ):
                continue  # "the U.S. embassy": the sentence goes on
            self._release(self._buffer[end : match.end()], passages)
            end = match.end()
            if self.rejected:
                return
        self._buffer = self._buffer[end:]
        if self.early:
            self._show_clauses(passages)

    def flush(self) -> None:
        """The text is complete: check and release the last sentence now.

        A JSON reply closes its answer field well before the stream ends (the
        citations follow): the last sentence, often the only one, is shown then,
        not when the whole reply has arrived.
        """
        if self._passages is None:
            self._flush_owed = True
            return
        if self._buffer and not self.rejected:
            self._release(self._buffer, self._passages)
        self._buffer = ""

    def finish(self) -> str:
        """Check the last sentence; the answer as shown ("" when nothing was)."""
        if self._passages is None:
            raise RuntimeError("the passages were never taken")
        self.flush()
        return "".join(self.shown).strip()

    def _show_clauses(self, passages: list[Passage]) -> None:
        """Show the sentence being written up to its last complete clause, when a passage
        says all of it (the checks of an uncited sentence): the first words need not wait
        for a long sentence's end. The whole sentence is still checked when it ends."""
        if self._tries >= EARLY_TRIES:
            return
        # only the clause ends not tried yet, within EARLY_MAX_CHARS (this runs per token)
        last = 0
        for match in _CLAUSE_END.finditer(self._buffer, self._tried, EARLY_MAX_CHARS + 1):
            last = match.end()
        if last <= self._tried or last > EARLY_MAX_CHARS:
            return
        self._tried = last
        prefix = self._buffer[:last]
        if CITATION.search(prefix) or len(content_words(prefix)) < EARLY_CLAUSE_WORDS:
            return
        self._tries += 1
        shown, reason = self._check(prefix, passages, self._question)
        if shown is None or reason is not None:
            return  # not said by any passage (yet): it waits for its sentence
        piece, self._ahead = prefix[len(self._ahead) :], prefix
        self._emit(piece)

    @property
    def ahead(self) -> bool:
        """True while what was shown of the sentence being written is not checked whole
        (read by `emit`: such text is not kept as the answer of a stopped turn)."""
        return bool(self._ahead)

    def _release(self, sentence: str, passages: list[Passage]) -> None:
        ahead, self._ahead, self._tried, self._tries = self._ahead, "", 0, 0
        shown, reason = self._check(sentence, passages, self._question)
        if reason is None and shown is None and ahead:
            # its first clauses are on screen, but the whole is said by no passage
            reason = "unsupported"
        if reason is not None:
            self.rejected = reason
            return
        if shown is not None:
            shown = renumber(shown, self._numbers)
            self.shown.append(shown)
            if not shown.startswith(ahead):  # cannot happen: no [n] in what went ahead
                self.rejected = "unsupported"
                return
            self._emit(shown[len(ahead) :])


def cut_passages(evidence: list[dict[str, Any]]) -> list[Passage]:
    """The evidence cut for the checks, once per answer, not once per sentence (jieba: CPU
    work, which a thread may do while the model writes)."""
    return [Passage.of(e["text"], str(e.get("document") or "")) for e in evidence]


def document_numbers(evidence: list[dict[str, Any]]) -> dict[int, int]:
    """Each passage's number → the number of the first passage of its document."""
    first: dict[str, int] = {}
    out: dict[int, int] = {}
    for n, item in enumerate(evidence, 1):
        out[n] = first.setdefault(str(item.get("document")), n)
    return out


def renumber(sentence: str, numbers: dict[int, int]) -> str:
    """The sentence with each [n] as its document's number ("[1][1]" becomes "[1]")."""

    def one(match: re.Match[str]) -> str:
        n = int(match.group(1))
        return f"[{numbers.get(n, n)}]"

    return _REPEATED.sub(r"[\1]", CITATION.sub(one, sentence))


PASSAGE_CHARS = 500  # how much of a cited passage a citation carries (the HTTP API shows it)


def citation_entry(n: int, item: dict[str, Any]) -> dict[str, Any]:
    """One citation of an answer: its number, the passage's document, page, link, text and
    chunk (the id the source view marks; None for evidence that is no stored chunk)."""
    passage = str(item.get("text") or "")
    if len(passage) > PASSAGE_CHARS:
        passage = passage[:PASSAGE_CHARS].rstrip() + "…"
    return {
        "n": n,
        "document": item["document"],
        "page": item.get("page"),
        "url": item.get("url"),
        "passage": passage or None,
        "chunk": chunk if isinstance(chunk := item.get("chunk_id"), int) else None,
    }
