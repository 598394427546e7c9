"""`ragbot ask`: one turn through the whole graph."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from bot.cli.base import app, fail, run, settings

if TYPE_CHECKING:
    from graph.events import TurnResult


def render_sources(citations: list[dict[str, Any]]) -> str:
    """The numbered source list under an answer."""
    from textkit.catalog import say

    lines = []
    for c in citations:
        # the console lists sources in English, whatever the answer's language
        page = f", {say('page', 'en', page=c['page'])}" if c.get("page") else ""
        lines.append(f"[{c['n']}] {c.get('title') or c['document']}{page}")
    return "\n".join(lines)


def render(result: TurnResult) -> str:
    """The answer with its source list, as the console shows it."""
    sources = render_sources(result.citations)
    return f"{result.answer}\n\n{sources}" if sources else result.answer


@app.command()
def ask(
    question: Annotated[str | None, typer.Argument(help="The question.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    user: Annotated[str | None, typer.Option(help="Who is asking.")] = None,
    conversation: Annotated[
        str | None, typer.Option(help="Conversation id: turns with the same id see history.")
    ] = None,
    batch: Annotated[Path | None, typer.Option(help="One question per line.")] = None,
    collection: Annotated[
        list[str] | None,
        typer.Option(help="Read only this collection (repeatable; default: all)."),
    ] = None,
) -> None:
    """Answer a question from the knowledge base (each --batch line is a new conversation)."""
    from bot.app.runtime import open_runtime

    if (question is None) == (batch is None):
        fail("give a QUESTION or --batch FILE (not both)")
    if question is not None and not question.strip():
        fail("the question is empty: give the question to answer")
    if batch is not None and not batch.is_file():
        fail(f"no such file: {batch}")
    questions = [question] if question is not None else batch.read_text("utf-8").splitlines()  # type: ignore[union-attr]
    if not any(q.strip() for q in questions):
        fail(f"no question in {batch}: one question per line")

    async def go() -> None:
        async with open_runtime(settings()) as rt:
            service = rt.answer_service()
            for q in questions:
                conv = conversation if batch is None else None
                result = await service.ask(
                    q, conversation=conv, user=user, collections=collection or None
                )
                if as_json:
                    print(json.dumps(result.as_json(), ensure_ascii=False), flush=True)
                else:
                    print(render(result), flush=True)

    run(go)
