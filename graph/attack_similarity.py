"""The guard's second screen: a message whose meaning is close to a known attack.

The patterns of `graph.injection` catch the shapes of instructions aimed at
the assistant; attackers reword. This screen embeds the message with the local
multilingual embedder and compares it with a bank of known attacks in English,
繁體 and 简体 (`graph/screens/attacks.v1.txt`): a cosine similarity of
`THRESHOLD` or more to any of them blocks it as an injection, whatever the
wording or language.

`THRESHOLD` was set on benign questions only: no more than 0.1 % of the
evaluation sets' 6,029 questions (DRCD, XQuAD en/zh, StackFAQ) reach 0.45
(2 do: history questions about an "invasion", 入侵); the attacks it catches were
measured on rewordings kept apart from the bank (tests/support/attack_rewordings.py).
"""

from __future__ import annotations

import asyncio
import hashlib
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

BANK_FILE = Path(__file__).resolve().parent / "screens" / "attacks.v1.txt"
THRESHOLD = 0.45


@dataclass
class AttackBank:
    """The known attacks, embedded once per embedder (on first use, off the event loop)."""

    texts: tuple[str, ...]
    version: str
    _vectors: dict[int, Any] = field(default_factory=dict)  # embedder id → unit rows

    async def similarity(self, embedder: Any, text: str) -> float:
        """The message's highest cosine similarity to a known attack (0 with no bank)."""
        if not self.texts or not text.strip():
            return 0.0
        bank = await self._bank(embedder)
        vector = np.asarray(await asyncio.to_thread(embedder.embed_query, text[:2000]))
        norm = float(np.linalg.norm(vector)) or 1.0
        return float(np.max(bank @ (vector / norm)))

    async def _bank(self, embedder: Any) -> Any:
        # no lock: two first turns at once both embed the bank, and one result stays
        key = id(embedder)
        if key not in self._vectors:
            rows = np.asarray(await asyncio.to_thread(embedder.embed_documents, list(self.texts)))
            norms = np.linalg.norm(rows, axis=1, keepdims=True)
            self._vectors[key] = rows / np.where(norms == 0, 1.0, norms)
        return self._vectors[key]


@lru_cache(maxsize=1)
def attack_bank() -> AttackBank:
    """The bank of the current version (read once, on first use)."""
    body = BANK_FILE.read_text("utf-8")
    texts = tuple(
        line.strip() for line in body.splitlines() if line.strip() and not line.startswith("#")
    )
    digest = hashlib.sha256(body.encode()).hexdigest()[:8]
    return AttackBank(texts, f"v1-{digest}")
