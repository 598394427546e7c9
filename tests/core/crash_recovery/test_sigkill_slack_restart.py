"""SIGKILL mid-turn in a Slack thread: a restarted `ragbot serve` finishes the message."""

from __future__ import annotations

import time
from pathlib import Path

from tests.support.crash_recovery import (
    common_env,
    kill,
    log_file,
    logs,
    slack_answers,
    slack_env,
    slack_post,
)
from tests.support.processes import wait_for
from tests.support.seen import slack_shown


def test_sigkill_then_a_restarted_worker_finishes_the_dead_workers_message(
    passport: None, database_url: str, slack, model, start, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    """Slack over HTTP: the dead worker had opened its stream; the restarted one answers in
    the thread once, and the dead worker's "working…" message does not stay behind."""
    thinker = model([60.0])
    env = common_env(database_url, thinker, **slack_env(slack))
    first, first_port = start("serve", _output=log_file(tmp_path, "first"), **env)
    assert slack_post(first_port, "Ev1", "2.1", "passport fee?") == 200
    assert thinker.asked.wait(30), logs(tmp_path)
    assert slack_shown(slack, "C1", "2.1"), "the turn had shown that it started"
    kill(first)
    start("serve", _output=log_file(tmp_path, "restarted"), **env)
    wait_for(lambda: slack_answers(slack, "2.1"), timeout=30)
    time.sleep(4)  # more than a lease and a sweep
    answers = slack_answers(slack, "2.1")
    assert len(answers) == 1, (slack_shown(slack, "C1", "2.1"), logs(tmp_path))
    assert "1,300 dollars" in answers[0]
    left = slack_shown(slack, "C1", "2.1")
    assert list(left.values()) == answers, ("a half-made message stayed", left)
