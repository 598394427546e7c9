"""Fixtures shared by the graph's tests: a fake OpenAI-compatible model server."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.fake_openai import FakeOpenAI


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    """A fake OpenAI-compatible server on a local port (its `script` says what it
    replies); stopped after the test."""
    server = FakeOpenAI().start()
    yield server
    server.stop()
