"""`ragbot sources`: a local website and a local folder added, synced, asked, changed, removed."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.local_site import LocalSite

FAST = {"SOURCE_REQUESTS_PER_SECOND": "1000"}  # the local site needs no politeness
DOGS = "A dog licence costs 300 dollars a year and is renewed every January at the city office."
PARKS = "The city parks open at seven in the morning and close at ten in the evening."
BOATS = "A boat mooring permit for the harbour costs 900 dollars for one summer season."
SECRET = "The staff party budget is 77 dollars per person."


@pytest.fixture
def site() -> Iterator[LocalSite]:
    """The local site: three public pages and one under the disallowed /private/."""
    served = LocalSite()
    served.page("/dogs.html", "Dog licences", DOGS)
    served.page("/parks.html", "Park hours", PARKS)
    served.page("/boats.html", "Boat moorings", BOATS)
    served.page("/private/party.html", "Staff party", SECRET)
    served.start()
    yield served
    served.stop()


def _sources(cli) -> dict[str, dict[str, object]]:  # type: ignore[no-untyped-def]
    listed = cli("sources", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    return {row["name"]: row for row in json.loads(listed.stdout)}


def _titles(cli) -> set[str]:  # type: ignore[no-untyped-def]
    return {row["title"] for row in json.loads(cli("docs", "list", "--json").stdout)}


def test_a_web_source_syncs_only_what_changed(cli, site: LocalSite) -> None:  # type: ignore[no-untyped-def]
    added = cli("sources", "add", "web", site.root + "/", "--name", "city", "--every", "6h")
    assert added.returncode == 0, added.stderr
    first = cli("sources", "sync", "city", extra_env=FAST)
    assert first.returncode == 0, first.stdout + first.stderr
    assert "3 added, 0 changed, 0 removed, 0 unchanged, 0 failed" in first.stdout
    assert not site.asked("/private/party.html")  # robots.txt disallows it
    assert _titles(cli) == {"Dog licences", "Park hours", "Boat moorings"}

    asked = cli("ask", "How much is a dog licence?", "--json")
    assert asked.returncode == 0, asked.stderr
    turn = json.loads(asked.stdout)
    assert "300 dollars" in turn["answer"]
    assert turn["citations"][0]["document"] == "Dog licences"
    assert turn["citations"][0]["url"] == site.root + "/dogs.html"

    # nothing changed: each page costs a conditional request answered 304
    site.clear_log()
    again = cli("sources", "sync", "city", extra_env=FAST)
    assert again.returncode == 0, again.stderr
    assert "0 added, 0 changed, 0 removed, 3 unchanged, 0 failed" in again.stdout
    assert site.statuses() == {304: 3}

    # one page changes, one goes: the change now, the removal only on the second miss
    site.page("/dogs.html", "Dog licences", DOGS.replace("300", "350"))
    site.drop("/boats.html")
    site.clear_log()
    changed = cli("sources", "sync", "city", extra_env=FAST)
    assert changed.returncode == 0, changed.stderr
    assert "0 added, 1 changed, 0 removed, 1 unchanged, 0 failed" in changed.stdout
    assert "1 missing once (kept)" in changed.stdout
    assert site.statuses() == {200: 1, 304: 1}
    assert "Boat moorings" in _titles(cli)
    found = cli("search", "dog licence cost", "--json")
    hits = json.loads(found.stdout)
    assert hits[0]["document"] == "Dog licences" and "350 dollars" in hits[0]["text"]
    assert not any("300 dollars" in h["text"] for h in hits)

    gone = cli("sources", "sync", "city", extra_env=FAST)
    assert gone.returncode == 0, gone.stderr
    assert "1 removed" in gone.stdout
    assert _titles(cli) == {"Dog licences", "Park hours"}

    row = _sources(cli)["city"]
    assert {
        "name",
        "kind",
        "collection",
        "schedule",
        "last_sync",
        "next_sync",
        "documents",
        "last_status",
        "last_result",
    } <= set(row)
    assert (row["kind"], row["collection"], row["schedule"], row["documents"]) == (
        "web",
        "public",
        "6h",
        2,
    )
    assert row["last_status"] == "ok"
    assert row["last_result"]["removed"] == [site.root + "/boats.html"]  # type: ignore[index]
    assert row["next_sync"] > row["last_sync"]  # type: ignore[operator]
    plain = cli("sources", "list")
    assert "city" in plain.stdout and "1 removed" in plain.stdout

    removed = cli("sources", "remove", "city")
    assert removed.returncode == 0 and "2 documents removed" in removed.stdout
    assert _titles(cli) == set() and _sources(cli) == {}


def test_failures_keep_their_documents(cli, site: LocalSite) -> None:  # type: ignore[no-untyped-def]
    assert cli("sources", "add", "web", site.root + "/", "--name", "city").returncode == 0
    assert cli("sources", "sync", extra_env=FAST).returncode == 0
    site.broken.add("/parks.html")
    for _ in range(2):  # twice: a page that fails is not missing
        broken = cli("sources", "sync", "city", extra_env=FAST)
        assert broken.returncode == 1
        assert "2 unchanged, 1 failed" in broken.stdout
        assert f"failed {site.root}/parks.html: HTTP 500" in broken.stdout
    assert "Park hours" in _titles(cli)
    assert _sources(cli)["city"]["last_status"] == "partial"
    site.stop()
    for _ in range(2):  # twice: a whole site down is never "missing"
        down = cli("sources", "sync", "city", extra_env=FAST)
        assert down.returncode == 1 and "FAILED" in down.stdout
    assert len(_titles(cli)) == 3
    row = _sources(cli)["city"]
    assert row["last_status"] == "failed" and row["documents"] == 3


def test_a_crawl_follows_links_within_its_path(cli) -> None:  # type: ignore[no-untyped-def]
    served = LocalSite(sitemap=False)
    served.page("/docs/index.html", "Guide", PARKS, links=("/docs/dogs.html", "/blog/x.html"))
    served.page("/docs/dogs.html", "Dog licences", DOGS, links=("/docs/deep.html",))
    served.page("/docs/deep.html", "Boat moorings", BOATS)
    served.page("/blog/x.html", "Staff party", SECRET)
    served.start()
    try:
        url = served.root + "/docs/index.html"
        assert cli("sources", "add", "web", url, "--name", "g", "--depth", "1").returncode == 0
        synced = cli("sources", "sync", "g", extra_env=FAST)
        assert synced.returncode == 0, synced.stdout
        # one link deep, under /docs/: the deeper page and the blog are left out
        assert _titles(cli) == {"Guide", "Dog licences"}
        assert not served.asked("/blog/x.html") and not served.asked("/docs/deep.html")
    finally:
        served.stop()


def test_a_folder_source(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    folder = tmp_path / "kb"
    (folder / "pets").mkdir(parents=True)
    (folder / "pets" / "dogs.txt").write_text(DOGS)
    (folder / "parks.md").write_text(f"# Parks\n\n{PARKS}\n")
    (folder / ".hidden.txt").write_text(SECRET)
    # a link out of the folder: the file it points at is not the folder's to publish
    outside = tmp_path / "outside.txt"
    outside.write_text(SECRET)
    (folder / "linked.txt").symlink_to(outside)
    added = cli("sources", "add", "folder", str(folder), "--collection", "internal")
    assert added.returncode == 0, added.stderr
    first = cli("sources", "sync")
    assert first.returncode == 0, first.stdout
    assert "2 added" in first.stdout and _titles(cli) == {"dogs", "parks"}

    (folder / "pets" / "dogs.txt").write_text(DOGS.replace("300", "350"))
    (folder / "parks.md").unlink()
    changed = cli("sources", "sync", "kb")
    assert "0 added, 1 changed, 0 removed, 0 unchanged" in changed.stdout
    assert _titles(cli) == {"dogs", "parks"}  # parks missed once: kept
    hits = json.loads(cli("search", "dog licence", "--json").stdout)
    assert "350 dollars" in hits[0]["text"]
    assert "1 removed, 1 unchanged" in cli("sources", "sync", "kb").stdout
    assert _titles(cli) == {"dogs"}
    row = _sources(cli)["kb"]
    assert (row["kind"], row["collection"], row["documents"]) == ("folder", "internal", 1)

    # a document deleted by hand comes back with the next sync (the file is still there)
    assert cli("docs", "delete", "dogs").returncode == 0
    assert "1 added, 0 changed, 0 removed, 0 unchanged" in cli("sources", "sync", "kb").stdout
    assert _titles(cli) == {"dogs"}

    kept = cli("sources", "remove", "kb", "--keep-documents")
    assert kept.returncode == 0 and _titles(cli) == {"dogs"} and _sources(cli) == {}
    assert cli("sources", "remove", "kb").returncode == 1


def test_sources_add_refuses_what_it_cannot_sync(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    assert "http://" in cli("sources", "add", "web", "ftp://example.org").stderr
    assert "no such folder" in cli("sources", "add", "folder", str(tmp_path / "nope")).stderr
    assert "--every" in cli("sources", "add", "web", "http://x.org", "--every", "soon").stderr
    assert cli("sources", "add", "web", "http://x.org", "--name", "x").returncode == 0
    assert "exists" in cli("sources", "add", "web", "http://y.org", "--name", "x").stderr


def test_sources_add_refuses_a_url_without_a_host_and_a_collection_no_one_reads(  # type: ignore[no-untyped-def]
    cli, tmp_path: Path
) -> None:
    hostless = cli("sources", "add", "web", "http://")
    assert hostless.returncode != 0 and "names no website" in hostless.stderr
    typo = cli("sources", "add", "folder", str(tmp_path), "--collection", "pubilc")
    assert typo.returncode != 0 and "no one reads a collection 'pubilc'" in typo.stderr
    assert _sources(cli) == {}
    # what a platform reads (SLACK_COLLECTIONS has internal) is fine
    assert (
        cli("sources", "add", "folder", str(tmp_path), "--collection", "internal").returncode == 0
    )


def test_sources_add_refuses_a_url_that_carries_a_password(cli) -> None:  # type: ignore[no-untyped-def]
    """A login in the URL would be stored as the source's location, printed by `sources
    list`, and (a website's) shown in every citation's link: refused, and nothing kept."""
    web = cli("sources", "add", "web", "https://jane:s3cret@intranet.example.org/kb/")
    assert web.returncode != 0 and "user name or password" in web.stderr
    wiki = cli(
        "sources",
        "add",
        "confluence",
        "https://jane:s3cret@wiki.example.org",
        "--space",
        "HR",
        extra_env={"CONFLUENCE_TOKEN": "a-token"},
    )
    assert wiki.returncode != 0 and "CONFLUENCE_USER" in wiki.stderr
    assert "s3cret" not in web.stderr + wiki.stderr
    assert _sources(cli) == {}
