"""Fake servers (Slack, Telegram, OpenAI, Langfuse) and shared fixtures the tests use."""
