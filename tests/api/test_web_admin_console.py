"""The admin console (/admin) in headless Chromium against a real `ragbot serve`.

An admin signs in with an admin API key (the website's public key is refused),
answers a visitor's hand-off case (the visitor's chat shows the reply), finds the
refused question in Gaps, publishes an answer for its group (the console says it
now answers it, and the API does), uploads a document that the API then answers
from, and sees a vote in Feedback and the figures; also on a phone-sized window.
Without the page: sign-in refusals, CSRF and Origin checks, no framing, sign-out.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.by import By
from selenium.webdriver.support.select import Select
from selenium.webdriver.support.ui import WebDriverWait
from sqlalchemy import create_engine, text

from bot.core.admin.api_keys import ApiKeys
from storage.db import Database
from storage.embeddings import Embedder
from tests.api.conftest import Served, serving_api
from tests.api.test_web_chat import (  # noqa: F401
    ANSWER_WAIT,
    PAGE_WAIT,
    _open_chat,
    _server_up,
    browser,
)

MISSING = "Where do I register my dog?"
STAFF_REPLY = "Our animal team will call you back today."
PUBLISHED = "Register your dog at the Animal Office on Main Street, any weekday."
LIBRARY = (
    "# Library cards\n\nA library card is free for residents. Library cards are issued at"
    " the Central Library counter on Harbour Road.\n"
)
LIBRARY_QUESTION = "Where are library cards issued?"
JOB_WAIT = 90  # seconds for an upload's job to finish


@pytest.fixture(scope="module")
def console_site(
    tmp_path_factory: pytest.TempPathFactory, database_url: str, embedder: Embedder
) -> Iterator[Served]:
    """`ragbot serve` with the web chat and the staff inbox (cases answerable in /admin)."""
    env = {"HANDOFF_WEB_INBOX": "true"}
    with serving_api(tmp_path_factory.mktemp("console"), database_url, embedder, **env) as s:
        yield s


def _ask(site: Served, question: str) -> dict[str, object]:
    headers = {"Authorization": f"Bearer {site.keys['public']}"}
    reply = httpx.post(
        f"{site.url}/api/v1/ask", json={"question": question}, headers=headers, timeout=90
    )
    assert reply.status_code == 200, reply.text
    body: dict[str, object] = reply.json()
    return body


def _texts(driver: WebDriver, selector: str) -> list[str]:
    """The shown texts of what `selector` finds now (read at once: the page re-renders)."""
    script = "return Array.from(document.querySelectorAll(arguments[0])).map(e => e.innerText)"
    texts: list[str] = driver.execute_script(script, selector)
    return texts


def _tab(driver: WebDriver, page: str) -> None:
    driver.find_element(By.CSS_SELECTOR, f".tab[data-page='{page}']").click()


def _audited(database_url: str, action: str) -> list[tuple[str, str, str]]:
    engine = create_engine(database_url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(
                text("SELECT platform, user_id, result FROM audit_log WHERE action = :a"),
                {"a": action},
            ).all()
    finally:
        engine.dispose()
    return [(r.platform, r.user_id, r.result) for r in rows]


def _sign_in(driver: WebDriver, site: Served, key: str) -> None:
    driver.find_element(By.ID, "key").send_keys(key)
    driver.find_element(By.ID, "enter").click()


def test_an_admin_answers_a_case_publishes_a_gap_answer_uploads_and_reads_feedback(
    browser: WebDriver,  # noqa: F811
    console_site: Served,
    tmp_path: Path,
) -> None:
    site = console_site
    browser.set_window_size(1280, 800)
    wait = WebDriverWait(browser, ANSWER_WAIT)
    # a visitor is refused and asks for a person
    _open_chat(browser, site)
    Select(browser.find_element(By.ID, "language")).select_by_value("en")
    browser.find_element(By.ID, "question").send_keys(MISSING)
    browser.find_element(By.ID, "send").click()
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".answer .handoff"))
    browser.find_element(By.CSS_SELECTOR, ".answer .handoff").click()
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".staff-message .handoff-back"))
    chat = browser.current_window_handle

    # the admin, in another tab: the website's key is refused, the admin key signs in
    browser.switch_to.new_window("tab")
    console = browser.current_window_handle
    browser.get(f"{site.url}/admin")
    WebDriverWait(browser, PAGE_WAIT).until(lambda d: d.find_element(By.ID, "enter").text)
    assert not browser.find_element(By.ID, "oidc").is_displayed()  # no identity provider set
    _sign_in(browser, site, site.keys["public"])
    wait.until(lambda d: "not an admin key" in d.find_element(By.ID, "notice").text)
    assert browser.find_element(By.ID, "signed-in").get_attribute("hidden") is not None
    _sign_in(browser, site, site.keys["admin"])
    wait.until(lambda d: d.find_element(By.ID, "signed-in").is_displayed())
    # the session is a cookie the page's script cannot read
    assert browser.execute_script("return document.cookie") == ""
    titles = wait.until(lambda d: _texts(d, "#documents .doc-title"))
    assert {"passport", "travel"} <= set(titles)

    # Cases: the visitor's case, answered from here; the visitor sees the reply
    _tab(browser, "cases")
    case = wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".case"))[0]
    assert MISSING in case.find_element(By.CSS_SELECTOR, ".case-question").text
    case.find_element(By.CSS_SELECTOR, ".reply-text").send_keys(STAFF_REPLY)
    case.find_element(By.CSS_SELECTOR, ".reply-send").click()
    wait.until(lambda d: any(STAFF_REPLY in t for t in _texts(d, ".case .talk-item")))
    browser.switch_to.window(chat)
    wait.until(lambda d: any(STAFF_REPLY in t for t in _texts(d, ".staff-message")))
    browser.switch_to.window(console)
    browser.find_element(By.CSS_SELECTOR, ".case .case-close").click()
    wait.until(lambda d: not d.find_elements(By.CSS_SELECTOR, ".case"))

    # the question refused over the API too: Gaps groups it, labelled by its question
    assert _ask(site, MISSING)["outcome"] == "refused"
    _tab(browser, "gaps")
    group = wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".group"))[0]
    assert group.find_element(By.CSS_SELECTOR, ".group-label").text == MISSING
    assert "2" in group.find_element(By.CSS_SELECTOR, ".group-count").text
    assert "en 2" in group.find_element(By.CSS_SELECTOR, ".group-languages").text
    group.find_element(By.CSS_SELECTOR, ".publish-answer").send_keys(PUBLISHED)
    Select(group.find_element(By.CSS_SELECTOR, ".publish-collection")).select_by_value("public")
    group.find_element(By.CSS_SELECTOR, ".publish-send").click()
    line = WebDriverWait(browser, JOB_WAIT).until(
        lambda d: d.find_element(By.CSS_SELECTOR, ".group .publish-state[data-answered]")
    )
    assert "Now answers 1 / 1" in line.text and "retrieval check" in line.text
    answered = _ask(site, MISSING)
    assert answered["outcome"] == "answered" and "Animal Office" in str(answered["answer"])

    # Documents: the console's FAQ document is listed; an uploaded file is answered from
    _tab(browser, "documents")
    wait.until(lambda d: "Answers from the console (public)" in _texts(d, "#documents .doc-title"))
    upload = tmp_path / "library.md"
    upload.write_text(LIBRARY, encoding="utf-8")
    browser.find_element(By.ID, "upload-file").send_keys(str(upload))
    Select(browser.find_element(By.ID, "upload-collection")).select_by_value("public")
    browser.find_element(By.ID, "upload-send").click()
    WebDriverWait(browser, JOB_WAIT).until(
        lambda d: d.find_element(By.ID, "upload-state").get_attribute("data-status") == "added"
    )
    wait.until(lambda d: "library" in _texts(d, "#documents .doc-title"))
    browser.find_element(By.ID, "doc-search").send_keys("libr")
    assert _texts(browser, "#documents .doc-title") == ["library"]
    library = _ask(site, LIBRARY_QUESTION)
    assert library["outcome"] == "answered" and "Central Library" in str(library["answer"])

    # a vote on that answer shows in Feedback, with its source and its path in words
    vote = {
        "conversation_id": library["conversation_id"],
        "answer_id": library["answer_id"],
        "helpful": True,
    }
    headers = {"Authorization": f"Bearer {site.keys['public']}"}
    voted = httpx.post(f"{site.url}/api/v1/feedback", json=vote, headers=headers, timeout=30)
    assert voted.status_code == 200, voted.text
    _tab(browser, "feedback")
    shown = wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".vote.up"))[0]
    assert LIBRARY_QUESTION in shown.text and "👍" in shown.text
    assert "library" in shown.find_element(By.CSS_SELECTOR, ".vote-sources").text
    steps = _texts(browser, ".vote.up .vote-path li")
    assert "Passed the safety check." in steps
    assert not any(":" in s and "_" in s for s in steps)  # words, not codes

    # Figures: bar charts of the days and the queues /healthz shows
    _tab(browser, "figures")
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#figures svg rect")) > 5)
    assert browser.find_elements(By.CSS_SELECTOR, "#figures .queue-list dt")

    # the language picker switches the page's words
    Select(browser.find_element(By.ID, "language")).select_by_value("zh-hant")
    wait.until(
        lambda d: d.find_element(By.CSS_SELECTOR, ".tab[data-page='gaps']").text == "未答問題"
    )

    # on a phone: the sections fit the screen and the gaps are still answerable
    browser.set_window_size(390, 844)
    _tab(browser, "gaps")
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".group .publish-send"))
    overflow = "return document.documentElement.scrollWidth - window.innerWidth"
    assert browser.execute_script(overflow) <= 0
    # read in one script: the page may re-render the section between two WebDriver calls
    visible = "const b = document.querySelector('.group .publish-send');"
    visible += " return !!b && b.getClientRects().length > 0"
    wait.until(lambda d: d.execute_script(visible))

    # sign-in and the published answer are audited under the key's name
    assert ("admin", "ops", "ok") in _audited(site.database_url, "console:sign_in")
    assert ("admin", "website", "not_admin") in _audited(site.database_url, "console:sign_in")
    assert any(r[1] == "ops" for r in _audited(site.database_url, "api:POST /admin/api/answers"))


def test_sessions_need_an_admin_key_a_csrf_token_this_origin_and_never_frame(
    console_site: Served,
) -> None:
    site = console_site
    _server_up(site)
    here = {"Origin": site.url}
    page = httpx.get(f"{site.url}/admin", timeout=10)
    assert page.status_code == 200
    assert "frame-ancestors 'none'" in page.headers["content-security-policy"]
    assert page.headers["x-frame-options"] == "DENY"
    # no identity provider set: no button, and its sign-in is not there
    assert httpx.get(f"{site.url}/admin/config.json", timeout=10).json()["oidc"] is None
    assert httpx.get(f"{site.url}/admin/oidc/start", timeout=10).status_code == 404
    assert (
        httpx.get(f"{site.url}/admin/oidc/callback?code=x&state=y", timeout=10).status_code == 404
    )
    with httpx.Client(base_url=site.url, timeout=30) as client:
        public = client.post("/admin/session", json={"key": site.keys["public"]}, headers=here)
        assert public.status_code == 403 and public.json()["code"] == "not_admin"
        unknown = client.post("/admin/session", json={"key": "rbk_nope"}, headers=here)
        assert unknown.status_code == 401
        elsewhere = {"Origin": "https://evil.example"}
        stolen = client.post("/admin/session", json={"key": site.keys["admin"]}, headers=elsewhere)
        assert stolen.status_code == 403 and "set-cookie" not in stolen.headers
        assert client.get("/admin/api/documents").status_code == 401

        opened = client.post("/admin/session", json={"key": site.keys["admin"]}, headers=here)
        assert opened.status_code == 200
        cookie = opened.headers["set-cookie"].lower()
        assert "httponly" in cookie and "samesite=strict" in cookie and "path=/admin" in cookie
        csrf = opened.json()["csrf"]
        assert client.get("/admin/api/documents").status_code == 200
        body = {"question": "q?", "answer": "a.", "collection": "public"}
        no_token = client.post("/admin/api/answers", json=body, headers=here)
        assert no_token.status_code == 403 and no_token.json()["code"] == "bad_csrf"
        wrong = client.post("/admin/api/answers", json=body, headers={**here, "X-CSRF-Token": "x"})
        assert wrong.status_code == 403
        other = {"Origin": "https://evil.example", "X-CSRF-Token": csrf}
        cross = client.post("/admin/api/answers", json=body, headers=other)
        assert cross.status_code == 403 and cross.json()["code"] == "bad_origin"
        deleting = client.delete("/admin/api/documents", params={"title": "passport"})
        assert deleting.status_code == 403  # no token, no Origin: nothing deleted
        assert "passport" in [d["title"] for d in client.get("/admin/api/documents").json()]

        out = client.delete("/admin/session", headers={**here, "X-CSRF-Token": csrf})
        assert out.status_code == 200
        assert client.get("/admin/session").status_code == 401


def test_an_admin_key_that_does_not_read_every_collection_sees_only_its_documents(
    console_site: Served,
) -> None:
    """Gaps, feedback, figures, cases and jobs hold every platform's questions and answers:
    an admin key reading only `public` gets its documents, and a plain refusal for those."""
    site = console_site
    _server_up(site)

    async def make_key() -> str:
        db = Database.connect(site.database_url)
        try:
            _row, key = await ApiKeys(db).create("public-admin", ["public"], admin=True)
            return key
        finally:
            await db.dispose()

    key = asyncio.run(make_key())
    here = {"Origin": site.url}
    with httpx.Client(base_url=site.url, timeout=30) as client:
        opened = client.post("/admin/session", json={"key": key}, headers=here)
        assert opened.status_code == 200
        csrf = opened.json()["csrf"]
        titles = [d["title"] for d in client.get("/admin/api/documents").json()]
        assert "passport" in titles and "travel" not in titles
        for path in ("/admin/api/gaps", "/admin/api/feedback", "/admin/api/figures"):
            refused = client.get(path)
            assert refused.status_code == 403, path
            assert refused.json()["code"] == "not_every_collection"
            assert "internal" in refused.json()["message"]
        assert client.get("/admin/api/cases").status_code == 403
        assert client.get("/admin/api/jobs/1").status_code == 403
        changing = {**here, "X-CSRF-Token": csrf}
        reply = client.post("/admin/api/cases/1/reply", json={"text": "hi"}, headers=changing)
        assert reply.status_code == 403
