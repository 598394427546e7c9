"""The web chat (/chat) in a real headless Chromium against a running `ragbot serve`.

A resident asks in Traditional Chinese, sees the streamed answer with its cited document,
presses 👍 and the vote is in the feedback table; the page's words follow the language picker;
an answer's list items show as a list.

Needs /usr/bin/chromium and /usr/bin/chromedriver (scripts/install-browser.sh installs them):
skipped without them, failed on CI (env CI set).
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Literal, Protocol
from urllib.request import urlopen

import pytest
from selenium import webdriver
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support.select import Select
from selenium.webdriver.support.ui import WebDriverWait
from sqlalchemy import create_engine, text

from storage.embeddings import Embedder
from tests.api.conftest import publish
from tests.support.listed_answer import (
    HEADINGS,
    ITEMS,
    LEAD,
    LIST_BODY,
    LIST_DOCUMENT,
    LIST_QUESTION,
)
from textkit.catalog import LANGUAGES, entries

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
QUESTION = "住宅區停車許可證一年多少錢？"
PAGE_WAIT = 20  # seconds for the page and its config to load
ANSWER_WAIT = 60  # seconds for the streamed answer to finish


class ServedApi(Protocol):
    """What the `served_api` fixture (tests/api/conftest.py) yields."""

    url: str
    database_url: str


def _words(language: str) -> dict[str, str]:
    """The catalog's webchat words in `language`."""
    return {k: v[language] for k, v in entries().items() if k.startswith("webchat:")}


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[WebDriver]:
    """Headless Chromium with a throwaway profile, in English unless the page is told otherwise."""
    yield from chromium(tmp_path)


def chromium(tmp_path: Path, *extra: str) -> Iterator[WebDriver]:
    """`browser`, with `extra` command-line switches (a fake microphone), quit after."""
    missing = [str(path) for path in (CHROMIUM, CHROMEDRIVER) if not path.exists()]
    if missing:
        message = f"{' and '.join(missing)} missing: run scripts/install-browser.sh"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    options = Options()
    options.binary_location = str(CHROMIUM)
    for argument in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--window-size=1000,900",
        "--lang=en-US",
        f"--user-data-dir={tmp_path / 'chromium'}",
        *extra,
    ):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def _server_up(served: ServedApi) -> None:
    """Fail with the server's output when its process (if the fixture has one) has ended."""
    proc: subprocess.Popen[str] | None = getattr(served, "proc", None)
    if proc is not None and proc.poll() is not None:
        output = proc.stdout.read() if proc.stdout else ""
        pytest.fail(f"ragbot serve exited with {proc.returncode}:\n{output[-4000:]}")


def _open_chat(driver: WebDriver, served: ServedApi) -> None:
    """Open the chat and wait until its config is loaded (the send button is enabled)."""
    _server_up(served)
    driver.get(f"{served.url}/chat")
    WebDriverWait(driver, PAGE_WAIT).until(
        lambda d: d.find_element(By.ID, "send").is_enabled(),
        "the chat did not load /chat/config.json (the send button stayed disabled)",
    )


def _answered(driver: WebDriver) -> WebElement | None:
    """The finished answer, which must name the fee and link its document; fails on an error
    or on a finished answer without them (None while the answer streams)."""
    for failed in driver.find_elements(By.CSS_SELECTOR, ".answer.failed"):
        raise AssertionError(f"the chat showed an error: {failed.text!r}")
    for answer in driver.find_elements(By.CSS_SELECTOR, ".answer"):
        if answer.get_attribute("aria-busy") == "true":
            continue
        said = answer.find_element(By.CSS_SELECTOR, ".answer-text").text
        if "一千二百" in said and answer.find_elements(By.CSS_SELECTOR, ".sources a"):
            return answer
        raise AssertionError(
            f"the answer lacks 一千二百 or a cited link: {answer.get_attribute('outerHTML')}"
        )
    return None


def _feedback(database_url: str) -> dict[int, int]:
    """Every feedback row: id → rating."""
    engine = create_engine(database_url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(text("SELECT id, rating FROM feedback")).all()
    finally:
        engine.dispose()
    return {int(row.id): int(row.rating) for row in rows}


def test_a_question_in_traditional_chinese_is_answered_cited_and_voted_on(
    browser: WebDriver, served_api: ServedApi
) -> None:
    before = _feedback(served_api.database_url)
    _open_chat(browser, served_api)
    Select(browser.find_element(By.ID, "language")).select_by_value("zh-hant")
    assert browser.find_element(By.ID, "send").text == _words("zh-hant")["webchat:send"]

    browser.find_element(By.ID, "question").send_keys(QUESTION)
    browser.find_element(By.ID, "send").click()
    try:
        answer = WebDriverWait(browser, ANSWER_WAIT).until(_answered)
    except TimeoutException:
        answers = browser.find_elements(By.CSS_SELECTOR, ".answer")
        shown = [a.get_attribute("outerHTML") for a in answers]
        pytest.fail(f"no finished answer in {ANSWER_WAIT} s; shown: {shown}")
    assert answer is not None

    links = answer.find_elements(By.CSS_SELECTOR, ".sources a")
    cited = [link for link in links if "停車許可證" in link.text]
    assert cited, [link.text for link in links]
    assert (cited[0].get_attribute("href") or "").startswith(("http://", "https://"))
    assert cited[0].get_attribute("target") == "_blank"
    assert set((cited[0].get_attribute("rel") or "").split()) >= {"noopener", "noreferrer"}
    asked = browser.find_element(By.CSS_SELECTOR, ".question").text
    assert asked == QUESTION
    conversation = browser.execute_script(
        "return sessionStorage.getItem('ragbot-chat:conversation');"
    )
    assert conversation, "the conversation id from `done` was not kept for follow-ups"

    up = answer.find_element(By.CSS_SELECTOR, ".vote-up")
    up.click()
    thanks = WebDriverWait(browser, PAGE_WAIT).until(
        lambda _: answer.find_elements(By.CSS_SELECTOR, ".vote-thanks"),
        "no thanks after 👍 (see .vote-status for the error shown)",
    )
    assert thanks[0].text == _words("zh-hant")["webchat:thanks"]
    assert up.get_attribute("aria-pressed") == "true"
    assert answer.find_element(By.CSS_SELECTOR, ".vote-down").get_attribute("aria-pressed") == (
        "false"
    )

    after = _feedback(served_api.database_url)
    added = {k: v for k, v in after.items() if k not in before}
    assert len(added) == 1, after
    assert next(iter(added.values())) > 0


def test_the_page_words_follow_the_language_picker(
    browser: WebDriver, served_api: ServedApi
) -> None:
    with urlopen(f"{served_api.url}/chat/config.json", timeout=10) as response:
        config = json.load(response)
    assert isinstance(config["key"], str) and config["key"]
    for language in LANGUAGES:  # every webchat word, as the catalog has it
        assert config["words"][language].items() >= _words(language).items(), language

    _open_chat(browser, served_api)
    picker = Select(browser.find_element(By.ID, "language"))
    assert [o.text for o in picker.options] == ["繁中", "简中", "English"]
    assert picker.first_selected_option.get_attribute("value") == "en"  # the browser's en-US
    send = browser.find_element(By.ID, "send")
    question = browser.find_element(By.ID, "question")
    assert send.text == _words("en")["webchat:send"]

    for language, html_lang in (("zh-hans", "zh-Hans"), ("zh-hant", "zh-Hant"), ("en", "en")):
        picker.select_by_value(language)
        words = _words(language)
        assert send.text == words["webchat:send"]
        assert question.get_attribute("placeholder") == words["webchat:placeholder"]
        assert browser.find_element(By.ID, "title").text == words["webchat:title"]
        assert browser.title == words["webchat:title"]
        assert browser.find_element(By.TAG_NAME, "html").get_attribute("lang") == html_lang

    picker.select_by_value("zh-hans")
    _open_chat(browser, served_api)  # the choice is remembered
    assert Select(browser.find_element(By.ID, "language")).first_selected_option.text == "简中"
    assert browser.find_element(By.ID, "send").text == _words("zh-hans")["webchat:send"]


def test_an_extractive_answer_with_a_heading_and_a_list_shows_a_list(
    browser: WebDriver, served_api: ServedApi, embedder: Embedder
) -> None:
    publish(served_api.database_url, embedder, LIST_DOCUMENT, LIST_BODY)
    _open_chat(browser, served_api)  # in English, the browser's language
    browser.find_element(By.ID, "question").send_keys(LIST_QUESTION)
    browser.find_element(By.ID, "send").click()

    def finished(driver: WebDriver) -> WebElement | Literal[False]:
        for failed in driver.find_elements(By.CSS_SELECTOR, ".answer.failed"):
            raise AssertionError(f"the chat showed an error: {failed.text!r}")
        done = driver.find_elements(By.CSS_SELECTOR, ".answer:not([aria-busy]) .answer-text")
        return done[0] if done else False

    shown = WebDriverWait(browser, ANSWER_WAIT).until(finished, "no finished answer")
    children = shown.find_elements(By.XPATH, "./*")
    assert [c.tag_name for c in children] == ["p", "ul"], shown.get_attribute("outerHTML")
    assert children[0].text == LEAD  # the answer's heading line, in its own paragraph
    items = children[1].find_elements(By.XPATH, "./li")
    # document text shown as text (`<recent>` is no tag), citation marks kept in the items
    assert [li.text for li in items] == ITEMS
    assert not any(heading in shown.text for heading in HEADINGS)
    assert "&lt;recent&gt;" in (items[0].get_attribute("innerHTML") or "")
