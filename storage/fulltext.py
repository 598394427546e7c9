"""Postgres full-text literals built from our own keyword tokens.

Built here rather than by `to_tsvector` so Postgres's parser
cannot re-split jieba's tokens (it would break "covid-19" or mixed-script
words apart).
"""

from __future__ import annotations


def tsvector_literal(tokens: list[str]) -> str:
    """A `tsvector` literal holding exactly these tokens with their positions."""
    positions: dict[str, list[int]] = {}
    for pos, tok in enumerate(tokens[:16383], start=1):
        positions.setdefault(tok, []).append(pos)
    parts = []
    for tok, pos_list in positions.items():
        quoted = tok.replace("\\", "\\\\").replace("'", "''")
        parts.append(f"'{quoted}':{','.join(str(p) for p in pos_list[:256])}")
    return " ".join(parts)
