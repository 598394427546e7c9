"""`ragbot doctor` against fake OpenAI-compatible and llama.cpp endpoints."""

from __future__ import annotations

import socket
import subprocess

from tests.support.fake_oidc import fake_issuer
from tests.support.fake_openai import FakeOpenAI, Reply, llama_cpp_server, openai_api
from tests.support.fake_rerank import FakeRerank
from tests.support.fake_stt import FakeTranscriber


def test_doctor_says_plainly_what_is_wrong_with_the_llm_endpoint(cli) -> None:  # type: ignore[no-untyped-def]
    fake = FakeOpenAI().start()
    try:
        root = fake.url.removesuffix("/v1")
        good = cli("doctor", extra_env={"LLM_BASE_URL": fake.url, "LLM_MODEL": "fake-model"})
        assert good.returncode == 0 and "model 'fake-model' is served" in good.stdout
        no_v1 = cli("doctor", extra_env={"LLM_BASE_URL": root, "LLM_MODEL": "fake-model"})
        assert no_v1.returncode == 1 and "ends with /v1" in no_v1.stdout
    finally:
        fake.stop()
    strict = openai_api().start()  # like OpenAI: a model it does not list is a 404
    try:
        unknown = cli("doctor", extra_env={"LLM_BASE_URL": strict.url, "LLM_MODEL": "qwen-7b"})
        assert unknown.returncode == 1 and "does not serve LLM_MODEL='qwen-7b'" in unknown.stdout
        assert "it lists: gpt-4o-mini" in unknown.stdout
    finally:
        strict.stop()
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    gone = cli(
        "doctor", extra_env={"LLM_BASE_URL": f"http://127.0.0.1:{port}/v1", "LLM_MODEL": "m"}
    )
    assert gone.returncode == 1 and "nothing is listening" in gone.stdout
    plain = cli("doctor", extra_env={"LLM_BASE_URL": "", "LLM_MODEL": ""})
    assert plain.returncode == 0 and "no-LLM mode" in plain.stdout


def test_doctor_says_in_one_line_when_chat_citations_cannot_link_the_source_view(cli) -> None:  # type: ignore[no-untyped-def]
    unset = cli("doctor", extra_env={"LLM_BASE_URL": "", "PUBLIC_BASE_URL": ""})
    assert unset.returncode == 0
    said = [line for line in unset.stdout.splitlines() if "PUBLIC_BASE_URL" in line]
    assert said == [
        "note PUBLIC_BASE_URL is not set: Slack and Telegram citations link only"
        " documents ingested with --url (the web chat links every source view)"
    ]
    public = {"LLM_BASE_URL": "", "PUBLIC_BASE_URL": "https://ragbot.example.org/"}
    configured = cli("doctor", extra_env=public)
    assert configured.returncode == 0 and "PUBLIC_BASE_URL" not in configured.stdout


def test_doctor_notes_in_one_line_that_refusals_carry_no_contact(cli) -> None:  # type: ignore[no-untyped-def]
    bare = cli("doctor", extra_env={"LLM_BASE_URL": "", "LLM_MODEL": "", "HANDOFF_CONTACT": ""})
    noted = [line for line in bare.stdout.splitlines() if "refusals carry no contact" in line]
    assert bare.returncode == 0 and len(noted) == 1 and noted[0].startswith("note ")
    contact = "the service desk (phone 1999, desk@city.example.org)"
    env = {"LLM_BASE_URL": "", "LLM_MODEL": "", "HANDOFF_CONTACT_EN": contact}
    told = cli("doctor", extra_env=env)
    assert told.returncode == 0 and "no-LLM mode" in told.stdout
    assert "refusals carry no contact" not in told.stdout


def _doctor_lines(result: subprocess.CompletedProcess[str]) -> dict[str, str]:
    """Each reported line's text → its label (ok / WARN / FAIL)."""
    return {line[5:]: line[:4].strip() for line in result.stdout.splitlines() if line}


def test_doctor_reports_what_a_llama_cpp_server_really_does(cli) -> None:  # type: ignore[no-untyped-def]
    server = llama_cpp_server().start()  # 500 to json_schema, max_completion_tokens ignored
    try:
        env = {"LLM_BASE_URL": server.url, "LLM_MODEL": "qwen2.5-coder-1.5b"}
        result = cli("doctor", extra_env=env)
    finally:
        server.stop()
    assert result.returncode == 0, result.stdout  # usable, with warnings
    lines = _doctor_lines(result)
    served = next(t for t in lines if "not LLM_MODEL='qwen2.5-coder-1.5b'" in t)
    assert lines[served] == "WARN" and "answered a request for it" in served
    latency = next(t for t in lines if t.startswith("chat works: a short answer took"))
    assert lines[latency] == "ok"
    fmt = next(t for t in lines if t.startswith("structured output:"))
    assert lines[fmt] == "ok" and "json_object" in fmt and "json_schema: HTTP 500" in fmt
    cap = next(t for t in lines if "token cap" in t)
    assert lines[cap] == "ok" and "max_tokens=8: 8 tokens" in cap
    # the requests were real chats: a plain one, then json_schema refused, then JSON mode
    kinds = [(r.get("response_format") or {}).get("type") for r in server.requests]
    assert kinds[:3] == [None, "json_schema", "json_object"]
    assert all(r["max_tokens"] for r in server.requests)


def test_doctor_reports_an_openai_like_endpoint_and_an_ignored_cap(cli) -> None:  # type: ignore[no-untyped-def]
    server = openai_api().start()
    try:
        env = {"LLM_BASE_URL": server.url, "LLM_MODEL": "gpt-4o-mini"}
        good = cli("doctor", extra_env=env)
        server.cap_fields = ("max_completion_tokens",)  # a server ignoring max_tokens
        ignored = cli("doctor", extra_env=env)
        server.json_schema_status = 400  # and one that knows no response format at all
        server.responder = lambda body: (
            Reply(status=400) if body.get("response_format") else Reply("plain words")
        )
        plain = cli("doctor", extra_env=env)
    finally:
        server.stop()
    lines = _doctor_lines(good)
    assert good.returncode == 0 and "WARN" not in lines.values(), good.stdout
    assert lines["model 'gpt-4o-mini' is served"] == "ok"
    assert lines["structured output: json_schema"] == "ok"
    cap = next(t for t in _doctor_lines(ignored) if "token cap" in t)
    assert ignored.returncode == 0 and _doctor_lines(ignored)[cap] == "WARN"
    assert "gave 110 tokens" in cap and "LLM_MAX_TOKENS will not bound replies" in cap
    fmt = next(t for t in _doctor_lines(plain) if t.startswith("structured output:"))
    assert plain.returncode == 0 and _doctor_lines(plain)[fmt] == "WARN"
    assert "plain text only" in fmt


def test_doctor_fails_when_every_chat_request_fails(cli) -> None:  # type: ignore[no-untyped-def]
    server = FakeOpenAI(default=Reply(status=500)).start()  # lists models, answers nothing
    try:
        result = cli("doctor", extra_env={"LLM_BASE_URL": server.url, "LLM_MODEL": "fake-model"})
    finally:
        server.stop()
    assert result.returncode == 1
    assert "FAIL every chat request fails: the model cannot be used" in result.stdout


def test_doctor_reports_the_reranker_when_one_is_set(cli) -> None:  # type: ignore[no-untyped-def]
    fake = FakeRerank(prefer="1,300").start()
    env = {"LLM_BASE_URL": "", "LLM_MODEL": "", "RERANK_MODEL": "bge-reranker-v2-m3"}
    try:
        good = cli("doctor", extra_env={**env, "RERANK_BASE_URL": fake.url})
        assert fake.requests and fake.requests[0]["model"] == "bge-reranker-v2-m3"
        fake.prefer = "library"  # a reranker ranking the wrong passage first
        wrong = cli("doctor", extra_env={**env, "RERANK_BASE_URL": fake.url})
    finally:
        fake.stop()
    assert good.returncode == 0, good.stdout
    lines = _doctor_lines(good)
    answers = next(t for t in lines if t.startswith(f"reranker at {fake.url}/rerank answers"))
    assert lines[answers] == "ok" and not any(v == "WARN" for v in lines.values())
    assert any(v == "WARN" and "RERANK_MODEL" in t for t, v in _doctor_lines(wrong).items())
    # it stopped: a warning (turns go on without it), not a failure
    gone = cli("doctor", extra_env={**env, "RERANK_BASE_URL": fake.url})
    assert gone.returncode == 0
    assert any(v == "WARN" and "unreachable" in t for t, v in _doctor_lines(gone).items())
    unset = cli("doctor", extra_env={**env, "RERANK_BASE_URL": ""})
    assert "reranker" not in unset.stdout


def test_doctor_reports_the_transcription_endpoint_when_one_is_set(cli) -> None:  # type: ignore[no-untyped-def]
    fake = FakeTranscriber(transcript="").start()
    env = {"LLM_BASE_URL": "", "LLM_MODEL": "", "STT_MODEL": "whisper-test"}
    try:
        good = cli("doctor", extra_env={**env, "STT_BASE_URL": fake.url, "STT_API_KEY": "k-1"})
        fake.status = 500
        failing = cli("doctor", extra_env={**env, "STT_BASE_URL": fake.url})
    finally:
        fake.stop()
    assert good.returncode == 0, good.stdout
    [request, _] = fake.requests
    assert request["path"] == "/v1/audio/transcriptions" and request["model"] == "whisper-test"
    assert request["file"]["data"][:4] == b"RIFF"  # a WAV of silence
    lines = _doctor_lines(good)
    answers = next(t for t in lines if t.startswith(f"transcription at {fake.url}/audio/"))
    assert lines[answers] == "ok" and "k-1" not in good.stdout
    # it fails: a warning (typed questions go on), not a failure
    assert failing.returncode == 0
    assert any(v == "WARN" and "HTTP 500" in t for t, v in _doctor_lines(failing).items())
    unset = cli("doctor", extra_env={**env, "STT_BASE_URL": ""})
    assert "transcription" not in unset.stdout


def test_doctor_checks_the_identity_providers_discovery_document_when_one_is_set(cli) -> None:  # type: ignore[no-untyped-def]
    env = {
        "LLM_BASE_URL": "",
        "LLM_MODEL": "",
        "OIDC_CLIENT_ID": "ragbot-console",
        "OIDC_CLIENT_SECRET": "s3cret-client-value",
        "OIDC_ADMIN_EMAILS": "admin@example.org",
    }
    with fake_issuer("ragbot-console", "s3cret-client-value") as issuer:
        good = cli("doctor", extra_env={**env, "OIDC_ISSUER": issuer.url})
        wrong = cli("doctor", extra_env={**env, "OIDC_ISSUER": issuer.url + "/elsewhere"})
    assert good.returncode == 0, good.stdout
    lines = _doctor_lines(good)
    found = next(t for t in lines if t.startswith(f"identity provider {issuer.url}"))
    assert lines[found] == "ok" and f"{issuer.url}/authorize" in found
    assert "s3cret-client-value" not in good.stdout
    # a warning, not a failure: admin API keys still sign in
    assert wrong.returncode == 0
    assert any(v == "WARN" and "OIDC_ISSUER" in t for t, v in _doctor_lines(wrong).items())
    unset = cli("doctor", extra_env={**env, "OIDC_ISSUER": ""})
    assert "identity provider" not in unset.stdout and "OIDC" not in unset.stdout
