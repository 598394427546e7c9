"""Chat commands, platform-neutral: an adapter parses its syntax, this runs them.

`help` and `forms` are for everyone; the rest are admin commands through
the admin parts (refused politely, and audited, for everyone else).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from typing import Any

from bot.core.admin.audit import Actor, NotAllowedError
from bot.core.admin.service import AdminService
from bot.core.admin.source_commands import SourceCommands
from bot.core.admin.uploads import fetch_attachment, refused
from bot.core.messages import Attachment, Reply
from storage.forms import FormCollectionError, FormFile, InvalidFormError, SavedForm
from textkit.catalog import say
from textkit.scripts import EN

# `bot` hands a chat with an open hand-off case back to the bot (the desk takes it first)
PUBLIC = ("help", "forms", "bot")
ADMIN = (
    "docs",
    "delete",
    "addform",
    "delform",
    "stats",
    "jobs",
    "upload",
    "memory",
    "gaps",
    "sources",
)
COMMANDS = PUBLIC + ADMIN
_URL = re.compile(r"^https?://", re.IGNORECASE)
USAGE = {
    "delete": "delete <title>",
    "addform": "addform <name> <url>",
    "delform": "delform <name>",
}
MEMORY_USAGE = "memory [list] | memory forget <id|all>"
# commands whose further words are arguments; the others are a command only as a bare word
WITH_ARGUMENTS = frozenset(USAGE) | {"memory", "sources"}


def is_exact_command(words: Sequence[str]) -> bool:
    """True when free text is exactly a command, not a question that starts with one.

    The first word must be a command and either stand alone ("help", "docs") or
    be followed by the arguments that command takes ("delete Old title",
    "memory forget 3"); "help me renew my badge" and "docs about leave" are questions.
    """
    if not words or words[0].lower() not in COMMANDS:
        return False
    name, rest = words[0].lower(), [w.lower() for w in words[1:]]
    if not rest:
        return True
    if name == "memory":  # its arguments are keywords: anything else is prose
        return rest[0] in ("list", "forget")
    if name == "sources":  # `sources sync kb`; "sources of funding" is a question
        return rest == ["list"] or (rest[0] == "sync" and len(rest) > 1)
    if name == "gaps":  # `gaps 7`; "gaps between buses" is a question
        return len(rest) == 1 and rest[0].isdigit()
    return name in WITH_ARGUMENTS


def parse_words(text: str) -> list[str]:
    """Words with "quoted names" kept together (an unbalanced quote: plain words)."""
    try:
        return shlex.split(text)
    except ValueError:
        return text.split()


class CommandRunner:
    """Runs one command for one actor and says what happened in their language."""

    def __init__(self, admin: AdminService) -> None:
        self._log = admin.log
        self._knowledge = admin.knowledge
        self._reports = admin.reports
        self._remembered = admin.memory
        self._sources = SourceCommands(admin.log, admin.sources, admin.knowledge.jobs)

    async def run(
        self,
        actor: Actor,
        command: str,
        args: Sequence[str],
        language: str,
        collections: Sequence[str] | None,
        attachment: Attachment | None = None,
        conversation_key: str | None = None,
    ) -> Reply:
        """The reply to `command args`; unknown commands get the help text.

        `addform` may come with a file (a document captioned `/addform <name> [url]`).
        `conversation_key`: where a queued job's result is told (`sources sync`).
        """
        name = command.lower().lstrip("/")
        if name not in COMMANDS:
            text = say(
                "unknown_command", language, command=command, help=self._help(actor, language)
            )
            return Reply(text, language, "unknown_command")
        try:
            if name == "sources":
                return await self._sources.run(actor, list(args), language, conversation_key)
            return await self._run(actor, name, list(args), language, collections, attachment)
        except NotAllowedError:
            return Reply(say("not_admin", language), language, "not_admin")
        except FormCollectionError as exc:
            text = say(
                "form_collection_refused",
                language,
                name=exc.name,
                collection=exc.collection,
                allowed=collection_names(collections, language),
            )
            return Reply(text, language, "form_collection_refused")
        except InvalidFormError as exc:
            return Reply(str(exc), language, "invalid")

    def _help(self, actor: Actor, language: str) -> str:
        text = say("help", language)
        return f"{text}\n{say('help_admin', language)}" if actor.is_admin else text

    async def _run(
        self,
        actor: Actor,
        name: str,
        args: list[str],
        language: str,
        collections: Sequence[str] | None,
        attachment: Attachment | None = None,
    ) -> Reply:
        if name == "help":
            return Reply(self._help(actor, language), language, "help")
        if name == "bot":  # no hand-off open here: the bot is already the one answering
            return Reply(say("handoff:no_case", language), language, "handoff_none")
        if name == "forms":
            forms = await self._knowledge.list_forms(actor, collections)
            lines = [f"• {f['name']}" + (f" — {f['url']}" if f["url"] else "") for f in forms]
            text = "\n".join(lines) or say("empty_list", language, kind="forms")
            return Reply(text, language, "forms", {"forms": forms})
        if name in ADMIN:  # non-admins get a refusal (audited), not a usage lesson
            await self._log.check(actor, name, " ".join(args) or None)
        collection = None
        if name == "addform":  # `collection=<name>` anywhere among the words
            args, collection = take_collection(args)
        if name == "addform" and attachment is not None and args:
            return await self._add_form_file(
                actor, args, language, attachment, collection, collections
            )
        if name in USAGE and len(args) < USAGE[name].count("<"):
            return Reply(say("usage", language, usage=USAGE[name]), language, "usage")
        if name == "upload":  # a file comes next (or came with the caption `upload`)
            return Reply(say("send_file", language), language, "upload_expected")
        if name == "docs":
            docs = await self._knowledge.list_documents(actor, collections)
            lines = [f"• {d['title']} ({d['collection']}, {d['chunks']} passages)" for d in docs]
            text = "\n".join(lines) or say("empty_list", language, kind="documents")
            return Reply(text, language, "docs", {"documents": docs})
        if name == "delete":
            title = " ".join(args)
            if await self._knowledge.delete_document(actor, title, collections):
                return Reply(say("done", language, what=f"deleted {title!r}"), language, "done")
            return Reply(
                say("not_found", language, kind="document", name=title), language, "not_found"
            )
        if name == "addform":
            form, url = " ".join(args[:-1]), args[-1]
            saved = await self._knowledge.save_form(actor, form, url, None, collection, collections)
            return form_saved(saved, form, language)
        if name == "delform":
            form = " ".join(args)
            if await self._knowledge.delete_form(actor, form, collections):
                return Reply(say("done", language, what=f"deleted form {form!r}"), language, "done")
            return Reply(say("not_found", language, kind="form", name=form), language, "not_found")
        if name == "memory":
            return await self._memory(actor, args, language, collections)
        if name == "stats":
            stats = await self._reports.stats(actor, collections=collections)
            return Reply(stats_text(stats, language), language, "stats", {"stats": stats})
        if name == "gaps":
            days = int(args[0]) if args and args[0].isdigit() and 0 < int(args[0]) <= 3650 else 30
            report = await self._reports.gaps(actor, days)
            return Reply(gaps_text(report), language, "gaps", {"gaps": report})
        uploads = await self._knowledge.uploads(actor)  # "jobs"
        lines = [
            f"• #{u['id']} {u['file']}: {u['status']}"
            + (f" ({u['reason']})" if u["reason"] else "")
            for u in uploads
        ]
        text = "\n".join(lines) or say("empty_list", language, kind="uploads")
        return Reply(text, language, "jobs", {"uploads": uploads})

    async def _memory(
        self, actor: Actor, args: list[str], language: str, collections: Sequence[str] | None
    ) -> Reply:
        """`memory [list]` shows the remembered answers; `memory forget <id|all>` drops them.

        Both only over the entries this platform's audience may read and asked here.
        """
        words = [a.lower() for a in args]
        target = words[1] if len(words) == 2 else ""
        if words[:1] == ["forget"] and (target == "all" or target.isdigit()):
            entry = None if target == "all" else int(target)
            removed = await self._remembered.forget_memory(actor, entry, collections)
            what = f"forgot {removed} remembered answer{'s' if removed != 1 else ''}"
            return Reply(say("done", language, what=what), language, "done")
        if words not in ([], ["list"]):
            return Reply(say("usage", language, usage=MEMORY_USAGE), language, "usage")
        entries = await self._remembered.memory_entries(actor, limit=20, collections=collections)
        lines = [
            f"• #{e['id']} {e['question']} — {', '.join(e['documents'] + e['forms'])}"
            f" ({e['hits']} hits{'' if e['valid'] else ', stale'})"
            for e in entries
        ]
        text = "\n".join(lines) or say("empty_list", language, kind="remembered answers")
        return Reply(text, language, "memory", {"memory": entries})

    async def _add_form_file(
        self,
        actor: Actor,
        args: list[str],
        language: str,
        attachment: Attachment,
        collection: str | None,
        collections: Sequence[str] | None,
    ) -> Reply:
        """`addform <name> [url] [collection=<name>]` with the form's file attached."""
        url = args[-1] if len(args) > 1 and _URL.match(args[-1]) else None
        form = " ".join(args[:-1] if url else args)
        data, problem = await fetch_attachment(
            self._knowledge.policy, attachment, actor.platform, collection or "public"
        )
        if problem is not None:
            return refused(attachment, problem, language)
        file = FormFile(attachment.name, data)
        saved = await self._knowledge.save_form(actor, form, url, file, collection, collections)
        return form_saved(saved, form, language)


def take_collection(args: Sequence[str]) -> tuple[list[str], str | None]:
    """The words without `collection=<name>`, and that name (None when not given)."""
    rest, collection = [], None
    for word in args:
        key, sep, value = word.partition("=")
        if sep and key.lower() == "collection" and value:
            collection = value.strip().lower()
        else:
            rest.append(word)
    return rest, collection


def form_saved(saved: SavedForm, name: str, language: str) -> Reply:
    """The reply to a saved form: added, kept in, or moved to its collection."""
    if saved.new:
        key = "form_added"
    elif saved.previous_collection == saved.collection:
        key = "form_replaced"
    else:
        key = "form_moved"
    text = say(key, language, name=name, collection=saved.collection)
    return Reply(text, language, "done", {"collection": saved.collection, "new": saved.new})


def collection_names(collections: Sequence[str] | None, language: str) -> str:
    """Collections as a list in words: "all" for no limit, "none" for an empty one."""
    if collections is None:
        return say("collections_all", language)
    return ", ".join(collections) or say("collections_none", language)


def stats_text(stats: dict[str, Any], language: str = EN) -> str:
    """`stats` for a chat: the counts, one line each for the period's traffic, then the
    inbox and outbox as they stand."""
    lines = [f"{k.replace('_', ' ')}: {v}" for k, v in stats.items() if isinstance(v, int)]
    scope = stats.get("scope") or {}
    if scope.get("platform"):  # a chat admin's view: say whose numbers these are
        readable = collection_names(scope.get("collections") or (), language)
        lines.insert(
            0,
            say("stats_scope", language, platform=scope["platform"], collections=readable),
        )
    volumes, latency = stats["volumes"], stats["latency_ms"]
    helpful = stats["feedback"]["helpful_rate"]
    lines += [
        f"last {stats['period']['days']} days: {volumes['turns']} turns, "
        f"{volumes['users']} users, {volumes['llm_calls_per_turn']} LLM calls per turn",
        "intents: " + ", ".join(f"{k} {v}" for k, v in stats["intents"].items()),
        "languages: " + ", ".join(f"{k} {v}" for k, v in stats["languages"].items()),
        f"refusal rate: {stats['refusal_rate']:.1%}"
        + (f", helpful votes: {helpful:.0%}" if helpful is not None else ""),
        f"latency p50 / p95: {latency['p50']} / {latency['p95']} ms",
        f"answered from memory: {stats['memory']['hits']}"
        f" ({stats['memory']['hit_rate']:.1%} of answered turns)",
    ]
    handoffs = stats.get("handoffs")
    if handoffs and handoffs["opened"]:
        median = handoffs["median_first_reply_minutes"]
        lines.append(
            f"hand-offs: {handoffs['opened']} opened, {handoffs['answered']} answered,"
            f" {handoffs['closed']} closed"
            + (f", first staff reply after {median} min (median)" if median is not None else "")
            + f"; {handoffs['refusals_handed_off']:.0%} of refusals handed off"
        )
    corrections = stats.get("corrections")
    if corrections and (corrections["reasked"] or corrections.get("failed")):
        lines.append(
            f"corrections: {corrections['sent']} sent, {corrections['reasked']} answers"
            f" re-asked, {corrections['unchanged']} unchanged"
            + (f", {corrections['failed']} failed" if corrections.get("failed") else "")
        )
    queues = stats.get("queues")
    if queues:  # now, not over the period: what waits to be answered or sent
        oldest = queues["inbox_oldest_s"]
        lines += [
            f"inbox: {queues['inbox_depth']} waiting"
            + (f", oldest {oldest:.0f} s" if oldest is not None else "")
            + f", {queues['inbox_failed']} failed (last day)",
            f"outbox: {queues['outbox_pending']} waiting, {queues['outbox_retrying']} retrying,"
            f" {queues['outbox_failed']} failed (last day)",
        ]
    return "\n".join(lines)


def gaps_text(report: dict[str, Any], limit: int = 10) -> str:
    """`gaps` for a chat or a terminal: one paragraph per topic, largest first."""
    found = report["topics"]
    if not found:
        return f"no refused or handed-off questions in the last {report['days']} days"
    lines = [f"{report['questions']} questions in {len(found)} topics, last {report['days']} days"]
    for t in found[:limit]:
        languages = ", ".join(f"{k} {v}" for k, v in t["languages"].items())
        answered = "staff answered" if t["staff_answered"] else "no staff answer"
        later = t.get("answered_later") or 0  # asked again after new documents came
        lines.append(
            f"• {t['count']}× ({languages}; {t['handed_off']} handed off, {answered};"
            + (f" {later} now answered;" if later else "")
            + f" newest {t['newest']})"
        )
        lines += [f"    – {e}" for e in t["examples"]]
    return "\n".join(lines)
