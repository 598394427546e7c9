"""The reply to a split question (graph.question_parts): each part answered or said missing.

Each answered part gets the single question's extractive answer to its own
words and evidence (response_synth hands in `answer_one`), under a heading
naming the part; the citation numbers run across the whole reply, one per
document. A part with nothing grounded gets one sentence saying the
documents do not say it. With a model, the model answers the answered parts in
its one call and `with_missing` adds the missing parts' sentences.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any

from textkit.catalog import say

# an answer to one part: (text with [n] per line, citations numbered n)
AnswerOne = Callable[[str, list[dict[str, Any]]], Awaitable[tuple[str, list[dict[str, Any]]]]]
_CITED = re.compile(r"\[(\d+)\]$")
_TRAILING = re.compile(r"[\s?？!！.。,，;；]+$")


def heading(part: dict[str, str], language: str) -> str:
    """The line naming a part above its answer ('On "what documents do I need"':)."""
    return say("part_heading", language, part=_TRAILING.sub("", part["text"]))


def grounded_first(evidence: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The part's evidence with its grounded passages first (each keeps its order)."""
    return [e for e in evidence if e.get("grounded")] + [
        e for e in evidence if not e.get("grounded")
    ]


async def parts_reply(
    parts: list[dict[str, str]],
    by_part: list[list[dict[str, Any]]],
    language: str,
    answer_one: AnswerOne,
) -> tuple[str, list[dict[str, Any]]]:
    """The whole reply and its citations, numbered across the parts."""
    lines = [say("answer_intro", language)]
    citations: list[dict[str, Any]] = []
    numbers: dict[str, int] = {}  # document → its number in the whole reply
    for part, evidence in zip(parts, by_part, strict=True):
        lines.append(heading(part, language))
        if not evidence:
            lines.append(say("part_missing", language))
            continue
        text, local = await answer_one(part["query"], grounded_first(evidence))
        if not local:  # no sentence of its evidence bears on the part
            lines.append(say("part_missing", language))
            continue
        renumber: dict[int, int] = {}
        for citation in local:
            key = str(citation["document"])
            if key not in numbers:
                numbers[key] = len(numbers) + 1
                citations.append({**citation, "n": numbers[key]})
            renumber[int(citation["n"])] = numbers[key]
        intro = say("answer_intro", language)
        for line in text.splitlines():
            if line.strip() == intro:
                continue  # one intro for the whole reply
            lines.append(renumbered(line, renumber))
    return "\n".join(lines), citations


def renumbered(line: str, numbers: dict[int, int]) -> str:
    """An answer line with its citation mark `[n]` renumbered for the whole reply."""
    cited = _CITED.search(line)
    if cited is None or int(cited[1]) not in numbers:
        return line
    return f"{line[: cited.start()]}[{numbers[int(cited[1])]}]"


def answered_question(parts: list[dict[str, str]], by_part: list[list[dict[str, Any]]]) -> str:
    """What the model is asked: the answered parts, each a question of its own."""
    asked = [p["text"] for p, evidence in zip(parts, by_part, strict=True) if evidence]
    return " ".join(q if _TRAILING.search(q) else f"{q}{_mark(q)}" for q in asked)


def _mark(text: str) -> str:
    return "？" if re.search(r"[\u3400-\u9fff]", text) else "?"


def with_missing(
    answer: str, parts: list[dict[str, str]], by_part: list[list[dict[str, Any]]], language: str
) -> str:
    """A model's answer to the answered parts, with a sentence for each missing part."""
    missing = [p for p, evidence in zip(parts, by_part, strict=True) if not evidence]
    return "\n".join(
        [answer, *(f"{heading(p, language)}\n{say('part_missing', language)}" for p in missing)]
    )
