"""JOB_DB_WAIT_SECONDS: how soon the job worker notices a lost database, within bounds."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from tests.support.core_fixtures import settings_for_tests


def test_the_default_waits_as_before() -> None:
    assert settings_for_tests().job_db_wait_s == 30.0


@pytest.mark.parametrize("value", ["inf", "nan", "0.001", "0", "-5", "601", "abc"])
def test_a_wait_that_would_never_notice_or_restart_in_a_loop_is_refused(value: str) -> None:
    # infinity: a lost database never noticed; a thousandth of a second: restart loops
    with pytest.raises(ValidationError, match="JOB_DB_WAIT_SECONDS"):
        settings_for_tests(JOB_DB_WAIT_SECONDS=value)


def test_a_short_wait_is_accepted() -> None:
    assert settings_for_tests(JOB_DB_WAIT_SECONDS="2").job_db_wait_s == 2.0
