"""Shows a model's claims one by one, each only once the judge says its passage supports it.

`ClaimGate` takes the claims of a synth.v6 reply as they stream (each with the
id of the source sentence it rests on, or, in the older shape, its source and
quote), judges them in a thread in the order they came
(graph.claim_judge) and emits each supported one with its citation; a claim
that fails is dropped, never shown, and why is kept (`dropped`, said in the
decision path). A claim true to its sentence must still answer the question
(graph.claim_question: its sentence holds the kind of answer asked and is
about what the question asks about; else `answer_kind`, `off_subject`, or
for a claim left in another language, `not_closest`: its sentence is not
the nearest the question in meaning of all the sentences the model read). A
claim resting on a passage in the question's own language
must rest on one that retrieval found grounded (graph.grounding: it holds the
question's key terms together), as the extractive answer must: a sentence the
model copies from a passage on the topic that does not answer says what the
passage says, and is still no answer (`ungrounded`). A passage in another
language shares no word with the question; the model reads the ones close by
meaning (retrieval_checker.model_support), and its claims on them stand on
the judge alone. A claim the model left in its passage's language (a small
model often copies the sentence rather than translating it) is shown under
the lead the extractive answer gives such quotes ("The English document
'Passport renewal' says:"), on its own line, so a reader is told why it is
in another language. `judged_check` adapts the judge to `CitationGate` for replies
in the older shape (an answer text with [n] marks and no quotes).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from typing import Any

from graph.citations import CITATION, Check, document_numbers
from graph.claim_checks import Passage, Words
from graph.claim_judge import ClaimJudge, SentenceId, bare, has_content
from graph.claim_question import closest, off_question
from graph.cross_marks import crosses, family
from graph.grounding import is_grounded
from textkit.catalog import say
from textkit.facts import is_latin
from textkit.scripts import to_script

_TRAILING_STOP = re.compile(r"[\s.。!！?？]*$")
_TRAILING_BREAK = re.compile(r"[\s,，;；:：、]+$")


class ClaimGate:
    """Judges streamed claims in order and emits the supported ones, cited."""

    def __init__(
        self,
        evidence: list[dict[str, Any]],
        emit: Callable[[str], None],
        embedder: Any,
        offered: set[SentenceId] | None = None,
        language: str | None = None,
        question: str = "",
    ) -> None:
        self._evidence = evidence
        self._question = question  # a claim must answer it (graph.claim_question)
        self._language = language  # the asker's: a claim left in another one gets a lead
        self._quoted: set[str] = set()  # documents whose lead was shown
        self._line_open = False  # the last piece was a quoted claim on its own line
        self._embedder = embedder
        self._offered = offered  # the sentence ids the model was shown
        self._emit = emit
        self._numbers = document_numbers(evidence)
        self._judge: ClaimJudge | None = None
        self._chain: asyncio.Future[None] | None = None
        self.count = 0
        self.shown: list[str] = []
        self.dropped: list[str] = []  # "<claim number>:<reason>" per dropped claim

    def add(
        self,
        text: str,
        source: int | None,
        quote: str | None,
        ids: list[SentenceId] | None = None,
    ) -> None:
        """Queue one claim: it is judged after the ones before it, and shown when it holds."""
        self.count += 1
        previous = self._chain
        claim = (text, source, quote, ids)
        self._chain = asyncio.ensure_future(self._check(previous, self.count, claim))

    async def _check(
        self,
        previous: asyncio.Future[None] | None,
        index: int,
        claim: tuple[str, int | None, str | None, list[SentenceId] | None],
    ) -> None:
        if previous is not None:
            await previous
        text = claim[0]
        verdict, why = await asyncio.to_thread(self._answering, *claim)
        if verdict.source is None:
            self.dropped.append(f"{index}:{verdict.reason}")
            return
        if not answers(self._evidence[verdict.source - 1]):
            self.dropped.append(f"{index}:ungrounded")
            return
        if why is not None:  # true to its sentence, but no answer to the question
            self.dropped.append(f"{index}:{why}")
            return
        said = bare(verdict.shown or text)
        piece = cited(said, self._numbers.get(verdict.source, verdict.source))
        item = self._evidence[verdict.source - 1]
        if self._untranslated(piece, item):
            document = str(item.get("document", ""))
            if document not in self._quoted:
                self._quoted.add(document)
                piece = f"{self._lead(item)}\n{piece}"
            piece = ("\n" if self.shown else "") + piece
            self._line_open = True
        elif self._line_open:
            piece, self._line_open = "\n" + piece, False
        elif self.shown and is_latin(piece):
            piece = " " + piece
        self.shown.append(piece)
        self._emit(piece)

    def _untranslated(self, claim: str, item: dict[str, Any]) -> bool:
        """A claim on another language's passage written in that language, not the asker's."""
        if self._language is None or not crosses(item):
            return False
        return is_latin(claim) != (family(self._language) == "en")

    def _lead(self, item: dict[str, Any]) -> str:
        """The line naming the quoted document and its language, in the asker's words."""
        language = self._language or "en"
        return say(
            "answer_intro_other_language",
            language,
            language_name=say(f"language_name:{family(item.get('language'))}", language),
            title=to_script(str(item.get("document", "")), language),
        )

    def _answering(
        self,
        text: str,
        source: int | None,
        quote: str | None,
        ids: list[SentenceId] | None,
    ) -> tuple[Any, str | None]:
        """The judge's verdict, and why the claim does not answer the question (None:
        it does, or it was dropped already); CPU work, run in a thread."""
        verdict = self._judged(text, source, quote, ids)
        if verdict.source is None:
            return verdict, None
        item = self._evidence[verdict.source - 1]
        why = off_question(self._question, bare(text), verdict.quote, item)
        judge = self._judge
        if why is None and judge is not None and self._by_meaning(text, item):
            # words cannot tell what a claim left in another language is about: its
            # sentence must be the one nearest the question in meaning of all the model
            # read, not only of its passage (a real 1.5B model copied "Joseph Stiglitz
            # presented evidence in 2009 …", its passage's nearest, for a question on
            # Piketty that another passage's sentence answers, 2026-11-29)
            others = [
                s for n in range(1, len(self._evidence) + 1) for s in judge.offered_sentences(n)
            ]
            if not closest(self._question, verdict.quote, others, judge.similarity):
                why = "not_closest"
        return verdict, why

    def _by_meaning(self, text: str, item: dict[str, Any]) -> bool:
        """Whether the claim's subject is judged by meaning: left in its passage's language,
        with a question to compare and the local embedder to compare it by."""
        if not self._question or self._embedder is None:
            return False
        return self._untranslated(text, item)

    def _judged(
        self,
        text: str,
        source: int | None,
        quote: str | None,
        ids: list[SentenceId] | None,
    ) -> Any:
        if self._judge is None:  # built in the thread: it cuts the passages into sentences
            passages = [str(e["text"]) for e in self._evidence]
            self._judge = ClaimJudge(passages, self._embedder, self._offered, self._question)
        return self._judge.judge(text, source, quote, ids)

    async def finish(self) -> str:
        """Wait for the claims still being judged; the answer as shown."""
        if self._chain is not None:
            await self._chain
        return "".join(self.shown).strip()

    def cancel(self) -> None:
        """The turn stopped: the claims still queued are not judged."""
        if self._chain is not None:
            self._chain.cancel()


def answers(item: dict[str, Any]) -> bool:
    """Whether a claim may rest on this passage: grounded (retrieval_checker's mark, else
    tested here), or in another language than the question."""
    return crosses(item) or bool(item["grounded"] if "grounded" in item else is_grounded(item))


def readable(evidence: list[dict[str, Any]], embedder: Any) -> list[dict[str, Any]]:
    """The passages a model's claim may be shown on, in their order: with the local
    embedder (`embedder`) every reply shape is judged with `answers`, so those that
    answer; without it a reply in the older shape is judged by its words alone, on any
    passage, so all of them."""
    if embedder is None:
        return list(evidence)
    return [e for e in evidence if answers(e)]


def cited(text: str, n: int) -> str:
    """The claim with its citation before its closing stop ("costs $5 [1].", "五元[1]。")."""
    text = _TRAILING_BREAK.sub("", text)  # a clause cut off at its comma or semicolon
    stop = _TRAILING_STOP.search(text)
    body, end = (text[: stop.start()], text[stop.start() :].strip()) if stop else (text, "")
    space = " " if is_latin(body) else ""
    return f"{body}{space}[{n}]{end or ('.' if is_latin(body) else '。')}"


def judged_check(
    evidence: list[dict[str, Any]], embedder: Any, dropped: list[str], asked: str = ""
) -> Check:
    """A `CitationGate` check by the claim judge (meaning, facts; the best passage sentence
    as the quote) for answers without quotes; each dropped sentence's reason goes to
    `dropped`. A dropped sentence is held back, not a rejection of the whole answer. (Not
    for clauses shown ahead of their sentence: a prefix not said yet is no drop.) A
    sentence must answer the question `asked` too, as a claim must (ClaimGate)."""
    judge = ClaimJudge([str(e["text"]) for e in evidence], embedder)

    def check(
        sentence: str, passages: list[Passage], question: Words | None
    ) -> tuple[str | None, str | None]:
        numbers = [int(n) for n in CITATION.findall(sentence)]
        if not has_content(sentence):
            if CITATION.search(sentence) or bare(sentence):
                dropped.append("empty")
            return None, None
        source = next((n for n in numbers if 1 <= n <= len(evidence)), None)
        verdict = judge.judge(sentence, source, None)
        if verdict.source is None:
            dropped.append(verdict.reason)
            return None, None
        if not answers(evidence[verdict.source - 1]):
            dropped.append("ungrounded")
            return None, None
        why = off_question(asked, bare(sentence), verdict.quote, evidence[verdict.source - 1])
        if why is not None:
            dropped.append(why)
            return None, None
        if numbers:
            return sentence, None
        trail = sentence[len(sentence.rstrip()) :]
        return f"{sentence.rstrip()} [{verdict.source}]{trail}", None

    return check
