"""The web chat's 📎 and 🎤 in headless Chromium against a running `ragbot serve`: a photo
chosen in the file input is read and answered with its cited document; a recording from
Chromium's fake microphone reaches the (fake) transcription server, is shown as what was
heard, and is answered. The 🎤 stays hidden where the browser cannot record (and where the
server has no transcription endpoint: tests/api/test_ask_media.py).

The browser and its rules are tests/api/test_web_chat.py's.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Literal
from urllib.request import urlopen

import pytest
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support.ui import WebDriverWait

from storage.embeddings import Embedder
from tests.api.conftest import Served, serving_api
from tests.api.test_web_chat import ANSWER_WAIT, PAGE_WAIT, _open_chat, _words, chromium
from tests.support.fake_stt import QUESTION, FakeTranscriber
from tests.support.scans import text_image
from textkit.catalog import say

PAGE = ["How much does an adult", "passport renewal cost?"]
OCR_WAIT = 120  # seconds: the served process loads the OCR models for the first photo


@pytest.fixture(scope="module")
def stt() -> Iterator[FakeTranscriber]:
    fake = FakeTranscriber().start()
    yield fake
    fake.stop()


@pytest.fixture(scope="module")
def served_media(
    tmp_path_factory: pytest.TempPathFactory,
    database_url: str,
    embedder: Embedder,
    stt: FakeTranscriber,
) -> Iterator[Served]:
    """`ragbot serve` (no model) with a transcription endpoint: the fake."""
    tmp = tmp_path_factory.mktemp("media")
    with serving_api(tmp, database_url, embedder, STT_BASE_URL=stt.url) as served:
        yield served


@pytest.fixture
def microphone(tmp_path: Path) -> Iterator[WebDriver]:
    """Chromium whose microphone is a fake device, allowed without asking."""
    yield from chromium(
        tmp_path, "--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream"
    )


def _answer(driver: WebDriver, wait: float) -> WebElement:
    """The finished answer, which must name the fee and link its document."""

    def finished(d: WebDriver) -> WebElement | Literal[False]:
        for failed in d.find_elements(By.CSS_SELECTOR, ".answer.failed"):
            raise AssertionError(f"the chat showed an error: {failed.text!r}")
        for answer in d.find_elements(By.CSS_SELECTOR, ".answer:not([aria-busy])"):
            return answer
        return False

    try:
        answer: WebElement = WebDriverWait(driver, wait).until(finished)
    except TimeoutException:
        shown = [a.get_attribute("outerHTML") for a in driver.find_elements(By.CSS_SELECTOR, "li")]
        pytest.fail(f"no finished answer in {wait} s; shown: {shown}")
    said = answer.find_element(By.CSS_SELECTOR, ".answer-text").text
    links = [a.text for a in answer.find_elements(By.CSS_SELECTOR, ".sources a")]
    assert "1,300" in said and any("passport" in link.lower() for link in links), (said, links)
    return answer


def test_a_photo_chosen_with_the_paperclip_is_read_and_answered_with_its_source(
    microphone: WebDriver, served_media: Served, tmp_path: Path
) -> None:
    photo = tmp_path / "question.png"
    photo.write_bytes(text_image(PAGE))
    _open_chat(microphone, served_media)
    clip = microphone.find_element(By.ID, "photo")
    assert clip.is_displayed() and clip.get_attribute("aria-label") == _words("en")["webchat:photo"]
    microphone.find_element(By.ID, "photo-file").send_keys(str(photo))
    _answer(microphone, OCR_WAIT)
    asked = microphone.find_element(By.CSS_SELECTOR, ".question").text
    assert asked == _words("en")["webchat:photo_sent"]


def test_a_recording_from_the_microphone_is_heard_and_answered(
    microphone: WebDriver, served_media: Served, stt: FakeTranscriber
) -> None:
    before = len(stt.requests)
    _open_chat(microphone, served_media)
    mic = microphone.find_element(By.ID, "mic")
    assert mic.is_displayed()
    mic.click()
    WebDriverWait(microphone, PAGE_WAIT).until(
        lambda _: mic.get_attribute("aria-pressed") == "true", "the recording did not start"
    )
    assert mic.get_attribute("aria-label") == _words("en")["webchat:recording"]
    mic.click()  # stop and send
    _answer(microphone, ANSWER_WAIT)
    asked = microphone.find_element(By.CSS_SELECTOR, ".question").text
    assert asked == say("media:heard", "en", text=QUESTION)
    assert mic.get_attribute("aria-pressed") == "false"
    [request] = stt.requests[before:]
    recording = request["file"]
    assert recording["filename"].startswith("voice.") and len(recording["data"]) > 0


def test_the_microphone_is_hidden_where_the_browser_cannot_record(
    microphone: WebDriver, served_media: Served
) -> None:
    microphone.execute_cdp_cmd(
        "Page.addScriptToEvaluateOnNewDocument", {"source": "delete window.MediaRecorder;"}
    )
    _open_chat(microphone, served_media)
    assert not microphone.find_element(By.ID, "mic").is_displayed()
    assert microphone.find_element(By.ID, "photo").is_displayed()
    with urlopen(f"{served_media.url}/chat/config.json", timeout=10) as response:
        media = json.load(response)["media"]
    assert media["voice"] is True and media["photo"] is True
