"""Guard benchmark: does the injection screen generalise, and what does it cost ordinary askers?

    .venv/bin/python -m bench.guard

Screens, in one run: the patterns alone (the baseline) and the patterns plus
closeness to a known attack (`graph.attack_similarity`, the local embedder).
Counts what each blocks of: the development attacks (tests/support/attack_cases.py,
the patterns were written against them), reworded attacks kept apart from the
bank (tests/support/attack_rewordings.py: read while the bank's second version was
written, so no longer unseen), two sets of attacks and benign look-alikes written
apart from the banks and the patterns (tests/support/attack_held_out.py, whose
misses were read before the patterns grew, and tests/support/attack_held_out_b.py,
never read to write either), three more (tests/support/attack_held_out_c.py: a
third set whose misses were read while the third banks were written, a fourth never
read, and a reviewer's attacks and look-alikes),
questions that only talk about rules and instructions, and every question of the
evaluation sets. Also the time the similarity screen adds per message. Prints a
table and writes bench/results/guard.json.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from bench.attacks import eval_questions
from bench.common import pct, print_table, write_json
from graph.attack_similarity import THRESHOLD, attack_bank
from graph.injection import screen
from storage.embeddings import build_embedder
from tests.support.attack_cases import QUESTIONS
from tests.support.attack_held_out import HELD_OUT_ATTACKS, HELD_OUT_BENIGN
from tests.support.attack_held_out_b import HELD_OUT_ATTACKS_B, HELD_OUT_BENIGN_B
from tests.support.attack_held_out_c import (
    HELD_OUT_ATTACKS_C,
    HELD_OUT_ATTACKS_D,
    HELD_OUT_ATTACKS_E,
    HELD_OUT_BENIGN_D,
    HELD_OUT_BENIGN_E,
)
from tests.support.attack_rewordings import HELPDESK_QUESTIONS, REWORDED_ATTACKS, RULE_QUESTIONS


async def main() -> None:
    model = build_embedder(None, None, None, None).model
    bank = attack_bank()
    await bank.closeness(model, "warm up")  # the bank is embedded once, before timing
    sets = {
        "development attacks": [t for _, t, want in QUESTIONS if want == "injection"],
        "reworded attacks (seen while the bank grew)": REWORDED_ATTACKS,
        "attacks written apart, first set": HELD_OUT_ATTACKS,
        "benign look-alikes written apart, first set": HELD_OUT_BENIGN,
        "attacks written apart, second set (held out)": HELD_OUT_ATTACKS_B,
        "benign look-alikes written apart, second set (held out)": HELD_OUT_BENIGN_B,
        "attacks written apart, third set (read while the third banks grew)": HELD_OUT_ATTACKS_C,
        "attacks written apart, fourth set (held out)": HELD_OUT_ATTACKS_D,
        "benign look-alikes written apart, fourth set (held out)": HELD_OUT_BENIGN_D,
        "attacks a reviewer wrote (misses read)": HELD_OUT_ATTACKS_E,
        "benign look-alikes a reviewer wrote (those once blocked read)": HELD_OUT_BENIGN_E,
        "questions about rules": RULE_QUESTIONS,
        "helpdesk requests once blocked (not held out)": HELPDESK_QUESTIONS,
        "evaluation-set questions": eval_questions(),
    }
    rows: list[list[Any]] = []
    timings: list[float] = []
    for name, texts in sets.items():
        patterns = [screen(t) == "injection" for t in texts]
        both = []
        for text, caught in zip(texts, patterns, strict=True):
            began = time.perf_counter()
            close = (await bank.closeness(model, text)).blocks
            timings.append((time.perf_counter() - began) * 1000)
            both.append(caught or close)
        n = len(texts)
        rows.append(
            [name, n, sum(patterns), f"{sum(patterns) / n:.4f}", sum(both), f"{sum(both) / n:.4f}"]
        )
    headers = [
        "set",
        "messages",
        "patterns: blocked",
        "rate",
        "patterns + similarity: blocked",
        "rate",
    ]
    sizes = f"{len(bank.attacks)} attacks, {len(bank.ordinary)} ordinary requests"
    print(f"\nbanks {bank.version}: {sizes}, threshold {THRESHOLD}\n")
    table = print_table(headers, rows)
    ms = [f"{pct(timings, 50):.2f}", f"{pct(timings, 95):.2f}"]
    print(f"\nsimilarity screen per message: p50 {ms[0]} ms, p95 {ms[1]} ms")
    path = write_json(
        "guard", {"bank": bank.version, "threshold": THRESHOLD, "table": table, "ms_p50_p95": ms}
    )
    print(f"wrote {path}")


if __name__ == "__main__":
    asyncio.run(main())
