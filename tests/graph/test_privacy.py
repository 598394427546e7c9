"""The privacy rule (graph.privacy): each kind masked in English and inside Chinese text,
form codes and ordinary numbers kept, log records masked, secret settings never printed."""

from __future__ import annotations

import io
import logging
from typing import Any

import pytest

from bot.settings import Settings
from graph.privacy import has_personal_data, install_log_masking, mask_sensitive


@pytest.mark.parametrize(
    ("text", "secret", "placeholder"),
    [
        ("電話0912-345-678請回電", "0912-345-678", "[PHONE]"),
        ("我的手機是0912345678", "0912345678", "[PHONE]"),
        ("市話02-2345-6789轉分機", "02-2345-6789", "[PHONE]"),
        ("call me on +886 912 345 678 please", "+886 912 345 678", "[PHONE]"),
        ("手机13812345678", "13812345678", "[PHONE]"),
        ("电话：2345 6789", "2345 6789", "[PHONE]"),
        ("身分證A123456789遺失", "A123456789", "[ID]"),
        ("身份证11010119900307851X", "11010119900307851X", "[ID]"),
        ("HKID A123456(7)", "A123456(7)", "[ID]"),
        ("寄到ann.lee@example.org謝謝", "ann.lee@example.org", "[EMAIL]"),
        ("卡號4111-1111-1111-1111扣款", "4111-1111-1111-1111", "[CARD]"),
        ("password: hunter2", "hunter2", "[SECRET]"),
        ("我的密碼：abc12345", "abc12345", "[SECRET]"),
        ("金鑰sk-proj-abcdefghijklmnop1234", "sk-proj-abcdefghijklmnop1234", "[API_KEY]"),
        ("AKIAABCDEFGHIJKLMNOP", "AKIAABCDEFGHIJKLMNOP", "[API_KEY]"),
        # ragbot's own keys (`ragbot apikey create`), alone, glued to Chinese, in a header
        (
            "my key is rbk_TESTONLYnotAkey000000000000000000000000, why 401?",
            "0WExVsn3Wngr2ckhgrcMJvI6AcZST6",
            "[API_KEY]",
        ),
        (
            "金鑰rbk_Zx-_9aB1cD2eF3gH4iJ5kL6mN7oP8qR9sT0uV1wX2y可用嗎",
            "Zx-_9aB1cD2eF3gH4",
            "[API_KEY]",
        ),
        (
            "X-API-Key: rbk_abcdefghijklmnop_QRSTUV-1234567890abcdef",
            "abcdefghijklmnop",
            "[API_KEY]",
        ),
        ("LANGFUSE_SECRET_KEY=sk-lf-6bbf1473-b4ab-47fc-b69e-51a61538742e", "6bbf1473", "[API_KEY]"),
        ("公鑰pk-lf-93749807-4333-42ce-8b3a-719b4d234a7f", "93749807-4333", "[API_KEY]"),
        ("bot 123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw", "AAHdqTcvCH1vGWJxfSeofSA", "[TOKEN]"),
        ("xapp-1-A0123456789-1234567890123-abcdef0123456789", "A0123456789", "[TOKEN]"),
        ("token xoxb-1234567890-abcdefgh", "xoxb-1234567890-abcdefgh", "[TOKEN]"),
        ("ghp_abcdefghijklmnopqrstuvwxyz0123456789", "ghp_abcdefghijklmnop", "[TOKEN]"),
        ("Authorization: Bearer abcdefghijklmnopqrstu", "abcdefghijklmnopqrstu", "[TOKEN]"),
        (
            "jwt是eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJl",
            "eyJhbGciOiJIUzI1NiJ9",
            "[JWT]",
        ),
    ],
)
def test_each_kind_is_masked_in_any_script(text: str, secret: str, placeholder: str) -> None:
    masked = mask_sensitive(text)
    assert secret not in masked
    assert placeholder in masked
    assert has_personal_data(masked)


@pytest.mark.parametrize(
    "text",
    [
        "PK-01 表格在哪裡下載？",
        "PS-11 申請書",
        "案號2024-0012的進度",
        "Is the fee 1,300 dollars in 2026?",
        "2024/03/15 下午3點",
        "第3條第2項",
        "金額 NT$12,000 元",
        "How do I reset my password?",
        "忘記密碼怎麼辦",
        "ISO 9001 and RFC 7231",
        "The hotline 1999 is open",
    ],
)
def test_form_codes_and_ordinary_numbers_stay(text: str) -> None:
    assert mask_sensitive(text) == text
    assert not has_personal_data(text)


def test_log_records_are_masked_before_any_handler_writes_them() -> None:
    logger = logging.getLogger("test.privacy")
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    logger.addHandler(handler)
    logger.propagate = False
    try:
        install_log_masking(logger)
        logger.warning("user wrote %s", "電話0912-345-678 ann@example.org")
    finally:
        logger.removeHandler(handler)
    assert stream.getvalue() == "user wrote 電話[PHONE] [EMAIL]\n"


@pytest.mark.parametrize(
    ("record", "secret"),
    [
        # httpx logs the Bot API URL, the token inside its path
        (
            "HTTP Request: POST https://api.telegram.org/bot123456789:"
            'AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw/getMe "HTTP/1.1 200 OK"',
            "AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw",
        ),
        (
            "GET https://api.telegram.org/file/bot123456:AAE-test_Token-xxxxxxxxxxxxxxxxxxxxxx/doc",
            "AAE-test_Token-xxxxxxxxxxxxxxxxxxxxxx",
        ),
        # URL-quoted: the colon as %3A
        (
            "retrying https%3A%2F%2Fapi.telegram.org%2Fbot123456789%3A"
            "AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw%2FgetMe",
            "AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw",
        ),
        ("POST https://slack.com/api/auth.test?token=xoxb-1234567890-abcdefghij", "xoxb-"),
        ("socket mode with xapp-1-A0123456789-1234567890-abcdef0123", "xapp-1-A0123"),
        ("refreshed xoxe.xoxp-1-Mi0yLTE0-abcdefghijkl", "xoxp-1-Mi0yLTE0"),
    ],
)
def test_tokens_are_masked_in_log_records_in_every_form(record: str, secret: str) -> None:
    logger = logging.getLogger("test.privacy.tokens")
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    logger.addHandler(handler)
    logger.propagate = False
    try:
        install_log_masking(logger)
        logger.warning("%s", record)
    finally:
        logger.removeHandler(handler)
    assert secret not in stream.getvalue()
    assert "[TOKEN]" in stream.getvalue()


def test_tokens_are_masked_in_tracebacks_and_stacks() -> None:
    logger = logging.getLogger("test.privacy.traceback")
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    logger.addHandler(handler)
    logger.propagate = False
    url = "https://api.telegram.org/bot123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw/getMe"
    try:
        install_log_masking(logger)
        try:
            raise RuntimeError(f"Conflict calling {url}")
        except RuntimeError as exc:
            logger.error("telegram update failed: %s", exc, exc_info=True)
            logger.error("telegram failed", exc_info=exc, stack_info=True)
    finally:
        logger.removeHandler(handler)
    written = stream.getvalue()
    assert "Traceback (most recent call last)" in written and "RuntimeError" in written
    assert "AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw" not in written
    assert written.count("bot[TOKEN]/getMe") == 3  # the message and both tracebacks


def test_secret_settings_never_print() -> None:
    values: dict[str, Any] = {
        "LLM_API_KEY": "sk-llm-secret-value",
        "EMBEDDING_API_KEY": "emb-secret-value",
        "LANGFUSE_SECRET_KEY": "sk-lf-secret-value",
        "USER_HASH_KEY": "hash-secret-value",
        "DATABASE_URL": "postgresql+psycopg://ragbot:db-secret-value@db/ragbot",
        "TELEGRAM_BOT_TOKEN": "123:tg-secret-value-AAHdqTcvCH1vGWJxfSeofSAs",
    }
    settings = Settings(_env_file=None, **values)  # type: ignore[call-arg]
    shown = repr(settings) + str(settings) + str(settings.model_dump())
    assert "secret-value" not in shown
    assert settings.database_dsn == values["DATABASE_URL"]


@pytest.mark.parametrize("name", ["LANGFUSE_BASE_URL", "LANGFUSE_HOST"])
def test_langfuse_host_under_either_name(name: str) -> None:
    host: dict[str, Any] = {name: "http://langfuse.local:3000"}
    settings = Settings(_env_file=None, **host)  # type: ignore[call-arg]
    assert settings.langfuse_host == "http://langfuse.local:3000"
    assert not settings.tracing_enabled
    keyed = Settings(
        _env_file=None,  # type: ignore[call-arg]
        LANGFUSE_PUBLIC_KEY="pk-lf-1",
        LANGFUSE_SECRET_KEY="sk-lf-1",
    )
    assert keyed.tracing_enabled
