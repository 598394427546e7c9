"""The admin console's sign-in through the organisation's identity provider (OpenID Connect).

Authorization Code flow with PKCE (S256), `state` and `nonce`, through authlib's
httpx client: `begin` makes the provider's sign-in address and what the browser
must keep until it comes back (the state, the nonce and the code verifier: the
adapter keeps them in a short-lived cookie); `finish` checks the returned state,
exchanges the code, and validates the ID token: its signature against the
provider's JWKS (fetched again once for an unknown key id), `iss`, `aud`, `exp`,
`nonce`, and `email_verified` where the token says it. The person is an admin
when their email is in OIDC_ADMIN_EMAILS or OIDC_ADMIN_GROUP is among their
`groups`; anyone else is refused (audited) and gets no session.

The discovery document (`{OIDC_ISSUER}/.well-known/openid-configuration`) is read
on first use and kept for an hour. The client secret is sent to the token
endpoint only and never logged.
"""

from __future__ import annotations

import logging
import secrets
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from authlib.integrations.httpx_client import AsyncOAuth2Client
from authlib.oidc.core import CodeIDToken
from joserfc import jwt
from joserfc.errors import InvalidKeyIdError, JoseError
from joserfc.jwk import KeySet
from joserfc.jws import JWSRegistry

from bot.core.admin.console_sessions import ConsoleSessions, Opened
from bot.settings import Settings, reveal

logger = logging.getLogger(__name__)
DISCOVERY_PATH = "/.well-known/openid-configuration"
DISCOVERY_TTL_S = 3600.0
LEEWAY_S = 60  # clock skew allowed between the provider and this server
TIMEOUT_S = 10.0


class OidcRefusedError(PermissionError):
    """The sign-in did not give a session: `reason` (`bad_state`, `invalid_token`,
    `unverified_email`, `no_email`, `not_admin`, `provider`) and the email when known."""

    def __init__(self, reason: str, email: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
        self.email = email


class ProviderUnavailableError(RuntimeError):
    """The identity provider could not be reached, or its discovery document is wrong."""


@dataclass(frozen=True)
class Pending:
    """A started sign-in: where to send the browser, and what it keeps until it is back."""

    url: str
    state: str
    nonce: str
    verifier: str


async def _get_json(url: str, timeout: float = TIMEOUT_S) -> Any:
    """The JSON at `url` (ProviderUnavailableError saying why not, without the body)."""
    try:
        async with AsyncOAuth2Client(timeout=timeout) as client:
            reply = await client.request("GET", url, withhold_token=True)
        reply.raise_for_status()
        return reply.json()
    except Exception as exc:  # unreachable, an HTTP error status, not JSON
        raise ProviderUnavailableError(f"{url}: {type(exc).__name__}: {exc}") from exc


async def read_discovery(issuer: str, timeout: float = TIMEOUT_S) -> dict[str, Any]:
    """The issuer's discovery document, checked: it names this issuer and the endpoints
    the sign-in needs. ProviderUnavailableError saying what is wrong."""
    url = issuer.rstrip("/") + DISCOVERY_PATH
    document = await _get_json(url, timeout)
    if not isinstance(document, dict):
        raise ProviderUnavailableError(f"{url}: not a JSON object")
    if str(document.get("issuer", "")).rstrip("/") != issuer.rstrip("/"):
        named = document.get("issuer")
        raise ProviderUnavailableError(f"{url}: names issuer {named!r}, not {issuer!r}")
    missing = [
        k for k in ("authorization_endpoint", "token_endpoint", "jwks_uri") if not document.get(k)
    ]
    if missing:
        raise ProviderUnavailableError(f"{url}: has no {', '.join(missing)}")
    return document


def _why(exc: Exception) -> str:
    """Why the token endpoint refused, in a line the operator can act on: the error's type
    and the provider's OAuth error code (never its body, the code or the secret)."""
    error = getattr(exc, "error", None)
    if not isinstance(error, str) or not error.replace("_", "").isalnum():
        return type(exc).__name__
    if error == "invalid_client":
        return f"{type(exc).__name__} {error}: check OIDC_CLIENT_ID and OIDC_CLIENT_SECRET"
    return f"{type(exc).__name__} {error}"


class ConsoleOidc:
    """Starts and finishes the identity provider's sign-in; opens the admin's session."""

    def __init__(self, settings: Settings, sessions: ConsoleSessions) -> None:
        self._issuer = settings.oidc_issuer.strip().rstrip("/")
        self._client_id = settings.oidc_client_id.strip()
        self._secret = reveal(settings.oidc_client_secret)
        self._scopes = " ".join(settings.oidc_scopes.split())
        self._emails = settings.oidc_admins()
        self._group = settings.oidc_admin_group.strip()
        self._sessions = sessions
        self.name = settings.oidc_provider_name.strip() or urlsplit(self._issuer).netloc
        self._discovery: dict[str, Any] | None = None
        self._read_at = 0.0
        self._jwks: dict[str, Any] | None = None

    def _client(self, redirect_uri: str) -> AsyncOAuth2Client:
        return AsyncOAuth2Client(
            client_id=self._client_id,
            client_secret=self._secret,
            scope=self._scopes,
            redirect_uri=redirect_uri,
            code_challenge_method="S256",
            timeout=TIMEOUT_S,
        )

    async def _metadata(self) -> dict[str, Any]:
        if self._discovery is None or time.monotonic() - self._read_at > DISCOVERY_TTL_S:
            self._discovery = await read_discovery(self._issuer)
            self._read_at = time.monotonic()
            self._jwks = None
        return self._discovery

    async def _keys(self, force: bool = False) -> KeySet:
        metadata = await self._metadata()
        if self._jwks is None or force:
            self._jwks = await _get_json(metadata["jwks_uri"])
        return KeySet.import_key_set(self._jwks)  # type: ignore[arg-type]

    async def begin(self, redirect_uri: str) -> Pending:
        """A new sign-in: the provider's address to send the browser to, with a fresh
        state, nonce and PKCE code verifier."""
        metadata = await self._metadata()
        state, nonce = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
        verifier = secrets.token_urlsafe(48)
        async with self._client(redirect_uri) as client:
            url, _ = client.create_authorization_url(
                metadata["authorization_endpoint"], state=state, code_verifier=verifier, nonce=nonce
            )
        return Pending(url, state, nonce, verifier)

    async def finish(self, code: str, state: str, pending: Pending, redirect_uri: str) -> Opened:
        """The session of the person the provider vouches for, when an admin.
        OidcRefusedError (audited) otherwise; nothing is stored then."""
        if not state or not pending.state or not secrets.compare_digest(state, pending.state):
            await self._sessions.refused("?", "bad_state")
            raise OidcRefusedError("bad_state")
        try:
            claims = await self._claims(code, pending, redirect_uri)
        except OidcRefusedError as exc:
            await self._sessions.refused(exc.email, exc.reason)
            raise
        email = str(claims.get("email") or "").strip().lower()
        if not email:
            await self._sessions.refused("?", "no_email")
            raise OidcRefusedError("no_email")
        if "email_verified" in claims and claims["email_verified"] is not True:
            await self._sessions.refused(email, "unverified_email")
            raise OidcRefusedError("unverified_email", email)
        groups = claims.get("groups")
        in_group = bool(self._group) and isinstance(groups, list) and self._group in groups
        if email not in self._emails and not in_group:
            await self._sessions.refused(email, "not_admin")
            raise OidcRefusedError("not_admin", email)
        return await self._sessions.open_person(email)

    async def _claims(self, code: str, pending: Pending, redirect_uri: str) -> dict[str, Any]:
        """The validated ID token's claims for the code (OidcRefusedError when not valid)."""
        try:
            metadata = await self._metadata()
        except ProviderUnavailableError as exc:
            logger.warning("the identity provider's discovery failed: %s", exc)
            raise OidcRefusedError("provider") from exc
        try:
            async with self._client(redirect_uri) as client:
                token = await client.fetch_token(
                    metadata["token_endpoint"],
                    grant_type="authorization_code",
                    code=code,
                    code_verifier=pending.verifier,
                )
        except Exception as exc:  # a refused code or an unreachable provider: no session
            logger.warning("the identity provider did not exchange the code: %s", _why(exc))
            raise OidcRefusedError("provider") from exc
        raw = token.get("id_token") if isinstance(token, dict) else None
        if not isinstance(raw, str):
            raise OidcRefusedError("invalid_token")
        algorithms = metadata.get("id_token_signing_alg_values_supported") or ["RS256"]
        # never "none" nor a shared-secret algorithm keyed by a public key
        algorithms = [a for a in algorithms if isinstance(a, str) and a[:2] in ("RS", "PS", "ES")]
        registry = JWSRegistry(algorithms=algorithms or ["RS256"], strict_check_header=False)
        try:
            try:
                decoded = jwt.decode(raw, await self._keys(), registry=registry)
            except InvalidKeyIdError:  # the provider rotated its keys
                decoded = jwt.decode(raw, await self._keys(force=True), registry=registry)
            options: dict[str, Any] = {
                "iss": {"essential": True, "value": metadata["issuer"]},
                "aud": {"essential": True, "value": self._client_id},
                "exp": {"essential": True},
            }
            params = {"nonce": pending.nonce, "client_id": self._client_id}
            if isinstance(token.get("access_token"), str):
                params["access_token"] = token["access_token"]
            claims = CodeIDToken(decoded.claims, decoded.header, options, params)
            claims.validate(leeway=LEEWAY_S)
        except ProviderUnavailableError as exc:
            logger.warning("the identity provider's keys could not be read: %s", exc)
            raise OidcRefusedError("provider") from exc
        except (JoseError, ValueError) as exc:
            logger.warning("an ID token was refused: %s", type(exc).__name__)
            raise OidcRefusedError("invalid_token") from exc
        return dict(claims)
