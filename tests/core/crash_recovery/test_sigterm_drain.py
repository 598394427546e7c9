"""SIGTERM mid-turn: unhealthy at once, the turn answered, new events refused and not lost."""

from __future__ import annotations

import signal
import time
from pathlib import Path

from tests.support.crash_recovery import (
    common_env,
    log_file,
    logs,
    slack_answers,
    slack_env,
    slack_post,
)
from tests.support.processes import health, wait_for
from tests.support.seen import slack_shown


def test_sigterm_mid_turn_says_unhealthy_answers_the_turn_and_refuses_new_events(
    passport: None, database_url: str, slack, model, start, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    """SIGTERM while a turn runs: /healthz stops saying 200 at once, the turn is answered,
    an event posted during the drain is refused (Slack would redeliver it) and not lost."""
    thinker = model([4.0])  # the turn in flight needs 4 more seconds when SIGTERM comes
    env = common_env(database_url, thinker, **slack_env(slack))
    first, first_port = start("serve", _output=log_file(tmp_path, "first"), **env)
    assert slack_post(first_port, "Ev10", "3.1", "passport fee?") == 200
    assert thinker.asked.wait(30), logs(tmp_path)
    first.send_signal(signal.SIGTERM)
    signalled = time.monotonic()
    wait_for(lambda: health(first_port, timeout=1) != 200, timeout=1.0)
    assert time.monotonic() - signalled < 1.0
    status = slack_post(first_port, "Ev11", "3.2", "passport fee, again?")
    assert not 200 <= status < 300, f"an event acknowledged while draining ({status})"
    assert first.wait(timeout=40) == 0, logs(tmp_path)
    answers = slack_answers(slack, "3.1")  # answered before the process ended
    assert len(answers) == 1, (slack_shown(slack, "C1", "3.1"), logs(tmp_path))
    assert "Traceback" not in logs(tmp_path)
    # Slack redelivers the refused event; a live worker answers it, once
    _, second_port = start("serve", _output=log_file(tmp_path, "second"), **env)
    assert slack_post(second_port, "Ev11", "3.2", "passport fee, again?", retry=1) == 200
    wait_for(lambda: slack_answers(slack, "3.2"), timeout=30)
    time.sleep(4)  # more than a lease and a sweep
    assert len(slack_answers(slack, "3.2")) == 1, (slack_shown(slack, "C1", "3.2"), logs(tmp_path))
    assert len(slack_answers(slack, "3.1")) == 1
