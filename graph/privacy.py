"""The privacy rule, in one place: what is masked in what users send.

Applied to a user's message before it is stored, traced, logged, sent to the
LLM or to a remote embedding endpoint (the service masks it before the graph
runs; a logging filter masks log records). Documents are not masked: an office
phone number in a document stays in the answer.

The personal-data rules (e-mail, IDs, phones, cards) live in
textkit.personal_data, which also screens documents bound for `public`; the
secret and token rules here run before them. Every rule bounds itself with
ASCII lookarounds (Python's `\\b` treats CJK characters as word characters).
"""

from __future__ import annotations

import logging
import re

from textkit.personal_data import PERSONAL_RULES, PHONE_CUE, fold_width, substitute

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


def _bounded(core: str) -> str:
    return f"{_NOT_ALNUM_BEFORE}(?:{core}){_NOT_ALNUM_AFTER}"


# Order matters: tokens and keys before e-mail and numbers (a key can hold digit runs);
# the number rules say why they come where they do.
_RULES: list[tuple[re.Pattern[str], str]] = [
    # ragbot's own API keys (`rbk_` + 32 random bytes, URL-safe base64: bot.core.admin.api_keys)
    (re.compile(f"{_NOT_ALNUM_BEFORE}rbk_[A-Za-z0-9_-]{{16,}}"), "[API_KEY]"),
    (re.compile(r"eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}"), "[JWT]"),
    # OpenAI-style and Stripe keys, Langfuse's `sk-lf-…` / `pk-lf-…` (a UUID after the prefix)
    (
        re.compile(_bounded(r"(?:sk|rk|pk)-(?:proj-|live-|test-|lf-)?[A-Za-z0-9_\-]{16,}")),
        "[API_KEY]",
    ),
    (re.compile(_bounded(r"AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_\-]{35}")), "[API_KEY]"),
    # Slack tokens (bot, user, app-level, refresh `xoxe.xoxp-…`), also inside URLs and headers
    (
        re.compile(f"{_NOT_ALNUM_BEFORE}(?:xoxe\\.)?(?:xox[a-z]|xapp)-[A-Za-z0-9-]{{10,}}"),
        "[TOKEN]",
    ),
    (re.compile(_bounded(r"gh[pousr]_[A-Za-z0-9]{30,}|glpat-[A-Za-z0-9_\-]{20,}")), "[TOKEN]"),
    # Telegram bot token, alone or in a Bot API URL path (`…/bot123456:AAH…/getMe`,
    # `/file/bot<token>/…`): "bot" glued to the digits defeats a plain word boundary
    # (also a URL-quoted one: `%2Fbot…`, the colon as `%3A`)
    (
        re.compile(f"(?:(?<=bot)|{_NOT_ALNUM_BEFORE})\\d{{5,12}}(?::|%3[Aa])[A-Za-z0-9_-]{{30,}}"),
        "[TOKEN]",
    ),
    (re.compile(r"(?i)(?<![A-Za-z])(bearer)\s+[A-Za-z0-9._~+/=-]{16,}"), r"\1 [TOKEN]"),
    (
        re.compile(
            r"(?i)(?<![A-Za-z])(password|passwd|pwd|passcode|pin|密碼|密码|口令)\s*[:=：]\s*\S+"
        ),
        r"\1: [SECRET]",
    ),
    *PERSONAL_RULES,  # e-mail, IDs, phones, cards: shared with document screening
]
_PHONE_CUE = PHONE_CUE  # after a phone cue, any 7+ digit number is a phone number


def mask_sensitive(text: str) -> str:
    """The text with secrets and personal data replaced by placeholders.

    The rules match on the text with full-width forms folded to ASCII
    (Ａ１２３４５６７８９ is an ID); everything they do not replace stays as written.
    """
    folded = fold_width(text)
    for pattern, replacement in _RULES:
        text, folded = substitute(pattern, replacement, text, folded)
    return substitute(_PHONE_CUE, r"\1[PHONE]", text, folded)[0]


def has_personal_data(masked: str) -> bool:
    """True when masked text carries a placeholder (it held personal data or a secret)."""
    return any(p in masked for p in PLACEHOLDERS)


_TRACEBACKS = logging.Formatter()  # renders exc_info as every handler's formatter would


class MaskingFilter(logging.Filter):
    """Masks log records before any handler writes them: the message and its arguments,
    the exception's traceback and the stack (a Bot API URL with the token in an
    exception message reaches the log only through these)."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Replace the record's text with its masked rendering; never drops a record."""
        try:
            rendered = record.getMessage()
        except Exception:  # a malformed record: leave it to the handler to report
            rendered = None
        if rendered is not None:
            masked = mask_sensitive(rendered)
            if masked != rendered:
                record.msg, record.args = masked, None
        if record.exc_info:
            # Handlers format exc_info into exc_text only when exc_text is empty: render
            # it here, masked, and drop exc_info so no handler renders it unmasked again.
            if not record.exc_text:
                record.exc_text = _TRACEBACKS.formatException(record.exc_info)
            record.exc_info = None
        if record.exc_text:
            record.exc_text = mask_sensitive(record.exc_text)
        if record.stack_info:
            record.stack_info = mask_sensitive(record.stack_info)
        return True


def install_log_masking(logger: logging.Logger | None = None) -> None:
    """Attach the masking filter to every handler of `logger` (the root by default)."""
    target = logger or logging.getLogger()
    for handler in target.handlers:
        if not any(isinstance(f, MaskingFilter) for f in handler.filters):
            handler.addFilter(MaskingFilter())
