"""The turn's ending as a state machine (bot.turn.ending): the whole transition table,
pure (what each ending stores, traces and shows: tests/service/test_turn_endings.py)."""

from __future__ import annotations

import itertools

import pytest

from bot.turn.ending import (
    ANSWER_KEPT,
    FINAL,
    QUESTION_KEPT,
    TRANSITIONS,
    Ending,
    Event,
    State,
    TransitionError,
    advance,
)

S, E = State, Event
# (state, event) → next state: every transition there is; any other pair is refused
TABLE = [
    (S.RUNNING, E.GRAPH_ENDED, S.STORING),
    (S.RUNNING, E.STOP, S.STORING_STOPPED),
    (S.RUNNING, E.ERROR, S.FAILED),
    (S.RUNNING, E.LEFT, S.GONE),
    (S.STORING, E.STORED, S.ANSWERED),
    (S.STORING, E.ERROR, S.FAILED),
    (S.STORING, E.LEFT, S.GONE),
    (S.STORING_STOPPED, E.STORED, S.STOPPED),
    (S.STORING_STOPPED, E.ERROR, S.FAILED),
    (S.STORING_STOPPED, E.LEFT, S.LEFT_STORING),
    (S.LEFT_STORING, E.STORED, S.STOPPED),
    (S.LEFT_STORING, E.ERROR, S.FAILED),
    (S.LEFT_STORING, E.STORE_CANCELLED, S.GONE),
    (S.LEFT_STORING, E.CLOSED, S.CUT),
    # a caller going after the end changes nothing
    (S.ANSWERED, E.LEFT, S.ANSWERED),
    (S.STOPPED, E.LEFT, S.STOPPED),
    (S.FAILED, E.LEFT, S.FAILED),
    (S.GONE, E.LEFT, S.GONE),
    (S.CUT, E.LEFT, S.CUT),
]
ALLOWED = {(state, event) for state, event, _ in TABLE}


@pytest.mark.parametrize(("state", "event", "after"), TABLE)
def test_each_event_leads_where_the_table_says(state: State, event: Event, after: State) -> None:
    assert advance(state, event) is after


@pytest.mark.parametrize(
    ("state", "event"),
    [pair for pair in itertools.product(State, Event) if pair not in ALLOWED],
)
def test_any_other_event_is_refused(state: State, event: Event) -> None:
    with pytest.raises(TransitionError):
        advance(state, event)


def test_the_table_is_the_whole_machine() -> None:
    assert set(TRANSITIONS) == ALLOWED and len(TABLE) == len(ALLOWED)


def _reachable(start: State) -> set[State]:
    reached, frontier = {start}, [start]
    while frontier:
        state = frontier.pop()
        for (source, _), after in TRANSITIONS.items():
            if source is state and after not in reached:
                reached.add(after)
                frontier.append(after)
    return reached


def test_every_state_is_reached_and_every_unfinished_one_can_end() -> None:
    assert _reachable(State.RUNNING) == set(State)
    for state in set(State) - FINAL:
        assert _reachable(state) & FINAL
    # a final state takes nothing but a caller going, and stays
    for (source, event), after in TRANSITIONS.items():
        if source in FINAL:
            assert event is Event.LEFT and after is source


def test_what_each_end_keeps() -> None:
    assert {State.ANSWERED, State.STOPPED} == ANSWER_KEPT  # traced with the answer
    assert {State.FAILED, State.GONE} == QUESTION_KEPT  # the question kept unfinished
    assert {State.CUT} == FINAL - ANSWER_KEPT - QUESTION_KEPT  # traced, nothing written


@pytest.mark.parametrize(
    ("events", "state", "reason"),
    [
        ([E.GRAPH_ENDED, E.STORED], S.ANSWERED, None),
        ([E.STOP, E.STORED, E.LEFT], S.STOPPED, None),
        ([E.GRAPH_ENDED, E.ERROR], S.FAILED, "ConnectionError"),
        ([E.STOP, E.LEFT, E.ERROR], S.FAILED, "ConnectionError"),
        ([E.LEFT], S.GONE, "cancelled"),
        ([E.STOP, E.LEFT, E.STORE_CANCELLED], S.GONE, "cancelled"),
        ([E.STOP, E.LEFT, E.CLOSED], S.CUT, "cancelled"),
        ([E.STOP, E.LEFT], S.LEFT_STORING, None),
    ],
)
def test_an_ending_follows_its_events_and_says_why_there_is_no_answer(
    events: list[Event], state: State, reason: str | None
) -> None:
    ending = Ending()
    for event in events:
        ending.report(event, "ConnectionError" if event is E.ERROR else None)
    assert ending.state is state
    assert ending.reason == reason
    assert ending.final is (state in FINAL)
