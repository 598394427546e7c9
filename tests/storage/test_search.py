"""Hybrid search on real Postgres: cross-script, English, filters, thresholds, embedder identity."""

from __future__ import annotations

import pytest

from storage.db import Database
from storage.embeddings import Embedder, EmbeddingMismatchError
from storage.index import check_embedder, reindex
from storage.ingestion import IngestionService
from storage.search import HybridSearcher, SearchFilters, linear_fusion, rrf

DOCS = {
    "停車許可證.txt": "住宅區停車許可證每年收費新臺幣一千二百元，需攜帶行車執照正本與身分證辦理。",
    "图书馆.txt": "市立图书馆借书证免费办理，每张借书证最多可借二十册图书，借期二十一天。",
    "passport.txt": "An adult passport renewal costs 1,300 dollars and takes four working days.",
    "opening.txt": "The City Service Centre is open Monday to Friday from 8:30 to 17:30.",
}


@pytest.fixture
async def loaded(ingestion: IngestionService) -> None:
    for name, body in DOCS.items():
        assert (await ingestion.ingest_bytes(name, body.encode())).status == "added"


async def test_simplified_question_finds_traditional_passage(
    loaded: None, searcher: HybridSearcher
) -> None:
    hits = await searcher.search("停车许可证要带什么证件？", top_k=3)
    assert hits[0].document == "停車許可證"
    assert hits[0].page is None and hits[0].chunk_id > 0


async def test_traditional_question_finds_simplified_passage(
    loaded: None, searcher: HybridSearcher
) -> None:
    hits = await searcher.search("圖書館借書證可以借幾本書？", top_k=3)
    assert hits[0].document == "图书馆"


async def test_english_question(loaded: None, searcher: HybridSearcher) -> None:
    hits = await searcher.search("How much is a passport renewal?", top_k=2)
    assert hits[0].document == "passport"


async def test_results_are_ordered_and_scored(loaded: None, searcher: HybridSearcher) -> None:
    hits = await searcher.search("When does the service centre open?", top_k=4)
    assert hits[0].document == "opening"
    assert all(0.0 <= h.score <= 1.0 for h in hits)
    assert [h.fusion for h in hits] == sorted((h.fusion for h in hits), reverse=True)


async def test_threshold_drops_unrelated_passages(loaded: None, searcher: HybridSearcher) -> None:
    everything = await searcher.search("passport renewal fee", top_k=4, threshold=0.0)
    strict = await searcher.search("passport renewal fee", top_k=4, threshold=0.5)
    assert len(everything) == 4
    assert [h.document for h in strict] == ["passport"]
    assert await searcher.search("quantum chromodynamics lattice", top_k=4, threshold=0.5) == []


async def test_filters_by_language_and_document(loaded: None, searcher: HybridSearcher) -> None:
    zh = await searcher.search("fee 費用", top_k=4, filters=SearchFilters(language="zh-hant"))
    assert {h.document for h in zh} == {"停車許可證"}
    only = await searcher.search("借书证", top_k=4, filters=SearchFilters(documents=("passport",)))
    assert {h.document for h in only} == {"passport"}


async def test_a_collection_filter_keeps_the_keyword_ranking_of_what_it_admits(
    ingestion: IngestionService, searcher: HybridSearcher
) -> None:
    for name, body in DOCS.items():
        collection = "internal" if name == "passport.txt" else "public"
        await ingestion.ingest_bytes(name, body.encode(), collection=collection)
    query = "passport renewal costs, service centre open Monday"
    everything = await searcher.search(query, top_k=4, mode="keyword", per_document=4)
    public = SearchFilters(collections=("public",))
    admitted = await searcher.search(query, top_k=4, mode="keyword", filters=public, per_document=4)
    assert {h.document for h in everything} == {"passport", "opening"}
    # the filtered side reads chunks best first until enough pass: same order, minus passport
    assert [h.chunk_id for h in admitted] == [
        h.chunk_id for h in everything if h.document != "passport"
    ]
    none = SearchFilters(collections=())
    assert await searcher.search(query, top_k=4, mode="keyword", filters=none) == []


async def test_keyword_and_vector_modes(loaded: None, searcher: HybridSearcher) -> None:
    kw = await searcher.search("passport", top_k=4, mode="keyword")
    assert [h.document for h in kw] == ["passport"]  # only passages containing the word
    vec = await searcher.search("passport", top_k=4, mode="vector")
    assert len(vec) == 4


async def test_empty_index_returns_nothing(searcher: HybridSearcher) -> None:
    assert await searcher.search("anything at all", top_k=5) == []


def test_fusions_keep_single_list_order() -> None:
    ranking = {"keyword": [(1, 9.0), (2, 3.0)], "vector": [(2, 0.9), (3, 0.5)]}
    linear = linear_fusion(ranking, {"keyword": 1.0, "vector": 0.3})
    assert max(linear, key=linear.__getitem__) == 1
    assert linear[2] == pytest.approx(3.0 / 9.0 + 0.3)
    fused = rrf(ranking, {"keyword": 1.0, "vector": 1.0})
    assert max(fused, key=fused.__getitem__) == 2  # in both lists


async def test_embedder_mismatch_is_a_clear_error_and_reindex_fixes_it(
    loaded: None, db: Database, embedder: Embedder
) -> None:
    from langchain_core.embeddings import DeterministicFakeEmbedding

    other = Embedder(DeterministicFakeEmbedding(size=16), "fake/16", 16)
    with pytest.raises(EmbeddingMismatchError, match=r"ragbot reindex"):
        await check_embedder(db, other)
    assert (await reindex(db, other)).chunks == len(DOCS)
    await check_embedder(db, other)  # now consistent
    hits = await HybridSearcher(db, other).search("passport", top_k=1)
    assert hits[0].document == "passport"
    assert (await reindex(db, embedder)).chunks == len(DOCS)  # back, for the teardown
    await check_embedder(db, embedder)


FAQ_PAGE = "\n\n".join(
    f"Q: {q}\nA: {a}"
    for q, a in [
        ("How do I reset my library card PIN?", "Ask at any branch desk. " * 30),
        (
            "Can I renew a passport for my child online?",
            "Children's passports are renewed in person. " * 12
            + "Bring the child's birth certificate and two photos taken within six months.",
        ),
        ("Where can I park near the service centre?", "The car park on Elm Street. " * 20),
    ]
)


async def test_results_are_one_per_document_ordered_by_score_with_the_rest_in_more(
    ingestion: IngestionService, searcher: HybridSearcher
) -> None:
    assert (await ingestion.ingest_bytes("faq.txt", FAQ_PAGE.encode())).chunks >= 4
    await ingestion.ingest_bytes("other.txt", b"Passport photos must be 35 by 45 millimetres.")
    hits = await searcher.search("child passport renewal birth certificate", top_k=5)
    assert [h.document for h in hits].count("faq") == 1  # one per document
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    faq = next(h for h in hits if h.document == "faq")
    assert faq.more  # the page's other matching chunks are named
    more = await searcher.search("child passport renewal birth certificate", per_document=3)
    assert [h.document for h in more].count("faq") > 1


async def test_every_chunk_of_a_long_faq_answer_is_indexed_under_its_question(
    ingestion: IngestionService, searcher: HybridSearcher, db: Database
) -> None:
    await ingestion.ingest_bytes("faq.txt", FAQ_PAGE.encode())
    hits = await searcher.search("birth certificate photos", per_document=5)
    last = next(h for h in hits if "birth certificate" in h.text)
    # the chunk holding the end of the answer no longer holds the question, its heading does
    assert "Can I renew a passport" not in last.text
    assert last.heading == "Can I renew a passport for my child online?"
    # a question worded like the FAQ entry finds that chunk through the heading
    asked = await searcher.search("renew passport for my child online", per_document=5)
    assert any(h.chunk_id == last.chunk_id for h in asked)


async def test_rechunk_rebuilds_chunks_of_documents_stored_before_faq_splitting(
    ingestion: IngestionService, searcher: HybridSearcher, db: Database
) -> None:
    from sqlalchemy import text

    from storage.rechunk import rechunk

    await ingestion.ingest_bytes("faq.txt", FAQ_PAGE.encode())
    async with db.transaction() as session:  # as an older version stored it: no headings
        await session.execute(
            text(
                "UPDATE chunks SET heading = NULL, entry_question = NULL, question_embedding = NULL"
            )
        )
        await session.execute(text("UPDATE documents SET created_at = '2024-05-01T08:00:00Z'"))
    done = await rechunk(db, ingestion, 300, 80)
    assert done.documents == 1 and done.chunks_after >= 4
    async with db.sessions() as session:
        added = await session.execute(text("SELECT created_at::date::text FROM documents"))
        assert added.scalar_one() == "2024-05-01"  # rechunked, still added when it was
        headings = (await session.execute(text("SELECT DISTINCT heading FROM chunks"))).scalars()
        assert "Where can I park near the service centre?" in set(headings)
        questions = await session.execute(
            text("SELECT entry_question FROM chunks WHERE question_embedding IS NOT NULL")
        )
        assert "Where can I park near the service centre?" in set(questions.scalars())
    hits = await searcher.search("park near the service centre")
    assert hits and hits[0].document == "faq"


async def test_support_is_measured_against_the_question_and_leads_show_who_stands_out(
    loaded: None, searcher: HybridSearcher
) -> None:
    # "fees" is held by the passage's price; "children" by nothing in it
    asked = "How much does a passport renewal cost in working days and fees for children?"
    alone = await searcher.search("passport", top_k=4)
    against = await searcher.search("passport", top_k=4, question=asked)
    passport = next(h for h in alone if h.document == "passport")
    tested = next(h for h in against if h.document == "passport")
    # the reworded query finds the same passage but cannot make it look like a full answer
    assert passport.support == 1.0 and tested.support < passport.support
    hits = await searcher.search("passport renewal cost", top_k=4)
    assert hits[0].document == "passport" and hits[0].lead > 0
    assert all(h.lead <= 0 for h in hits[1:])  # the others trail the passport passage


async def test_many_concurrent_searches_on_a_small_pool_never_wait_forever(
    loaded: None, database_url: str, embedder: Embedder
) -> None:
    import asyncio

    small = Database.connect(database_url, pool_size=1)  # 3 connections in all
    try:
        searcher = HybridSearcher(small, embedder)
        queries = ["passport renewal fee", "圖書館借書證", "停車許可證", "opening hours"] * 3
        # each search holds a connection while it opens a second (the vector side)
        found = await asyncio.wait_for(
            asyncio.gather(*(searcher.search(q, top_k=2) for q in queries)), timeout=25
        )
        assert all(found)
    finally:
        await small.dispose()
