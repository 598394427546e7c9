"""`ragbot demo`: the main job on embedded defaults (sample knowledge base, sample questions)."""

from __future__ import annotations

import json
import uuid
from importlib import resources
from pathlib import Path

import typer
from rich.console import Console

from bot.cli.ask import render
from bot.cli.base import app, run, settings

# A scripted conversation: a question, a follow-up, the other two languages,
# a form request, a greeting and something the documents do not cover.
SAMPLE_CONVERSATION = (
    "How much does it cost to renew a passport?",
    "And how long does it take?",
    "停车许可证要带什么文件？",
    "圖書館借書證可以借幾本書？",
    "我要下載護照申請書",
    "When is the service centre open on Saturday?",
    "Who won the football world cup in 1998?",
    "謝謝",
)


def sample_dir() -> Path:
    """The sample knowledge base shipped inside the package."""
    return Path(str(resources.files("bot") / "sample"))


@app.command()
def demo() -> None:
    """Ingest the shipped sample documents and forms, then hold a sample conversation."""
    from bot.app.runtime import open_runtime
    from storage.forms import FormService
    from storage.ingestion import FAILED

    out = Console(soft_wrap=True)
    root = sample_dir()

    async def go() -> None:
        async with open_runtime(settings()) as rt:
            for path in sorted((root / "docs").iterdir()):
                result = await rt.ingestion.ingest_path(path)
                out.print(
                    f"{result.status:<9} {path.name}"
                    + (f": {result.reason}" if result.reason and result.status == FAILED else "")
                )
            forms = FormService(rt.db, rt.upload_policy.max_bytes)
            for form in json.loads((root / "forms.json").read_text("utf-8")):
                await forms.add(form["name"], form["url"], None, form["aliases"], form["language"])
            out.print(f"forms: {len(await forms.list())} stored")
            service = rt.answer_service()
            conversation = f"demo-{uuid.uuid4().hex}"
            for question in SAMPLE_CONVERSATION:
                turn = await service.ask(question, conversation=conversation, user="demo")
                out.print(f"\n[bold]> {question}[/bold]")
                out.print(render(turn), markup=False)

    run(go)
    typer.echo('\nDone. Try `ragbot chat`, `ragbot ask "your question"` or `ragbot docs list`.')
