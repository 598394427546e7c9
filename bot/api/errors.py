"""JSON errors with a stable `code`: every failure of the HTTP API looks the same.

The OpenAI-compatible routes (`/v1/...`, `bot.api.openai_chat`) answer the same errors in
OpenAI's shape, `{"error": {"message", "type", "code", "param"}}`, a bad body as 400.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

from bot.api.models import ErrorBody
from bot.api.openai_shapes import error_body
from bot.core.delivery.http import DATABASE_DOWN

logger = logging.getLogger(__name__)

# the codes Starlette's own errors get (an unknown path, a wrong method)
_HTTP_CODES = {404: "not_found", 405: "method_not_allowed", 400: "bad_request"}


_PLACES = ("body", "query", "path", "header")  # where a value was, not which one
_MISMATCH = "string_pattern_mismatch"
# the rule a pattern stands for, said in words (a regular expression is no message)
_FIELD_RULES = {
    "conversation_id": "16-64 of A-Z a-z 0-9 _ - (a UUID fits; omit it to get a new one)"
}


def _json_error(body: bytes, position: int) -> str:
    """Where a body that is not JSON goes wrong, by line and column (both from 1)."""
    text = body.decode("utf-8", "replace")
    position = max(0, min(position, len(text)))
    line = text.count("\n", 0, position) + 1
    column = position - (text.rfind("\n", 0, position) + 1) + 1
    try:
        json.loads(text)
        reason = "not JSON"
    except json.JSONDecodeError as exc:
        reason = exc.msg
    return f"The body is not valid JSON: {reason} at line {line}, column {column}."


class ApiError(Exception):
    """An error to answer with: HTTP status, stable code, message, the field at fault."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        field: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.field = field
        self.headers = headers or {}


def documented(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """The OpenAPI `responses` of a route that may answer these error statuses."""
    return {status: {"model": ErrorBody} for status in statuses}


def error_response(
    status: int,
    code: str,
    message: str,
    field: str | None = None,
    headers: dict[str, str] | None = None,
) -> JSONResponse:
    """The one shape of an error body."""
    body = {"code": code, "message": message, "field": field}
    return JSONResponse(body, status_code=status, headers=headers)


OPENAI_PREFIX = "/v1/"


def shaped_response(
    path: str,
    status: int,
    code: str,
    message: str,
    field: str | None = None,
    headers: dict[str, str] | None = None,
) -> JSONResponse:
    """An error in the shape the route at `path` speaks: OpenAI's under `/v1/`, else ours."""
    if not path.startswith(OPENAI_PREFIX):
        return error_response(status, code, message, field, headers)
    status = 400 if status == 422 else status  # OpenAI's clients read a bad body as 400
    return JSONResponse(error_body(status, code, message, field), status, headers=headers)


def install(app: FastAPI) -> None:
    """Answer every error as `{"code", "message", "field"}`, never a stack trace."""

    async def api_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, ApiError)
        return shaped_response(
            request.url.path, exc.status, exc.code, exc.message, exc.field, exc.headers
        )

    async def invalid(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        first = exc.errors()[0] if exc.errors() else {}
        loc = tuple(first.get("loc", ()))
        if first.get("type") == "json_invalid":  # its loc is the offset, not a field
            position = loc[-1] if loc and isinstance(loc[-1], int) else 0
            return shaped_response(
                request.url.path, 422, "invalid_json", _json_error(await request.body(), position)
            )
        where = [str(part) for part in loc if part not in _PLACES]
        field = ".".join(where) or None
        message = _FIELD_RULES.get(field or "") if first.get("type") == _MISMATCH else None
        message = message or str(first.get("msg", "invalid request"))
        return shaped_response(
            request.url.path, 422, "invalid", f"{field}: {message}" if field else message, field
        )

    async def http_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, HTTPException)
        code = _HTTP_CODES.get(exc.status_code, "error")
        headers = dict(exc.headers) if exc.headers else None
        return shaped_response(
            request.url.path, exc.status_code, code, str(exc.detail), None, headers
        )

    async def database_down(request: Request, exc: Exception) -> JSONResponse:
        # one line: a database that is down fails every call, and each would log a traceback
        route = getattr(request.scope.get("route"), "path", "?")  # never a conversation id
        logger.warning("API %s: the database is unavailable (%s)", route, type(exc).__name__)
        message = "The service is briefly unavailable; retry in a few seconds."
        return shaped_response(
            request.url.path, 503, "unavailable", message, headers={"Retry-After": "5"}
        )

    async def crashed(request: Request, exc: Exception) -> JSONResponse:
        # the server logs the traceback once (Starlette re-raises it after this answer)
        return shaped_response(
            request.url.path, 500, "internal", "Something went wrong on our side."
        )

    app.add_exception_handler(ApiError, api_error)
    for kind in DATABASE_DOWN:
        app.add_exception_handler(kind, database_down)
    app.add_exception_handler(RequestValidationError, invalid)
    app.add_exception_handler(HTTPException, http_error)
    app.add_exception_handler(Exception, crashed)
