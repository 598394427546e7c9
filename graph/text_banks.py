"""Banks of short texts kept beside the code and compared by the embedder: their lines
and unit vectors (the guard's attack banks, the everyday questions FAQ entries face)."""

from __future__ import annotations

from typing import Any

import numpy as np


def bank_lines(body: str) -> tuple[str, ...]:
    """A bank file's texts: one a line, blank lines and lines starting with # left out."""
    return tuple(
        line.strip() for line in body.splitlines() if line.strip() and not line.startswith("#")
    )


def unit_rows(rows: Any) -> Any:
    """Vectors (one a row) scaled to length 1, so a product of two is their cosine."""
    array = np.asarray(rows, dtype=np.float32)
    norms = np.linalg.norm(array, axis=1, keepdims=True)
    return array / np.where(norms == 0, 1.0, norms)
