"""Whether a model's claim means what the passage sentence it rests on says.

Each claim of an answer rests on one sentence of the passage it cites: the
sentence whose id the model gives (synth.v6: "2.3", sentence 3 of passage 2 as
graph.quotes.passage_sentences splits it, one the model was offered; or two
ids), the model's quote, found in that passage (graph.quotes), or, from a model
that gives neither, the passage sentence that says the claim best. The claim may
translate or reword that sentence, so it is judged by meaning, not by words:

- it has something to check: a word, not only punctuation, a list marker or a
  citation mark (`1. [1]`, `'] [1]` are never an answer);
- its sentence id names a sentence the model was offered (else
  `sentence_not_found`; an id naming a stored sentence the model was not
  shown — a small model's slip, as a misnumbered source is — rests the
  claim on the one offered sentence whose facts and meaning it states, when
  exactly one does, and so does, with the local embedder, an id naming a
  shown sentence the claim does not state: "2.3" for "1.3"; an id naming no
  stored sentence is never read as another one); a quote, when the reply
  gives one, is in the passage cited, else in another of the answer's
  passages (then that one is cited: small models misnumber their sources);
- its facts agree with the sentence's (textkit.facts): numbers, dates,
  currencies, yes/no polarity, names that can be compared without a dictionary;
- it says what the sentence says: the local multilingual embedder's cosine of
  claim and sentence is at least `MIN_MEANING` (measured on translations and
  rewordings against unrelated sentences, en/繁/简: bench/claims.py), and
  `MIN_MEANING_SAME_LANGUAGE` for a claim in the sentence's own language. With no
  local embedder (the threshold is the local model's) the claim must share
  most of its words with the sentence, as before. A claim that is a bare value
  ("1996年", "30 days") has no meaning to compare besides its figure: on the
  sentence its id or quote points to, it stands when it restates the one figure
  that sentence states (graph.claim_values).

`ClaimJudge.judge` says which passage supports the claim and on which sentence,
or why none does: empty | sentence_not_found | quote_not_found | number |
currency | polarity | other_entity | meaning.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from graph.claim_checks import MIN_SENTENCE_SUPPORT, Passage, content_words, sentence_support
from graph.claim_copies import copies_clauses, copy_words, holds_copy
from graph.claim_values import bare_figure, restates_value, value_only
from graph.quotes import locate, passage_sentences, sentences_of
from textkit import facts
from textkit.claims import numbers
from textkit.facts import is_latin

# cosine of claim and sentence (local USE v3) at and above which the claim says what the
# sentence says: translations and rewordings of the dev set reach 0.35 and more, unrelated
# sentences at most 0.35 (bench/claims.py; tuned on its first ten facts, the rest held out)
MIN_MEANING = 0.35
# a claim in the quote's own language (both Latin, or both Chinese) rewords it: the bar is
# higher. Same-language rewordings of bench/claims.py reach 0.41-0.95 (46 of 48 at 0.5 and
# over); "Mail is moved to the Inbox." on 'You will still have the "Move to Inbox" option
# …, which will un-archive any archived emails' (a real 1.5B model's answer to where
# archived mail goes, 2026-11-28) is 0.44
MIN_MEANING_SAME_LANGUAGE = 0.5
_CITATION = re.compile(r"\[\d{1,2}(?:\.\d{1,3})?\]")  # [1], and a sentence id [1.2]
SentenceId = tuple[int, int]  # (passage number, sentence number), both 1-based
_WRAPPERS = "-*•'\"“”「」[](){}"
_PAIRS = {"」": "「", "”": "“", ")": "(", "]": "[", "}": "{"}
_WORD = re.compile(r"[A-Za-z\u3400-\u9fff\uf900-\ufaff]")
# a claim that is one sentence asking ("How many days of annual leave do I get?",
# 可以嗎？): a small model copies an FAQ entry's question as its claim; a question
# answers nothing. A question it quotes ('The form asks "Are you a resident?"', 請參閱
# 「如何補領？」) or a sentence before it ("… 25 days. Any other questions?") is no ask.
_ASKING = re.compile(r"^[^\"'“‘「『(（.。!！;；]*[?？]$")


def bare(text: str) -> str:
    """The claim without its citation marks and surrounding list markers or quotes (a
    closing mark whose opening one the claim holds stays: 「奧本山皇宮事件」)."""
    whole = _CITATION.sub("", text).strip()
    body = whole.strip(_WRAPPERS)
    end = whole[len(whole.rstrip(_WRAPPERS)) :]
    for close in end:  # the closers cut off its end, in order
        opener = _PAIRS.get(close)
        if opener is None or body.count(opener) <= body.count(close):
            break
        body += close
    return body


def has_content(text: str) -> bool:
    """True when the text says something to check: a content word or a letter-bearing
    number ("1. [1]", "'] [1]", "-", "[1]" say nothing)."""
    body = bare(text)
    if not _WORD.search(body):
        return False
    words = [w for w in content_words(body) if not numbers(w) or _WORD.search(w)]
    return bool(words)


@dataclass(frozen=True)
class Verdict:
    """What the judge decided for one claim."""

    source: int | None  # the passage number (1-based) that supports it; None: dropped
    quote: str = ""  # the sentence it rests on
    reason: str = ""  # why it was dropped ("" when supported)
    similarity: float = 0.0
    # what to show for the claim when not its own words: a copy of the passage's sentences
    # is shown as the passage writes them (a small model's copy drops a ";" from a command)
    shown: str = ""


class ClaimJudge:
    """Judges the claims of one answer against its passages (CPU work: call it in a thread)."""

    def __init__(
        self,
        passages: list[str],
        embedder: Any = None,
        offered: set[SentenceId] | None = None,
        question: str = "",
    ) -> None:
        self._passages = passages
        self._question = question  # what a bare value's clause must be about
        self._embedder = embedder
        self._sentences = [sentences_of(p) for p in passages]
        self._parts = [passage_sentences(p) for p in passages]  # what sentence ids number
        self._offered = offered  # the ids the model was shown (None: any in the passages)
        self._vectors: dict[str, np.ndarray] = {}

    def resolve(self, ids: list[SentenceId]) -> list[tuple[int, str]]:
        """The passage sentences the ids name, as (passage, text): two of one passage as one
        text, in their order; [] when an id names no sentence the model was offered."""
        for n, i in ids:
            if not 1 <= n <= len(self._parts) or not 1 <= i <= len(self._parts[n - 1]):
                return []
            if self._offered is not None and (n, i) not in self._offered:
                return []
        if not ids:
            return []
        if len({n for n, _ in ids}) == 1:
            n = ids[0][0]
            return [(n, " ".join(self._parts[n - 1][i - 1] for i in sorted({i for _, i in ids})))]
        # sentences of two passages: the claim must rest on one of them
        return [(n, self._parts[n - 1][i - 1]) for n, i in ids]

    def _exist(self, ids: list[SentenceId]) -> bool:
        """True when every id names a stored sentence (offered or not)."""
        return bool(ids) and all(
            1 <= n <= len(self._parts) and 1 <= i <= len(self._parts[n - 1]) for n, i in ids
        )

    def _only_fitting(self, body: str) -> Verdict | None:
        """The verdict on the one offered sentence whose facts the claim states and whose
        meaning it says (graph.claim_judge's bar); None when none or several do."""
        if self._offered is None:
            return None
        fitting = []
        for n, i in sorted(self._offered):
            if not (1 <= n <= len(self._parts) and 1 <= i <= len(self._parts[n - 1])):
                continue
            sentence = self._parts[n - 1][i - 1]
            if facts.disagreement(body, sentence) is not None or _other_figures(body, sentence):
                continue
            similarity = self._similarity(body, sentence)
            if similarity >= self._bar(body, sentence):
                fitting.append(Verdict(n, sentence, "", similarity))
        return fitting[0] if len(fitting) == 1 else None

    def _neighbours(self, ids: list[SentenceId]) -> list[tuple[int, str]]:
        """The offered sentences just before and after those `ids` name, in one passage: a
        small model's id is often one off, as its source numbers are (each is still a
        sentence of the passage, judged on its facts and meaning)."""
        if len({n for n, _ in ids}) != 1:
            return []
        n = ids[0][0]
        around = [min(i for _, i in ids) - 1, max(i for _, i in ids) + 1]
        return [c for i in around for c in self.resolve([(n, i)])]

    def _copied_with_neighbour(self, body: str, ids: list[SentenceId]) -> Verdict | None:
        """The verdict on the sentences `ids` name read with the offered sentence before or
        after them, when the claim copies clauses of both, whole and in a row
        (graph.claim_copies); None when it does not."""
        if len({n for n, _ in ids}) != 1:
            return None
        n = ids[0][0]
        first, last = min(i for _, i in ids), max(i for _, i in ids)
        cited = self.resolve(ids)
        claim = copy_words(body)
        for start, end, other in ((first - 1, last, first - 1), (first, last + 1, last + 1)):
            run = self.resolve([(n, i) for i in range(start, end + 1)])
            beside = self.resolve([(n, other)])
            if not (run and beside and cited) or not holds_copy(copy_words(run[0][1]), claim):
                continue
            # the copy must reach into both: one within the cited sentence is judged as any
            if holds_copy(copy_words(cited[0][1]), claim) or holds_copy(
                copy_words(beside[0][1]), claim
            ):
                continue
            if copies_clauses(claim, Passage.of(run[0][1]).copy_parts):
                similarity = self._similarity(body, run[0][1])
                # its words as written, spaced as a sentence is (not as a page lays it out)
                shown = " ".join(run[0][1].split())
                return Verdict(n, run[0][1], "", similarity, shown=shown)
        return None

    def judge(
        self,
        claim: str,
        source: int | None,
        quote: str | None,
        ids: list[SentenceId] | None = None,
    ) -> Verdict:
        """The passage and sentence supporting `claim` (citing `source`, quoting `quote`,
        resting on the sentences `ids` name), or why none does."""
        body = bare(claim)
        pointed = ids is not None or bool(quote and quote.strip())
        # a figure alone ("1996.") says something only of the sentence it points to
        if not has_content(body) and not (pointed and bare_figure(body)):
            return Verdict(None, reason="empty")
        if _ASKING.match(body.rstrip(_WRAPPERS + ".。 ")):
            return Verdict(None, reason="question")
        valid = source is not None and 1 <= source <= len(self._passages)
        order = [source] if valid and source is not None else range(1, len(self._passages) + 1)
        candidates: list[tuple[int, str]] = []
        if ids is not None:
            # the sentence is the passage's own by construction: facts and meaning decide
            candidates = self.resolve(ids)
            if not candidates:
                # an id of a stored sentence the model was not shown: it wrote the claim
                # from one it was shown, which stands only when it is the one that fits
                hidden = self._only_fitting(body) if self._exist(ids) else None
                return hidden or Verdict(None, reason="sentence_not_found")
            # a small model copying a sentence and the next cites one of them: the copy
            # of both, whole and in their order, says what they say together
            copied = self._copied_with_neighbour(body, ids)
            if copied is not None:
                return copied
            candidates += self._neighbours(ids)
            # a quote given besides must still be the passages' (never a made-up one)
            if quote and quote.strip() and not any(locate(quote, p) for p in self._passages):
                return Verdict(None, reason="quote_not_found")
        elif quote and quote.strip():
            # a quote found in another passage than the one cited rests on that passage
            # (a small model misnumbers its sources): the citation follows the quote
            others = [n for n in range(1, len(self._passages) + 1) if n not in order]
            for n in [*order, *others]:
                found = locate(quote, self._passages[n - 1])
                if found is not None:
                    # a verbatim quote is the passage's text; a slipped one is checked
                    # against the passage's own sentence
                    candidates.append((n, quote if found.exact else found.sentence))
                    break
            if not candidates:
                return Verdict(None, reason="quote_not_found")
        elif self._offered is not None:
            # no id given: only the sentences the model was shown can carry the claim, as
            # with an id (a stored sentence it never read is not what it wrote from)
            self.warm(source if valid else None)
            candidates = [(n, s) for n in order for s in self.offered_sentences(n)]
        else:
            self.warm(source if valid else None)
            candidates = [(n, s) for n in order for s in self._sentences[n - 1]]
        if pointed:
            # a bare value ("1996年") means nothing besides its figure: it stands on a
            # sentence it was pointed to that states that figure alone (graph.claim_values)
            for n, sentence in candidates:
                if facts.disagreement(body, sentence) is None and restates_value(
                    body, sentence, self._question
                ):
                    return Verdict(n, sentence, "", self._similarity(body, sentence))
        scored = sorted(
            ((self._similarity(body, s), n, s) for n, s in candidates), key=lambda c: -c[0]
        )
        # the closest sentence's reason is the one given: a wrong fact before a weak meaning
        first_reason = ""
        for similarity, n, sentence in scored:
            reason = facts.disagreement(body, sentence)
            bar = self._bar(body, sentence)
            if reason is None and similarity >= bar and not _other_figures(body, sentence):
                return Verdict(n, sentence, "", similarity)
            first_reason = first_reason or reason or "meaning"
            if similarity < self._threshold:
                break
        if ids is not None and self._embedder is not None:
            # the id names a shown sentence the claim does not state (a small model's
            # source number slips: "2.3" for "1.3"): it stands on the one shown sentence
            # whose facts and meaning it states, as a claim with a slipped quote does
            fitting = self._only_fitting(body)
            if fitting is not None:
                return fitting
        best = scored[0][0] if scored else 0.0
        return Verdict(None, reason=first_reason or "meaning", similarity=best)

    def offered_sentences(self, n: int) -> list[str]:
        """The sentences of passage n the model was offered (all of them when not told)."""
        parts = self._parts[n - 1] if 1 <= n <= len(self._parts) else []
        offered = self._offered
        return [p for i, p in enumerate(parts, 1) if offered is None or (n, i) in offered]

    def similarity(self, text: str, other: str) -> float:
        """The local embedder's cosine of two texts (without it, the share of the first's
        words the second holds)."""
        return self._similarity(text, other)

    @property
    def _threshold(self) -> float:
        return MIN_MEANING if self._embedder is not None else MIN_SENTENCE_SUPPORT

    def _bar(self, claim: str, sentence: str) -> float:
        """The meaning a claim must reach: higher in the sentence's own language."""
        if self._embedder is not None and is_latin(claim) == is_latin(sentence):
            return MIN_MEANING_SAME_LANGUAGE
        return self._threshold

    def _similarity(self, claim: str, sentence: str) -> float:
        if self._embedder is None:
            return sentence_support(claim, Passage.of(sentence))
        missing = [t for t in dict.fromkeys((claim, sentence)) if t not in self._vectors]
        if missing:
            rows = self._embedder.embed_documents(missing)
            for text, row in zip(missing, rows, strict=True):
                vector = np.asarray(row, dtype=np.float32)
                self._vectors[text] = vector / (float(np.linalg.norm(vector)) or 1.0)
        return float(self._vectors[claim] @ self._vectors[sentence])

    def warm(self, source: int | None = None) -> None:
        """Embed the passages' sentences in one batch (a claim without a quote is compared
        with each of them)."""
        if self._embedder is None:
            return
        wanted = [
            s
            for n, sentences in enumerate(self._sentences, 1)
            if source in (None, n)
            for s in sentences
            if s not in self._vectors
        ]
        if wanted:
            rows = self._embedder.embed_documents(wanted)
            for text, row in zip(wanted, rows, strict=True):
                vector = np.asarray(row, dtype=np.float32)
                self._vectors[text] = vector / (float(np.linalg.norm(vector)) or 1.0)


def _other_figures(claim: str, sentence: str) -> bool:
    """True when `claim` is a bare value ("1996.", "1996年") and `sentence` states other
    figures besides its own: meaning cannot tell which figure a bare value restates (the
    bar across languages passed "1996." on "enlarged in 1996, founded in 1990" for when
    it was founded); graph.claim_values.restates_value alone judges it there."""
    return value_only(claim) and bool(numbers(sentence) - numbers(claim))
