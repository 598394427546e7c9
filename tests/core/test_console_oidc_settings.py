"""The console's identity-provider settings: off unless OIDC_ISSUER is set, and refused at
start in one line when set without what the sign-in needs."""

from __future__ import annotations

import pytest

from bot.settings import ConfigurationError, Settings

ISSUER = "https://login.example.org/realms/staff"


def _settings(**env: str) -> Settings:
    return Settings(_env_file=None, **env)  # type: ignore[call-arg]


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
