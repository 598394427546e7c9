"""The deployment files refer to what the repository holds (Docker's daemon is not needed)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
DEPLOY = ROOT / "deploy"


def test_the_dockerfile_copies_files_that_exist_and_checks_healthz() -> None:
    text = (DEPLOY / "Dockerfile").read_text()
    copied = [shlex.split(line)[1:-1] for line in text.splitlines() if line.startswith("COPY ")]
    assert copied
    for sources in copied:
        for source in sources:
            assert (ROOT / source).exists(), f"COPY {source}: not in the repository"
    assert re.search(r"^USER (?!root)\w+", text, re.M)  # not root
    assert "/healthz" in text.partition("HEALTHCHECK")[2]
    assert 'CMD ["ragbot", "serve"]' in text


def test_the_compose_file_builds_this_dockerfile_on_postgres_with_pgvector() -> None:
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    services = compose["services"]
    build = services["ragbot"]["build"]
    assert (DEPLOY / build["context"] / build["dockerfile"]).resolve() == DEPLOY / "Dockerfile"
    assert "pgvector" in services["db"]["image"]
    assert services["ragbot"]["environment"]["DATABASE_URL"].startswith("postgresql+psycopg://")
    assert services["langfuse"]["profiles"] == ["langfuse"]
    for service in services.values():
        for volume in service.get("volumes", []):
            source = volume.split(":")[0]
            if source.startswith("."):
                assert (DEPLOY / source).exists(), f"{source}: not in deploy/"


def test_the_unit_runs_ragbot_serve_and_the_proxy_serves_every_route() -> None:
    unit = (DEPLOY / "ragbot.service").read_text()
    assert re.search(r"^ExecStart=\S+/ragbot serve$", unit, re.M)
    caddy = (DEPLOY / "Caddyfile").read_text()
    for route in ("/slack/events", "/telegram/webhook", "/api/*", "/v1/*", "/mcp", "/chat"):
        assert route in caddy
