"""Who is calling, by address, and the limits counted in this process per caller.

A key's rate limit is counted in Postgres across workers; the web chat's key is
shared by every visitor of a site, so its callers are also counted here, each by
its address (a proxy's forwarded address only when the proxy is listed in
API_TRUSTED_PROXIES: X-Forwarded-For is anyone's to write). Polls for staff
replies have their own, generous counts (per caller and per key).
"""

from __future__ import annotations

import ipaddress
import time
from collections import OrderedDict

from starlette.requests import Request

from bot.settings import Settings

MAX_COUNTED = 50_000  # callers remembered per window: a flood of addresses cannot grow it
Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def trusted_networks(settings: Settings) -> list[Network]:
    """API_TRUSTED_PROXIES as networks (a bare address is a network of one)."""
    return [ipaddress.ip_network(entry, strict=False) for entry in settings.trusted_proxies()]


def _within(address: str, networks: list[Network]) -> bool:
    try:
        ip = ipaddress.ip_address(address.strip())
    except ValueError:
        return False
    return any(ip in network for network in networks)


def client_address(request: Request, trusted: list[Network]) -> str:
    """The caller's address: the peer's, or, when the peer is a trusted proxy, the last
    X-Forwarded-For address that is not one (the proxies append, right to left)."""
    peer = request.client.host if request.client else "unknown"
    if not trusted or not _within(peer, trusted):
        return peer
    forwarded = [
        part.strip()
        for header in request.headers.getlist("x-forwarded-for")
        for part in header.split(",")
        if part.strip()
    ]
    for address in reversed(forwarded):
        if not _within(address, trusted):
            return address
    return peer


class MinuteCounts:
    """Calls per name in the current calendar minute (the window `retry_after` names)."""

    def __init__(self) -> None:
        self._minute = -1
        self._counts: OrderedDict[str, int] = OrderedDict()

    def seen(self, name: str) -> int:
        """How many calls of `name` were counted this minute (nothing is counted)."""
        if int(time.time() // 60) != self._minute:
            return 0
        return self._counts.get(name, 0)

    def over(self, name: str, limit: int) -> bool:
        """Count one call of `name`; True when it is over `limit` this minute (0: none)."""
        if limit <= 0:
            return False
        minute = int(time.time() // 60)
        if minute != self._minute:
            self._minute = minute
            self._counts.clear()
        count = self._counts.get(name, 0) + 1
        self._counts[name] = count
        self._counts.move_to_end(name)
        while len(self._counts) > MAX_COUNTED:
            self._counts.popitem(last=False)
        return count > limit
