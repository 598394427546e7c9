"""Which passages are in another language than the question, and cosines read in one
script: the few things the cross-language tests (graph.cross_language) and the FAQ
entries across languages (graph.cross_entries) both stand on."""

from __future__ import annotations

import asyncio
import re
from typing import Any

from textkit.scripts import to_simplified

# a file name's hyphens and underscores, read as spaces where it stands as a title
NAME_JOINERS = re.compile(r"[-_]+")


def family(language: str | None) -> str:
    """ "en" or "zh": a passage's language, either Chinese script being "zh"."""
    return "en" if language == "en" else "zh"


def crosses(item: dict[str, Any]) -> bool:
    """True when the passage is written in another language than the question."""
    return bool(item.get("cross_language"))


async def cosines(embedder: Any, question: str, texts: list[str]) -> list[float]:
    """Cosine of each text with the question, both in Simplified; one batched call
    (in a thread: embedding is CPU work)."""
    vectors = await asyncio.to_thread(
        embedder.embed_documents, [to_simplified(t) for t in [question, *texts]]
    )
    q = vectors[0]
    return [sum(a * b for a, b in zip(q, v, strict=True)) for v in vectors[1:]]
