"""Versioned prompt texts, kept apart from code; their versions go into every turn's trace."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

_DIR = Path(__file__).resolve().parent
CURRENT = {"planner": "v2", "synth": "v10", "entry_check": "v1"}


@dataclass(frozen=True)
class Prompt:
    """A prompt's text and its version label (file version + content hash)."""

    name: str
    text: str
    version: str


@lru_cache(maxsize=16)
def load(name: str) -> Prompt:
    """The current version of prompt `name`."""
    label = CURRENT[name]
    body = (_DIR / f"{name}.{label}.txt").read_text("utf-8")
    digest = hashlib.sha256(body.encode()).hexdigest()[:8]
    return Prompt(name, body, f"{label}-{digest}")


def versions(without: tuple[str, ...] = ()) -> dict[str, str]:
    """Every current prompt's version, for the trace (less those a run does not use)."""
    return {name: load(name).version for name in CURRENT if name not in without}
