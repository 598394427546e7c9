"""`ragbot demo`: the main job on embedded defaults (sample knowledge base, sample questions)."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import typer
from rich.console import Console

from bot.cli import app, run, settings
from bot.runtime import open_runtime
from storage.forms import FormService
from storage.ingestion import FAILED

SAMPLE_QUESTIONS = (
    "How much does it cost to renew a passport?",
    "停车许可证要带什么文件？",
    "圖書館借書證可以借幾本書？",
    "When is the service centre open on Saturday?",
)


def sample_dir() -> Path:
    """The sample knowledge base shipped inside the package."""
    return Path(str(resources.files("bot") / "sample"))


@app.command()
def demo() -> None:
    """Ingest the shipped sample documents and forms, then answer sample questions."""
    out = Console()
    root = sample_dir()

    async def go() -> None:
        async with open_runtime(settings()) as rt:
            for path in sorted((root / "docs").iterdir()):
                result = await rt.ingestion.ingest_path(path)
                out.print(
                    f"{result.status:<9} {path.name}"
                    + (f": {result.reason}" if result.reason and result.status == FAILED else "")
                )
            forms = FormService(rt.db, rt.settings.max_file_bytes)
            for form in json.loads((root / "forms.json").read_text("utf-8")):
                await forms.add(form["name"], form["url"], None, form["aliases"], form["language"])
            out.print(f"forms: {len(await forms.list())} stored")
            for question in SAMPLE_QUESTIONS:
                hits = await rt.searcher.search(question, top_k=2)
                out.print(f"\n[bold]Q: {question}[/bold]")
                for n, hit in enumerate(hits, 1):
                    out.print(f"  [{n}] {hit.document} (score {hit.score:.2f}): {hit.text[:120]}")

    run(go)
    typer.echo('\nDone. Try `ragbot search "your question"` or `ragbot docs list`.')
