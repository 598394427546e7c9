"""The web chat's Stop button in headless Chromium, against a model that writes slowly: the
answer stops where it was, is marked stopped, gets no votes, and the page takes the next
question.

The browser (`browser`) and its rules are tests/api/test_web_chat.py's.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from storage.embeddings import Embedder
from tests.api.conftest import PLAN, Served, serving_api
from tests.api.test_web_chat import ANSWER_WAIT, PAGE_WAIT, _open_chat, _words, browser  # noqa: F401
from tests.api.test_web_chat_flows import PASSPORT, _ask
from tests.support.fake_openai import FakeOpenAI, Reply

SLOW = "An adult passport renewal costs 1,300 dollars and takes four working days [1]. " * 12


@pytest.fixture
def served_slowly(tmp_path: Path, database_url: str, embedder: Embedder) -> Iterator[Served]:
    """`ragbot serve` with a model that writes slowly (a minute for the whole answer)."""
    fake = FakeOpenAI().start()
    fake.responder = lambda body: (
        Reply(PLAN)
        if "planning step" in str(body["messages"][0]["content"])
        else Reply(SLOW, pace=0.3)
    )
    env = {
        "LLM_BASE_URL": fake.url,
        "LLM_MODEL": "fake-model",
        "LLM_API_KEY": "k",
        "LLM_PLANNER": "always",
        "TURN_PROCESSES": "1",  # the turn in a worker process: stopped across the pipe
    }
    try:
        with serving_api(tmp_path, database_url, embedder, **env) as served:
            yield served
    finally:
        fake.stop()


def test_stop_ends_an_answer_being_written(
    browser: WebDriver,  # noqa: F811
    served_slowly: Served,
) -> None:
    _open_chat(browser, served_slowly)
    _ask(browser, PASSPORT)
    stop = browser.find_element(By.ID, "stop")
    WebDriverWait(browser, ANSWER_WAIT).until(
        lambda d: "1,300" in d.find_element(By.CSS_SELECTOR, ".answer-text").text,
        "the answer did not start",
    )
    assert stop.is_displayed() and not browser.find_element(By.ID, "send").is_displayed()
    stop.click()
    answer = WebDriverWait(browser, PAGE_WAIT).until(
        lambda d: d.find_elements(By.CSS_SELECTOR, ".answer.stopped"), "not marked stopped"
    )[0]
    written = answer.find_element(By.CSS_SELECTOR, ".answer-text").text
    assert "1,300" in written and len(written) < len(SLOW) / 2
    assert (
        answer.find_element(By.CSS_SELECTOR, ".answer-stopped").text
        == _words("en")["webchat:stopped"]
    )
    assert answer.get_attribute("aria-busy") is None
    assert not answer.find_elements(By.CSS_SELECTOR, ".votes")
    assert not stop.is_displayed()
    send = browser.find_element(By.ID, "send")
    assert send.is_displayed() and send.is_enabled()
    box = browser.find_element(By.ID, "question")
    box.send_keys("next")
    assert box.get_attribute("value") == "next"  # the box takes a question again
