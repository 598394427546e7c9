"""Keyword tokens."""

from __future__ import annotations

import json
import marshal
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, cast

import pytest

from textkit.tokens import CACHE_MAX_BYTES, keyword_spans, keyword_tokens


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
        timeout=60,  # a pipe waited on would hang here
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return cast(dict[str, Any], json.loads(done.stdout))


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """jieba's own cache, built once by jieba itself, and its cuts: the reference."""
    folder = tmp_path_factory.mktemp("jieba")
    reference = _fresh_cut(folder, "jieba")  # no cache yet: jieba builds and writes it
    assert reference["by_jieba"] and (folder / "jieba.cache").is_file()
    return folder / "jieba.cache", reference


def test_the_dictionary_read_from_jiebas_cache_cuts_as_jieba_does(
    built: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    cache, reference = built
    # one word more than jieba's: proof that this cache, where jieba keeps it, was read
    freq, total = marshal.loads(cache.read_bytes())
    (tmp_path / "jieba.cache").write_bytes(marshal.dumps(({**freq, "拉格博特": 5}, total + 5)))
    read = _fresh_cut(tmp_path)
    assert not read["by_jieba"]
    assert read["words"] == reference["words"] + 1 > 100_000
    assert read["tokens"] == reference["tokens"]
    assert {"居留", "延期", "保费", "fee"} <= set(read["tokens"])


def test_a_damaged_cache_is_left_to_jieba_which_writes_it_anew(
    built: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    _, reference = built
    (tmp_path / "jieba.cache").write_bytes(b"\x00not a marshal file")
    damaged = _fresh_cut(tmp_path)
    assert damaged["by_jieba"] and damaged["tokens"] == reference["tokens"]
    again = _fresh_cut(tmp_path)  # jieba wrote it anew: read here from then on
    assert not again["by_jieba"] and again["tokens"] == reference["tokens"]


@pytest.mark.parametrize("kind", ["writable by others", "a pipe", "a link", "too large"])
def test_a_cache_file_not_safely_ours_is_left_to_jieba(
    built: tuple[Path, dict[str, Any]], tmp_path: Path, kind: str
) -> None:
    """The cache is in a shared temporary directory: what another user could have put
    there is never read here (and a pipe never waited on)."""
    cache, reference = built
    target = tmp_path / "jieba.cache"
    if kind == "writable by others":
        shutil.copy(cache, target)
        target.chmod(0o666)
    elif kind == "a pipe":
        os.mkfifo(target)
    elif kind == "a link":
        target.symlink_to(cache)
    else:  # sparse: no disk, but over the limit
        with target.open("wb") as file:
            file.truncate(CACHE_MAX_BYTES + 1)
    out = _fresh_cut(tmp_path)
    assert out["by_jieba"] and out["tokens"] == reference["tokens"]


def test_a_stopword_is_not_folded_into_a_word_it_is_not() -> None:
    # "does" was folded to "doe" like a plural, and no stopword list held "doe": every
    # "What does ... ?" asked a word no answer holds
    tokens = keyword_tokens("What does the renewal cost?")
    assert "does" in tokens and "doe" not in tokens
    assert keyword_tokens("costs fees cities") == ["cost", "fee", "city"]


def test_the_spans_are_the_tokens_with_where_they_lie() -> None:
    text = "原來的定居者是誰？ Who were the original settlers?"
    spans = keyword_spans(text)
    assert [token for token, _, _ in spans] == keyword_tokens(text)
    # the search cut's parts lie inside the word they are cut from
    whole = next((s, e) for t, s, e in spans if t == "定居者")
    assert all(whole[0] <= s and e <= whole[1] for t, s, e in spans if t in {"定居", "居者"})
