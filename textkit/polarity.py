"""What a claim says yes or no to: its polarity, read alike in English and Chinese.

Word overlap cannot tell "no evidence that you can catch it from a package" from "yes,
you can catch it from a package". A claim's yes/no must agree with the passage sentence
it rests on (see graph.citations): `negated` reads a text's, `clauses` and `statements`
cut it into the units polarity is read in, and `mixes_polarity` tells a claim setting a
yes against a no from a sentence that says nothing but no.
"""

from __future__ import annotations

import re

from textkit.scripts import plain
from textkit.tokens import keyword_tokens, stopwords

# English negation cues (whole words; "No. 5" is a number), and "n't" as in "isn't" ...
_EN_NEGATION = re.compile(
    r"\b(?:no(?!\.?\s*\d)|not|never|none|nobody|nothing|neither|nor|without|cannot|unable"
    # a prohibition is a "may not": "Smoking is prohibited" is "You may not smoke"
    r"|prohibit(?:s|ed|ing)?|forbid(?:s|den|ding)?|forbade|bann(?:ed|ing)|bans)\b|n't\b"
)
# ... minus phrases that hold one without negating ("no later than 30 June" is a deadline,
# "not more than 2", "cannot exceed 2", "not yet 18" limits, whose side textkit.bounds
# compares; "not just cash but also cards" says yes, unless a verb before it is negated:
# "You may not just park anywhere but must use the bays"; a prohibited thing is a thing)
_EN_NOT_NEGATION = re.compile(
    r"\b(?:not only|(?<!may )(?<!must )(?<!can )(?<!should )(?<!do )(?<!does )(?<!did )"
    r"not (?:just|merely|simply)(?=[^.;!?]*\b(?:but also|also|as well|too)\b)"
    r"|forbidden city"
    r"|(?:prohibited|banned|forbidden) (?:items?|goods|articles?|substances?|areas?|zones?)"
    r"|(?:not|cannot) exceed(?:s|ed|ing)?|not yet(?= \d)"
    r"|not (?:yet )?(?:reached|turned)(?= (?:the age of )?\d)"
    r"|not be (?:more|less|fewer|lower|higher|longer|shorter|older|younger) than"
    r"|no (?:later|earlier|more|less|fewer) than|not (?:later|earlier|more|less|fewer) than"
    r"|not exceeding"
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
    r"|(?<![北南东西])非(?!洲|裔|营利|盈利|政府|会员|居民|住户|工作人员|员工|吸烟区"
    r"|本[校市国地社楼公单院馆]|工作日|上班|紧急|必要"
    r"|专业|商业|住宅|典型|自愿|暴力|理性|正规|金属|传统)"
    r"|(?<=[切请])莫|莫(?=[要再入进忘碰停])"
    # a prohibition is a "may not" (禁止吸烟 is 不可吸烟), not 紫禁城, 监禁, 禁酒 (a temperance
    # movement), 禁食 ("fasting"), 禁止令 ("an injunction") nor 禁烟区 ("a no-smoking area")
    r"|严禁|禁止(?!令)|禁(?=[烟入行停用带携饮泳钓])(?![烟入行停用带携饮泳钓]区)"
    r"|(?<![性类区分特级个识辨差派告鉴有离道判甄辞送惜诀临兹职])别(?![人的处称名号墅具致针字样无儿失])"
)
# ... minus words that hold one without negating ("different", "very", "future", "special",
# "whether", "wireless", "barrier-free", "not bad", "real estate", "Africa", "regardless",
# "sex", "individual", "identify", "indispensable", "not only", "must", "extraordinary")
_ZH_NOT_NEGATION = re.compile(
    r"不同|不但|不仅|不论|不管|不过|不久|不少|不断|不停|不错|不然|不动产|无论|无线|无障碍"
    r"|非常|非洲|非但|非仅|非得|非凡|未来|否则|是否|能否|可否|除非|莫过于|特别|区别|分别|类别|级别"
    r"|别人|别的|没收"
    # "not only" (本店不只收现金，也收信用卡), "more than" (不止一次), "can't help" (不禁笑了),
    # and "under" a figure (未满18岁, 不满12岁, 不足5人, 不到10分钟: "under 18" holds no "not")
    # and "no more than" one (不超过2张): limits, whose side textkit.bounds compares
    r"|不只|不止(?=[\d一二两三四五六七八九十百千几数多])|不光(?![滑彩明亮])|不单(?!独)|不禁(?!止)|情不自禁"
    # the names of a ban ("Prohibition", an anti-opium campaign) and "life imprisonment"
    r"|禁[烟酒毒](?=令|运动|活动)|无期徒刑"
    # (not a verb's "can't": 订不到3月的门票 "can't book March's tickets")
    r"|(?<![找买看收听做办拿领订接用借抢搭赶等得])(?:未|不[得可能应宜]?)"
    r"(?:满|足|达|到|超过|多于|少于|高于|低于)(?=[\d〇零一二两三四五六七八九十百半])"
    # a ban named, not imposed ("the rules against parking", 禁止宦官干政的政策 "the policy
    # barring eunuchs"), and words whose 无/不 is the English "un-"/"im-" ("drone",
    # "unlicensed", "improper")
    r"|禁止[^，。；！？,.;!?]{1,8}的(?=规定|政策|法令|条例|措施)|禁止(?=(?:停车|吸烟)?(?:规定|行为))"
    r"|无人机|无人驾驶|无照|不当"
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
# a leading answer word: "Yes, ...", "No, ...", "是的，", "不，", "不是。"
_LEADING_ANSWER = re.compile(
    r"^\s*(yes|no(?!\.?\s*\d)|是的|是|对|不是|不|没有)\s*[,，.。!！:：;；]\s*"
)
_YES_WORDS = frozenset({"yes", "yeah", "是的", "对", "可以"})
_NEGATIVE_ANSWERS = frozenset({"no", "不是", "不", "没有"})

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
_CONJUNCT = re.compile(r"(?=\b(?:and|or|nor)\b)|(?=[也又亦且或])|(?<=[，、；;])|(?<=,)(?!\d)")
_MODIFIER_NEGATION = re.compile(
    r"\bwithout\b|\b(?<!note )(?<!sure )(?<!ensure )(?:that|who|which)\b[^,.;:!?]{0,25}?"
    r"(?:\b(?:not|no|never)\b|n't\b)|^\s*(?:and|or)\s+(?:not|never)\b"
    r"|(?<!是)[没无未][^，。；、,.;:!?的]{0,8}的(?=[\u4e00-\u9fff])"
    r"|即使|就算|哪怕|即便|纵使"
    # a condition: "If you do not have a permit, you cannot park" (with one, you can),
    # 如無預約，恕不接待; who it holds for: 凡未繳清費用者，不得借書
    r"|^\s*(?:if|unless|when|whenever)\b|如果|假如|若|倘若|要是|一旦|如(?=[无没未非不])"
    r"|^\s*凡|[没无未][^，。；！？,.;!?]{0,10}者[，,\s]*$"
)
# a piece that is only a lack ("没有预约" before "也不能进入": without one, you cannot), not
# one of a list of lacks (没有停车位也没有洗手间)
_BARE_LACK = re.compile(r"^[，,\s]*(没有|没|无|未)[^，。；！？,.;!?]{0,8}[，,\s]*$")


# a piece opening on a contrast states something of its own ("banned, but it remains
# lawful … which held that it did not violate …"): its "no" is not the one before it
_CONTRAST = re.compile(r"^[\s，,、；;]*(?:but|however|whereas|yet|although|though|但|然而|却|可是)")


# "No ID, no entry": a lack, then what it costs (a requirement, which says yes), unlike the
# list "No smoking, no food"
_BARE_NO = re.compile(r"^[\s,]*no \w+(?: \w+)?[\s,]*$")
_NO_OUTCOME = re.compile(
    r"^[\s,]*no (?:entry|admission|access|service|refunds?|sale|boarding|exceptions?)\b"
)


def _blocks_join(before: str, after: str) -> bool:
    """True when two negated pieces do not say one "no" together (see `_CONJUNCT`)."""
    if _MODIFIER_NEGATION.search(before) or _MODIFIER_NEGATION.search(after):
        return True
    if _BARE_NO.match(before) and _NO_OUTCOME.match(after) and not _NO_OUTCOME.match(before):
        return True
    if _CONTRAST.match(after):
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
    may not park" set off a phrase, not a statement. A claim saying "only" where its
    quote says "not only" (本店不只收現金 → "The shop only takes cash") is read as
    mixing them too: the quote's "not only" is no negation."""
    if _NOT_ONLY.search(_normal(quote)) and _ONLY.search(_NOT_ONLY.sub(" ", _normal(claim))):
        return True
    if not says_no_throughout(quote):
        return False
    pieces = _pieces(claim)
    says_no = any(_count(p) % 2 for p in pieces)
    says_yes = any(not _count(p) and len(_content_words(p)) >= 2 for p in pieces)
    return (says_no and says_yes) or len({negated(s) for s in statements(claim)}) > 1


# "not only" and "only" (只 as "only", not the measure word of 一只 nor 只要 "as long as")
_NOT_ONLY = re.compile(r"\bnot (?:only|just|merely|simply)\b|不只|不仅|不光|不单(?!独)|不止")
_ONLY = re.compile(
    r"(?<!\bnot )\b(?:only|solely|just)\b|(?<![不一二两三四五六七八九十几每这那\d])只(?!要)"
    r"|(?<!不)仅|唯有"
)
_FIGURE = re.compile(r"\d+(?:[.,]\d+)*")  # a number, which names nothing
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
        and not _FIGURE.fullmatch(t)
        and not _count(t)
    }
