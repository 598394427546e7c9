"""Signed, expiring links to a citation's source view, minted as an answer is delivered.

A link names a document, the cited chunk, the reader's language and an expiry, with
an HMAC over all four under the installation's own key (kept in the database, made
once). Links are minted only on answers, and an answer is built from collections its
reader may read: the signature is the capability, so the view asks nothing else.
`source_url` sits next to each citation's `url` (the document's own page, when it was
ingested with one); the adapters show `reader_link`.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import json
import secrets
import time
from typing import Any, Literal
from urllib.parse import quote, urlencode

from bot.settings import Settings
from storage.db import Database
from storage.repositories import instance_secrets

SECRET_NAME = "source_link_key"
PATH = "/sources/"
ANCHOR = "cited"  # the marked passage's id: a link's fragment scrolls to it
LANGUAGES = ("en", "zh-hant", "zh-hans")
Check = Literal["ok", "expired", "invalid"]


def _signature(key: bytes, document: str, chunk: int | None, language: str, expires: int) -> str:
    """The link's HMAC-SHA256 (128 bits, URL-safe); JSON keeps the four fields apart."""
    message = json.dumps([document, chunk, language, expires], ensure_ascii=False)
    digest = hmac.new(key, message.encode(), hashlib.sha256).digest()[:16]
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def reader_link(citation: dict[str, Any], absolute: bool = True) -> str | None:
    """Where a citation opens: the document's own page, else its source view (`absolute`:
    only a link with a scheme, as chat platforms need); None when it has neither."""
    own = citation.get("url")
    if isinstance(own, str) and own:
        return own
    view = citation.get("source_url")
    if not isinstance(view, str) or not view:
        return None
    if absolute and not view.startswith(("https://", "http://")):
        return None
    return view


class SourceLinks:
    """Mints and checks the source view's links under the installation's key."""

    def __init__(self, db: Database, settings: Settings) -> None:
        self._db = db
        self._days = settings.source_link_days
        self._base = settings.public_base_url or ""
        self._key: bytes | None = None
        self._loading = asyncio.Lock()

    async def _secret(self) -> bytes:
        """The key, read (or made) once per process."""
        if self._key is None:
            async with self._loading:
                if self._key is None:
                    async with self._db.transaction() as session:
                        value = await instance_secrets.instance_secret(
                            session, SECRET_NAME, lambda: secrets.token_hex(32)
                        )
                    self._key = value.encode()
        return self._key

    async def mint(
        self, document: str, chunk: int | None, language: str, now: float | None = None
    ) -> str:
        """The signed link to `document` with `chunk` marked, in `language`'s script:
        under PUBLIC_BASE_URL when set, else relative to the server."""
        language = language if language in LANGUAGES else "en"
        expires = int(now if now is not None else time.time()) + self._days * 86400
        sig = _signature(await self._secret(), document, chunk, language, expires)
        query: dict[str, str | int] = {"lang": language, "exp": expires, "sig": sig}
        fragment = ""
        if chunk is not None:
            query, fragment = {"c": chunk, **query}, f"#{ANCHOR}"
        return f"{self._base}{PATH}{quote(document, safe='')}?{urlencode(query)}{fragment}"

    async def linked(self, citations: list[dict[str, Any]], language: str) -> list[dict[str, Any]]:
        """Each citation with `source_url`, its signed link (kept fields unchanged)."""
        out = []
        for c in citations:
            document = c.get("document")
            if not isinstance(document, str) or not document:
                out.append(c)
                continue
            chunk = c.get("chunk")
            chunk = chunk if isinstance(chunk, int) and not isinstance(chunk, bool) else None
            out.append({**c, "source_url": await self.mint(document, chunk, language)})
        return out

    async def check(
        self,
        document: str,
        chunk: int | None,
        language: str,
        expires: int,
        sig: str,
        now: float | None = None,
    ) -> Check:
        """ok, or why the link does not open: forged (any field changed) or expired."""
        wanted = _signature(await self._secret(), document, chunk, language, expires)
        if not hmac.compare_digest(wanted.encode(), sig.encode()):
            return "invalid"
        if expires < (now if now is not None else time.time()):
            return "expired"
        return "ok"
