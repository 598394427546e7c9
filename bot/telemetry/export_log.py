"""Trace-export failures are logged once an hour, not once per batch or per turn."""

from __future__ import annotations

import logging
import time

# where the Langfuse SDK and its OpenTelemetry exporter report failed exports
EXPORT_LOGGERS = (
    "bot.telemetry.tracer",
    "langfuse",
    "opentelemetry.exporter.otlp.proto.http.trace_exporter",
    "opentelemetry.exporter.otlp.proto.http._common",
    "opentelemetry.sdk.trace.export",
    "opentelemetry.sdk._shared_internal",
)
QUIET_SECONDS = 3600.0


class OncePerPeriod(logging.Filter):
    """Lets the first warning through, then nothing more for `period` seconds."""

    def __init__(self, period: float = QUIET_SECONDS) -> None:
        super().__init__()
        self._period = period
        self._last: float | None = None

    def filter(self, record: logging.LogRecord) -> bool:
        """True for the first record of a quiet period (debug records always pass)."""
        if record.levelno < logging.WARNING:
            return True
        now = time.monotonic()
        if self._last is not None and now - self._last < self._period:
            return False
        self._last = now
        record.msg = f"trace export to Langfuse failing: {record.getMessage()}"
        record.msg += f" (turns go on; further failures are not logged for {self._period:.0f} s)"
        record.args, record.exc_info, record.exc_text = None, None, None  # one line
        return True


def quiet_export_failures(period: float = QUIET_SECONDS) -> OncePerPeriod:
    """Install one shared filter on every export logger; returns it (tests reset it)."""
    shared = OncePerPeriod(period)
    for name in EXPORT_LOGGERS:
        logger = logging.getLogger(name)
        for old in [f for f in logger.filters if isinstance(f, OncePerPeriod)]:
            logger.removeFilter(old)
        logger.addFilter(shared)
    return shared
