"""The web chat's citations open their source, in a real headless Chromium against a real
`ragbot serve`: the answer's `[1]` and its source's title link to the signed source view,
which opens with the cited passage highlighted in view, on a desktop and on a phone's
screen; the cited passage itself opens under the source by keyboard.

Needs /usr/bin/chromium and /usr/bin/chromedriver (see tests/api/test_web_chat.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from functools import partial
from typing import Literal

from selenium.common.exceptions import TimeoutException
from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support.ui import WebDriverWait

from storage.db import Database
from storage.embeddings import Embedder
from storage.ingestion import IngestionService, IngestOptions
from tests.api.test_sources import LIBRARY, LIBRARY_QUESTION
from tests.api.test_web_chat import ANSWER_WAIT, PAGE_WAIT, ServedApi, _open_chat, browser

__all__ = ["browser"]  # the fixture, defined with the chat's other browser tests
SIZES = ((1280, 800), (390, 844))  # a desktop window, a phone's screen


async def _ingest_library(database_url: str, embedder: Embedder) -> None:
    """A document with no URL of its own, published in the served database."""
    db = Database.connect(database_url)
    try:
        await IngestionService(db, embedder, IngestOptions()).ingest_bytes(
            "library.md", LIBRARY.encode(), collection="public"
        )
    finally:
        await db.dispose()


def _ask(driver: WebDriver, served: ServedApi) -> WebElement:
    """Ask the library question; the finished answer."""
    _open_chat(driver, served)
    driver.find_element(By.ID, "question").send_keys(LIBRARY_QUESTION)
    driver.find_element(By.ID, "send").click()

    def finished(d: WebDriver) -> WebElement | Literal[False]:
        for failed in d.find_elements(By.CSS_SELECTOR, ".answer.failed"):
            raise AssertionError(f"the chat showed an error: {failed.text!r}")
        done = d.find_elements(By.CSS_SELECTOR, ".answer:not([aria-busy])")
        return done[0] if done and done[0].find_elements(By.CSS_SELECTOR, ".sources") else False

    answer: WebElement = WebDriverWait(driver, ANSWER_WAIT).until(finished, "no finished answer")
    return answer


# true when the element's centre is on screen and nothing else is drawn over it there
_UNCOVERED = """
const e = arguments[0], r = e.getBoundingClientRect();
const x = r.left + r.width / 2, y = r.top + r.height / 2;
if (y < 0 || y > window.innerHeight || x < 0 || x > window.innerWidth) return false;
const top = document.elementFromPoint(x, y);
return top !== null && (top === e || e.contains(top));
"""


# where the element is and what is drawn at its centre (said when it stays covered)
_WHAT_COVERS = """
const e = arguments[0], r = e.getBoundingClientRect();
const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
return {rect: [r.left, r.top, r.width, r.height], window: [innerWidth, innerHeight],
        connected: e.isConnected, top: top ? top.outerHTML.slice(0, 300) : null};
"""


def _last(driver: WebDriver, css: str) -> WebElement:
    """The last element on the page `css` selects: the newest answer's."""
    return driver.find_elements(By.CSS_SELECTOR, css)[-1]


def _click_when_uncovered(driver: WebDriver, find: Callable[[], WebElement]) -> None:
    """Click the link `find` returns as a reader would: once it is on screen with nothing
    drawn over it. Found again each time: the chat may still scroll or redraw a
    finished answer."""

    def ready(d: WebDriver) -> WebElement | Literal[False]:
        link = find()
        d.execute_script("arguments[0].scrollIntoView({block: 'center'});", link)
        return link if d.execute_script(_UNCOVERED, link) else False

    try:
        link: WebElement = WebDriverWait(driver, PAGE_WAIT).until(ready)
    except TimeoutException:
        seen = driver.execute_script(_WHAT_COVERS, find())
        raise AssertionError(f"the link stayed covered: {seen}") from None
    link.click()


def _opens_the_passage(driver: WebDriver, find: Callable[[], WebElement]) -> None:
    """Click the link `find` returns: a new tab shows the source view with the passage
    marked, on screen."""
    chat = driver.current_window_handle
    before = set(driver.window_handles)
    _click_when_uncovered(driver, find)
    WebDriverWait(driver, PAGE_WAIT).until(lambda d: len(d.window_handles) > len(before))
    [opened] = set(driver.window_handles) - before
    driver.switch_to.window(opened)
    try:
        mark = WebDriverWait(driver, PAGE_WAIT).until(
            lambda d: d.find_elements(By.CSS_SELECTOR, "mark#cited"), "no marked passage"
        )[0]
        assert "9 am" in mark.text and mark.is_displayed()
        assert driver.find_element(By.TAG_NAME, "h1").text == "library"
        # scrolled to and inside the window, not cut off by a too-wide page
        top, bottom, right = driver.execute_script(
            "const r = arguments[0].getBoundingClientRect(); return [r.top, r.bottom, r.right];",
            mark,
        )
        height, width = driver.execute_script("return [window.innerHeight, window.innerWidth];")
        assert 0 <= top < height and bottom > 0 and right <= width + 1, (top, bottom, right)
        wide = driver.execute_script("return document.documentElement.scrollWidth;")
        assert wide <= width + 1, "the page scrolls sideways"
        shade = driver.execute_script("return getComputedStyle(arguments[0]).background;", mark)
        assert not str(shade).startswith("rgba(0, 0, 0, 0)"), shade  # highlighted
    finally:
        driver.close()
        driver.switch_to.window(chat)


def test_a_citation_and_its_source_open_the_passage_highlighted(
    browser: WebDriver, served_api: ServedApi, embedder: Embedder
) -> None:
    asyncio.run(_ingest_library(served_api.database_url, embedder))
    for width, height in SIZES:
        browser.set_window_size(width, height)
        answer = _ask(browser, served_api)
        marker = answer.find_element(By.CSS_SELECTOR, ".answer-text a.citation-link")
        assert marker.text == "[1]"
        _opens_the_passage(browser, partial(_last, browser, ".answer-text a.citation-link"))
        source = answer.find_element(By.CSS_SELECTOR, ".sources a.source-link")
        assert source.text == "library"
        assert "/sources/library?" in (source.get_attribute("href") or "")
        _opens_the_passage(browser, partial(_last, browser, ".sources a.source-link"))


def test_the_cited_passage_opens_by_keyboard(browser: WebDriver, served_api: ServedApi) -> None:
    browser.set_window_size(1280, 800)
    answer = _ask(browser, served_api)
    passage = answer.find_element(By.CSS_SELECTOR, ".source-passage-text")
    assert not passage.is_displayed()  # closed until asked for
    toggle = answer.find_element(By.CSS_SELECTOR, ".source-passage-toggle")
    browser.execute_script("document.activeElement && document.activeElement.blur();")
    for _ in range(40):  # Tab through the page until the passage's toggle has the focus
        if browser.switch_to.active_element == toggle:
            break
        ActionChains(browser).send_keys(Keys.TAB).perform()
    assert browser.switch_to.active_element == toggle, "the passage cannot be reached by Tab"
    toggle.send_keys(Keys.ENTER)
    WebDriverWait(browser, PAGE_WAIT).until(lambda _: passage.is_displayed(), "not opened")
    assert "9 am" in passage.text
