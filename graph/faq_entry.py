"""An FAQ entry's answer part: what an answer quotes from a chunk cut from an entry."""

from __future__ import annotations

import re

# what may precede the question on its line: "Q:", "Question 3:", "問：", "12."
_QUESTION_MARKER = re.compile(
    r"\s*(?:(?:q|question|問|问|問題|问题)\s*\d*\s*[:：.．]|\d{1,3}\s*[.)、．])?\s*", re.IGNORECASE
)
# "A:", "Answer:", "答：", "回答:" opening the answer after the entry's question
_ANSWER_LABEL = re.compile(r"^\s*(?:a|answer|答|回答)\s*[:：]\s*", re.IGNORECASE)


def entry_answer(text: str, question: str | None) -> str:
    """The chunk's text without its entry's question line and the answer label.

    A later chunk of a long answer does not hold the question: it is all answer.
    """
    if not question or not question.split():
        return text
    # chunking re-joins sentences ("renew.\n It" → "renew. It"): match word by word
    words = r"\s*".join(re.escape(w) for w in question.split())
    found = re.search(words, text[: len(question) * 2 + 40])
    if found and _QUESTION_MARKER.fullmatch(text[: found.start()]):
        text = text[found.end() :]
    return _ANSWER_LABEL.sub("", text.lstrip(), count=1)
