"""Whether a duration is how long a thing stays valid, asked or stated.

"How long is the permit valid?" and "How long does the permit take?" both ask a
duration (textkit.answer_type), and a permit's page states two: "valid for one
year" (有效期一年) and "issued about seven working days after the application"
(申請後約七個工作天核發). A question asking how long a thing stays valid is
answered by a sentence stating its validity, and refused when none does: the
issuing time or a photo's age is no validity. A duration asked otherwise keeps
every sentence holding one (a validity may be asked in words this module does not
read: 最长期限).

Both are read by their construction, not by a word alone: "renew an expired
permit" asks how long renewing takes, "bring a valid ID" states no validity, and
到期 ("due") or 有效利用 ("effective use") in a loan's rules is none either.
Matched on `plain` text (lower case, Simplified).
"""

from __future__ import annotations

import re

from textkit.scripts import plain

_FIGURE = (
    r"(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|several|"
    r"up to)"
)
_UNIT = r"(?:\s+\w+)?\s+(?:years?|months?|weeks?|days?)\b"
_ZH_FIGURE = r"[0-9一二三四五六七八九十两半]"
# "how long is it valid", "how many years is it valid", "when does it expire", 有效期多久,
# 效期幾年; not "how long does it last" nor "how long can I use": an interview lasts, a
# reading room is used, and a book falls due (到期) with no validity
_ASKS_VALIDITY = re.compile(
    # "valid" as what the thing is, not a word before a noun ("bring a valid ID")
    r"\bhow (?:long|many (?:years|months|days))\b[^?]{0,60}\bvalid\b(?=\s*(?:[?.!,]|$|for\b|"
    r"in\b|after\b|once\b|from\b|until\b))|\bvalidity\b|\bexpir(?:y|ation)\b|"
    r"\bwhen\b[^?]{0,60}\bexpire\b|\bhow long (?:until|before|till)\b[^?]{0,60}\bexpire\b|"
    r"有效期|效期|有效多久|有效多长|几年有效|有效几年|有效多少|多久(?:会|就)?(?:过期|失效)|"
    r"(?:何时|什么时候|几时)(?:会)?(?:过期|失效)"
)
# "valid for one year", "expires after 12 months", "lasts twelve months", 有效期一年,
# 效期十年, 一年内有效, 为期一年
_STATES_VALIDITY = re.compile(
    r"\bvalid\s+(?:for|until|till|through)\b|\bvalidity\b|"
    rf"\bexpires?\s+(?:after|in|on|at|{_FIGURE}\b)|"
    # "lasts twelve months", "will last 5 years" (not "taken in the last six months")
    rf"\b(?:lasts|(?:will|can|may|shall|should)\s+last|last\s+for)\s+(?:for\s+)?{_FIGURE}\b|"
    # "issued for 10 years" (not "issued for 30 minutes before closing")
    rf"\b(?:good|issued|granted|used)\s+for\s+(?:up to\s+)?{_FIGURE}{_UNIT}|"
    rf"有效期|效期|有效{_ZH_FIGURE}|内有效|期满|届满|失效|使用期限|为期{_ZH_FIGURE}|"
    rf"可(?:以)?使用{_ZH_FIGURE}"
)


def asks_validity(question: str) -> bool:
    """True when `question` asks how long a thing stays valid ("How long is the permit
    valid?", "When does it expire?", 有效期多久)."""
    return bool(_ASKS_VALIDITY.search(plain(question)))


def states_validity(sentence: str) -> bool:
    """True when `sentence` states how long a thing stays valid ("valid for one year",
    "expires after 12 months", 有效期一年)."""
    return bool(_STATES_VALIDITY.search(plain(sentence)))


# the words naming validity in a question asking it: they name the kind of duration asked,
# not the thing ("护照有效期多久" asks of 护照)
_VALIDITY_WORDS = re.compile(
    r"\b(?:valid|validity|expire|expires|expiry|expiration)\b|有效期|有效|效期|过期|失效"
)


def without_validity_words(text: str) -> str:
    """`text` (`plain`) without its words naming validity ("passport valid" → "passport"),
    for a question that `asks_validity`."""
    return _VALIDITY_WORDS.sub(" ", text)
