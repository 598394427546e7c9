"""How a turn ended, decided in one place: a state machine fed by what happened.

The turn's stream (bot.turn.service) only reports events to it: the graph ran to its
end, the asker pressed Stop, a store went through, something raised, the caller went
away, the process's close cancelled a store or cut its settling short. The table says
where each leads; the final state alone decides what is stored and traced
(bot.turn.settling) and what the asker is shown (an answer, or an error reply).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class State(enum.Enum):
    """Where a turn is on its way to its end."""

    RUNNING = "running"  # the graph runs
    STORING = "storing"  # its answer is being stored; the asker waits for it
    STORING_STOPPED = "storing_stopped"  # Stop pressed: what was written is being stored
    LEFT_STORING = "left_storing"  # the caller went meanwhile: that store runs on, alone
    # final
    ANSWERED = "answered"  # the answer stored, traced, shown
    STOPPED = "stopped"  # the stopped answer stored, traced (shown if the asker stayed)
    FAILED = "failed"  # the graph or a store raised: the question kept unfinished, said
    GONE = "gone"  # the caller went before an answer was stored: kept as cancelled
    CUT = "cut"  # the process's close cut the settling short: traced, nothing written


class Event(enum.Enum):
    """What the stream (or, once its caller went, the settling) saw happen."""

    GRAPH_ENDED = "graph_ended"  # the graph ran to its end
    STOP = "stop"  # the asker pressed Stop
    STORED = "stored"  # the answer (or the stopped answer) was stored
    ERROR = "error"  # the graph or a store raised
    LEFT = "left"  # the caller stopped listening (cancelled, or closed the stream)
    STORE_CANCELLED = "store_cancelled"  # the stopped answer's store was cancelled
    CLOSED = "closed"  # the wait for that store was cut short: the process is closing


FINAL = frozenset({State.ANSWERED, State.STOPPED, State.FAILED, State.GONE, State.CUT})
ANSWER_KEPT = frozenset({State.ANSWERED, State.STOPPED})  # traced with the answer
QUESTION_KEPT = frozenset({State.FAILED, State.GONE})  # the question stored as unfinished

TRANSITIONS: dict[tuple[State, Event], State] = {
    (State.RUNNING, Event.GRAPH_ENDED): State.STORING,
    (State.RUNNING, Event.STOP): State.STORING_STOPPED,
    (State.RUNNING, Event.ERROR): State.FAILED,
    (State.RUNNING, Event.LEFT): State.GONE,
    (State.STORING, Event.STORED): State.ANSWERED,
    (State.STORING, Event.ERROR): State.FAILED,
    # a COMMIT that landed anyway keeps the answer: the unfinished question is not added
    (State.STORING, Event.LEFT): State.GONE,
    (State.STORING_STOPPED, Event.STORED): State.STOPPED,
    (State.STORING_STOPPED, Event.ERROR): State.FAILED,
    # the store is not cancelled with its caller: its outcome is the turn's
    (State.STORING_STOPPED, Event.LEFT): State.LEFT_STORING,
    (State.LEFT_STORING, Event.STORED): State.STOPPED,
    (State.LEFT_STORING, Event.ERROR): State.FAILED,
    (State.LEFT_STORING, Event.STORE_CANCELLED): State.GONE,
    (State.LEFT_STORING, Event.CLOSED): State.CUT,
    # a caller going after the end changes nothing: a turn has one outcome
    **{(final, Event.LEFT): final for final in FINAL},
}


class TransitionError(ValueError):
    """An event the turn's state cannot take (a bug in whoever reported it)."""


def advance(state: State, event: Event) -> State:
    """The state `event` leads to from `state` (TRANSITIONS); TransitionError if none."""
    try:
        return TRANSITIONS[(state, event)]
    except KeyError:
        raise TransitionError(f"a turn {state.value} cannot take {event.value}") from None


@dataclass
class Ending:
    """One turn's state, moved on by the events reported to it."""

    state: State = State.RUNNING
    error: str | None = None  # the type of what raised (Event.ERROR)

    def report(self, event: Event, error: str | None = None) -> State:
        """Move on by `event` (with the error's type for Event.ERROR); the new state."""
        self.state = advance(self.state, event)
        if event is Event.ERROR:
            self.error = error or "Exception"
        return self.state

    @property
    def final(self) -> bool:
        """Whether the turn has ended (nothing it is told changes how)."""
        return self.state in FINAL

    @property
    def reason(self) -> str | None:
        """Why the turn did not end with an answer: the error's type, or `cancelled`;
        None when it did (or has not ended)."""
        if self.state is State.FAILED:
            return self.error
        if self.state in (State.GONE, State.CUT):
            return "cancelled"
        return None
