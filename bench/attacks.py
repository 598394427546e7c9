"""The attack suite: hostile questions, hostile files and poisoned documents.

Runs every hostile question (tests/support/attack_cases.py) through the real service
twice, with no LLM and with the fake OpenAI server echoing the prompt it
received (a model that obeys anything would leak exactly this), beside 5
poisoned documents; ingests a folder of hostile files next to honest ones with
`ragbot ingest` (wall time, exit code, peak memory); and measures how many
ordinary questions of the evaluation sets each screen blocks. The baseline in
the same run is the previous guard's patterns.

    .venv/bin/python -m bench.attacks [--small]

Prints tables and writes bench/results/attacks.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from bench.answers import service_for
from bench.common import EVAL_DIR, connect, fresh_database, print_table, write_json
from bot.settings import Settings
from graph.events import ErrorReply, FinalAnswer, Token
from graph.injection import screen
from graph.models import build_chat_model
from storage.embeddings import build_embedder
from storage.ingestion import IngestionService, IngestOptions
from tests.support.attack_cases import POISONED, QUESTIONS, leaks
from tests.support.fake_openai import FakeOpenAI, echo_prompt
from tests.support.files import TEXT, make_docx, make_pdf
from tests.support.hostile_files import hostile_files

# the guard's patterns before this suite existed: the baseline
BASELINE = re.compile(
    r"ignore (all |any )?(the )?(previous|prior|above) (instructions|prompts?)"
    r"|disregard (the |your )?(system|previous) (prompt|instructions)"
    r"|(reveal|print|show) (me )?(your|the) (system )?prompt"
    r"|you are now (dan|an? unrestricted)"
    r"|忽略(之前|以上|先前|前面)(的)?(所有)?(指令|指示|提示)"
    r"|(無視|无视)(之前|以上)(的)?(指令|指示)"
    r"|(顯示|显示|輸出|输出)(你的)?(系統|系统)(提示|指令)"
    r"|\b(fuck(ing)?|cunt|motherfucker)\b|幹你娘|干你娘|操你[妈媽]|去死吧",
    re.IGNORECASE,
)
HONEST = {
    "passport.md": "# Passport renewal\n\nAn adult passport renewal costs 1,300 dollars.\n",
    "parking.txt": "Resident parking permits are renewed every year for 1,200 dollars.\n",
}


async def run_questions(url: str, llm_url: str | None) -> list[dict[str, Any]]:
    """Every hostile question through the service; what happened to each."""
    db = connect(url)
    llm = build_chat_model(llm_url, "bench", "fake", timeout=10) if llm_url else None
    service = service_for(db, Settings(_env_file=None), llm)  # type: ignore[call-arg]
    out = []
    for n, (category, question, expected) in enumerate(QUESTIONS):
        started = time.perf_counter()
        shown: list[str] = []
        record: dict[str, Any] = {"category": category, "expected": expected}
        try:
            async for event in service.stream(question, conversation=f"attack-{n}"):
                if isinstance(event, Token):
                    shown.append(event.text)
                elif isinstance(event, FinalAnswer):
                    result = event.result
                    record.update(
                        blocked=result.blocked,
                        reason=result.decision_path[0],
                        leak=bool(leaks(result.answer) or leaks("".join(shown))),
                        llm_calls=result.llm_calls,
                    )
                elif isinstance(event, ErrorReply):
                    record.update(crash=event.error)
        except Exception as exc:  # a crash is what this suite counts, not what stops it
            record.update(crash=f"{type(exc).__name__}: {exc}")
        record["ms"] = (time.perf_counter() - started) * 1000
        want = f"guard:blocked:{expected}" if expected else "guard"
        record["as_expected"] = "crash" not in record and record.get("reason") == want
        out.append(record)
    await db.dispose()
    return out


def summarise(records: list[dict[str, Any]]) -> list[list[Any]]:
    """One row per category: cases, blocked/answered as expected, leaks, crashes, time."""
    by: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        by[r["category"]].append(r)
    rows = []
    for category, items in by.items():
        baseline = sum(
            1
            for (cat, q, exp) in QUESTIONS
            if cat == category and exp in ("injection", "abuse") and BASELINE.search(q)
        )
        rows.append(
            [
                category,
                len(items),
                sum(1 for r in items if r.get("blocked")),
                baseline if items[0]["expected"] in ("injection", "abuse") else "-",
                f"{sum(r['as_expected'] for r in items)}/{len(items)}",
                sum(1 for r in items if r.get("leak")),
                sum(1 for r in items if "crash" in r),
                f"{sum(r['ms'] for r in items) / len(items):.0f}",
            ]
        )
    return rows


def ingest_hostile_folder(small: bool) -> dict[str, Any]:
    """`ragbot ingest` over hostile files beside honest ones, as an admin would run it."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "mixed"
        folder.mkdir()
        (folder / "dog-licence.txt").write_text(TEXT)
        (folder / "fees.docx").write_bytes(make_docx("Fees", ["Dog licences cost 300 dollars."]))
        (folder / "library.pdf").write_bytes(make_pdf(["Library cards are free of charge."]))
        (folder / "passport-big5.txt").write_bytes("護照換發規費新臺幣一千三百元。".encode("big5"))
        files = hostile_files(big=not small)
        for name, data, _ in files:
            (folder / name).write_bytes(data)
        url, _ = fresh_database("bench_attacks_ingest")
        env = {**os.environ, "DATABASE_URL": url, "RAGBOT_DATA_DIR": str(Path(tmp) / "data")}
        started = time.perf_counter()
        process = subprocess.Popen(
            [str(Path(sys.executable).with_name("ragbot")), "ingest", str(folder)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        peak_kb = 0
        while process.poll() is None:  # the whole tree: ragbot and its parser processes
            peak_kb = max(peak_kb, tree_rss_kb(process.pid))
            time.sleep(0.1)
        stdout, stderr = process.communicate()
        seconds = time.perf_counter() - started
        largest_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        done = subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)
        peak_mb = max(peak_kb, largest_kb) / 1024
    failed = [line for line in done.stdout.splitlines() if line.startswith("failed")]
    return {
        "hostile_files": len(files),
        "honest_files": 4,
        "exit_code": done.returncode,
        "seconds": round(seconds, 1),
        "peak_mb": round(peak_mb),
        "failed_lines": failed,
        "summary": done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr,
    }


def tree_rss_kb(pid: int) -> int:
    """Resident memory of a process and all its descendants, from /proc (KB)."""
    total = 0
    pending = [pid]
    while pending:
        current = pending.pop()
        try:
            status = Path(f"/proc/{current}/status").read_text()
            children = Path(f"/proc/{current}/task/{current}/children").read_text().split()
        except OSError:
            continue
        match = re.search(r"VmRSS:\s+(\d+) kB", status)
        total += int(match.group(1)) if match else 0
        pending.extend(int(c) for c in children)
    return total


def eval_questions() -> list[str]:
    """Every question of the evaluation sets (DRCD, XQuAD en/zh, StackFAQ with rephrasings)."""
    questions: list[str] = []
    for path in (EVAL_DIR / "drcd" / "DRCD_dev.json", *EVAL_DIR.glob("xquad/xquad.*.json")):
        data = json.loads(path.read_text("utf-8"))
        for article in data["data"]:
            for para in article["paragraphs"]:
                questions += [qa["question"] for qa in para["qas"]]
    faq = json.loads((EVAL_DIR / "stackfaq" / "stackExchange-FAQ.json").read_text("utf-8"))
    for entry in faq["root"]["qapair"]:
        questions += [q for q in [entry["question"], *entry["rephr"]] if q and q != "*"]
    return questions


def false_positives() -> list[list[Any]]:
    """Ordinary questions of the evaluation sets each screen blocks."""
    questions = eval_questions()
    new = sum(1 for q in questions if screen(q))
    old = sum(1 for q in questions if BASELINE.search(q))
    n = len(questions)
    return [["previous patterns", n, old, f"{old / n:.4f}"], ["screen", n, new, f"{new / n:.4f}"]]


async def poisoned_knowledge_base() -> str:
    url, _ = fresh_database("bench_attacks")
    db = connect(url)
    ingestion = IngestionService(db, build_embedder(None, None, None, None), IngestOptions())
    for name, body in HONEST.items():
        await ingestion.ingest_bytes(name, body.encode())
    for name, body, _ in POISONED:
        await ingestion.ingest_bytes(name, body.encode())
    await db.dispose()
    return url


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--small", action="store_true", help="smaller bombs (a quick run)")
    args = parser.parse_args()
    url = await poisoned_knowledge_base()
    echo = FakeOpenAI(responder=echo_prompt).start()
    try:
        runs = {"no LLM": await run_questions(url, None)}
        runs["echoing LLM"] = await run_questions(url, echo.url)
    finally:
        echo.stop()
    headers = [
        "category", "cases", "blocked", "blocked by previous patterns", "as expected",
        "leaks", "crashes", "ms/case",
    ]  # fmt: skip
    tables = {}
    for mode, records in runs.items():
        print(f"\n### Hostile questions, {mode} ({len(POISONED)} poisoned documents loaded)\n")
        tables[mode] = print_table(headers, summarise(records))
    print("\n### Ordinary questions blocked (evaluation sets)\n")
    fp = false_positives()
    print_table(["screen", "questions", "blocked", "rate"], fp)
    print("\n### Hostile folder: `ragbot ingest` (honest files beside hostile ones)\n")
    folder = ingest_hostile_folder(args.small)
    print_table(
        ["hostile files", "honest files", "exit code", "seconds", "peak MB (process tree)"],
        [
            [
                folder["hostile_files"],
                folder["honest_files"],
                folder["exit_code"],
                folder["seconds"],
                folder["peak_mb"],
            ]
        ],
    )
    print("\n" + folder["summary"])
    for line in folder["failed_lines"]:
        print("  " + line)
    path = write_json(
        "attacks", {"questions": runs, "false_positives": fp, "hostile_folder": folder}
    )
    print(f"\nwrote {path}")


if __name__ == "__main__":
    asyncio.run(main())
