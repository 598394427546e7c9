"""`ragbot gaps --json`: refused questions grouped by topic across languages, largest first."""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from bot.core.admin.gaps import cluster, topics
from storage.embeddings import Embedder
from tests.cli.conftest import cli
from tests.support.core_fixtures import (
    close_worker,
    collect,
    make_worker,
    message,
    settings_for_tests,
)

__all__ = ["cli"]

DOG = [
    "Where do I register my dog?",
    "How can I get a licence for my new puppy?",
    "狗狗要去哪裡辦理寵物登記？",
    "养狗需要去哪里登记？",
]
POOL = [
    "When does the public swimming pool open?",
    "What are the opening hours of the city pool?",
    "市立游泳池幾點開放？",
]


async def test_gaps_group_paraphrases_of_one_missing_topic_apart_from_another(
    cli: Any, database_url: str, embedder: Embedder
) -> None:
    worker = await make_worker(database_url, embedder, settings_for_tests(), open_jobs=False)
    try:
        for i, question in enumerate([*DOG, *POOL]):  # no documents: every one is refused
            await collect(worker.core.handle(message(question, platform="console", conv=f"g{i}")))
        # refused too, but no document is missing: a person asked for, a poem
        for i, asked in enumerate(["Can I talk to a real person?", "幫我寫一首詩"]):
            await collect(worker.core.handle(message(asked, platform="console", conv=f"o{i}")))
    finally:
        await close_worker(worker)
    result = cli("gaps", "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["questions"] == len(DOG) + len(POOL)
    groups = [sorted(t["examples"]) for t in report["topics"]]
    counts = [t["count"] for t in report["topics"]]
    assert counts == [4, 3]  # the larger topic first
    assert set(groups[0]) <= set(DOG) and set(groups[1]) <= set(POOL)
    assert set(report["topics"][0]["languages"]) == {"en", "zh-hant", "zh-hans"}
    assert report["topics"][0]["staff_answered"] is False


def test_clustering_keeps_near_vectors_together_and_far_ones_apart() -> None:
    a, b = np.eye(4)[0], np.eye(4)[1]
    near_a = a + 0.3 * np.eye(4)[2]
    labels = cluster([a, b, near_a, b * 2])
    assert labels == [0, 1, 0, 1]
    assert cluster([]) == []


def test_topics_sort_largest_then_newest_and_count_hand_offs() -> None:
    from datetime import UTC, datetime, timedelta

    now = datetime.now(UTC)
    items = [
        {"question": "x", "language": "en", "at": now, "case_id": None, "staff_answered": False},
        {
            "question": "y",
            "language": "en",
            "at": now - timedelta(days=1),
            "case_id": 3,
            "staff_answered": True,
        },
        {
            "question": "z",
            "language": "zh-hant",
            "at": now - timedelta(days=2),
            "case_id": None,
            "staff_answered": False,
        },
        {
            "question": "w",
            "language": "en",
            "at": now - timedelta(days=3),
            "case_id": None,
            "staff_answered": False,
        },
    ]
    found = topics(items, [0, 1, 1, 2])
    assert [t["count"] for t in found] == [2, 1, 1]
    assert found[0]["handed_off"] == 1 and found[0]["staff_answered"] is True
    assert found[1]["examples"] == ["x"]  # of the two single ones, the newer first
