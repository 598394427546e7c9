"""The optional reranker: a cross-encoder behind a `/rerank` endpoint reorders a search's hits.

The fusion (storage.search) ranks by keyword coverage and cosine; a
cross-encoder reads the question and each passage together and can tell the
passage that answers from one that only shares its words. RERANK_BASE_URL
names any server speaking the common shape (Jina, Cohere v1/v2, vLLM,
llama.cpp server's `/v1/rerank`, Infinity): `POST {base}/rerank` with
`{"model", "query", "documents", "top_n"}`, the reply
`{"results": [{"index", "relevance_score"}]}` (`score` accepted too).

The reranker only reorders: the hits it is given are the hits that come back,
none added or dropped. Down, slow (RERANK_TIMEOUT_SECONDS) or answering
garbage, it is skipped: the hits keep the fusion's order, the decision path
says `rerank:skipped:<reason>`, and the log says so once per run of failures
(a reranker that is down would otherwise log every turn). A reranker that did
not answer in time rests for `REST_AFTER_TIMEOUT_S`: searches skip it at once
(`rerank:skipped:resting`) instead of each waiting out the timeout again.
"""

from __future__ import annotations

import asyncio
import logging
import math
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

import httpx

from storage.ingestion import index_text

logger = logging.getLogger(__name__)
H = TypeVar("H")

# The fused candidates a search hands the reranker: enough that a passage the fusion
# put well below the top-k can come up, few enough that a cross-encoder reads them in
# one short request (the cost grows with each passage it reads).
RERANK_CANDIDATES = 20
USED = "rerank:used"
# After a timeout, searches skip the reranker this long before it is asked again: a hung
# server would otherwise add RERANK_TIMEOUT_SECONDS to every turn. A refused connection
# or an error status fails at once and costs nothing, so those are asked every time.
REST_AFTER_TIMEOUT_S = 30.0


_BEARER = re.compile(r"(?i)bearer\s+\S+")


def printable(detail: str) -> str:
    """A server's error text fit for one log line: whitespace folded (no forged lines), any
    echoed bearer token hidden (a proxy may echo the request's headers)."""
    return _BEARER.sub("Bearer ***", " ".join(detail.split()))


def without_userinfo(url: str) -> str:
    """The URL as logged: credentials written into it (https://user:key@host) left out."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return urlunsplit(parts._replace(netloc=parts.netloc.rsplit("@", 1)[1]))


class RerankError(Exception):
    """The reranker could not be used; `reason` is the decision path's word for why."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason


def parse_scores(body: Any, count: int) -> dict[int, float]:
    """Each scored document's index → its score, from a `/rerank` reply for `count` documents.

    Raises RerankError("malformed") for anything else than results with a valid
    index and a finite number (`relevance_score`, or `score` as some servers say).
    A server honouring a smaller `top_n` may leave documents out: they are unscored.
    """
    results = body.get("results") if isinstance(body, dict) else None
    if not isinstance(results, list) or (count and not results):
        raise RerankError("malformed", "no results list")
    scores: dict[int, float] = {}
    for item in results:
        if not isinstance(item, dict):
            raise RerankError("malformed", "a result is not an object")
        index = item.get("index")
        score = item.get("relevance_score", item.get("score"))
        # bool is an int to Python, and no server means True as an index or a score
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < count:
            raise RerankError("malformed", f"index {index!r} out of range")
        if not isinstance(score, int | float) or isinstance(score, bool):
            raise RerankError("malformed", f"score {score!r} is not a number")
        if not math.isfinite(score) or index in scores:
            raise RerankError("malformed", f"score {score!r} of index {index}")
        scores[index] = float(score)
    return scores


@dataclass
class Reranker:
    """A client of one `/rerank` endpoint (RERANK_BASE_URL, RERANK_MODEL, RERANK_API_KEY).

    Its HTTP client is made at the first request (nothing is built at import or
    construction) and kept for the connections' reuse; one per event loop.
    """

    base_url: str
    model: str | None = None
    api_key: str | None = field(default=None, repr=False)  # a secret: never printed
    timeout: float = 5.0  # seconds a request may take in all (RERANK_TIMEOUT_SECONDS)
    _client: httpx.AsyncClient | None = field(default=None, init=False, repr=False)
    _loop: asyncio.AbstractEventLoop | None = field(default=None, init=False, repr=False)
    _failing: bool = field(default=False, init=False, repr=False)
    _resting_until: float = field(default=0.0, init=False, repr=False)  # time.monotonic()

    @property
    def url(self) -> str:
        """Where the requests go: `{RERANK_BASE_URL}/rerank`."""
        return self.base_url.rstrip("/") + "/rerank"

    def _http(self) -> httpx.AsyncClient:
        loop = asyncio.get_running_loop()
        if self._client is None or self._loop is not loop or self._client.is_closed:
            # a client's pooled connections belong to the loop that opened them
            headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
            self._client = httpx.AsyncClient(timeout=self.timeout, headers=headers)
            self._loop = loop
        return self._client

    async def scores(self, query: str, documents: Sequence[str]) -> dict[int, float]:
        """The reranker's score of each document for `query` (by index); raises RerankError."""
        if time.monotonic() < self._resting_until:
            raise RerankError("resting", "it timed out a moment ago")
        body: dict[str, Any] = {
            "query": query,
            "documents": list(documents),
            "top_n": len(documents),
        }
        if self.model:
            body["model"] = self.model
        try:
            # httpx bounds each phase (connect, each read); the whole request gets one clock
            async with asyncio.timeout(self.timeout):
                reply = await self._http().post(self.url, json=body)
        except (TimeoutError, httpx.TimeoutException) as exc:
            self._resting_until = time.monotonic() + REST_AFTER_TIMEOUT_S
            raise RerankError("timeout", f"no reply within {self.timeout:g} s") from exc
        except httpx.HTTPError as exc:
            raise RerankError("unreachable", type(exc).__name__) from exc
        if reply.status_code != 200:
            raise RerankError(f"http_{reply.status_code}", printable(reply.text[:200]))
        try:
            data = reply.json()
        except ValueError as exc:
            raise RerankError("malformed", "the reply is not JSON") from exc
        return parse_scores(data, len(documents))

    def note_failure(self, error: RerankError) -> None:
        """Log the first failure of a run of them as a warning; the rest only in debug."""
        if self._failing:
            logger.debug("reranker still skipped: %s", error)
            return
        self._failing = True
        logger.warning(
            "reranker at %s skipped (%s): searches keep the fused order until it answers again",
            without_userinfo(self.url),
            error,
        )

    def note_success(self) -> None:
        """Say once that a reranker which failed answers again."""
        if self._failing:
            self._failing = False
            logger.info("reranker at %s answers again", without_userinfo(self.url))

    async def aclose(self) -> None:
        """Close the pooled connections (the process is stopping)."""
        if self._client is not None and not self._client.is_closed:
            await self._client.aclose()
        self._client = None


def build_reranker(
    base_url: str | None, model: str | None, api_key: str | None, timeout: float
) -> Reranker | None:
    """The reranker of these settings; None when RERANK_BASE_URL is unset (no reranking)."""
    if not base_url:
        return None
    return Reranker(base_url, model or None, api_key or None, timeout)


def passage_text(hit: Any) -> str:
    """What the reranker reads of a hit: its text under its title and heading, as indexed."""
    return index_text(hit.document, hit.heading, hit.text)


async def rerank_hits(
    reranker: Reranker, query: str, hits: list[H], limit: int = RERANK_CANDIDATES
) -> tuple[list[H], str]:
    """`hits` (search hits: document, heading, text) reordered by the reranker's scores for
    `query`, and the decision (`rerank:used` or `rerank:skipped:<reason>`).

    The first `limit` hits are scored in one request; a hit the reply leaves out,
    and every hit after those, follow in their own order. On any failure the
    hits come back as they were.
    """
    pool = hits[:limit]
    if not pool:
        return hits, "rerank:skipped:no_hits"  # nothing to ask about
    try:
        scores = await reranker.scores(query, [passage_text(h) for h in pool])
    except RerankError as error:
        reranker.note_failure(error)
        return hits, f"rerank:skipped:{error.reason}"
    reranker.note_success()
    # sorted() is stable: equal scores (and the unscored, last) keep the fusion's order
    order = sorted(range(len(pool)), key=lambda i: (i not in scores, -scores.get(i, 0.0)))
    return [pool[i] for i in order] + hits[limit:], USED


def turn_decision(notes: Sequence[str]) -> str | None:
    """One decision-path entry for a step's searches: the first skip, else `rerank:used`."""
    if not notes:
        return None
    return next((n for n in notes if n != USED), USED)
