"""The catalog of user-facing words: complete in three languages, and has every key asked for."""

from __future__ import annotations

import string

import pytest

from bot.core.admin.uploads import human_size
from bot.slack.blocks import feedback_block, sources_block
from bot.telegram.menus import admin_commands, public_commands
from bot.telegram.render import language_keyboard, sources, vote_row
from graph.replies import progress_message, refusal
from storage.ingestion import ADDED, FAILED, REPLACED, UNCHANGED
from textkit.catalog import LANGUAGES, entries, known, say

CITED = [{"n": 1, "document": "Passport", "page": 3, "url": "https://example.org/p"}]
# Keys said directly (say(key, …)) by graph nodes, the service, the core and the adapters,
# with the fields each call fills in.
SAID: dict[str, dict[str, object]] = {
    # graph/nodes/guard.py (screen's verdicts: injection, abuse)
    "empty": {},
    "too_long": {"limit": 2000},
    "injection": {},
    "abuse": {},
    # graph/nodes/response_synth.py
    "answer_intro": {},
    "forms_intro": {},
    "thanks": {},
    "greeting": {},
    "out_of_scope": {},
    # bot/turn/service.py and bot/core/answering/console_turns.py
    "error": {},
    "rate_limited": {"limit": 10},
    "inbox:late": {},
    "inbox:queued": {},
    # bot/core/admin/commands.py
    "unknown_command": {"command": "frobnicate", "help": "Ask me."},
    "not_admin": {},
    "help": {},
    "help_admin": {},
    "empty_list": {"kind": "forms"},
    "usage": {"usage": "delete <title>"},
    "send_file": {},
    "done": {"what": "deleted 'x'"},
    "not_found": {"kind": "form", "name": "x"},
    # bot/core/admin/source_commands.py
    "sources_sync_queued": {"name": "kb"},
    "sources_not_here": {},
    # bot/core/admin/source_jobs.py
    "sources_sync_done": {"name": "kb", "result": "1 added"},
    # bot/core/admin/gap_reask_jobs.py
    "gaps_reasked": {"answered": 1, "asked": 2},
    # bot/core/admin/uploads.py and bot/core/admin/jobs.py (upload_<status>)
    "upload_received": {
        "name": "a.pdf",
        "size": human_size(2048),
        "collection": "public",
        "readers": "everyone",
    },
    "upload_refused": {"name": "a.exe", "reason": "not a document"},
    **{
        f"upload_{status}": {"name": "a.pdf", "title": "A", "chunks": 3, "reason": "why"}
        for status in (ADDED, REPLACED, UNCHANGED, FAILED)
    },
    # bot/core/admin/upload_desk.py and bot/core/serving.py (readers)
    "upload_offer": {"name": "a.pdf", "size": "2 kB"},
    "upload_add_to": {"collection": "public"},
    "upload_ignore_button": {},
    "upload_offer_gone": {},
    "upload_not_yours": {},
    "upload_ignored": {"name": "a.pdf"},
    "upload_in_dm": {},
    "upload_publishing": {"name": "a.pdf", "collection": "public", "readers": "everyone"},
    "upload_cancelled": {"name": "a.pdf"},
    "readers:slack": {},
    "readers:telegram": {},
    "readers:none": {},
    # bot/core/admin/jobs.py (a held upload)
    "upload_held": {"name": "a.pdf", "collection": "public", "findings": "ID × 1"},
    "upload_publish_anyway_button": {},
    "upload_cancel_button": {},
    "personal_data:email": {},
    "personal_data:id": {},
    "personal_data:phone": {},
    "personal_data:card": {},
    "personal_data_page_line": {"page": 2, "line": 14},
    "personal_data_line": {"line": 14},
    "personal_data_title": {},
    "personal_data_heading": {"where": "line 3"},
    # bot/slack/responder.py, render.py and app.py
    "progress:received": {},
    "slack:feedback_taken": {"emoji": "👍", "user": "<@U1>"},
    "slack:post_failed": {},
    # bot/telegram/commands.py, listeners.py and buttons.py
    "telegram:welcome": {},
    "telegram:choose_language": {},
    "telegram:language_set": {},
    "telegram:new_conversation": {},
    "telegram:new_in_group": {},
    "telegram:thanks": {},
    "telegram:vote_gone": {},
    "telegram:form_missing": {},
    "telegram:admin_in_private": {},
    # bot/core/admin/commands.py (chat addform)
    "form_added": {"name": "Leave form", "collection": "internal"},
    "form_replaced": {"name": "Leave form", "collection": "internal"},
    "form_moved": {"name": "Leave form", "collection": "public"},
    "form_collection_refused": {"name": "Leave", "collection": "internal", "allowed": "public"},
    "stats_scope": {"platform": "telegram", "collections": "public"},
    "collections_all": {},
    "collections_none": {},
    # bot/core/serving.py (a listed Slack admin whose account could not be verified)
    "admin_unverified": {},
}


def _fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


@pytest.mark.parametrize("key", sorted(entries()))
def test_every_message_has_three_languages_and_the_same_placeholders(key: str) -> None:
    texts = entries()[key]
    assert set(texts) == set(LANGUAGES)
    assert all(isinstance(t, str) and t.strip() for t in texts.values())
    assert len({frozenset(_fields(t)) for t in texts.values()}) == 1, texts


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_key_the_code_says_exists(language: str) -> None:
    for key, fields in SAID.items():
        assert known(key), key
        assert say(key, language, **fields)
    assert refusal(language, {})
    assert progress_message("received", language)
    assert sources(CITED, language)
    assert sources_block(CITED, language)
    assert feedback_block(7, language)
    assert vote_row(7, language, chosen=True)


def test_progress_shows_only_the_steps_users_see() -> None:
    shown = ["received", "planner", "query_builder", "tool_executor", "retrieval_checker"]
    assert all(progress_message(step, "zh-hans") for step in shown)
    assert progress_message("guard", "en") is None
    assert progress_message("planner", "zh-hans") == "思考中…"


def test_unknown_language_falls_back_to_english() -> None:
    assert say("thanks", "fr") == say("thanks", "en") == "You're welcome! Ask me anytime."
    assert progress_message("planner", "fr") == "Thinking…"


def test_refusal_names_the_handoff_contact() -> None:
    assert "our service desk" in refusal("en", {})
    assert "服務台" in refusal("zh-hant", {})
    assert "the library" in refusal("en", {"": "the library"})
    assert "圖書館" in refusal("zh-hant", {"": "the library", "zh-hant": "圖書館"})


def test_sources_headings_share_one_word() -> None:
    assert sources(CITED, "zh-hant").startswith("<b>資料來源</b>\n")
    hans, en = sources_block(CITED, "zh-hans"), sources_block(CITED, "en")
    assert hans is not None and en is not None
    assert hans["elements"][0]["text"].startswith("*资料来源：*\n")
    assert en["elements"][0]["text"].startswith("*Sources:*\n")


def test_telegram_menus_and_language_buttons() -> None:
    public, admin = public_commands(), admin_commands()
    assert set(public) == set(admin) == {"en", "zh"}
    assert public["en"][0] == ("start", "What I can do")
    assert public["zh"][0] == ("start", "我能做什麼 / 我能做什么")
    assert admin["zh"][0] == ("upload", "新增文件（作為檔案說明）")
    assert all(d for menu in (*public.values(), *admin.values()) for _, d in menu)
    buttons = language_keyboard().inline_keyboard[0]
    assert [b.text for b in buttons] == ["English", "繁體中文", "简体中文"]
