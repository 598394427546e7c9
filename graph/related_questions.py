"""Questions the FAQ does answer, offered with a refusal: a dead end becomes one more ask.

An FAQ entry answers a question worded otherwise only when its question leads
every other entry near it (graph.entry_question): a paraphrase the embedder puts
as near a sibling's question as its own entry's is refused, since an answer to
another question with a citation is the worse failure. Such a refusal is often a
near miss: the asked entry is among the few nearest, not clearly first. So a
refusal names the FAQ questions the collection's entries state that come near
what was asked, and the user picks the one they meant (asked as written, an
entry's own question is answered). Nothing is cited and nothing is claimed: the
turn stays a refusal (`outcome` "refused", no citation).

An entry is offered when, among the `RIVALS` entries in the question's language
nearest it (one vector search, the audience's filters), its question's cosine
with the asked one (graph.cross_entries.add_entry_cosines) is at least
`MIN_MEANING` (graph.entry_question's floor), within `SPAN` of the best, and the
asked question is about as near it as to any everyday question about another
thing (graph.everyday_questions, the collection-independent bank that keeps
"Can I bring my dog?" from a rubbish-collection page). At most `RELATED_QUESTIONS`
(3 by default; 0: none), nearest first, in the reader's script.

Not offered: questions in another language (the reader may not read them), the
asked question itself, a text cut as addressed to the assistant
(graph.answer_safety), one holding a link (http, www) or longer than `MAX_CHARS`;
and nothing at all when the reply's language (Telegram's /lang, the web chat's
language menu, the API's `language`) is not the question's, since the list would
sit under an intro in another language, or without the local embedder (the bars
are its cosines). Measured: docs/benchmarks.md (FAQ questions offered with a
refusal).
"""

from __future__ import annotations

import re
from typing import Any

from graph.answer_safety import redact_passage
from graph.cross_entries import add_entry_cosines, judges_entries
from graph.cross_marks import family
from graph.entry_question import MIN_MEANING, RIVALS, candidate_of
from graph.everyday_questions import add_everyday_cosines, near_as_everyday
from textkit.scripts import detect_language, plain, to_script

DEFAULT_OFFERED = 3  # RELATED_QUESTIONS' default
# how far under the nearest entry's cosine another is still offered: set before measuring
# and not varied, under the lead (0.12) that lets an entry answer by meaning alone
SPAN = 0.1
MAX_CHARS = 200  # an entry "question" longer than this is a paragraph, not a question
# a link is no question to ask; a site's name is ("How can I access google.com outside the
# US?" is a StackFAQ entry): documents come from admins, and answers quote them as written
_LINK = re.compile(r"https?://|www\.", re.IGNORECASE)


async def related_questions(
    embedder: Any,
    searcher: Any,
    question: str,
    language: str,
    filters: Any = None,
    most: int = DEFAULT_OFFERED,
) -> list[str]:
    """At most `most` FAQ questions to offer with a refusal of `question`, nearest first,
    in `language`'s script (none without the local embedder or near entries)."""
    if most <= 0 or not question.strip() or not judges_entries(embedder) or searcher is None:
        return []
    if family(detect_language(question)) != family(language):
        return []  # offers in the question's language under an intro in another
    hits = await searcher.search(
        question, top_k=RIVALS, filters=filters, mode="vector", per_document=RIVALS
    )
    entries = [
        candidate_of(h, rank)
        for rank, h in enumerate(hits, 1)
        if getattr(h, "question", None) and not getattr(h, "cross_language", False)
    ]
    entries = [e for e in entries if offerable(str(e["question"]), question)]
    await add_entry_cosines(embedder, question, entries)
    near = [e for e in entries if float(e.get("question_cosine", 0.0)) >= MIN_MEANING]
    if not near:
        return []
    best = max(float(e["question_cosine"]) for e in near)
    near = [e for e in near if float(e["question_cosine"]) >= best - SPAN]
    await add_everyday_cosines(embedder, question, near)
    # on any collection, not only a small one as for answers: an offer is not weighed
    # against other entries, so only the everyday bank tells "about another thing"
    near = [e for e in near if near_as_everyday(e)]
    near.sort(key=lambda e: -float(e["question_cosine"]))
    offered: dict[str, str] = {}  # bare text → as shown: one of each
    for entry in near:
        text = to_script(" ".join(str(entry["question"]).split()), language)
        offered.setdefault(_bare(text), text)
    return list(offered.values())[:most]


def offerable(text: str, asked: str) -> bool:
    """True for an entry question fit to show as a question to ask."""
    shown = " ".join(text.split())
    if not shown or len(shown) > MAX_CHARS or _LINK.search(shown):
        return False
    if _bare(shown) == _bare(asked):
        return False  # asked as written already: offering it again leads nowhere
    return redact_passage(shown)[1] == 0


def _bare(text: str) -> str:
    """`text` matched as a question is: case, script, width and punctuation aside."""
    return re.sub(r"[\W_]+", "", plain(text))
