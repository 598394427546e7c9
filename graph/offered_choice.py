"""A reply that picks one of the questions a refusal offered, by its place.

A refusal may end with FAQ questions near the one asked (graph.related_questions:
an intro line, then `- question` lines). Telegram numbers them; anywhere a user
may answer "2", "the second one", "#2", 第二個 or 最後一个 instead of writing the
question out. Such a reply, right after an answer offering questions (or after picks of
that answer's questions alone: "1", then "3"), stands for the question it
picks: it is searched and judged as that question, and it is kept in the
conversation as that question (bot.turn.settling), so a later follow-up leans
on it, not on "2". A place with no list open picks nothing: the planner asks
for the question in full (graph.nodes.planner). Anything more than a place
("2 bins", "the second one is wrong") is a message of its own. Only the stored
history counts: a caller's own (an OpenAI-style client's) could offer anything.
"""

from __future__ import annotations

import re

from graph.related_list import split_offer
from graph.related_questions import offerable
from textkit.scripts import plain

_ENGLISH_PLACES = {
    "first": 1,
    "1st": 1,
    "second": 2,
    "2nd": 2,
    "two": 2,
    "third": 3,
    "3rd": 3,
    "three": 3,
    "fourth": 4,
    "4th": 4,
    "four": 4,
    "fifth": 5,
    "5th": 5,
    "five": 5,
    "last": -1,
}
_CHINESE_PLACES = {"一": 1, "二": 2, "三": 3, "四": 4, "五": 5}
_PUNCTUATION = " \t.,!?:;。，！？：；、()（）[]【】#"
# "2", "no. 2", "the second one", "option 3", "the last one please"; not "no one", "one"
_ENGLISH = re.compile(
    r"^(?:(?:the|number|option|question)\s+|(?:no|nr|q)\s*(?=\d))*"
    r"(?P<place>[1-5]|first|second|third|fourth|fifth|1st|2nd|3rd|4th|5th|two|three|"
    r"four|five|last)"
    r"(?:\s+(?:one|question|please))*$",
    re.IGNORECASE,
)
_CHINESE = re.compile(
    r"^(?:我要|我想問|我想问|請問|请问|就)?"
    r"(?:第(?P<place>[1-5一二三四五])|(?P<last>最後|最后)一?)"
    r"(?:個|个|題|题|條|条|項|项|問題|问题)*(?:吧|呢|好了)?$"
)


def offered_in(answer: str) -> list[str]:
    """The questions an answer offered (its related-questions paragraph, which ends the
    refusal), in their order; none when any of them is not fit to ask
    (graph.related_questions.offerable: a link, an instruction)."""
    questions = split_offer(answer)[1]
    return questions if all(offerable(q, "") for q in questions) else []


def place_named(message: str) -> int | None:
    """The place a message that is only a place names: 1-5, or -1 for the last one."""
    # a keycap emoji (2️⃣) is its digit
    message = message.replace("\ufe0f", "").replace("\u20e3", "")
    text = " ".join(message.strip(_PUNCTUATION).split()).replace(".", " ").strip()
    if not text:
        return None
    english = _ENGLISH.match(text)
    if english:
        place = english.group("place").lower()
        return int(place) if place.isdigit() else _ENGLISH_PLACES[place]
    chinese = _CHINESE.match(text.replace(" ", ""))
    if chinese:
        if chinese.group("last"):
            return -1
        place = chinese.group("place")
        return int(place) if place.isdigit() else _CHINESE_PLACES[place]
    return None


def _open_offer(earlier: list[dict[str, str]]) -> list[str]:
    """The questions still open to a pick: those of the last answer offering some, when
    every message the user sent since picked one of them (a pick is kept as the question
    it picked, in the reader's script, or named a place that picked nothing), so "the
    third one" after the second was answered still reads that list; none once the user
    asked anything else."""
    if not earlier or earlier[-1].get("role") != "assistant":
        return []
    picks: list[str] = []
    for message in reversed(earlier):
        if message.get("role") == "user":
            content = message.get("content", "")
            # a place that picked nothing ("3" of two) was asked to be written out: the
            # list is still the one on screen
            if place_named(content) is None:
                picks.append(plain(content))
            continue
        offered = offered_in(message.get("content", ""))
        if offered:
            asked = {plain(q) for q in offered}
            return offered if all(p in asked for p in picks) else []
    return []


def chosen_question(message: str, earlier: list[dict[str, str]]) -> str | None:
    """The offered question `message` picks, when the last answer offering questions is
    still open (`_open_offer`: right after it, or with only picks of it since) and the
    message names a place among them; None otherwise."""
    place = place_named(message)
    offered = _open_offer(earlier) if place is not None else []
    if place is None or not offered or place > len(offered):
        return None
    return offered[place - 1] if place > 0 else offered[-1]
