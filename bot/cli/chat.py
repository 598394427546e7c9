"""`ragbot chat`: an interactive console conversation (the third adapter).

The same serving core as Slack and Telegram: history lives in Postgres, the
answer streams as it is generated, progress steps show in the user's language,
and `/docs`, `/stats`, … run the admin commands (the console user is an admin).
"""

from __future__ import annotations

import asyncio
import shlex
import sys
import uuid
from typing import TYPE_CHECKING

import typer

from bot.cli.ask import render_sources
from bot.cli.base import app, run, settings

if TYPE_CHECKING:
    from bot.core.messages import FinalAnswer
    from bot.core.serving import ServingCore

QUIT = {"/quit", "/exit", "/q"}
HELP = (
    "Ask a question. /new starts a new conversation, /quit leaves;"
    " /help lists the admin commands (/docs, /forms, /stats, …)."
)


async def _read(prompt: str) -> str | None:
    """One line from the terminal, read off the event loop; None at end of input."""
    try:
        return await asyncio.to_thread(input, prompt)
    except EOFError:
        return None


async def _turn(core: ServingCore, line: str, conversation: str, user: str) -> None:
    from bot.core.messages import (
        ErrorReply,
        FinalAnswer,
        InboundMessage,
        Progress,
        Reply,
        Reset,
        Token,
    )

    streamed = False
    interactive = sys.stdout.isatty()
    command, args = _command(line)
    inbound = InboundMessage(
        platform="console",
        delivery_id=uuid.uuid4().hex,
        conversation_key=conversation,
        user_id=user,
        text=line,
        command=command,
        args=args,
    )
    async for event in core.handle(inbound):
        if isinstance(event, Progress) and event.text and interactive and not streamed:
            print(f"\r\033[2m{event.text}\033[0m\033[K", end="", flush=True)
        elif isinstance(event, Token):
            if not streamed and interactive:
                print("\r\033[K", end="")
            streamed = True
            print(event.text, end="", flush=True)
        elif isinstance(event, Reset) and streamed:
            print("\n", flush=True)  # the model failed mid-answer; the fallback follows
            streamed = False
        elif isinstance(event, FinalAnswer):
            _finish(event, streamed, interactive)
        elif isinstance(event, Reply | ErrorReply):
            print(("\r\033[K" if interactive else "") + event.text + "\n", flush=True)


def _command(line: str) -> tuple[str | None, tuple[str, ...]]:
    """`/docs`, `/delete title` …: a command for the core; anything else is a question."""
    if not line.startswith("/"):
        return None, ()
    try:
        words = shlex.split(line[1:])
    except ValueError:  # an unbalanced quote ("don't"): plain words
        words = line[1:].split()
    return (words[0], tuple(words[1:])) if words else (None, ())


def _finish(result: FinalAnswer, streamed: bool, interactive: bool) -> None:
    if interactive and not streamed:
        print("\r\033[K", end="")
    if not streamed:
        print(result.text, end="")
    sources = render_sources(result.citations)
    print(("\n\n" + sources) if sources else "", flush=True)
    print()


@app.command()
def chat(
    user: str = typer.Option("console", help="Who is chatting (stored with the turns)."),
) -> None:
    """Talk to ragbot in the terminal, with follow-ups and streaming answers."""
    from bot.app.runtime import open_runtime

    async def go() -> None:
        async with open_runtime(settings()) as rt:
            core = rt.serving_core()
            conversation = f"chat-{uuid.uuid4().hex}"
            print(HELP)
            try:
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
                    await _turn(core, line, conversation, user)
            finally:
                await core.close()  # its conversation locks' connection

    run(go)
