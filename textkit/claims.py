"""What a claim commits to beyond its words: the numbers it states and its yes/no polarity.

Word overlap cannot tell "no evidence that you can catch it from a package"
from "yes, you can catch it from a package", nor $100 from $130 when both are
in the passage. These are the parts of a sentence that must agree with the
passage sentence it rests on (see graph.citations).
"""

from __future__ import annotations

import re

from textkit.scripts import plain
from textkit.tokens import keyword_tokens, stopwords

_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
# English negation cues (whole words; "No. 5" is a number), and "n't" as in "isn't" ...
_EN_NEGATION = re.compile(
    r"\b(?:no(?!\.?\s*\d)|not|never|none|nobody|nothing|neither|nor|without|cannot|unable)\b|n't\b"
)
# ... minus phrases that hold one without negating ("no later than 30 June" is a deadline)
_EN_NOT_NEGATION = re.compile(
    r"\b(?:not only|no (?:later|earlier|more|less|fewer) than|not (?:later|earlier) than"
    r"|nothing but|no matter|(?:at |for |with )?no (?:extra |additional )?(?:charge|cost|fee)s?"
    r"|free of charge)\b"
)
# Chinese negations (the text is Simplified by `plain`): 不 无 未 勿 and 没 (not the 没 of
# 淹没 "flooded", 沉没 "sunk", nor 出没 "haunt" but 出没有); 否 "no" (not 否决 "veto",
# 否认 "deny", 否定: words that English says without a "not"); 非 (not in a name, 北非,
# 索非亚, 非裔, nor as the prefix "non-" of 非营利, 非会员, 非居民 …: English says
# "non-members" with no "not"); 别 "don't" (not in 性别 "sex", 区别, 别称 "alias", 别无
# "no other" …); 莫 "do not" only as 切莫, 请莫, 莫要, 莫入 … (elsewhere a name: 莫斯科,
# 莫高窟) ...
_ZH_NEGATION = re.compile(
    r"[不无未勿]|(?<![淹埋沉覆吞湮隐出])没|(?<=出)没(?=有)|否(?![决认定])"
    r"|(?<![北南东西])非(?!洲|裔|营利|盈利|政府|会员|居民|本[校市国地]|工作日|上班|紧急|必要"
    r"|专业|商业|住宅|典型|自愿|暴力|理性|正规|金属|传统)"
    r"|(?<=[切请])莫|莫(?=[要再入进忘碰停])"
    r"|(?<![性类区分特级个识辨差派告鉴有离道判甄辞送惜诀临兹职])别(?![人的处称名号墅具致针字样无儿失])"
)
# ... minus words that hold one without negating ("different", "very", "future", "special",
# "whether", "wireless", "barrier-free", "not bad", "real estate", "Africa", "regardless",
# "sex", "individual", "identify", "indispensable", "not only", "must", "extraordinary")
_ZH_NOT_NEGATION = re.compile(
    r"不同|不但|不仅|不论|不管|不过|不久|不少|不断|不停|不错|不然|不动产|无论|无线|无障碍"
    r"|非常|非洲|非但|非仅|非得|非凡|未来|否则|是否|能否|可否|除非|莫过于|特别|区别|分别|类别|级别"
    r"|别人|别的|没收"
    r"|性别|个别|识别|辨别|差别|派别|告别|鉴别|有别|不可或缺|索非亚"
    # "regardless of" sex, age, day or night (not 不分享 "does not share")
    r"|不分(?=[男女老幼昼夜日夜先后大小国籍年龄种族宗教贵贱性])"
    # "unprecedented", "attempted" (murder), a year of the sexagenary cycle (乙未年)
    r"|前所未有|前所未见|未遂|(?<=[甲乙丙丁戊己庚辛壬癸])未(?=年|战)"
    # "whether or not" (成功与否), "whether" (会否)
    r"|与否|会否|有否"
    # "costs nothing" is "free", not "no"
    r"|不用钱|不用付费|不用付钱|不收费|不需付费|无需付费|不必付费|无须付费|不另收费"
    # nouns and adjectives whose 不/无/非/未 is part of the word, as "in-" and "un-" are of
    # "inequality" and "unfair" (an English claim on them holds no "not"): "reduced
    # inequality" is what "减少了不平等" says
    # — each only where it is that word: 不公 not in 不公开 ("not public"), 非法 not in 并非法定
    # ("is not statutory"), 无限 not in 无限制 ("no limit"), 不利 not in 不利用 ("does not use"),
    # 无数 not in 无数据 ("no data"), 不便 not in 不便宜 ("not cheap")
    r"|不平等|不公(?=平|正|道)|不良|不便(?!宜)|不幸|不法(?!定)|不利(?!用)|不稳定"
    r"|无数(?![据字码])|无限(?![制期])|(?<![并绝决亦])非法(?![定律人])|非正式|未成年"
)
# Chinese numerals: a run of them reads as one number ("一千三百" is 1300)
_ZH_DIGITS = {
    "零": 0,
    "〇": 0,
    "一": 1,
    "二": 2,
    "两": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}
_ZH_UNITS = {"十": 10, "百": 100, "千": 1000}
_ZH_NUMERAL_RUN = re.compile(
    r"[零〇一二两三四五六七八九十百千万亿]{2,}|[一二两三四五六七八九十](?=[元年月日天个人岁次张册本周号位项份件条间页])"
    # ("一" is "a" before these: "一点" is also "a little")
    r"|[二两三四五六七八九十](?=[点时分秒小倍楼层题米只台辆名户成折星礼])"
    r"|(?<=第)[一二两三四五六七八九十]"  # an ordinal: 第二 is 2 ("Terminal 2")
)
# English ordinal words: no number of their own ("first, fill in the form"), but the
# number a Chinese ordinal states (第二 is 2) when a claim translates one
_EN_ORDINALS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6,
    "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10,
}  # fmt: skip
_EN_ORDINAL = re.compile(r"\b(" + "|".join(_EN_ORDINALS) + r")\b")
# the unit of time: "seconds", "per second", "wait a second", "a second later"
_TIME_SECOND = re.compile(
    r"\bseconds\b|\bper second\b|\b(?:a|one|each) second\b(?=\s*(?:[.,;:!?)]|$|later\b|ago\b|or\b))"
)
_ZH_ORDINAL = re.compile(
    r"第\s*(\d+(?:,\d{3})*|[零〇一二两兩三四五六七八九十百千壹贰貳叁參肆伍陆陸柒捌玖拾佰仟]+)"
)
# "May" is a month when capitalised within a sentence ("filed in May"), a verb otherwise
_MAY = re.compile(r"(?<=\w )May\b")
_ONE_UNIT = re.compile(r"\bone-(?:year|month|week|day|hour|time|off|way)")
# financial numerals (壹仟參佰 is 一千三百; the text is Simplified by `plain`)
_ZH_FINANCIAL = str.maketrans("壹贰貳叁参肆伍陆柒捌玖拾佰仟", "一二二三三四五六七八九十百千")
# English number words, and month names (a date's month is one of its numbers)
_EN_WORDS = {
    "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
    "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
    "eighty": 80, "ninety": 90, "one": 1,
}  # fmt: skip
_EN_SCALES = {"hundred": 100, "thousand": 1000, "million": 1_000_000}
_SCALE_OF = {**_EN_SCALES, "billion": 1_000_000_000, "万": 10_000, "亿": 100_000_000}
_SCALED = re.compile(r"(\d{1,12}(?:[.,]\d+)?)\s*(hundred|thousand|million|billion|万|亿)")
_EN_NUMBER_RUN = re.compile(
    r"\b(?:(?:" + "|".join([*_EN_WORDS, *_EN_SCALES]) + r")(?:[\s-]+(?:and\s+)?|\b))+",
)
# a month name is its number ("may" is left out: "you may apply" is no date)
_MONTHS = {
    "january": "1", "february": "2", "march": "3", "april": "4", "june": "6", "july": "7",
    "august": "8", "september": "9", "october": "10", "november": "11", "december": "12",
}  # fmt: skip
_MONTH = re.compile(r"\b(" + "|".join(_MONTHS) + r")\b")
# short month names beside a day or a year ("30 May 2025", "Jun 30"): "may" alone is a verb
_SHORT_MONTHS = {m[:3]: n for m, n in _MONTHS.items()} | {"sept": "9", "may": "5"}
_SHORT_MONTH = re.compile(
    r"\b(" + "|".join(_SHORT_MONTHS) + r")\.?(?= \d)|(?<=\d )(" + "|".join(_SHORT_MONTHS) + r")\b"
)
# a leading answer word: "Yes, ...", "No, ...", "是的，", "不，", "不是。"
_LEADING_ANSWER = re.compile(
    r"^\s*(yes|no(?!\.?\s*\d)|是的|是|对|不是|不|没有)\s*[,，.。!！:：;；]\s*"
)
_YES_WORDS = frozenset({"yes", "yeah", "是的", "对", "可以"})
_NEGATIVE_ANSWERS = frozenset({"no", "不是", "不", "没有"})


def numbers(text: str) -> set[str]:
    """The numbers in `text`, written alike: "1,300", "1300", "1,300.00", "一千三百" and
    "thirteen hundred" are one; "2.50" is "2.5"; a month name is its number ("June": 6)."""
    norm = plain(text).translate(_ZH_FINANCIAL)
    out = set()
    if _MAY.search(text):
        out.add("5")
    if _ONE_UNIT.search(norm):  # "a one-year warranty" states a figure
        out.add("1")
    for amount, scale in _SCALED.findall(norm):  # "3 million", "1.5 thousand", "3亿"
        value = float(amount.replace(",", "")) * _SCALE_OF[scale]
        out.add(str(value).removesuffix(".0"))
    norm = _SCALED.sub(" ", norm)  # read once: not "3" and "million" as well
    for raw in _NUMBER.findall(norm):
        if re.fullmatch(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?", raw):  # thousands separators
            raw = raw.replace(",", "")
        raw = raw.rstrip(".,")
        if len(raw) <= 30 and re.fullmatch(r"\d+(?:\.\d+)?", raw):  # (a serial stays text)
            raw = str(float(raw)).removesuffix(".0") if "." in raw else str(int(raw))
        out.add(raw)
    out |= {str(n) for n in map(_zh_number, _ZH_NUMERAL_RUN.findall(norm)) if n is not None}
    for run in _EN_NUMBER_RUN.findall(norm):
        words = [w for w in re.split(r"[\s-]+", run.strip()) if w and w != "and"]
        if words and words != ["one"]:  # "one of the forms" is no figure
            out.add(str(_en_number(words)))
    out |= {_MONTHS[m] for m in _MONTH.findall(norm)}
    out |= {_SHORT_MONTHS[a or b] for a, b in _SHORT_MONTH.findall(norm)}
    return out


def chinese_ordinals(text: str) -> tuple[str, set[str]]:
    """The text with its Chinese ordinals (第二大, 第2名) blanked, and their numbers
    written as `numbers` writes them: `numbers` reads 第二 as 2, while the English
    ordinal word it may be translated from ("second") is no number."""
    found: set[str] = set()
    for written in _ZH_ORDINAL.findall(text):
        run = plain(written).translate(_ZH_FINANCIAL).replace(",", "")
        value = int(run) if run.isdigit() else _zh_number(run)
        if value is not None:
            found.add(str(value))
    # blanked in the text as written: `numbers` reads a capitalised "May" as a month
    return _ZH_ORDINAL.sub(" ", text), found


def ordinal_words(text: str) -> set[str]:
    """The numbers English ordinal words state ("second-largest", "ranks third": 2, 3;
    "wait a second", "30 seconds" none)."""
    norm = _TIME_SECOND.sub(" ", plain(text))
    return {str(_EN_ORDINALS[w]) for w in _EN_ORDINAL.findall(norm)}


def _zh_number(run: str) -> int | None:
    """A run of Chinese numerals as a number (None when it is not one)."""
    if all(ch in _ZH_DIGITS for ch in run):  # digits in a row ("二〇二五"): read as written
        return int("".join(str(_ZH_DIGITS[c]) for c in run)) if len(run) <= 30 else None
    total, big, section, digit = 0, 0, 0, None
    for ch in run:
        if ch in _ZH_DIGITS:
            digit = _ZH_DIGITS[ch]
        elif ch in _ZH_UNITS:
            section += (1 if digit is None else digit) * _ZH_UNITS[ch]
            digit = None
        elif ch == "万":
            total += max(section + (digit or 0), 1) * 10_000
            section, digit = 0, None
        elif ch == "亿":
            big += max(total + section + (digit or 0), 1) * 100_000_000
            total, section, digit = 0, 0, None
    return big + total + section + (digit or 0)


def _en_number(words: list[str]) -> int:
    total, current = 0, 0
    for word in words:
        if word in _EN_WORDS:
            current += _EN_WORDS[word]
        elif word == "hundred":
            current = max(current, 1) * 100
        else:
            total += max(current, 1) * _EN_SCALES[word]
            current = 0
    return total + current


# typographic apostrophes as the ASCII one: "can’t" is "can't" (a model, an editor or a
# word processor writes the curly one)
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'"})


def _normal(text: str) -> str:
    """The text as the negation cues are read in: `plain`, any apostrophe as "'"."""
    return plain(text).translate(_APOSTROPHES)


# 非…不可 "must" (非本人领取不可。): two negations that make a yes whatever stands between
# them, 不可 ending the clause (非会员不可使用 is "non-members may not use")
_MUST = re.compile(r"非([^，。；！？,.;!?]{1,12})不可(?=$|[，。；！？,.;!?\s])")


def _cues(norm: str) -> int:
    """The negation cues of text already `_normal`."""
    return _count(_without_false_cues(norm))


def _without_false_cues(norm: str) -> str:
    """Text already `_normal` less the phrases holding a cue without saying no ("no later
    than", 不同, 非…不可)."""
    return _ZH_NOT_NEGATION.sub("", _MUST.sub(r"\1", _EN_NOT_NEGATION.sub(" ", norm)))


def _count(cleaned: str) -> int:
    return len(_EN_NEGATION.findall(cleaned)) + len(_ZH_NEGATION.findall(cleaned))


# Negations joined by "and", "or", "nor", 也, 又, 亦, 且, 或 say one "no", not two that
# cancel: "Neither residents nor visitors may park", "Refunds are not given and exchanges
# are not possible", 既不收现金也不收支票. A text is cut before each such word and negated
# pieces with only pieces saying nothing either way between them count once, unless one
# negates a modifier or a condition ("without a ticket", "sites that don't have a map",
# 没有预约的人, 即使没有预约, a bare 没有预约 before 也) or is a bare "and not"
# (a requirement, which says yes: "No one may enter without a permit", "You cannot park
# here and not pay": a permit lets you in, parking costs).
_CONJUNCT = re.compile(r"(?=\b(?:and|or|nor)\b)|(?=[也又亦且或])")
_MODIFIER_NEGATION = re.compile(
    r"\bwithout\b|\b(?<!note )(?<!sure )(?<!ensure )(?:that|who|which)\b[^,.;:!?]{0,25}?"
    r"(?:\b(?:not|no|never)\b|n't\b)|^\s*(?:and|or)\s+(?:not|never)\b"
    r"|(?<!是)[没无未][^，。；、,.;:!?的]{0,8}的(?=[\u4e00-\u9fff])"
    r"|即使|就算|哪怕|即便|纵使"
)
# a piece that is only a lack ("没有预约" before "也不能进入": without one, you cannot), not
# one of a list of lacks (没有停车位也没有洗手间)
_BARE_LACK = re.compile(r"^[，,\s]*(没有|没|无|未)[^，。；！？,.;!?]{0,8}[，,\s]*$")


def _blocks_join(before: str, after: str) -> bool:
    """True when two negated pieces do not say one "no" together (see `_CONJUNCT`)."""
    if _MODIFIER_NEGATION.search(before) or _MODIFIER_NEGATION.search(after):
        return True
    lack = _BARE_LACK.match(before)
    return lack is not None and not after.lstrip("也又亦且 ").startswith(lack.group(1))


def _negations(norm: str) -> int:
    """The negations of text already `_normal`: its cues, a run of negated conjuncts
    counted as one (see `_CONJUNCT`)."""
    # the phrases go first: 不可或缺 ("indispensable") is no 不可 cut before its 或
    pieces = [p for p in _CONJUNCT.split(_without_false_cues(norm)) if p]
    counts = [_count(p) for p in pieces]
    joined = 0
    previous = -1  # the last negated piece, pieces without a cue between
    for i, count in enumerate(counts):
        if not count:
            continue
        if (
            previous >= 0
            and count % 2
            and counts[previous] % 2
            and not _blocks_join(pieces[previous], pieces[i])
        ):
            joined += 1
        previous = i
    return sum(counts) - joined


def is_polarity_word(word: str) -> bool:
    """True for a word that only says yes or no: "yes", "not", "不", "没有", "是的"."""
    norm = _normal(word)
    return _cues(norm) > 0 or norm in _YES_WORDS


def negated(text: str) -> bool:
    """True when `text` says no: an odd number of negations in its body (two that cancel
    make a yes: "not impossible", 不得不; coordinated ones count once: "neither A nor
    B"), or, with none, a leading "No," (a leading "Yes,"/"No," only echoes the body when
    the body says it)."""
    norm = _normal(text)
    match = _LEADING_ANSWER.match(norm)
    body = norm[match.end() :] if match else norm
    cues = _negations(body)
    if cues:
        return cues % 2 == 1
    return match is not None and match.group(1) in _NEGATIVE_ANSWERS


# a comma between digits ("1,300") is part of a number, not a clause break
_CLAUSE_BREAK = re.compile(r"(?<!\d),|,(?!\d)|[;:，；：、]|\bbut\b|\bhowever\b|但是|然而")


def clauses(text: str) -> list[str]:
    """`text` cut at commas, semicolons, colons and "but": the units polarity is read in."""
    parts = _CLAUSE_BREAK.split(text)
    return [p.strip() for p in parts if p.strip()]


# where one statement ends and another begins: a semicolon, or a contrast ("but", 但, 却)
# ("while" and "yet" are left out: "not while driving", "not yet"; 但 is not 不但's)
_STATEMENT_BREAK = re.compile(
    r"[;；]|[,，]?\s*\b(?:but|however|whereas)\b|[,，]?\s*(?:(?<!不)但是?|然而|却)"
)
# the finest cut of a text for `says_no_throughout`: clauses, statements and conjuncts
# (read after `_without_false_cues`, so 不但 is gone and 但 is always "but")
_ANY_BREAK = re.compile(
    rf"{_CLAUSE_BREAK.pattern}|\b(?:whereas|while)\b|但|却|而|{_CONJUNCT.pattern}"
)


def _pieces(text: str) -> list[str]:
    """`text` read for its negations (`_normal`, less false cues) and cut by `_ANY_BREAK`."""
    return [p for p in _ANY_BREAK.split(_without_false_cues(_normal(text))) if p]


def statements(text: str) -> list[str]:
    """`text` cut where one statement ends and another begins (a semicolon, a contrast:
    "Refunds are not given, but exchanges are possible"), not at a comma that only sets
    off a phrase ("After 30 days, refunds are not given")."""
    parts = _STATEMENT_BREAK.split(plain(text))
    return [p.strip(" ,，.。") for p in parts if p.strip(" ,，.。")]


def says_no_throughout(text: str) -> bool:
    """True when `text` joins two or more negations and says nothing but no: "Neither
    residents nor visitors may park", 既不收现金也不收支票 (cut at every clause,
    contrast and conjunction, each piece holding a word says no)."""
    counts = [_count(p) for p in _pieces(text) if re.search(r"\w", p)]
    return sum(c % 2 for c in counts) >= 2 and all(c % 2 for c in counts)


def mixes_polarity(claim: str, quote: str) -> bool:
    """True when `claim` sets a statement saying yes against one saying no ("takes cash,
    not cheques", "Residents may park here and visitors may not") and `quote` joins
    negations and says nothing but no (既不收现金也不收支票): read whole, each says no
    once, yet the quote holds no yes. (Before negations joined counted once, parity read
    such a quote as yes.) A piece of the claim says yes when it holds two content words
    and no negation: "After 30 days, refunds are not given" and "Residents and visitors
    may not park" set off a phrase, not a statement."""
    if not says_no_throughout(quote):
        return False
    pieces = _pieces(claim)
    says_no = any(_count(p) % 2 for p in pieces)
    says_yes = any(not _count(p) and len(_content_words(p)) >= 2 for p in pieces)
    return (says_no and says_yes) or len({negated(s) for s in statements(claim)}) > 1


# words that open a phrase set off before a statement ("After 30 days, …")
_PHRASE_OPENERS = frozenset(
    {"after", "before", "during", "until", "within", "since", "from", "between", "upon"}
)


def _content_words(piece: str) -> set[str]:
    """A piece's words that name something: no stopword, number, negation or preposition."""
    return {
        t
        for t in keyword_tokens(piece)
        if t not in stopwords()
        and t not in _PHRASE_OPENERS
        and not _NUMBER.fullmatch(t)
        and not _count(t)
    }
