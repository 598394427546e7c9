"""Case titles kept for staff answers: look-alike spellings are kept too."""

from __future__ import annotations

import pytest

from storage import origins
from storage.origins import CASE, FILE, title_problem


@pytest.mark.parametrize(
    "title",
    [
        "Staff answer #12",
        "Staff answer ＃12",  # full-width number sign
        "Ｓｔａｆｆ answer #12",  # full-width letters
        "Staff\u200banswer #12",  # a zero-width space between the words
        "\u200bStaff answer #12",
    ],
)
def test_a_file_cannot_take_a_case_title_in_a_look_alike_spelling(title: str) -> None:
    assert title_problem(title, FILE) is not None


def test_ordinary_titles_and_case_titles_of_cases_pass() -> None:
    assert title_problem("Staff handbook #2", FILE) is None
    assert title_problem("Staff answer #12", CASE) is None


def test_the_console_answers_title_is_kept_for_the_console() -> None:
    title = origins.console_title("public")
    assert title == "Answers from the console (public)"
    assert origins.title_problem(title, origins.CONSOLE) is None
    for lookalike in (title, "answers from the console", "Ａｎｓｗｅｒｓ from the console (x)"):
        assert "kept for the answers published" in str(origins.title_problem(lookalike, "file"))
        assert origins.title_problem(lookalike, origins.CASE) is not None
    assert origins.title_problem("Parking permits", origins.CONSOLE) is not None
    assert "admin console" in str(origins.replace_problem(origins.FILE, origins.CONSOLE))
    assert origins.replace_problem(origins.CONSOLE, origins.CONSOLE) is None
