"""OCR keeps a heading apart from the paragraph below it: a short line printed larger,
without a sentence's end, is set off by blank lines, so the chunker reads it as a
sentence of its own rather than the start of the paragraph's first sentence."""

from __future__ import annotations

from storage.ocr import box_height, heading_lines, join_lines, read_image
from storage.scans import ocr_image
from tests.support import scans
from textkit.sentences import split_sentences


def _page(heading: str, body: list[str], heading_size: int = 44, body_size: int = 26) -> bytes:
    """A PNG: `heading` printed large in DejaVu Sans (what CI has), then `body` smaller."""
    from PIL import Image, ImageDraw, ImageFont

    image = Image.new("L", (900, 120 + len(body) * body_size * 2), 255)
    draw = ImageDraw.Draw(image)
    draw.text((30, 20), heading, font=ImageFont.truetype(scans.FONT, heading_size), fill=0)
    for n, line in enumerate(body):
        y = 40 + heading_size + n * body_size * 2
        draw.text((30, y), line, font=ImageFont.truetype(scans.FONT, body_size), fill=0)
    return scans.encode(image, "PNG")


def test_a_rendered_heading_is_its_own_sentence() -> None:
    import io

    from PIL import Image

    data = _page(
        "Opening hours",
        [
            "The centre is open from nine to five on weekdays.",
            "It is closed on public holidays and on Sundays.",
        ],
    )
    text = read_image(Image.open(io.BytesIO(data)))
    # (the recogniser may drop the space of a large heading: what matters is the break)
    heading, _, body = text.partition("\n\n")
    assert heading.replace(" ", "") == "Openinghours", text
    assert body.startswith("The centre is open"), text
    assert "weekdays.\nIt is closed" in body, text  # body lines stay one paragraph
    sentences = split_sentences(text)
    assert sentences[0] == heading, sentences
    assert sentences[1].startswith("The centre is open"), sentences
    # the ingestion path (an uploaded image) keeps the break
    (block,) = ocr_image(data).blocks
    assert block.text.startswith(heading + "\n\nThe centre"), block.text


def test_lines_of_one_size_stay_one_paragraph() -> None:
    lines = [("Parking permits", 33.0), ("cost 42 dollars a year", 33.0), ("at the desk", 32.0)]
    assert heading_lines(lines) == [False, False, False]
    assert join_lines(lines) == "Parking permits\ncost 42 dollars a year\nat the desk"


def test_a_heading_needs_a_short_line_without_final_punctuation() -> None:
    body = ("The centre is open from nine to five on weekdays and closed on Sundays", 33.0)
    lines = [
        ("Opening hours", 45.0),  # a heading
        body,
        body,
        ("It is closed on public holidays.", 46.0),  # large, but a sentence
        body,
        ("A large line that is much too long to be anything but a wrapped paragraph", 46.0),
        body,
        body,
    ]
    assert heading_lines(lines) == [True] + [False] * 7
    assert join_lines(lines).startswith("Opening hours\n\nThe centre")


def test_a_heading_between_paragraphs_is_set_off_both_sides() -> None:
    lines = [("第一段的文字。", 30.0), ("開放時間", 42.0), ("週一至週五開放。", 30.0)]
    assert join_lines(lines) == "第一段的文字。\n\n開放時間\n\n週一至週五開放。"
    assert split_sentences(join_lines(lines))[1] == "開放時間"


def test_one_line_alone_is_never_a_heading() -> None:
    assert heading_lines([("Opening hours", 45.0)]) == [False]
    assert join_lines([]) == ""


def test_box_height_of_a_tilted_line() -> None:
    # a 30 px high line turned a few degrees: the edges' length, not the bounding box's
    box = [[0.0, 0.0], [400.0, 20.0], [398.5, 49.96], [-1.5, 29.96]]
    assert 29.5 < box_height(box) < 30.5
