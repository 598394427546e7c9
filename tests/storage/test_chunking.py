"""Sentence-aware chunking."""

from __future__ import annotations

from storage.chunking import Block, chunk_blocks


def test_chunks_respect_size_keep_overlap_and_never_cut_sentences() -> None:
    sentences = [f"這是第{i}個句子，內容稍微長一點點。" for i in range(40)]
    chunks = chunk_blocks([Block("".join(sentences), page=3)], size=100, overlap=30)
    assert len(chunks) > 3
    for chunk in chunks:
        assert len(chunk.text) <= 100
        assert chunk.text.endswith("。")
        assert chunk.page == 3
    # consecutive chunks share their boundary sentence
    assert any(s in chunks[0].text and s in chunks[1].text for s in sentences)
    assert [c.position for c in chunks] == list(range(len(chunks)))


def test_chunks_do_not_span_blocks_and_keep_headings() -> None:
    blocks = [Block("Alpha text.", heading="A"), Block("Beta text.", heading="B", page=2)]
    chunks = chunk_blocks(blocks, size=500, overlap=50)
    assert [(c.text, c.heading, c.page) for c in chunks] == [
        ("Alpha text.", "A", None),
        ("Beta text.", "B", 2),
    ]


def test_overlong_sentence_is_cut_hard() -> None:
    chunks = chunk_blocks([Block("字" * 250)], size=100, overlap=0)
    assert [len(c.text) for c in chunks] == [100, 100, 50]
