"""Signed, expiring links to a citation's source view, minted as an answer is delivered.

A link names a document, its collection, the cited chunk, the reader's language and
an expiry, with an HMAC over all five under the installation's own key (kept in the
database, made once). Links are minted only for collections the reader may read (an
answer is built from them; a reloaded conversation's are checked against the key's
collections again): the signature is the capability, so the view asks nothing else.
The view opens the document only while it is still in the signed collection: a
public link never opens a document of that title later stored in an internal one.
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
from collections.abc import Collection
from typing import Any, Literal
from urllib.parse import quote, urlencode

from bot.settings import Settings
from storage.db import Database
from storage.repositories import instance_secrets
from storage.repositories.source_texts import document_collections

SECRET_NAME = "source_link_key"
PATH = "/sources/"
ANCHOR = "cited"  # the marked passage's id: a link's fragment scrolls to it
LANGUAGES = ("en", "zh-hant", "zh-hans")
Check = Literal["ok", "expired", "invalid"]


def _signature(
    key: bytes, document: str, collection: str, chunk: int | None, language: str, expires: int
) -> str:
    """The link's HMAC-SHA256 (128 bits, URL-safe); JSON keeps the five fields apart."""
    message = json.dumps([document, collection, chunk, language, expires], ensure_ascii=False)
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
        self,
        document: str,
        collection: str,
        chunk: int | None,
        language: str,
        now: float | None = None,
    ) -> str:
        """The signed link to `document` (in `collection`) with `chunk` marked, in
        `language`'s script: under PUBLIC_BASE_URL when set, else relative to the server."""
        language = language if language in LANGUAGES else "en"
        expires = int(now if now is not None else time.time()) + self._days * 86400
        sig = _signature(await self._secret(), document, collection, chunk, language, expires)
        query: dict[str, str | int] = {
            "col": collection,
            "lang": language,
            "exp": expires,
            "sig": sig,
        }
        fragment = ""
        if chunk is not None:
            query, fragment = {"c": chunk, **query}, f"#{ANCHOR}"
        return f"{self._base}{PATH}{quote(document, safe='')}?{urlencode(query)}{fragment}"

    async def linked(
        self,
        citations: list[dict[str, Any]],
        language: str,
        readable: Collection[str] | None = None,
    ) -> list[dict[str, Any]]:
        """Each citation with `source_url`, its signed link (kept fields unchanged), for a
        document still published in a collection the reader may read (`readable`; None:
        the collections the answer was just built from). Any other citation gets none."""
        titles = [c["document"] for c in citations if isinstance(c.get("document"), str)]
        async with self._db.sessions() as session:
            collections = await document_collections(session, titles)
        out = []
        for c in citations:
            document = c.get("document")
            collection = collections.get(document) if isinstance(document, str) else None
            if collection is None or (readable is not None and collection not in readable):
                out.append({k: v for k, v in c.items() if k != "source_url"})
                continue
            chunk = c.get("chunk")
            chunk = chunk if isinstance(chunk, int) and not isinstance(chunk, bool) else None
            link = await self.mint(str(document), collection, chunk, language)
            out.append({**c, "source_url": link})
        return out

    async def check(
        self,
        document: str,
        collection: str,
        chunk: int | None,
        language: str,
        expires: int,
        sig: str,
        now: float | None = None,
    ) -> Check:
        """ok, or why the link does not open: forged (any field changed) or expired."""
        wanted = _signature(await self._secret(), document, collection, chunk, language, expires)
        if not hmac.compare_digest(wanted.encode(), sig.encode()):
            return "invalid"
        if expires < (now if now is not None else time.time()):
            return "expired"
        return "ok"
