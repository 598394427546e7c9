"""A document with a heading and a bulleted list, and a question whose extractive answer
(no model) quotes three of its items: what each platform must show as a list."""

from __future__ import annotations

from textkit.catalog import say

LIST_DOCUMENT = "library-cards.md"
LIST_BODY = (
    "# Library cards\n\nA library card is free for residents.\n\n"
    "## What to bring for a library card\n\n- your identity card & a <recent> photo\n"
    "- a bill from this month with your address\n- the signed library card form\n"
)
LIST_QUESTION = "What do I bring to get a library card?"
LEAD = say("answer_intro", "en")  # the answer's first line, above its items
# the answer's items as written (`- ` dropped), each citing the document
ITEMS = [
    "your identity card & a <recent> photo [1]",
    "the signed library card form [1]",
    "A library card is free for residents. [1]",
]
