"""The order an extractive answer quotes its sentences in, and the cut.

`arrange`: among the passages on the question's topic (`topical`), the
sentences holding the kind of answer asked (a price for "how much does it cost",
a duration for "how long", a time of day or weekday for "when is it open", a
count for "how many books", what to bring for "what documents do I need", an
amount or a date: textkit.answer_type) come first
and, when there is one, the others are left out: they are about the topic but do
not answer, save those of the answering passage that set its terms
(`conditions`: "The fee is waived for applicants over 65"); a duration or a
count asked is answered by a sentence holding no price when one does. When the
question itself asks "how much", "how many", "how long" or "when" for a price, a
time, a duration or a count and no sentence on the topic holds one nor the looser
kind after it (a figure that may be a price, any amount, a date), nothing is
quoted: the turn is refused. Without a kind asked (or
none of an earlier question's kind held), the sentences whose words (with their
section's and their document's) cover the most of the question's content words
come first (of equals, the one holding most of them through the dictionary's
glosses: 遗失 for the 丢 asked); the first one's passage may go on from it, and
another passage's sentence covering fewer is left out, as is a list item beside
the answering item. Of the sentences naming what to bring, too, the one holding
most of the question's words leads.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from graph.answer_sentences import content_words, covered, is_list_item
from graph.kind_held import FINER
from textkit.answer_type import LISTED_KINDS, answer_kinds, asked_type, holds, names_kind
from textkit.bilingual import coverage as gloss_coverage
from textkit.scripts import plain
from textkit.time_stated import time_ranker
from textkit.validity import asks_validity, states_validity

# the kinds a sentence's section line may hold for it
SECTION_KINDS = ("price", "time", "duration", "items")
# the kinds a sentence holding a price answers only when no other does
PRICED_OUT = ("duration", "count")


def topical(
    wanted: set[str],
    picked: Sequence[tuple[str, float, str, bool, tuple[int, int]]],
    documents: Mapping[int, str] | None = None,
) -> set[int]:
    """The passages (evidence indexes) of `picked` on the question's topic: those of the
    documents (`documents`: a passage's document; each passage its own without) whose
    sentences, sections and titles together cover as many of the `wanted` words as the
    best document's — a document's fee section is on its topic though it repeats no
    word of it; a passage in another language shares no word with the question: it is
    kept."""
    documents = documents or {}
    text: dict[object, str] = {}
    for sentence, _, about, _, (passage, _) in picked:
        key = documents.get(passage, passage)
        text[key] = f"{text.get(key, '')} {sentence} {about}"
    across = {p[4][0] for p in picked if p[3]}
    passages = {p[4][0] for p in picked}
    if not wanted:
        return passages
    native = {documents.get(p, p) for p in passages - across}
    coverage = {key: covered(wanted, text[key]) for key in native}
    best = max(coverage.values(), default=0)
    return across | {p for p in passages if coverage.get(documents.get(p, p)) == best}


def conditions(
    kind: str,
    wanted: set[str],
    picked: Sequence[tuple[str, float, str, bool, tuple[int, int]]],
    first: int,
    candidates: Sequence[int],
) -> list[int]:
    """The `candidates` of the answering sentence's (`first`'s) passage that hold no answer
    of `kind` yet bear on it: they name the kind ("The fee is waived for applicants over
    65", "The office is closed on public holidays") or hold every one of the question's
    content words (`wanted`). Dropping them would drop the answer's conditions."""
    passage = picked[first][4][0]
    out: list[int] = []
    for i in candidates:
        sentence = picked[i][0]
        if picked[i][4][0] != passage or holds(sentence, kind):
            continue
        if names_kind(sentence, kind) or (wanted and covered(wanted, sentence) == len(wanted)):
            out.append(i)
    return out


def arrange(
    question: str,
    picked: Sequence[tuple[str, float, str, bool, tuple[int, int]]],
    limit: int,
    context: str = "",
    documents: Mapping[int, str] | None = None,
) -> list[int]:
    """Which of the `picked` sentences (sentence, score, what it sits under: its section
    and document title, whether it is in another language than the question, where it
    is: evidence index and position) the answer quotes, best first, by their index in
    `picked`.

    Of the passages on the question's topic (`topical`), a sentence holding the
    finest kind of answer asked that any holds comes first (failing one, a sentence
    whose section line holds it) and the ones holding none are left out, save the
    answering passage's `conditions`; the score orders them (their context names the
    topic for all of them alike); a price, a time, a duration or a count the
    question itself asks by "how much", "how many", "how long" or "when" and none
    held, none. Without a kind asked (or only the
    context's, none held), the sentences covering the most of the question's
    content words (`context`'s, a follow-up's earlier question, when it has
    none), with their section and title,
    come first, by score; the first one's passage may go on from it (its other
    sentences follow, by score), and a sentence of another passage covering fewer
    does not bear on the question (one in another language shares no word: it
    stays)."""
    if not picked:
        return []
    order = sorted(range(len(picked)), key=lambda i: -picked[i][1])
    wanted = content_words(question) or content_words(context)
    # the kind asked is looked for in the passages on the question's topic only: another
    # document's "free" does not answer what a passport costs
    passages = topical(wanted, picked, documents)
    on_topic = [i for i in order if picked[i][4][0] in passages]
    # a follow-up asking no kind of its own ("and for students?") asks the earlier one's
    asked = answer_kinds(question)
    for kind in asked or answer_kinds(context):
        # a sentence's own words first; failing those, its section line's price, time
        # or duration ("## Fee 80 dollars" above "Payable at the counter."): a bare
        # figure there may be the document's name's ("form-2024")
        holding = [i for i in on_topic if holds(picked[i][0], kind)] or [
            i for i in on_topic if kind in SECTION_KINDS and holds(picked[i][2], kind)
        ]
        # a price's term ("costs 900 dollars a year", "urgent processing (2 days) costs
        # 900 dollars") answers what it costs: a duration or a count asked is answered by
        # a sentence stating one without a price, when there is one
        validity = kind == "duration" and asks_validity(question)
        if validity:
            # how long a thing stays valid is answered by a sentence stating it, "valid
            # for one year" beside its fee included (textkit.validity); none stated, the
            # topic's other durations do not answer it (a photo "taken in the last six
            # months" is no passport's validity). Any other duration asked keeps every
            # sentence holding one: a validity asked otherwise ("最长期限") is still one
            holding = [i for i in holding if states_validity(picked[i][0])]
            if not holding:
                break  # nor does an amount: the looser kinds after it are not asked
        if kind in PRICED_OUT and not validity:
            holding = [i for i in holding if not holds(picked[i][0], "price")] or holding
        if kind in LISTED_KINDS and holding:
            holding = _listed(question, wanted, picked, holding, on_topic)
        if kind == "time":
            # the day the question names, else the hours, before days alone: "It is
            # closed on Sundays" does not say when it is open (textkit.time_stated)
            rank = time_ranker(question)
            holding.sort(key=lambda i: rank(picked[i][0]))
        if holding:
            first = holding[0]
            kept = [*holding, *conditions(kind, wanted, picked, first, on_topic)]
            return [first, *sorted(kept[1:], key=order.index)][:limit]
    if asked_type(question) in ("amount", "date") and any(kind in FINER for kind in asked):
        # a price, an hour, a duration or a count asked and none on the topic: the
        # topic's other sentences do not answer it, and a passage holding one is about
        # another thing ("how much?" of the opening hours is not the passport's fee;
        # graph.kind_held refuses when no passage at all holds one). Only a question
        # asking "how much", "how many", "how long" or "when" is that sure of its kind
        # ("the time rate of change of electric charge" names a charge, asks no fee);
        # a kind only the context asks is no bar either: a two-part question's second
        # part ("and which MP explained …" after "how many names …") asks its own thing
        return []
    if not wanted:
        return order[:limit]
    coverage = {
        i: covered(wanted, f"{picked[i][0]} {picked[i][2]}") for i in order if not picked[i][3]
    }
    best = max(coverage.values(), default=0)
    covering = [i for i in order if coverage.get(i, best) == best]  # by score
    # of those in the question's language covering as many words, the one holding the rest
    # through the dictionary's glosses leads: 遗失 is the 丢 of 停车许可证丢了怎么办 (a word
    # of its own, one gloss); another language's sentences keep their places (they share
    # no word: its own words would put each behind every sentence of the question's)
    native = [i for i in covering if not picked[i][3]]
    if len(native) > 1:
        slots = [k for k, i in enumerate(covering) if not picked[i][3]]
        native.sort(key=lambda i: -gloss_coverage(question, f"{picked[i][0]} {picked[i][2]}"))
        for k, i in zip(slots, native, strict=True):
            covering[k] = i
    passage = picked[covering[0]][4][0]
    # a list's items are statements of their own: the answering item's siblings that
    # cover less ("No pesticides." beside "Dogs must be kept on a lead.") do not go on
    # from it
    in_list = is_list_item(picked[covering[0]][0])
    rest = [
        i
        for i in order
        if i not in covering
        and picked[i][4][0] == passage
        and not (in_list and is_list_item(picked[i][0]))
    ]
    return [*covering, *rest][:limit]


# a sentence opening on a condition ("若車輛登記在家人名下，需另附…", "If you are under
# 18, bring …") lists what some askers bring: it follows the list all of them bring,
# unless the question states a condition of its own
_CONDITION = re.compile(
    r"^\W*(?:(?:if|unless|when|where)\b|若|如果|如(?![下同此今何])|假如|倘若|凡)"
)
_ASKS_ON_CONDITION = re.compile(r"\b(?:if|when|unless)\b|若|如果|假如|倘若")


def _listed(
    question: str,
    wanted: set[str],
    picked: Sequence[tuple[str, float, str, bool, tuple[int, int]]],
    holding: list[int],
    on_topic: list[int],
) -> list[int]:
    """The sentences naming what to bring that answer: the one holding most of the
    question's words first (a condition's list after the list all bring; its words with
    its section, its words through the dictionary's glosses there (across languages
    too), then both with its document's title: "请携带身分证…" for 要带什么文件, "Bring
    your old passport …" under "Passport renewal" for "what do I bring to renew"), and
    of the others only those of its section or as near the question (the lost
    passport's "Bring the police report …" is no item of a renewal's). None when the
    first is in the question's language and another sentence there covers more of its
    words holding no item: it answers instead ("Which items are not allowed on the
    bus?" is answered by the list of them, not by "Passengers may bring one small
    pet")."""
    conditional = bool(_ASKS_ON_CONDITION.search(plain(question)))

    def key(i: int) -> tuple[bool, int, float, int, float]:
        sentence, _, about, _, _ = picked[i]
        section = about.split("\n", 1)[0]
        return (
            not conditional and bool(_CONDITION.match(plain(sentence))),
            -covered(wanted, f"{sentence} {section}"),
            -gloss_coverage(question, f"{sentence} {section}"),
            -covered(wanted, f"{sentence} {about}"),
            -gloss_coverage(question, f"{sentence} {about}"),
        )

    keys = {i: key(i) for i in holding}  # gloss coverage is CPU work: once a sentence
    ordered = sorted(holding, key=keys.__getitem__)
    first = ordered[0]
    if not picked[first][3]:
        held = covered(wanted, f"{picked[first][0]} {picked[first][2]}")
        if any(
            not picked[i][3] and covered(wanted, f"{picked[i][0]} {picked[i][2]}") > held
            for i in on_topic
        ):
            return []
    # (another section's that the question's words cannot tell from it stays: 护照续期 is
    # no word of "Passport renewal" to the dictionary)
    return [i for i in ordered if picked[i][2] == picked[first][2] or keys[i] == keys[first]]
