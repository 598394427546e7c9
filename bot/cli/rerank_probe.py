"""`ragbot doctor`'s reranker check: one real `/rerank` request to RERANK_BASE_URL.

The reranker is optional and a turn goes on without it, so a reranker that
cannot be used is a warning, not a failure.
"""

from __future__ import annotations

import time

from bot.cli.llm_probe import Finding
from graph.rerank import RerankError, build_reranker, without_userinfo

# what a working reranker must rank first: the passage that answers
_QUERY = "How much does a passport renewal cost?"
_DOCUMENTS = ("The library opens at nine.", "A passport renewal costs 1,300 dollars.")


async def probe_reranker(
    base_url: str | None, model: str | None, api_key: str | None, timeout: float
) -> list[Finding]:
    """What the configured reranker answers to one request (none configured: one line)."""
    reranker = build_reranker(base_url, model, api_key, timeout)
    if reranker is None:
        return [Finding("ok", "no reranker configured (RERANK_BASE_URL): the fusion's order")]
    started = time.perf_counter()
    try:
        scores = await reranker.scores(_QUERY, list(_DOCUMENTS))
    except RerankError as error:
        where = without_userinfo(reranker.url)
        text = f"reranker at {where} cannot be used ({error}): searches keep the fusion's order"
        return [Finding("warn", text)]
    finally:
        await reranker.aclose()
    seconds = time.perf_counter() - started
    found = [
        Finding(
            "ok",
            f"reranker at {without_userinfo(reranker.url)} answers: {seconds:.2f} s for 2 passages",
        )
    ]
    if scores.get(1, 0.0) <= scores.get(0, 0.0):
        found.append(
            Finding(
                "warn",
                "the reranker did not rank the passage that answers first: check RERANK_MODEL",
            )
        )
    return found
