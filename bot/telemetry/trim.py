"""What a trace keeps of the graph state: enough to see why, not every passage in full.

Every node span would otherwise carry the whole state as input and output
(the merged candidates alone are dozens of passages); serialising that for ten
spans a turn cost more CPU than the turn's search. The SDK applies this to every
input, output and metadata value before serialising it.
"""

from __future__ import annotations

from typing import Any

MAX_TEXT = 6000  # characters of any one string (a synthesis prompt with its passages fits)
MAX_ITEMS = 10  # passages listed per list of candidates


def _passage(item: Any) -> Any:
    if not isinstance(item, dict):
        return trim_for_trace(item)
    keep = {k: item[k] for k in ("document", "chunk_id", "score", "page") if k in item}
    if "text" in item:
        keep["text"] = _clip(str(item["text"]), 160)
    return keep


def _clip(text: str, limit: int = MAX_TEXT) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def trim_for_trace(data: Any, **_: Any) -> Any:
    """`data` with passage lists summarised and long strings clipped (a Langfuse mask)."""
    if isinstance(data, str):
        return _clip(data)
    if isinstance(data, dict):
        out: dict[Any, Any] = {}
        for key, value in data.items():
            if key in ("candidates", "evidence") and isinstance(value, list):
                out[key] = [_passage(v) for v in value[:MAX_ITEMS]]
                if len(value) > MAX_ITEMS:
                    out[f"{key}_total"] = len(value)
            else:
                out[key] = trim_for_trace(value)
        return out
    if isinstance(data, list | tuple):
        return [trim_for_trace(v) for v in data]
    return data
