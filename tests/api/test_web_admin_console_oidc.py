"""The admin console's sign-in through an identity provider, withdrawing a published answer,
and the throttle on failed sign-ins, over HTTP against a real `ragbot serve`; and in
headless Chromium: the provider's button clicked through, the page on a phone, its words
in every language, the cases list's live region and a sign-out that failed.

The provider is a fake one on 127.0.0.1 (tests/support/fake_oidc.py: discovery, a JWKS
with an RSA key made here, `/authorize` and `/token`), with authlib in the server
pointed at it; httpx follows the redirects as a browser does. Each test speaks from
its own client address (X-Forwarded-For from a trusted proxy): the failed sign-ins
of one do not throttle another.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx
import pytest
from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.by import By
from selenium.webdriver.support.select import Select
from selenium.webdriver.support.ui import WebDriverWait
from sqlalchemy import create_engine, text

from storage.embeddings import Embedder
from tests.api.conftest import Served, serving_api
from tests.api.test_web_chat import PAGE_WAIT, browser  # noqa: F401
from tests.support.core_fixtures import wait_window_with_time_left
from tests.support.fake_oidc import FakeIssuer, fake_issuer
from textkit.catalog import say

CLIENT_ID = "ragbot-console"
CLIENT_SECRET = "s3cret-client-value"
ADMIN = "admin@example.org"
GROUP = "ragbot-admins"
FAILURES = 3  # ADMIN_SIGN_IN_FAILURES_PER_MINUTE here
DOG = "Where do I register my dog?"
DOG_ANSWER = "Register your dog at the Animal Office on Main Street, any weekday."
BOAT = "Where do I register my boat?"
BOAT_ANSWER = "Register your boat at the Harbour Master's office by the pier."
KITE = "Where do I fly my kite?"
KITE_ANSWER = "Fly your kite on the meadow behind the Town Hall, away from the power lines."
JOB_WAIT = 90  # seconds for a published answer's job
QUEUES = (  # /healthz's queue figures, in its order
    "inbox_depth",
    "inbox_oldest_s",
    "inbox_failed",
    "outbox_pending",
    "outbox_retrying",
    "outbox_failed",
    "outbox_oldest_s",
)


@pytest.fixture(scope="module")
def issuer() -> Iterator[FakeIssuer]:
    """The fake identity provider."""
    with fake_issuer(CLIENT_ID, CLIENT_SECRET) as running:
        yield running


@pytest.fixture(scope="module")
def site(
    tmp_path_factory: pytest.TempPathFactory,
    database_url: str,
    embedder: Embedder,
    issuer: FakeIssuer,
) -> Iterator[Served]:
    """`ragbot serve` with the console's sign-in through the fake provider."""
    env = {
        "OIDC_ISSUER": issuer.url,
        "OIDC_CLIENT_ID": CLIENT_ID,
        "OIDC_CLIENT_SECRET": CLIENT_SECRET,
        "OIDC_ADMIN_EMAILS": f"{ADMIN}, second@example.org",
        "OIDC_ADMIN_GROUP": GROUP,
        "OIDC_PROVIDER_NAME": "Example Org",
        "ADMIN_SIGN_IN_FAILURES_PER_MINUTE": str(FAILURES),
        "API_TRUSTED_PROXIES": "127.0.0.1",
        "HANDOFF_WEB_INBOX": "true",  # cases answerable in the console
    }
    with serving_api(tmp_path_factory.mktemp("oidc"), database_url, embedder, **env) as s:
        yield s


def _client(site: Served, address: str) -> httpx.Client:
    """A browser-like client from `address`, following redirects."""
    headers = {"X-Forwarded-For": address, "Accept-Language": "en"}
    return httpx.Client(base_url=site.url, timeout=30, follow_redirects=True, headers=headers)


def _audited(database_url: str, action: str) -> list[tuple[str, str, str]]:
    engine = create_engine(database_url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(
                text(
                    "SELECT platform, user_id, result FROM audit_log WHERE action = :a ORDER BY id"
                ),
                {"a": action},
            ).all()
    finally:
        engine.dispose()
    return [(r.platform, r.user_id, r.result) for r in rows]


def _sign_in(
    client: httpx.Client, issuer: FakeIssuer, person: dict[str, object], mode: str = ""
) -> httpx.Response:
    issuer.person = person
    issuer.mode = mode
    try:
        return client.get("/admin/oidc/start")
    finally:
        issuer.mode = ""


def test_an_admin_signs_in_through_the_identity_provider_and_is_audited_by_email(
    site: Served, issuer: FakeIssuer
) -> None:
    with _client(site, "10.0.0.1") as client:
        config = client.get("/admin/config.json").json()
        assert config["oidc"] == "Example Org"
        assert config["words"]["en"]["oidc_sign_in"] == "Sign in with {value}"

        landed = _sign_in(client, issuer, {"email": ADMIN, "email_verified": True})
        assert landed.status_code == 200 and str(landed.url) == f"{site.url}/admin"
        # the provider was asked with PKCE (S256), a state and a nonce, and the redirect URI
        asked = issuer.authorize_requests[-1]
        assert asked["code_challenge_method"] == "S256" and asked["code_challenge"]
        assert asked["state"] and asked["nonce"] and "openid" in asked["scope"].split()
        assert asked["redirect_uri"] == f"{site.url}/admin/oidc/callback"
        assert issuer.token_requests[-1]["code_verifier"]
        session = client.get("/admin/session")
        assert session.status_code == 200
        assert session.json()["name"] == ADMIN and session.json()["person"] is True
        csrf = session.json()["csrf"]
        titles = [d["title"] for d in client.get("/admin/api/documents").json()]
        assert {"passport", "travel"} <= set(titles)
        assert client.get("/admin/api/gaps").status_code == 200  # reads every collection
        # a change is audited under the email
        here = {"Origin": site.url, "X-CSRF-Token": csrf}
        gone = client.delete("/admin/api/documents", params={"title": "nope"}, headers=here)
        assert gone.status_code == 404
        # the callback's state cannot be replayed: its cookie is gone
        assert "ragbot_oidc" not in client.cookies
        assert client.delete("/admin/session", headers=here).status_code == 200
        assert client.get("/admin/session").status_code == 401

    with _client(site, "10.0.0.2") as client:  # a member of the admin group
        landed = _sign_in(client, issuer, {"email": "grouped@example.org", "groups": [GROUP]})
        assert str(landed.url) == f"{site.url}/admin"
        assert client.get("/admin/session").json()["name"] == "grouped@example.org"

    assert ("admin", ADMIN, "ok") in _audited(site.database_url, "console:sign_in")
    assert ("api", ADMIN, "404") in _audited(site.database_url, "api:DELETE /admin/api/documents")
    assert ("admin", ADMIN, "ok") in _audited(site.database_url, "console:sign_out")


@pytest.mark.parametrize(
    ("person", "mode", "status", "reason"),
    [
        ({"email": "visitor@example.org", "email_verified": True}, "", 403, "not_admin"),
        ({"email": ADMIN, "email_verified": False}, "", 400, "unverified_email"),
        ({"email": ADMIN}, "forged", 400, "invalid_token"),
        ({"email": ADMIN}, "expired", 400, "invalid_token"),
        ({"email": ADMIN}, "wrong_nonce", 400, "invalid_token"),
        ({"email": ADMIN}, "wrong_audience", 400, "invalid_token"),
        ({"email": ADMIN}, "wrong_state", 400, "bad_state"),
    ],
)
def test_a_sign_in_that_is_not_an_admin_or_cannot_be_trusted_opens_no_session(
    site: Served,
    issuer: FakeIssuer,
    person: dict[str, object],
    mode: str,
    status: int,
    reason: str,
) -> None:
    with _client(site, f"10.1.{len(reason)}.{len(mode)}") as client:
        refused = _sign_in(client, issuer, person, mode)
        assert refused.status_code == status, refused.text
        assert f'data-reason="{reason}"' in refused.text
        assert "ragbot_admin" not in client.cookies
        assert client.get("/admin/session").status_code == 401
        assert client.get("/admin/api/documents").status_code == 401
        if reason == "not_admin":
            assert "visitor@example.org is not an admin" in refused.text
    # named by email when the token could be trusted to say who it was
    who = str(person["email"]) if reason in ("not_admin", "unverified_email") else "?"
    assert ("admin", who, reason) in _audited(site.database_url, "console:sign_in")
    assert CLIENT_SECRET not in str(_audited(site.database_url, "console:sign_in"))


def test_failed_sign_ins_are_throttled_per_address_without_more_audit_rows(
    site: Served, issuer: FakeIssuer
) -> None:
    here = {"Origin": site.url}
    # the failures are counted per calendar minute: a run across its end counts afresh
    wait_window_with_time_left(20)
    with _client(site, "10.2.0.1") as client:
        for _ in range(FAILURES):
            wrong = client.post("/admin/session", json={"key": "rbk_wrong"}, headers=here)
            assert wrong.status_code == 401
        rows = len(_audited(site.database_url, "console:sign_in"))
        throttled = client.post("/admin/session", json={"key": site.keys["admin"]}, headers=here)
        assert throttled.status_code == 429 and throttled.headers["retry-after"]
        again = _sign_in(client, issuer, {"email": ADMIN, "email_verified": True})
        assert again.status_code == 429 and "ragbot_admin" not in client.cookies
        assert len(_audited(site.database_url, "console:sign_in")) == rows
    with _client(site, "10.2.0.2") as other:  # another address is not held back
        opened = other.post("/admin/session", json={"key": site.keys["admin"]}, headers=here)
        assert opened.status_code == 200


def _ask(site: Served, question: str) -> dict[str, object]:
    headers = {"Authorization": f"Bearer {site.keys['public']}"}
    reply = httpx.post(
        f"{site.url}/api/v1/ask", json={"question": question}, headers=headers, timeout=90
    )
    assert reply.status_code == 200, reply.text
    body: dict[str, object] = reply.json()
    return body


def _job_done(client: httpx.Client, job_id: int) -> str:
    deadline = time.monotonic() + JOB_WAIT
    while time.monotonic() < deadline:
        status = str(client.get(f"/admin/api/jobs/{job_id}").json()["status"])
        if status not in ("queued", "running"):
            return status
        time.sleep(0.5)
    raise AssertionError(f"job {job_id} did not finish")


def _publish(client: httpx.Client, headers: dict[str, str], question: str, answer: str) -> None:
    body = {"question": question, "answer": answer, "collection": "public"}
    published = client.post("/admin/api/answers", json=body, headers=headers)
    assert published.status_code == 202, published.text
    assert _job_done(client, published.json()["job_id"]) in ("added", "replaced")


def test_a_withdrawn_answer_stops_answering_and_a_later_publish_does_not_bring_it_back(
    site: Served,
) -> None:
    here = {"Origin": site.url}
    with _client(site, "10.3.0.1") as client:
        opened = client.post("/admin/session", json={"key": site.keys["admin"]}, headers=here)
        assert opened.status_code == 200
        changing = {**here, "X-CSRF-Token": opened.json()["csrf"]}
        _publish(client, changing, DOG, DOG_ANSWER)
        assert "Animal Office" in str(_ask(site, DOG)["answer"])
        listed = client.get("/admin/api/answers").json()
        dog = next(a for a in listed if a["question"] == DOG)
        assert dog["written_by"] == "ops" and dog["collection"] == "public"

        # a change like any other: the page's token and this site's Origin
        url = f"/admin/api/answers/{dog['id']}/withdraw"
        assert client.post(url, headers=here).status_code == 403
        elsewhere = {**changing, "Origin": "https://evil.example"}
        assert client.post(url, headers=elsewhere).status_code == 403
        withdrawn = client.post(url, headers=changing)
        assert withdrawn.status_code == 200, withdrawn.text
        assert withdrawn.json()["entries"] == 0 and withdrawn.json()["job_id"] is None
        assert client.post(url, headers=changing).status_code == 404  # once only
        assert _ask(site, DOG)["outcome"] == "refused"
        assert client.get("/admin/api/answers").json() == []

        # another answer published later does not bring the withdrawn one back
        _publish(client, changing, BOAT, BOAT_ANSWER)
        assert [a["question"] for a in client.get("/admin/api/answers").json()] == [BOAT]
        assert "Harbour Master" in str(_ask(site, BOAT)["answer"])
        assert "Animal Office" not in str(_ask(site, DOG).get("answer", ""))

        # deleting the console's document withdraws its answers too
        title = "Answers from the console (public)"
        deleted = client.delete("/admin/api/documents", params={"title": title}, headers=changing)
        assert deleted.status_code == 200
        assert client.get("/admin/api/answers").json() == []
        _publish(client, changing, KITE, KITE_ANSWER)
        assert [a["question"] for a in client.get("/admin/api/answers").json()] == [KITE]
        assert "Harbour Master" not in str(_ask(site, BOAT).get("answer", ""))

    audited = _audited(site.database_url, "console:withdraw")
    assert audited == [("admin", "ops", str(dog["id"]))]
    route = "api:POST /admin/api/answers/{answer_id}/withdraw"
    assert ("api", "ops", "200") in _audited(site.database_url, route)


def _case(site: Served) -> None:
    """A hand-off case from an API caller whose question was refused."""
    asked = _ask(site, "Can I keep bees on my balcony?")
    headers = {"Authorization": f"Bearer {site.keys['public']}"}
    body = {"conversation_id": asked["conversation_id"], "answer_id": asked["answer_id"]}
    handed = httpx.post(f"{site.url}/api/v1/handoff", json=body, headers=headers, timeout=30)
    assert handed.status_code == 200, handed.text


# counts what changes under #cases from now on (a live region: each change is announced)
WATCH_CASES = """
window.caseChanges = 0;
new MutationObserver((changes) => { window.caseChanges += changes.length; })
  .observe(document.getElementById('cases'),
           {childList: true, subtree: true, characterData: true});
"""


def test_the_console_in_a_browser_signs_in_through_the_provider_and_fits_a_phone(
    browser: WebDriver,  # noqa: F811
    site: Served,
    issuer: FakeIssuer,
) -> None:
    _case(site)
    issuer.person = {"email": ADMIN, "email_verified": True}
    wait = WebDriverWait(browser, PAGE_WAIT)
    browser.set_window_size(1280, 800)
    browser.get(f"{site.url}/admin")
    button = wait.until(lambda d: d.find_element(By.ID, "oidc"))
    wait.until(lambda d: d.find_element(By.ID, "oidc").is_displayed())
    assert button.text == "Sign in with Example Org"
    button.click()
    wait.until(lambda d: d.find_element(By.ID, "signed-in").is_displayed())
    assert browser.find_element(By.ID, "who").text == ADMIN
    assert browser.execute_script("return document.cookie") == ""

    # every word in the page's language: the collection filter's "all", a case's status
    Select(browser.find_element(By.ID, "language")).select_by_value("zh-hant")
    every = "return document.querySelector('#doc-collection option[value=\"\"]').textContent"
    wait.until(lambda d: d.execute_script(every) == say("admin:all_collections", "zh-hant"))
    browser.find_element(By.CSS_SELECTOR, ".tab[data-page='cases']").click()
    heading = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, ".case .case-heading"))
    assert say("admin:case_open", "zh-hant") in heading.text and " open " not in heading.text
    # the figures' queue health in words too, not the health check's field names
    browser.find_element(By.CSS_SELECTOR, ".tab[data-page='figures']").click()
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".queue-list dt"))
    queues = [dt.text for dt in browser.find_elements(By.CSS_SELECTOR, ".queue-list dt")]
    assert queues and not [q for q in queues if "_" in q], queues
    assert queues == [say(f"admin:queue_{name}", "zh-hant") for name in QUEUES]

    # the cases list is a live region: a poll that finds nothing new changes nothing
    browser.execute_script(WATCH_CASES)
    time.sleep(7)  # two polls (every 3 s)
    assert browser.execute_script("return window.caseChanges") == 0

    # on a phone the documents fit the screen: nothing scrolls sideways (in English, whose
    # words do not break anywhere as Chinese does)
    Select(browser.find_element(By.ID, "language")).select_by_value("en")
    browser.set_window_size(390, 844)
    browser.find_element(By.CSS_SELECTOR, ".tab[data-page='documents']").click()
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#documents .doc-title"))
    width = "return window.innerWidth"
    assert browser.execute_script(width) <= 390
    assert browser.execute_script("return document.documentElement.scrollWidth") <= 390
    wrap = "const w = document.querySelector('.table-wrap'); return w.scrollWidth - w.clientWidth"
    assert browser.execute_script(wrap) <= 0

    # a sign-out the server did not confirm is not shown as signed out
    browser.set_window_size(1280, 800)
    browser.execute_script(
        "window.realFetch = window.fetch;"
        " window.fetch = (url, init) => (init && init.method === 'DELETE')"
        " ? Promise.resolve(new Response(JSON.stringify({message: 'Busy, retry.'}),"
        " {status: 503, headers: {'Content-Type': 'application/json'}}))"
        " : window.realFetch(url, init);"
    )
    browser.find_element(By.ID, "sign-out").click()
    failed = say("admin:sign_out_failed", "en", value="Busy, retry.")
    wait.until(lambda d: d.find_element(By.ID, "notice").text == failed)
    assert browser.find_element(By.ID, "signed-in").is_displayed()
    browser.execute_script("window.fetch = window.realFetch;")
    browser.find_element(By.ID, "sign-out").click()
    wait.until(lambda d: not d.find_element(By.ID, "signed-in").is_displayed())
    assert browser.find_element(By.ID, "oidc").is_displayed()
