"""Traditional Chinese read by the local embedder through both scripts: its vector as
written and in Simplified, averaged (storage.embeddings)."""

from __future__ import annotations

import numpy as np

from storage.embeddings import Embedder, LocalUSEEmbeddings
from textkit.scripts import to_simplified

TRADITIONAL = "護照換發的費用是多少？需要帶哪些文件？"


def test_a_traditional_text_is_the_mean_of_its_two_scripts(embedder: Embedder) -> None:
    model = embedder.model
    assert isinstance(model, LocalUSEEmbeddings)
    raw = model._get().encode([TRADITIONAL, to_simplified(TRADITIONAL)])
    expected = (raw[0] + raw[1]) / np.linalg.norm(raw[0] + raw[1])
    got = np.asarray(model.embed_query(TRADITIONAL))
    assert abs(float(np.linalg.norm(got)) - 1.0) < 1e-5
    assert float(got @ expected) > 0.99999
    # nearer its Simplified form than the vector as written is: the two scripts meet
    simplified = np.asarray(model.embed_query(to_simplified(TRADITIONAL)))
    assert float(got @ simplified) > float(raw[0] @ raw[1]) + 0.01


def test_other_texts_keep_their_own_vector(embedder: Embedder) -> None:
    model = embedder.model
    assert isinstance(model, LocalUSEEmbeddings)
    texts = ["How do I renew my passport?", to_simplified(TRADITIONAL), "1,300"]
    raw = model._get().encode(texts)
    for text, row in zip(texts, raw, strict=True):
        assert float(np.asarray(model.embed_query(text)) @ row) > 0.99999
    # a batch mixing both kinds gives each text the vector it gets alone
    batch = model.embed_documents([TRADITIONAL, *texts])
    assert float(np.asarray(batch[0]) @ np.asarray(model.embed_query(TRADITIONAL))) > 0.99999
