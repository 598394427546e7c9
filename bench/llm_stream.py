"""The client's CPU for one streamed answer: langchain-openai as graph.models builds it
(chunks read as dicts, `graph.chunk_stream`) against the same client reading them
through the openai SDK's objects (before), and raw httpx as the floor.

    .venv/bin/python -m bench.llm_stream [--answers 60] [--chars 320]

The fake LLM server (tests/support) streams an answer of `--chars` characters in
8-character pieces, as the Telegram and Slack benchmarks' model does, after a
prompt of a turn's size (a system prompt and five passages). CPU is the
calling thread's (`time.thread_time`): the fake's threads are not counted. The
three ways take turns, `--rounds` times, so a machine's changing speed hits
each alike. Prints a table and writes bench/results/llm_stream.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import time
from collections.abc import Awaitable, Callable
from typing import Any

from bench.common import print_table, write_json
from graph.models import build_chat_model
from tests.support.fake_openai import FakeOpenAI, Reply

SENTENCE = "The renewal costs 1,300 dollars and takes four working days [1]. "


async def main(args: argparse.Namespace) -> None:
    import httpx
    from langchain_core.messages import HumanMessage, SystemMessage

    answer = (SENTENCE * (args.chars // len(SENTENCE) + 1))[: args.chars]
    fake = FakeOpenAI(default=Reply(answer)).start()
    try:
        messages = [
            SystemMessage("Answer from the numbered sources only. " * 30),
            HumanMessage("How much is a renewal?\n\n" + "[1] A passage of the documents. " * 150),
        ]
        lean = build_chat_model(fake.url, "k", "fake-model", 30)
        before = build_chat_model(fake.url, "k", "fake-model", 30)
        before.async_client = before.async_client._completions  # the SDK's own stream
        raw_client = httpx.AsyncClient()
        body = {
            "model": "fake-model",
            "messages": [
                {"role": "system", "content": messages[0].content},
                {"role": "user", "content": messages[1].content},
            ],
            "stream": True,
            "stream_options": {"include_usage": True},
        }

        async def through(llm: Any) -> int:
            return len([c async for c in llm.astream(messages)])

        async def raw() -> int:
            n = 0
            async with raw_client.stream("POST", f"{fake.url}/chat/completions", json=body) as r:
                async for line in r.aiter_lines():
                    if line.startswith("data: {"):
                        json.loads(line[6:])
                        n += 1
            return n

        ways: dict[str, Callable[[], Awaitable[int]]] = {
            "langchain-openai, chunks through the SDK's objects (before)": lambda: through(before),
            "langchain-openai, chunks as dicts (graph.models)": lambda: through(lean),
            "raw httpx and json (the floor)": raw,
        }
        cpu: dict[str, list[float]] = {name: [] for name in ways}
        chunks: dict[str, int] = {}
        for name, way in ways.items():  # warm: imports, the connection
            chunks[name] = await way()
        for _ in range(args.rounds):
            for name, way in ways.items():
                started = time.thread_time()
                for _ in range(args.answers):
                    await way()
                cpu[name].append((time.thread_time() - started) * 1000 / args.answers)
        await raw_client.aclose()
    finally:
        fake.stop()
    rows = [
        [name, chunks[name], statistics.median(v), statistics.median(v) * 1000 / chunks[name]]
        for name, v in cpu.items()
    ]
    table = print_table(
        ["client", "chunks per answer", "CPU ms per answer (median of rounds)", "µs per chunk"],
        rows,
    )
    payload = {
        "table": table,
        "answer_chars": args.chars,
        "answers_per_round": args.answers,
        "cpu_ms_per_answer": cpu,
        "load_average": os.getloadavg(),
    }
    print(f"wrote {write_json('llm_stream', payload)}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--answers", type=int, default=60)
    parser.add_argument("--chars", type=int, default=320)
    parser.add_argument("--rounds", type=int, default=5)
    asyncio.run(main(parser.parse_args()))
