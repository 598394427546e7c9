"""ServingCore: the one narrow face the adapters talk to; every method delegates to a part.

The parts live in their rooms and `bot.core.assembly.build_core` builds them:
adapters `accept(message)` into the inbox before they acknowledge the platform
(`bot.core.delivery.intake`), the console's `handle(message)` runs its turn in
the caller's task (`bot.core.answering.console_turns`), and the rest is the
hand-off desk, the uploads, the admin service, the outbox and the small state
the adapters keep.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator
from typing import TYPE_CHECKING, Any

from sqlalchemy.ext.asyncio import AsyncConnection

from bot.core.admin.audit import Actor
from bot.core.admin.commands import ADMIN as ADMIN_COMMANDS
from bot.core.admin.knowledge import Knowledge
from bot.core.admin.upload_desk import FileFetcher
from bot.core.answering.answerer import actor_of, pick_language
from bot.core.delivery.ack_window import ACK_FIRST_S as ACK_FIRST_S
from bot.core.delivery.admission import Admission
from bot.core.delivery.envelopes import FileFetcher as RefFetcher
from bot.core.delivery.inbox import Renderer
from bot.core.delivery.intake import Accepted as Accepted
from bot.core.delivery.intake import ShuttingDownError as ShuttingDownError
from bot.core.delivery.outbox import Channel
from bot.core.delivery.pending_audiences import AudienceResolver
from bot.core.handoff.cards import CASE, CaseRenderer
from bot.core.messages import Audience, Grant, InboundMessage, Notifier, Outbound, Reply
from bot.core.platform import Platform

if TYPE_CHECKING:  # built by bot.core.assembly, which imports this module
    from bot.core.assembly import CoreParts

# how long a stopping worker gives the outbox's due sends (retries wait for the next worker)
OUTBOX_FLUSH_S = 5.0


class ServingCore:
    """The platform-neutral part of serving, shared by Slack, Telegram and the console."""

    def __init__(self, parts: CoreParts) -> None:
        """Serve with `parts` (`bot.core.assembly.build_core` makes them)."""
        self._settings = parts.settings
        self._answers = parts.answers
        self._limit = parts.limit
        self._locks = parts.locks
        self._suggestions = parts.suggestions
        self._pending = parts.pending
        self._intake = parts.intake
        self._console = parts.console
        self._forms = parts.forms
        # public: the adapters use these parts themselves
        self.admin = parts.admin
        self.chat_state = parts.chat_state
        self.audiences = parts.audiences
        self.uploads = parts.uploads
        self.inbox = parts.inbox
        self.outbox = parts.outbox
        self.handoff = parts.handoff
        self.api_keys = parts.api_keys
        self.mailbox = parts.mailbox
        # the staff page's room (HANDOFF_WEB_INBOX): the API's staff routes use it
        self.staff_inbox = parts.staff_inbox
        self.stops = parts.stops
        self.answered = parts.answered
        self.sources = parts.sources  # the citations' source view (bot.api.sources)
        self.admin_console = parts.admin_console  # the console in the browser (bot.api.console)

    @property
    def closing(self) -> bool:
        """True once a drain began: nothing new is accepted."""
        return self.inbox.closing

    def begin_drain(self) -> None:
        """Say unhealthy and accept nothing more, at once (the drain itself waits after)."""
        self.inbox.closing = True

    def plug(self, platform: Platform) -> None:
        """Serve `platform`: its deliveries, sends, upload notices and pending audiences."""
        self.register_renderer(platform.name, platform.render, platform.fetch_file)
        self.register_sender(platform.name, platform.channel)
        if platform.notify is not None:
            self.register_notifier(platform.name, platform.notify)
        if platform.resolve_audience is not None:
            self.register_audience_resolver(platform.name, platform.resolve_audience)

    def register_renderer(
        self, platform: str, renderer: Renderer, fetcher: RefFetcher | None = None
    ) -> None:
        """How `platform`'s deliveries are shown (and its attachments downloaded again)."""
        self.inbox.register(platform, renderer, fetcher)

    def register_audience_resolver(self, platform: str, resolver: AudienceResolver) -> None:
        """How `platform` learns an audience it left pending to acknowledge sooner."""
        self._pending.register(platform, resolver)

    def register_sender(self, platform: str, channel: Channel) -> None:
        """How `platform`'s outbox sends are made, and how fast one chat may get them."""
        self.outbox.register(platform, channel)

    def actor(self, message: InboundMessage) -> Actor:
        """The admin actor of a message's sender."""
        return actor_of(message)

    async def press(
        self,
        platform: str,
        user_id: str,
        action: str,
        value: str,
        fetch: FileFetcher,
        audience: Audience | None = None,
        language: str | None = None,
        chat: str | None = None,
    ) -> Reply:
        """A core button (an upload offer, a held upload, a hand-off case's) pressed by `user_id`.

        `fetch` downloads a pending file's platform reference; only the admin who
        sent the file may choose, anyone else's press changes nothing. `language`:
        the presser's, when the adapter knows it (for replies with no upload to go by).
        `chat`: where the press happened (a staff room's members are staff). A reply
        with `data["silent"]` needs no word from the adapter (the desk's sends say it);
        `data["private"]` is for the presser alone.
        """
        if action == CASE:
            return await self.handoff.act(
                platform,
                user_id,
                audience or Audience(),
                value,
                chat,
                language or "en",
            )
        return await self.uploads.press(platform, user_id, audience, action, value, fetch, language)

    async def stop_turn(self, platform: str, delivery_id: str, user_id: str) -> str:
        """The Stop button: stop the delivery's turn if `user_id` asked it. "stopped" (its
        answer ends with what was written, marked stopped), "not_yours", "passed" (not
        running here: the other workers were asked) or "unknown" (over already)."""
        return await self.stops.stop(platform, delivery_id, user_id)

    def register_notifier(self, platform: str, notifier: Notifier) -> None:
        """How upload results reach admins on `platform` (the adapter sends a message)."""
        jobs = self.admin.knowledge.jobs
        if jobs is not None:
            jobs.notifiers[platform] = notifier

    # --- what the chat adapters use ----------------------------------------------

    async def enqueue(
        self,
        platform: str,
        chat: str,
        key: str,
        payload: dict[str, Any],
        trace_id: str | None = None,
    ) -> bool:
        """Store a send for the outbox (once per `key`); False when already stored."""
        return await self.outbox.enqueue(platform, chat, key, payload, trace_id)

    async def card_ref(self, case_id: int, platform: str) -> str | None:
        """Where a hand-off case's card is on `platform` ("chat:message"): None while it
        waits to be sent, "" when it never will be (see `StaffRooms.card_ref`)."""
        return await self.handoff.rooms.card_ref(case_id, platform)

    async def ask_person(
        self,
        platform: str,
        user_id: str,
        message_id: int,
        where: str,
        route: dict[str, Any],
        language: str,
    ) -> Reply:
        """The "Ask a person" button under answer `message_id`, posted in `where`."""
        return await self.handoff.ask(platform, user_id, message_id, where, route, language)

    async def shown_privately(
        self, platform: str, conversation_key: str, message_id: int
    ) -> dict[str, Any] | None:
        """An answer given in the presser's own private `conversation_key`, if it was."""
        return await self.answered.shown_privately(platform, conversation_key, message_id)

    async def remember(self, platform: str, key: str, value: str) -> None:
        """Keep a small fact of the adapter's (overwrites)."""
        await self.chat_state.remember(platform, key, value)

    async def recall(self, platform: str, key: str, max_age_s: float | None = None) -> str | None:
        """A fact kept with `remember`, None when unset or older than `max_age_s`."""
        return await self.chat_state.recall(platform, key, max_age_s)

    async def remember_many(self, platform: str, keys: list[str], value: str) -> None:
        """Keep one value under several keys, together."""
        await self.chat_state.remember_many(platform, keys, value)

    async def recall_many(self, platform: str, keys: list[str]) -> dict[str, str]:
        """Those of `keys` that hold a value, read together."""
        return await self.chat_state.recall_many(platform, keys)

    async def try_exclusive(self, name: str) -> AsyncConnection | None:
        """A process-wide role named `name` (one poller per bot token): the connection
        holding it (close it to let go), or None when another process has it."""
        return await self.chat_state.try_exclusive(name)

    def pick_language(self, text: str, hint: str | None) -> str:
        """The language to answer in: what `text` is written in, else the client's `hint`."""
        return pick_language(text, hint)

    def is_admin_action(self, message: InboundMessage) -> bool:
        """An admin command or an upload: answered only in the sender's private chat."""
        return message.command in ADMIN_COMMANDS or message.upload_intent

    def alias_turn(self, platform: str, alias: str, delivery_id: str) -> None:
        """Another name a Stop may give the running turn (Telegram names the draft)."""
        self.stops.alias(platform, alias, delivery_id)

    # --- the entry points --------------------------------------------------------

    async def accept(self, message: InboundMessage, *, redelivered: bool = True) -> Accepted:
        """Store an adapter's message in the inbox and start answering it; false for a
        duplicate (`Accepted.limited`: stored over its sender's rate limit).

        Called before the adapter acknowledges the platform. During a drain a
        message the platform delivers again raises ShuttingDownError (the adapter
        does not acknowledge it); one it never sends again (`redelivered=False`: a
        Slack slash command) is parked for the next worker. See `Intake.accept`.
        """
        return await self._intake.accept(message, redelivered=redelivered)

    def acknowledging(self) -> contextlib.AbstractContextManager[None]:
        """Around an adapter's work on the core's loop before it acknowledges a message
        (its own reads, then `accept`): deliveries already started wait meanwhile."""
        return self._intake.acknowledging()

    def handle(self, message: InboundMessage) -> AsyncGenerator[Outbound, None]:
        """Claim a console delivery and produce its reply as events (nothing for a duplicate).

        Chat adapters use `accept`; this runs in the caller's task, for the
        console and the command line, which read the events themselves.
        """
        return self._console.handle(message)

    async def drain(self, timeout: float) -> bool:
        """Accept nothing more; let the turns under way finish; False when some had to stop.

        Deliveries not started yet, and those still running after `timeout`,
        are let go: the next worker answers them from the inbox.
        """
        return await self._console.drain(timeout)

    async def close(self) -> None:
        """Let go of what the core holds in the database: the Stop relay's listening
        connection (if it was started) and the conversation locks' connection."""
        await self.stops.stop_relay()
        await self._locks.close()

    async def first_delivery(
        self,
        platform: str,
        delivery_id: str,
        user_id: str | None = None,
        language: str = "en",
        audience: Audience | None = None,
    ) -> Admission:
        """Claim and complete at once: for quick adapter-local actions (/start, a button).

        With `user_id` the action counts in the user's rate limit like a message:
        over the limit it does not run, and the first refusal in a window carries
        the notice to show. `audience`: what the adapter knows of the user (Slack:
        an admin is spared the limit only as a known home-team member).
        """
        return await self._limit.first_delivery(platform, delivery_id, user_id, language, audience)

    async def suggested_questions(
        self, platform: str, audience: Audience | None, language: str
    ) -> list[str]:
        """The questions a greeting suggests to this reader, in `language`."""
        return await self._suggestions.for_audience(platform, audience, language)

    async def has_conversation(self, platform: str, key: str) -> bool:
        """True when the bot already answered in this conversation (a thread it is part of),
        or `key` is a hand-off case's thread in a staff room."""
        found = await self.answered.answered_in(platform, key)
        return found or await self.handoff.rooms.listens_in(platform, key)

    async def forms(self, platform: str, audience: Audience | None = None) -> list[dict[str, Any]]:
        """The forms this user on `platform` may read (Slack without `audience`: a guest's)."""
        return await self._forms.listed(platform, audience)

    async def form_file(self, platform: str, name: str, audience: Audience | None = None) -> Any:
        """The stored file of a form an answer offered, if this user may read it."""
        return await self._forms.file(platform, name, audience)

    async def count_call(self, grant: Grant) -> bool:
        """Count an HTTP API call that is not a question (those count as messages) in its
        key's rate limit; False when the key is over it."""
        return await self._limit.count_call(grant)

    # --- answers already given -------------------------------------------------

    async def feedback(
        self, platform: str, user_id: str, message_id: int, helpful: bool, where: str
    ) -> bool:
        """Store (or change) a user's vote on an answer: see `AnswerActions.feedback`."""
        return await self.answered.feedback(platform, user_id, message_id, helpful, where)

    # --- the serving process's lifecycle (bot/app/lifecycle) -----------------------

    def start(self) -> None:
        """Start the background work, once the adapters registered their renderers and
        senders: inbox sweeps, outbox sends, the Stop relay (a Stop pressed on another
        worker reaches its turn here) and the reminders of unanswered hand-off cases."""
        self.inbox.open()
        self.outbox.open()
        self.stops.start_relay()
        self.handoff.rooms.open(anyone_in_room=not self._settings.handoff_staff())

    async def begin_stop(self) -> None:
        """Accept nothing more (`/healthz` says 503 from now) and stop the reminders; the
        adapters stop after this, then `finish`."""
        self.begin_drain()
        await self.handoff.rooms.close()

    async def finish(self, timeout: float) -> bool:
        """Let the turns under way finish (see `drain`), then send what is due in the
        outbox; False when some turns had to stop. `close` comes last."""
        drained = await self.drain(timeout)
        await self.outbox.stop(OUTBOX_FLUSH_S)
        return drained

    # --- building the serving process (bot/app/runtime, the API adapter) ---------

    def register_cases(self, platform: str, renderer: CaseRenderer) -> None:
        """How `platform` shows hand-off cards and relays (registered for every platform,
        whatever adapters run: another worker may send them)."""
        self.handoff.rooms.register(platform, renderer)

    # --- the HTTP API (bot/api) ----------------------------------------------------

    @property
    def knowledge(self) -> Knowledge:
        """The knowledge base's admin part, for the API's management routes."""
        return self.admin.knowledge

    @property
    def upload_limit(self) -> int:
        """The largest file an upload may be, in bytes (MAX_FILE_MB)."""
        return self.admin.knowledge.policy.max_bytes

    def screened(self, collection: str) -> bool:
        """True when `collection` is read by outside readers (its uploads are screened
        for personal data): the only collections a web chat key may read."""
        return self.admin.knowledge.policy.screens(collection)

    @property
    def handoff_enabled(self) -> bool:
        """True when people take over conversations (a staff room is configured)."""
        return self.handoff.enabled

    async def search(self, grant: Grant, query: str, top_k: int = 5) -> list[dict[str, Any]]:
        """The passages of the key's collections that best match `query` (as a turn's
        search finds them), each with its document, URL, page and score."""
        if not grant.collections:
            return []
        return await self._answers.search(query, grant.collections, top_k)

    async def admit_key(self, bearer: str) -> tuple[bool, Grant | None]:
        """(whether the API is on, the bearer key's grant): a call's one trip to the core."""
        return await self.api_keys.admit(bearer)

    async def verify_key(self, key: str) -> Grant | None:
        """The grant of an active API key; None for anything else."""
        return await self.api_keys.verify(key)

    async def audit(self, actor: Actor, action: str, target: str | None, result: str) -> None:
        """Write one audit row (an API call, by its key's name)."""
        await self.admin.log.audit(actor, action, target, result)
