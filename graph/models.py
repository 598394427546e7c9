"""Builds the chat model from settings values (None: the deterministic no-LLM mode)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlparse


def build_chat_model(
    base_url: str | None,
    api_key: str | None,
    model: str | None,
    timeout: float,
    max_tokens: int = 1024,
) -> Any:
    """A langchain-openai ChatOpenAI for any OpenAI-compatible endpoint, or None.

    The client itself never retries: graph.llm_client does, so that every
    request is counted and each attempt is bounded by LLM_TIMEOUT. Every
    request carries the token cap (LLM_MAX_TOKENS) in the field the endpoint honours.
    """
    if not base_url or not model:
        return None
    from langchain_openai import ChatOpenAI
    from pydantic import SecretStr

    from graph.chunk_stream import DictStreamCompletions

    chat = ChatOpenAI(
        base_url=base_url,
        api_key=SecretStr(api_key or "unused"),
        model=model,
        timeout=timeout,
        max_retries=0,
        temperature=0,
        extra_body={token_cap_field(base_url): max_tokens},
        # token usage of streamed answers too (the trace's generations carry it)
        stream_usage=True,
    )
    # streamed replies parsed to the dicts langchain converts, not via pydantic objects
    chat.async_client = DictStreamCompletions(chat.async_client)
    return chat


def token_cap_field(base_url: str) -> str:
    """The request field that caps a reply's tokens at `base_url`.

    OpenAI's own API takes `max_completion_tokens` (its reasoning models refuse
    `max_tokens` with a 400); the local servers (llama.cpp, vLLM, Ollama) honour
    `max_tokens` and llama_cpp.server ignores the other. langchain-openai always
    renames its max_tokens to `max_completion_tokens`, so the field is set through
    extra_body (merged into the request body as is).
    """
    host = (urlparse(base_url).hostname or "").lower()
    return "max_completion_tokens" if host == "api.openai.com" else "max_tokens"


def warm_chat_model(llm: Any) -> None:
    """Import what the OpenAI client loads at its first request (blocking: run in a thread).

    The client imports its resource modules lazily, about 0.35 s inside the first
    streamed answer: on the event loop, where every turn beside it waits.
    """
    client = getattr(llm, "root_async_client", None)
    if client is not None:
        _ = client.chat.completions, client.beta.chat.completions
