"""Personal data in text: e-mail addresses, national IDs, card and phone numbers.

The same rules mask what users send (graph.privacy applies them after its
secret and token rules) and screen documents bound for `public` before they
are published (`scan`). Pure functions, no I/O.

Python's `\\b` and `\\w` count CJK characters as word characters, so
"電話0912-345-678" has no word boundary before the number; every rule here
bounds itself with ASCII lookarounds instead. Form codes and case numbers
("PK-01", "PS-11", "2024-0012") match none of the rules.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

NOT_ALNUM_BEFORE = r"(?<![A-Za-z0-9])"
NOT_ALNUM_AFTER = r"(?![A-Za-z0-9])"
_NOT_DIGIT_BEFORE = r"(?<![0-9])"
_NOT_DIGIT_AFTER = r"(?![0-9])"


def bounded(core: str) -> str:
    """`core` with no ASCII letter or digit right before or after it."""
    return f"{NOT_ALNUM_BEFORE}(?:{core}){NOT_ALNUM_AFTER}"


# (pattern, placeholder), applied in this order; the number rules say why they come
# where they do.
PERSONAL_RULES: list[tuple[re.Pattern[str], str]] = [
    (
        re.compile(
            r"(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*"
            r"\.[A-Za-z]{2,}(?![A-Za-z0-9])"
        ),
        "[EMAIL]",
    ),
    # Taiwan national ID / resident certificate, PRC resident ID, Hong Kong ID: before
    # cards, which would take an 18-digit ID for a card number
    (re.compile(bounded(r"[A-Za-z][1289]\d{8}")), "[ID]"),
    (re.compile(f"{_NOT_DIGIT_BEFORE}\\d{{17}}[0-9Xx]{NOT_ALNUM_AFTER}"), "[ID]"),
    (re.compile(bounded(r"[A-Z]{1,2}\d{6}\s?\([0-9A]\)")), "[ID]"),
    # international phones (+886 912 345 678) before cards: their digits can reach 13
    (
        re.compile(
            r"(?<![0-9+])\+\d{1,3}[ \-.]?(?:\(\d{1,4}\)[ \-.]?)?\d{1,4}(?:[ \-.]?\d{2,4}){2,3}"
            f"{_NOT_DIGIT_AFTER}"
        ),
        "[PHONE]",
    ),
    # 13-19 digits, optionally grouped by spaces or dashes (payment cards)
    (re.compile(f"{_NOT_DIGIT_BEFORE}\\d(?:[ -]?\\d){{12,18}}{_NOT_DIGIT_AFTER}"), "[CARD]"),
    # national phones: trunk prefix 0 (0912-345-678, 02-2345-6789), mainland mobiles
    # (138 1234 5678), (02) 2345-6789
    (
        re.compile(
            f"{_NOT_DIGIT_BEFORE}(?:"
            r"0\d{1,3}[ \-.]?\d{3,4}[ \-.]?\d{3,4}"
            r"|1[3-9]\d[ \-.]?\d{4}[ \-.]?\d{4}"
            r"|\(0?\d{1,4}\)[ \-.]?\d{3,4}[ \-.]?\d{3,4}"
            f"){_NOT_DIGIT_AFTER}"
        ),
        "[PHONE]",
    ),
]
# after a phone cue, any 7+ digit number (555-1234, 2345 6789) is a phone number
PHONE_CUE = re.compile(
    r"(?i)((?<![A-Za-z])(?:phone|tel|mobile|cell|call|whatsapp|電話|电话|手機|手机|联系|聯絡|聯繫)"
    r"(?:\s*(?:number|no\.?|me at|us at|me on|號碼|号码|是|為|为))?\s*[:：]?\s*)"
    f"{_NOT_DIGIT_BEFORE}(\\d(?:[ \\-.]?\\d){{6,}}){_NOT_DIGIT_AFTER}"
)
KINDS = ("email", "id", "phone", "card")  # what `find` reports, in this order
EXAMPLES = 10  # masked examples kept per scan (the counts cover everything)


def find(text: str) -> list[tuple[str, str]]:
    """(kind, value) of each piece of personal data in `text`, as masking would find them.

    The rules run in masking order on the text as the earlier rules left it, so
    one value is reported once, under the kind masking gives it.
    """
    found: list[tuple[str, str]] = []
    for pattern, placeholder in PERSONAL_RULES:
        kind = placeholder.strip("[]").lower()

        def keep(match: re.Match[str], kind: str = kind, placeholder: str = placeholder) -> str:
            found.append((kind, match.group(0)))
            return placeholder

        text = pattern.sub(keep, text)
    found += [("phone", m.group(2)) for m in PHONE_CUE.finditer(text)]
    return found


def mask_value(value: str) -> str:
    """A value shown without revealing it: its first and last two characters, stars between."""
    value = value.strip()
    if len(value) <= 4:
        return "*" * len(value)
    if "@" in value:  # e-mail: a hint of the name, the domain kept
        name, _, domain = value.partition("@")
        return f"{name[:1]}{'*' * max(1, len(name) - 1)}@{domain}"
    return value[:2] + "*" * (len(value) - 4) + value[-2:]


@dataclass(frozen=True)
class Finding:
    """One piece of personal data: its kind, masked value, and where it is."""

    kind: str
    value: str  # masked
    line: int  # 1-based, in the document's text
    page: int | None = None


@dataclass(frozen=True)
class Findings:
    """What a scan found: counts per kind, and the first few findings, masked."""

    counts: dict[str, int]
    examples: tuple[Finding, ...]

    @property
    def total(self) -> int:
        """How many pieces of personal data in all."""
        return sum(self.counts.values())

    def summary(self) -> str:
        """Counts per kind, e.g. `email=1, id=2` (for the audit log and `jobs`)."""
        return ", ".join(f"{k}={self.counts[k]}" for k in KINDS if self.counts.get(k))


def scan(blocks: Iterable[tuple[str, int | None, str | None]]) -> Findings | None:
    """Scan parsed text blocks (text, page, heading) line by line; None when there is none.

    Lines are counted as the source shows them: from the top of each page of a
    paged document, else from the top of the document, a block's heading being
    its own line (a Markdown section's `# heading`).
    """
    counts: Counter[str] = Counter()
    examples: list[Finding] = []
    line_no = 0
    current_page: int | None = None
    for text, page, heading in blocks:
        if page != current_page:
            current_page, line_no = page, 0
        if heading:
            line_no += 1
        for line in text.split("\n"):  # not splitlines: a trailing blank line counts too
            line_no += 1
            for kind, value in find(line):
                counts[kind] += 1
                if len(examples) < EXAMPLES:
                    examples.append(Finding(kind, mask_value(value), line_no, page))
    if not counts:
        return None
    return Findings(dict(counts), tuple(examples))
