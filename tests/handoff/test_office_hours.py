"""Office hours and who counts as staff: table tests."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bot.core.audiences import Audiences
from bot.core.handoff.cards import staff_buttons
from bot.core.handoff.desk import HandoffDesk
from bot.core.handoff.office_hours import OfficeHours
from bot.core.messages import Audience
from bot.settings import ConfigurationError
from tests.support.core_fixtures import settings_for_tests

MONDAY_10 = datetime(2026, 11, 23, 10, 0, tzinfo=UTC)  # a Monday
SATURDAY_10 = datetime(2026, 11, 28, 10, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("written", "now", "open_"),
    [
        ("", SATURDAY_10, True),  # no hours: always staffed
        ("Mon-Fri 08:30-17:30", MONDAY_10, True),
        ("Mon-Fri 08:30-17:30", SATURDAY_10, False),
        ("Mon-Fri 08:30-09:30", MONDAY_10, False),
        ("Mon-Fri 08:30-17:30; Sat 09:00-12:00", SATURDAY_10, True),
        ("09:00-11:00", SATURDAY_10, True),  # no days: every day
        ("Fri-Mon 09:00-11:00", MONDAY_10, True),  # a range across the week's end
    ],
)
def test_office_hours(written: str, now: datetime, open_: bool) -> None:
    assert OfficeHours.parse(written).is_open(now) is open_


def test_office_hours_follow_the_time_zone() -> None:
    # 10:00 UTC is 18:00 in Taipei: after hours there
    assert not OfficeHours.parse("Mon-Fri 08:30-17:30", "Asia/Taipei").is_open(MONDAY_10)


@pytest.mark.parametrize(
    ("written", "zone"),
    [("weekdays", "UTC"), ("Mon-Fry 08:00-12:00", "UTC"), ("25:00-26:00", "UTC"), ("", "Mars/X")],
)
def test_bad_office_hours_are_a_configuration_error(written: str, zone: str) -> None:
    with pytest.raises(ConfigurationError):
        OfficeHours.parse(written, zone)


class _Outbox:
    def __init__(self) -> None:
        self.after_sent: list[object] = []
        self.after_failed: list[object] = []


def desk(**values: str) -> HandoffDesk:
    settings = settings_for_tests(SLACK_BOT_TOKEN="x", HANDOFF_SLACK_CHANNEL="CSTAFF", **values)
    return HandoffDesk(None, settings, None, None, Audiences(settings), _Outbox())  # type: ignore[arg-type]


EMPLOYEE, GUEST = Audience(guest=False, verified=True), Audience(guest=True, verified=True)


@pytest.mark.parametrize(
    ("listed", "platform", "user", "audience", "in_room", "staff"),
    [
        ("", "slack", "U5", EMPLOYEE, True, True),  # no list: members of the room
        ("", "slack", "U5", EMPLOYEE, False, False),  # …acting from inside it
        ("", "slack", "U5", GUEST, True, False),  # never a guest
        ("slack:U5", "slack", "U5", EMPLOYEE, False, True),
        ("slack:U5", "slack", "U6", EMPLOYEE, True, False),  # a list: only those listed
        ("slack:U5", "telegram", "U5", EMPLOYEE, True, False),  # on their platform
        ("55", "telegram", "55", GUEST, False, True),  # a bare id: any platform
        ("slack:U5", "slack", "U-ADMIN", EMPLOYEE, False, True),  # admins are staff
    ],
)
def test_who_is_staff(
    listed: str, platform: str, user: str, audience: Audience, in_room: bool, staff: bool
) -> None:
    assert desk(HANDOFF_STAFF_USER_IDS=listed).is_staff(platform, user, audience, in_room) is staff


def test_case_buttons_follow_its_status() -> None:
    actions = lambda case: [b.value for b in staff_buttons(case, ("public", "internal"), "en")]  # noqa: E731
    assert actions({"id": 4, "status": "open"}) == ["4:claim", "4:close"]
    assert actions({"id": 4, "status": "claimed"}) == ["4:close"]
    assert actions({"id": 4, "status": "closed"}) == ["4:kb-public", "4:kb-internal"]
    assert actions({"id": 4, "status": "closed", "kb_upload_id": 9}) == []


def test_hand_off_is_off_without_a_staff_room() -> None:
    settings = settings_for_tests()
    off = HandoffDesk(None, settings, None, None, Audiences(settings), _Outbox())  # type: ignore[arg-type]
    assert not off.enabled


def test_members_of_the_room_answer_but_only_listed_staff_and_admins_publish() -> None:
    open_room = desk()
    assert open_room.is_staff("slack", "U5", EMPLOYEE, True)
    assert not open_room.may_publish("slack", "U5", EMPLOYEE)
    assert open_room.may_publish("slack", "U-ADMIN", EMPLOYEE)
    assert desk(HANDOFF_STAFF_USER_IDS="slack:U5").may_publish("slack", "U5", EMPLOYEE)


@pytest.mark.parametrize(
    ("values", "says"),
    [
        ({"HANDOFF_SLACK_CHANNEL": "#staff"}, "not a channel id"),
        ({"HANDOFF_TELEGRAM_CHAT_ID": "@staffgroup"}, "not a chat id"),
        ({"HANDOFF_SLACK_CHANNEL": "C0STAFF"}, "SLACK_BOT_TOKEN"),
    ],
)
def test_a_staff_room_that_cannot_work_stops_start_up(values: dict[str, str], says: str) -> None:
    with pytest.raises(ConfigurationError, match=says):
        settings_for_tests(**values).handoff_rooms()


def test_a_case_answer_goes_only_to_its_askers_collections() -> None:
    settings = settings_for_tests(SLACK_BOT_TOKEN="x", HANDOFF_SLACK_CHANNEL="CSTAFF")
    d = HandoffDesk(None, settings, None, None, Audiences(settings), _Outbox())  # type: ignore[arg-type]
    assert d.rooms.collections_for({"platform": "telegram"}) == ("public",)
    assert d.rooms.collections_for({"platform": "slack"}) == ("internal", "public")
