"""The web chat's "Ask a person" in a real headless Chromium: a Slack staff member answers.

A resident asks what the documents do not answer, presses Ask a person, sees that a
person will reply here; a staff member replies in the Slack card's thread (a signed
event to the running `ragbot serve`) and the page shows it; Back to the bot closes the
case and the bot answers again.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.by import By
from selenium.webdriver.support.select import Select
from selenium.webdriver.support.ui import WebDriverWait
from slack_sdk.signature import SignatureVerifier
from sqlalchemy import create_engine, text

from storage.embeddings import Embedder
from tests.api.conftest import Served, publish, serving_api
from tests.api.test_web_chat import ANSWER_WAIT, _open_chat, browser  # noqa: F401
from tests.handoff.harness import STAFF, STAFF_ROOM, staff_posts, thread_message
from tests.support.fake_slack import TOKEN, FakeSlack
from tests.support.rubbish_faq import COUCH, RUBBISH, RUBBISH_DOCUMENT, SOFA

SECRET = "web-chat-secret"
MISSING = "Where do I register my dog?"
STAFF_ANSWER = "Register your dog at the Animal Office on Main Street."


@pytest.fixture
def staffed(
    tmp_path: Path, database_url: str, embedder: Embedder
) -> Iterator[tuple[Served, FakeSlack]]:
    """`ragbot serve` with a Slack staff room on the fake Slack."""
    fake = FakeSlack().start()
    try:
        env = {
            "SLACK_BOT_TOKEN": TOKEN,
            "SLACK_SIGNING_SECRET": SECRET,
            "SLACK_API_BASE_URL": fake.url,
            "HANDOFF_SLACK_CHANNEL": STAFF_ROOM,
            "HANDOFF_STAFF_USER_IDS": f"slack:{STAFF}",
        }
        with serving_api(tmp_path, database_url, embedder, **env) as served:
            yield served, fake
    finally:
        fake.stop()


def _card_recorded(database_url: str, ts: str) -> bool:
    engine = create_engine(database_url)
    try:
        with engine.connect() as conn:
            found = conn.execute(
                text("SELECT 1 FROM handoff_posts WHERE platform = 'slack' AND ref = :r"),
                {"r": f"{STAFF_ROOM}:{ts}"},
            ).first()
    finally:
        engine.dispose()
    return found is not None


def _staff_reply(url: str, card_ts: str) -> None:
    event = thread_message(STAFF_ANSWER, "990.1", card_ts)
    body = json.dumps(
        {"type": "event_callback", "team_id": "T1", "event_id": f"Ev{uuid.uuid4().hex[:8]}",
         "event": event}
    ).encode()  # fmt: skip
    stamp = str(int(time.time()))
    signature = SignatureVerifier(SECRET).generate_signature(timestamp=stamp, body=body)
    assert signature is not None  # None only without a timestamp
    headers = {
        "Content-Type": "application/json",
        "X-Slack-Request-Timestamp": stamp,
        "X-Slack-Signature": signature,
    }
    assert httpx.post(f"{url}/slack/events", content=body, headers=headers, timeout=10).is_success


def _texts(driver: WebDriver, selector: str) -> list[str]:
    return [e.text for e in driver.find_elements(By.CSS_SELECTOR, selector)]


def test_a_resident_asks_a_person_and_a_slack_staff_member_answers_on_the_page(
    browser: WebDriver,  # noqa: F811
    staffed: tuple[Served, FakeSlack],
) -> None:
    served, fake = staffed
    _open_chat(browser, served)
    Select(browser.find_element(By.ID, "language")).select_by_value("en")
    browser.find_element(By.ID, "question").send_keys(MISSING)
    browser.find_element(By.ID, "send").click()
    wait = WebDriverWait(browser, ANSWER_WAIT)
    ask = wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".answer .handoff"))[0]
    ask.click()
    # the page says a person will reply here, with its own "Back to the bot"
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".staff-message .handoff-back"))
    card, reply = wait.until(lambda d: staff_posts(fake))[0]
    assert MISSING in card["text"]
    wait.until(lambda d: _card_recorded(served.database_url, reply["ts"]))
    _staff_reply(served.url, reply["ts"])
    wait.until(lambda d: any(STAFF_ANSWER in t for t in _texts(d, ".staff-message")))
    assert sum(STAFF_ANSWER in t for t in _texts(browser, ".staff-message")) == 1
    # back to the bot: the case closes, the button goes, and the bot answers again
    browser.find_element(By.CSS_SELECTOR, ".handoff-back").click()
    wait.until(lambda d: not d.find_elements(By.CSS_SELECTOR, ".handoff-back"))
    browser.find_element(By.ID, "question").send_keys("How much does a passport renewal cost?")
    browser.find_element(By.ID, "send").click()
    wait.until(lambda d: any("1,300" in t for t in _texts(d, ".answer .answer-text")))


def test_a_refusals_faq_questions_stay_buttons_beside_the_ask_a_person_line(
    browser: WebDriver,  # noqa: F811
    staffed: tuple[Served, FakeSlack],
    embedder: Embedder,
) -> None:
    served, _fake = staffed
    publish(served.database_url, embedder, RUBBISH_DOCUMENT, RUBBISH)
    _open_chat(browser, served)
    Select(browser.find_element(By.ID, "language")).select_by_value("en")
    browser.find_element(By.ID, "question").send_keys(COUCH)
    browser.find_element(By.ID, "send").click()
    wait = WebDriverWait(browser, ANSWER_WAIT)
    refused = wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".answer .handoff"))
    answer = browser.find_elements(By.CSS_SELECTOR, ".answer")[-1]
    # the hand-off line follows the list in the answer's text: the list is still buttons
    offered = [b.text for b in answer.find_elements(By.CSS_SELECTOR, ".related .suggestion")]
    assert SOFA in offered, answer.get_attribute("outerHTML")
    text = answer.find_element(By.CSS_SELECTOR, ".answer-text").text
    assert SOFA not in text and "Ask a person" in text
    assert refused
