"""A small fake of Confluence's REST API (v1) on 127.0.0.1 for the Confluence source's tests.

It speaks what atlassian-python-api's client asks for, below a Cloud-like /wiki base:
`GET /wiki/rest/api/space/{key}`, `GET /wiki/rest/api/content?spaceKey=&type=page&start=
&limit=&expand=version` (paged: start/limit/size and a `_links.next` relative to the
base, at most `page_size` results a request whatever the limit asked) and
`GET /wiki/rest/api/content/{id}?expand=body.storage,version`. Basic auth (an e-mail and
an API token) or a bearer token; a wrong one gets 401. Requests are logged.
"""

from __future__ import annotations

import base64
import json
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

from tests.support.local_server import send_json, serve, shutdown

USER, API_TOKEN, PAT = "ops@example.org", "cloud-api-token", "dc-personal-token"
CONTEXT = "/wiki"


class LocalConfluence:
    """Spaces of pages (id → title, storage body, version) served as Confluence does."""

    def __init__(self, space: str = "ENG", *, page_size: int = 2) -> None:
        self.space = space
        self.page_size = page_size
        self.pages: dict[str, dict[str, Any]] = {}
        self.throttle: list[str] = []  # Retry-After values of the next 429s, in turn
        self.broken: set[str] = set()  # page ids whose body is answered 500
        self.next_link: str | None = None  # a listing's next link, instead of its own
        self.log: list[tuple[str, int]] = []  # (path with query, status)
        self.lock = threading.Lock()
        self.server: ThreadingHTTPServer | None = None
        self.root = ""
        self.base = ""

    def page(self, page_id: str, title: str, body: str) -> None:
        """Add a page, or change one (its version goes up)."""
        with self.lock:
            old = self.pages.get(page_id)
            version = old["version"] + 1 if old is not None else 1
            self.pages[page_id] = {"title": title, "body": body, "version": version}

    def drop(self, page_id: str) -> None:
        """Delete a page (gone from the listing, 404 for its id)."""
        with self.lock:
            self.pages.pop(page_id, None)

    def bodies_fetched(self) -> list[str]:
        """The ids whose body was asked for, in order."""
        with self.lock:
            return [
                urlsplit(p).path.rsplit("/", 1)[1]
                for p, s in self.log
                if "/content/" in p and s == 200
            ]

    def statuses(self) -> Counter[int]:
        """How many requests got each status."""
        with self.lock:
            return Counter(s for _, s in self.log)

    def clear_log(self) -> None:
        """Forget the requests so far."""
        with self.lock:
            self.log.clear()

    def start(self) -> str:
        """Serve; the site's base URL (…/wiki)."""
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                status, body, headers = fake.answer(self.path, self.headers)
                with fake.lock:
                    fake.log.append((self.path, status))
                if headers:
                    self.send_response(status)
                    for name, value in headers.items():
                        self.send_header(name, value)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                else:
                    send_json(self, status, body)

            def log_message(self, *args: Any) -> None:
                return

        self.server, self.root = serve(Handler)
        self.base = self.root + CONTEXT
        return self.base

    def stop(self) -> None:
        """Stop serving."""
        shutdown(self.server)

    def _authorised(self, headers: Any) -> bool:
        given = headers.get("Authorization", "")
        basic = base64.b64encode(f"{USER}:{API_TOKEN}".encode()).decode()
        return given in (f"Basic {basic}", f"Bearer {PAT}")

    def answer(self, target: str, headers: Any) -> tuple[int, bytes, dict[str, str]]:
        """Status, JSON body and extra headers (none: a JSON answer) for a GET."""
        parts = urlsplit(target)
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        with self.lock:
            if self.throttle:
                return 429, b'{"message": "slow down"}', {"Retry-After": self.throttle.pop(0)}
            if not self._authorised(headers):
                return 401, b'{"message": "Unauthorized"}', {"Content-Type": "application/json"}
            path = parts.path.removeprefix(CONTEXT)
            if path == f"/rest/api/space/{self.space}":
                return 200, _json({"key": self.space, "name": "Engineering"}), {}
            if path.startswith("/rest/api/space/"):
                return 404, _json({"message": "No space"}), {}
            if path == "/rest/api/content":
                return 200, _json(self._listing(query)), {}
            if path.startswith("/rest/api/content/"):
                if path.rsplit("/", 1)[1] in self.broken:
                    return 500, _json({"message": "Internal Server Error"}), {}
                found = self.pages.get(path.rsplit("/", 1)[1])
                if found is None:
                    return 404, _json({"message": "No content"}), {}
                return 200, _json(self._content(path.rsplit("/", 1)[1], found, body=True)), {}
        return 404, _json({"message": "not found"}), {}

    def _listing(self, query: dict[str, str]) -> dict[str, Any]:
        if query.get("spaceKey") != self.space or query.get("type") != "page":
            return {"results": [], "start": 0, "limit": 0, "size": 0, "_links": {}}
        start = int(query.get("start", "0"))
        limit = min(int(query.get("limit", "25")), self.page_size)
        ids = sorted(self.pages, key=int)
        chosen = ids[start : start + limit]
        links: dict[str, str] = {"base": self.base, "context": CONTEXT}
        if start + limit < len(ids):
            following = {**query, "start": str(start + limit), "limit": str(limit)}
            links["next"] = self.next_link or "/rest/api/content?" + urlencode(following)
        return {
            "results": [self._content(i, self.pages[i], body=False) for i in chosen],
            "start": start,
            "limit": limit,
            "size": len(chosen),
            "_links": links,
        }

    def _content(self, page_id: str, page: dict[str, Any], *, body: bool) -> dict[str, Any]:
        slug = page["title"].replace(" ", "+")
        found: dict[str, Any] = {
            "id": page_id,
            "type": "page",
            "status": "current",
            "title": page["title"],
            "version": {"number": page["version"], "when": f"2026-11-{page['version']:02d}"},
            "_links": {"webui": f"/spaces/{self.space}/pages/{page_id}/{slug}"},
        }
        if body:
            found["body"] = {"storage": {"value": page["body"], "representation": "storage"}}
        return found

    def url(self, page_id: str) -> str:
        """The web link a citation of the page carries."""
        with self.lock:
            slug = self.pages[page_id]["title"].replace(" ", "+")
        return f"{self.base}/spaces/{self.space}/pages/{page_id}/{slug}"


def _json(data: dict[str, Any]) -> bytes:
    return json.dumps(data).encode()
