"""The console's identity-provider settings: off unless OIDC_ISSUER is set, refused at
start in one line when set without what the sign-in needs, and a person's open session
held only while the settings still make them an admin."""

from __future__ import annotations

from typing import Any

import pytest

from bot.core.admin.api_keys import ApiKeys
from bot.core.admin.audit import AuditLog
from bot.core.admin.console_sessions import ConsoleSessions
from bot.settings import ConfigurationError, Settings
from storage.db import Database

ISSUER = "https://login.example.org/realms/staff"


def _settings(**env: str) -> Settings:
    values: dict[str, Any] = dict(env)  # the settings' names, which Settings takes by alias
    return Settings(_env_file=None, **values)  # type: ignore[call-arg]


def test_the_identity_provider_sign_in_is_off_unless_an_issuer_is_set() -> None:
    assert _settings().oidc_on() is False
    assert _settings(OIDC_CLIENT_ID="ragbot", OIDC_ADMIN_EMAILS="a@example.org").oidc_on() is False


@pytest.mark.parametrize(
    ("env", "said"),
    [
        ({"OIDC_ISSUER": "login.example.org"}, "OIDC_ISSUER must be"),
        ({"OIDC_ISSUER": ISSUER, "OIDC_ADMIN_EMAILS": "a@example.org"}, "OIDC_CLIENT_ID"),
        ({"OIDC_ISSUER": ISSUER, "OIDC_CLIENT_ID": "ragbot"}, "who is an admin"),
        (
            {
                "OIDC_ISSUER": ISSUER,
                "OIDC_CLIENT_ID": "ragbot",
                "OIDC_ADMIN_GROUP": "ops",
                "OIDC_SCOPES": "email profile",
            },
            "OIDC_SCOPES must include openid",
        ),
    ],
)
def test_an_issuer_without_what_the_sign_in_needs_is_refused_in_one_line(
    env: dict[str, str], said: str
) -> None:
    with pytest.raises(ConfigurationError, match=said):
        _settings(**env).oidc_on()


def test_admin_emails_are_read_case_insensitively() -> None:
    settings = _settings(
        OIDC_ISSUER=ISSUER, OIDC_CLIENT_ID="ragbot", OIDC_ADMIN_EMAILS=" Ana@Example.org, li@x.org"
    )
    assert settings.oidc_on() is True
    assert settings.oidc_admins() == frozenset({"ana@example.org", "li@x.org"})


def test_a_persons_session_holds_only_while_the_settings_still_make_them_an_admin() -> None:
    base = {"OIDC_ISSUER": ISSUER, "OIDC_CLIENT_ID": "ragbot"}
    listed = _settings(**base, OIDC_ADMIN_EMAILS="ana@example.org")
    assert listed.oidc_still_admin("Ana@example.org") is True
    assert listed.oidc_still_admin("li@example.org") is False  # taken off the list
    assert _settings().oidc_still_admin("ana@example.org") is False  # the sign-in is off
    # a group's members are known at sign-in only: their session holds until it ends
    grouped = _settings(**base, OIDC_ADMIN_EMAILS="ana@example.org", OIDC_ADMIN_GROUP="ops")
    assert grouped.oidc_still_admin("li@example.org") is True


async def test_a_persons_open_session_ends_when_the_settings_no_longer_admit_them(
    db: Database,
) -> None:
    admitted = {"ana@example.org"}
    sessions = ConsoleSessions(
        db, ApiKeys(db), AuditLog(db), 8.0, ("public",), lambda email: email in admitted
    )
    opened = await sessions.open_person("ana@example.org")
    found = await sessions.find(opened.session_id)
    assert found is not None and found.email == "ana@example.org" and found.grant.admin
    assert "public" in found.grant.collections
    admitted.clear()  # a restart with the email taken off OIDC_ADMIN_EMAILS
    assert await sessions.find(opened.session_id) is None
    off = ConsoleSessions(db, ApiKeys(db), AuditLog(db), 8.0)  # OIDC_ISSUER unset
    assert await off.find(opened.session_id) is None
