"""A small website served on 127.0.0.1 for the sources' tests and bench: pages, a sitemap,
robots.txt with one path disallowed, ETags and 304s, and a log of what was asked."""

from __future__ import annotations

import hashlib
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.support.local_server import serve, shutdown

PAGE = (
    "<html><head><title>{title}</title></head><body>"
    '<nav><a href="/">Home</a> <a href="/about.html">About the city</a> Site menu</nav>'
    "<main><h1>{title}</h1><p>{body}</p>{links}</main>"
    "<footer>City footer: copyright and contact line</footer></body></html>"
)


class LocalSite:
    """Pages by path (title, text); `disallowed` paths are in robots.txt and the sitemap."""

    def __init__(self, *, sitemap: bool = True, disallow: str = "/private/") -> None:
        self.pages: dict[str, tuple[str, str, tuple[str, ...]]] = {}
        self.sitemap = sitemap
        self.disallow = disallow
        self.broken: set[str] = set()  # paths answered 500
        self.redirects: dict[str, str] = {}  # path -> where a 302 sends it
        self.log: list[tuple[str, int]] = []  # (path, status) of every request
        self.lock = threading.Lock()
        self.server: ThreadingHTTPServer | None = None
        self.root = ""

    def page(self, path: str, title: str, body: str, links: tuple[str, ...] = ()) -> None:
        """Add or change a page (linking to `links`, for a crawl)."""
        with self.lock:
            self.pages[path] = (title, body, links)

    def drop(self, path: str) -> None:
        """Remove a page (404 from now on, and out of the sitemap)."""
        with self.lock:
            self.pages.pop(path, None)

    def html(self, path: str) -> bytes:
        title, body, linked = self.pages[path]
        links = "".join(f'<a href="{p}">{p}</a> ' for p in linked)
        return PAGE.format(title=title, body=body, links=f"<p>{links}</p>").encode()

    def statuses(self, prefix: str = "/") -> Counter[int]:
        """How many requests for pages under `prefix` got each status."""
        with self.lock:
            return Counter(s for p, s in self.log if p.startswith(prefix) and p.endswith(".html"))

    def asked(self, path: str) -> bool:
        """Whether `path` was ever requested."""
        with self.lock:
            return any(p == path for p, _ in self.log)

    def clear_log(self) -> None:
        """Forget the requests so far."""
        with self.lock:
            self.log.clear()

    def start(self) -> str:
        """Serve the site; its root URL."""
        site = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                status, body, headers = site.answer(self.path, self.headers)
                with site.lock:
                    site.log.append((self.path, status))
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                return

        self.server, self.root = serve(Handler)
        return self.root

    def answer(self, path: str, headers: Any) -> tuple[int, bytes, dict[str, str]]:
        """Status, body and headers for a GET of `path`."""
        with self.lock:
            if path == "/robots.txt":
                lines = ["User-agent: *", f"Disallow: {self.disallow}"]
                if self.sitemap:
                    lines.append(f"Sitemap: {self.root}/sitemap.xml")
                return 200, "\n".join(lines).encode(), {"Content-Type": "text/plain"}
            if path == "/sitemap.xml":
                if not self.sitemap:
                    return 404, b"", {}
                urls = "".join(f"<url><loc>{self.root}{p}</loc></url>" for p in sorted(self.pages))
                xml = (
                    '<?xml version="1.0"?><urlset xmlns='
                    f'"http://www.sitemaps.org/schemas/sitemap/0.9">{urls}</urlset>'
                )
                return 200, xml.encode(), {"Content-Type": "application/xml"}
            if path in self.broken:
                return 500, b"server error", {"Content-Type": "text/plain"}
            if path in self.redirects:
                return 302, b"", {"Location": self.redirects[path]}
            if path not in self.pages:
                return 404, b"not found", {"Content-Type": "text/plain"}
            body = self.html(path)
        etag = '"' + hashlib.sha256(body).hexdigest()[:16] + '"'
        if headers.get("If-None-Match") == etag:
            return 304, b"", {"ETag": etag}
        return 200, body, {"Content-Type": "text/html; charset=utf-8", "ETag": etag}

    def stop(self) -> None:
        """Stop serving."""
        shutdown(self.server)
