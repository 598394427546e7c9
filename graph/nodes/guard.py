"""guard: empty/too-long messages, prompt-injection and abuse screen, secret/PII masking.

The service masks the question before the graph runs (graph.privacy); the guard
masks again so the graph holds the rule on its own when run directly.
"""

from __future__ import annotations

import re
import time

from graph.messages import message
from graph.privacy import mask_sensitive
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
