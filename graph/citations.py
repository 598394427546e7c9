"""Citation checks for model answers: a cited passage must say what the sentence says.

`CitationGate` sits between the model's stream and the user: it releases a
sentence only once it is complete and checked. A sentence citing [n] is shown
when passage n holds most of its content words; a sentence citing passages
that do not support it rejects the whole answer (the caller falls back), so an
unsupported citation is never shown. A sentence without [n] is attributed to
the passage that supports it, or held back when none does (a model's own
knowledge is not an answer from the documents). Citations are numbered per
document: a sentence citing the second chunk of a document already numbered
shows that document's first number, so the source list names it once.
An abbreviation's full stop ("U.S.", "e.g.", "Dr.") ends no sentence.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from textkit.overlap import presence, stem
from textkit.scripts import plain
from textkit.sentences import ends_with_abbreviation
from textkit.tokens import keyword_tokens, stopwords

MIN_SENTENCE_SUPPORT = 0.5
CITATION = re.compile(r"\[(\d{1,2})\]")
_REPEATED = re.compile(r"\[(\d{1,2})\](?:\s*\[\1\])+")
# A sentence ends at a CJK stop, or at . ! ? before a space, or at a line break;
# citation marks after the stop stay with their sentence.
_BOUNDARY = re.compile(r"(?:[。！？]|[.!?](?=\s)|\n)(?:\s*\[\d{1,2}\])*[ \t]*\n*(?=[^\s\[])")


@dataclass(frozen=True)
class Passage:
    """A passage cut once for every sentence checked against it."""

    text: str
    tokens: frozenset[str]
    stems: frozenset[str]

    @classmethod
    def of(cls, text: str) -> Passage:
        """The passage's normalised text, keyword tokens and their stems."""
        tokens = frozenset(keyword_tokens(text))
        return cls(plain(text), tokens, frozenset(stem(t) for t in tokens))


def sentence_support(sentence: str, passage: Passage) -> float:
    """The share of the sentence's content words found in the passage."""
    skip = stopwords()
    words = [t for t in dict.fromkeys(keyword_tokens(sentence)) if t not in skip]
    if not words:
        return 1.0
    found = (presence(w, passage.text, passage.tokens, passage.stems) for w in words)
    return sum(found) / len(words)


def check_sentence(sentence: str, passages: list[Passage]) -> tuple[str | None, bool]:
    """(the sentence to show, with its citation; None: hold it back) and whether the
    answer may stand (False: it cites passages that do not support it)."""
    cited = [int(n) for n in CITATION.findall(sentence)]
    body = CITATION.sub("", sentence).strip()
    if not body.strip(" -*•.。"):
        return None, True
    if cited:
        valid = [n for n in cited if 1 <= n <= len(passages)]
        ok = any(sentence_support(body, passages[n - 1]) >= MIN_SENTENCE_SUPPORT for n in valid)
        return (sentence, True) if ok else (None, False)
    scores = [sentence_support(body, p) for p in passages]
    best = max(range(len(scores)), key=lambda i: scores[i], default=-1)
    if best < 0 or scores[best] < MIN_SENTENCE_SUPPORT:
        return None, True
    trail = sentence[len(sentence.rstrip()) :]
    return f"{sentence.rstrip()} [{best + 1}]{trail}", True


class CitationGate:
    """Buffers streamed answer text and releases checked sentences through `emit`."""

    def __init__(self, evidence: list[dict[str, Any]], emit: Callable[[str], None]) -> None:
        # cut once here, not once per streamed sentence
        self._passages = [Passage.of(e["text"]) for e in evidence]
        self._numbers = document_numbers(evidence)
        self._emit = emit
        self._buffer = ""
        self.shown: list[str] = []
        self.rejected = False

    def feed(self, text: str) -> None:
        """Add streamed text; complete sentences are checked and released."""
        if self.rejected:
            return
        self._buffer += text
        end = 0
        for match in _BOUNDARY.finditer(self._buffer):
            stop = match.start() + 1
            if self._buffer[match.start()] == "." and ends_with_abbreviation(
                self._buffer[end:stop]
            ):
                continue  # "the U.S. embassy": the sentence goes on
            self._release(self._buffer[end : match.end()])
            end = match.end()
            if self.rejected:
                return
        self._buffer = self._buffer[end:]

    def finish(self) -> str:
        """Check the last sentence; the answer as shown ("" when nothing was)."""
        if self._buffer and not self.rejected:
            self._release(self._buffer)
        self._buffer = ""
        return "".join(self.shown).strip()

    def _release(self, sentence: str) -> None:
        shown, ok = check_sentence(sentence, self._passages)
        if not ok:
            self.rejected = True
            return
        if shown is not None:
            shown = renumber(shown, self._numbers)
            self.shown.append(shown)
            self._emit(shown)


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
