"""What a request must be before its body is read: small, or an admin's upload of known size.

FastAPI reads and parses a body before any handler or dependency runs, so the
limits live here, in front of it: a JSON call's body is at most JSON_BODY_LIMIT
(a question is at most 8,000 characters), an upload's at most MAX_FILE_MB plus
its multipart framing, sent with its length, by an admin key (checked first:
nobody else makes this process parse a file); a photo or recording asked about
(`/ask/media`) at most the larger of MAX_FILE_MB and STT_MAX_BYTES plus the
framing, with its length, by any valid key. A body of unknown length (chunked)
is read here up to the limit and handed on.
"""

from __future__ import annotations

from http.cookies import SimpleCookie

from fastapi.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from bot.api.console_auth import COOKIE as CONSOLE_COOKIE
from bot.api.errors import OPENAI_PREFIX, error_response, shaped_response
from bot.core.delivery.http import replay_body
from bot.core.messages import Grant
from bot.core.serving import ServingCore

UPLOAD_PATH = "/api/v1/documents"
CONSOLE_UPLOAD_PATH = "/admin/api/documents"  # the admin console's, signed in by its cookie
# a photo or recording asked about: any valid key, the file within its kind's limit
MEDIA_PATHS = frozenset({"/api/v1/ask/media", "/api/v1/ask/media/stream"})
JSON_BODY_LIMIT = 64 * 1024
# an OpenAI-compatible client sends its whole chat with each question (its last turns read)
CHAT_BODY_LIMIT = 512 * 1024
MULTIPART_SLACK = 64 * 1024  # what a multipart body may add around the file itself
_WITH_BODY = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def too_large_message(limit: int) -> str:
    """What a file over MAX_FILE_MB is told."""
    return f"Files may be at most {limit / 1024 / 1024:g} MB (MAX_FILE_MB)."


class BodyGate:
    """411/413 (and 401/403 for an upload) before a body is read."""

    def __init__(
        self, app: ASGIApp, core: ServingCore, file_limit: int, media_limit: int = 0
    ) -> None:
        self._app = app
        self._core = core
        self._file_limit = file_limit
        self._media_limit = media_limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = str(scope.get("path", ""))
        if scope["type"] != "http" or not path.startswith(("/api/", "/admin/", OPENAI_PREFIX)):
            await self._app(scope, receive, send)
            return
        limit = CHAT_BODY_LIMIT if path.startswith(OPENAI_PREFIX) else JSON_BODY_LIMIT
        headers = dict(scope.get("headers") or ())
        length = headers.get(b"content-length", b"").decode("latin-1")
        upload = scope["method"] == "POST" and scope["path"] in (UPLOAD_PATH, CONSOLE_UPLOAD_PATH)
        media = scope["method"] == "POST" and scope["path"] in MEDIA_PATHS
        if upload:
            refusal = await self._upload_refusal(headers, length, scope["path"])
        elif media:
            refusal = await self._media_refusal(headers, length)
        elif length.isdigit() and int(length) > limit:
            refusal = shaped_response(path, 413, "too_large", "The request body is too large.")
        else:
            refusal = None
        if refusal is not None:
            await refusal(scope, receive, send)
            return
        if not length.isdigit() and scope["method"] in _WITH_BODY:
            body = await _read_capped(receive, limit)
            if body is None:
                await shaped_response(path, 413, "too_large", "The request body is too large.")(
                    scope, receive, send
                )
                return
            receive = replay_body(body, receive)
        await self._app(scope, receive, send)

    async def _grant(self, headers: dict[bytes, bytes]) -> Grant | None:
        """The grant of the request's bearer key (None: none, or not a valid one)."""
        scheme, _, key = headers.get(b"authorization", b"").decode("latin-1").partition(" ")
        if scheme.lower() == "bearer" and key.strip():
            return await self._core.verify_key(key.strip())
        return None

    async def _media_refusal(self, headers: dict[bytes, bytes], length: str) -> JSONResponse | None:
        if await self._grant(headers) is None:
            return _unauthorized()
        if not length.isdigit():
            return error_response(411, "length_required", "Send the file's Content-Length.")
        if int(length) > self._media_limit + MULTIPART_SLACK:
            return error_response(413, "too_large", too_large_message(self._media_limit), "file")
        return None

    async def _upload_refusal(
        self, headers: dict[bytes, bytes], length: str, path: str
    ) -> JSONResponse | None:
        grant = None
        if path == CONSOLE_UPLOAD_PATH:  # the console's session cookie, not a bearer key
            cookies = SimpleCookie(headers.get(b"cookie", b"").decode("latin-1"))
            morsel = cookies.get(CONSOLE_COOKIE)
            who = await self._core.admin_console.sessions.find(morsel.value if morsel else "")
            grant = who.grant if who is not None else None
        elif path == UPLOAD_PATH:
            grant = await self._grant(headers)
        if grant is None:
            return _unauthorized()
        if not grant.admin:
            return error_response(403, "forbidden", "Uploading needs an admin key.")
        if not length.isdigit():
            return error_response(411, "length_required", "Send the upload's Content-Length.")
        if int(length) > self._file_limit + MULTIPART_SLACK:
            return error_response(413, "too_large", too_large_message(self._file_limit), "file")
        return None


def _unauthorized() -> JSONResponse:
    return error_response(
        401, "unauthorized", "Send Authorization: Bearer <key>.",
        headers={"WWW-Authenticate": "Bearer"},
    )  # fmt: skip


async def _read_capped(receive: Receive, limit: int) -> bytes | None:
    """The whole body, or None once it passes `limit` bytes."""
    body = bytearray()
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return bytes(body)
        body += message.get("body", b"")
        if len(body) > limit:
            return None
        if not message.get("more_body", False):
            return bytes(body)
