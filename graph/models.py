"""Builds the chat model from settings values (None: the deterministic no-LLM mode)."""

from __future__ import annotations

from typing import Any


def build_chat_model(
    base_url: str | None,
    api_key: str | None,
    model: str | None,
    timeout: float,
    max_tokens: int = 1024,
) -> Any:
    """A langchain-openai ChatOpenAI for any OpenAI-compatible endpoint, or None.

    The client itself never retries: graph.llm_client does, so that every
    request is counted and each attempt is bounded by LLM_TIMEOUT.
    """
    if not base_url or not model:
        return None
    from langchain_openai import ChatOpenAI
    from pydantic import SecretStr

    return ChatOpenAI(
        base_url=base_url,
        api_key=SecretStr(api_key or "unused"),
        model=model,
        timeout=timeout,
        max_retries=0,
        temperature=0,
        max_completion_tokens=max_tokens,  # bounds every reply (OpenAI's max_tokens)
        # token usage of streamed answers too (the trace's generations carry it)
        stream_usage=True,
    )
