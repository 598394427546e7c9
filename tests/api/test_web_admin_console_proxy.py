"""The admin console as an operator sets it up, over HTTP against a real `ragbot serve`:
a forwarded address or scheme counts only from a proxy listed in API_TRUSTED_PROXIES;
the console's cookies are `Secure` when PUBLIC_BASE_URL says the site is served over
https, whatever the hop to the server speaks; and a client secret the identity
provider refuses is named in the server's log, which never holds the secret or a code.

This server lists no proxy, so a caller on 127.0.0.1 (a tunnel, a TCP forwarder, a
proxy that passes the visitor's headers on) is the client itself: its own
X-Forwarded-For and X-Forwarded-Proto headers must change nothing.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from urllib.parse import parse_qs, quote, urlsplit

import httpx
import pytest

from storage.embeddings import Embedder
from tests.api.conftest import Served, serving_api
from tests.support.core_fixtures import wait_window_with_time_left
from tests.support.fake_oidc import FakeIssuer, fake_issuer

FAILURES = 3  # ADMIN_SIGN_IN_FAILURES_PER_MINUTE here
PUBLIC = "https://console.example.org"
WRONG_SECRET = "not-the-registered-secret"


@pytest.fixture(scope="module")
def issuer() -> Iterator[FakeIssuer]:
    """The fake identity provider."""
    with fake_issuer("ragbot-console", "proxy-test-secret") as running:
        yield running


@pytest.fixture(scope="module")
def site(
    tmp_path_factory: pytest.TempPathFactory,
    database_url: str,
    embedder: Embedder,
    issuer: FakeIssuer,
) -> Iterator[Served]:
    """`ragbot serve` reached at an https address, with no proxy listed."""
    env = {
        "PUBLIC_BASE_URL": PUBLIC,
        "ADMIN_SIGN_IN_FAILURES_PER_MINUTE": str(FAILURES),
        "OIDC_ISSUER": issuer.url,
        "OIDC_CLIENT_ID": "ragbot-console",
        "OIDC_CLIENT_SECRET": WRONG_SECRET,  # the provider expects another one
        "OIDC_ADMIN_EMAILS": "admin@example.org",
    }
    with serving_api(tmp_path_factory.mktemp("proxy"), database_url, embedder, **env) as s:
        yield s


def test_a_forwarded_for_header_from_an_unlisted_peer_does_not_escape_the_throttle(
    site: Served,
) -> None:
    here = {"Origin": site.url}
    wait_window_with_time_left(15)  # the throttle counts per calendar minute
    with httpx.Client(base_url=site.url, timeout=30) as client:  # from 127.0.0.1
        for n in range(FAILURES):
            spoofed = {**here, "X-Forwarded-For": f"203.0.113.{n + 1}"}
            wrong = client.post("/admin/session", json={"key": "rbk_wrong"}, headers=spoofed)
            assert wrong.status_code == 401
        fresh = {**here, "X-Forwarded-For": "198.51.100.77"}
        held = client.post("/admin/session", json={"key": "rbk_wrong"}, headers=fresh)
        assert held.status_code == 429, "a made-up X-Forwarded-For reset the count"


def test_the_console_cookies_are_secure_when_the_public_address_is_https(
    site: Served,
) -> None:
    here = {"Origin": site.url}
    # from a loopback address of its own: the throttle test's failures do not hold it back
    own = httpx.HTTPTransport(local_address="127.0.0.2")
    with httpx.Client(base_url=site.url, timeout=30, transport=own) as client:
        opened = client.post("/admin/session", json={"key": site.keys["admin"]}, headers=here)
        assert opened.status_code == 200, opened.text
        cookie = opened.headers["set-cookie"].lower()
        assert cookie.startswith("ragbot_admin=") and "; secure" in cookie
        assert "httponly" in cookie and "samesite=strict" in cookie
        started = client.get("/admin/oidc/start")
        assert started.status_code == 303
        assert quote(f"{PUBLIC}/admin/oidc/callback", safe="") in started.headers["location"]
        pending = started.headers["set-cookie"].lower()
        assert pending.startswith("ragbot_oidc=") and "; secure" in pending


def _log_so_far(site: Served) -> str:
    """What the server has written to its output until now (read without waiting)."""
    assert site.proc.stdout is not None
    fd = site.proc.stdout.fileno()
    os.set_blocking(fd, False)
    read = b""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except BlockingIOError:
            break
        if not chunk:
            break
        read += chunk
    return read.decode(errors="replace")


def test_a_refused_client_secret_is_named_in_the_log_without_the_secret_or_the_code(
    site: Served, issuer: FakeIssuer
) -> None:
    issuer.person = {"email": "admin@example.org", "email_verified": True}
    own = httpx.HTTPTransport(local_address="127.0.0.3")
    with httpx.Client(base_url=site.url, timeout=30, transport=own) as client:
        started = client.get("/admin/oidc/start")
        assert started.status_code == 303
        back = httpx.get(started.headers["location"], timeout=30)  # the provider's redirect
        returned = {k: v[0] for k, v in parse_qs(urlsplit(back.headers["location"]).query).items()}
        code = returned["code"]
        # the pending cookie is Secure (an https PUBLIC_BASE_URL): sent by hand over http
        pending = started.headers["set-cookie"].split(";")[0]
        finished = client.get("/admin/oidc/callback", params=returned, headers={"Cookie": pending})
        assert finished.status_code == 502 and "ragbot_admin" not in client.cookies
    deadline = time.monotonic() + 10
    log = ""
    while "invalid_client" not in log and time.monotonic() < deadline:
        log += _log_so_far(site)
        time.sleep(0.2)
    assert "invalid_client" in log and "OIDC_CLIENT_SECRET" in log, log[-2000:]
    assert WRONG_SECRET not in log and code not in log
