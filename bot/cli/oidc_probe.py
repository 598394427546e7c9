"""`ragbot doctor`'s check of the admin console's identity provider (OIDC_ISSUER): its
discovery document is read and checked as a sign-in reads it."""

from __future__ import annotations

from bot.cli.llm_probe import Finding
from bot.core.admin.console_oidc import ProviderUnavailableError, read_discovery
from bot.settings import ConfigurationError, Settings


async def probe_oidc(settings: Settings) -> list[Finding]:
    """One line: the discovery document names the issuer and its endpoints, or what is
    wrong. A warning, not a failure: admin API keys still sign in to the console."""
    try:
        settings.oidc_on()
    except ConfigurationError as exc:
        return [Finding("warn", f"console sign-in through the identity provider: {exc}")]
    issuer = settings.oidc_issuer.strip()
    try:
        document = await read_discovery(issuer)
    except ProviderUnavailableError as exc:
        return [
            Finding(
                "warn",
                f"OIDC_ISSUER's discovery document cannot be used ({exc}): the console's"
                " sign-in with the identity provider fails; admin API keys still sign in",
            )
        ]
    return [
        Finding(
            "ok",
            f"identity provider {issuer} publishes its discovery document (sign-in at"
            f" {document['authorization_endpoint']})",
        )
    ]
