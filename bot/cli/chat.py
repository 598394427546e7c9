"""`ragbot chat`: an interactive console conversation (the third adapter).

Same graph and service as Slack and Telegram: history lives in Postgres, the
answer streams as it is generated, progress steps show in the user's language.
"""

from __future__ import annotations

import asyncio
import sys
import uuid
from typing import Any

import typer

from bot.cli import app, run, settings
from bot.cli.ask import render_sources
from bot.runtime import open_runtime
from bot.service import AnswerService
from graph.messages import progress_message

QUIT = {"/quit", "/exit", "/q"}
HELP = "Ask a question. /new starts a new conversation, /quit leaves."


async def _read(prompt: str) -> str | None:
    """One line from the terminal, read off the event loop; None at end of input."""
    try:
        return await asyncio.to_thread(input, prompt)
    except EOFError:
        return None


async def _turn(service: AnswerService, question: str, conversation: str, user: str) -> None:
    streamed = False
    interactive = sys.stdout.isatty()
    async for event in service.stream(question, conversation=conversation, user=user):
        kind = event["type"]
        if kind == "progress" and interactive and not streamed:
            note = progress_message(event["step"], event.get("language", "en"))
            if note:
                print(f"\r\033[2m{note}\033[0m\033[K", end="", flush=True)
        elif kind == "token":
            if not streamed and interactive:
                print("\r\033[K", end="")
            streamed = True
            print(event["text"], end="", flush=True)
        elif kind == "reset" and streamed:
            print("\n", flush=True)  # the model failed mid-answer; the fallback follows
            streamed = False
        elif kind == "done":
            _finish(event["result"], streamed, interactive)


def _finish(result: Any, streamed: bool, interactive: bool) -> None:
    if interactive and not streamed:
        print("\r\033[K", end="")
    if not streamed:
        print(result.answer, end="")
    sources = render_sources(result.citations)
    print(("\n\n" + sources) if sources else "", flush=True)
    print()


@app.command()
def chat(
    user: str = typer.Option("console", help="Who is chatting (stored with the turns)."),
) -> None:
    """Talk to ragbot in the terminal, with follow-ups and streaming answers."""

    async def go() -> None:
        async with open_runtime(settings()) as rt:
            service = rt.answer_service()
            conversation = f"chat-{uuid.uuid4().hex}"
            print(HELP)
            while True:
                line = await _read("> ")
                if line is None or line.strip() in QUIT:
                    break
                if line.strip() == "/new":
                    conversation = f"chat-{uuid.uuid4().hex}"
                    print("(new conversation)")
                    continue
                if not line.strip():
                    continue
                await _turn(service, line, conversation, user)

    run(go)
