"""The guard's second screen: a message whose meaning is close to a known attack.

The patterns of `graph.injection` catch the shapes of instructions aimed at
the assistant; attackers reword. This screen embeds the message (and each of
its sentences, so benign padding around an attack does not dilute it) with the
local multilingual embedder and compares it with two banks in English, 繁體
and 简体: known attacks (`graph/screens/attacks.v3.txt`) and ordinary requests
that share their words ("please ignore my earlier email", "who is the
administrator", `graph/screens/ordinary.v3.txt`). A piece is an attack when its
similarity to the nearest attack is at least `THRESHOLD` and higher than to
any ordinary request.

`THRESHOLD` was set on benign questions only: a handful of the evaluation
sets' 7,278 questions (DRCD, XQuAD en/zh, StackFAQ) reach 0.45; what the
screen catches is measured on attacks and benign look-alikes written apart from
the banks and the patterns (tests/support/attack_held_out.py,
attack_held_out_b.py and attack_held_out_c.py, bench/guard.py). It was calibrated
for the local USE model only: with another embedder the runtime leaves it off.
"""

from __future__ import annotations

import asyncio
import hashlib
import weakref
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from graph.text_banks import bank_lines, unit_rows
from textkit.sentences import split_sentences

SCREENS = Path(__file__).resolve().parent / "screens"
BANKS = "v3"  # the banks' version: their file names, and the trace's label with their digest
THRESHOLD = 0.45
MAX_PIECES = 8  # the whole message and up to this many of its sentences


@dataclass(frozen=True)
class Closeness:
    """How close a message came to a known attack: its nearest attack's similarity, the
    nearest ordinary request's for the same piece, and whether that blocks it."""

    attack: float
    ordinary: float

    @property
    def blocks(self) -> bool:
        return self.attack >= THRESHOLD and self.attack > self.ordinary


@dataclass
class AttackBank:
    """Both banks, embedded once per embedder (on first use, off the event loop)."""

    attacks: tuple[str, ...]
    ordinary: tuple[str, ...]
    version: str
    _vectors: weakref.WeakKeyDictionary[Any, tuple[Any, Any]] = field(
        default_factory=weakref.WeakKeyDictionary
    )
    _pending: weakref.WeakKeyDictionary[Any, asyncio.Future[tuple[Any, Any]]] = field(
        default_factory=weakref.WeakKeyDictionary
    )

    async def closeness(self, embedder: Any, text: str) -> Closeness:
        """The closest any piece of the message (the whole, or one sentence) came to an
        attack relative to the ordinary requests: the piece that blocks, else the nearest."""
        if not self.attacks or not text.strip():
            return Closeness(0.0, 0.0)
        attacks, ordinary = await self._banks(embedder)
        sentences = split_sentences(text)
        pieces = [text, *(sentences[:MAX_PIECES] if len(sentences) > 1 else [])]
        # in a thread even for the lane's holder: a long message is many pieces, and the
        # guard's time limit around this screen can only fire while it waits
        rows = await asyncio.to_thread(embedder.embed_documents, pieces)
        vectors = unit_rows(np.asarray(rows))
        near_attack = (vectors @ attacks.T).max(axis=1)
        near_ordinary = (vectors @ ordinary.T).max(axis=1) if len(ordinary) else near_attack * 0
        found = [
            Closeness(float(a), float(o)) for a, o in zip(near_attack, near_ordinary, strict=True)
        ]
        blocking = [c for c in found if c.blocks]
        return max(blocking or found, key=lambda c: c.attack)

    def warm(self, embedder: Any) -> None:
        """Embed the banks now (blocking: at start-up, in a thread), so the first message
        is not the one to pay for it, nor to pass unscreened if that takes long."""
        if embedder not in self._vectors:
            rows = unit_rows(np.asarray(embedder.embed_documents([*self.attacks, *self.ordinary])))
            self._vectors[embedder] = (rows[: len(self.attacks)], rows[len(self.attacks) :])

    async def _banks(self, embedder: Any) -> tuple[Any, Any]:
        if embedder in self._vectors:
            return self._vectors[embedder]
        # one embedding of the banks per embedder, finished even when the turn that started
        # it stops waiting (the guard's time bound): the next turn finds it done
        task = self._pending.get(embedder)
        if task is None:
            task = asyncio.ensure_future(self._embed_banks(embedder))
            self._pending[embedder] = task
        return await asyncio.shield(task)

    async def _embed_banks(self, embedder: Any) -> tuple[Any, Any]:
        texts = [*self.attacks, *self.ordinary]
        try:
            rows = unit_rows(np.asarray(await asyncio.to_thread(embedder.embed_documents, texts)))
        finally:
            self._pending.pop(embedder, None)  # a failure is tried again by a later turn
        banks = (rows[: len(self.attacks)], rows[len(self.attacks) :])
        self._vectors[embedder] = banks
        return banks


@lru_cache(maxsize=1)
def attack_bank() -> AttackBank:
    """The banks of the current version (read once, on first use)."""
    attacks = (SCREENS / f"attacks.{BANKS}.txt").read_text("utf-8")
    ordinary = (SCREENS / f"ordinary.{BANKS}.txt").read_text("utf-8")
    digest = hashlib.sha256((attacks + ordinary).encode()).hexdigest()[:8]
    return AttackBank(bank_lines(attacks), bank_lines(ordinary), f"{BANKS}-{digest}")
