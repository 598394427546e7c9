"""Personal-data scan benchmark: harmless encyclopedic text passes, real personal data does not.

    RAGBOT_EVAL_DIR=/work/shared/eval .venv/bin/python -m bench.personal_data [--baseline ROOT]

False positives: every passage (`context`) of the evaluation sets (DRCD, XQuAD
en/zh: Wikipedia) is scanned as a document bound for `public` would be, as
written and hard-wrapped the way PDF extraction wraps it (every 37 characters,
through words and numbers; and English word-wrapped with the space lost), and
the StackFAQ answers (technical Q&A, reported apart: its e-mail addresses are
e-mail addresses). Recall: a labelled set of real-shaped personal data (valid
check digits) in zh-hant, zh-hans and English sentences, written whole and
broken by a line break. Each is measured for this checkout's `scan` and for the
baseline's (`--baseline ROOT`: that checkout's textkit/personal_data.py; by
default the `main` branch's), in the same process. Prints a table and writes
bench/results/personal_data.json, with every remaining flag and its reason.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

from bench.common import CORPORA, EVAL_DIR, print_table, write_json
from textkit import personal_data

ROOT = Path(__file__).resolve().parents[1]
WRAP = 37  # characters per extracted line (a narrow PDF column of CJK text)
Scanner = Callable[[str], dict[str, int]]


def load_baseline(root: str | None) -> ModuleType:
    """The baseline's textkit.personal_data, loaded from its file under another name."""
    if root is not None:
        source = (Path(root) / "textkit" / "personal_data.py").read_text()
    else:
        source = subprocess.run(
            ["git", "show", "main:textkit/personal_data.py"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    path = Path(tempfile.mkdtemp()) / "baseline_personal_data.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("baseline_personal_data", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def scanner(module: ModuleType) -> Scanner:
    """Counts per kind of what `module.scan` finds in one text as a document's only block."""

    def run(text: str) -> dict[str, int]:
        found = module.scan([(text, None, None)])
        return dict(found.counts) if found is not None else {}

    return run


def passages() -> dict[str, list[str]]:
    """Every passage of the encyclopedic evaluation sets, and the StackFAQ answers."""
    sets: dict[str, list[str]] = {}
    for name, path in CORPORA.items():
        data = json.loads(path.read_text())["data"]
        sets[name] = [p["context"] for a in data for p in a["paragraphs"]]
    faq = EVAL_DIR / "stackfaq" / "stackExchange-FAQ.json"
    if faq.exists():
        pairs = json.loads(faq.read_text())["root"]["qapair"]
        sets["stackfaq answers (en, technical)"] = [
            "\n".join([q["question"], *q["answer"]]) for q in pairs
        ]
    return sets


def hard_wrap(text: str) -> str:
    """`text` broken every WRAP characters, through words and numbers (CJK PDF lines)."""
    return "\n".join(text[i : i + WRAP] for i in range(0, len(text), WRAP))


def word_wrap(text: str, width: int = 60) -> str:
    """`text` word-wrapped at `width` with the space at each break lost (English PDF lines)."""
    lines, line = [], ""
    for word in text.split(" "):
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    return "\n".join([*lines, line])


def _tw_id(letter: str, body: str) -> str:
    code = dict(zip("ABCDEFGHJKLMNPQRSTUVXYWZIO", range(10, 36), strict=True))[letter]
    weighted = sum(int(d) * w for d, w in zip(body, range(8, 0, -1), strict=True))
    total = code // 10 + (code % 10) * 9 + weighted
    return f"{letter}{body}{(10 - total % 10) % 10}"


def _cn_id(body: str) -> str:
    weights = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
    return body + "10X98765432"[sum(int(d) * w for d, w in zip(body, weights, strict=True)) % 11]


def _hk_id(letter: str, digits: str) -> str:
    values = [36, ord(letter) - 55, *map(int, digits)]
    check = (11 - sum(v * w for v, w in zip(values, range(9, 1, -1), strict=True)) % 11) % 11
    return f"{letter}{digits}({'A' if check == 10 else check})"


def _luhn(body: str) -> str:
    for d in "0123456789":
        if personal_data.checks.luhn_valid(body + d):
            return body + d
    raise ValueError(body)


def _grouped(number: str, sizes: tuple[int, ...]) -> str:
    parts, i = [], 0
    for size in sizes:
        parts.append(number[i : i + size])
        i += size
    return " ".join(parts)


# (kind, value, the sentence it stands in)
_TEMPLATES = {
    "zh-hant": "申請人：王小明，{v}，已於上週完成登記。",
    "zh-hans": "申请人：李华，{v}，已于上周完成登记。",
    "en": "Applicant Jane Roe, {v}, registered last week.",
}
_CUED = {
    "zh-hant": "如有疑問請來電{v}洽詢。",
    "zh-hans": "如有疑问请致电{v}咨询。",
    "en": "Questions? Call {v} on weekdays.",
}


def labelled() -> list[tuple[str, str, str]]:
    """(kind, value, language) of real-shaped personal data with valid check digits."""
    visa, master = _luhn("411111111111111"), _luhn("552500000000000")
    amex, unionpay = _luhn("37828224631000"), _luhn("621700000000000")
    values = [
        ("email", "jane.roe@example.com"),
        ("email", "wang.xm@mail.gov.tw"),
        ("email", "li_hua+forms@qq.com"),
        ("id", _tw_id("A", "12345678")),
        ("id", _tw_id("F", "23456789")),
        ("id", _tw_id("K", "80012345")),  # new resident certificate
        ("id", _cn_id("11010519900101123")),
        ("id", _cn_id("44030419851231002")),
        ("id", _hk_id("A", "123456")),
        ("id", _hk_id("K", "765432")),
        ("card", _grouped(visa, (4, 4, 4, 4))),
        ("card", master),
        ("card", "-".join(_grouped(master, (4, 4, 4, 4)).split())),
        ("card", _grouped(amex, (4, 6, 5))),
        ("card", _grouped(unionpay, (4, 4, 4, 4))),
        ("phone", "0912-345-678"),
        ("phone", "0912345678"),
        ("phone", "0912 345 678"),
        ("phone", "02-2345-6789"),
        ("phone", "(02)2720-8889"),
        ("phone", "07-123-4567"),
        ("phone", "037-123456"),
        ("phone", "138 1234 5678"),
        ("phone", "13812345678"),
        ("phone", "010-12345678"),
        ("phone", "0755-1234-5678"),
        ("phone", "+886 912 345 678"),
        ("phone", "+886-2-2345-6789"),
        ("phone", "+852 2345 6789"),
        ("phone", "+86 138 1234 5678"),
        ("phone", "+1 415 555 0123"),
        ("phone", "+44 20 7946 0958"),
    ]
    return [(kind, value, lang) for kind, value in values for lang in _TEMPLATES]


def broken(value: str) -> str:
    """`value` cut by a line break near its middle, as extraction wraps it (a space at the
    break is lost)."""
    k = len(value) // 2
    if value[k] == " ":
        return value[:k] + "\n" + value[k + 1 :]
    return value[:k] + "\n" + value[k:]


def recall_cases() -> list[tuple[str, str, str]]:
    """(case name, text, kind) for each labelled value, whole and wrapped, plain and cued."""
    cases = []
    for kind, value, lang in labelled():
        for how, shown in (("whole", value), ("wrapped", broken(value))):
            cases.append((f"{lang}/{how}", _TEMPLATES[lang].format(v=shown), kind))
        # 8-digit Hong Kong numbers have no prefix of their own: only after a phone word
    for lang, template in _CUED.items():
        for how, shown in (("whole", "2345 6789"), ("wrapped", "2345\n6789")):
            cases.append((f"{lang}/{how}", template.format(v=shown), "phone"))
    return cases


def flags(scan: Scanner, texts: list[str]) -> list[tuple[int, dict[str, int]]]:
    """(index, counts) of each text the scanner flags."""
    return [(i, counts) for i, text in enumerate(texts) if (counts := scan(text))]


def explain(text: str) -> list[dict[str, Any]]:
    """What this checkout's scan flags in `text`: kind, value (masked) and its context."""
    reasons = []
    found = personal_data.scan([(text, None, None)])
    for example in found.examples if found is not None else ():
        line = text.split("\n")[example.line - 1] if example.line else ""
        reasons.append({"kind": example.kind, "value": example.value, "line": line[:120]})
    return reasons


def main() -> None:
    """Measure both scanners on every passage and the labelled set; print, write JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", help="another checkout's root (default: branch main)")
    args = parser.parse_args()
    scanners = {"baseline": scanner(load_baseline(args.baseline)), "this": scanner(personal_data)}
    rows: list[list[Any]] = []
    payload: dict[str, Any] = {"false_positives": {}, "recall": {}, "remaining_flags": []}
    for corpus, texts in passages().items():
        variants = {"as written": texts, f"hard-wrapped at {WRAP}": [hard_wrap(t) for t in texts]}
        if "en" in corpus:
            variants["word-wrapped, space lost"] = [word_wrap(t) for t in texts]
        for variant, shown in variants.items():
            counts = {name: len(flags(scan, shown)) for name, scan in scanners.items()}
            rate = {name: counts[name] / len(shown) for name in counts}
            rows.append(
                [
                    corpus,
                    variant,
                    len(shown),
                    f"{counts['baseline']} ({rate['baseline']:.2%})",
                    f"{counts['this']} ({rate['this']:.2%})",
                ]
            )
            payload["false_positives"][f"{corpus} / {variant}"] = {
                "passages": len(shown),
                "flagged": counts,
            }
            for i, _ in flags(scanners["this"], shown):
                payload["remaining_flags"].append(
                    {"corpus": corpus, "variant": variant, "passage": i, "found": explain(shown[i])}
                )
    print_table(["corpus", "as", "passages", "flagged: baseline", "flagged: this"], rows)
    cases = recall_cases()
    recall_rows: list[list[Any]] = []
    for group in sorted({name.split("/")[1] for name, _, _ in cases}):
        picked = [(t, k) for name, t, k in cases if name.endswith(group)]
        hits = {
            name: sum(1 for text, kind in picked if scan(text).get(kind))
            for name, scan in scanners.items()
        }
        missed = [text for text, kind in picked if not scanners["this"](text).get(kind)]
        recall_rows.append(
            [
                group,
                len(picked),
                f"{hits['baseline'] / len(picked):.1%}",
                f"{hits['this'] / len(picked):.1%}",
            ]
        )
        payload["recall"][group] = {"cases": len(picked), "found": hits, "missed_now": missed}
    print_table(
        ["labelled personal data", "cases", "recall: baseline", "recall: this"], recall_rows
    )
    for flag in payload["remaining_flags"]:
        where = f"{flag['corpus']} / {flag['variant']} #{flag['passage']}"
        print(f"still flagged: {where}: {flag['found']}")
    print(f"wrote {write_json('personal_data', payload)}")


if __name__ == "__main__":
    main()
