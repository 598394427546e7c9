"""What a chat platform hands the core when it plugs in: one description, one call.

An adapter (Slack, Telegram, the HTTP API) builds a `Platform` and passes it to
`ServingCore.plug`; the core then knows how that platform's deliveries are shown,
how its sends are made, how its upload results reach admins and how an audience
left pending is learned. Hand-off cards are not part of it: the runtime knows every
platform's cards, since a case asked on one platform may be shown in a staff room
on another.

The names those hooks take, return and raise are here too (a delivery, an outbox
row, retry-or-give-up, the stored form of a send's audience), so an adapter needs
nothing from the core's rooms beyond this module, `bot.core.messages` and
`ServingCore`'s methods.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.core.delivery.envelopes import FileFetcher, access_facts, audience_from
from bot.core.delivery.inbox import Delivery, Renderer
from bot.core.delivery.outbox import Channel, Pending, RetryLater, Undeliverable
from bot.core.delivery.pending_audiences import AudienceResolver
from bot.core.messages import Notifier

# what an adapter's renderer and channel are handed, what a channel's send may raise,
# and how an adapter reads the access facts an envelope carries
__all__ = [
    "AudienceResolver",
    "Channel",
    "Delivery",
    "FileFetcher",
    "Notifier",
    "Pending",
    "Platform",
    "Renderer",
    "RetryLater",
    "Undeliverable",
    "access_facts",
    "audience_from",
]


@dataclass(frozen=True)
class Platform:
    """One chat platform's hooks into the core; the optional ones it may lack."""

    name: str
    render: Renderer
    channel: Channel
    fetch_file: FileFetcher | None = None
    notify: Notifier | None = None
    resolve_audience: AudienceResolver | None = None
