"""Optical character recognition of scanned pages and photos (Chinese and English), offline.

RapidOCR runs the PP-OCRv4 detection and recognition models that ship inside its
wheel on onnxruntime: nothing is downloaded at run time. The engine takes about
3 s to load, so it is loaded once per process, on first use. Callers run this in
the sandboxed parser process (storage.parse_worker), never in a serving process:
it is CPU work, and a crafted image is untrusted input.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from PIL.Image import Image

PDF_DPI = 200  # enough for 9-point print; more only costs time
MIN_SCORE = 0.5  # a line recognised with less confidence is noise, not text
# the detector sees the page scaled to at most this side: a 200-dpi A4 page (2339 px)
# shrinks to a size whose text (about 20 px high) it still finds, in half the time
DETECT_SIDE = 1600
MAX_PIXELS = 40_000_000  # a bigger image is a decompression bomb, not a scan
MAX_FRAMES = 500  # pages of a multi-page TIFF


class NoImageError(ValueError):
    """Bytes that are no image Pillow can open (the message says why)."""


@lru_cache(maxsize=1)
def engine() -> Any:
    """The OCR engine, loaded on first use and kept for the life of the process.

    One thread: the parser process runs at a lower priority beside the serving
    processes, and more threads on a loaded machine made it slower, not faster.
    The angle classifier is off: scans are upright, and it costs a third of the time.
    """
    from rapidocr_onnxruntime import RapidOCR

    return RapidOCR(
        intra_op_num_threads=1,
        inter_op_num_threads=1,
        det_limit_type="max",
        det_limit_side_len=DETECT_SIDE,
        use_cls=False,
    )


def read_image(image: Image) -> str:
    """The text OCR finds in `image`, one recognised line per line, in reading order.

    A heading (see `heading_lines`) stands apart, a blank line either side, so
    that it is not read into the paragraph below it as one sentence. Empty when
    nothing readable is there (a blank page, a photo of no text).
    """
    import numpy as np

    from textkit.word_breaks import restore_spaces

    result, _ = engine()(np.asarray(image.convert("RGB")), use_cls=False)
    lines = [
        # a photographed English line often comes without its spaces: put them back
        (restore_spaces(str(text).strip()), box_height(box))
        for box, text, score in (result or [])
        if float(score) >= MIN_SCORE and str(text).strip()
    ]
    return join_lines(lines)


# a heading is a short line without a sentence's end, printed larger than the body
HEADING_CHARS = 50
HEADING_SCALE = 1.2  # its box at least this much higher than the page's median line


def box_height(box: Any) -> float:
    """The height of a recognised line's box (four corners, clockwise from top left):
    the mean of its left and right edges, so a tilted photo's lines measure true."""
    (x0, y0), (x1, y1), (x2, y2), (x3, y3) = ((float(x), float(y)) for x, y in box)
    left = ((x3 - x0) ** 2 + (y3 - y0) ** 2) ** 0.5
    right = ((x2 - x1) ** 2 + (y2 - y1) ** 2) ** 0.5
    return (left + right) / 2


def heading_lines(lines: list[tuple[str, float]]) -> list[bool]:
    """Which of the recognised (text, box height) lines are headings: short, no final
    punctuation, and higher than the median line. One line alone is never a heading:
    there is no body to compare it with, nor to keep it from."""
    from statistics import median

    from textkit.sentences import ends_sentence

    if len(lines) < 2:
        return [False] * len(lines)
    typical = median(height for _, height in lines)
    return [
        len(text) <= HEADING_CHARS and not ends_sentence(text) and height >= HEADING_SCALE * typical
        for text, height in lines
    ]


def join_lines(lines: list[tuple[str, float]]) -> str:
    """The lines' text, one per line, a heading set off by a blank line either side
    (the chunker splits sentences there: a single line break is a wrapped line)."""
    out = ""
    previous = False
    for (text, _), heading in zip(lines, heading_lines(lines), strict=True):
        if out:
            out += "\n\n" if heading or previous else "\n"
        out += text
        previous = heading
    return out


def image_pages(data: bytes) -> list[Image]:
    """The pages of an image file (several for a multi-page TIFF), decoded and checked.

    NoImageError when the bytes are no image, or one too large to be a scan.
    """
    from PIL import Image as PILImage
    from PIL import ImageSequence, UnidentifiedImageError

    PILImage.MAX_IMAGE_PIXELS = MAX_PIXELS  # over it, Pillow raises instead of decoding
    try:
        opened = PILImage.open(io.BytesIO(data))
        pages = []
        for number, frame in enumerate(ImageSequence.Iterator(opened), start=1):
            if number > MAX_FRAMES:
                raise NoImageError(f"the image has more than {MAX_FRAMES} pages")
            pages.append(frame.convert("RGB"))
    except PILImage.DecompressionBombError as exc:
        raise NoImageError(
            f"the image is larger than {MAX_PIXELS // 1_000_000} million pixels"
        ) from exc
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError) as exc:
        raise NoImageError(f"the image is corrupt or unreadable ({type(exc).__name__})") from exc
    return pages


def pdf_page_images(data: bytes, numbers: list[int]) -> Iterator[tuple[int, Image]]:
    """Pages `numbers` (from 1) of a PDF, each rendered at PDF_DPI in grey, one at a time."""
    import pypdfium2

    document = pypdfium2.PdfDocument(data)
    try:
        for number in numbers:
            page = document[number - 1]
            try:
                yield number, page.render(scale=PDF_DPI / 72, grayscale=True).to_pil()
            finally:
                page.close()
    finally:
        document.close()
