"""Structured replies from any OpenAI-compatible server: schema, JSON mode, or repaired text.

Servers differ: OpenAI, vLLM and recent llama.cpp/Ollama accept
`response_format: json_schema`; older ones only `json_object`; some reject
both, and they say so differently: 400, 422, or (llama_cpp.server, given
`json_schema`) a 500 whose body names `response_format`. `FormatLadder` tries
the strictest first and steps down for the rest of the process when a server
refuses it, logging what it learnt once. Whatever comes back is
parsed leniently (`parse_json`): code fences, text around the object, Python
literals and trailing commas are repaired before giving up.
"""

from __future__ import annotations

import contextlib
import copy
import json
import logging
import re
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from pydantic import BaseModel

logger = logging.getLogger(__name__)
FORMATS = ("json_schema", "json_object", "none")
# words in an error body that say the response format, not the request, was the problem
_FORMAT_WORDS = re.compile(r"response_format|json_schema|json_object|grammar", re.IGNORECASE)
_OBJECT = re.compile(r"\{.*\}", re.DOTALL)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")
_PY_LITERALS = {"True": "true", "False": "false", "None": "null"}


@dataclass
class FormatLadder:
    """The response formats still worth trying with this endpoint (shared by all turns)."""

    rejected: set[str] = field(default_factory=set)
    confirmed: str | None = None  # the format a reply already came back in

    def current(self) -> str:
        """The strictest format the endpoint has not rejected."""
        return next(f for f in FORMATS if f not in self.rejected or f == "none")

    def reject(self, fmt: str, why: str = "") -> bool:
        """Step down after the endpoint refused `fmt`; False when there is nothing weaker left.

        Logged once per format and process (concurrent turns may meet the
        same refusal; only the first says so).
        """
        if fmt == "none" or self.confirmed == fmt:
            return False  # a format that already worked is not the problem: no step down
        if fmt not in self.rejected:
            self.rejected.add(fmt)
            logger.warning(
                "LLM endpoint does not accept response_format %s (%s); using %s from now on",
                fmt,
                why or "refused",
                self.current(),
            )
        return True

    def confirm(self, fmt: str) -> None:
        """Note that a reply came back in `fmt` (logged the first time only)."""
        if self.confirmed is None and fmt not in self.rejected:
            self.confirmed = fmt
            logger.info("LLM endpoint accepts response_format %s", fmt)


def response_format(fmt: str, name: str, model: type[BaseModel]) -> dict[str, Any]:
    """The request keyword arguments for `fmt` (none: no response_format at all)."""
    if fmt == "json_schema":
        return {
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": name, "schema": copy.deepcopy(_schema(model))},
            }
        }
    if fmt == "json_object":
        return {"response_format": {"type": "json_object"}}
    return {}


@cache
def _schema(model: type[BaseModel]) -> dict[str, Any]:
    # pydantic builds it anew on every call (0.2 ms on the event loop, twice a turn)
    return model.model_json_schema()


def rejects_format(status: int, message: str) -> bool:
    """True when an HTTP status and its body say the response format is not supported.

    400 and 422 are the request itself refused; a 500 counts only when its
    body names the format (llama_cpp.server's answer to `json_schema`), so an
    ordinary server error still gets its retry.
    """
    if status in (400, 422):
        return True
    return status >= 500 and bool(_FORMAT_WORDS.search(message))


def is_format_rejection(exc: BaseException) -> bool:
    """True for a provider error saying the response format is not supported."""
    import openai

    if not isinstance(exc, openai.APIStatusError):
        return False
    return rejects_format(exc.status_code, error_text(exc))


def error_text(exc: BaseException) -> str:
    """The message of a provider error with its response body (where the reason usually is)."""
    import openai

    text = str(exc)
    if isinstance(exc, openai.APIStatusError):
        # a streamed body not read: the message is what there is
        with contextlib.suppress(Exception):
            text += " " + exc.response.text
    return text


def parse_json(text: str) -> dict[str, Any] | None:
    """The JSON object in a model's reply, repaired where a weak model bent it; None if none."""
    cleaned = text.strip().removeprefix("```json").removeprefix("```").removesuffix("```")
    match = _OBJECT.search(cleaned)
    if match is None:
        return None
    raw = match.group(0)
    for candidate in (raw, _repair(raw)):
        try:
            value = json.loads(candidate)
        except json.JSONDecodeError:
            continue
        return value if isinstance(value, dict) else None
    return None


def _repair(raw: str) -> str:
    fixed = _TRAILING_COMMA.sub(r"\1", raw)
    for python, js in _PY_LITERALS.items():
        fixed = re.sub(rf"(?<=[:\[,\s]){python}(?=[,\]\}}\s])", js, fixed)
    if "'" in fixed and '"' not in fixed:
        fixed = fixed.replace("'", '"')
    return fixed


class AnswerFieldStream:
    """Pulls the text of one string field out of a JSON reply while it streams.

    `feed` returns the field's newly decoded characters. A reply that is not
    JSON at all (a server ignoring the format) is passed through as it comes.
    """

    def __init__(self, field_name: str = "answer") -> None:
        self._key = re.compile(r'"' + re.escape(field_name) + r'"\s*:\s*"')
        self._raw = ""
        self._start: int | None = None  # where the field's string begins in _raw
        self._pos = 0  # next raw index to decode
        self._done = False
        self.plain: bool | None = None  # None until the first non-space character

    @property
    def found(self) -> bool:
        """True once the field's opening quote has streamed past."""
        return self._start is not None

    @property
    def closed(self) -> bool:
        """True once the field's closing quote has streamed past: its text is complete."""
        return self._done

    def said(self, pattern: re.Pattern[str]) -> bool:
        """True when the reply so far matches `pattern` (a field written before this one)."""
        return pattern.search(self._raw) is not None

    def feed(self, piece: str) -> str:
        """The field text that `piece` completes (plain replies: `piece` itself)."""
        self._raw += piece
        if self.plain is None and self._raw.strip():
            self.plain = not self._raw.lstrip().startswith(("{", "`"))
        if self.plain:
            return piece
        if self._done:
            return ""
        if self._start is None:
            match = self._key.search(self._raw)
            if match is None:
                return ""
            self._start = self._pos = match.end()
        out: list[str] = []
        raw = self._raw
        i = self._pos
        while i < len(raw):
            ch = raw[i]
            if ch == '"':
                self._done = True
                i += 1
                break
            if ch == "\\":
                decoded, used = _escape(raw, i)
                if used == 0:
                    break  # an escape split across pieces: wait for the rest
                out.append(decoded)
                i += used
                continue
            out.append(ch)
            i += 1
        self._pos = i
        return "".join(out)


def _escape(raw: str, i: int) -> tuple[str, int]:
    """The character an escape at raw[i] stands for, and its length (0: incomplete)."""
    if i + 1 >= len(raw):
        return "", 0
    kind = raw[i + 1]
    if kind == "u":
        if i + 6 > len(raw):
            return "", 0
        try:
            return chr(int(raw[i + 2 : i + 6], 16)), 6
        except ValueError:
            return "", 6
    return {"n": "\n", "t": "\t", "r": "", "b": "", "f": ""}.get(kind, kind), 2
