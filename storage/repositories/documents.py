"""Documents and their chunks, with the keyword statistics kept in step."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import delete, select, text
from sqlalchemy.ext.asyncio import AsyncSession

from storage.array_literals import int_array, text_array
from storage.embeddings import vector_literal
from storage.models import Document, IndexMeta
from storage.upload_policy import DEFAULT_COLLECTION


@dataclass(frozen=True)
class NewChunk:
    """A chunk to insert: text, place, tokens and embedding (and its FAQ entry's question)."""

    text: str
    position: int
    page: int | None
    heading: str | None
    language: str | None
    tokens: list[str]
    embedding: list[float]
    question: str | None = None
    question_embedding: list[float] | None = None


# Held shared by every ingest from its first statement, and alone by the reindex swap:
# an ingest inserts its chunks before it takes `index_meta`, and the swap (which holds
# `index_meta` and alters the chunks table) must neither run meanwhile nor wait for it.
INDEX_WRITES = "index:writes"


async def lock_keys(session: AsyncSession, keys: list[str], shared: Sequence[str] = ()) -> None:
    """Transaction advisory locks on `keys` (and, in share mode, on `shared`), taken in
    one sorted order (no deadlocks) in one round trip."""
    await session.execute(
        text(
            "SELECT CASE WHEN shared THEN pg_advisory_xact_lock_shared(k)"
            " ELSE pg_advisory_xact_lock(k) END FROM (SELECT DISTINCT"
            " hashtextextended(key, 0) AS k, key = ANY(CAST(:shared AS text[])) AS shared"
            " FROM unnest(CAST(:keys AS text[])) AS key ORDER BY 1) AS locks"
        ),
        {"keys": [*keys, *shared], "shared": list(shared)},
    )


async def find_by_hash(session: AsyncSession, content_hash: str) -> Document | None:
    """The document with this content hash, if any."""
    return await session.scalar(select(Document).where(Document.content_hash == content_hash))


async def find_by_title(
    session: AsyncSession, title: str, *, lock: bool = False
) -> Document | None:
    """The document with this title; `lock` holds it until the transaction ends."""
    query = select(Document).where(Document.title == title)
    if lock:
        query = query.with_for_update()
    return await session.scalar(query)


async def find_by_id(
    session: AsyncSession, document_id: int, *, lock: bool = False
) -> Document | None:
    """The document with this id; `lock` holds it until the transaction ends."""
    query = select(Document).where(Document.id == document_id)
    if lock:
        query = query.with_for_update()
    return await session.scalar(query)


async def find_same(
    session: AsyncSession, content_hash: str, title: str
) -> tuple[Document | None, Document | None]:
    """The documents with this content hash and with this title (one query), both held
    until the transaction ends."""
    query = (
        select(Document)
        .where((Document.content_hash == content_hash) | (Document.title == title))
        .with_for_update()
    )
    found = (await session.scalars(query)).all()
    same = next((d for d in found if d.content_hash == content_hash), None)
    return same, next((d for d in found if d.title == title), None)


async def list_documents(
    session: AsyncSession, collections: Sequence[str] | None = None
) -> Sequence[Document]:
    """All documents (of `collections` when given), by title."""
    query = select(Document).order_by(Document.title)
    if collections is not None:
        query = query.where(Document.collection.in_(collections))
    return (await session.scalars(query)).all()


async def add_document(session: AsyncSession, document: Document, chunks: list[NewChunk]) -> None:
    """Insert a document with its chunks and count their terms into the statistics
    (`document.id` is set).

    The rows are new, so they are written before the statistics are taken: writers
    queue for `index_meta` only for the counts and the commit, not for the inserts.
    The caller holds `INDEX_WRITES` shared (an ingest) or `index_meta` already (a
    replacement or rechunk, which count the old document out first). The document,
    its chunks and their term postings (matched by position) go in one statement,
    its arrays as literals (`storage.array_literals`).
    """
    terms: list[str] = []
    positions: list[int] = []
    tfs: list[int] = []
    dls: list[int] = []
    df: Counter[str] = Counter()  # chunks holding each term, for the statistics
    for c in chunks:
        counts = Counter(c.tokens)  # once per chunk: its postings and its share of df
        df.update(counts.keys())
        length = len(c.tokens)
        for term, tf in sorted(counts.items()):
            terms.append(term)
            positions.append(c.position)
            tfs.append(tf)
            dls.append(length)
    added = await session.execute(
        text(
            "WITH d AS (INSERT INTO documents (title, source, format, language, content_hash,"
            " size_bytes, page_count, chunk_count, collection, url, origin, created_at) VALUES"
            " (:title, :source, :format, :doc_language, :content_hash, :size_bytes, :page_count,"
            " :chunk_count, :collection, :url, :origin, coalesce(CAST(:created_at AS"
            " timestamptz), now())) RETURNING id),"
            " c AS (INSERT INTO chunks (document_id, position, text, page, heading,"
            " language, token_count, embedding, entry_question,"
            " question_embedding) SELECT d.id, u.* FROM d, unnest("
            "CAST(:position AS int[]), CAST(:text AS text[]), CAST(:page AS int[]),"
            " CAST(:heading AS text[]), CAST(:language AS text[]),"
            " CAST(:token_count AS int[]), CAST(:embedding AS vector[]),"
            " CAST(:question AS text[]),"
            " CAST(:question_embedding AS vector[])) AS u RETURNING id, position),"
            " t AS (INSERT INTO chunk_terms (term, chunk_id, tf, dl)"
            " SELECT t.term, c.id, t.tf, t.dl FROM unnest(CAST(:terms AS text[]),"
            " CAST(:term_positions AS int[]), CAST(:tfs AS int[]), CAST(:dls AS int[]))"
            " AS t(term, position, tf, dl) JOIN c USING (position))"
            " SELECT id FROM d"
        ),
        {
            "title": document.title,
            "source": document.source,
            "format": document.format,
            "doc_language": document.language,
            "content_hash": document.content_hash,
            "size_bytes": document.size_bytes,
            "page_count": document.page_count,
            "chunk_count": document.chunk_count,
            "collection": document.collection or DEFAULT_COLLECTION,
            "url": document.url,
            "origin": document.origin or "file",
            "created_at": document.created_at,  # a rechunked document keeps its date
            "position": int_array(c.position for c in chunks),
            "text": text_array(c.text for c in chunks),
            "page": int_array(c.page for c in chunks),
            "heading": text_array(c.heading for c in chunks),
            "language": text_array(c.language for c in chunks),
            "token_count": int_array(len(c.tokens) for c in chunks),
            "embedding": text_array(vector_literal(c.embedding) for c in chunks),
            "question": text_array(c.question for c in chunks),
            "question_embedding": text_array(
                vector_literal(c.question_embedding) if c.question_embedding else None
                for c in chunks
            ),
            "terms": text_array(terms),
            "term_positions": int_array(positions),
            "tfs": int_array(tfs),
            "dls": int_array(dls),
        },
    )
    document.id = added.scalar_one()
    await _count_in(session, len(chunks), sum(len(c.tokens) for c in chunks))
    await _add_term_counts(session, df, sign=1)


async def delete_document(session: AsyncSession, document: Document) -> None:
    """Delete a document and its chunks and take their terms out of the statistics."""
    await _lock_statistics(session)
    result = await session.execute(
        text(
            "SELECT t.term, count(*) FROM chunk_terms t JOIN chunks c ON c.id = t.chunk_id"
            " WHERE c.document_id = :id GROUP BY t.term"
        ),
        {"id": document.id},
    )
    df = Counter({term: int(n) for term, n in result.all()})
    totals = (
        await session.execute(
            text(
                "SELECT count(*), coalesce(sum(token_count), 0) FROM chunks WHERE document_id = :id"
            ),
            {"id": document.id},
        )
    ).one()
    await session.execute(delete(Document).where(Document.id == document.id))
    await _count_in(session, -int(totals[0]), -int(totals[1]))
    await _add_term_counts(session, df, sign=-1)


async def _lock_statistics(session: AsyncSession) -> None:
    """Hold the index_meta row until the transaction ends, before any write of terms.

    Every writer of keyword statistics (ingest, replace, delete, rechunk) and the
    reindex swap take it before they touch an existing row, so they go one at a
    time from there and never hold a row another one waits for: a replacement
    counts its terms twice (out, then in), and the swap updates every chunk. Only
    an add's inserts of new rows come before it, and an add takes the row with its
    count (`_count_in`).
    """
    # the lock only: the totals change relatively (`_count_in`), never from a row read here
    held = await session.execute(text("SELECT 1 FROM index_meta WHERE id = 1 FOR UPDATE"))
    assert held.first() is not None, "index_meta row missing: run `ragbot db upgrade`"


async def _add_term_counts(session: AsyncSession, df: Counter[str], sign: int) -> None:
    """Add `sign` × each term's document frequency (the caller holds index_meta)."""
    if not df:
        return
    terms = sorted(df)
    await session.execute(
        text(
            "INSERT INTO keyword_terms (term, df) SELECT * FROM unnest("
            "CAST(:terms AS text[]), CAST(:dfs AS int[])) ON CONFLICT (term) DO UPDATE"
            " SET df = keyword_terms.df + EXCLUDED.df"
        ),
        {"terms": text_array(terms), "dfs": int_array(sign * df[t] for t in terms)},
    )
    if sign < 0:
        await session.execute(
            text("DELETE FROM keyword_terms WHERE term = ANY(:terms) AND df <= 0"),
            {"terms": terms},
        )


async def _count_in(session: AsyncSession, chunks: int, tokens: int) -> None:
    """Add to the index's totals (negative to take out), taking the index_meta row in the
    same statement (held until the transaction ends, as `_lock_statistics` holds it).

    Relative, never the absolute counts of an object read earlier: another writer may
    have counted in since that read.
    """
    counted = await session.execute(
        text(
            "UPDATE index_meta SET chunk_count = chunk_count + :chunks,"
            " token_total = token_total + :tokens WHERE id = 1 RETURNING id"
        ),
        {"chunks": chunks, "tokens": tokens},
    )
    assert counted.first() is not None, "index_meta row missing: run `ragbot db upgrade`"


async def index_model(session: AsyncSession) -> str | None:
    """The embedder the index was built with (None before the first vectors)."""
    meta = await session.execute(text("SELECT embedding_model FROM index_meta WHERE id = 1"))
    row = meta.first()
    assert row is not None, "index_meta row missing: run `ragbot db upgrade`"
    return row[0]


async def get_index_meta(session: AsyncSession, lock: bool = False) -> IndexMeta:
    """The index description row (created by the first migration); `lock`: FOR UPDATE."""
    meta = await session.get(IndexMeta, 1, with_for_update=lock, populate_existing=lock)
    assert meta is not None, "index_meta row missing: run `ragbot db upgrade`"
    return meta
