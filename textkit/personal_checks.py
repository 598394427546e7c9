"""What a personal-data shape must also pass to count in a document: checksums and context.

A document bound for outside readers is refused when it holds personal data,
so a shape that is something else (an ISBN, a banknote serial, a group of
digits in a table) must not count. Each check says why a shape is *not*
personal data, or None when it counts:

- IDs carry check digits: the Taiwan national ID / resident certificate
  (letter code and weights 1, 9, 8…1), the PRC resident ID (ISO 7064 MOD 11-2,
  and a real birth date), the Hong Kong ID (mod 11, the digit in brackets).
- Payment cards pass the Luhn check and are written in groups of four (or
  4-6-5 / 4-6-4); a 978/979 number that passes the ISBN-13 check is a book.
- National phone numbers have the digits of a real number: a trunk `0`, a
  non-zero area code and 9 to 12 digits in all (Taiwan, mainland landlines);
  `00000001` is a serial, not a phone.
- Context in the three languages: a number right after a reference word
  (ISBN, ISSN, DOI, serial, 序號, 編號, 冠號...) is a reference, and one right
  before a counter (號, 年, 頁, 期, 人...) is a quantity or a serial.

Masking a question takes the shapes alone (masking a stray number costs
nothing); only the document scan asks these. Pure functions, no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date

# U+FF01–FF5E (full-width ASCII forms) → U+0021–007E, U+3000 (ideographic space) → space
_FULL_WIDTH = {cp: cp - 0xFEE0 for cp in range(0xFF01, 0xFF5F)} | {0x3000: 0x20}


def fold_width(text: str) -> str:
    """`text` with full-width ASCII forms and the ideographic space as ASCII, same length."""
    return text.translate(_FULL_WIDTH)


# (value, text before it on its line, text after it) -> why it is not personal data
Check = Callable[[str, str, str], str | None]

_TW_LETTERS = dict(zip("ABCDEFGHJKLMNPQRSTUVXYWZIO", range(10, 36), strict=True))
_CN_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
_REFERENCE_BEFORE = re.compile(
    r"(?i)(?:isbn|issn|doi|oclc|lccn|pmid|arxiv|serial|s/n|sn"
    r"|序號|序号|冠號|冠号|書號|书号|編號|编号|條碼|条码|統一編號|统一编号)"
    r"(?:[- ]?1[03])?[^0-9A-Za-z]{0,6}$"
)
_COUNTER_AFTER = re.compile(
    r"(?i)^\s?(?:[號号年頁页期冊册卷屆届次人元位個个張张件]"
    r"|(?:people|persons|copies|pages|votes|years|units|tonnes|km|kg)(?![A-Za-z]))"
)


def _digits(value: str) -> str:
    return "".join(c for c in fold_width(value) if c.isdigit())


def luhn_valid(value: str) -> bool:
    """True when the digits of `value` pass the Luhn check (every payment card does)."""
    digits = [int(c) for c in _digits(value)]
    total = 0
    for i, digit in enumerate(reversed(digits)):
        if i % 2:
            digit = digit * 2 - 9 if digit > 4 else digit * 2
        total += digit
    return bool(digits) and total % 10 == 0


def isbn13_valid(value: str) -> bool:
    """True when `value` is 13 digits starting 978/979 that pass the ISBN-13 check."""
    digits = [int(c) for c in _digits(value)]
    if len(digits) != 13 or digits[:2] != [9, 7] or digits[2] not in (8, 9):
        return False
    return sum(d * (3 if i % 2 else 1) for i, d in enumerate(digits)) % 10 == 0


def taiwan_id_valid(value: str) -> bool:
    """True when a Taiwan national ID or resident certificate number has its check digit."""
    folded = fold_width(value).upper()
    code = _TW_LETTERS.get(folded[:1])
    if code is None or not folded[1:].isdigit() or len(folded) != 10:
        return False
    weights = (8, 7, 6, 5, 4, 3, 2, 1, 1)
    total = code // 10 + (code % 10) * 9
    total += sum(int(d) * w for d, w in zip(folded[1:], weights, strict=True))
    return total % 10 == 0


def china_id_valid(value: str) -> bool:
    """True when a PRC resident ID has a real birth date and its MOD 11-2 check character."""
    folded = fold_width(value).upper()
    if len(folded) != 18 or not folded[:17].isdigit():
        return False
    try:
        born = date(int(folded[6:10]), int(folded[10:12]), int(folded[12:14]))
    except ValueError:
        return False
    if not 1900 <= born.year <= date.today().year:
        return False
    total = sum(int(d) * w for d, w in zip(folded[:17], _CN_WEIGHTS, strict=True))
    return "10X98765432"[total % 11] == folded[17]


def hong_kong_id_valid(value: str) -> bool:
    """True when a Hong Kong ID's bracketed check digit matches (mod 11, A for 10)."""
    folded = re.sub(r"[\s()]", "", fold_width(value).upper())
    letters, digits, check = folded[:-7], folded[-7:-1], folded[-1]
    if not 1 <= len(letters) <= 2 or not digits.isdigit():
        return False
    values = [36] * (2 - len(letters)) + [ord(c) - 55 for c in letters] + [int(d) for d in digits]
    total = sum(v * w for v, w in zip(values, range(9, 1, -1), strict=True))
    total += 10 if check == "A" else int(check)
    return total % 11 == 0


def _card_grouping(value: str) -> bool:
    """Card numbers are written whole or in groups of four (Amex 4-6-5, Diners 4-6-4)."""
    groups = re.split(r"[ -]", fold_width(value))
    if len(groups) == 1:
        return True
    sizes = [len(g) for g in groups]
    fours = all(s == 4 for s in sizes[:-1]) and 1 <= sizes[-1] <= 4
    return fours or sizes in ([4, 6, 5], [4, 6, 4])


def _context(before: str, after: str) -> str | None:
    if _REFERENCE_BEFORE.search(before):
        return "after a reference word"
    if _COUNTER_AFTER.match(after):
        return "before a counter"
    return None


def tw_id(value: str, before: str, after: str) -> str | None:
    """Why a Taiwan-ID shape is not one (its check digit), or None."""
    return None if taiwan_id_valid(value) else "Taiwan ID check digit"


def cn_id(value: str, before: str, after: str) -> str | None:
    """Why a PRC-ID shape is not one (birth date, check character), or None."""
    return None if china_id_valid(value) else "PRC ID birth date or check character"


def hk_id(value: str, before: str, after: str) -> str | None:
    """Why a Hong Kong ID shape is not one (its check digit), or None."""
    return None if hong_kong_id_valid(value) else "Hong Kong ID check digit"


def card(value: str, before: str, after: str) -> str | None:
    """Why a card-number shape is not one (Luhn, grouping, an ISBN, context), or None."""
    if not luhn_valid(value) or _digits(value).startswith("0"):
        return "Luhn check or a leading 0 (no card network's numbers start with 0)"
    if not _card_grouping(value):
        return "grouped as a quantity, not a card"
    if isbn13_valid(value):
        return "an ISBN-13"
    return _context(before, after)


def national_phone(value: str, before: str, after: str) -> str | None:
    """Why a national phone shape is not a phone number (digit count, context), or None."""
    digits = _digits(value)
    folded = fold_width(value)
    if folded.startswith("("):
        if len(digits) < 8:
            return "too few digits for a phone number"
    elif folded.startswith("0") and (len(digits) < 9 or digits[1] == "0"):
        return "no area code and subscriber number"
    return _context(before, after)


def international_phone(value: str, before: str, after: str) -> str | None:
    """Why an international phone shape is not one (context), or None."""
    return _context(before, after)
