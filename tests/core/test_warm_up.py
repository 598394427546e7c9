"""What a start warms: the answering side (graph and model client, embedder, attack banks)
only where the turns run; jieba and OpenCC everywhere (a serving process may call them on
its event loop)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, cast

import pytest

from bot.app import warming
from bot.app.runtime import Runtime
from bot.app.warming import warm_up


@dataclass
class _Model:
    """An embedder's model that records what it was asked to embed."""

    embedded: list[str] = field(default_factory=list)

    def embed_query(self, text: str) -> list[float]:
        self.embedded.append(text)
        return [0.0]


@dataclass
class _Answers:
    warmed: int = 0

    def warm(self) -> None:
        self.warmed += 1


@dataclass
class _Runtime:
    """What `warm_up` reads of a runtime."""

    model: _Model = field(default_factory=_Model)
    answers: _Answers = field(default_factory=_Answers)
    built: int = 0

    @property
    def embedder(self) -> Any:
        return type("E", (), {"model": self.model, "is_local": False})()

    def answer_service(self) -> _Answers:
        self.built += 1
        return self.answers


@pytest.fixture
def cut(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The texts jieba and OpenCC were given."""
    seen: list[str] = []
    monkeypatch.setattr(warming, "keyword_tokens", lambda text: seen.append(f"jieba:{text}"))
    monkeypatch.setattr(warming, "to_script", lambda text, script: seen.append(f"opencc:{script}"))

    def available() -> bool:
        seen.append("dictionary")
        return True

    monkeypatch.setattr(warming, "available", available)
    return seen


def test_a_process_that_runs_turns_warms_the_answering_side(cut: list[str]) -> None:
    rt = _Runtime()
    warm_up(cast(Runtime, rt))
    assert rt.built == 1 and rt.answers.warmed == 1
    assert rt.model.embedded == ["warm up"]
    assert "dictionary" in cut  # the English-Chinese dictionary, read once at start
    assert any(seen.startswith("jieba:") for seen in cut)
    assert {"opencc:zh-hant", "opencc:zh-hans"} <= set(cut)


def test_a_process_whose_turns_run_elsewhere_warms_jieba_and_opencc_only(
    cut: list[str],
) -> None:
    rt = _Runtime()
    warm_up(cast(Runtime, rt), answers=False)
    assert rt.built == 0 and rt.answers.warmed == 0  # no graph, no model client
    assert rt.model.embedded == []  # the embedder not loaded
    assert "dictionary" not in cut
    assert any(seen.startswith("jieba:") for seen in cut)
    assert {"opencc:zh-hant", "opencc:zh-hans"} <= set(cut)
