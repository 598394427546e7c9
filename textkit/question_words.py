"""Question words: how something is asked, not what (they never appear in the answer).

Two lists, one for each kind of text they are matched on, both kept here:
- `QUESTION_WORDS` is matched on `plain` text (lower-cased, Simplified), so
  one spelling covers both scripts; it is the long list support scoring drops
  to find the words an answer shares with the question (哪一個, 誰, 多少…).
- `REQUEST_WORDS` is matched on `plain` text too: the words of asking for
  something ("help me with", "docs about", 想知道, 帮我查) rather than of the
  thing asked; the subject of a question (graph.subject) is what is left.
- `ENGLISH_ASKING` is matched on `plain` text: the English words that make a
  message a question (`is_phrase`: a message with none, nor a question mark,
  asks by its words alone).
- `QUERY_FILLER` is matched on a query as the user or planner wrote it (either
  script, any case); a retry search drops these question words, pronouns,
  English function words and punctuation, and keeps everything else.
They differ on purpose: a retry keeps 多少 or 哪 in the query, support does not
weigh them.
"""

from __future__ import annotations

import re

from textkit.scripts import plain

# Matched on lower-cased Simplified text, longest alternatives first.
QUESTION_WORDS = re.compile(
    r"哪一个|哪一首|哪一位|哪一种|哪一年|哪一天|哪一|哪个|哪些|哪里|哪儿|哪|谁|何时|何年|何处|何种|"
    r"何人|何地|为何|如何|什么时候|什么|甚么|多少|多久|多长|多大|为什么|是因为|怎么|怎样|几|吗|呢|"
    r"请问|一个|一首|一位|一种"
)
# Matched on lower-cased Simplified text: how people ask, in chat, for any thing
REQUEST_WORDS = re.compile(
    r"\b(?:help|helps|docs?|documents?|documentation|info|information|details?|tell|know|"
    r"need|needs|want|wants|like|please|pls|plz|asap|urgent|urgently|question|questions|"
    r"find|look|looking|wondering|hi|hello|hey|thanks|thank|me|explain|show|give|check|"
    r"quick|quickly|anyone|someone|somebody|actually|exactly|roughly|approximately|really|"
    r"basically|currently|just|also|still|now|today|again|ok|okay)\b|"
    r"请问|想知道|想问|想了解|告诉我|帮我查|帮我|帮忙|麻烦|资料|文件|信息|相关|关于|一下|谢谢"
)
# Matched on raw text: both scripts spelled out.
QUERY_FILLER = re.compile(
    r"\b(how|what|when|where|which|who|why|can|could|do|does|is|are|i|we|you|the|a|an|to|of|"
    r"please|tell me|about)\b|請問|请问|如何|怎麼|怎么|什麼|什么|哪裡|哪里|哪些|為什麼|为什么|"
    r"可以|是否|嗎|吗|呢|我|你|的|[?？!！,，。.]",
    re.IGNORECASE,
)
# Matched on lower-cased text: English words that make a message a question
ENGLISH_ASKING = re.compile(
    r"\b(?:what|how|when|where|who|whom|whose|which|why|can|could|is|are|do|does|did|"
    r"will|would|should|may)\b"
)
_QUESTION_MARK = re.compile(r"[?？]")
_ASKS_NUMBER = re.compile(
    r"多少|几|多久|多长|多大|何年|哪一年|何时|什么时候|\bhow (?:many|much|long|old|far)\b|"
    r"\bwhat year\b",
    re.IGNORECASE,
)

# "when" asks a date where it opens its clause ("When does it open?", "hi, when …", "…,
# and when is it due?"), ends the question ("passport renewal, when?") or follows a word
# that asks through it ("do you know when", "any news on when", "until when"). After a
# question already opened ("what happens when …", "is there a fee when …") or a statement
# ("i get an error when i log in") it is a conjunction, as it is opening a statement a
# question follows ("When I lose my passport, what should I do?", "when renewing online,
# what do I upload"): that question asks what to do, not a date.
WHEN = re.compile(r"\bwhen\b")
_CLAUSE_END = re.compile(r"[,;:.!?，；：。！？]|\s[-–—]+\s")
_ASKS_THROUGH = re.compile(
    r"\b(?:know|knows|known|(?:can|could)(?: i| you| we)? tell|tell (?:me|us)|told|ask|asked|"
    r"asking|say|says|said|remember|"
    r"remind (?:me|us)|sure|idea|wonder|wondering|find|find out|see|look up|check|confirm|"
    r"announce|announced|decide|decided|advise|notify|notified|"
    r"(?:news|info|information|update|updates|details|word) (?:on|about)|"
    r"(?:date|time|deadline) for|since|until|till|from|by|of|and|or|but)"
    r"(?:\s+(?:roughly|exactly|approximately|about))?\s*$"
)
# what may stand before a "when" that asks: greetings and words that lead a question on
_LEADING = re.compile(
    r"^\s*(?:(?:hi|hello|hey|ok|okay|so|um|uh|sorry|excuse me|please|pls|then|also|and|but|"
    r"and then|just|quick question|yes|no|thanks|thank you)\b\s*)*$"
)
# a question after the statement "when" opens: a clause of its own, a wh-word, or a verb
# before its subject ("do i", "is there")
_ASKED_AFTER = re.compile(
    r"[,;:，；：]\s*(?:what|how|who|whom|whose|which|where|why|can|could|should|would|will|do|"
    r"does|did|is|are|may|must|shall)\b|\b(?:what|how|who|whom|whose|which|where|why)\b|"
    r"\b(?:can|could|should|would|will|do|does|did|is|are|may|must|shall)\s+"
    r"(?:i|we|you|they|he|she|it|there|my|our|your|their)\b"
)
_STATED = re.compile(
    r"\s*(?:i|we|you|they|he|she|it|my|our|your|their|someone|somebody|people|a|an|the|"
    r"\w+ing)\b"
)


# "what happens if …" asks what follows; its "happens" is no word the answer holds (the
# answer says what does: "Adult items cost 20 cents per day late")
_WHAT_HAPPENS = re.compile(r"\bwhat\s+(?:happens|will\s+happen|would\s+happen)\b")


def content_query(query: str) -> str:
    """The query without its question words (the tokens left are what an answer shares)."""
    return QUESTION_WORDS.sub(" ", _WHAT_HAPPENS.sub("what", plain(query)))


def is_phrase(text: str) -> bool:
    """True when a message asks by its words alone ("護照更新費用", "passport fee"): no
    question mark and no question word, in either language."""
    if _QUESTION_MARK.search(text):
        return False
    lowered = plain(text)
    return not (QUESTION_WORDS.search(lowered) or ENGLISH_ASKING.search(lowered))


def asks_number(query: str) -> bool:
    """True when the question asks for a number, an amount, a duration or a date."""
    text = plain(query)
    return bool(_ASKS_NUMBER.search(text)) or asks_when(text)


def asks_when(text: str) -> bool:
    """True when an English "when" of `text` (`plain`) asks a date or time, not joins a
    condition to another question (see `WHEN`)."""
    for found in WHEN.finditer(text):
        clause = _CLAUSE_END.split(text[: found.start()])[-1]
        rest = text[found.end() :]
        if _ASKS_THROUGH.search(clause) or not rest.strip(" ?？!！.。"):
            return True  # "do you know when …", "passport renewal, when?"
        if not _LEADING.match(clause):
            continue  # "what happens when …", "i get an error when i log in"
        if _STATED.match(rest) and _ASKED_AFTER.search(rest):
            continue  # "When I lose my passport, what should I do?"
        return True
    return False
