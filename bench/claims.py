"""Claim/quote pairs: does the claim judge pass translations and rewordings, and stop wrong facts?

Usage: .venv/bin/python -m bench.claims

Builds pairs from bench/data/claim_facts.v1.jsonl (one fact per line: an English
sentence, its 繁體 translation, rewordings, and the same sentence with another
number, another entity, the opposite polarity); 简体 forms are the 繁體 ones
through OpenCC. Positives: translations (zh→en, en→zh, both scripts) and
rewordings (same language, across languages). Negatives: another number,
another entity, flipped polarity, an unrelated sentence (the next fact's).
The first `TUNE` facts set the threshold; the rest are held out. Prints the
embedder's cosine range per kind, a threshold sweep on the tuning facts, and the
judge's accuracy (facts + meaning, `graph.claim_judge`) per kind and split;
writes bench/results/claims.json.
"""

from __future__ import annotations

import collections
import json
from pathlib import Path
from typing import Any

from bench.common import print_table, write_json
from graph.claim_judge import MIN_MEANING, ClaimJudge
from storage.embeddings import LocalUSEEmbeddings
from textkit.scripts import to_simplified

FACTS = Path(__file__).resolve().parent / "data" / "claim_facts.v1.jsonl"
TUNE = 10  # facts used to choose the threshold; the rest are held out


def pairs() -> list[dict[str, Any]]:
    """(fact index, split, kind, label, claim, quote) rows."""
    bases = [json.loads(line) for line in FACTS.read_text("utf-8").splitlines() if line.strip()]
    out = []
    for i, b in enumerate(bases):
        nxt = bases[(i + 1) % len(bases)]
        s = to_simplified
        good = [
            ("translation", b["hant"], b["en"]),
            ("translation", s(b["hant"]), b["en"]),
            ("translation", b["en"], b["hant"]),
            ("translation", b["en"], s(b["hant"])),
            ("paraphrase", b["en_para"], b["en"]),
            ("paraphrase", b["hant_para"], b["hant"]),
            ("paraphrase", s(b["hant_para"]), b["hant"]),
            ("paraphrase", b["hant_para"], b["en"]),
            ("paraphrase", b["en_para"], b["hant"]),
        ]
        bad = [
            ("number", b["num_en"], b["en"]),
            ("number", b["num_zh"], b["en"]),
            ("number", s(b["num_zh"]), b["hant"]),
            ("entity", b["ent_en"], b["en"]),
            ("entity", b["ent_zh"], b["en"]),
            ("entity", s(b["ent_zh"]), b["hant"]),
            ("entity", b["ent_en"], b["hant"]),
            ("polarity", b["pol_en"], b["en"]),
            ("polarity", b["pol_zh"], b["en"]),
            ("polarity", s(b["pol_zh"]), b["hant"]),
            ("unrelated", nxt["hant"], b["en"]),
            ("unrelated", nxt["en"], b["en"]),
            ("unrelated", s(nxt["en"]), b["hant"]),
        ]
        split = "tune" if i < TUNE else "held_out"
        for label, rows in ((True, good), (False, bad)):
            for kind, claim, quote in rows:
                out.append(
                    {"fact": b["id"], "split": split, "kind": kind, "ok": label,
                     "claim": claim, "quote": quote}
                )  # fmt: skip
    return out


def main() -> None:
    """Print the tables and write the results."""
    embedder = LocalUSEEmbeddings()
    rows = pairs()
    for row in rows:
        judge = ClaimJudge([row["quote"]], embedder)
        verdict = judge.judge(row["claim"], 1, row["quote"])
        row["similarity"] = round(judge._similarity(row["claim"], row["quote"]), 3)
        row["passed"] = verdict.source is not None
        row["reason"] = verdict.reason
    # the embedder alone: cosine range per kind, and the threshold's accuracy on positives
    # vs unrelated sentences (the negatives only meaning can tell)
    ranges = []
    for kind in ("translation", "paraphrase", "number", "entity", "polarity", "unrelated"):
        sims = [r["similarity"] for r in rows if r["kind"] == kind]
        ranges.append([kind, len(sims), min(sims), max(sims)])
    (print_table(["kind", "pairs", "min cosine", "max cosine"], ranges))
    sweep = []
    tune = [r for r in rows if r["split"] == "tune" and (r["ok"] or r["kind"] == "unrelated")]
    for t in (0.25, 0.3, 0.33, 0.35, 0.38, 0.4, 0.45):
        right = sum((r["similarity"] >= t) == r["ok"] for r in tune)
        sweep.append([t, f"{right}/{len(tune)}"])
    (print_table(["cosine threshold", "tune: positives vs unrelated right"], sweep))
    table = []
    for split in ("tune", "held_out"):
        by: dict[str, list[bool]] = collections.defaultdict(list)
        for r in rows:
            if r["split"] == split:
                by[r["kind"]].append(r["passed"] == r["ok"])
        right = sum(sum(v) for v in by.values())
        total = sum(len(v) for v in by.values())
        table.append([split, f"{right}/{total}"] + [f"{sum(by[k])}/{len(by[k])}" for k in KINDS])
    print(f"judge (MIN_MEANING {MIN_MEANING}): right per kind")
    (print_table(["split", "all", *KINDS], table))
    wrong = [r for r in rows if r["passed"] != r["ok"]]
    for r in wrong:
        why = r["reason"] or "passed"
        print(f"  {r['split']:8} {r['kind']:11} sim={r['similarity']:.2f} {why:14}", end=" ")
        print(f"{r['claim']} || {r['quote']}")
    print(f"wrote {write_json('claims', {'threshold': MIN_MEANING, 'pairs': rows})}")


KINDS = ("translation", "paraphrase", "number", "entity", "polarity", "unrelated")

if __name__ == "__main__":
    main()
