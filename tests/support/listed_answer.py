"""A document with a heading and a bulleted list, and a question whose extractive answer
(no model) quotes the list's three items, in the list's order, and nothing else: what
each platform must show as a list, with no heading among its lines."""

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
# the answer's items as written (`- ` dropped), each citing the document; the sentence
# saying the card is free does not answer what to bring
ITEMS = [
    "your identity card & a <recent> photo [1]",
    "a bill from this month with your address [1]",
    "the signed library card form [1]",
]
# the document's headings: they name sections, never a line of the answer
HEADINGS = ("Library cards", "What to bring for a library card")

# a two-part reply as the answering step writes it: each part's heading, then its items
TWO_PART = "\n".join(
    [
        "Here is what our documents say:",
        'On "How much does it cost to renew a passport":',
        "- The fee is 1,300 dollars. [1]",
        'On "what documents do I need to bring":',
        "- Bring your old passport & a photo. [1]",
    ]
)
