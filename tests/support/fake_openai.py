"""A small local server that speaks the OpenAI chat-completions API, with scripted replies.

The real langchain-openai client is pointed at it; each request takes the next
scripted reply: text (streamed when asked), an HTTP error, a delay, or raw bytes.
`llama_cpp_server()` and `openai_api()` make it behave like those servers do
where they differ: which response formats and token-cap fields they honour,
and whether they answer under a model name they do not list.
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.support.local_server import serve, shutdown
from textkit.sentences import split_sentences


@dataclass
class Reply:
    """One scripted response."""

    content: str = ""
    status: int = 200
    delay: float = 0.0
    raw: str | None = None  # sent as the message content verbatim (e.g. malformed JSON)
    pace: float = 0.0  # seconds between streamed pieces (a model writing slowly)
    cut: bool = False  # the stream ends without a finish reason (a server cutting it off)
    # streamed: an error event after the pieces (as OpenAI reports a failure mid-stream)
    stream_error: str | None = None
    # streamed: the connection dropped after the pieces (a restarting server, a proxy)
    abort: bool = False
    # streamed: these SSE lines after the pieces, verbatim (comments, malformed events)
    raw_lines: tuple[str, ...] = ()
    # a model answer citing the numbered source holding this text: "{n}" in content becomes
    # its number, "{id}" the id of its sentence holding the text ("1.2", synth.v6)
    cite: str | None = None


@dataclass
class FakeOpenAI:
    """The server's script and what it received."""

    script: list[Reply] = field(default_factory=list)
    default: Reply = field(default_factory=lambda: Reply("I could not find that."))
    requests: list[dict[str, Any]] = field(default_factory=list)
    # when the script is empty: a reply computed from the request (benchmarks), else `default`
    responder: Callable[[dict[str, Any]], Reply] | None = None
    url: str = ""
    # server quirks (the defaults: accept everything, cap nothing)
    models: tuple[str, ...] = ("fake-model",)  # what GET /models lists
    strict_models: bool = False  # a chat request for an unlisted model gets 404 (OpenAI)
    # status answering `response_format: json_schema` (llama_cpp.server: 500); None accepts it
    json_schema_status: int | None = None
    # the token-cap fields that cut a reply short (its words counted as tokens); usage then
    # reports the words written instead of the fixed figures
    cap_fields: tuple[str, ...] = ()
    pieces_sent: int = 0  # streamed answer pieces written so far (a cancelled call stops them)
    streaming: int = 0  # streamed answers being written now (a cancelled call ends its own)
    connections: int = 0  # TCP connections clients opened (kept alive: one per client)
    _server: ThreadingHTTPServer | None = None

    def next_reply(self, body: dict[str, Any]) -> Reply:
        if self.script:
            return self.script.pop(0)
        return self.responder(body) if self.responder is not None else self.default

    def start(self) -> FakeOpenAI:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            # keep-alive, as OpenAI and llama_cpp.server: a client's calls reuse its
            # connections (streams are sent chunked, their end marked)
            protocol_version = "HTTP/1.1"

            def setup(self) -> None:
                super().setup()
                fake.connections += 1

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                if self.path == "/v1/models":
                    listed = [{"id": name} for name in fake.models]
                    self._send(200, {"object": "list", "data": listed})
                else:
                    self._send(404, {"error": {"message": "not found"}})

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                if not self.path.startswith("/v1/"):  # as hosted APIs answer a base URL without /v1
                    self._send(404, {"error": {"message": "model not found"}})
                    return
                fake.requests.append(body)
                refusal = fake.refusal(body)
                if refusal is not None:
                    self._send(*refusal)
                    return
                reply = fake.next_reply(body)
                if reply.delay:
                    time.sleep(reply.delay)
                if reply.status != 200:
                    self._send(reply.status, {"error": {"message": "scripted failure"}})
                    return
                content = reply.raw if reply.raw is not None else reply.content
                if reply.cite is not None:
                    content = content.replace("{n}", str(source_number(body, reply.cite)))
                    content = content.replace("{id}", sentence_id(body, reply.cite))
                content, finish, usage_figures = fake.capped(body, content)
                if body.get("stream"):
                    usage = (body.get("stream_options") or {}).get("include_usage", False)
                    fake.streaming += 1
                    try:
                        self._stream(content, body.get("model", "fake"), reply, usage, finish)
                    finally:  # written out, or the client went away mid-stream
                        fake.streaming -= 1
                else:
                    completion = _completion(content, body.get("model", "fake"))
                    completion["choices"][0]["finish_reason"] = finish
                    completion["usage"] = usage_figures
                    self._send(200, completion)

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _stream(
                self, content: str, model: str, reply: Reply, usage: bool, finish: str = "stop"
            ) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                pieces = [content[i : i + 8] for i in range(0, len(content), 8)] or [""]
                for number, piece in enumerate(pieces):
                    chunk = _chunk(piece, model, None)
                    if number == 0:  # as real servers do: the first delta names the role
                        chunk["choices"][0]["delta"]["role"] = "assistant"
                    # raw UTF-8, as OpenAI, vLLM and llama.cpp write it (U+2028 unescaped)
                    self._event(f"data: {json.dumps(chunk, ensure_ascii=False)}\n\n")
                    fake.pieces_sent += 1
                    if reply.pace:
                        time.sleep(reply.pace)
                if reply.abort:
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                if reply.raw_lines:
                    self._event("".join(f"{line}\n" for line in reply.raw_lines) + "\n")
                if reply.stream_error is not None:
                    error = {"error": {"message": reply.stream_error}}
                    self._event(f"data: {json.dumps(error)}\n\n")
                    self.wfile.write(b"0\r\n\r\n")
                    return
                if not reply.cut:
                    stop = _chunk("", model, finish)
                    self._event(f"data: {json.dumps(stop)}\n\n")
                if usage:  # as OpenAI sends it: a last chunk with no choices
                    last = {**_chunk("", model, None), "choices": [], "usage": _USAGE}
                    self._event(f"data: {json.dumps(last)}\n\n")
                self._event("data: [DONE]\n\n")
                self.wfile.write(b"0\r\n\r\n")  # the stream's end: the connection stays

            def _event(self, text: str) -> None:
                data = text.encode()
                self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                self.wfile.flush()

        self._server, root = serve(Handler)
        self.url = root + "/v1"
        return self

    def stop(self) -> None:
        shutdown(self._server)

    def refusal(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]] | None:
        """The error a quirky server answers this request with (None: it is served)."""
        model = body.get("model")
        if self.strict_models and model not in self.models:
            message = f"The model `{model}` does not exist or you do not have access to it."
            return 404, {"error": {"message": message, "code": "model_not_found"}}
        kind = (body.get("response_format") or {}).get("type")
        if kind == "json_schema" and self.json_schema_status is not None:
            # llama_cpp.server's words: its pydantic model knows only text and json_object
            message = "response_format: Input should be 'text' or 'json_object' (json_schema)"
            return self.json_schema_status, {"error": {"message": message}}
        return None

    def capped(self, body: dict[str, Any], content: str) -> tuple[str, str, dict[str, int]]:
        """The reply as the server's token cap leaves it, its finish reason and usage."""
        if not self.cap_fields:
            return content, "stop", _USAGE
        caps = [int(body[f]) for f in self.cap_fields if isinstance(body.get(f), int)]
        words = content.split(" ")
        finish = "stop"
        if caps and len(words) > min(caps):
            words, finish = words[: min(caps)], "length"
        usage = {"prompt_tokens": 11, "completion_tokens": len(words)}
        return " ".join(words), finish, {**usage, "total_tokens": 11 + len(words)}


def llama_cpp_server() -> FakeOpenAI:
    """A fake behaving like llama_cpp.server: 500 to json_schema, only max_tokens caps a reply,
    and any model name is answered by the model it has loaded."""
    return FakeOpenAI(
        models=("/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",),
        json_schema_status=500,
        cap_fields=("max_tokens",),
        responder=obliging_model,
    )


def openai_api() -> FakeOpenAI:
    """A fake behaving like OpenAI's API: json_schema works, both cap fields are honoured,
    an unknown model is a 404."""
    return FakeOpenAI(
        models=("gpt-4o-mini",),
        strict_models=True,
        cap_fields=("max_tokens", "max_completion_tokens"),
        responder=obliging_model,
    )


LONG_STORY = " ".join(f"word{i}" for i in range(110))


def obliging_model(body: dict[str, Any]) -> Reply:
    """A model doing what it is asked: JSON when a format asks for it, else a long text."""
    if body.get("response_format") or "JSON" in str(body["messages"][-1]["content"]):
        return Reply('{"ok": true}')
    return Reply(LONG_STORY)


def source_number(body: dict[str, Any], needle: str) -> int:
    """The number of the first source in a synthesis request holding `needle` (0: none)."""
    user = str(body["messages"][-1]["content"])
    for line in user.split("\n\n"):
        head = line.removeprefix("<sources>\n")
        if head.startswith("[") and needle in head:
            return int(head[1 : head.index("]")])
    return 0


def sentence_id(body: dict[str, Any], needle: str) -> str:
    """The id of the first numbered source sentence holding `needle` ("" when none does)."""
    user = str(body["messages"][-1]["content"])
    for line in user.split("\n"):
        if line.startswith("[") and "." in line.split("]", 1)[0] and needle in line:
            return line[1 : line.index("]")]
    return ""


def first_source_sentence(body: dict[str, Any]) -> str:
    """The first sentence of source [1] in a synthesis request ("" when there is none)."""
    user = str(body["messages"][-1]["content"])
    if "\n[1] " not in user:
        return ""
    first = user.split("\n[1] ", 1)[-1].split("\n\n", 1)[0]
    # synth.v6: the source's sentences one a line after its title, each with its id
    numbered = [line.split("] ", 1)[-1] for line in first.split("\n") if line.startswith("[1.")]
    if numbered:
        return numbered[0]
    sentences = split_sentences(first.split(") ", 1)[-1])
    return sentences[0] if sentences else ""


_USAGE = {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}


def _completion(content: str, model: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": content},
            }
        ],
        "usage": _USAGE,
    }


def _chunk(piece: str, model: str, finish: str | None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": model,
        "choices": [
            {"index": 0, "delta": {"content": piece} if piece else {}, "finish_reason": finish}
        ],
    }


def echo_prompt(body: dict[str, Any]) -> Reply:
    """A model that repeats every message it was sent (the attack suite: leaks show up).

    JSON-mode calls get the echo too: not JSON, so the planner falls back to its rules.
    """
    parts = [f"{m.get('role')}: {m.get('content')}" for m in body.get("messages", [])]
    return Reply("\n".join(parts) + " [1]")


def planned_answer(plan: str, answer: str, pace: float = 0.0) -> Callable[[dict[str, Any]], Reply]:
    """A responder: `plan` for the planning step, then `answer` written at `pace`."""

    def respond(body: dict[str, Any]) -> Reply:
        if "planning step" in str(body["messages"][0]["content"]):
            return Reply(plan)
        return Reply(answer, pace=pace)

    return respond
