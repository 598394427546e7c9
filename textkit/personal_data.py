"""Personal data in text: e-mail addresses, national IDs, card and phone numbers.

The same rules mask what users send (graph.privacy applies them after its
secret and token rules) and screen documents bound for collections outside
readers see before they are published (`scan`). Pure functions, no I/O.

What is scanned is exactly what is stored and can be answered from: the
document's title, file name and link (an HTML page's canonical URL), and the
headings and text the loaders extract (storage.loaders). What a loader leaves
out is neither stored nor scanned, and readers never see it: answers quote the
stored text, never the file. Left out: DOCX headers, footers, footnotes,
comments, text boxes and core properties (author, last modified by); HTML
attributes (alt, title, href, data-*), `<head>`, `<nav>`, `<footer>`, scripts
and comments; PDF annotations and metadata. A loader that starts extracting
one of these makes it scanned with no change here.

A value a line break cuts in two (`0912-⏎345-678`, as PDF and DOCX extraction
wrap it) is found across the break; shapes that are something else (an ISBN, a
banknote serial, a quantity) are told apart by check digits, digit shapes and
the words around them (textkit.personal_checks), in the document scan only.

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

from textkit import personal_checks as checks
from textkit.personal_checks import fold_width

NOT_ALNUM_BEFORE = r"(?<![A-Za-z0-9])"
NOT_ALNUM_AFTER = r"(?![A-Za-z0-9])"
_NOT_DIGIT_BEFORE = r"(?<![0-9])"
_NOT_DIGIT_AFTER = r"(?![0-9])"
_GROUP_REF = re.compile(r"\\(\d)")


def substitute(
    pattern: re.Pattern[str],
    replacement: str,
    text: str,
    folded: str,
    keep: Callable[[str, re.Match[str]], str | None] | None = None,
) -> tuple[str, str]:
    """Replace what `pattern` matches in `folded` at the same places in `text`; both results.

    `replacement` may refer to groups (`\\1`), taken from `text` so they keep the
    user's spelling. `keep(value, match)`, given the original matched text and the
    match in `folded` (for its context), may return another replacement for this
    match (None: use `replacement`).
    """
    parts: list[str] = []
    folded_parts: list[str] = []
    last = 0
    for match in pattern.finditer(folded):
        start, end = match.span()

        def group(ref: re.Match[str], match: re.Match[str] = match) -> str:
            g_start, g_end = match.span(int(ref.group(1)))
            return text[g_start:g_end] if g_start >= 0 else ""

        chosen = keep(text[start:end], match) if keep is not None else None
        new = _GROUP_REF.sub(group, chosen if chosen is not None else replacement)
        parts += [text[last:start], new]
        folded_parts += [folded[last:start], fold_width(new)]
        last = end
    if not parts:
        return text, folded
    parts.append(text[last:])
    folded_parts.append(folded[last:])
    return "".join(parts), "".join(folded_parts)


def bounded(core: str) -> str:
    """`core` with no ASCII letter or digit right before or after it."""
    return f"{NOT_ALNUM_BEFORE}(?:{core}){NOT_ALNUM_AFTER}"


# (pattern, placeholder, what a document's match must also pass), applied in this
# order; the number rules say why they come where they do.
_RULES: list[tuple[re.Pattern[str], str, checks.Check | None]] = [
    (
        re.compile(
            r"(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*"
            r"\.[A-Za-z]{2,}(?![A-Za-z0-9])"
        ),
        "[EMAIL]",
        None,
    ),
    # Taiwan national ID / resident certificate, PRC resident ID, Hong Kong ID: before
    # cards, which would take an 18-digit ID for a card number
    (re.compile(bounded(r"[A-Za-z][1289]\d{8}")), "[ID]", checks.tw_id),
    (re.compile(f"{_NOT_DIGIT_BEFORE}\\d{{17}}[0-9Xx]{NOT_ALNUM_AFTER}"), "[ID]", checks.cn_id),
    (re.compile(bounded(r"[A-Z]{1,2}\d{6}\s?\([0-9A]\)")), "[ID]", checks.hk_id),
    # international phones (+886 912 345 678) before cards: their digits can reach 13
    (
        re.compile(
            r"(?<![0-9+])\+\d{1,3}[ \-.]?(?:\(\d{1,4}\)[ \-.]?)?\d{1,4}(?:[ \-.]?\d{2,4}){2,3}"
            f"{_NOT_DIGIT_AFTER}"
        ),
        "[PHONE]",
        checks.international_phone,
    ),
    # 13-19 digits, optionally grouped by spaces or dashes (payment cards)
    (
        re.compile(f"{_NOT_DIGIT_BEFORE}\\d(?:[ -]?\\d){{12,18}}{_NOT_DIGIT_AFTER}"),
        "[CARD]",
        checks.card,
    ),
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
        checks.national_phone,
    ),
]
# What masking applies (graph.privacy): the shapes alone, masking a stray number costs nothing.
PERSONAL_RULES: list[tuple[re.Pattern[str], str]] = [(p, r) for p, r, _ in _RULES]
# after a phone cue, any 7+ digit number (555-1234, 2345 6789) is a phone number
PHONE_CUE = re.compile(
    r"(?i)((?<![A-Za-z])(?:phone|tel|mobile|cell|call|whatsapp|電話|电话|手機|手机|联系|聯絡|聯繫"
    r"|來電|来电|致電|致电|撥打|拨打|專線|专线|熱線|热线)"
    r"(?:\s*(?:number|no\.?|me at|us at|me on|號碼|号码|是|為|为))?\s*[:：]?\s*)"
    f"{_NOT_DIGIT_BEFORE}(\\d(?:[ \\-.]?\\d){{6,}}){_NOT_DIGIT_AFTER}"
)
KINDS = ("email", "id", "phone", "card")  # what `find` reports, in this order
EXAMPLES = 10  # masked examples kept per scan (the counts cover everything)
# a shape that failed its check stands as one private-use character while later rules
# run (not a letter or digit: no later rule takes a piece of it)
_FAILED = 0xF0000
_FAILED_MARK = re.compile("[\U000f0000-\U000ffffd]")
_CONTEXT = 24  # characters either side a check may read
# A value wrapped across lines joins across a break whose neighbours could both be in
# one (ASCII letters and digits, and what e-mails, IDs and phone numbers hold).
_JOINS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789@._-+()")
_EDGE_SPACE = " \t\u00a0\u3000"  # what extraction leaves around a line break


def _find(text: str) -> tuple[list[tuple[str, str]], str]:
    """What `find` finds, and `text` with each finding replaced by its placeholder (what
    a line holds alone, so that a join across a break finds only what the break cut)."""
    found: list[tuple[str, str]] = []
    failed: list[str] = []
    folded = fold_width(text)
    for pattern, placeholder, check in _RULES:
        kind = placeholder.strip("[]").lower()

        def keep(
            value: str,
            match: re.Match[str],
            kind: str = kind,
            check: checks.Check | None = check,
        ) -> str | None:
            if check is not None:
                start, end = match.span()
                before = match.string[max(0, start - _CONTEXT) : start]
                after = match.string[end : end + _CONTEXT]
                if check(value, before.rpartition("\n")[2], after) is not None:
                    # no later rule takes a piece of it; put back for a join, which may
                    # find it is half of a value the break cut (`001011232` of an ID)
                    failed.append(value)
                    return chr(_FAILED + len(failed) - 1)
            found.append((kind, value))
            return None  # the rule's placeholder

        text, folded = substitute(pattern, placeholder, text, folded, keep)
    cued = [("phone", text[m.start(2) : m.end(2)]) for m in PHONE_CUE.finditer(folded)]
    text = substitute(PHONE_CUE, r"\1[PHONE]", text, folded)[0]
    if failed:
        text = _FAILED_MARK.sub(lambda m: _put_back(m.group(), failed), text)
    return found + cued, text


def _put_back(mark: str, failed: list[str]) -> str:
    index = ord(mark) - _FAILED
    return failed[index] if index < len(failed) else mark  # the text's own character


def find(text: str) -> list[tuple[str, str]]:
    """(kind, value) of each piece of personal data in `text`, as masking would find them.

    The rules run in masking order on the text as the earlier rules left it, so
    one value is reported once, under the kind masking gives it; values are as
    the text spells them (full-width forms included). A shape counts only if it
    passes its check (textkit.personal_checks: check digits, the Luhn check,
    phone-number digits, reference and counter words around it).
    """
    return _find(text)[0]


def _joined(left: str, right: str) -> list[str]:
    """The ways a value broken between `left` and the next line `right` reads whole
    (none when the break cannot be inside one)."""
    left, right = left.rstrip(_EDGE_SPACE), right.lstrip(_EDGE_SPACE)
    if left.endswith("\u00ad"):  # a soft hyphen is never part of the value
        left = left[:-1]
    if not left or not right:
        return []
    if fold_width(left[-1]) not in _JOINS or fold_width(right[0]) not in _JOINS:
        return []
    last, first = fold_width(left[-1]), fold_width(right[0])
    if last == "-" and left[-2:-1].isascii() and left[-2:-1].isalpha() and first.isalpha():
        return [left[:-1] + right, left + right]  # hyphenated, or a hyphen in the value
    if last.isdigit() and first.isdigit():  # the break may have taken a space (4111 1111 ⏎1111)
        return [left + right, f"{left} {right}"]
    return [left + right]


def find_across(left: str, right: str) -> list[tuple[str, str]]:
    """The personal data that a break between the lines `left` and `right` cuts in two
    (`jane.roe@⏎example.com`, `0912-⏎345-678`): found in neither line alone, but in the
    two joined at the break with the spaces (and a hyphenation hyphen) extraction left
    there."""
    return _across(_find(left)[1], _find(right)[1])


def _across(masked_left: str, masked_right: str) -> list[tuple[str, str]]:
    # what each line holds alone is masked first, and a value found must hold part of
    # each line: only a value the break cut counts
    for joined in _joined(masked_left, masked_right):
        found = [
            (kind, value)
            for kind, value in _find(joined)[0]
            if value not in masked_left and value not in masked_right
        ]
        if found:
            return found
    return []


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
    (text, page, heading) line by line, and across each line break; None when there
    is none.

    A value a line break cuts in two (PDF and DOCX extraction wrap `0912-⏎345-678`)
    is found across the break (`find_across`) and reported on the line it starts
    on; a blank line (a paragraph break) is never joined across. Lines are counted
    as the source shows them: from the top of each page of a paged document, else
    from the top of the document, a block's heading being its own line (a Markdown
    section's `# heading`). Headings and titles are stored and searched like the
    text, so they are scanned like it.
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
        # not splitlines: a trailing blank line counts too
        lines = [_find(line) for line in text.split("\n")]
        for i, (found, masked) in enumerate(lines):
            line_no += 1
            note(found, line_no, page, TEXT)
            if i + 1 < len(lines):
                note(_across(masked, lines[i + 1][1]), line_no, page, TEXT)
    if not counts:
        return None
    return Findings(dict(counts), tuple(examples))
