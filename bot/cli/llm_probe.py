"""`ragbot doctor`'s LLM check: is an OpenAI-compatible endpoint really behind LLM_BASE_URL?

Asks `GET {LLM_BASE_URL}/models` (every OpenAI-compatible server answers it:
OpenAI, vLLM, llama.cpp server, Ollama) and says in plain words what is wrong:
nothing listening, a base URL without `/v1`, a key refused, or a model name
the server does not serve.
"""

from __future__ import annotations

from dataclasses import dataclass

import httpx


@dataclass(frozen=True)
class Finding:
    """One line of the report: ok or a problem, and what to do."""

    ok: bool
    text: str


async def probe_llm(
    base_url: str | None, api_key: str | None, model: str | None, timeout: float = 10.0
) -> list[Finding]:
    """What is right and wrong with the configured LLM endpoint."""
    if not base_url or not model:
        return [Finding(True, "no LLM configured (LLM_BASE_URL, LLM_MODEL): no-LLM mode")]
    url = base_url.rstrip("/") + "/models"
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    try:
        async with httpx.AsyncClient(timeout=timeout) as client:
            reply = await client.get(url, headers=headers)
    except httpx.ConnectError:
        return [Finding(False, f"nothing is listening at {base_url}: is the model server running?")]
    except httpx.TimeoutException:
        return [Finding(False, f"{base_url} did not answer within {timeout:g} s")]
    except httpx.HTTPError as exc:
        return [Finding(False, f"cannot reach {base_url}: {type(exc).__name__}")]
    if reply.status_code == 404:
        hint = (
            "; LLM_BASE_URL usually ends with /v1 (e.g. http://localhost:8080/v1)"
            if not base_url.rstrip("/").endswith("/v1")
            else ""
        )
        return [Finding(False, f"{url} answered 404: not an OpenAI-compatible API root{hint}")]
    if reply.status_code in (401, 403):
        return [
            Finding(False, f"{base_url} refused the key ({reply.status_code}): check LLM_API_KEY")
        ]
    if reply.status_code != 200:
        return [Finding(False, f"{url} answered HTTP {reply.status_code}")]
    try:
        served = [str(m.get("id")) for m in reply.json().get("data", [])]
    except (ValueError, AttributeError):
        return [Finding(False, f"{url} did not answer with a model list: is this the API root?")]
    found = [Finding(True, f"{base_url} answers ({len(served)} model(s) served)")]
    if served and model not in served:
        listed = ", ".join(served[:5])
        found.append(
            Finding(False, f"the server does not serve LLM_MODEL={model!r}; it lists: {listed}")
        )
    else:
        found.append(Finding(True, f"model {model!r} is served"))
    return found
