"""Langfuse traces of turns, feedback scores and ingestion jobs, through the langfuse SDK.

One trace per turn, its id the turn's trace id (stored with the messages, so a
later vote finds it): a root span `turn` opened here, the graph under it
through the SDK's LangChain callback (one span per node with its timing, LLM
generations with model and token usage), and at the end a `summary` event
that carries the trace's tags and metadata. The SDK exports in the background
(OpenTelemetry batch processor, score queue): nothing here waits on the
network, and without keys no client exists, so nothing is sent.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from bot.telemetry.export_log import quiet_export_failures
from bot.telemetry.pseudonyms import Pseudonyms
from bot.telemetry.trim import trim_for_trace
from graph.privacy import install_log_masking

logger = logging.getLogger(__name__)
EXPORT_TIMEOUT_S = 5
SHUTDOWN_WAIT_S = 3.0  # what a stopping process gives the last traces (Langfuse may hang)
TRACE_NAME = "turn"
FEEDBACK_SCORE = "user_feedback"


def _short(value: Any) -> str:
    """A propagated metadata value (the SDK limits them to 200 characters)."""
    return str(value)[:200]


class TurnTrace:
    """One turn's trace: the callbacks for the graph run, then `finish` with the outcome."""

    def __init__(self, root: Any = None, handler: Any = None) -> None:
        self._root = root
        self.callbacks: list[Any] = [handler] if handler is not None else []
        self.finished = False  # a turn has one outcome: later `finish` calls do nothing

    def finish(
        self, platform: str, summary: dict[str, Any], answer: str | None, error: str | None = None
    ) -> None:
        """Close the trace: tags platform and intent, the turn summary as metadata (once)."""
        if self.finished:
            return
        self.finished = True
        if self._root is None:
            return
        from langfuse import propagate_attributes

        intent = summary.get("intent") or ("error" if error else "unknown")
        try:
            with propagate_attributes(
                tags=[platform, str(intent)],
                metadata={
                    key: _short(summary[key])
                    for key in ("intent", "language", "is_out_of_scope", "guard_reason", "error")
                    if summary.get(key) is not None
                },
            ):
                self._root.create_event(name="summary", metadata=summary)
            self._root.update(
                output=answer,
                metadata=summary,
                level="ERROR" if error else None,
                status_message=error,
            ).end()
        except Exception:  # tracing must never cost the user the answer
            logger.warning("could not finish the trace of a turn", exc_info=True)


class Telemetry:
    """Turn traces, feedback scores and ingestion traces; inert without Langfuse keys."""

    def __init__(
        self, pseudonyms: Pseudonyms, client: Any = None, public_key: str | None = None
    ) -> None:
        self.pseudonyms = pseudonyms
        self._client = client
        self._public_key = public_key  # the SDK keeps one client per public key

    @classmethod
    def connect(
        cls,
        pseudonyms: Pseudonyms,
        public_key: str | None,
        secret_key: str | None,
        host: str,
        environment: str | None = None,
    ) -> Telemetry:
        """A Langfuse client when both keys are set (nothing is sent otherwise)."""
        if not (public_key and secret_key):
            return cls(pseudonyms)
        from langfuse import Langfuse
        from opentelemetry.sdk.trace import TracerProvider

        quiet_export_failures()
        # importing the SDK gave httpx's logger a handler of its own: mask there too
        install_log_masking(logging.getLogger("httpx"))
        client = Langfuse(
            public_key=public_key,
            secret_key=secret_key,
            base_url=host,
            environment=environment,
            timeout=EXPORT_TIMEOUT_S,
            mask=trim_for_trace,
            # our own provider: tracing stays out of any global OpenTelemetry set-up, and
            # no exit hook of its own that could hold a stopping process on a hung Langfuse
            tracer_provider=TracerProvider(shutdown_on_exit=False),
        )
        return cls(pseudonyms, client, public_key)

    @property
    def enabled(self) -> bool:
        """True when traces are sent."""
        return self._client is not None

    def start_turn(
        self,
        trace_id: str,
        platform: str,
        conversation: str | None,
        user: str | None,
        question: str,
    ) -> TurnTrace:
        """Open a turn's trace (`question` is the masked text)."""
        if self._client is None:
            return TurnTrace()
        from langfuse import propagate_attributes
        from langfuse.langchain import CallbackHandler

        try:
            with propagate_attributes(
                user_id=self.pseudonyms.user(platform, user),
                session_id=self.pseudonyms.conversation(platform, conversation),
                tags=[platform],
                trace_name=TRACE_NAME,
                metadata={"platform": platform},
            ):
                root = self._client.start_observation(
                    trace_context={"trace_id": trace_id}, name=TRACE_NAME, input=question
                )
            handler = CallbackHandler(
                public_key=self._public_key,
                trace_context={"trace_id": trace_id, "parent_span_id": root.id},
            )
        except Exception:
            logger.warning("could not open the trace of a turn", exc_info=True)
            return TurnTrace()
        return TurnTrace(root, handler)

    def feedback(
        self, trace_id: str | None, message_id: int, platform: str, user: str, helpful: bool
    ) -> None:
        """A vote as a Langfuse score on the answer's trace (a changed vote replaces it)."""
        if self._client is None or not trace_id:
            return
        voter = self.pseudonyms.user(platform, user) or "anonymous"
        try:
            self._client.create_score(
                name=FEEDBACK_SCORE,
                value=1 if helpful else 0,
                data_type="BOOLEAN",
                trace_id=trace_id,
                # one score per (answer, voter): Langfuse upserts by id
                score_id=f"fb-{message_id}-{voter}",
                metadata={"platform": platform, "user": voter, "message_id": message_id},
            )
        except Exception:
            logger.warning("could not send a feedback score", exc_info=True)

    def ingestion(self, platform: str, user: str | None, details: dict[str, Any]) -> None:
        """One trace per ingestion job: document, chunks, seconds, result."""
        if self._client is None:
            return
        from langfuse import propagate_attributes

        try:
            with propagate_attributes(
                user_id=self.pseudonyms.user(platform, user),
                tags=["ingestion", platform],
                trace_name="ingestion",
            ):
                span = self._client.start_observation(
                    name="ingestion",
                    input={k: details.get(k) for k in ("file", "title", "collection")},
                    metadata=details,
                )
            failed = details.get("status") == "failed"
            span.update(
                output={k: details.get(k) for k in ("status", "chunks", "seconds", "reason")},
                level="ERROR" if failed else None,
                status_message=details.get("reason") if failed else None,
            ).end()
        except Exception:
            logger.warning("could not trace an ingestion job", exc_info=True)

    def flush(self) -> None:
        """Send what is buffered (blocking: call it in a thread)."""
        if self._client is not None:
            self._client.flush()

    def shutdown(self, wait_s: float = SHUTDOWN_WAIT_S) -> bool:
        """Flush and stop the SDK, waiting at most `wait_s` (blocking: call it in a thread).

        False when Langfuse did not take the last traces in time: they are dropped
        rather than holding up a process that is stopping.
        """
        if self._client is None:
            return True
        # a daemon thread: a hung export can neither block us nor the interpreter's exit
        done = threading.Thread(target=self._client.shutdown, name="langfuse-shutdown", daemon=True)
        done.start()
        done.join(wait_s)
        if done.is_alive():
            logger.warning("Langfuse did not take the last traces within %.0f s; dropped", wait_s)
            return False
        return True
