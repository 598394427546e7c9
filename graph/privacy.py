"""The privacy rule, in one place: what is masked in what users send.

Applied to a user's message before it is stored, traced, logged, sent to the
LLM or to a remote embedding endpoint (the service masks it before the graph
runs; a logging filter masks log records). Documents are not masked: an office
phone number in a document stays in the answer.

Python's `\\b` and `\\w` count CJK characters as word characters, so
"電話0912-345-678" has no word boundary before the number; every rule here
bounds itself with ASCII lookarounds instead. Form codes and case numbers
("PK-01", "PS-11", "2024-0012") match none of the rules.
"""

from __future__ import annotations

import logging
import re

# Placeholders; `has_personal_data` looks for them.
PLACEHOLDERS = (
    "[API_KEY]",
    "[TOKEN]",
    "[JWT]",
    "[SECRET]",
    "[EMAIL]",
    "[CARD]",
    "[ID]",
    "[PHONE]",
)

_NOT_ALNUM_BEFORE = r"(?<![A-Za-z0-9])"
_NOT_ALNUM_AFTER = r"(?![A-Za-z0-9])"
_NOT_DIGIT_BEFORE = r"(?<![0-9])"
_NOT_DIGIT_AFTER = r"(?![0-9])"


def _bounded(core: str) -> str:
    return f"{_NOT_ALNUM_BEFORE}(?:{core}){_NOT_ALNUM_AFTER}"


# Order matters: tokens and keys before e-mail and numbers (a key can hold digit runs);
# the number rules say why they come where they do.
_RULES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}"), "[JWT]"),
    (re.compile(_bounded(r"(?:sk|rk|pk)-(?:proj-|live-|test-)?[A-Za-z0-9_\-]{16,}")), "[API_KEY]"),
    (re.compile(_bounded(r"AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_\-]{35}")), "[API_KEY]"),
    (re.compile(_bounded(r"xox[abposr]-[A-Za-z0-9-]{10,}|xapp-[A-Za-z0-9-]{10,}")), "[TOKEN]"),
    (re.compile(_bounded(r"gh[pousr]_[A-Za-z0-9]{30,}|glpat-[A-Za-z0-9_\-]{20,}")), "[TOKEN]"),
    (re.compile(_bounded(r"\d{8,10}:[A-Za-z0-9_-]{30,}")), "[TOKEN]"),  # Telegram bot token
    (re.compile(r"(?i)(?<![A-Za-z])(bearer)\s+[A-Za-z0-9._~+/=-]{16,}"), r"\1 [TOKEN]"),
    (
        re.compile(
            r"(?i)(?<![A-Za-z])(password|passwd|pwd|passcode|pin|密碼|密码|口令)\s*[:=：]\s*\S+"
        ),
        r"\1: [SECRET]",
    ),
    (
        re.compile(
            r"(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*"
            r"\.[A-Za-z]{2,}(?![A-Za-z0-9])"
        ),
        "[EMAIL]",
    ),
    # Taiwan national ID / resident certificate, PRC resident ID, Hong Kong ID: before
    # cards, which would take an 18-digit ID for a card number
    (re.compile(_bounded(r"[A-Za-z][1289]\d{8}")), "[ID]"),
    (re.compile(f"{_NOT_DIGIT_BEFORE}\\d{{17}}[0-9Xx]{_NOT_ALNUM_AFTER}"), "[ID]"),
    (re.compile(_bounded(r"[A-Z]{1,2}\d{6}\s?\([0-9A]\)")), "[ID]"),
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
_PHONE_CUE = re.compile(
    r"(?i)((?<![A-Za-z])(?:phone|tel|mobile|cell|call|whatsapp|電話|电话|手機|手机|联系|聯絡|聯繫)"
    r"(?:\s*(?:number|no\.?|me at|us at|me on|號碼|号码|是|為|为))?\s*[:：]?\s*)"
    f"{_NOT_DIGIT_BEFORE}(\\d(?:[ \\-.]?\\d){{6,}}){_NOT_DIGIT_AFTER}"
)


def mask_sensitive(text: str) -> str:
    """The text with secrets and personal data replaced by placeholders."""
    for pattern, replacement in _RULES:
        text = pattern.sub(replacement, text)
    return _PHONE_CUE.sub(r"\1[PHONE]", text)


def has_personal_data(masked: str) -> bool:
    """True when masked text carries a placeholder (it held personal data or a secret)."""
    return any(p in masked for p in PLACEHOLDERS)


class MaskingFilter(logging.Filter):
    """Masks log records (message and arguments) before any handler writes them."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Replace the record's text with its masked rendering; never drops a record."""
        try:
            rendered = record.getMessage()
        except Exception:  # a malformed record: leave it to the handler to report
            return True
        masked = mask_sensitive(rendered)
        if masked != rendered:
            record.msg, record.args = masked, None
        return True


def install_log_masking(logger: logging.Logger | None = None) -> None:
    """Attach the masking filter to every handler of `logger` (the root by default)."""
    target = logger or logging.getLogger()
    for handler in target.handlers:
        if not any(isinstance(f, MaskingFilter) for f in handler.filters):
            handler.addFilter(MaskingFilter())
