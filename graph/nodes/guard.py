"""guard: empty/too-long messages, prompt-injection and abuse screen, secret/PII masking.

Runs before anything leaves the process, so what the LLM, the logs and the
trace see is the masked question.
"""

from __future__ import annotations

import re
import time

from graph.messages import message
from graph.state import GraphState
from storage.text import detect_language

MAX_CHARS = 2000

_INJECTION = re.compile(
    r"ignore (all |any )?(the )?(previous|prior|above) (instructions|prompts?)"
    r"|disregard (the |your )?(system|previous) (prompt|instructions)"
    r"|(reveal|print|show) (me )?(your|the) (system )?prompt"
    r"|you are now (dan|an? unrestricted)"
    r"|忽略(之前|以上|先前|前面)(的)?(所有)?(指令|指示|提示)"
    r"|(無視|无视)(之前|以上)(的)?(指令|指示)"
    r"|(顯示|显示|輸出|输出)(你的)?(系統|系统)(提示|指令)",
    re.IGNORECASE,
)
_ABUSE = re.compile(r"\b(fuck(ing)?|cunt|motherfucker)\b|幹你娘|干你娘|操你[妈媽]|去死吧", re.I)

# Order matters: keys and card numbers before the generic long-digit phone rule.
_MASKS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\b(sk|rk|pk)-[A-Za-z0-9_-]{16,}\b"), "[API_KEY]"),
    (re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}\b"), "[SLACK_TOKEN]"),
    (re.compile(r"\bAKIA[0-9A-Z]{16}\b"), "[AWS_KEY]"),
    (re.compile(r"\b\d{8,10}:[A-Za-z0-9_-]{30,}\b"), "[BOT_TOKEN]"),
    (re.compile(r"(?i)\b(password|passwd|pwd|密碼|密码)\s*[:=：]\s*\S+"), r"\1: [SECRET]"),
    (re.compile(r"[\w.+-]+@[\w-]+\.[\w.-]+"), "[EMAIL]"),
    (re.compile(r"\b(?:\d[ -]?){13,16}\b"), "[CARD]"),
    (re.compile(r"\b[A-Z][12]\d{8}\b"), "[ID]"),  # Taiwan national ID
    (re.compile(r"\b\d{17}[\dXx]\b"), "[ID]"),  # PRC resident ID
    (re.compile(r"(?<!\w)\+?\d[\d -]{7,}\d(?!\w)"), "[PHONE]"),
]


def mask_sensitive(text: str) -> str:
    """The text with secrets and personal data replaced by placeholders."""
    for pattern, replacement in _MASKS:
        text = pattern.sub(replacement, text)
    return text


def guard(state: GraphState) -> GraphState:
    """Screen the message; a blocked one gets its reply here and skips the pipeline."""
    start = time.perf_counter()
    question = (state.get("question") or "").strip()
    language = state.get("reply_language") or (detect_language(question) if question else "en")
    reason: str | None = None
    if not question:
        reason, reply = "empty", message("empty", language)
    elif len(question) > MAX_CHARS:
        reason, reply = "too_long", message("too_long", language, limit=MAX_CHARS)
    elif _INJECTION.search(question):
        reason, reply = "injection", message("injection", language)
    elif _ABUSE.search(question):
        reason, reply = "abuse", message("abuse", language)
    update: GraphState = {
        "guard_blocked": reason is not None,
        "guard_reason": reason,
        "safe_question": mask_sensitive(question),
        "decision_path": ["guard" if reason is None else f"guard:blocked:{reason}"],
        "timings_ms": {"guard": round((time.perf_counter() - start) * 1000, 3)},
    }
    if reason is not None:
        update["answer"] = reply
        update["language"] = language  # type: ignore[typeddict-item]
        update["citations"] = []
    return update
