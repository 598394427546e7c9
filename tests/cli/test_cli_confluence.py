"""`ragbot sources add confluence`: a local fake of Confluence's REST API, read through the
real atlassian-python-api client: added, synced, asked, changed, removed, refused."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from tests.support.local_confluence import API_TOKEN, PAT, USER, LocalConfluence

CLOUD = {"CONFLUENCE_USER": USER, "CONFLUENCE_API_TOKEN": API_TOKEN}
FAST = {**CLOUD, "SOURCE_REQUESTS_PER_SECOND": "1000"}  # the fake needs no politeness
LEAVE = (
    "<h1>Annual leave</h1><p>Every employee gets <strong>25 days</strong> of annual leave"
    " a year.</p><ul><li>Ask your manager two weeks ahead.</li><li>Unused days carry over"
    " until March.</li></ul>"
)
EXPENSES = "<h2>Travel</h2><p>Travel expenses are refunded within 14 days of the claim.</p>"
LAPTOPS = "<p>A new laptop is ordered through the service desk and arrives in five days.</p>"


@pytest.fixture
def wiki() -> Iterator[LocalConfluence]:
    """A space ENG of three pages, listed two a request (so the listing pages)."""
    served = LocalConfluence("ENG", page_size=2)
    served.page("101", "Annual leave", LEAVE)
    served.page("102", "Expenses", EXPENSES)
    served.page("103", "Laptops", LAPTOPS)
    served.start()
    yield served
    served.stop()


def _titles(cli) -> set[str]:  # type: ignore[no-untyped-def]
    return {row["title"] for row in json.loads(cli("docs", "list", "--json").stdout)}


def _row(cli, name: str) -> dict[str, object]:  # type: ignore[no-untyped-def]
    listed = cli("sources", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    return {row["name"]: row for row in json.loads(listed.stdout)}[name]


def test_a_confluence_space_syncs_only_what_changed(cli, wiki: LocalConfluence) -> None:  # type: ignore[no-untyped-def]
    added = cli(
        "sources", "add", "confluence", wiki.base, "--space", "ENG", "--name", "eng",
        "--collection", "internal", extra_env=CLOUD,
    )  # fmt: skip
    assert added.returncode == 0, added.stderr
    first = cli("sources", "sync", "eng", extra_env=FAST)
    assert first.returncode == 0, first.stdout + first.stderr
    assert "3 added, 0 changed, 0 removed, 0 unchanged, 0 failed" in first.stdout
    assert _titles(cli) == {"Annual leave", "Expenses", "Laptops"}
    assert sorted(wiki.bodies_fetched()) == ["101", "102", "103"]

    asked = cli("ask", "How many days of annual leave does an employee get?", "--json")
    assert asked.returncode == 0, asked.stderr
    turn = json.loads(asked.stdout)
    assert "25 days" in turn["answer"]
    assert turn["citations"][0]["document"] == "Annual leave"
    assert turn["citations"][0]["url"] == wiki.url("101")
    hits = json.loads(cli("search", "annual leave carry over", "--json").stdout)
    # headings and list items kept as Markdown
    assert any("Unused days carry over until March" in h["text"] for h in hits)

    # nothing changed: the listing only, no page's body fetched
    wiki.clear_log()
    again = cli("sources", "sync", "eng", extra_env=FAST)
    assert again.returncode == 0, again.stderr
    assert "0 added, 0 changed, 0 removed, 3 unchanged, 0 failed" in again.stdout
    assert wiki.bodies_fetched() == []

    # a page edited (its version goes up), one deleted: the edit now, the removal on
    # the second sync that misses it
    wiki.page("101", "Annual leave", LEAVE.replace("25 days", "28 days"))
    wiki.drop("103")
    wiki.clear_log()
    changed = cli("sources", "sync", "eng", extra_env=FAST)
    assert changed.returncode == 0, changed.stderr
    assert "0 added, 1 changed, 0 removed, 1 unchanged, 0 failed" in changed.stdout
    assert "1 missing once (kept)" in changed.stdout
    assert wiki.bodies_fetched() == ["101"]
    assert "Laptops" in _titles(cli)
    turn = json.loads(cli("ask", "How many days of annual leave?", "--json").stdout)
    assert "28 days" in turn["answer"] and "25 days" not in turn["answer"]

    gone = cli("sources", "sync", "eng", extra_env=FAST)
    assert gone.returncode == 0, gone.stderr
    assert "1 removed" in gone.stdout
    assert _titles(cli) == {"Annual leave", "Expenses"}
    row = _row(cli, "eng")
    assert (row["kind"], row["location"], row["collection"], row["documents"]) == (
        "confluence",
        wiki.base + "/spaces/ENG",
        "internal",
        2,
    )
    assert row["last_result"]["removed"] == [  # type: ignore[index]
        wiki.base + "/pages/viewpage.action?pageId=103"
    ]


def test_a_refused_login_fails_the_sync_and_keeps_the_documents(
    cli,  # type: ignore[no-untyped-def]
    wiki: LocalConfluence,
) -> None:
    assert cli(
        "sources", "add", "confluence", wiki.base, "--space", "ENG", "--name", "eng",
        extra_env=CLOUD,
    ).returncode == 0  # fmt: skip
    assert cli("sources", "sync", "eng", extra_env=FAST).returncode == 0
    wrong = {**FAST, "CONFLUENCE_API_TOKEN": "revoked"}
    for _ in range(2):  # twice: a refused login is never "missing"
        refused = cli("sources", "sync", "eng", extra_env=wrong)
        assert refused.returncode == 1
        assert "FAILED" in refused.stdout and "HTTP 401" in refused.stdout
        assert "login was refused" in refused.stdout and "CONFLUENCE_API_TOKEN" in refused.stdout
        assert "revoked" not in refused.stdout + refused.stderr  # the secret never shown
    assert _titles(cli) == {"Annual leave", "Expenses", "Laptops"}
    row = _row(cli, "eng")
    assert row["last_status"] == "failed" and row["documents"] == 3

    # no login at all: refused when added, and a failed sync with the settings to set
    missing = cli("sources", "sync", "eng", extra_env={"SOURCE_REQUESTS_PER_SECOND": "1000"})
    assert missing.returncode == 1 and "no Confluence login" in missing.stdout
    assert _titles(cli) == {"Annual leave", "Expenses", "Laptops"}
    refused_add = cli("sources", "add", "confluence", wiki.base, "--space", "OPS")
    assert refused_add.returncode != 0 and "CONFLUENCE_TOKEN" in refused_add.stderr

    # a Data Center personal access token (bearer) reads the space as well
    pat = {"CONFLUENCE_TOKEN": PAT, "SOURCE_REQUESTS_PER_SECOND": "1000"}
    again = cli("sources", "sync", "eng", extra_env=pat)
    assert again.returncode == 0 and "3 unchanged" in again.stdout


def test_sources_add_confluence_refuses_what_it_cannot_sync(cli) -> None:  # type: ignore[no-untyped-def]
    no_space = cli("sources", "add", "confluence", "https://example.atlassian.net/wiki")
    assert no_space.returncode != 0 and "--space" in no_space.stderr
    bad_url = cli("sources", "add", "confluence", "example.org", "--space", "ENG", extra_env=CLOUD)
    assert bad_url.returncode != 0 and "http://" in bad_url.stderr
    half = cli(
        "sources", "add", "confluence", "https://example.atlassian.net/wiki", "--space", "ENG",
        extra_env={"CONFLUENCE_USER": USER},
    )  # fmt: skip
    assert half.returncode != 0 and "go together" in half.stderr
    unknown = cli(
        "sources", "add", "confluence", "https://example.atlassian.net/wiki", "--space", "E G",
        extra_env=CLOUD,
    )  # fmt: skip
    assert unknown.returncode != 0 and "--space" in unknown.stderr


def test_confluence_through_the_ragbot_process(cli_process, wiki: LocalConfluence) -> None:  # type: ignore[no-untyped-def]
    added = cli_process(
        "sources", "add", "confluence", wiki.base, "--space", "ENG", extra_env=CLOUD
    )  # fmt: skip
    assert added.returncode == 0, added.stderr
    name = wiki.base.split("://", 1)[1] + "/spaces/ENG"
    assert f"added confluence source {name!r}" in added.stdout
    synced = cli_process("sources", "sync", extra_env=FAST)
    assert synced.returncode == 0, synced.stdout + synced.stderr
    assert "3 added" in synced.stdout
    listed = cli_process("sources", "list")
    assert listed.returncode == 0 and f"confluence {wiki.base}/spaces/ENG" in listed.stdout
