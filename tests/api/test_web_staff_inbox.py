"""A web-only site with hand-off on: the refusal's contact, "Ask a person", and the staff
inbox in the browser (a real `ragbot serve`, headless Chromium at 1280×800).

No Slack, no Telegram: HANDOFF_WEB_INBOX makes the staff page the staff room. A
resident is refused, sees the contact (mail and phone clickable) and presses Ask a
person; a staff member signs in to /staff with an admin key in another tab, sees the
case and replies; the reply appears in the resident's chat. Other keys are refused.
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.by import By
from selenium.webdriver.support.select import Select
from selenium.webdriver.support.ui import WebDriverWait

from storage.embeddings import Embedder
from tests.api.conftest import Served, serving_api
from tests.api.test_web_chat import ANSWER_WAIT, PAGE_WAIT, _open_chat, browser  # noqa: F401

MISSING = "Where do I register my dog?"
SECOND_ANSWER = "And bring your old card if you still have it."
STAFF_ANSWER = "Register your dog at the Animal Office on Main Street."
CONTACT = "the service desk (phone +852 2345 6789, desk@city.example.org)"
CONTACT_ZH = "服務台（電話 +852 2345 6789）"


@pytest.fixture(scope="module")
def web_only(
    tmp_path_factory: pytest.TempPathFactory, database_url: str, embedder: Embedder
) -> Iterator[Served]:
    """`ragbot serve` with the web chat and the staff inbox: no Slack, no Telegram."""
    env = {
        "HANDOFF_WEB_INBOX": "true",
        "HANDOFF_CONTACT_EN": CONTACT,
        "HANDOFF_CONTACT_ZH_HANT": CONTACT_ZH,
    }
    with serving_api(tmp_path_factory.mktemp("staffdesk"), database_url, embedder, **env) as s:
        yield s


def _texts(driver: WebDriver, selector: str) -> list[str]:
    return [e.text for e in driver.find_elements(By.CSS_SELECTOR, selector)]


def test_a_refused_resident_asks_a_person_and_staff_answer_from_the_browser_inbox(
    browser: WebDriver,  # noqa: F811
    web_only: Served,
) -> None:
    browser.set_window_size(1280, 800)
    _open_chat(browser, web_only)
    Select(browser.find_element(By.ID, "language")).select_by_value("en")
    browser.find_element(By.ID, "question").send_keys(MISSING)
    browser.find_element(By.ID, "send").click()
    wait = WebDriverWait(browser, ANSWER_WAIT)
    # the refusal names the contact, its mail and phone clickable, and offers a person
    line = wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".answer .refusal-contact"))[0]
    assert CONTACT in browser.find_element(By.CSS_SELECTOR, ".answer .answer-text").text
    links = {a.text: a.get_attribute("href") for a in line.find_elements(By.TAG_NAME, "a")}
    assert links == {
        "desk@city.example.org": "mailto:desk@city.example.org",
        "+852 2345 6789": "tel:+85223456789",
    }
    ask = browser.find_element(By.CSS_SELECTOR, ".answer .handoff")
    assert ask.is_displayed()
    ask.click()
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".staff-message .handoff-back"))
    chat = browser.current_window_handle

    # the staff member, in another tab: the inbox asks for a key, then lists the case
    browser.switch_to.new_window("tab")
    inbox = browser.current_window_handle
    browser.get(f"{web_only.url}/staff")
    page_wait = WebDriverWait(browser, PAGE_WAIT)
    page_wait.until(lambda d: d.find_element(By.ID, "enter").text)  # its words are loaded
    browser.find_element(By.ID, "key").send_keys(web_only.keys["admin"])
    browser.find_element(By.ID, "enter").click()
    case = wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".case"))[0]
    assert MISSING in case.find_element(By.CSS_SELECTOR, ".case-question").text
    heading = case.find_element(By.CSS_SELECTOR, ".case-heading").text
    assert " · api · en · " in heading
    # the key stays in this tab's session, never in a cookie or local storage
    assert browser.execute_script("return window.localStorage.length") == 0
    assert not browser.get_cookies()
    case.find_element(By.CSS_SELECTOR, ".reply-text").send_keys(STAFF_ANSWER)
    case.find_element(By.CSS_SELECTOR, ".reply-send").click()
    wait.until(lambda d: any(STAFF_ANSWER in t for t in _texts(d, ".case .talk-item")))
    wait.until(lambda d: "claimed by web:ops" in d.find_element(By.CSS_SELECTOR, ".case").text)

    # the resident's page shows the reply, marked as from a person
    browser.switch_to.window(chat)
    wait.until(lambda d: any(STAFF_ANSWER in t for t in _texts(d, ".staff-message")))
    assert sum(STAFF_ANSWER in t for t in _texts(browser, ".staff-message")) == 1

    # a reload keeps the person's reply on the page, and what they send next arrives
    browser.refresh()
    wait.until(lambda d: any(STAFF_ANSWER in t for t in _texts(d, ".staff-message")))
    assert sum(STAFF_ANSWER in t for t in _texts(browser, ".staff-message")) == 1
    assert browser.find_elements(By.CSS_SELECTOR, ".staff-message .handoff-back")
    browser.switch_to.window(inbox)
    case = browser.find_elements(By.CSS_SELECTOR, ".case")[0]
    case.find_element(By.CSS_SELECTOR, ".reply-text").send_keys(SECOND_ANSWER)
    case.find_element(By.CSS_SELECTOR, ".reply-send").click()
    browser.switch_to.window(chat)
    wait.until(lambda d: any(SECOND_ANSWER in t for t in _texts(d, ".staff-message")))

    # Close in the inbox: the case leaves the list and the chat is the bot's again
    browser.switch_to.window(inbox)
    browser.find_element(By.CSS_SELECTOR, ".case .case-close").click()
    wait.until(lambda d: not d.find_elements(By.CSS_SELECTOR, ".case"))
    browser.switch_to.window(chat)
    wait.until(lambda d: not d.find_elements(By.CSS_SELECTOR, ".handoff-back"))


def test_the_staff_endpoints_refuse_other_keys(web_only: Served) -> None:
    url = f"{web_only.url}/api/v1/staff"
    for name in ("public", "staff"):  # the web chat's key, a key reading internal documents
        headers = {"Authorization": f"Bearer {web_only.keys[name]}"}
        assert httpx.get(f"{url}/cases", headers=headers, timeout=10).status_code == 403
        body = {"text": "hello"}
        reply = httpx.post(f"{url}/cases/1/reply", json=body, headers=headers, timeout=10)
        assert reply.status_code == 403
        assert httpx.post(f"{url}/cases/1/close", headers=headers, timeout=10).status_code == 403
    assert httpx.get(f"{url}/cases", timeout=10).status_code == 401
    admin = {"Authorization": f"Bearer {web_only.keys['admin']}"}
    assert httpx.get(f"{url}/cases", headers=admin, timeout=10).status_code == 200
    page = httpx.get(f"{web_only.url}/staff", timeout=10)
    assert (
        page.status_code == 200
        and "frame-ancestors 'none'" in page.headers["content-security-policy"]
    )
