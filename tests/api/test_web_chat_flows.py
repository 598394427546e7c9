"""The web chat as a visitor uses it, in headless Chromium at a desktop's and a phone's size:
a reload keeps the conversation and New chat clears it; a suggested question asks itself;
a server out of reach keeps the question and Retry sends it; no votes under a refusal or
small talk; emphasis and links in an answer are elements; a site not listed in
API_CORS_ORIGINS is warned on its console. (Stop: test_web_chat_stop.py.)

The browser (`browser`) and its rules are tests/api/test_web_chat.py's.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

import pytest
from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support.select import Select
from selenium.webdriver.support.ui import WebDriverWait

from storage.embeddings import Embedder
from tests.api.conftest import Served, publish, serving_api
from tests.api.test_web_chat import ANSWER_WAIT, PAGE_WAIT, _open_chat, _words, browser  # noqa: F401
from tests.support.processes import free_port
from tests.support.rubbish_faq import COUCH, RUBBISH, RUBBISH_DOCUMENT, SOFA

PASSPORT = "How much does an adult passport renewal cost?"
SUGGESTED = ["How much does an adult passport renewal cost?", "Where do I renew a passport?"]
SUGGESTED_ZH_HANT = ["住宅區停車許可證一年多少錢？"]
OUT_OF_SCOPE = "What will the weather be on Mars next Tuesday?"
# a document whose extractive answer (no model) quotes its list: a link, a labelled link,
# emphasis, and a javascript: "link" that must stay text
DOG_DOCUMENT = "dog-licence.md"
DOG_BODY = (
    "# Dog licences\n\nA dog licence costs 50 dollars a year.\n\n"
    "## What to bring for a dog licence\n\n"
    "- the **signed** licence form from https://city.example.org/forms/dog-licence\n"
    "- a photo of the dog, as [the photo rules](https://city.example.org/photo-rules) say,"
    " not [this](javascript:alert(1))\n"
)
DOG_QUESTION = "What do I bring to get a dog licence?"
SIZES = {"desktop": (1280, 800), "phone": (390, 844)}
LOOK = {
    "WEB_CHAT_TITLE": "City Help",
    "WEB_CHAT_COLOR": "#116633",
    "WEB_CHAT_LOGO_URL": "https://cdn.example.org/city-logo.png",
    "WEB_CHAT_GREETING": "Ask us about city services.",
}


@pytest.fixture(scope="module")
def served_chat(
    tmp_path_factory: pytest.TempPathFactory, database_url: str, embedder: Embedder
) -> Iterator[Served]:
    """`ragbot serve` (no model) with suggested questions in English and Traditional Chinese,
    and the operator's look."""
    env = {
        "SUGGESTED_QUESTIONS_EN": "|".join(SUGGESTED),
        "SUGGESTED_QUESTIONS_ZH_HANT": "|".join(SUGGESTED_ZH_HANT),
        # every test of the module calls from one address within a minute or two; the
        # visitor limit is tests/api/test_abuse_and_retries.py's
        "WEB_CHAT_CLIENT_RATE_PER_MINUTE": "200",
        **LOOK,
    }
    with serving_api(tmp_path_factory.mktemp("chat"), database_url, embedder, **env) as served:
        yield served


@pytest.fixture(params=sorted(SIZES))
def page(request: pytest.FixtureRequest, browser: WebDriver) -> WebDriver:  # noqa: F811
    """The browser with its viewport at a desktop's or a phone's size."""
    width, height = SIZES[request.param]
    browser.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 500},
    )
    return browser


def _ask(driver: WebDriver, question: str) -> None:
    box = driver.find_element(By.ID, "question")
    box.send_keys(question)
    driver.find_element(By.ID, "send").click()


def _finished(driver: WebDriver, count: int = 1) -> list[WebElement]:
    """The finished answers, once there are `count` of them (fails on an error shown)."""

    def done(d: WebDriver) -> list[WebElement] | Literal[False]:
        for failed in d.find_elements(By.CSS_SELECTOR, ".answer.failed"):
            raise AssertionError(f"the chat showed an error: {failed.text!r}")
        found = d.find_elements(By.CSS_SELECTOR, ".answer:not([aria-busy])")
        return found if len(found) >= count else False

    return WebDriverWait(driver, ANSWER_WAIT).until(done, f"not {count} finished answers")


def _texts(driver: WebDriver, selector: str) -> list[str]:
    return [e.text for e in driver.find_elements(By.CSS_SELECTOR, selector)]


def _conversation(driver: WebDriver) -> Any:
    return driver.execute_script("return sessionStorage.getItem('ragbot-chat:conversation');")


def test_a_reload_shows_the_conversation_and_new_chat_clears_it(
    page: WebDriver, served_chat: Served
) -> None:
    _open_chat(page, served_chat)
    _ask(page, "Thanks!")
    _finished(page)
    _ask(page, PASSPORT)
    answer = _finished(page, 2)[1]
    said = answer.find_element(By.CSS_SELECTOR, ".answer-text").text
    assert "1,300" in said
    before = _conversation(page)
    assert before

    page.refresh()
    WebDriverWait(page, PAGE_WAIT).until(
        lambda d: len(d.find_elements(By.CSS_SELECTOR, ".answer")) == 2,
        "the reloaded page did not show the conversation's two answers",
    )
    assert _texts(page, ".question") == ["Thanks!", PASSPORT]
    welcome, first = page.find_elements(By.CSS_SELECTOR, ".answer")
    assert first.find_element(By.CSS_SELECTOR, ".answer-text").text == said
    links = first.find_elements(By.CSS_SELECTOR, ".sources a")
    assert [link.get_attribute("href") for link in links] == [
        "https://city.example.org/docs/passport"
    ]
    assert first.find_elements(By.CSS_SELECTOR, ".vote-up")  # a real answer: votes
    assert not welcome.find_elements(By.CSS_SELECTOR, ".votes")  # "You're welcome": none
    assert not page.find_element(By.ID, "suggestions").is_displayed()
    # the next question continues the same conversation
    _ask(page, "And how long does it take?")
    third = _finished(page, 3)[2]
    assert "four working days" in third.find_element(By.CSS_SELECTOR, ".answer-text").text
    assert _conversation(page) == before

    page.find_element(By.ID, "new-conversation").click()
    assert page.find_elements(By.CSS_SELECTOR, "#messages > *") == []
    assert _conversation(page) is None
    assert page.find_element(By.ID, "suggestions").is_displayed()
    page.refresh()
    _open_chat(page, served_chat)
    assert page.find_elements(By.CSS_SELECTOR, "#messages > *") == []


def test_a_suggested_question_on_the_empty_page_is_asked(
    page: WebDriver, served_chat: Served
) -> None:
    _open_chat(page, served_chat)
    shown = page.find_element(By.ID, "suggestions")
    assert shown.is_displayed()
    assert _texts(page, ".suggestion") == SUGGESTED
    Select(page.find_element(By.ID, "language")).select_by_value("zh-hant")
    assert _texts(page, ".suggestion") == SUGGESTED_ZH_HANT
    assert shown.find_element(By.TAG_NAME, "h2").text == _words("zh-hant")["webchat:suggestions"]
    Select(page.find_element(By.ID, "language")).select_by_value("en")

    page.find_elements(By.CSS_SELECTOR, ".suggestion")[0].click()
    [answer] = _finished(page)
    assert _texts(page, ".question") == [SUGGESTED[0]]
    assert "1,300" in answer.find_element(By.CSS_SELECTOR, ".answer-text").text
    assert not shown.is_displayed()  # the chat is no longer empty


def test_no_votes_under_a_refusal(page: WebDriver, served_chat: Served) -> None:
    _open_chat(page, served_chat)
    _ask(page, OUT_OF_SCOPE)
    [answer] = _finished(page)
    assert answer.get_attribute("data-outcome") == "refused", answer.get_attribute("outerHTML")
    assert answer.find_element(By.CSS_SELECTOR, ".answer-text").text
    assert not answer.find_elements(By.CSS_SELECTOR, ".votes")
    _ask(page, PASSPORT)
    real = _finished(page, 2)[1]
    assert real.find_elements(By.CSS_SELECTOR, ".vote-up")  # a real answer has them


def test_emphasis_and_links_in_an_answer_are_elements(
    page: WebDriver, served_chat: Served, embedder: Embedder
) -> None:
    publish(served_chat.database_url, embedder, DOG_DOCUMENT, DOG_BODY)
    _open_chat(page, served_chat)
    _ask(page, DOG_QUESTION)
    [answer] = _finished(page)
    text = answer.find_element(By.CSS_SELECTOR, ".answer-text")
    items = text.find_elements(By.CSS_SELECTOR, "ul > li")
    assert len(items) >= 2, text.get_attribute("outerHTML")
    assert [s.text for s in text.find_elements(By.TAG_NAME, "strong")] == ["signed"]
    # the document's links, beside each [n] that opens its source
    cited = text.find_elements(By.CSS_SELECTOR, "a.citation-link")
    assert cited and all(a.text.startswith("[") for a in cited)
    links = {a.text: a for a in text.find_elements(By.CSS_SELECTOR, "a:not(.citation-link)")}
    assert set(links) == {"https://city.example.org/forms/dog-licence", "the photo rules"}
    assert links["the photo rules"].get_attribute("href") == "https://city.example.org/photo-rules"
    for link in links.values():
        assert link.get_attribute("target") == "_blank"
        assert set((link.get_attribute("rel") or "").split()) >= {"noopener", "noreferrer"}
    # the javascript: "link" is shown as the text it is, and is no link
    assert "[this](javascript:alert(1))" in text.text
    assert "**" not in text.text


def test_an_unreachable_server_keeps_the_question_and_retry_sends_it(
    page: WebDriver, served_chat: Served
) -> None:
    _open_chat(page, served_chat)
    page.execute_cdp_cmd("Network.enable", {})
    page.execute_cdp_cmd("Network.setBlockedURLs", {"urls": [f"{served_chat.url}/api/*"]})
    _ask(page, PASSPORT)
    offline = WebDriverWait(page, PAGE_WAIT).until(
        lambda d: [e for e in d.find_elements(By.ID, "offline") if e.is_displayed()],
        "no offline state shown",
    )[0]
    assert (
        offline.find_element(By.CSS_SELECTOR, ".offline-text").text
        == _words("en")["webchat:offline"]
    )
    assert page.find_element(By.ID, "question").get_attribute("value") == PASSPORT
    assert page.find_elements(By.CSS_SELECTOR, ".answer") == []  # no "something went wrong"

    page.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})  # the server is back
    page.find_element(By.ID, "retry").click()
    [answer] = _finished(page)
    assert "1,300" in answer.find_element(By.CSS_SELECTOR, ".answer-text").text
    assert not offline.is_displayed()
    assert page.find_element(By.ID, "question").get_attribute("value") == ""


class _HostPage(BaseHTTPRequestHandler):
    """A site's page with the embed script (its console.warn calls kept in window.warned)."""

    chat = ""

    def do_GET(self) -> None:
        body = (
            "<!doctype html><html lang='en'><head><script>window.warned = [];"
            " const warn = console.warn; console.warn = (...a) => {"
            " window.warned.push(a.join(' ')); warn(...a); };</script>"
            f"<script src='{self.chat}/chat/embed.js' async></script></head>"
            "<body><p>A city site</p></body></html>"
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        """Quiet."""


@contextlib.contextmanager
def _host_site(chat: str) -> Iterator[str]:
    handler = type("Host", (_HostPage,), {"chat": chat})
    server = ThreadingHTTPServer(("127.0.0.1", free_port()), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_a_site_not_listed_in_api_cors_origins_is_warned_on_its_console(
    browser: WebDriver,  # noqa: F811
    served_chat: Served,
) -> None:
    with _host_site(served_chat.url) as site:
        browser.get(site)
        warned = WebDriverWait(browser, PAGE_WAIT).until(
            lambda d: d.execute_script("return window.warned;"), "no console warning"
        )
    assert len(warned) == 1 and "API_CORS_ORIGINS" in warned[0] and site in warned[0]


def test_the_operators_title_colour_logo_and_greeting_are_shown(
    page: WebDriver, served_chat: Served
) -> None:
    _open_chat(page, served_chat)
    assert page.find_element(By.ID, "title").text == LOOK["WEB_CHAT_TITLE"]
    assert page.title == LOOK["WEB_CHAT_TITLE"]
    assert page.find_element(By.ID, "intro").text == LOOK["WEB_CHAT_GREETING"]
    logo = page.find_element(By.ID, "logo")
    assert logo.get_attribute("src") == LOOK["WEB_CHAT_LOGO_URL"] and logo.is_displayed()
    header = page.find_element(By.CSS_SELECTOR, ".chat-header")
    assert header.value_of_css_property("background-color") in (
        "rgb(17, 102, 51)",
        "rgba(17, 102, 51, 1)",
    )
    Select(page.find_element(By.ID, "language")).select_by_value("zh-hans")  # in every language
    assert page.find_element(By.ID, "title").text == LOOK["WEB_CHAT_TITLE"]
    send = page.find_element(By.ID, "send")
    assert send.text == _words("zh-hans")["webchat:send"]


def test_a_refusals_faq_questions_are_buttons_that_ask_them(
    page: WebDriver, served_chat: Served, embedder: Embedder
) -> None:
    publish(served_chat.database_url, embedder, RUBBISH_DOCUMENT, RUBBISH)
    _open_chat(page, served_chat)
    _ask(page, COUCH)
    [refused] = _finished(page)
    assert refused.get_attribute("data-outcome") == "refused"
    offered = refused.find_elements(By.CSS_SELECTOR, ".related .suggestion")
    assert SOFA in [b.text for b in offered], refused.get_attribute("outerHTML")
    # listed once: as buttons, not again as the answer's text
    assert SOFA not in refused.find_element(By.CSS_SELECTOR, ".answer-text").text
    next(b for b in offered if b.text == SOFA).click()
    answer = _finished(page, 2)[1]
    assert _texts(page, ".question")[-1] == SOFA
    assert "20 euros" in answer.find_element(By.CSS_SELECTOR, ".answer-text").text
