"""Sentence-aware chunking."""

from __future__ import annotations

from storage.chunking import Block, chunk_blocks, faq_blocks


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


def test_faq_page_splits_into_entries_with_their_questions() -> None:
    page = (
        "Citizen FAQ\n"
        "Q: How do I renew my passport?\nA: Bring your old passport to any service centre.\n"
        "Q: What does a library card cost?\nA: It is free for residents."
    )
    blocks = faq_blocks([Block(page)])
    assert [b.question for b in blocks] == [
        None,
        "How do I renew my passport?",
        "What does a library card cost?",
    ]
    assert blocks[1].heading == blocks[1].question
    # every chunk of an entry carries its question, even a long answer's later ones
    long_answer = "Q: Where can I park?\nA: " + " ".join(f"Zone {i} has spaces." for i in range(60))
    chunks = chunk_blocks(faq_blocks([Block(long_answer)]), size=200, overlap=20)
    assert len(chunks) > 2
    assert {c.question for c in chunks} == {"Where can I park?"}


def test_a_file_holding_one_marked_entry_is_an_entry() -> None:
    [entry] = faq_blocks([Block("Q: Strikethrough with GitHub Markdown\nA: Use ~~tildes~~.")])
    assert entry.question == "Strikethrough with GitHub Markdown"
    [zh] = faq_blocks([Block("問：如何申請停車許可證？\n答：攜帶行車執照到區公所辦理。")])
    assert zh.question == "如何申請停車許可證？"


def test_a_question_in_prose_is_not_an_entry() -> None:
    prose = "Why do cities plant trees?\nTrees cool the streets and clean the air."
    assert faq_blocks([Block(prose)])[0].question is None
    opening = "The fee rose this year. Why?\nBecause costs rose."
    assert faq_blocks([Block(opening)])[0].question is None
    # a marked question with no answer after it is not an entry either
    assert faq_blocks([Block("Q: anything?")])[0].question is None
    # nor a quarter's line in a report
    report = "Q3: revenue grew 5% on the year.\nCosts were flat."
    assert faq_blocks([Block(report)])[0].question is None


def test_a_section_headed_by_a_question_is_an_entry() -> None:
    [section] = faq_blocks([Block("Bring two photos and your ID.", heading="How do I apply?")])
    assert section.question == "How do I apply?"
    [plain] = faq_blocks([Block("Bring two photos and your ID.", heading="Applying")])
    assert plain.question is None


def test_entries_rebuilt_from_their_chunks_keep_their_questions() -> None:
    # `ragbot reindex --rechunk` rebuilds one block per stored entry, headed by its
    # question; unmarked and numbered questions must stay entries
    for line, question in [
        ("How do I renew my card?", "How do I renew my card?"),
        ("1. What does it cost?", "What does it cost?"),
        ("Q: Where do I park?", "Where do I park?"),
    ]:
        block = Block(f"{line}\nAnswer text here.", heading=question)
        assert faq_blocks([block])[0].question == question


def test_a_heading_and_list_items_keep_their_line_breaks() -> None:
    text = (
        "Opening hours\n\nThe centre is open from 8:30 to 17:30. Bring:\n"
        "- your identity card\n- your passport\n\n營業時間\n\n週一至週五開放。"
    )
    (chunk,) = chunk_blocks([Block(text)])
    assert chunk.text == (
        "Opening hours\n\nThe centre is open from 8:30 to 17:30. Bring:\n"
        "- your identity card\n- your passport\n\n營業時間\n\n週一至週五開放。"
    )
    # sentences run on as before
    assert chunk_blocks([Block("One. Two.\n\n甲。乙。")])[0].text == "One. Two.甲。乙。"
