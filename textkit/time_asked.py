"""Whether a question asks a time of day or a day of the week ("when is it open").

"Open" and "close" ask hours only as the state of a place: "Is the pool open on
Sundays?", "What time does the office close?", 星期天开吗, 几点关门. The same words
ask none when

- the verb acts on a thing ("open an account", "close my card");
- "open" or "closed" is a thing's kind ("an open letter", "open-source", "a
  closed session": another word than a time's follows it);
- "opening" or "closing" names an event ("the closing of the gallery": when it
  happened is a date, not an hour of the day);
- "close" means near ("how close is it", "close to the station"; "close to
  the public" is still a closing);
- the question asks why ("Why was the gallery closed?", 为什么关门): its answer
  is a reason.

Matched on `plain` text (lower case, Simplified).
"""

from __future__ import annotations

import re

DAYS_ZH = r"(?:星期|礼拜)[一二三四五六日天]|周[一二三四五六日末]"
IS_OPEN_ZH = r"有?开(?:放)?(?:吗|嘛|不)"  # 开吗, 有开吗, 开放吗, 开不开
# "when is it open", "opening hours", "what time": a time of day or a day of the week
ASKS_TIME = re.compile(
    r"\b(?:open|opens|opening|close|closes|closing|closed|hours|what time)\b|"
    r"几点|开放时间|营业|办公时间|开门|关门|服务时间|"
    # "is it open on Sunday?": a day right before 开吗 / 有开吗 / 开放吗 (公开吗, 有开通
    # and 开发票 name no day)
    r"(?:" + DAYS_ZH + r")" + IS_OPEN_ZH
)
# "open an account", "close my card", "opening a ticket": the verb acts on a thing and asks
# no hours ("open this weekend", "closed the whole day" still ask them)
_ACTS_ON_THING = re.compile(
    r"\b(?:open|opens|opened|opening|close|closes|closed|closing)\s+(?:up\s+)?"
    r"(?:a|an|the|my|your|our|their|his|her|its|this|that|these|those|new|another|some|one)\s+"
    r"(?!(?:whole|entire|full|same|next|last|first|weekend|weekends|week|weekday|weekdays|day|"
    r"days|morning|mornings|afternoon|afternoons|evening|evenings|night|nights|holidays?|summer|"
    r"winter|spring|autumn|year|month|time|hours?|today|tomorrow|season)\b)"
)
# the words that may follow "open" or "closed" saying when ("open on Sundays", "closed
# until noon", "open late", "open 24 hours"); any other word makes it a thing's kind
_WHEN_FOLLOWS = (
    r"on|at|in|until|till|til|from|to|during|for|over|through|throughout|around|before|after|"
    r"between|by|since|and|or|but|then|again|yet|today|tonight|tomorrow|now|late|later|early|"
    r"all|every|each|daily|nightly|weekly|year|round|hours?|days?|weekends?|weekdays?|"
    r"holidays?|public|christmas|easter|new|a|an|the|this|that|these|those|its|any|some|"
    r"next|right|still|also|as|only|except|"
    r"one|two|three|four|five|six|seven|"
    r"(?:mon|tues|wednes|thurs|fri|satur|sun)days?"
)
_KIND_OF_THING = re.compile(
    r"\b(?:open|closed)(?:-[a-z]+|\s+(?!(?:" + _WHEN_FOLLOWS + r")\b)[a-z]+)"
)
_EVENT = re.compile(r"\b(?:opening|closing|closure)\s+of\b")
_NEAR = re.compile(
    r"\bhow\s+close\b|\bclose\s+(?:to|by)\b(?!\s+(?:the\s+)?(?:public|visitors|customers|"
    r"traffic|everyone|all|new)\b)"
)
_ASKS_WHY = re.compile(r"^\s*(?:\w+,\s*)?(?:why|how come)\b|为什么|为何|为啥|怎么会")


def asks_time(text: str) -> bool:
    """True when the question (`plain`) asks a time of day or a day of the week: the
    hours of a place, not a thing that is open or the reason it closed."""
    if _ASKS_WHY.search(text):
        return False
    for not_hours in (_ACTS_ON_THING, _KIND_OF_THING, _EVENT, _NEAR):
        text = not_hours.sub(" ", text)
    return bool(ASKS_TIME.search(text))
