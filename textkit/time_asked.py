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
  is a reason;
- it asks who may take part or a case's state ("open to students?", "Is my
  complaint closed?", "Are applications still open?"), unless it asks a day or
  an hour beside it ("open to the public on Sundays?").

Matched on `plain` text (lower case, Simplified).
"""

from __future__ import annotations

import re

DAYS_ZH = r"(?:星期|礼拜)[一二三四五六日天]|周[一二三四五六日末]"
IS_OPEN_ZH = r"有?开(?:放)?(?:吗|嘛|不)"  # 开吗, 有开吗, 开放吗, 开不开
# "when is it open", "opening hours", "what time": a time of day or a day of the week
ASKS_TIME = re.compile(
    r"\b(?:open|opens|opening|close|closes|closing|closed|hours|what time)\b|"
    r"几点|开放时间|营业|办公时间|开门|关门|服务时间|开馆|闭馆|休馆|最后入场|开放吗|开唔开|有冇开|"
    r"(?:今天|今日|明天|听日|假期|假日|公众假期|周末|平日)有?开|"
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
# "open" or "closed" as a thing's kind: hyphened ("open-source", "closed-door"), after a
# determiner ("an open letter", "the closed session"; "the open hours" are hours), or in
# a common compound ("open data", "open market"). "Is the museum open evenings?" and
# "open Good Friday?" still ask hours: the word after the verb is a time's
_KIND_OF_THING = re.compile(
    r"\b(?:open|closed)-[a-z]+|"
    r"\b(?:a|an|the|this|that|its|our|their|his|her|my|your|any)\s+(?:open|closed)\s+"
    r"(?!(?:on|at|in|to|until|till|from|during|for|today|now|late|early|and|or|hours?|"
    r"times?|days?)\b)[a-z]+|"
    r"\b(?:open|closed)\s+(?:source|data|letter|market|access|university|air|door|session|"
    r"loop|question|house|plan|space|water|book|fire|circuit|caption|ended|cases?)s?\b"
)
# "open to students", "open for registration": who may take part, or a case's state
# ("Is my complaint closed?", "Are applications still open?"); unless a day or an hour
# is asked beside it ("open to the public on Sundays?")
_WHO_OR_STATE = re.compile(
    r"\b(?:open|closed)\s+(?:to|for)\s+(?:the\s+)?(?:non-?\s?[a-z]+|all|everyone|anyone|"
    r"students?|children|kids|adults|members?|residents?|foreigners?|visitors?|tourists?|"
    r"public|applicants?|seniors?|elderly|families|beginners|applications?|bookings?|"
    r"registration|enrol?lment|entries|submissions?|nominations?)\b|"
    r"\b(?:complaint|case|ticket|account|application|booking|registration|enrol?lment|job|"
    r"position|vacanc(?:y|ie)|consultation|survey|poll|tender|nomination|submission|request|"
    r"claim|order|investigation|inquiry|enquiry|petition)s?\b(?:\s+[a-z]+){0,3}\s+"
    r"(?:open|opened|closed)\b|"
    r"对.{1,8}开放"
)
_WHEN_ASKED = re.compile(
    r"\b(?:on|at|until|till|during|before|after)\s+|\b(?:today|tonight|tomorrow|hours|"
    r"weekends?|weekdays?|holidays?|[a-z]*days?)\b|几点|星期|周[一二三四五六日末]|假期|今天|明天"
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
    if _WHO_OR_STATE.search(text) and not _WHEN_ASKED.search(text):
        return False
    for not_hours in (_ACTS_ON_THING, _KIND_OF_THING, _EVENT, _NEAR):
        text = not_hours.sub(" ", text)
    return bool(ASKS_TIME.search(text))
