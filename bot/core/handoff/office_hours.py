"""Office hours (HANDOFF_OFFICE_HOURS): when people answer hand-offs, to tell askers roughly when.

Written as `Mon-Fri 08:30-17:30`, several ranges joined with `;`
(`Mon-Fri 08:30-17:30; Sat 09:00-12:00`); the days are optional (every day).
Times are in HANDOFF_TIMEZONE. A malformed value is a configuration error at
start, never a surprise for the first asker.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, time
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from bot.settings import ConfigurationError

DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_RANGE = re.compile(
    r"^(?:(?P<d1>[a-z]{3})(?:\s*-\s*(?P<d2>[a-z]{3}))?\s+)?"
    r"(?P<h1>\d{1,2}):(?P<m1>\d{2})\s*-\s*(?P<h2>\d{1,2}):(?P<m2>\d{2})$"
)


@dataclass(frozen=True)
class OfficeHours:
    """Opening ranges per weekday (0 = Monday) in one time zone; none: always staffed."""

    ranges: tuple[tuple[frozenset[int], time, time], ...]
    zone: ZoneInfo
    written: str

    @classmethod
    def parse(cls, value: str, zone: str = "UTC") -> OfficeHours:
        """Read the setting; raise ConfigurationError saying what is wrong."""
        try:
            tz = ZoneInfo(zone.strip() or "UTC")
        except (ZoneInfoNotFoundError, ValueError) as exc:
            raise ConfigurationError(f"HANDOFF_TIMEZONE: unknown time zone {zone!r}") from exc
        ranges = []
        for part in (p.strip().lower() for p in value.split(";")):
            if not part:
                continue
            found = _RANGE.match(part)
            if found is None:
                raise ConfigurationError(
                    f"HANDOFF_OFFICE_HOURS: {part!r} is not like 'Mon-Fri 08:30-17:30'"
                )
            d1, d2 = found["d1"], found["d2"] or found["d1"]
            if (d1 and d1 not in DAYS) or (d2 and d2 not in DAYS):
                raise ConfigurationError(f"HANDOFF_OFFICE_HOURS: unknown day in {part!r}")
            first, last = (DAYS.index(d1), DAYS.index(d2)) if d1 else (0, 6)
            days = frozenset(d % 7 for d in range(first, last + (7 if last < first else 0) + 1))
            try:
                start = time(int(found["h1"]), int(found["m1"]))
                end = time(int(found["h2"]), int(found["m2"]))
            except ValueError as exc:
                raise ConfigurationError(f"HANDOFF_OFFICE_HOURS: bad time in {part!r}") from exc
            ranges.append((days, start, end))
        return cls(tuple(ranges), tz, value.strip())

    def is_open(self, now: datetime) -> bool:
        """True when `now` (aware) falls in a range; always True without ranges."""
        if not self.ranges:
            return True
        local = now.astimezone(self.zone)
        at = local.time()
        return any(
            local.weekday() in days and start <= at < end for days, start, end in self.ranges
        )
