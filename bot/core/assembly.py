"""Builds the serving core from its parts: what ServingCore delegates to, made in one place.

ServingCore receives `CoreParts` and only delegates; which part needs which
other (the desk and the outbox, the pending audiences and the rate limit, the
intake and the inbox it answers for, the answerer and nearly everything) is
said here once.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.core.admin.api_keys import ApiKeys
from bot.core.admin.commands import CommandRunner
from bot.core.admin.console import AdminConsole
from bot.core.admin.console_answers import ConsoleAnswers
from bot.core.admin.console_oidc import ConsoleOidc
from bot.core.admin.console_sessions import ConsoleSessions
from bot.core.admin.service import AdminService
from bot.core.admin.upload_desk import UploadDesk
from bot.core.answering.actions import AnswerActions
from bot.core.answering.answerer import Answerer
from bot.core.answering.console_turns import ConsoleTurns
from bot.core.answering.forms import ReaderForms
from bot.core.answering.media import MediaReader
from bot.core.answering.suggestions import Suggestions
from bot.core.answering.turn_stops import TurnStops
from bot.core.audiences import Audiences
from bot.core.chat_state import ChatState
from bot.core.delivery.ack_window import ACK_FIRST_S, AckWindow
from bot.core.delivery.admission import RateLimit
from bot.core.delivery.conversation_locks import ConversationLocks
from bot.core.delivery.inbox import InboxRunner
from bot.core.delivery.intake import Intake
from bot.core.delivery.outbox import OutboxWorker
from bot.core.delivery.pending_audiences import PendingAudiences
from bot.core.handoff.desk import HandoffDesk
from bot.core.handoff.mailbox import Mailbox
from bot.core.handoff.staff_inbox import StaffInbox
from bot.core.serving import ServingCore
from bot.core.source_links import SourceLinks
from bot.core.source_view import SourceViews
from bot.settings import Settings
from bot.turn.service import AnswerService, TurnStream
from storage.db import Database


@dataclass(frozen=True)
class CoreParts:
    """Everything ServingCore delegates to."""

    settings: Settings
    answers: AnswerService
    admin: AdminService
    chat_state: ChatState
    audiences: Audiences
    uploads: UploadDesk
    limit: RateLimit
    locks: ConversationLocks
    inbox: InboxRunner
    outbox: OutboxWorker
    handoff: HandoffDesk
    api_keys: ApiKeys
    mailbox: Mailbox
    staff_inbox: StaffInbox
    stops: TurnStops
    answered: AnswerActions
    suggestions: Suggestions
    pending: PendingAudiences
    intake: Intake
    console: ConsoleTurns
    forms: ReaderForms
    sources: SourceViews
    admin_console: AdminConsole


def build_core(
    db: Database,
    answers: AnswerService,
    admin: AdminService,
    settings: Settings,
    turns: TurnStream | None = None,
) -> ServingCore:
    """The serving core over `db`; `turns` runs a turn as `answers.stream` does, elsewhere
    (worker processes)."""
    chat_state = ChatState(db)
    audiences = Audiences(settings)
    uploads = UploadDesk(
        db,
        admin.knowledge,
        chat_state,
        audiences.is_admin,
        audiences.collections,
        audiences.readers,
    )
    limit = RateLimit(db, settings, audiences)
    locks = ConversationLocks(db, settings.max_concurrent_turns)
    outbox = OutboxWorker(db, settings)
    handoff = HandoffDesk(db, settings, admin.log, admin.knowledge, audiences, outbox)
    stops = TurnStops(db)
    inbox = InboxRunner(db, settings)
    pending = PendingAudiences(db, settings, audiences, limit, handoff)
    links = SourceLinks(db, settings)
    answerer = Answerer(
        audiences=audiences,
        handoff=handoff,
        commands=CommandRunner(admin),
        uploads=uploads,
        limit=limit,
        locks=locks,
        stops=stops,
        stream_turn=turns or answers.stream,
        media=MediaReader(settings),
        links=links,
    )
    intake = Intake(
        db, settings, inbox, AckWindow(ACK_FIRST_S), audiences, limit, pending, answerer
    )
    inbox.answer_with(intake.answer)  # the inbox's deliveries are answered by the intake
    api_keys = ApiKeys(db)
    sessions = ConsoleSessions(
        db,
        api_keys,
        admin.log,
        settings.admin_session_hours,
        configured_collections(settings),
        settings.oidc_still_admin if settings.oidc_on() else None,
    )
    console_answers = ConsoleAnswers(db, admin.knowledge, answers)
    parts = CoreParts(
        settings=settings,
        answers=answers,
        admin=admin,
        chat_state=chat_state,
        audiences=audiences,
        uploads=uploads,
        limit=limit,
        locks=locks,
        inbox=inbox,
        outbox=outbox,
        handoff=handoff,
        api_keys=api_keys,
        mailbox=Mailbox(db),
        staff_inbox=StaffInbox(db, handoff, admin.log),
        stops=stops,
        answered=AnswerActions(db, answers.telemetry, links),
        suggestions=Suggestions(settings, admin.memory.store, audiences),
        pending=pending,
        intake=intake,
        console=ConsoleTurns(db, settings, inbox, audiences, limit, answerer),
        forms=ReaderForms(audiences, admin.knowledge, answers),
        sources=SourceViews(db, links),
        admin_console=AdminConsole(
            db,
            admin,
            sessions,
            console_answers,
            configured_collections(settings),
            ConsoleOidc(settings, sessions) if settings.oidc_on() else None,
        ),
    )
    return ServingCore(parts)


def configured_collections(settings: Settings) -> set[str]:
    """The collections the settings name for the chat platforms, their guests and uploads."""
    named = {"public", "internal"}  # the defaults' own: uploads land there
    for platform in ("slack", "telegram"):
        named |= set(settings.collections(platform) or ())
        named |= set(settings.guest_collections(platform) or ())
    return named
