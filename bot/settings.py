"""The one settings class: every knob, read from the environment or `.env`."""

from __future__ import annotations

import ipaddress
import os
import re
from pathlib import Path
from typing import Literal

import platformdirs
from pydantic import AliasChoices, Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

# the admin console in the browser (/admin): its reports see every platform, as the CLI's;
# its documents and uploads go as its API key's (the `api` platform), in the key's collections
ADMIN_PAGE = "admin"
# the platforms of the operator at this machine (`ragbot chat`, `ragbot ask`, `ragbot admin`):
# always an admin, never rate limited, and shown every platform's uploads
CONSOLE_PLATFORMS = frozenset({"console", "cli", ADMIN_PAGE})
# the HTTP API's platform name: what a caller reads and may do comes from its API key alone
API_PLATFORM = "api"
WEB_INBOX = "web"  # the staff room kind of the staff page in the browser (HANDOFF_WEB_INBOX)
# SLACK_CHANNEL_COLLECTIONS: a channel id (public C…, private G…) and a collection name by
# the rule storage.upload_policy.COLLECTION_NAME enforces everywhere else (settings sit
# above storage in the layering, so the one-line rule is repeated here: keep them equal)
_SLACK_CHANNEL_ID = re.compile(r"[CG][A-Z0-9]{2,20}")
_COLLECTION_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,39}")


def default_data_dir() -> Path:
    """Where the embedded database and stored files live when nothing is set.

    The user's data dir, except for root: the embedded Postgres runs as a
    separate system user and opens permissions along the whole data path, so
    root's data must not sit under /root.
    """
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        return Path("/var/lib/ragbot")
    return Path(platformdirs.user_data_dir("ragbot"))


class ConfigurationError(ValueError):
    """Settings that cannot work together (said in one line, without a traceback)."""


def reveal(secret: SecretStr | None) -> str | None:
    """A secret setting's value, for the one call that needs it (never for logging)."""
    return secret.get_secret_value() if secret is not None else None


_TELEGRAM_TOKEN = re.compile(r"[0-9]+:[A-Za-z0-9_-]{30,}")  # @BotFather's bot token shape


def _split(raw: str) -> list[str]:
    return [part.strip() for part in raw.split(",") if part.strip()]


class Settings(BaseSettings):
    """All settings of ragbot; `.env.example` documents each one."""

    model_config = SettingsConfigDict(
        # an empty line in .env (TELEGRAM_BOT_TOKEN=) means "not set", not an empty token
        env_file=".env",
        extra="ignore",
        populate_by_name=True,
        env_ignore_empty=True,
        # an error never quotes what was given: the value may be a token or a key
        hide_input_in_errors=True,
    )

    # SecretStr: the URL may hold a password; a repr of the settings never prints it
    database_url: SecretStr | None = Field(default=None, validation_alias="DATABASE_URL")
    data_dir: Path = Field(default_factory=default_data_dir, validation_alias="RAGBOT_DATA_DIR")
    # the embedded server's shared_buffers (MB); unset: a quarter of RAM, 128 MB–8 GB; 0: leave it
    embedded_pg_shared_buffers_mb: int | None = Field(
        default=None, ge=0, validation_alias="EMBEDDED_PG_SHARED_BUFFERS_MB"
    )

    embedding_base_url: str | None = Field(default=None, validation_alias="EMBEDDING_BASE_URL")
    embedding_api_key: SecretStr | None = Field(default=None, validation_alias="EMBEDDING_API_KEY")
    embedding_model: str | None = Field(default=None, validation_alias="EMBEDDING_MODEL")
    embedding_dim: int | None = Field(default=None, validation_alias="EMBEDDING_DIM")
    embedding_batch_size: int = Field(default=32, validation_alias="EMBEDDING_BATCH_SIZE")

    max_file_mb: float = Field(default=20.0, validation_alias="MAX_FILE_MB")
    parse_memory_mb: int = Field(default=768, ge=128, validation_alias="PARSE_MEMORY_MB")
    parse_timeout_s: float = Field(default=60.0, gt=0, validation_alias="PARSE_TIMEOUT_SECONDS")
    # OCR of scanned PDF pages and images, in a parser process of its own: the models
    # and a 200-dpi page need about 1.5 GB of address space; a dense page, tens of seconds
    ocr_memory_mb: int = Field(default=2048, ge=512, validation_alias="OCR_MEMORY_MB")
    ocr_timeout_s: float = Field(default=600.0, gt=0, validation_alias="OCR_TIMEOUT_SECONDS")
    # ingestion's CPU work (chunking, keyword tokens, the local embedder) runs in this
    # many worker processes of `ragbot serve` / `ragbot worker`, at this lower CPU priority
    # (the parser process too); 0: in threads of the serving process
    ingest_processes: int = Field(default=1, ge=0, le=64, validation_alias="INGEST_PROCESSES")
    ingest_nice: int = Field(default=10, ge=0, le=19, validation_alias="INGEST_NICE")
    chunk_size: int = Field(default=500, validation_alias="CHUNK_SIZE")
    chunk_overlap: int = Field(default=80, validation_alias="CHUNK_OVERLAP")

    # sources that sync (`ragbot sources`): a web source's pace per host (robots.txt's
    # Crawl-delay when slower), each request's timeout, a page's largest size, our name
    source_requests_per_second: float = Field(
        default=2.0, gt=0, le=1000, validation_alias="SOURCE_REQUESTS_PER_SECOND"
    )
    source_timeout_s: float = Field(default=20.0, gt=0, validation_alias="SOURCE_TIMEOUT_SECONDS")
    source_max_page_mb: float = Field(default=5.0, gt=0, validation_alias="SOURCE_MAX_PAGE_MB")
    source_user_agent: str = Field(
        default="ragbot", min_length=1, validation_alias="SOURCE_USER_AGENT"
    )
    # a Confluence source's login (docs/sources.md): Cloud takes an account's e-mail and an
    # API token (basic auth), Data Center a personal access token (bearer); secrets, so
    # a repr of the settings never prints them
    confluence_user: str | None = Field(default=None, validation_alias="CONFLUENCE_USER")
    confluence_api_token: SecretStr | None = Field(
        default=None, validation_alias="CONFLUENCE_API_TOKEN"
    )
    confluence_token: SecretStr | None = Field(default=None, validation_alias="CONFLUENCE_TOKEN")

    # corrections (docs/sources.md#when-an-answer-changes): when a document changes or
    # goes, the answers of the last CORRECTION_DAYS that cited it are asked again, and
    # an asker whose answer changed in substance is told once (a day at most)
    corrections_enabled: bool = Field(default=True, validation_alias="CORRECTIONS_ENABLED")
    correction_days: int = Field(default=14, ge=1, le=90, validation_alias="CORRECTION_DAYS")

    search_top_k: int = Field(default=5, validation_alias="SEARCH_TOP_K")
    search_candidates: int = Field(default=40, validation_alias="SEARCH_CANDIDATES")
    search_keyword_weight: float = Field(default=1.0, validation_alias="SEARCH_KEYWORD_WEIGHT")
    search_vector_weight: float = Field(default=0.15, validation_alias="SEARCH_VECTOR_WEIGHT")
    search_fusion: str = Field(default="adaptive", validation_alias="SEARCH_FUSION")
    # an optional cross-encoder behind a `/rerank` endpoint reorders each search's fused
    # hits (graph.rerank); unset: no reranker, the fusion's order
    rerank_base_url: str | None = Field(
        default=None,
        validation_alias="RERANK_BASE_URL",
        description="Root of a /rerank endpoint (Jina, Cohere, vLLM, llama.cpp, Infinity)",
    )
    rerank_model: str | None = Field(
        default=None, validation_alias="RERANK_MODEL", description="The reranker model's name"
    )
    rerank_api_key: SecretStr | None = Field(
        default=None,
        validation_alias="RERANK_API_KEY",
        description="Bearer key of the rerank endpoint (a secret, never printed)",
    )
    rerank_timeout_s: float = Field(
        default=5.0,
        gt=0,
        validation_alias="RERANK_TIMEOUT_SECONDS",
        description="Seconds a rerank request may take before the fused order is kept",
    )

    # speech to text for voice questions (bot.core.answering.speech): any server speaking
    # OpenAI's `POST {base}/audio/transcriptions`; unset: voice messages are declined
    stt_base_url: str | None = Field(
        default=None,
        validation_alias="STT_BASE_URL",
        description="Root of an OpenAI-compatible /audio/transcriptions endpoint",
    )
    stt_model: str | None = Field(
        default=None, validation_alias="STT_MODEL", description="The transcription model's name"
    )
    stt_api_key: SecretStr | None = Field(
        default=None,
        validation_alias="STT_API_KEY",
        description="Bearer key of the transcription endpoint (a secret, never printed)",
    )
    stt_max_seconds: int = Field(
        default=300,
        ge=1,
        validation_alias="STT_MAX_SECONDS",
        description="The longest voice message transcribed, in seconds",
    )
    stt_max_bytes: int = Field(
        default=20_000_000,
        ge=1,
        validation_alias="STT_MAX_BYTES",
        description="The largest voice message transcribed, in bytes",
    )
    stt_timeout_s: float = Field(
        default=60.0,
        gt=0,
        validation_alias="STT_TIMEOUT_SECONDS",
        description="Seconds a transcription request may take",
    )

    llm_base_url: str | None = Field(default=None, validation_alias="LLM_BASE_URL")
    llm_api_key: SecretStr | None = Field(default=None, validation_alias="LLM_API_KEY")
    llm_model: str | None = Field(default=None, validation_alias="LLM_MODEL")
    llm_timeout_s: float = Field(default=30.0, validation_alias="LLM_TIMEOUT")
    llm_max_retries: int = Field(default=1, validation_alias="LLM_MAX_RETRIES")
    llm_max_tokens: int = Field(default=1024, ge=16, validation_alias="LLM_MAX_TOKENS")
    # "unsure": the planner asks the model only when the rules cannot be sure of the plan
    # (a message with history); "always": every turn it may (the planning call)
    llm_planner: Literal["always", "unsure"] = Field(
        default="unsure", validation_alias="LLM_PLANNER"
    )
    # a first message's FAQ entry the embedder leaves unsure put to the model (a yes/no
    # request before the answer's; graph.entry_check): off, measured with a 1.5B model
    llm_entry_check: bool = Field(default=False, validation_alias="LLM_ENTRY_CHECK")
    max_retrieval_loops: int = Field(default=3, validation_alias="MAX_RETRIEVAL_LOOPS")
    # FAQ questions near the one asked listed with a refusal (graph.related_questions);
    # 0: none, the plain refusal
    related_questions: int = Field(default=3, ge=0, le=5, validation_alias="RELATED_QUESTIONS")
    history_messages: int = Field(default=6, validation_alias="HISTORY_MESSAGES")
    # who a refusal ("not in our documents") sends the user to; per-language values win
    handoff_contact: str = Field(default="", validation_alias="HANDOFF_CONTACT")
    handoff_contact_en: str = Field(default="", validation_alias="HANDOFF_CONTACT_EN")
    handoff_contact_zh_hant: str = Field(default="", validation_alias="HANDOFF_CONTACT_ZH_HANT")
    handoff_contact_zh_hans: str = Field(default="", validation_alias="HANDOFF_CONTACT_ZH_HANS")
    # hand-off to people: off unless a staff room is set (a Slack channel id, a Telegram
    # group's chat id); staff are the listed users ("slack:U123,telegram:456"; a bare id
    # counts on every platform), else whoever acts from inside the staff room
    handoff_slack_channel: str = Field(default="", validation_alias="HANDOFF_SLACK_CHANNEL")
    handoff_telegram_chat_id: str = Field(default="", validation_alias="HANDOFF_TELEGRAM_CHAT_ID")
    # the staff inbox in the browser (/staff, admin API keys) as a staff room: hand-off on a
    # site with no Slack or Telegram
    handoff_web_inbox: bool = Field(default=False, validation_alias="HANDOFF_WEB_INBOX")
    handoff_staff_user_ids: str = Field(default="", validation_alias="HANDOFF_STAFF_USER_IDS")
    handoff_remind_minutes: float = Field(
        default=30.0, gt=0, validation_alias="HANDOFF_REMIND_MINUTES"
    )
    # "Mon-Fri 08:30-17:30" (days optional; several ranges with ";"): when people answer
    handoff_office_hours: str = Field(default="", validation_alias="HANDOFF_OFFICE_HOURS")
    handoff_timezone: str = Field(default="UTC", validation_alias="HANDOFF_TIMEZONE")
    handoff_staff_language: str = Field(default="en", validation_alias="HANDOFF_STAFF_LANGUAGE")

    # the admin console in the browser (/admin): how long a sign-in lasts
    admin_session_hours: float = Field(
        default=8.0, gt=0, le=24 * 30, validation_alias="ADMIN_SESSION_HOURS"
    )
    # failed sign-ins a client address may make a minute before it is answered 429 and no
    # more audit rows are written for it (counted in each process; 0: no limit)
    admin_sign_in_failures_per_minute: int = Field(
        default=10, ge=0, validation_alias="ADMIN_SIGN_IN_FAILURES_PER_MINUTE"
    )
    # sign-in to the console through the organisation's identity provider (OpenID Connect);
    # unset issuer: off. Who is an admin: a listed email and/or a `groups` claim value
    oidc_issuer: str = Field(default="", validation_alias="OIDC_ISSUER")
    oidc_client_id: str = Field(default="", validation_alias="OIDC_CLIENT_ID")
    oidc_client_secret: SecretStr | None = Field(
        default=None, validation_alias="OIDC_CLIENT_SECRET"
    )
    oidc_admin_emails: str = Field(default="", validation_alias="OIDC_ADMIN_EMAILS")
    oidc_admin_group: str = Field(default="", validation_alias="OIDC_ADMIN_GROUP")
    oidc_scopes: str = Field(default="openid email profile", validation_alias="OIDC_SCOPES")
    # the name on the sign-in button ("Sign in with …"); unset: the issuer's host
    oidc_provider_name: str = Field(
        default="", max_length=60, validation_alias="OIDC_PROVIDER_NAME"
    )

    # answer memory: questions answered well before are answered again at once
    memory_enabled: bool = Field(default=True, validation_alias="MEMORY_ENABLED")
    memory_ttl_days: int = Field(default=30, ge=1, validation_alias="MEMORY_TTL_DAYS")
    memory_min_similarity: float = Field(
        default=0.9, ge=0.0, le=1.0, validation_alias="MEMORY_MIN_SIMILARITY"
    )

    log_level: str = Field(default="WARNING", validation_alias="LOG_LEVEL")

    # serving (`ragbot serve` / `ragbot worker`)
    host: str = Field(default="127.0.0.1", validation_alias="RAGBOT_HOST")
    port: int = Field(default=8080, validation_alias="RAGBOT_PORT")
    # what an HTTP client gets before it is cut off: its request line and headers within
    # HTTP_HEADER_TIMEOUT_SECONDS of connecting (or of its last answer on a kept-alive
    # connection), its body within HTTP_BODY_TIMEOUT_SECONDS of the headers; a webhook's
    # body (Slack, Telegram: everything outside /api/) at most WEBHOOK_MAX_BODY_KB
    http_header_timeout_s: float = Field(
        default=10.0, gt=0, validation_alias="HTTP_HEADER_TIMEOUT_SECONDS"
    )
    http_body_timeout_s: float = Field(
        default=60.0, gt=0, validation_alias="HTTP_BODY_TIMEOUT_SECONDS"
    )
    http_max_connections: int = Field(default=1000, ge=1, validation_alias="HTTP_MAX_CONNECTIONS")
    webhook_max_body_kb: int = Field(default=1024, ge=1, validation_alias="WEBHOOK_MAX_BODY_KB")
    db_pool_size: int = Field(default=10, validation_alias="DB_POOL_SIZE")
    # turns one worker runs at once (more wait in line, told so): a turn mostly waits for
    # the model and holds no database connection meanwhile
    max_concurrent_turns: int = Field(default=32, ge=1, validation_alias="MAX_CONCURRENT_TURNS")
    # processes that run the turns' work beside the serving process (0: in it; unset: one
    # per core this process may use, at most 4); see docs/operating.md "Sizing turns"
    turn_processes: int | None = Field(default=None, ge=0, le=64, validation_alias="TURN_PROCESSES")
    # their CPU priority: below the serving process (acks, typing, sends come first),
    # above ingestion (INGEST_NICE)
    turn_nice: int = Field(default=5, ge=0, le=19, validation_alias="TURN_NICE")
    # how long a turn in all may wait for its process's CPU lane (guard, search) before it
    # goes on without it; 0: no lane, every turn's CPU steps at once (graph.cpu_lane)
    cpu_lane_patience_s: float = Field(
        default=0.5, ge=0, le=10, validation_alias="CPU_LANE_PATIENCE_SECONDS"
    )
    shutdown_grace_s: float = Field(default=20.0, validation_alias="SHUTDOWN_GRACE_SECONDS")
    # a worker renews its leases every third of this; one that dies leaves its
    # messages to any other worker after at most this long
    delivery_lease_s: float = Field(default=30.0, gt=0, validation_alias="DELIVERY_LEASE_SECONDS")
    inbox_sweep_s: float = Field(default=2.0, gt=0, validation_alias="INBOX_SWEEP_SECONDS")
    outbox_max_attempts: int = Field(default=8, ge=1, validation_alias="OUTBOX_MAX_ATTEMPTS")
    rate_limit_per_minute: int = Field(default=10, validation_alias="RATE_LIMIT_PER_MINUTE")
    # the HTTP API (on when `ragbot apikey create` made a key): each key's calls a minute
    # unless the key says otherwise, the browser origins allowed to call it, and the key
    # the web chat at /chat uses (a public key: keep it to public collections)
    api_rate_limit_per_minute: int = Field(default=60, validation_alias="API_RATE_LIMIT_PER_MINUTE")
    api_cors_origins: str = Field(default="", validation_alias="API_CORS_ORIGINS")
    web_chat_api_key: SecretStr | None = Field(default=None, validation_alias="WEB_CHAT_API_KEY")
    # the key `ragbot mcp` (MCP over stdio, for a desktop client) acts as
    ragbot_api_key: SecretStr | None = Field(default=None, validation_alias="RAGBOT_API_KEY")
    # counted in each process, by the caller's address: one web visitor cannot use up
    # the site's key, nor a script fill the audit log by polling for staff replies
    web_chat_client_rate_per_minute: int = Field(
        default=20, ge=0, validation_alias="WEB_CHAT_CLIENT_RATE_PER_MINUTE"
    )
    # the web chat's look: its title, accent colour, logo and greeting (unset: the catalog's
    # words and the built-in colour); checked at start, as the page shows them to everyone
    web_chat_title: str = Field(default="", max_length=80, validation_alias="WEB_CHAT_TITLE")
    web_chat_color: str = Field(default="", validation_alias="WEB_CHAT_COLOR")
    web_chat_logo_url: str = Field(default="", validation_alias="WEB_CHAT_LOGO_URL")
    web_chat_greeting: str = Field(default="", max_length=500, validation_alias="WEB_CHAT_GREETING")
    api_polls_per_minute: int = Field(default=60, ge=0, validation_alias="API_POLLS_PER_MINUTE")
    api_polls_per_key_per_minute: int = Field(
        default=6000, ge=0, validation_alias="API_POLLS_PER_KEY_PER_MINUTE"
    )
    api_trusted_proxies: str = Field(default="", validation_alias="API_TRUSTED_PROXIES")
    # citations' source view (/sources/…): how long a signed link opens it, and the
    # address readers reach `ragbot serve` at (Slack and Telegram need an absolute link;
    # unset: they link only documents ingested with --url)
    source_link_days: int = Field(default=30, ge=1, le=3650, validation_alias="SOURCE_LINK_DAYS")
    public_base_url: str | None = Field(default=None, validation_alias="PUBLIC_BASE_URL")
    worker_concurrency: int = Field(default=2, validation_alias="WORKER_CONCURRENCY")
    # how long a job-queue query waits for a database connection; with the database gone the
    # job worker stops after about this long and is started again (psycopg_pool's 30 s)
    job_db_wait_s: float = Field(
        default=30.0, ge=1, le=600, allow_inf_nan=False, validation_alias="JOB_DB_WAIT_SECONDS"
    )
    slack_bot_token: SecretStr | None = Field(default=None, validation_alias="SLACK_BOT_TOKEN")
    telegram_bot_token: SecretStr | None = Field(
        default=None, validation_alias="TELEGRAM_BOT_TOKEN"
    )

    @field_validator("telegram_bot_token")
    @classmethod
    def _telegram_token_shape(cls, token: SecretStr | None) -> SecretStr | None:
        """A token that is not @BotFather's `<digits>:<30+ of A-Z a-z 0-9 _ ->` is refused at
        start, in one line that does not quote it (else Telegram's address holds it and
        the first call fails with a DNS error far from the cause)."""
        if token is not None and not _TELEGRAM_TOKEN.fullmatch(token.get_secret_value()):
            raise ValueError(
                "TELEGRAM_BOT_TOKEN is not a bot token from @BotFather (digits, ':', then 30 or"
                " more letters, digits, '_' or '-'): check it for quotes, spaces or a cut"
            )
        return token

    @field_validator("api_trusted_proxies")
    @classmethod
    def _trusted_proxies_shape(cls, raw: str) -> str:
        """Each comma-separated entry must be an address or a network (CIDR): refused at
        start in one line naming the setting, not on the first API call."""
        for entry in _split(raw):
            try:
                ipaddress.ip_network(entry, strict=False)
            except ValueError:
                raise ValueError(
                    f"API_TRUSTED_PROXIES: {entry!r} is not an address or a network (CIDR);"
                    " separate entries with commas"
                ) from None
        return raw

    @field_validator("web_chat_color")
    @classmethod
    def _web_chat_color_shape(cls, raw: str) -> str:
        """A colour as #rrggbb or #rgb (it goes into the page's style); empty is unset."""
        value = raw.strip()
        if value and not re.fullmatch(r"#(?:[0-9A-Fa-f]{6}|[0-9A-Fa-f]{3})", value):
            raise ValueError("WEB_CHAT_COLOR must be a colour as #rrggbb or #rgb, e.g. #0b5cad")
        return value

    @field_validator("web_chat_logo_url")
    @classmethod
    def _web_chat_logo_shape(cls, raw: str) -> str:
        """An http(s) address whose host is plain ASCII (its origin goes into the page's
        Content-Security-Policy header: a non-ASCII host cannot be sent there, and a `;`
        would start another directive); empty is unset."""
        value = raw.strip()
        host = r"[A-Za-z0-9.-]+(?::[0-9]{1,5})?"
        if value and not re.fullmatch(rf"https?://{host}(?:/[^\s\"'<>;,\\]*)?", value):
            raise ValueError(
                "WEB_CHAT_LOGO_URL must be an http:// or https:// address with an ASCII host"
                " (punycode, e.g. xn--r8jz45g.jp, for another script), e.g."
                " https://www.example.org/logo.png"
            )
        return value

    @field_validator("public_base_url")
    @classmethod
    def _public_base_url_shape(cls, raw: str | None) -> str | None:
        """An http(s) address with no trailing slash (links are joined to it); empty is
        unset. Refused at start in one line naming the setting."""
        if raw is None or not raw.strip():
            return None
        url = raw.strip().rstrip("/")
        if not re.fullmatch(r"https?://[^\s/?#]+(/[^\s?#]*)?", url):
            raise ValueError(
                "PUBLIC_BASE_URL must be an http:// or https:// address (no query), e.g."
                " https://ragbot.example.org"
            )
        return url

    slack_app_token: SecretStr | None = Field(default=None, validation_alias="SLACK_APP_TOKEN")
    slack_signing_secret: SecretStr | None = Field(
        default=None, validation_alias="SLACK_SIGNING_SECRET"
    )
    slack_api_base_url: str = Field(
        default="https://slack.com/api/", validation_alias="SLACK_API_BASE_URL"
    )
    slack_streaming: bool = Field(default=True, validation_alias="SLACK_STREAMING")
    slack_update_interval_s: float = Field(default=1.0, validation_alias="SLACK_UPDATE_INTERVAL")
    telegram_api_base_url: str = Field(
        default="https://api.telegram.org", validation_alias="TELEGRAM_API_BASE_URL"
    )
    telegram_webhook_url: str | None = Field(default=None, validation_alias="TELEGRAM_WEBHOOK_URL")
    telegram_webhook_secret: SecretStr | None = Field(
        default=None, validation_alias="TELEGRAM_WEBHOOK_SECRET"
    )
    telegram_drafts: bool = Field(default=True, validation_alias="TELEGRAM_DRAFTS")
    telegram_update_interval_s: float = Field(
        default=1.0, ge=1.0, validation_alias="TELEGRAM_UPDATE_INTERVAL"
    )
    slack_admin_user_ids: str = Field(default="", validation_alias="SLACK_ADMIN_USER_IDS")
    telegram_admin_user_ids: str = Field(default="", validation_alias="TELEGRAM_ADMIN_USER_IDS")
    slack_collections: str = Field(default="internal,public", validation_alias="SLACK_COLLECTIONS")
    telegram_collections: str = Field(default="public", validation_alias="TELEGRAM_COLLECTIONS")
    # Slack audiences: guests and other organisations' users (Slack Connect) read these instead
    slack_guest_collections: str = Field(
        default="public", validation_alias="SLACK_GUEST_COLLECTIONS"
    )
    # "C123:hr,C456:finance": collections a channel adds for the home team's employees
    slack_channel_collections: str = Field(default="", validation_alias="SLACK_CHANNEL_COLLECTIONS")
    slack_user_cache_s: float = Field(
        default=600.0, ge=0, validation_alias="SLACK_USER_CACHE_SECONDS"
    )

    # the questions a new chat suggests, per language, separated by "|" (none set: the
    # answer memory's most asked questions the reader may read)
    suggested_questions_en: str = Field(default="", validation_alias="SUGGESTED_QUESTIONS_EN")
    suggested_questions_zh_hant: str = Field(
        default="", validation_alias="SUGGESTED_QUESTIONS_ZH_HANT"
    )
    suggested_questions_zh_hans: str = Field(
        default="", validation_alias="SUGGESTED_QUESTIONS_ZH_HANS"
    )

    # telemetry and privacy
    langfuse_public_key: str | None = Field(default=None, validation_alias="LANGFUSE_PUBLIC_KEY")
    langfuse_secret_key: SecretStr | None = Field(
        default=None, validation_alias="LANGFUSE_SECRET_KEY"
    )
    # LANGFUSE_BASE_URL is the SDK's name, LANGFUSE_HOST the older one; either works
    langfuse_host: str = Field(
        default="https://cloud.langfuse.com",
        validation_alias=AliasChoices("LANGFUSE_BASE_URL", "LANGFUSE_HOST"),
    )
    langfuse_environment: str | None = Field(
        default=None, validation_alias="LANGFUSE_TRACING_ENVIRONMENT"
    )
    user_hash_key: SecretStr | None = Field(default=None, validation_alias="USER_HASH_KEY")
    retention_days: int = Field(default=180, ge=1, validation_alias="RETENTION_DAYS")

    def handoff_contacts(self) -> dict[str, str]:
        """HANDOFF_CONTACT per language ("" key: the value for every language)."""
        values = {
            "": self.handoff_contact,
            "en": self.handoff_contact_en,
            "zh-hant": self.handoff_contact_zh_hant,
            "zh-hans": self.handoff_contact_zh_hans,
        }
        return {k: v.strip() for k, v in values.items() if v.strip()}

    def handoff_rooms(self) -> dict[str, str]:
        """The staff room per platform (Slack channel id, Telegram chat id, and `web`:
        `inbox` for the staff page with HANDOFF_WEB_INBOX); empty: no hand-off.

        Raises ConfigurationError for a room that is not an id, or whose platform has no
        bot token (its cases could never be posted).
        """
        rooms = {
            "slack": self.handoff_slack_channel.strip(),
            "telegram": self.handoff_telegram_chat_id.strip(),
        }
        rooms = {platform: room for platform, room in rooms.items() if room}
        if "slack" in rooms and not _SLACK_CHANNEL_ID.fullmatch(rooms["slack"]):
            raise ConfigurationError(
                f"HANDOFF_SLACK_CHANNEL: {rooms['slack']!r} is not a channel id (C0123ABCD)"
            )
        if "telegram" in rooms and not re.fullmatch(r"-?\d{1,20}", rooms["telegram"]):
            raise ConfigurationError(
                f"HANDOFF_TELEGRAM_CHAT_ID: {rooms['telegram']!r} is not a chat id"
                " (a group's is negative, e.g. -1001234567890)"
            )
        tokens = {"slack": self.slack_bot_token, "telegram": self.telegram_bot_token}
        for platform in rooms:
            if tokens[platform] is None:
                raise ConfigurationError(
                    f"a {platform} staff room is set but {platform.upper()}_BOT_TOKEN is not"
                )
        if self.handoff_web_inbox:  # the staff page needs no token: admin API keys sign in
            rooms[WEB_INBOX] = "inbox"
        return rooms

    def oidc_on(self) -> bool:
        """True when the console's identity-provider sign-in is set up (OIDC_ISSUER).

        Raises ConfigurationError when the issuer is set but not an http(s) address, or
        the client id, or every way of saying who is an admin, is missing.
        """
        issuer = self.oidc_issuer.strip()
        if not issuer:
            return False
        if not re.fullmatch(r"https?://[^\s?#]+", issuer):
            raise ConfigurationError(
                "OIDC_ISSUER must be the identity provider's https:// address, e.g."
                " https://accounts.google.com"
            )
        if not self.oidc_client_id.strip():
            raise ConfigurationError("OIDC_ISSUER is set but OIDC_CLIENT_ID is not")
        if not self.oidc_admins() and not self.oidc_admin_group.strip():
            raise ConfigurationError(
                "OIDC_ISSUER is set but neither OIDC_ADMIN_EMAILS nor OIDC_ADMIN_GROUP says"
                " who is an admin"
            )
        if "openid" not in self.oidc_scopes.split():
            raise ConfigurationError("OIDC_SCOPES must include openid")
        return True

    def oidc_admins(self) -> frozenset[str]:
        """OIDC_ADMIN_EMAILS, lower-cased."""
        return frozenset(email.lower() for email in _split(self.oidc_admin_emails))

    def oidc_still_admin(self, email: str) -> bool:
        """Whether a person's open console session still holds under these settings: the
        sign-in is on and, where admins are listed by email only, the email is listed (a
        group's membership is known at sign-in only)."""
        if not self.oidc_on():
            return False
        return bool(self.oidc_admin_group.strip()) or email.lower() in self.oidc_admins()

    def handoff_staff(self) -> frozenset[str]:
        """HANDOFF_STAFF_USER_IDS as written: `platform:id` entries and bare ids."""
        return frozenset(_split(self.handoff_staff_user_ids))

    def admin_ids(self, platform: str) -> frozenset[str]:
        """The user ids allowed to run admin commands on `platform` (none for unknown ones)."""
        raw = {"slack": self.slack_admin_user_ids, "telegram": self.telegram_admin_user_ids}
        return frozenset(_split(raw.get(platform, "")))

    def collections(self, platform: str) -> tuple[str, ...] | None:
        """The collections `platform` may read; None means all (the console, `ragbot ask`)."""
        raw = {"slack": self.slack_collections, "telegram": self.telegram_collections}
        if platform not in raw:
            return None
        return tuple(_split(raw[platform]))

    def guest_collections(self, platform: str) -> tuple[str, ...] | None:
        """What a guest on `platform` reads; None: the platform has no guests (only Slack has)."""
        if platform != "slack":
            return None
        return tuple(_split(self.slack_guest_collections))

    def channel_collections(self, platform: str) -> dict[str, tuple[str, ...]]:
        """Extra collections per channel id on `platform` (SLACK_CHANNEL_COLLECTIONS).

        A channel may be listed more than once to add several collections.
        Raises ConfigurationError on an entry that is not `CHANNEL_ID:collection`
        with a Slack channel id and a valid collection name.
        """
        if platform != "slack":
            return {}
        extra: dict[str, tuple[str, ...]] = {}
        for entry in _split(self.slack_channel_collections):
            channel, sep, collection = (part.strip() for part in entry.partition(":"))
            if not sep or not _SLACK_CHANNEL_ID.fullmatch(channel):
                raise ConfigurationError(
                    f"SLACK_CHANNEL_COLLECTIONS: {entry!r} is not CHANNEL_ID:collection"
                    " (a channel id such as C0123ABCD)"
                )
            if not _COLLECTION_NAME.fullmatch(collection):
                raise ConfigurationError(
                    f"SLACK_CHANNEL_COLLECTIONS: {entry!r} names a bad collection {collection!r}"
                    " (lowercase letters, digits, _ and -, one collection per entry)"
                )
            if collection not in extra.get(channel, ()):
                extra[channel] = (*extra.get(channel, ()), collection)
        return extra

    def suggested_questions(self, language: str) -> tuple[str, ...]:
        """SUGGESTED_QUESTIONS_<LANGUAGE> as written: "|"-separated questions, blanks dropped."""
        raw = {
            "en": self.suggested_questions_en,
            "zh-hant": self.suggested_questions_zh_hant,
            "zh-hans": self.suggested_questions_zh_hans,
        }.get(language, "")
        return tuple(q.strip() for q in raw.split("|") if q.strip())

    def cors_origins(self) -> list[str]:
        """API_CORS_ORIGINS as a list (`*` alone: any origin)."""
        return _split(self.api_cors_origins)

    def trusted_proxies(self) -> list[str]:
        """API_TRUSTED_PROXIES as a list of addresses or networks (CIDR)."""
        return _split(self.api_trusted_proxies)

    def upload_collection(self, platform: str) -> str:
        """Where an admin's upload lands unless they name a collection."""
        return {"slack": "internal", "telegram": "public"}.get(platform, "public")

    def turn_process_count(self) -> int:
        """TURN_PROCESSES, or when unset one per core this process may use (at most 4; none
        on a single core, where a worker beside the serving process only adds work)."""
        if self.turn_processes is not None:
            return self.turn_processes
        cores = usable_cores()
        return 0 if cores < 2 else min(4, cores)

    @property
    def database_dsn(self) -> str | None:
        """DATABASE_URL as a plain string (None: the embedded server)."""
        return reveal(self.database_url)

    @property
    def tracing_enabled(self) -> bool:
        """True when both Langfuse keys are set: only then is anything sent."""
        return bool(self.langfuse_public_key and self.langfuse_secret_key)

    @property
    def max_file_bytes(self) -> int:
        """The upload size limit in bytes."""
        return int(self.max_file_mb * 1024 * 1024)


def usable_cores() -> int:
    """The cores this process may use: its CPU affinity, under a container's CPU quota
    (cgroup v2 `cpu.max`, rounded up) when one is set."""
    cores = len(os.sched_getaffinity(0))
    try:
        quota, period = Path("/sys/fs/cgroup/cpu.max").read_text().split()[:2]
    except (OSError, ValueError):
        return cores
    if quota == "max":
        return cores
    return max(1, min(cores, -(-int(quota) // int(period))))
