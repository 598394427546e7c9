"""Knowledge gaps: what was refused or handed to people, grouped by topic, for admins.

Questions (masked, as stored) are embedded with the local embedder and grouped:
each question joins the topic whose mean vector it is closest to, when that
cosine reaches GAP_SIMILARITY, else starts a topic; a few reassignment rounds
then undo what arrival order did. Paraphrases in any of the three languages
land together. GAP_SIMILARITY is a property of the embedder, not of any
document set: `bench/gaps.py` measures it (dev sets: StackFAQ paraphrases,
XQuAD questions in English and Chinese).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

GAP_SIMILARITY = 0.55
REFINE_ROUNDS = 3
EXAMPLES = 3
QUESTIONS = 50  # of a topic's distinct questions listed (the console checks them)


def cluster(
    vectors: Sequence[Sequence[float]],
    threshold: float = GAP_SIMILARITY,
    refine: bool = True,
) -> list[int]:
    """The topic index of each vector, in order (topics numbered as they first appear).

    A greedy pass puts each question in the topic whose mean it is closest to (at
    least `threshold`), else a new one; then (`refine`) each question moves to the
    topic mean it is now closest to, or alone when none reaches `threshold`, for a
    few rounds: the greedy pass depends on arrival order and early means drift.
    """
    if not len(vectors):
        return []
    matrix = np.asarray(vectors, dtype=np.float64)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    matrix = matrix / np.where(norms == 0, 1.0, norms)
    labels = np.asarray(_greedy(matrix, threshold))
    for _ in range(REFINE_ROUNDS if refine else 0):
        keys = np.unique(labels)
        centres = np.stack([matrix[labels == k].sum(axis=0) for k in keys])
        centres /= np.linalg.norm(centres, axis=1, keepdims=True)
        similarity = matrix @ centres.T
        moved = keys[similarity.argmax(axis=1)]
        alone = np.flatnonzero(similarity.max(axis=1) < threshold)
        moved[alone] = labels.max() + 1 + np.arange(len(alone))
        if np.array_equal(moved, labels):
            break
        labels = moved
    first: dict[int, int] = {}  # numbered in order of first appearance
    return [first.setdefault(int(k), len(first)) for k in labels]


def _greedy(matrix: np.ndarray, threshold: float) -> list[int]:
    """One pass in arrival order; each topic's sum and norm kept, so a question costs one
    product with every topic so far."""
    sums = np.zeros_like(matrix)
    norms = np.zeros(len(matrix))
    topics = 0
    labels: list[int] = []
    for v in matrix:
        if topics:
            similarity = (sums[:topics] @ v) / norms[:topics]
            best = int(similarity.argmax())
            if similarity[best] >= threshold:
                sums[best] += v
                norms[best] = np.linalg.norm(sums[best])
                labels.append(best)
                continue
        sums[topics] = v
        norms[topics] = np.linalg.norm(v) or 1.0
        labels.append(topics)
        topics += 1
    return labels


def topics(
    items: Sequence[dict[str, Any]],
    labels: Sequence[int],
    vectors: Sequence[Sequence[float]] | None = None,
) -> list[dict[str, Any]]:
    """One entry per topic: count, languages, example questions, newest time, hand-offs,
    whether staff answered any and how many a later re-ask answered; largest first, then
    newest. `label` is the topic's most typical question (closest to its mean, given the
    `vectors`; else the newest), and `questions` its distinct questions (up to QUESTIONS).

    `items` are the gap questions newest first (question, language, at, case_id,
    staff_answered), `labels` their topics.
    """
    grouped: dict[int, list[int]] = {}
    for index, label in enumerate(labels):
        grouped.setdefault(label, []).append(index)
    out = []
    for indexes in grouped.values():
        members = [items[i] for i in indexes]
        questions: list[str] = []
        for m in members:
            q = " ".join(str(m["question"]).split())
            if q and q not in questions and len(questions) < QUESTIONS:
                questions.append(q)
        out.append(
            {
                "label": _typical(members, indexes, vectors),
                "questions": questions,
                "count": len(members),
                "languages": dict(Counter(str(m.get("language") or "?") for m in members)),
                "examples": questions[:EXAMPLES],
                "newest": max(m["at"] for m in members).isoformat(timespec="seconds"),
                "handed_off": sum(1 for m in members if m.get("case_id") is not None),
                "staff_answered": any(m.get("staff_answered") for m in members),
                # asked again after an upload or a sync, and answered now
                "answered_later": sum(1 for m in members if m.get("answered_later")),
            }
        )
    # largest first; among equals the newest first (ISO times in UTC sort as text)
    return sorted(out, key=lambda t: (t["count"], t["newest"]), reverse=True)


def _typical(
    members: Sequence[dict[str, Any]],
    indexes: Sequence[int],
    vectors: Sequence[Sequence[float]] | None,
) -> str:
    """The member question closest to the topic's mean (the newest without vectors)."""
    if not vectors:
        return " ".join(str(members[0]["question"]).split())
    matrix = np.asarray([vectors[i] for i in indexes], dtype=np.float64)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    matrix = matrix / np.where(norms == 0, 1.0, norms)
    best = int((matrix @ matrix.sum(axis=0)).argmax())
    return " ".join(str(members[best]["question"]).split())
