"""Text of scanned documents: PDF pages without a text layer and image files, by OCR.

A PDF is read page by page: pages with a text layer keep it, the others are
rendered and OCR'd, so a mixed PDF loses neither. Page numbers stay on every
block (citations name them). A page where OCR finds nothing readable is named
in `Scan.unread`, never stored as an empty page. Run in the sandboxed parser
process (storage.parse_worker): rendering and OCR are CPU work on untrusted bytes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from storage.chunking import Block
from storage.loaders import UnreadableFileError


@dataclass(frozen=True)
class Scan:
    """What was read from a file: blocks with text, its page count, and the pages
    (from 1) where no text was found: `scanned` before OCR, `unread` after it."""

    blocks: list[Block]
    pages: int | None
    scanned: list[int] = field(default_factory=list)
    unread: list[int] = field(default_factory=list)


def pdf_text(data: bytes) -> Scan:
    """The PDF's text layer page by page; pages without one are listed in `scanned`."""
    from storage.loaders import pdf_pages

    blocks, pages = pdf_pages(data)
    scanned = [b.page for b in blocks if not b.text.strip() and b.page is not None]
    return Scan([b for b in blocks if b.text.strip()], pages, scanned=scanned)


def ocr_pdf(data: bytes, numbers: list[int]) -> Scan:
    """Pages `numbers` of a PDF, rendered and OCR'd; those with nothing readable in `unread`."""
    from storage.ocr import pdf_page_images, read_image

    blocks: list[Block] = []
    unread: list[int] = []
    try:
        for number, image in pdf_page_images(data, numbers):
            text = read_image(image)
            if text:
                blocks.append(Block(text, page=number))
            else:
                unread.append(number)
    except (ValueError, OSError) as exc:  # pdfium refuses what pypdf read: still a bad file
        raise UnreadableFileError(f"the PDF's scanned pages cannot be rendered ({exc})") from exc
    return Scan(blocks, None, unread=unread)


def ocr_image(data: bytes) -> Scan:
    """An image file's text by OCR; a multi-page TIFF page by page.

    UnreadableFileError when no page holds readable text: an empty document is
    never stored.
    """
    from storage.ocr import NoImageError, image_pages, read_image

    try:
        images = image_pages(data)
    except NoImageError as exc:
        raise UnreadableFileError(str(exc)) from exc
    several = len(images) > 1
    blocks: list[Block] = []
    unread: list[int] = []
    for number, image in enumerate(images, start=1):
        text = read_image(image)
        if text:
            blocks.append(Block(text, page=number if several else None))
        else:
            unread.append(number)
    if not blocks:
        raise UnreadableFileError(no_text_found("image", len(images)))
    return Scan(blocks, len(images) if several else None, unread=unread if several else [])


def no_text_found(kind: str, pages: int | None) -> str:
    """The reason a scan with no readable text at all is refused."""
    if kind == "image" and (pages or 1) == 1:
        return "no readable text was found in the image (OCR read nothing on it)"
    return (
        f"no readable text was found in the {kind.upper() if kind == 'pdf' else kind}:"
        f" it has no text layer and OCR read nothing on its {pages} page(s)"
    )


def unread_note(unread: list[int]) -> str | None:
    """What an admin is told about pages OCR could not read (they were not stored)."""
    if not unread:
        return None
    shown = ", ".join(str(n) for n in unread[:20]) + (" ..." if len(unread) > 20 else "")
    return f"no readable text on page(s) {shown}: not stored"
