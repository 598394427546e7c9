"""Whether a passage is about the thing a question asks of: a kind of answer found about
another thing is no answer.

"How much does a fishing licence cost?" asks a price (textkit.answer_type) of a
subject, its words that do not name the kind: "fishing licence". A parking
permit's fee holds a price, and the extractive answer picks sentences holding
the kind asked first: without this test a collection with no fishing licence
document answered with the permit's fee. So, when a question asks a finer kind
(a price, a duration, a time, a count), each passage must be about its subject:

- a passage in the question's language by its words: its section's passages
  found, their heading and the document's title together hold more than half of
  the subject's words ("dog licence" holds one of "fishing licence"'s two), an
  English word in any form of its stem ("renewing" in "renewal"). The
  document's other passages found lend a word their headings do not name: a
  fishing page's fee does not become a boat licence's because its section
  "Fishing from boats" speaks of boats, while "urgent passport service" is
  answered from the passport page's fees though only its opening says "City
  Service Centre" (a document's text under no heading, or under a heading
  naming the document itself — the page's title as its first heading — is
  read with every section);
- a passage in another language by meaning (the local multilingual embedder):
  read under its topic (title and heading), its sentence holding the kind asked
  (failing one, its first) is closer to the subject alone ("fishing licence")
  than to the question without it ("How much does a cost?"), and no document in
  the question's language is nearer the subject alone (a vector search of it):
  a Chinese parking permit is nearer "taxi licence" than "How much does a
  cost?" is, but an English fishing licence page is nearer still (a document of
  the question's language whose passages found hold no answer of the kind asked
  takes nothing from a passage holding one: graph.kind_held). Documents in
  the other language are not ranked against each other: at a phrase's scale
  their cosines tell sibling sections apart no better than a coin. Both tests
  are relative, so they hold on any embedder's scale. A passage whose reading
  (title, heading and that sentence) holds more than half of the subject's words
  through the dictionary (textkit.bilingual) passes the first test whatever its
  cosines: an opening-hours page is nearer "what time … open" than "service centre"
  by meaning, yet says "City Service Centre" (a parking permit's fee holds one of
  "taxi licence"'s two words), each of them by a word of its own and none that
  the rest of the question holds (窗口 is glossed "opening"). The second test still
  holds for it: a glossed word is loose (停车场 has "work" among its glosses, 邮局
  "office"), so a document in the question's language nearer the thing takes it,
  unless that document's passages hold no answer of the kind asked.

Questions asking no finer kind, or naming no subject ("And how long does it
take?"), are not tested; a two-part question is tested part by part (a passage
about either part's subject stays).
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

from graph.answer_sentences import MIN_STEM, content_words, covered
from graph.cross_language import passage_sentences, topic
from graph.cross_marks import cosines, crosses
from graph.kind_held import FINER, finer_kinds, holds_kind
from graph.question_parts import split_question as split_into_parts
from textkit.answer_type import answer_kinds, holds, without_kind_words
from textkit.bilingual import named_share
from textkit.question_words import QUESTION_WORDS, REQUEST_WORDS
from textkit.scripts import plain
from textkit.tokens import keyword_tokens
from textkit.validity import asks_validity, without_validity_words

# English endings of one stem's forms, longest first ("renewal", "renewing", "renewed")
_SUFFIXES: tuple[str, ...] = ("ations", "ation", "ments", "ment", "ings", "ing", "ions", "ion")
_SUFFIXES += ("als", "al", "ers", "er", "ed", "es", "ly", "e")
# documents of each language group the subject's vector search returns: the nearest of
# the question's language is all the comparison needs, the other's few are looked up
NEAREST = 5
# more than this share of the subject's words, held through the dictionary, names it
MIN_SUBJECT_SHARE = 0.5
_WORD = re.compile(r"[a-z0-9]+|[\u3400-\u9fff]+")
# the verb of a duration asked ("how long does it take", "how long will it last")
# "what's", "how long's", "isn't", "they're": the contraction's tail is no word of a thing
_CONTRACTION = re.compile(r"(?<=[a-z])['’](?:s|re|ll|ve|d|m|t)\b|n['’]t\b")
# where one sentence of a message ends and the next begins (its mark kept with it)
_SENTENCE_END = re.compile(r"(?<=[?？!！。；;])\s*|\n+")
_ASKS_TAKE = re.compile(r"\b(?:take|takes|taking|last|lasts)\b|需要|要")


def asking_sentence(question: str) -> str:
    """The sentence of the question that asks the finer kind (the whole question when
    none does alone): "How much is a dog licence? mail me at [EMAIL]" asks of a dog
    licence, and the words of what the asker adds name no part of the thing."""
    for piece in _SENTENCE_END.split(question):
        if any(k in FINER for k in answer_kinds(piece)):
            return piece
    return question


def _without_kind(text: str) -> str:
    """`text` (`plain`) without its words asking or naming the kind of answer, the words
    of validity among them when it asks how long a thing stays valid ("护照有效期多久"
    asks of 护照: 有效期 is no part of the thing)."""
    if asks_validity(text):
        text = without_validity_words(text)
    return without_kind_words(text)


def subject_words(question: str) -> set[str]:
    """The question's content words less those naming the kind asked ("cost", 多少钱):
    the words of the thing it asks about."""
    question = asking_sentence(question)
    asked = _CONTRACTION.sub(" ", _without_kind(plain(question)))
    asked = _ASKS_TAKE.sub(" ", asked)
    # "help me with", "docs about": how one asks, not what about
    asked = REQUEST_WORDS.sub(" ", asked)
    words = content_words(QUESTION_WORDS.sub(" ", asked))
    # a lone Latin letter names nothing ("what's" leaves "s" where no contraction is known)
    return {w for w in words if not (len(w) == 1 and w.isascii())}


def split_question(question: str) -> tuple[str, str]:
    """(the subject alone, the question without it): "fishing licence" and "how much
    does a cost"."""
    question = asking_sentence(question)
    words = subject_words(question)
    text = plain(question)
    rest = text
    for token in sorted(words, key=len, reverse=True):
        # an English word whole ("s" must not cut "does"); a Chinese run as it stands
        pattern = rf"\b{re.escape(token)}\w*" if token.isascii() else re.escape(token)
        rest = re.sub(pattern, " ", rest)
    named = REQUEST_WORDS.sub(" ", QUESTION_WORDS.sub(" ", _without_kind(text)))
    # an English word is kept when it is a subject word; Chinese runs as they are left
    subject = [
        piece
        for piece in _WORD.findall(named)
        if not piece.isascii() or set(keyword_tokens(piece)) & words
    ]
    return " ".join(subject), " ".join(rest.split())


def asks_of_subject(question: str) -> bool:
    """True when the question asks a finer kind of answer about a thing it names."""
    return any(k in FINER for k in answer_kinds(question)) and bool(subject_words(question))


def about_by_words(question: str, evidence: list[dict[str, Any]]) -> list[bool]:
    """For each passage, False when it is in the question's language and its section does
    not name the thing the question asks a finer kind of (the word test of `on_subject`,
    without its test by meaning of another language's passages)."""
    if not asks_of_subject(question):
        return [True] * len(evidence)
    return _same_language(question, evidence)


def _same_language(question: str, evidence: list[dict[str, Any]]) -> list[bool]:
    """Each passage (True for one in another language) whether its section — the passages
    found under its heading, the heading and its document's title together — holds more
    than half of the subject's words. The document's opening (its passages under no
    heading or under the page's title, `_opening`) is read with every section, and its
    other sections' passages found lend a word their heading does not name: a heading
    names what its section is about, another thing than this section's ("Fishing from
    boats" on a fishing licence page)."""
    words = subject_words(question)
    text: dict[tuple[str, str], str] = {}
    for item in evidence:
        if not crosses(item):
            key = _section(item)
            text[key] = f"{text.get(key, topic(item))} {item.get('text') or ''}"
    held: dict[tuple[str, str], bool] = {}
    for key, body in text.items():
        siblings = [k for k in text if k[0] == key[0] and k != key]
        opening = " ".join(text[k] for k in siblings if _opening(k))
        found = held_words(words, f"{body} {opening}")
        others = [k for k in siblings if not _opening(k)]
        named = held_words(words, " ".join(k[1] for k in others))
        lent = held_words(words - found, " ".join(text[k] for k in others)) - named
        held[key] = 2 * (len(found) + len(lent)) > len(words)
    return [crosses(item) or held[_section(item)] for item in evidence]


def _section(item: dict[str, Any]) -> tuple[str, str]:
    """The passage's document and heading."""
    return str(item.get("document") or ""), str(item.get("heading") or "")


def _opening(section: tuple[str, str]) -> bool:
    """True for a document's text under no heading, or under a heading that names the
    document itself (the page's title as its first heading: "住宅區停車許可證" on
    停車許可證.md): the page's opening, about what every section is about, not a
    sibling section about another thing."""
    document, heading = section
    if not heading.strip():
        return True
    name = content_words(topic({"document": document}))
    return bool(name) and covered(name, heading) == len(name)


def stem(word: str) -> str:
    """An English word without its inflection or derivation ("renewing", "renewal" and
    "renewed" are "renew"); a word too short to cut, or not English, as it is."""
    if not word.isascii() or len(word) <= MIN_STEM:
        return word
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= MIN_STEM:
            return word[: -len(suffix)]
    return word


def held_words(words: set[str], text: str) -> set[str]:
    """Those of `words` the text holds (graph.answer_sentences.covered), an English word
    also in another form of the same stem ("renewing" in "renewal")."""
    stems = {stem(w) for w in content_words(text) if w.isascii()}
    return {w for w in words if covered({w}, text) or stem(w) in stems}


async def _rivals(
    searcher: Any, subject: str, filters: Any
) -> tuple[dict[str, float], dict[str, float]]:
    """A vector search of the subject alone: each document's best cosine, those in the
    question's own language and those in another."""
    hits = await searcher.search(
        subject, top_k=NEAREST, filters=filters, mode="vector", other_languages=True
    )
    own: dict[str, float] = {}
    other: dict[str, float] = {}
    for hit in hits:
        side = other if getattr(hit, "cross_language", False) else own
        document = str(hit.document)
        side[document] = max(side.get(document, -1.0), float(getattr(hit, "cosine", 0.0)))
    return own, other


def names_subject(subject: str, rest: str, reading: str) -> bool:
    """True when a passage's reading (`_reading`: its title, heading and the sentence
    compared) in another language holds more than half of the subject's words through
    the dictionary, each by a word of its own (textkit.bilingual.named_share): 服务中心
    is the "Service Centre" of "The City Service Centre … is open", 税务服务中心 is not
    (one "Service" for two words); a parking permit's fee holds one of "taxi licence"'s
    two words, not more. A word the `rest` of the question holds names nothing (窗口's
    gloss "opening" meets a sentence saying when something opens). CPU work (the cut):
    call it off the event loop."""
    return named_share(subject, reading, besides=rest) > MIN_SUBJECT_SHARE


def _mute(evidence: list[dict[str, Any]], kinds: list[str]) -> set[str]:
    """The documents in the question's language whose passages found hold no answer of
    the finer `kinds` asked (graph.kind_held): about the same thing, perhaps, but saying
    nothing of what is asked, so they take no answer away from a document in another
    language that holds one."""
    found: dict[str, bool] = {}
    for item in evidence:
        if not crosses(item):
            document = str(item.get("document") or "")
            found[document] = found.get(document, False) or holds_kind(item, kinds)
    return {document for document, holding in found.items() if not holding}


def _reading(item: dict[str, Any], kinds: list[str]) -> str:
    """The passage as compared with the subject: its topic and its first sentence holding
    a kind asked (failing one, its first sentence)."""
    sentences = passage_sentences(item) or [str(item.get("text") or "")]
    held = [s for s in sentences if any(holds(s, k) for k in kinds)]
    about = topic(item)
    sentence = (held or sentences)[0]
    return f"{about}. {sentence}" if about else sentence


async def on_subject(
    question: str,
    evidence: list[dict[str, Any]],
    embedder: Any,
    searcher: Any = None,
    filters: Any = None,
) -> list[bool]:
    """For each passage of `evidence`, whether it is about the question's subject (see
    the module docstring); all True when the question asks no finer kind of a named
    thing. A passage in another language is kept when there is no embedder to judge it;
    with no `searcher` (searched with `filters`) its document is not compared with the
    collection's others."""
    if not evidence:
        return []
    parts = split_into_parts(question)
    if parts:
        # a two-part question asks of two things: a passage about either may answer
        judged = [
            await on_subject(part.text, evidence, embedder, searcher, filters) for part in parts
        ]
        return [any(column) for column in zip(*judged, strict=True)]
    if not asks_of_subject(question):
        return [True] * len(evidence)
    out = _same_language(question, evidence)
    across = [i for i, item in enumerate(evidence) if crosses(item)]
    if not across or embedder is None:
        return out
    subject, rest = split_question(question)
    kinds = [k for k in answer_kinds(question) if k in FINER]
    readings = [_reading(evidence[i], kinds) for i in across]
    # one batched call per side: each reading against the subject, then against the rest
    to_subject = await cosines(embedder, subject, readings)
    to_rest = await cosines(embedder, rest, readings)
    # or its reading names the subject through the dictionary: an opening-hours page
    # is nearer "what time … open" than "service centre" by meaning, yet says "City
    # Service Centre" (the nearer document in the question's language, below, still
    # takes the thing away from it)
    named = await asyncio.to_thread(lambda: [names_subject(subject, rest, r) for r in readings])
    for i, near, far, says in zip(across, to_subject, to_rest, named, strict=True):
        out[i] = near >= far or says
    if searcher is not None and subject.strip() and any(out[i] for i in across):
        # a thing named in another language than its document's: when a document in the
        # question's own language is nearer it, the thing is that document's
        own, other = await _rivals(searcher, subject, filters)
        asked = finer_kinds(question)
        mute = _mute(evidence, asked)
        for i in across:
            # a document of the question's language holding no answer of the kind asked
            # takes none away from a passage holding one (graph.kind_held)
            holding = holds_kind(evidence[i], asked)
            rivals = [c for d, c in own.items() if not (holding and d in mute)]
            if not rivals:
                continue
            best = max(rivals)
            # a document below the search's last in its language is no nearer than that
            floor = min(other.values(), default=best)
            if other.get(str(evidence[i].get("document") or ""), floor) < best:
                out[i] = False
    return out
