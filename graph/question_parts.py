"""Two-part questions: split a message that asks two (at most three) things at once.

"How much does it cost to renew a passport and what documents do I need to
bring?" asks two things; one passage rarely answers both, and the evidence
test wants the question's key terms together in one passage, so the whole
question is refused although each half alone is answered. Split, each part is
searched, graded and answered on its own (graph.nodes: planner, tool_executor,
retrieval_checker, response_synth).

Rules, no model. A message is split only where *each side is a question of its
own*: it begins with an interrogative or an auxiliary verb (English: "what",
"how", "do", "can"...) or holds a Chinese interrogative (什麼, 多少, 嗎...). A
coordinated noun phrase under one interrogative ("What are the fees and opening
hours?", "護照換發的費用和應備文件是什麼？") is one ask and goes the single
path: its one passage often holds both, and the single path already finds it.

A later part that names no topic of its own ("what documents do I need to
bring", "要帶什麼文件") is about the first part's topic: its search query carries
the first part's topic words it lacks ("... renew passport"). The part's own
words are what the reply shows.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from textkit.question_words import QUESTION_WORDS
from textkit.scripts import detect_language, plain, to_script
from textkit.tokens import keyword_tokens, stopwords

MAX_PARTS = 3
MIN_WORDS_EN = 3  # "and when?" is too short to search on its own
MIN_CHARS_ZH = 4  # 要多少錢

_EN_ASK = (
    r"(?:what|how|when|where|which|who|whom|whose|why|is|are|was|were|do|does|did|can|"
    r"could|will|would|should|shall|may|must|have|has|am)"
)
_EN_WH = re.compile(r"\b(?:what|how|when|where|which|who|whom|whose|why)\b", re.IGNORECASE)
_EN_STARTS_ASK = re.compile(rf"^{_EN_ASK}\b", re.IGNORECASE)
# where a new ask may begin: after a question mark or ";", or at "and"/"also"/"as well as"
# followed by an interrogative or auxiliary verb
_EN_BOUNDARY = re.compile(
    rf"((?<=\?)\s+|\s*;\s*|,?\s+(?:and\s+also|and|also|as\s+well\s+as|plus)\s+(?={_EN_ASK}\b))",
    re.IGNORECASE,
)
_EN_LEAD = re.compile(r"^(?:and\s+also|and|also|plus|then|as\s+well\s+as)\s+", re.IGNORECASE)

_ZH_ASK = re.compile(
    r"什麼|什么|甚麼|多少|多久|多長|多长|幾|几|哪|誰|谁|如何|怎麼|怎么|怎樣|怎样|為什麼|为什么|"
    r"何時|何时|何處|何处|是否|能否|可否|可不可以|能不能|要不要|需不需要|有沒有|有没有|是不是"
)
_ZH_ENDS_ASK = re.compile(r"(?:嗎|吗|呢)$")
# a leading frame ("在什麼情況下，", "如果…的時候，") is part of the ask that follows it
_ZH_FRAME = re.compile(
    r"^(?:在|當|当|如果|若|假如|要是|對於|对于|根據|根据)|(?:時|时|的話|的话|下|後|后|前)$"
)
_ZH_BOUNDARY = re.compile(
    r"((?<=[？?])\s*|\s*[；;]\s*|\s*[，,、]\s*(?:另外|還有|还有|以及|並且|并且|而且|和|也)?\s*"
    r"|(?:以及|還有|还有|另外|並且|并且|和))"
)
_ZH_LEAD = re.compile(r"^(?:另外|還有|还有|以及|並且|并且|而且|和|也)")
_HAN = re.compile(r"[\u3400-\u9fff]")
_TRAILING = re.compile(r"[\s?？!！.。,，;；]+$")

# Words that say what is asked, not what about: a later part made only of these (and
# question words) names no topic of its own, and they are not carried over to it.
_ASK_TEXT = (
    "cost costs fee fees price prices charge charges pay much many long take takes need "
    "needs needed bring document documents paperwork papers required require requirement "
    "requirements necessary get apply application time times open hours office where wait "
    "processing process make book appointment go submit send help online person "
    "钱 费用 收费 价格 多久 时间 文件 材料 资料 证件 带 准备 需要 要 办理 申请 地点 "
    "花 几天 天 提交 交 送 费 线上 网上 现场 "
    # a pronoun points back at the first part's topic
    "he she they him her them his hers their theirs it its one ones "
    "他 她 它 他们 她们 它们 其"
)
_ASK_WORDS = frozenset(_ASK_TEXT.split())


@dataclass(frozen=True)
class Part:
    """One ask of a split question: `text` as written, `query` what is searched."""

    text: str
    query: str


def split_question(question: str) -> list[Part]:
    """The asks of a two- or three-part question; [] for a single question (or more than
    three asks, or any doubt): the single path answers it as before."""
    text = re.sub(r"\s+", " ", question).strip()
    if not text:
        return []
    chinese = bool(_HAN.search(text))
    pieces = _pieces(text, chinese)
    if not 2 <= len(pieces) <= MAX_PARTS:
        return []
    language = detect_language(text)
    first = pieces[0]
    return [Part(first, first)] + [Part(p, _with_topic(p, first, language)) for p in pieces[1:]]


def _pieces(text: str, chinese: bool) -> list[str]:
    """The text cut at each boundary where both sides are asks of their own."""
    boundary, lead = (_ZH_BOUNDARY, _ZH_LEAD) if chinese else (_EN_BOUNDARY, _EN_LEAD)
    cut = boundary.split(text)
    chunks, separators = cut[0::2], cut[1::2]
    parts = [chunks[0]]
    for separator, chunk in zip(separators, chunks[1:], strict=True):
        own = lead.sub("", chunk.strip())
        if _is_ask(parts[-1], chinese, first=len(parts) == 1) and _is_ask(own, chinese):
            parts.append(own)
        else:
            parts[-1] = parts[-1] + separator + chunk
    if len(parts) < 2:
        return parts
    # a part merged back may have stopped being an ask: check the final cut again
    if not all(_is_ask(p, chinese, first=i == 0) for i, p in enumerate(parts)):
        return [text]
    return [p.strip() for p in parts]


def _is_ask(piece: str, chinese: bool, first: bool = False) -> bool:
    """True when `piece` is a question of its own (see the module docstring)."""
    body = _TRAILING.sub("", piece.strip())
    if chinese:
        han = len(_HAN.findall(body))
        if han < MIN_CHARS_ZH or _ZH_FRAME.search(body):
            return False
        return bool(_ZH_ASK.search(body) or _ZH_ENDS_ASK.search(body))
    if len(body.split()) < MIN_WORDS_EN:
        return False
    # the first part may open with a lead-in ("I'm abroad, how do I ...")
    return bool(_EN_STARTS_ASK.match(body) or (first and _EN_WH.search(body)))


def _content(text: str) -> list[str]:
    """The words that say what a part is about (lower-case, Simplified; in order, once)."""
    stop = stopwords()
    words = re.findall(r"[A-Za-z][A-Za-z'-]*", text) if text.isascii() else keyword_tokens(text)
    found = [plain(w) for w in words]
    return list(
        dict.fromkeys(
            w for w in found if w not in stop and not QUESTION_WORDS.fullmatch(w) and len(w) > 1
        )
    )


def _with_topic(part: str, first: str, language: str) -> str:
    """The later part's search query: with the first part's topic words when it names
    no topic of its own."""
    own = _content(part)
    if any(w not in _ASK_WORDS for w in own):
        return part
    topic = [w for w in _content(first) if w not in _ASK_WORDS and w not in own]
    # jieba's search cut overlaps (许可, 许可证): the longer word is carried once
    carried = [w for w in topic if not any(w != o and w in o for o in topic)]
    if not carried:
        return part
    return f"{_TRAILING.sub('', part)} {' '.join(_as_written(w, first, language) for w in carried)}"


def _as_written(word: str, first: str, language: str) -> str:
    """`word` (Simplified, lower-case) as the first part wrote it: a script conversion
    of a lone word can go wrong (换发 → 換髮), the asker's own characters do not."""
    simple = plain(first)
    at = simple.find(word)
    if at >= 0 and len(simple) == len(first):
        return first[at : at + len(word)]
    return to_script(word, language)
