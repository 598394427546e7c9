"""Decision-path codes read as short sentences on the console's Feedback page."""

from __future__ import annotations

import pytest

from bot.core.admin.plain_paths import plain_path, plain_step


@pytest.mark.parametrize(
    ("code", "said"),
    [
        ("language_normalizer:zh-hant", "Language: zh-hant."),
        (
            "language_normalizer:offered:en",
            "The message picked one of the questions the last answer offered, asked as that"
            " question; language: en.",
        ),
        ("guard", "Passed the safety check."),
        ("guard:blocked:injection", "Blocked by the safety check (injection)."),
        ("followup_transform", "Read as a follow-up to the previous question."),
        ("memory:hit", "Answered from the answer memory."),
        ("planner:simple_faq:rules", "Planned as: simple faq:rules."),
        ("query_builder:loop2", "Search round 2."),
        ("tool_executor:search_documents", "Searched the documents (search documents)."),
        (
            "retrieval_checker:generate:pass_rate=0.75",
            "Found good passages (75% passed the check).",
        ),
        (
            "retrieval_checker:retry:pass_rate=0.2",
            "Too few good passages (20% passed); searched again.",
        ),
        (
            "retrieval_checker:fallback:pass_rate=0.0",
            "No passage good enough (0% passed): not answerable from the documents.",
        ),
        ("response_synth:llm", "The model wrote the answer from the passages."),
        (
            "response_synth:llm_refusal",
            "The model's answer was not backed by the passages, so the bot declined.",
        ),
        ("response_synth:extractive", "The answer quotes the passages."),
        ("response_synth:refusal", "The bot said it could not answer."),
        ("response_synth:related:2", "It offered 2 FAQ questions near the one asked."),
        (
            "response_synth:related:failed",
            "It could not look up FAQ questions to offer; the refusal stood.",
        ),
        ("response_synth:out_of_scope", "Outside what the bot answers."),
        ("response_synth:greeting", "A greeting: answered politely."),
        ("response_synth:forms", "Pointed to a form."),
        ("something:new", "something:new"),  # an unknown code is shown as it is
    ],
)
def test_each_code_reads_as_a_sentence(code: str, said: str) -> None:
    assert plain_step(code, "en") == said


@pytest.mark.parametrize("code", ["telemetry", "memory:miss", "rerank:used", "memory:consolidate"])
def test_bookkeeping_steps_are_left_out(code: str) -> None:
    assert plain_step(code, "en") is None


def test_a_path_in_chinese_keeps_its_steps_in_order() -> None:
    path = ["guard", "retrieval_checker:fallback:pass_rate=0.0", "telemetry"]
    assert plain_path(path, "zh-hant") == [
        "通過安全檢查。",
        "沒有足夠合適的段落（0% 通過）：文件無法回答。",
    ]
