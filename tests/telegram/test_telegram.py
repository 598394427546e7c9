"""The real PTB Application on the serving core, against a fake Telegram Bot API over HTTP.

Updates are accepted into the inbox; answers arrive afterwards, through the
renderer and the outbox: the tests wait for what the fake recorded.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import itertools
import re
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest
from sqlalchemy import text

from bot.app.case_renderers import register_cases
from bot.core.delivery.http import build_app
from bot.telegram.app import TelegramAdapter
from bot.telegram.render import MESSAGE_LIMIT, html_messages
from graph.models import build_chat_model
from storage.db import Database, head_revision
from storage.embeddings import Embedder
from storage.ingestion import IngestionService, IngestOptions
from tests.support.core_fixtures import (
    DOCS,
    Worker,
    close_worker,
    jobs_running,
    make_worker,
    settings_for_tests,
    until,
)
from tests.support.fake_openai import FakeOpenAI, planned_answer
from tests.support.fake_telegram import (
    BOT_USERNAME,
    TOKEN,
    FakeTelegram,
    callback,
    group_text,
    private_document,
    private_text,
)
from tests.support.listed_answer import (
    HEADINGS,
    ITEMS,
    LEAD,
    LIST_BODY,
    LIST_DOCUMENT,
    LIST_QUESTION,
)

SECRET = "webhook-secret_1"
ADMIN = 42  # settings_for_tests makes Telegram user 42 an admin


class TelegramHarness:
    """One worker with the adapter in webhook mode, reached through the ASGI app."""

    def __init__(self, worker: Worker, adapter: TelegramAdapter) -> None:
        self.worker, self.adapter = worker, adapter
        self.llm: FakeOpenAI | None = None  # the fake model, when the graph has one
        app = build_app(worker.db, head_revision(), adapter.routes)
        self.http = httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t")

    async def post(self, update: dict[str, Any], secret: str | None = SECRET) -> httpx.Response:
        headers = {"X-Telegram-Bot-Api-Secret-Token": secret} if secret is not None else {}
        return await self.http.post("/telegram/webhook", json=update, headers=headers)


@pytest.fixture
def fake_tg() -> Iterator[FakeTelegram]:
    fake = FakeTelegram().start()
    yield fake
    fake.stop()


async def start_harness(
    database_url: str, embedder: Embedder, fake: FakeTelegram, llm: Any = None, **settings: Any
) -> TelegramHarness:
    values = {
        "TELEGRAM_BOT_TOKEN": TOKEN,
        "TELEGRAM_API_BASE_URL": fake.url,
        "TELEGRAM_WEBHOOK_URL": "https://bot.example.org/telegram/webhook",
        "TELEGRAM_WEBHOOK_SECRET": SECRET,
        **settings,
    }
    config = settings_for_tests(**values)
    worker = await make_worker(database_url, embedder, config, llm=llm)
    adapter = TelegramAdapter(worker.core, config)
    return await open_harness(worker, adapter)


async def open_harness(worker: Worker, adapter: TelegramAdapter) -> TelegramHarness:
    """Start the adapter, then the inbox and outbox loops, as `ragbot serve` does (its
    runtime registers the hand-off cards of every platform on the core)."""
    register_cases(worker.core)  # as the runtime does: the adapter leaves cards to it
    await adapter.start()
    worker.core.inbox.open()
    worker.core.outbox.open()
    return TelegramHarness(worker, adapter)


async def stop_harness(h: TelegramHarness) -> None:
    """Stop as `ragbot serve` does: drain, stop fetching, finish turns, send what is due."""
    await h.http.aclose()
    h.worker.core.begin_drain()
    await h.adapter.stop()
    await h.worker.core.drain(5)
    await h.worker.core.outbox.stop(5)
    await h.adapter.close()
    await close_worker(h.worker)


PLAN = '{"task_type": "simple_faq", "should_retrieve": true, "query": "passport renewal cost"}'


@contextlib.asynccontextmanager
async def llm_harness(
    database_url: str,
    embedder: Embedder,
    fake: FakeTelegram,
    answer: str,
    pace: float = 0.0,
    **settings: Any,
) -> AsyncIterator[TelegramHarness]:
    """A webhook-mode worker whose graph uses a fake LLM: plans FAQ, writes `answer` at `pace`."""
    llm_server = FakeOpenAI().start()
    llm_server.responder = planned_answer(PLAN, answer, pace)
    llm = build_chat_model(llm_server.url, "key", "fake", timeout=10.0)
    h = await start_harness(database_url, embedder, fake, llm=llm, **settings)
    h.llm = llm_server
    try:
        yield h
    finally:
        await stop_harness(h)
        llm_server.stop()


@pytest.fixture
async def docs(db: Database, embedder: Embedder) -> None:
    ingestion = IngestionService(db, embedder, IngestOptions())
    for name, body in DOCS.items():
        await ingestion.ingest_bytes(name, body.encode(), collection="public")


@pytest.fixture
async def tg(
    docs: None, database_url: str, embedder: Embedder, fake_tg: FakeTelegram
) -> AsyncIterator[list[TelegramHarness]]:
    """Two workers on one database, both in webhook mode."""
    harnesses = [await start_harness(database_url, embedder, fake_tg) for _ in range(2)]
    yield harnesses
    for h in harnesses:
        await stop_harness(h)


def keyboard(params: dict[str, Any]) -> list[dict[str, Any]]:
    markup = params.get("reply_markup") or {}
    return [button for row in markup.get("inline_keyboard", []) for button in row]


def answers(fake: FakeTelegram, chat_id: int) -> list[dict[str, Any]]:
    """Final answers shown in a chat: the messages carrying vote buttons (429s not counted)."""
    found = fake.of("sendMessage", chat_id, delivered=True) + fake.of(
        "editMessageText", chat_id, delivered=True
    )
    return [
        p
        for p in found
        if any(str(b.get("callback_data", "")).startswith("fb:") for b in keyboard(p))
    ]


async def until_stored(db: Database, key: str) -> None:
    """Wait until the bot has written chat state `key` (it does so after a send returns)."""

    async def stored() -> bool:
        async with db.sessions() as session:
            found = await session.scalar(
                text("SELECT 1 FROM chat_state WHERE platform = 'telegram' AND key = :k"),
                {"k": key},
            )
        return found is not None

    for _ in range(300):
        if await stored():
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"chat state {key} never stored")


async def inbox_status(db: Database, delivery_id: str) -> str | None:
    async with db.sessions() as session:
        found = await session.scalar(
            text(
                "SELECT status FROM processed_events WHERE platform = 'telegram' AND event_id = :id"
            ),
            {"id": delivery_id},
        )
    return str(found) if found is not None else None


async def outbox_left(db: Database, chat: int) -> int:
    """The chat's outbox rows that would post or edit a message and are not sent yet
    (pending, or being sent; a reaction's is not counted)."""
    async with db.sessions() as session:
        found = await session.scalar(
            text(
                "SELECT count(*) FROM outbox WHERE platform = 'telegram' AND chat = :c"
                " AND status IN ('pending', 'sending') AND payload->>'op' <> 'react'"
            ),
            {"c": str(chat)},
        )
    return int(found or 0)


async def settled(db: Database, chat: int, *deliveries: str, timeout: float = 30) -> None:
    """Wait until `deliveries` are done (their final sends are in the outbox by then) and the
    chat's outbox has no message left to send: no message can arrive in the chat after."""
    deadline = time.monotonic() + timeout
    while True:
        done = [await inbox_status(db, d) == "done" for d in deliveries]
        if all(done) and not await outbox_left(db, chat):
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"chat {chat} never settled")
        await asyncio.sleep(0.05)


async def answered(fake: FakeTelegram, chat_id: int, count: int = 1) -> list[dict[str, Any]]:
    await until(lambda: len(answers(fake, chat_id)) >= count, timeout=30)
    return answers(fake, chat_id)


async def test_start_registers_commands_per_language_and_admin_menus(tg, fake_tg) -> None:  # type: ignore[no-untyped-def]
    menus = fake_tg.of("setMyCommands")
    default = {(m.get("language_code") or ""): m for m in menus if m["scope"]["type"] == "default"}
    assert set(default) == {"", "zh"}
    assert [c["command"] for c in default[""]["commands"]] == [
        "start",
        "help",
        "lang",
        "forms",
        "new",
    ]
    admin = [
        m for m in menus if m["scope"]["type"] == "chat" and int(m["scope"]["chat_id"]) == ADMIN
    ]
    assert admin and "upload" in [c["command"] for c in admin[0]["commands"]]
    [hook] = fake_tg.of("setWebhook")[:1]
    assert (
        hook["url"] == "https://bot.example.org/telegram/webhook" and hook["secret_token"] == SECRET
    )


async def test_private_questions_answered_in_each_script_with_citations(tg, fake_tg) -> None:  # type: ignore[no-untyped-def]
    questions = {
        501: ("How much does an adult passport renewal cost?", "en", "1,300 dollars", "passport"),
        502: ("住宅區停車許可證每年收費多少？", "zh-hant", "許可證", "停車許可證"),
        503: (
            "住宅区停车许可证每年收费多少？",
            "zh-hans",
            "许可证",
            "停车许可证",
        ),  # the title in the reader's script
    }
    for n, (chat, (q, lang, _, _)) in enumerate(questions.items()):
        response = await tg[n % 2].post(private_text(9000 + n, chat, q, language=lang))
        assert response.status_code == 200
    for chat, (_, _, expected, source) in questions.items():
        [final] = await answered(fake_tg, chat)
        assert final["parse_mode"] == "HTML"
        assert expected in final["text"] and "[1]" in final["text"]
        assert source in final["text"]  # the sources list under the answer
        assert fake_tg.of("sendChatAction", chat)[0]["action"] == "typing"
    simplified = answers(fake_tg, 503)[0]["text"]
    assert "許可證" not in simplified.split("\n\n")[0]


async def test_lang_button_switches_the_script_of_the_next_answer(
    tg, fake_tg, db: Database
) -> None:  # type: ignore[no-untyped-def]
    user = 601
    await tg[0].post(private_text(9100, user, "/lang", language="zh-hant"))
    await until(lambda: bool(fake_tg.of("sendMessage", user)))
    prompt = fake_tg.sent[-1]
    codes = [b["callback_data"] for b in keyboard(fake_tg.of("sendMessage", user)[0])]
    assert codes == ["lang:en", "lang:zh-hant", "lang:zh-hans"]
    await tg[1].post(callback(9101, user, "lang:zh-hans", prompt))
    await until(lambda: bool(fake_tg.of("editMessageText", user)))
    assert "简体中文" in fake_tg.of("editMessageText", user)[0]["text"]
    assert fake_tg.of("answerCallbackQuery")
    await tg[0].post(private_text(9102, user, "住宅區停車許可證每年收費多少？", language="zh-hant"))
    [final] = await answered(fake_tg, user)
    body = final["text"].split("\n\n")[0]
    assert "许可证" in body and "許可證" not in body
    async with db.sessions() as session:
        stored = await session.scalar(text("SELECT value FROM chat_state WHERE key = 'lang:601'"))
    assert stored == "zh-hans"


async def test_group_answers_only_mentions_and_replies_as_replies(
    tg, fake_tg, db: Database
) -> None:  # type: ignore[no-untyped-def]
    group = -1001
    await tg[0].post(group_text(9200, group, 7, "How much is a passport renewal?"))
    # processed before the webhook answered, and not taken: nothing can be sent for it
    assert await inbox_status(db, f"{group}:92000") is None
    assert not fake_tg.of("sendMessage", group) and not fake_tg.of("sendChatAction", group)
    await tg[0].post(group_text(9201, group, 7, f"@{BOT_USERNAME} How much is a passport renewal?"))
    [final] = await answered(fake_tg, group)
    assert int(final["reply_parameters"]["message_id"]) == 92010
    assert not fake_tg.of("sendMessageDraft", group)  # no drafts in groups
    bot_message = next(m for m in fake_tg.sent if m["chat"]["id"] == group and "1,300" in m["text"])
    # the fake records the answer before the bot hears back and notes which thread it is in
    await until_stored(db, f"msg:{group}:{bot_message['message_id']}")
    follow_up = group_text(9202, group, 7, "And how long does it take?", reply_to=bot_message)
    await tg[1].post(follow_up)
    await answered(fake_tg, group, 2)
    async with db.sessions() as session:
        rows = (
            await session.execute(
                text(
                    "SELECT c.external_id, count(m.id) FROM conversations c"
                    " JOIN messages m ON m.conversation_id = c.id"
                    " WHERE c.platform = 'telegram' GROUP BY c.external_id"
                )
            )
        ).all()
    assert rows == [(f"{group}:7:92010", 4)]  # the reply continued the mention's conversation


async def test_duplicate_update_is_processed_once(tg, fake_tg, db: Database) -> None:  # type: ignore[no-untyped-def]
    update = private_text(9300, 701, "How much does an adult passport renewal cost?")
    responses = await asyncio.gather(tg[0].post(update), tg[1].post(update), tg[0].post(update))
    assert all(r.status_code == 200 for r in responses)
    await answered(fake_tg, 701)
    await settled(db, 701, "701:93000")  # nothing left that could answer again
    assert len(answers(fake_tg, 701)) == 1


async def test_webhook_with_a_wrong_or_missing_secret_is_rejected(
    tg, fake_tg, db: Database
) -> None:  # type: ignore[no-untyped-def]
    update = private_text(9400, 801, "How much does an adult passport renewal cost?")
    assert (await tg[0].post(update, secret="wrong")).status_code == 401
    assert (await tg[0].post(update, secret=None)).status_code == 401
    assert await inbox_status(db, "801:94000") is None  # nothing ran: nothing to send
    assert not fake_tg.of("sendMessage", 801) and not fake_tg.of("sendChatAction", 801)


async def test_feedback_button_is_answered_and_stored(tg, fake_tg, db: Database) -> None:  # type: ignore[no-untyped-def]
    await tg[0].post(private_text(9500, 901, "How much does an adult passport renewal cost?"))
    [final] = await answered(fake_tg, 901)
    vote = next(b["callback_data"] for b in keyboard(final) if b["callback_data"].endswith(":0"))
    shown = next(m for m in fake_tg.sent if m["chat"]["id"] == 901 and "1,300" in m.get("text", ""))
    await tg[1].post(callback(9501, 901, vote, {**shown, "reply_markup": final["reply_markup"]}))
    await until(lambda: bool(fake_tg.of("answerCallbackQuery")))
    assert "Thank you" in fake_tg.of("answerCallbackQuery")[0]["text"]
    await until(lambda: bool(fake_tg.of("editMessageReplyMarkup")))
    labels = [b["text"] for b in keyboard(fake_tg.of("editMessageReplyMarkup")[0])]
    assert any(label.endswith("✓") and "Not helpful" in label for label in labels)
    async with db.sessions() as session:
        votes = (await session.execute(text("SELECT user_id, rating FROM feedback"))).all()
    assert votes == [("901", -1)]


async def test_form_request_gets_link_buttons_and_the_file(tg, fake_tg, db: Database) -> None:  # type: ignore[no-untyped-def]
    from storage.forms import FormFile, FormService

    await FormService(db, 100_000).add(
        "Library card application 借書證申請表",
        "https://forms.example.org/library-card",
        FormFile("library-card.pdf", b"%PDF-1.4 form"),
        aliases=["借書證申請表", "借书证申请表", "library card form"],
    )
    await tg[0].post(private_text(9600, 1001, "我要下载借书证申请表", language="zh-hans"))
    [final] = await answered(fake_tg, 1001)
    urls = [b.get("url") for b in keyboard(final)]
    assert "https://forms.example.org/library-card" in urls
    await until(lambda: bool(fake_tg.of("sendDocument", 1001)))
    sent = fake_tg.of("sendDocument", 1001)[0]["document"]
    assert sent["filename"] == "library-card.pdf" and sent["data"] == b"%PDF-1.4 form"


async def test_admin_upload_is_fetched_with_getfile_and_ingested(tg, fake_tg) -> None:  # type: ignore[no-untyped-def]
    fake_tg.files["doc1"] = b"# Dog licences\n\nA dog licence costs 30 dollars a year.\n"
    async with jobs_running(tg[0].worker):
        await tg[0].post(private_document(9700, ADMIN, "doc1", "dog-licences.md", 60, "/upload"))
        await until(lambda: any("Received" in p["text"] for p in fake_tg.of("sendMessage", ADMIN)))
        # "was added as": the receipt itself says "I'll tell you when it has been added"
        await until(
            lambda: any("was added as" in p["text"] for p in fake_tg.of("sendMessage", ADMIN)), 60
        )
    assert fake_tg.of("getFile")[0]["file_id"] == "doc1"
    assert fake_tg.downloads == ["documents/doc1"]
    docs = await tg[0].worker.core.knowledge.list_documents(tg[0].worker.core.actor(_admin_msg()))
    assert "dog-licences" in [d["title"] for d in docs]
    # then a question finds it
    await tg[1].post(private_text(9701, 1101, "How much is a dog licence?"))
    [final] = await answered(fake_tg, 1101)
    assert "30 dollars" in final["text"]


async def test_upload_alone_explains_and_oversized_file_is_refused(tg, fake_tg) -> None:  # type: ignore[no-untyped-def]
    await tg[0].post(private_text(9800, ADMIN, "/upload Fee table"))
    await until(
        lambda: any("Send me the file" in p["text"] for p in fake_tg.of("sendMessage", ADMIN))
    )
    too_big = 25 * 1024 * 1024
    await tg[1].post(private_document(9801, ADMIN, "big", "huge.pdf", too_big, "/upload"))
    await until(lambda: any("20 MB" in p["text"] for p in fake_tg.of("sendMessage", ADMIN)))
    assert not fake_tg.of("getFile")  # refused before downloading


async def test_non_admin_is_refused_and_nothing_changes(tg, fake_tg, db: Database) -> None:  # type: ignore[no-untyped-def]
    citizen = 1201
    fake_tg.files["doc2"] = b"# Sneaky\n\nCall 555-0100 for everything.\n"
    await tg[0].post(private_document(9900, citizen, "doc2", "sneaky.md", 40, "/upload"))
    await tg[0].post(private_text(9901, citizen, "/deldoc passport"))
    await tg[1].post(private_text(9902, citizen, "/addform Evil https://evil.example.org"))
    await until(lambda: len(fake_tg.of("sendMessage", citizen)) >= 3)
    refusals = [p["text"] for p in fake_tg.of("sendMessage", citizen)]
    assert all("only administrators" in r for r in refusals)
    assert not fake_tg.of("getFile")
    async with db.sessions() as session:
        titles = set((await session.execute(text("SELECT title FROM documents"))).scalars())
        forms = (await session.execute(text("SELECT count(*) FROM forms"))).scalar_one()
        refused = (
            await session.execute(text("SELECT count(*) FROM audit_log WHERE result = 'refused'"))
        ).scalar_one()
    assert "passport" in titles and "sneaky" not in titles and forms == 0 and refused >= 3


async def test_hostile_document_text_is_escaped(
    tg, fake_tg, db: Database, embedder: Embedder
) -> None:  # type: ignore[no-untyped-def]
    hostile = "# Tags <b>&amp; co\n\nThe <script>x</script> fee is 5 * 3 _dollars_ & <i>more</i>.\n"
    await IngestionService(db, embedder, IngestOptions()).ingest_bytes("tags.md", hostile.encode())
    await tg[0].post(private_text(9950, 1301, "What is the script fee?"))
    [final] = await answered(fake_tg, 1301)
    assert "&lt;script&gt;" in final["text"] and "<script>" not in final["text"]
    assert "&amp;" in final["text"] and "5 * 3 _dollars_" in final["text"]


async def test_an_extractive_answer_with_a_heading_and_a_list_shows_bullets(
    tg, fake_tg, db: Database, embedder: Embedder
) -> None:  # type: ignore[no-untyped-def]
    await IngestionService(db, embedder, IngestOptions()).ingest_bytes(
        LIST_DOCUMENT, LIST_BODY.encode(), collection="public"
    )
    await tg[0].post(private_text(9960, 1302, LIST_QUESTION))
    [final] = await answered(fake_tg, 1302)
    assert final["parse_mode"] == "HTML"
    body = final["text"].split("\n\n")[0]  # the sources follow after a blank line
    # the lead stays a plain line (answers mark no heading); each item is a `• ` line
    assert body.splitlines() == [html.escape(LEAD)] + [f"• {html.escape(i)}" for i in ITEMS]
    assert "• your identity card &amp; a &lt;recent&gt; photo [1]" in body
    assert not any(heading in body for heading in HEADINGS)


def test_a_long_list_is_cut_between_its_items() -> None:
    sentence = "Bring the form & a copy of it. "
    # the second item would straddle the first message's end: it starts the second one
    items = [f"- {sentence * n}[1]" for n in (30, 100, 2)]  # 930, 3,100 and 62 characters
    answer = "\n".join(["Here is what our documents say:", *items])
    pieces = [html.unescape(p) for p in html_messages(answer)]
    assert len(pieces) == 2 and all(len(p) <= MESSAGE_LIMIT for p in pieces)
    lines = [line for p in pieces for line in p.splitlines()]
    # every item whole, on a line of its own: none was cut mid-way
    assert lines == ["Here is what our documents say:", *(f"• {i[2:]}" for i in items)]


def test_long_answers_split_on_sentence_boundaries_under_the_limit() -> None:
    sentence = "The renewal needs a photo & a form <A-1>. "
    answer = sentence * 125  # 5,250 characters
    pieces = html_messages(answer, "<b>Sources</b>\n[1] passport")
    assert len(pieces) == 2
    plain = [html.unescape(p.replace("<b>", "").replace("</b>", "")) for p in pieces]
    assert all(len(p) <= MESSAGE_LIMIT for p in plain)
    assert plain[0].endswith("<A-1>.")  # cut after a sentence
    assert "&lt;A-1&gt;" in pieces[0] and pieces[-1].endswith("[1] passport")
    body = " ".join(p.split("\n\nSources")[0] for p in plain)
    assert body.split() == answer.split()  # nothing lost or repeated


async def test_edits_keep_one_per_second_per_chat_and_429_is_honoured(
    docs: None, database_url: str, embedder: Embedder, fake_tg: FakeTelegram
) -> None:
    words = "An adult passport renewal costs 1,300 dollars and takes four working days [1]. " * 3
    async with llm_harness(database_url, embedder, fake_tg, words, pace=0.08) as h:
        group = -2002
        fake_tg.rate_limited["editMessageText"] = 1  # the first edit is told to wait 1 s
        for n, user in enumerate((11, 12, 13)):
            text_ = f"@{BOT_USERNAME} How much does a passport renewal cost? ({n})"
            await h.post(group_text(9960 + n, group, user, text_))
        finals = await answered(fake_tg, group, 3)
        assert len(finals) == 3
        updates = [t for _, t in fake_tg.timed({"editMessageText", "sendMessageDraft"}, group)]
        assert len(updates) >= 4  # the answers did stream
        gaps = [b - a for a, b in itertools.pairwise(updates)]
        assert min(gaps) >= 1.0, gaps  # never more than one edit per second in the chat
        limited = fake_tg.timed({"editMessageText"}, group)[0][1]
        assert updates[1] - limited >= 0.95  # retry_after honoured
        # a private chat streams as drafts, then the answer is sent as a real message
        await h.post(private_text(9970, 1501, "How much does a passport renewal cost?"))
        [final] = await answered(fake_tg, 1501)
        drafts = fake_tg.of("sendMessageDraft", 1501)
        assert len(drafts) >= 2 and "1,300 dollars" in drafts[-1]["text"]
        assert len({d["draft_id"] for d in drafts}) == 1 and "1,300 dollars" in final["text"]
        steps = [t for _, t in fake_tg.timed({"sendMessageDraft"}, 1501)]
        assert min(b - a for a, b in itertools.pairwise(steps)) >= 1.0


def _admin_msg() -> Any:
    from tests.support.core_fixtures import message

    return message("", platform="telegram", user=str(ADMIN), is_admin=True)


async def test_polling_mode_steps_over_a_malformed_update_answers_and_refuses_a_second_poller(
    docs: None,
    database_url: str,
    embedder: Embedder,
    fake_tg: FakeTelegram,
    caplog: pytest.LogCaptureFixture,
) -> None:
    from bot.telegram.app import PollerTakenError

    poller = await start_harness(
        database_url, embedder, fake_tg, TELEGRAM_WEBHOOK_URL="", TELEGRAM_WEBHOOK_SECRET=""
    )
    try:
        assert not poller.adapter.routes and fake_tg.of("deleteWebhook")
        # a keyboard without `inline_keyboard` cannot be parsed: in the library's own call
        # it failed its whole batch, and every batch after it, for ever
        broken = private_text(9989, 1401, "hello")
        broken["message"]["reply_markup"] = {"keyboard": "x"}
        fake_tg.updates.put(broken)
        fake_tg.updates.put(
            private_text(9990, 1401, "How much does an adult passport renewal cost?")
        )
        [final] = await answered(fake_tg, 1401)
        assert "1,300 dollars" in final["text"]
        dropped = [r for r in caplog.records if "is malformed, dropped" in r.getMessage()]
        assert len(dropped) == 1 and dropped[0].exc_info is None
        config = settings_for_tests(TELEGRAM_BOT_TOKEN=TOKEN, TELEGRAM_API_BASE_URL=fake_tg.url)
        second = await make_worker(database_url, embedder, config)
        try:
            with pytest.raises(PollerTakenError, match="TELEGRAM_WEBHOOK_URL"):
                await TelegramAdapter(second.core, config).start()
        finally:
            await close_worker(second)
    finally:
        await stop_harness(poller)


async def test_a_5000_character_answer_arrives_split_with_buttons_on_the_last_part(
    docs: None, database_url: str, embedder: Embedder, fake_tg: FakeTelegram
) -> None:
    # the passage's own words (a model's word of its own would discard the answer)
    long_answer = (
        "An adult passport <renewal> costs 1,300 dollars & takes four working days [1]. " * 67
    )
    assert len(long_answer) > 5000
    async with llm_harness(database_url, embedder, fake_tg, long_answer) as h:
        await h.post(private_text(9980, 1601, "How much does a passport renewal cost?"))
        [last] = await answered(fake_tg, 1601)
        parts = fake_tg.of("sendMessage", 1601)
        assert len(parts) == 2 and parts[-1] is not None and keyboard(last)
        for part in parts:
            visible = html.unescape(re.sub(r"<[^>]+>", "", part["text"]))
            assert len(visible) <= MESSAGE_LIMIT
        assert parts[0]["text"].rstrip().endswith("[1].")  # cut after a sentence
        assert "&lt;renewal&gt; costs 1,300 dollars &amp;" in parts[0]["text"]
        assert "<renewal>" not in parts[0]["text"]


async def test_admin_attaches_a_file_to_a_form_and_forms_lists_it(
    tg, fake_tg, db: Database
) -> None:  # type: ignore[no-untyped-def]
    fake_tg.files["f1"] = b"%PDF-1.4 dog form"
    caption = "/addform Dog licence form https://forms.example.org/dog"
    await tg[0].post(private_document(9990, ADMIN, "f1", "dog-form.pdf", 17, caption))
    await until(
        lambda: any("Added the form" in p["text"] for p in fake_tg.of("sendMessage", ADMIN))
    )
    # the reply names the collection: on Telegram a new form is public, read by citizens
    assert any("collection public" in p["text"] for p in fake_tg.of("sendMessage", ADMIN))
    await tg[1].post(private_text(9991, 1701, "/forms"))
    await until(lambda: bool(fake_tg.of("sendMessage", 1701)))
    listed = fake_tg.of("sendMessage", 1701)[0]
    assert "Dog licence form" in listed["text"]
    assert [b.get("url") for b in keyboard(listed)] == ["https://forms.example.org/dog"]
    async with db.sessions() as session:
        stored = (await session.execute(text("SELECT name, file_name FROM forms"))).all()
    assert stored == [("Dog licence form", "dog-form.pdf")]


async def test_refused_drafts_fall_back_to_an_edited_message(
    docs: None, database_url: str, embedder: Embedder, fake_tg: FakeTelegram
) -> None:
    words = "An adult passport renewal costs 1,300 dollars and takes four working days [1]. " * 2
    fake_tg.failing["sendMessageDraft"] = (400, "Bad Request: method is not available")
    async with llm_harness(database_url, embedder, fake_tg, words, pace=0.08) as h:
        await h.post(private_text(9995, 1801, "How much does a passport renewal cost?"))
        [final] = await answered(fake_tg, 1801)
        assert len(fake_tg.of("sendMessageDraft", 1801)) == 1  # tried once, then edits
        first = fake_tg.of("sendMessage", 1801)[0]
        assert "An adult" in first["text"]  # the preview message, with only Stop under it
        assert [b["text"] for b in keyboard(first)] == ["⏹ Stop"]
        assert "1,300 dollars" in final["text"] and fake_tg.of("editMessageText", 1801)
