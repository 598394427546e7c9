"""The crash tests' fixtures: the thinking model, the knowledge base, the fake chats."""

from tests.support.crash_recovery import model, passport, slack, tg  # noqa: F401  (the fixtures)
