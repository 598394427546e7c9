"""Knowledge-base commands: ingest, search, docs, reindex."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, Progress, TaskID, TextColumn, TimeRemainingColumn
from rich.table import Table
from rich.text import Text

from bot.cli.admin import operator
from bot.cli.base import app, fail, run, settings
from bot.cli.personal_data import bound_for, personal_data_report
from bot.settings import usable_cores
from storage.filenames import display_name
from storage.upload_policy import DEFAULT_COLLECTION

if TYPE_CHECKING:
    from storage.index import ReindexResult
    from storage.ingestion import IngestResult
    from storage.rechunk import RechunkResult
    from storage.search_types import SearchHit

docs_app = typer.Typer(help="List and delete documents.", no_args_is_help=True)
app.add_typer(docs_app, name="docs")
console = Console(stderr=True)
FILES_AT_ONCE = 16  # files `ragbot ingest` works on at once


def _progress() -> Progress:
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total}"),
        TimeRemainingColumn(),
        console=console,
        transient=True,
        disable=not console.is_terminal,  # a log or pipe gets the summary, not redraws
    )


@app.command()
def ingest(
    paths: Annotated[list[Path], typer.Argument(help="Files and folders to ingest.")],
    title: Annotated[str | None, typer.Option(help="Title (one file only).")] = None,
    language: Annotated[str | None, typer.Option(help="en, zh-hant or zh-hans.")] = None,
    collection: Annotated[
        str, typer.Option(help="Who may read them: public (citizens), internal (staff), …")
    ] = DEFAULT_COLLECTION,
    url: Annotated[
        str | None, typer.Option(help="Where readers find it (one file only); cited as a link.")
    ] = None,
    allow_personal_data: Annotated[
        bool,
        typer.Option(
            "--allow-personal-data",
            help="Ingest even files with personal data (e-mail, phone, ID numbers) into a"
            " collection citizens or guests read (public, TELEGRAM_COLLECTIONS,"
            " SLACK_GUEST_COLLECTIONS).",
        ),
    ] = False,
    processes: Annotated[
        int | None,
        typer.Option(
            min=0,
            help="Worker processes for chunking and embedding (default: one per CPU core;"
            " 0: threads of this process).",
        ),
    ] = None,
) -> None:
    """Ingest PDF, DOCX, TXT, Markdown and HTML files; print a summary.

    Files bound for a collection citizens or guests read (TELEGRAM_COLLECTIONS,
    SLACK_GUEST_COLLECTIONS) that hold personal data are refused (held, nothing
    stored) unless --allow-personal-data is given.
    """
    from bot.app.runtime import open_runtime
    from bot.app.uploads import upload_policy
    from storage.ingestion import FAILED, HELD, IngestResult, collect_files
    from textkit.scripts import LANGUAGES

    policy = upload_policy(settings())  # as the runtime builds it: what outside readers see
    screen = policy.screens(collection) and not allow_personal_data
    missing = [p for p in paths if not p.exists()]
    files = collect_files(p for p in paths if p.exists())  # the missing reported once, below
    if (title or url) and len(files) > 1:
        fail("--title and --url name one document: give exactly one file")
    if url and not url.startswith(("http://", "https://")):
        fail("--url must start with http:// or https://")
    if language and language not in LANGUAGES:
        fail(f"--language must be one of {', '.join(LANGUAGES)}")

    async def go() -> list[IngestResult]:
        results = [
            IngestResult(display_name(str(p)), FAILED, reason="no such file or folder")
            for p in missing
        ]
        # the cores this process may use (a container's, not the host's), at most 64
        cores = processes if processes is not None else min(64, usable_cores())
        async with open_runtime(settings(), ingest_processes=cores) as rt:
            # several files at once: their short texts share embedding batches, and the
            # worker processes keep busy while other files are written
            room = asyncio.Semaphore(FILES_AT_ONCE)
            with _progress() as bar:
                overall = bar.add_task("files", total=len(files))

                async def one(path: Path) -> IngestResult:
                    async with room:
                        label = f"  {escape(display_name(path.name))}"
                        chunk_task = bar.add_task(label, total=None)

                        def step(done: int, total: int, task: TaskID = chunk_task) -> None:
                            bar.update(task, completed=done, total=total)

                        try:
                            result = await rt.ingestion.ingest_path(
                                path,
                                title,
                                language,
                                step,
                                collection,
                                url,
                                hold_personal_data=screen,
                            )
                        except Exception as exc:  # this file only: the others go on
                            first = (str(exc).splitlines() or [""])[0][:200]
                            reason = f"{type(exc).__name__}: {first}"
                            shown = display_name(str(path))
                            result = IngestResult(shown, FAILED, reason=reason)
                        bar.remove_task(chunk_task)
                        bar.advance(overall)
                        return result

                results += await asyncio.gather(*(one(path) for path in files))
        return results

    results = run(go)
    _print_summary(results, bound_for(collection, policy.readers(collection)))
    if any(r.status in (FAILED, HELD) for r in results) or not results:
        raise typer.Exit(1)


def _print_summary(results: list[IngestResult], bound: str) -> None:
    from storage.ingestion import ADDED, FAILED, HELD, REPLACED, UNCHANGED

    for r in results:
        if r.status == FAILED:
            typer.secho(f"failed    {r.source}: {r.reason}", fg=typer.colors.RED)
        elif r.status == HELD and r.findings is not None:
            typer.secho(personal_data_report(r.source, r.findings, bound), fg=typer.colors.RED)
        elif r.status == UNCHANGED:
            typer.echo(f"unchanged {r.source} ({r.reason})")
        else:
            note = f"; {r.reason}" if r.reason else ""  # pages OCR could not read
            typer.echo(f"{r.status:<9} {r.source} → {r.title!r} ({r.chunks} chunks{note})")
    counts = {
        s: sum(1 for r in results if r.status == s)
        for s in (ADDED, REPLACED, UNCHANGED, FAILED, HELD)
    }
    held = f", {counts[HELD]} refused for personal data" if counts[HELD] else ""
    typer.echo(
        f"summary: {counts[ADDED]} added, {counts[REPLACED]} replaced, "
        f"{counts[UNCHANGED]} unchanged, {counts[FAILED]} failed{held}"
    )
    if not results:
        typer.echo("nothing to ingest")


def _hit_json(hit: SearchHit) -> dict[str, object]:
    return {
        "document": hit.document,
        "chunk_id": hit.chunk_id,
        "text": hit.text,
        "score": hit.score,
        "page": hit.page,
        "heading": hit.heading,
        "cosine": hit.cosine,
        "coverage": hit.coverage,
        "support": hit.support,
        "ranks": hit.ranks,
        "more": hit.more,
    }


@app.command()
def search(
    query: Annotated[str | None, typer.Argument(help="The question or keywords.")] = None,
    top_k: Annotated[
        int | None, typer.Option("--top-k", "-k", min=1, max=100, help="Default SEARCH_TOP_K.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    batch: Annotated[Path | None, typer.Option(help="A file with one query per line.")] = None,
    threshold: Annotated[float, typer.Option(min=0.0, max=1.0)] = 0.0,
    language: Annotated[str | None, typer.Option(help="Only documents in this language.")] = None,
    document: Annotated[list[str] | None, typer.Option(help="Only these titles.")] = None,
    mode: Annotated[str, typer.Option(help="hybrid, keyword or vector.")] = "hybrid",
    per_document: Annotated[
        int,
        typer.Option(
            "--per-document",
            min=1,
            max=100,
            help="Chunks shown per document (the others' ids are listed in `more`).",
        ),
    ] = 1,
) -> None:
    """Hybrid search over the knowledge base, ordered by `score` (best first).

    One result per document by default: its best chunk, with the ids of its
    other matching chunks in `more`.
    """
    from bot.app.runtime import open_runtime
    from storage.search_types import SearchFilters

    if (query is None) == (batch is None):
        fail("give a QUERY or --batch FILE (not both)")
    if query is not None and not query.strip():
        fail("the query is empty: give the question or keywords to search for")
    if mode not in ("hybrid", "keyword", "vector"):
        fail("--mode must be hybrid, keyword or vector")
    if batch is not None and not batch.is_file():
        fail(f"no such file: {batch}")
    queries = [query] if query is not None else batch.read_text("utf-8").splitlines()  # type: ignore[union-attr]
    if not any(q.strip() for q in queries):
        fail(f"no query in {batch}: one query per line")
    filters = SearchFilters(language, tuple(document or ()))
    cfg = settings()
    k = top_k or cfg.search_top_k

    async def go() -> None:
        async with open_runtime(cfg) as rt:
            for q in queries:
                hits = (
                    await rt.searcher.search(q, k, threshold, filters, mode, per_document)
                    if q.strip()
                    else []
                )
                if as_json:
                    print(json.dumps([_hit_json(h) for h in hits], ensure_ascii=False), flush=True)
                else:
                    _print_hits(q, hits)

    run(go)


def _print_hits(query: str, hits: list[SearchHit]) -> None:
    # document text is printed literally: "[/x]" in a passage is text, not rich markup
    out = Console(soft_wrap=True, markup=False, highlight=False)
    if not hits:
        out.print(f"no results for {query!r}")
        return
    for n, h in enumerate(hits, 1):
        where = f" p.{h.page}" if h.page else ""
        more = f" (+{len(h.more)} more in this document)" if h.more else ""
        out.print(Text(f"{n}. {h.document}{where}", style="bold"), f" score {h.score:.2f}{more}")
        snippet = h.text.replace("\n", " ")
        out.print(f"   {snippet[:240]}{'…' if len(snippet) > 240 else ''}")


@app.command()
def reindex(
    rechunk: Annotated[
        bool,
        typer.Option(
            "--rechunk",
            help="Also rebuild every document's chunks and keyword statistics (after an"
            " upgrade that changes how chunks are built).",
        ),
    ] = False,
) -> None:
    """Re-embed every chunk with the configured embedder (--rechunk: chunk again first)."""
    if rechunk:
        _rechunk()
        return
    from bot.app.runtime import open_runtime
    from storage.index import reindex as reindex_index

    async def go() -> ReindexResult:
        async with open_runtime(settings(), check_index=False) as rt:
            with _progress() as bar:
                task = bar.add_task("re-embedding", total=None)
                return await reindex_index(
                    rt.db,
                    rt.embedder,
                    progress=lambda d, t: bar.update(task, completed=d, total=t),
                )

    done = run(go)
    typer.echo(
        f"re-embedded {done.chunks} chunks in {done.seconds:.1f} s"
        f" (searches used the old vectors until the final {done.swap_seconds:.2f} s swap)"
    )


def _rechunk() -> None:
    from bot.app.runtime import open_runtime
    from storage.rechunk import rechunk as rechunk_documents

    cfg = settings()

    async def go() -> RechunkResult:
        async with open_runtime(cfg) as rt:
            with _progress() as bar:
                task = bar.add_task("re-chunking", total=None)
                return await rechunk_documents(
                    rt.db,
                    rt.ingestion,
                    cfg.chunk_size,
                    cfg.chunk_overlap,
                    progress=lambda d, t: bar.update(task, completed=d, total=t),
                )

    done = run(go)
    typer.echo(
        f"re-chunked {done.documents} documents: {done.chunks_before} chunks before,"
        f" {done.chunks_after} now, in {done.seconds:.1f} s"
    )


@docs_app.command("list")
def docs_list(as_json: Annotated[bool, typer.Option("--json")] = False) -> None:
    """List documents."""
    from bot.app.runtime import open_runtime

    async def go() -> list[dict[str, object]]:
        async with open_runtime(settings()) as rt:
            return await rt.admin_knowledge().list_documents(operator())

    rows = run(go)
    if as_json:
        print(json.dumps(rows, ensure_ascii=False))
        return
    if not rows:
        typer.echo("no documents yet: add some with `ragbot ingest PATH`")
        return
    columns = ("title", "collection", "format", "language", "chunks", "added")
    table = Table(*columns)
    for r in rows:
        table.add_row(*(escape(str(r[c])) for c in columns))
    Console().print(table)


@docs_app.command("delete")
def docs_delete(title: str) -> None:
    """Delete a document by title."""
    from bot.app.runtime import open_runtime

    async def go() -> bool:
        async with open_runtime(settings()) as rt:
            return await rt.admin_knowledge().delete_document(operator(), title)

    if not run(go):
        fail(f"no document titled {title!r} (see `ragbot docs list`)", code=1)
    typer.echo(f"deleted {title!r}")
