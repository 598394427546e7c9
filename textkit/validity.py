"""Whether a duration is how long a thing stays valid, asked or stated.

"How long is the permit valid?" and "How long does the permit take?" both ask a
duration (textkit.answer_type), and a permit's page states two: "valid for one
year" (有效期一年) and "issued about seven working days after the application"
(申請後約七個工作天核發). The words of validity tell them apart in either language:
valid, validity, expire, expiry, lasting, 有效, 到期, 期滿, 過期. A question asking how long a
thing stays valid is answered by a sentence naming its validity; one asking a
duration otherwise (how long it takes, how long a loan runs) by a sentence that
does not, when there is one.

Matched on `plain` text (lower case, Simplified).
"""

from __future__ import annotations

import re

from textkit.scripts import plain

_VALIDITY = re.compile(
    r"\b(?:valid|validity|invalid|expire[sd]?|expiring|expiry|expiration)\b|"
    # "how long does a passport last?", "A permit lasts twelve months" (not "the last day")
    r"\bhow long\b.{0,60}\blast\b|\blasts?\s+(?:for\s+)?(?:\d|a|an|one|two|three|four|five|"
    r"six|seven|eight|nine|ten|eleven|twelve|several|up to)\b|"
    r"有效|到期|期满|过期|届满|失效"
)


def names_validity(text: str) -> bool:
    """True when `text` (a question or a sentence) speaks of how long a thing stays
    valid: valid, expire, 有效, 到期, 期滿."""
    return bool(_VALIDITY.search(plain(text)))
