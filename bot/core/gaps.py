"""Knowledge gaps: what was refused or handed to people, grouped by topic, for admins.

Questions (masked, as stored) are embedded with the local embedder and grouped
greedily: each question joins the topic whose mean vector it is closest to,
when that cosine reaches GAP_SIMILARITY, else starts a topic. Paraphrases in
any of the three languages land together (the multilingual embedder puts them
at 0.5–0.85 of each other, unrelated questions under 0.35 on the dev checks);
the threshold is a property of the embedder, not of any document set.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

GAP_SIMILARITY = 0.5
EXAMPLES = 3


def cluster(vectors: Sequence[Sequence[float]], threshold: float = GAP_SIMILARITY) -> list[int]:
    """The topic index of each vector, in order (topics numbered as they first appear)."""
    labels: list[int] = []
    sums: list[np.ndarray] = []
    for raw in vectors:
        v = np.asarray(raw, dtype=np.float64)
        norm = np.linalg.norm(v)
        v = v / norm if norm else v
        best, best_cos = -1, threshold
        for i, total in enumerate(sums):
            centre = total / (np.linalg.norm(total) or 1.0)
            cos = float(centre @ v)
            if cos >= best_cos:
                best, best_cos = i, cos
        if best < 0:
            sums.append(v.copy())
            labels.append(len(sums) - 1)
        else:
            sums[best] += v
            labels.append(best)
    return labels


def topics(items: Sequence[dict[str, Any]], labels: Sequence[int]) -> list[dict[str, Any]]:
    """One entry per topic: count, languages, example questions, newest time, hand-offs and
    whether staff answered any; largest first, then newest.

    `items` are the gap questions newest first (question, language, at, case_id,
    staff_answered), `labels` their topics.
    """
    grouped: dict[int, list[dict[str, Any]]] = {}
    for item, label in zip(items, labels, strict=True):
        grouped.setdefault(label, []).append(item)
    out = []
    for members in grouped.values():
        examples: list[str] = []
        for m in members:
            q = " ".join(str(m["question"]).split())
            if q and q not in examples and len(examples) < EXAMPLES:
                examples.append(q)
        out.append(
            {
                "count": len(members),
                "languages": dict(Counter(str(m.get("language") or "?") for m in members)),
                "examples": examples,
                "newest": max(m["at"] for m in members).isoformat(timespec="seconds"),
                "handed_off": sum(1 for m in members if m.get("case_id") is not None),
                "staff_answered": any(m.get("staff_answered") for m in members),
            }
        )
    # largest first; among equals the newest first (ISO times in UTC sort as text)
    return sorted(out, key=lambda t: (t["count"], t["newest"]), reverse=True)
