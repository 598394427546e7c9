"""Keyword tokens."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, cast

from textkit.tokens import keyword_tokens


def test_keyword_tokens_are_script_neutral() -> None:
    assert keyword_tokens("申請護照需要什麼文件") == keyword_tokens("申请护照需要什么文件")
    assert "护照" in keyword_tokens("護照")


def test_keyword_tokens_fold_width_and_case_and_drop_punctuation() -> None:
    assert keyword_tokens("ＣＯＶＩＤ－１９ Vaccine！") == keyword_tokens("covid-19 vaccine")
    assert all(t.strip("!！?？,，。") for t in keyword_tokens("你好，世界！"))


# A fresh interpreter: whether jieba built its dictionary itself, and the cuts.
_CUT = """
import json, sys
import jieba
built = []
own = jieba.Tokenizer.initialize
def noted(self, *args, **kwargs):
    built.append(1)
    return own(self, *args, **kwargs)
jieba.Tokenizer.initialize = noted
jieba.initialize = lambda *args, **kwargs: noted(jieba.dt, *args, **kwargs)
from textkit import tokens
if sys.argv[2] == "jieba":  # jieba's own set-up, as before: the reference
    tokens._load_dictionary_cache = lambda jieba: False
cut = tokens.keyword_tokens(sys.argv[1])
print(json.dumps({"by_jieba": bool(built), "words": len(jieba.dt.FREQ), "tokens": cut}))
"""
_TEXT = "申請居留證延期需要哪些文件？全民健康保險的保費怎麼計算 How are the fees paid"


def _fresh_cut(tmp: Path, how: str = "ours") -> dict[str, Any]:
    env = {**os.environ, "TMPDIR": str(tmp)}  # where jieba keeps its cache
    done = subprocess.run(
        [sys.executable, "-c", _CUT, _TEXT, how],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return cast(dict[str, Any], json.loads(done.stdout))


def test_the_dictionary_read_from_jiebas_cache_cuts_as_jieba_does(tmp_path: Path) -> None:
    built = _fresh_cut(tmp_path, "jieba")  # no cache yet: jieba builds and writes it
    assert built["by_jieba"] and (tmp_path / "jieba.cache").is_file()
    read = _fresh_cut(tmp_path)
    assert not read["by_jieba"]  # read from the cache here
    assert read["words"] == built["words"] > 100_000
    assert read["tokens"] == built["tokens"]
    assert {"居留", "延期", "保费", "fee"} <= set(read["tokens"])


def test_a_damaged_cache_is_left_to_jieba_which_writes_it_anew(tmp_path: Path) -> None:
    reference = _fresh_cut(tmp_path, "jieba")
    (tmp_path / "jieba.cache").write_bytes(b"\x00not a marshal file")
    damaged = _fresh_cut(tmp_path)
    assert damaged["by_jieba"] and damaged["tokens"] == reference["tokens"]
    assert len((tmp_path / "jieba.cache").read_bytes()) > 1_000_000  # rebuilt by jieba
    assert _fresh_cut(tmp_path)["tokens"] == reference["tokens"]
