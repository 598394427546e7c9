"""Personal data in text: e-mail addresses, national IDs, card and phone numbers.

The same rules mask what users send (graph.privacy applies them after its
secret and token rules) and screen documents bound for collections outside
readers see before they are published (`scan`). Pure functions, no I/O.

Rules match on the text with full-width forms folded to ASCII (Ａ１２３,
０９１２－３４５－６７８, wang＠example.com are the same data as their ASCII
spelling); the fold maps one character to one, so a match's position in the
folded text is its position in the original, and masking keeps everything
else as the user wrote it (`substitute`).

Python's `\\b` and `\\w` count CJK characters as word characters, so
"電話0912-345-678" has no word boundary before the number; every rule here
bounds itself with ASCII lookarounds instead. Form codes and case numbers
("PK-01", "PS-11", "2024-0012") match none of the rules.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass

NOT_ALNUM_BEFORE = r"(?<![A-Za-z0-9])"
NOT_ALNUM_AFTER = r"(?![A-Za-z0-9])"
_NOT_DIGIT_BEFORE = r"(?<![0-9])"
_NOT_DIGIT_AFTER = r"(?![0-9])"


# U+FF01–FF5E (full-width ASCII forms) → U+0021–007E, U+3000 (ideographic space) → space
_FULL_WIDTH = {cp: cp - 0xFEE0 for cp in range(0xFF01, 0xFF5F)} | {0x3000: 0x20}
_GROUP_REF = re.compile(r"\\(\d)")


def fold_width(text: str) -> str:
    """`text` with full-width ASCII forms and the ideographic space as ASCII, same length."""
    return text.translate(_FULL_WIDTH)


def substitute(
    pattern: re.Pattern[str],
    replacement: str,
    text: str,
    folded: str,
    keep: Callable[[str], str | None] | None = None,
) -> tuple[str, str]:
    """Replace what `pattern` matches in `folded` at the same places in `text`; both results.

    `replacement` may refer to groups (`\\1`), taken from `text` so they keep the
    user's spelling. `keep(value)`, given the original matched text, may return
    another replacement for this match (None: use `replacement`).
    """
    parts: list[str] = []
    folded_parts: list[str] = []
    last = 0
    for match in pattern.finditer(folded):
        start, end = match.span()

        def group(ref: re.Match[str], match: re.Match[str] = match) -> str:
            g_start, g_end = match.span(int(ref.group(1)))
            return text[g_start:g_end] if g_start >= 0 else ""

        chosen = keep(text[start:end]) if keep is not None else None
        new = _GROUP_REF.sub(group, chosen if chosen is not None else replacement)
        parts += [text[last:start], new]
        folded_parts += [folded[last:start], fold_width(new)]
        last = end
    if not parts:
        return text, folded
    parts.append(text[last:])
    folded_parts.append(folded[last:])
    return "".join(parts), "".join(folded_parts)


def luhn_valid(value: str) -> bool:
    """True when the digits of `value` pass the Luhn check (every payment card does)."""
    digits = [int(c) for c in fold_width(value) if c.isdigit()]
    total = 0
    for i, digit in enumerate(reversed(digits)):
        if i % 2:
            digit = digit * 2 - 9 if digit > 4 else digit * 2
        total += digit
    return bool(digits) and total % 10 == 0


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
    # 13-19 digits, optionally grouped by spaces or dashes (payment cards); masking takes
    # every one, the document scan only those that pass the Luhn check (`find`)
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
# Only for the document scan: what a shape must also pass to count. ISBNs and long
# reference numbers fill public documents; a card number passes the Luhn check.
# (Masking a question takes the shape alone: masking a stray number costs nothing.)
_VALID: dict[str, Callable[[str], bool]] = {"[CARD]": luhn_valid}
_NOT_FOUND = "[NUMBER]"  # a shape that failed its check: no later rule takes a piece of it


def find(text: str) -> list[tuple[str, str]]:
    """(kind, value) of each piece of personal data in `text`, as masking would find them.

    The rules run in masking order on the text as the earlier rules left it, so
    one value is reported once, under the kind masking gives it; values are as
    the text spells them (full-width forms included). A card number counts only
    if it passes the Luhn check.
    """
    found: list[tuple[str, str]] = []
    folded = fold_width(text)
    for pattern, placeholder in PERSONAL_RULES:
        kind = placeholder.strip("[]").lower()
        valid = _VALID.get(placeholder)

        def keep(
            value: str, kind: str = kind, valid: Callable[[str], bool] | None = valid
        ) -> str | None:
            if valid is not None and not valid(value):
                return _NOT_FOUND
            found.append((kind, value))
            return None  # the rule's placeholder

        text, folded = substitute(pattern, placeholder, text, folded, keep)
    found += [("phone", text[m.start(2) : m.end(2)]) for m in PHONE_CUE.finditer(folded)]
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


TITLE, HEADING, TEXT = "title", "heading", "text"  # where in a document a finding is


@dataclass(frozen=True)
class Finding:
    """One piece of personal data: its kind, masked value, and where it is.

    `part` is TITLE (the title or file name: no line), HEADING (a heading, on its
    own line) or TEXT.
    """

    kind: str
    value: str  # masked
    line: int  # 1-based, in the document's text (0 for the title)
    page: int | None = None
    part: str = TEXT


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


def scan(
    blocks: Iterable[tuple[str, int | None, str | None]], titles: Iterable[str] = ()
) -> Findings | None:
    """Scan a document's `titles` (its title, its file name) and parsed text blocks
    (text, page, heading) line by line; None when there is none.

    Lines are counted as the source shows them: from the top of each page of a
    paged document, else from the top of the document, a block's heading being
    its own line (a Markdown section's `# heading`). Headings and titles are
    stored and searched like the text, so they are scanned like it.
    """
    counts: Counter[str] = Counter()
    examples: list[Finding] = []

    def note(found: Iterable[tuple[str, str]], line: int, page: int | None, part: str) -> None:
        for kind, value in found:
            counts[kind] += 1
            if len(examples) < EXAMPLES:
                examples.append(Finding(kind, mask_value(value), line, page, part))

    # the title is often the file name's stem: a value in both counts once
    in_titles = {hit: None for title in titles for hit in find(title)}
    note(in_titles, 0, None, TITLE)
    line_no = 0
    current_page: int | None = None
    for text, page, heading in blocks:
        if page != current_page:
            current_page, line_no = page, 0
        if heading:
            line_no += 1
            note(find(heading), line_no, page, HEADING)
        for line in text.split("\n"):  # not splitlines: a trailing blank line counts too
            line_no += 1
            note(find(line), line_no, page, TEXT)
    if not counts:
        return None
    return Findings(dict(counts), tuple(examples))
