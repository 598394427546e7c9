"""How a message stands to the conversation: a greeting or thanks, or a follow-up leaning on
an earlier question ("and for children?", "学生呢？", "when are they allocated?").

Read by the rules' planner, by the follow-up rewrite without a model, and by the answer
memory, which must neither serve nor store an answer to a question that is not whole.
"""

from __future__ import annotations

import re

from graph.answer_sentences import content_words
from graph.kind_held import FINER
from graph.question_parts import names_no_topic
from textkit.answer_type import answer_kinds
from textkit.question_words import QUESTION_WORDS, content_query
from textkit.scripts import plain

# the whole message is a greeting or thanks (a question after "thanks, ..." is not)
_GREETING = re.compile(
    r"^\s*(hi|hello|hey|good (morning|afternoon|evening)|thanks?( you)?|thank you|"
    r"thanks a lot|thank you (very|so) much|many thanks|thx|"
    r"你好|您好|哈囉|哈啰|嗨|早安|午安|晚安|謝謝|谢谢|感謝|感谢|多謝|多谢|謝謝你|谢谢你|"
    r"謝謝您|谢谢您)[\s!！.。~～,，]*$",
    re.IGNORECASE,
)
_THANKS = re.compile(r"thank|thx|謝謝|谢谢|感謝|感谢|多謝|多谢", re.IGNORECASE)


def is_thanks(text: str) -> bool:
    """True when the message thanks us (the greeting reply should say "you're welcome")."""
    return bool(_THANKS.search(text))


def is_greeting(text: str) -> bool:
    """True when the whole message is a greeting or thanks ("hi", "謝謝")."""
    return bool(_GREETING.match(text))


# a message that leans on an earlier one by how it starts ("and …", 那…) or what it points
# at ("it", "the second one", 那個)
_FOLLOWUP = re.compile(
    r"^\s*(and|what about|how about|also|then)\b|\b(it|that|this one|those|the (first|second|"
    r"third|last) one)\b|^(那|那麼|那么|還有|还有|然後|然后)|(那個|那个|這個|这个|第[一二三四五]個|"
    r"第[一二三四五]个|上面|剛才|刚才|它)",
    re.IGNORECASE,
)
# a short "X呢？" leans on the last question: "学生呢？" (and for students?), "多少钱呢？"
# (and what does it cost?); unless X both asks and names a thing of its own
# ("退卡要多少钱呢？", "押金多少呢？"): a question of its own
_SHORT_NE = re.compile(r"^\s*(\S{1,6})呢\s*[?？]?\s*$")
_CJK_RUN = re.compile(r"[\u4e00-\u9fff]{2,}|[a-z]{2,}")
# the kinds of answer checked to be held by what is quoted (graph.kind_held's finer
# kinds, and what to bring: graph.answer_order)
_CHECKED_KINDS = frozenset({*FINER, "items"})
# "they", "them", 他们 lean on the earlier question only in a message naming little of its
# own ("when are they allocated?"); "Do they allow dogs in the garden?" stands alone
_PRONOUN = re.compile(r"\b(they|them|their)\b|他們|它們|他们|它们", re.IGNORECASE)
_PRONOUNS = frozenset({"they", "them", "their", "他们", "它们"})
PRONOUN_MAX_WORDS = 1  # content words of its own besides the pronoun


def looks_like_followup(question: str) -> bool:
    """True when the message leans on an earlier one ("and for children?", "那個呢", "when
    are they allocated?", or one asking only a kind of answer: "要多少錢？", "how much?")."""
    if _FOLLOWUP.search(question):
        return True
    # Chinese drops the subject it has just spoken of ("要多少錢？" after asking about a
    # passport): a question asking only a kind of answer is about the last one's thing
    if asks_only_a_kind(question):
        return True
    short = _SHORT_NE.match(question)
    if short:
        asked = short.group(1)
        return not (QUESTION_WORDS.search(plain(asked)) and _CJK_RUN.search(content_query(asked)))
    return bool(_PRONOUN.search(question)) and names_little(question)


def asks_only_a_kind(question: str) -> bool:
    """True when the message asks a kind of answer the answer is checked to hold (a
    price, a time of day, a duration, a count, what to bring: graph.kind_held) and
    names no thing of its own ("要多少錢？", "how long?", 幾點開門？, "what do I need to
    bring?"). A "when?", "who?", 什麼？ or 車在哪停？ is not one: the kind it asks, if
    any, is not checked, so leaning it on the last question would quote that one's
    answer again."""
    kinds = set(answer_kinds(question)) & _CHECKED_KINDS
    return bool(kinds) and names_no_topic(question)


def names_little(question: str) -> bool:
    """True when the message names at most `PRONOUN_MAX_WORDS` things of its own (its
    question words and pronouns aside): it leans on what was asked before."""
    return len(_own_words(question)) <= PRONOUN_MAX_WORDS


def _own_words(question: str) -> set[str]:
    """The content words a message names itself: no question word, no pronoun, no
    lone Chinese character left of one (点 of 几点)."""
    words = content_words(content_query(question)) - _PRONOUNS
    return {w for w in words if len(w) > 1 or w.isascii()}
