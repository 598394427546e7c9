"""SIGKILL mid-turn behind one Telegram webhook: the other `ragbot serve` answers, once."""

from __future__ import annotations

import time
from pathlib import Path

from bot.core.delivery.inbox import LATE_AFTER_S
from tests.support import fake_telegram
from tests.support.crash_recovery import (
    LATE_NOTE,
    common_env,
    kill,
    log_file,
    logs,
    telegram_answers,
    telegram_env,
    telegram_post,
)
from tests.support.processes import wait_for
from tests.support.seen import telegram_shown


def test_sigkill_while_the_model_thinks_another_worker_answers_once(
    passport: None, database_url: str, tg, model, start, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    """Two workers behind one webhook; the one answering dies: the other answers, once."""
    thinker = model([60.0])  # the first worker's answer never comes
    env = common_env(database_url, thinker, **telegram_env(tg))
    first, first_port = start("serve", _output=log_file(tmp_path, "first"), **env)
    _, _ = start("serve", _output=log_file(tmp_path, "second"), **env)  # up before the crash
    asked_at = time.monotonic()
    assert telegram_post(first_port, fake_telegram.private_text(1, 701, "passport fee?")) == 200
    assert thinker.asked.wait(30), logs(tmp_path)
    kill(first)  # mid-turn: the model is still thinking
    wait_for(lambda: telegram_answers(tg, 701), timeout=30)
    waited = time.monotonic() - asked_at
    time.sleep(4)  # more than a lease and a sweep: a second answer would have come by now
    answers = telegram_answers(tg, 701)
    assert len(answers) == 1, (answers, logs(tmp_path))
    assert "1,300 dollars" in answers[0]
    assert (LATE_NOTE in answers[0]) == (waited >= LATE_AFTER_S)  # short waits get no note
    assert list(telegram_shown(tg, 701).values()) == answers  # nothing half-made left
