"""Generated scans for OCR tests: small images of printed lines, and image-only PDFs.

English text in DejaVu Sans (this machine has no CJK font, so no Chinese scans).
Images are kept small: OCR time grows with the pixels.
"""

from __future__ import annotations

import io

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


def text_image(lines: list[str], size: int = 28, width: int = 900) -> bytes:
    """A white image with `lines` printed in black, as PNG bytes."""
    from PIL import Image, ImageDraw, ImageFont

    font = ImageFont.truetype(FONT, size)
    image = Image.new("L", (width, 40 + len(lines) * size * 2), 255)
    draw = ImageDraw.Draw(image)
    for n, line in enumerate(lines):
        draw.text((30, 25 + n * size * 2), line, font=font, fill=0)
    return encode(image, "PNG")


def blank_image(width: int = 400, height: int = 200) -> bytes:
    """A white PNG: a photo of nothing readable."""
    from PIL import Image

    return encode(Image.new("L", (width, height), 255), "PNG")


def encode(image: object, fmt: str) -> bytes:
    """`image` (a Pillow image) saved as `fmt`."""
    out = io.BytesIO()
    image.save(out, fmt)  # type: ignore[attr-defined]
    return out.getvalue()


def scanned_pdf(pages: list[list[str] | str | None]) -> bytes:
    """A small-paged PDF: a list of lines is a scanned page (an image, no text layer),
    a string a page with a text layer, None a blank scanned page."""
    from fpdf import FPDF

    pdf = FPDF(format=(120, 50))  # millimetres: about 950 x 400 px at 200 dpi
    pdf.set_auto_page_break(False)
    for page in pages:
        pdf.add_page()
        if isinstance(page, str):
            pdf.set_font("helvetica", size=12)
            pdf.set_xy(5, 10)
            pdf.multi_cell(110, 6, page)
        else:
            picture = text_image(page) if page else blank_image(900, 360)
            pdf.image(io.BytesIO(picture), x=0, y=0, w=120)
    return bytes(pdf.output())
