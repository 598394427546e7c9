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

from textkit.answer_type import without_kind_words
from textkit.question_words import QUESTION_WORDS
from textkit.scripts import detect_language, plain, to_script
from textkit.tokens import keyword_tokens, stopwords
from textkit.validity import without_validity_words

MAX_PARTS = 3
MIN_WORDS_EN = 3  # "and when?" is too short to search on its own
MIN_CHARS_ZH = 4  # 要多少錢

_EN_ASK = (
    r"(?:what|how|when|where|which|who|whom|whose|why|is|are|was|were|do|does|did|can|"
    r"could|will|would|should|shall|may|must|have|has|am)"
)
_EN_WH = re.compile(r"\b(?:what|how|when|where|which|who|whom|whose|why)\b", re.IGNORECASE)
# a later ask opens with a question word, or an auxiliary before its subject ("do I",
# "can children"): "... and must undertake the project" continues the same ask
_EN_STARTS_ASK = re.compile(
    # a question word not followed straight by a subject ("when I am not logged in"
    # is a clause of the same ask, "when is the office open" a new one)
    r"^(?:(?:what|how|when|where|which|who|whom|whose|why)\b(?!\s+(?:i|you|we|they|he|she)\b)"
    r"|(?:is|are|was|were|do|does|did|can|could|will|would|should)"
    r"\s+(?:i|you|we|they|he|she|it|there|the|a|an|my|your|our|their|his|her|its|this|that|"
    r"these|those|someone|anyone|somebody|anybody|people|children|everyone|one)\b"
    r"|(?:have|has|may|must|shall|am)\s+(?:i|you|we|they|he|she|it|there)\b)",
    re.IGNORECASE,
)
# where a new ask may begin: after a question mark or ";", or at "and"/"also"/"as well as"
# followed by an interrogative or auxiliary verb
_EN_BOUNDARY = re.compile(
    rf"((?<=\?)\s+|\s*;\s*|,?\s+(?:and\s+also|and|also|as\s+well\s+as|plus)\s+(?={_EN_ASK}\b))",
    re.IGNORECASE,
)
_EN_LEAD = re.compile(r"^(?:and\s+also|and|also|plus|then|as\s+well\s+as)\s+", re.IGNORECASE)

# 幾 asks a number (幾天, 幾個) but not in 幾乎 (almost), 幾何 (geometry), 幾千
# (thousands) or 不同的幾部 (several)
_ZH_ASK = re.compile(
    r"什麼|什么|甚麼|多少|多久|多長|多长|(?<![的這这那好十])(?:幾|几)(?![乎何千百十萬万億亿])|哪|誰|谁|如何|怎麼|"
    r"怎么|怎樣|怎样|為什麼|为什么|何時|何时|何處|何处|是否|能否|可否|可不可以|能不能|要不要|"
    r"需不需要|有沒有|有没有|是不是"
)
# "沒什麼" (nothing), "什麼都" (anything): no question
_ZH_NOT_ASK = re.compile(r"沒什麼|没什么|沒有什麼|没有什么|什麼都|什么都|不管|無論|无论")
_ZH_QUOTED = re.compile(r"「[^」]*」|“[^”]*”|『[^』]*』")
_ZH_ENDS_ASK = re.compile(r"(?:嗎|吗|呢)$")
# a leading frame ("在什麼情況下，", "如果…的時候，", "北朝幾個朝代中，") is part of the
# ask that follows it
_ZH_FRAME = re.compile(
    r"^(?:在|當|当|如果|若|假如|要是|對於|对于|根據|根据)"
    r"|(?:時|时|的話|的话|下|後|后|前|中|裡|里|來|来|以來|以来)$"
)
# a clause going on from the one before ("但…", "而不是…", "並每隔幾天…", "又稱為…")
_ZH_GOES_ON = re.compile(
    r"^(?:但|而|並(?!且)|并(?!且)|即|又|才|卻|却|且|所以|因此|使|讓|让|以|其|"
    r"(?:為|为)(?!什麼|什么|何))"
)
# interrogatives joined by a bare 和/以及 ("如何以及何時進入歐洲") ask one thing
_ZH_ENDS_WH = re.compile(
    r"(?:如何|何時|何时|為何|为何|怎麼|怎么|怎樣|怎样|什麼|什么|哪裡|哪里|誰|谁)$"
)
_ZH_PUNCT = re.compile(r"[？?；;，,、]")
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
    "processing process make book appointment go submit send help online person have has "
    "钱 费用 收费 价格 多久 时间 文件 材料 资料 证件 带 准备 需要 要 办理 申请 地点 "
    "花 几天 天 提交 交 送 费 线上 网上 现场 时候 几点 开门 关门 营业 开放 "
    # a pronoun points back at the first part's topic
    "he she they him her them his hers their theirs it its one ones "
    "他 她 它 他们 她们 它们 其"
)
_ASK_WORDS = frozenset(_ASK_TEXT.split())
_POINTS_BACK = re.compile(r"\b(?:it|its|they|them|one)\b|它|其|那個|那个", re.IGNORECASE)


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
        if _joins(parts[-1], separator, own, chinese, first=len(parts) == 1):
            parts.append(own)
        else:
            parts[-1] = parts[-1] + separator + chunk
    if len(parts) < 2:
        return parts
    # a part merged back may have stopped being an ask: check the final cut again
    if not all(_is_ask(p, chinese, first=i == 0) for i, p in enumerate(parts)):
        return [text]
    return [p.strip() for p in parts]


def _joins(left: str, separator: str, right: str, chinese: bool, first: bool) -> bool:
    """True when `separator` ends one ask and starts another."""
    if not (_is_ask(left, chinese, first) and _is_ask(right, chinese)):
        return False
    if not chinese:
        return True
    if _ZH_GOES_ON.match(right):
        return False
    bare = not _ZH_PUNCT.search(separator)
    return not (bare and _ZH_ENDS_WH.search(_TRAILING.sub("", left)))


def _is_ask(piece: str, chinese: bool, first: bool = False) -> bool:
    """True when `piece` is a question of its own (see the module docstring)."""
    body = _TRAILING.sub("", piece.strip())
    if chinese:
        han = len(_HAN.findall(_ZH_QUOTED.sub("", body)))
        if han < MIN_CHARS_ZH or _ZH_FRAME.search(body):
            return False
        # a quotation's question is not the asker's
        asks = _ZH_ASK.search(_ZH_NOT_ASK.sub("", _ZH_QUOTED.sub("", body)))
        return bool(asks or _ZH_ENDS_ASK.search(body))
    if len(body.split()) < MIN_WORDS_EN:
        return False
    # the first part may open with a lead-in ("I'm abroad, how do I ...")
    if first:
        return bool(re.match(rf"{_EN_ASK}\b", body, re.IGNORECASE) or _EN_WH.search(body))
    return bool(_EN_STARTS_ASK.match(body))


def _content(text: str) -> list[str]:
    """The words that say what a part is about (lower-case, Simplified; in order, once)."""
    stop = stopwords()
    # English words as written; a contraction ("it's", "I'm") names nothing
    words = re.findall(r"[A-Za-z][A-Za-z'-]*", text) if text.isascii() else keyword_tokens(text)
    words = [w for w in words if "'" not in w]
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
    # a pronoun ("is it paid?") points back at the first part's topic whatever else it says
    points_back = bool(_POINTS_BACK.search(part))
    if not points_back and any(w not in _ASK_WORDS for w in own):
        return part
    carried = _topic_words(first, own, language)
    return f"{_TRAILING.sub('', part)} {' '.join(carried)}" if carried else part


def _topic_words(first: str, own: list[str], language: str) -> list[str]:
    """The words naming what `first` asks about that a later ask lacks (not in `own`), as
    `first` writes them."""
    # a word asking the first part's kind ("fee", "closing", 多久) names no topic: carried,
    # it would make the later part ask that kind too
    topic = [
        w
        for w in _content(first)
        if w not in _ASK_WORDS
        and w not in own
        and without_kind_words(plain(w)).strip()
        and without_validity_words(plain(w)).strip()  # "valid" asks a kind of duration
    ]
    # jieba's search cut overlaps (许可, 许可证): the longer word is carried once
    carried = [w for w in topic if not any(w != o and w in o for o in topic)]
    return [_as_written(w, first, language) for w in carried]


def names_no_topic(text: str) -> bool:
    """True when every word of `text` says what is asked ("要多少錢？", "how long does it
    take?", 幾點開門？), none what about: the thing asked about was named before."""
    return all(w in _ASK_WORDS for w in _content(text))


def asked_of_topic(ask: str, earlier: str) -> str:
    """An ask naming no thing of its own ("how much?", "要多少錢？") followed by the words
    naming what `earlier` asked about ("how much? renew passport"): its own words first,
    so what it asks (a price) is read from them, not from the earlier question's "how"."""
    # a lead ("Then how do I …", 還有…) says how the earlier one followed, not what about
    lead = _ZH_LEAD if _HAN.search(earlier) else _EN_LEAD
    earlier = lead.sub("", earlier.strip())
    carried = _topic_words(earlier, _content(ask), detect_language(earlier))
    return f"{ask.strip()} {' '.join(carried)}" if carried else f"{earlier} {ask}".strip()


def _as_written(word: str, first: str, language: str) -> str:
    """`word` (Simplified, lower-case) as the first part wrote it: a script conversion
    of a lone word can go wrong (换发 → 換髮), the asker's own characters do not."""
    simple = plain(first)
    at = simple.find(word)
    if at >= 0 and len(simple) == len(first):
        return first[at : at + len(word)]
    return to_script(word, language)
