"""Which side of a figure a text states: "under 12" against "over 12", 未滿18歲 against 18歲以上.

A claim may translate its sentence's figure, but not turn a limit round: "Children over 12
travel free" on 未滿12歲兒童免費 holds the sentence's 12 and no "not", and across languages
no word of it is compared. `number_sides` reads, for each figure a text bounds, whether it
is a floor ("over", "at least", 以上, 年滿, 超過) or a ceiling ("under", "up to", 以下, 未滿,
不足); `turned_round` tells a claim that gives a figure the other side from its sentence.
A figure either text states without a side ("12") is not judged: dropping a limit is not
turning it round.
"""

from __future__ import annotations

import re

from textkit.claims import chinese_number, numbers
from textkit.scripts import plain

# a figure as the markers read it: digits, Chinese numerals, or English number words
_FIGURE = (
    r"(?:\d[\d,.]*|[零〇一二两三四五六七八九十百千万]+(?![般些样直定切起同再度旦向])"
    r"|(?:(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen"
    r"|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty"
    r"|sixty|seventy|eighty|ninety|hundred|thousand|million)[\s-]*)+)"
)
# what may stand between a figure and a marker after it: a unit ("18 years old", 18周岁);
# between 最多/至少 and the figure, a verb of a limit (最多可坐300人, 至少需要3天)
_EN_UNIT = (
    r"(?:\s+(?:years?|yrs?|months?|weeks?|days?|hours?|minutes?|people|persons?|kg|km"
    r"|old|of age)){0,3}"
)
_ZH_UNIT = r"(?:个工作天|[^\d\s，。；！？,.;!?()]{0,2}?)"

_CEILING_BEFORE = (
    r"\b(?:under|below|younger than|up to|at most|not exceeding|maximum of|maximum"
    r"|(?:no|not|not be) (?:more|longer|later) than|(?:not|cannot) exceed(?:s|ed|ing)?"
    r"|not yet|not (?:yet )?(?:reached|turned)|shorter than|lighter than"
    r"|(?<!no )(?<!not )(?:less|fewer) than)[\s-]+(?:the age of\s+)?"
    r"|(?:未满|不满|不足|不到|未达|不[得可能应宜]?超过|未超过|不多于|不高于"
    r"|(?<![不未])(?:低于|少于|小于))"
    r"|(?:至多|最多)(?:[可能需要得申请购买坐容纳载借]{1,3})?"
)
_FLOOR_BEFORE = (
    r"\b(?:over|above|older than|at least|minimum of|upwards of|in excess of|exceeding"
    r"|minimum|taller than|heavier than|longer than"
    r"|(?:no|not|not be) (?:less|fewer|lower|shorter) than"
    r"|(?<!no )(?<!not )(?<!be )more than)[\s-]+(?:the age of\s+)?"
    # (not 不得超过, nor the 多于 of 多伦多于2006年, the 满 of 期满 "on expiry")
    r"|(?:不少于|不低于|(?<!不[得可能应宜])(?<![不未])(?:超过|高于|(?<!多伦)多于|大于|逾)"
    r"|(?<![不未期届])满)"
    r"|(?:至少|最少)(?:[可能需要得申请购买坐容纳载借]{1,3})?"
)
# a ceiling after the figure: "12 and under" (not the range "6 and under 12"), "2 at
# most", 12岁以下, 65岁(含)以下, 7日内
_CEILING_AFTER = (
    rf"{_EN_UNIT}\s+(?:(?:and|or)\s+(?:under|below|younger|less|fewer)\b(?!\s*\d)"
    r"|at (?:the )?most\b)"
    rf"|{_ZH_UNIT}(?:\(含\))?(?:或)?(?:以下|以内|之内)|(?:个工作天|[日天周]|个月|小时|分钟)内"
)
_FLOOR_AFTER = (
    rf"{_EN_UNIT}\s+(?:(?:and|or)\s+(?:over|above|older|taller|more|up)\b|at least\b)|\+"
    rf"|{_ZH_UNIT}(?:\(含\))?(?:或)?(?:以上|之上)"
)
_SIDES = (
    ("ceiling", re.compile(f"(?:{_CEILING_BEFORE})({_FIGURE})|({_FIGURE})(?:{_CEILING_AFTER})")),
    ("floor", re.compile(f"(?:{_FLOOR_BEFORE})({_FIGURE})|({_FIGURE})(?:{_FLOOR_AFTER})")),
)


def number_sides(text: str) -> dict[str, set[str]]:
    """Each figure `text` bounds (written as textkit.claims.numbers writes it) with the
    side it gives it: "floor" ("over 12", 12歲以上, 年滿18歲) or "ceiling" ("under 12",
    "12 and under", 未滿12歲, 最多兩張)."""
    norm = plain(text)
    out: dict[str, set[str]] = {}
    for side, pattern in _SIDES:
        for before, after in pattern.findall(norm):
            for number in _values(before or after):
                out.setdefault(number, set()).add(side)
    return out


def _values(figure: str) -> set[str]:
    """The figure's numbers; a lone Chinese numeral too (两 of 最多两张)."""
    figure = figure.strip(" -,.")
    return numbers(figure) or ({str(v)} if (v := chinese_number(figure)) is not None else set())


def turned_round(claim: str, quote: str) -> bool:
    """True when the claim gives a figure the other side from its quote ("over 12" on
    未滿12歲; 12歲以上 on "under 12"): both bound it, and on no side alike."""
    quoted = number_sides(quote)
    return any(
        number in quoted and not sides & quoted[number]
        for number, sides in number_sides(claim).items()
    )
