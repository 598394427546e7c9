"""A small OpenID Connect provider on 127.0.0.1 for the console's sign-in tests.

It serves the discovery document, a JWKS with an RSA key made for the test,
`/authorize` (redirects straight back with a code, as a provider does once the
person has signed in) and `/token` (checks the PKCE verifier and returns an ID
token signed with that key). `person` says who signs in next; `mode` spoils one
thing on purpose: `forged` (signed by another key under the same key id),
`expired`, `wrong_nonce`, `wrong_state`, `wrong_audience`.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

from joserfc import jwt
from joserfc.jwk import RSAKey

KID = "test-key"


class FakeIssuer:
    """The provider's state: its keys, the codes it gave, and who signs in next."""

    def __init__(self, client_id: str, client_secret: str) -> None:
        self.client_id = client_id
        self.client_secret = client_secret
        self.key = RSAKey.generate_key(2048, parameters={"kid": KID})
        self.other_key = RSAKey.generate_key(2048, parameters={"kid": KID})
        self.url = ""
        self.person: dict[str, Any] = {}
        self.mode = ""
        self.codes: dict[str, dict[str, str]] = {}
        self.authorize_requests: list[dict[str, str]] = []
        self.token_requests: list[dict[str, str]] = []

    def discovery(self) -> dict[str, Any]:
        """The discovery document."""
        return {
            "issuer": self.url,
            "authorization_endpoint": f"{self.url}/authorize",
            "token_endpoint": f"{self.url}/token",
            "jwks_uri": f"{self.url}/jwks",
            "response_types_supported": ["code"],
            "id_token_signing_alg_values_supported": ["RS256"],
            "code_challenge_methods_supported": ["S256"],
        }

    def id_token(self, nonce: str) -> str:
        """The ID token for `person`, spoiled as `mode` says."""
        now = int(time.time())
        claims = {
            "iss": self.url,
            "sub": secrets.token_hex(8),
            "aud": "someone-else" if self.mode == "wrong_audience" else self.client_id,
            "iat": now - (900 if self.mode == "expired" else 0),
            "exp": now - 600 if self.mode == "expired" else now + 300,
            "nonce": "not-the-nonce" if self.mode == "wrong_nonce" else nonce,
            **self.person,
        }
        key = self.other_key if self.mode == "forged" else self.key
        return jwt.encode({"alg": "RS256", "kid": KID}, claims, key)


def _handler(issuer: FakeIssuer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: the test's output is the server's."""

        def _json(self, status: int, body: dict[str, Any]) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            parts = urlsplit(self.path)
            if parts.path == "/.well-known/openid-configuration":
                self._json(200, issuer.discovery())
            elif parts.path == "/jwks":
                self._json(200, {"keys": [issuer.key.as_dict(private=False)]})
            elif parts.path == "/authorize":
                query = {k: v[0] for k, v in parse_qs(parts.query).items()}
                issuer.authorize_requests.append(query)
                code = secrets.token_urlsafe(16)
                issuer.codes[code] = query
                state = "not-the-state" if issuer.mode == "wrong_state" else query["state"]
                back = f"{query['redirect_uri']}?{urlencode({'code': code, 'state': state})}"
                self.send_response(302)
                self.send_header("Location", back)
                self.send_header("Content-Length", "0")
                self.end_headers()
            else:
                self._json(404, {"error": "not_found"})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            form = {k: v[0] for k, v in parse_qs(self.rfile.read(length).decode()).items()}
            issuer.token_requests.append(form)
            basic = self.headers.get("Authorization", "").removeprefix("Basic ")
            sent = base64.b64decode(basic).decode() if basic else ""
            if sent != f"{issuer.client_id}:{issuer.client_secret}":
                self._json(401, {"error": "invalid_client"})
                return
            asked = issuer.codes.pop(form.get("code", ""), None)
            verifier = form.get("code_verifier", "")
            challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest())
            if (
                asked is None
                or form.get("redirect_uri") != asked["redirect_uri"]
                or challenge.decode().rstrip("=") != asked.get("code_challenge")
            ):
                self._json(400, {"error": "invalid_grant"})
                return
            self._json(
                200,
                {
                    "access_token": secrets.token_urlsafe(16),
                    "token_type": "Bearer",
                    "expires_in": 300,
                    "id_token": issuer.id_token(asked.get("nonce", "")),
                },
            )

    return Handler


@contextmanager
def fake_issuer(client_id: str, client_secret: str) -> Iterator[FakeIssuer]:
    """A fake provider listening on 127.0.0.1 for the `with` block."""
    issuer = FakeIssuer(client_id, client_secret)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(issuer))
    issuer.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield issuer
    finally:
        server.shutdown()
        server.server_close()
