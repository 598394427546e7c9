"""Turn a file into text blocks: PDF, DOCX, TXT, Markdown, HTML, and images (by OCR).

PDF pages without a text layer and image files are read by OCR (storage.scans).

The blocks are all of a file that is stored, answered from and screened for
personal data. Not extracted, so neither stored nor screened: DOCX headers,
footers, footnotes, comments, text boxes and core properties; HTML attributes,
`<head>`, `<nav>`, `<footer>`, scripts, styles and comments; PDF annotations and
metadata (textkit.personal_data states the rule).
"""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

from storage.chunking import Block

SUPPORTED_SUFFIXES = {
    ".pdf": "pdf",
    ".docx": "docx",
    ".txt": "txt",
    ".text": "txt",
    ".md": "markdown",
    ".markdown": "markdown",
    ".html": "html",
    ".htm": "html",
    # scans and photos, read by OCR (storage.scans)
    ".png": "image",
    ".jpg": "image",
    ".jpeg": "image",
    ".webp": "image",
    ".tif": "image",
    ".tiff": "image",
}
# a real DOCX unpacks to a few times its size; hundreds of MB of XML is an attack
MAX_UNPACKED_BYTES = 200 * 1024 * 1024
_HTML_HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
_HTML_BLOCKS = _HTML_HEADINGS | {
    "p", "li", "td", "th", "pre", "div", "section", "article",
    "blockquote", "dd", "dt", "caption", "figcaption",
}  # fmt: skip
MAX_HTML_DEPTH = 512
_HTML_TAG = re.compile(
    # no part of a tag crosses a "<": a page of unclosed tags stays a linear scan
    rb"<(/?)([a-zA-Z][a-zA-Z0-9-]*)(?=[\s/>])(?:[^<>\"']|\"[^<\"]*\"|'[^<']*')*?(?<!/)>"
)
_UNCOUNTED_TAGS = {  # void elements, and those authors may leave open
    b"area", b"base", b"br", b"col", b"embed", b"hr", b"img", b"input", b"link", b"meta",
    b"source", b"track", b"wbr", b"p", b"li", b"dt", b"dd", b"tr", b"td", b"th", b"option",
    b"thead", b"tbody", b"tfoot", b"colgroup", b"rp", b"rt",
}  # fmt: skip
_MD_HEADING = re.compile(r"^(#{1,6})\s+(.*)$")


class UnreadableFileError(ValueError):
    """A file that cannot be ingested; the message is shown to the admin as is."""


def detect_format(name: str) -> str:
    """The format of a file by its name, or an error naming what is supported."""
    fmt = SUPPORTED_SUFFIXES.get(Path(name).suffix.lower())
    if fmt is None:
        supported = ", ".join(sorted({s.lstrip(".") for s in SUPPORTED_SUFFIXES}))
        raise UnreadableFileError(f"unsupported file type (supported: {supported})")
    return fmt


def load_blocks(data: bytes, fmt: str) -> tuple[list[Block], int | None]:
    """Text blocks of a file and its page count (PDF and multi-page TIFF only).

    Scanned PDF pages and images are OCR'd here, in this process: ingestion calls
    this in the sandboxed parser process (storage.parse_worker) for them.
    """
    if not data.strip():
        raise UnreadableFileError("the file is empty")
    if fmt in ("pdf", "image"):
        return _scanned(data, fmt)
    if fmt == "docx":
        blocks, pages = _docx(data), None
    elif fmt == "html":
        blocks, pages = _html(data), None
    elif fmt == "markdown":
        blocks, pages = _markdown(decode_text(data)), None
    else:
        blocks, pages = [Block(decode_text(data))], None
    blocks = [b for b in blocks if b.text.strip()]
    if not blocks:
        raise UnreadableFileError("no text could be extracted")
    return blocks, pages


def decode_text(data: bytes) -> str:
    """Text of a plain-text file in whatever encoding it came (BOMs, UTF-16, Big5, GB18030...).

    UTF-8 is tried first (most files, and the cheapest check); anything else is
    left to charset-normalizer. Bytes that are no text at all are refused.
    """
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        text = data.decode("utf-8")
        if "\x00" in text:  # UTF-16 without a BOM is valid UTF-8 full of NULs
            raise UnicodeDecodeError("utf-8", data, 0, 1, "NUL characters")
    except UnicodeDecodeError:
        import charset_normalizer

        best = charset_normalizer.from_bytes(data).best()
        if best is None:
            raise UnreadableFileError(
                "the file is not text (binary data, or an encoding that cannot be recognised)"
            ) from None
        text = str(best)
    if _control_share(text) > 0.01:
        raise UnreadableFileError("the file is not text (it holds binary data)")
    return text


def _control_share(text: str) -> float:
    """The share of control characters other than line breaks and tabs (binary tell-tale)."""
    sample = text[:100_000]
    if not sample:
        return 0.0
    controls = sum(1 for ch in sample if ch < " " and ch not in "\n\r\t\f") + sample.count("\x7f")
    return controls / len(sample)


def _scanned(data: bytes, fmt: str) -> tuple[list[Block], int | None]:
    """A PDF (text layer, OCR where it has none) or an image (OCR), in this process."""
    from storage import scans

    if fmt == "image":
        scan = scans.ocr_image(data)
        return scan.blocks, scan.pages
    text = scans.pdf_text(data)
    blocks = text.blocks
    if text.scanned:
        blocks = sorted([*blocks, *scans.ocr_pdf(data, text.scanned).blocks], key=_page)
    if not blocks:
        raise UnreadableFileError(scans.no_text_found("pdf", text.pages))
    return blocks, text.pages


def _page(block: Block) -> int:
    return block.page or 0


def pdf_pages(data: bytes) -> tuple[list[Block], int]:
    """Every page of a PDF's text layer, one block per page (empty for a scanned page)."""
    from pypdf import PdfReader
    from pypdf.errors import LimitReachedError, PdfReadError

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            raise UnreadableFileError("the PDF is encrypted (remove the password first)")
        blocks = [
            Block(page.extract_text() or "", page=number)
            for number, page in enumerate(reader.pages, start=1)
        ]
    except UnreadableFileError:
        raise
    except LimitReachedError as exc:
        raise UnreadableFileError(
            f"the PDF's streams expand beyond safe limits (a decompression bomb?): {exc}"
        ) from exc
    except (PdfReadError, ValueError, KeyError, TypeError, OSError) as exc:
        raise UnreadableFileError(f"the PDF is corrupt or unreadable ({exc})") from exc
    return blocks, len(blocks)


def _docx(data: bytes) -> list[Block]:
    import zipfile

    import docx

    _check_zip(data)
    try:
        document = docx.Document(io.BytesIO(data))
    except (zipfile.BadZipFile, KeyError, ValueError) as exc:
        raise UnreadableFileError(f"the DOCX is corrupt or unreadable ({exc})") from exc
    blocks: list[Block] = []
    heading: str | None = None
    lines: list[str] = []
    for para in document.paragraphs:
        style = (para.style.name if para.style is not None else "") or ""
        if style.lower().startswith(("heading", "title")) and para.text.strip():
            if lines:
                blocks.append(Block("\n\n".join(lines), heading=heading))
            heading, lines = para.text.strip(), []
        elif para.text.strip():
            lines.append(para.text.strip())
    for table in document.tables:
        for row in table.rows:
            lines.append(" | ".join(cell.text.strip() for cell in row.cells))
    if lines:
        blocks.append(Block("\n\n".join(lines), heading=heading))
    return blocks


def _check_zip(data: bytes) -> None:
    """Refuse a DOCX whose parts would inflate far beyond any real document (a zip bomb)."""
    import zipfile

    try:
        members = zipfile.ZipFile(io.BytesIO(data)).infolist()
    except (zipfile.BadZipFile, ValueError) as exc:
        raise UnreadableFileError(f"the DOCX is corrupt or unreadable ({exc})") from exc
    unpacked = sum(m.file_size for m in members)
    packed = max(1, sum(m.compress_size for m in members))
    if unpacked > MAX_UNPACKED_BYTES or (unpacked > 10 * 1024 * 1024 and unpacked / packed > 100):
        raise UnreadableFileError(
            f"the DOCX would unpack to {unpacked / 1024 / 1024:,.0f} MB from"
            f" {len(data) / 1024:,.0f} KB (a zip bomb?)"
        )


def canonical_url(data: bytes) -> str | None:
    """An HTML page's `<link rel="canonical">` (http/https only), or None."""
    from bs4 import BeautifulSoup, SoupStrainer

    # only <link> tags are parsed: the page itself was read by load_blocks
    links = BeautifulSoup(data, "html.parser", parse_only=SoupStrainer("link"))
    link = links.find("link", rel="canonical")
    href = str(link.get("href") or "").strip() if link is not None else ""
    return href if href.startswith(("http://", "https://")) else None


def _check_nesting(data: bytes) -> None:
    """Refuse HTML nested deeper than any page a person wrote (parsers slow down or recurse).

    Elements HTML lets authors leave open (p, li, td...) are not counted, so
    sloppy but honest pages pass.
    """
    depth = deepest = 0
    for closing, name in _HTML_TAG.findall(data):
        tag = name.lower()
        if tag in _UNCOUNTED_TAGS:
            continue
        depth = max(0, depth - 1) if closing else depth + 1
        deepest = max(deepest, depth)
        if deepest > MAX_HTML_DEPTH:
            raise UnreadableFileError(
                f"the HTML is nested more than {MAX_HTML_DEPTH} elements deep"
                " (its structure is nested too deeply to read)"
            )


def _html(data: bytes) -> list[Block]:
    from bs4 import BeautifulSoup

    _check_nesting(data)
    soup = BeautifulSoup(data, "html.parser")
    for tag in soup(["script", "style", "nav", "footer", "head"]):
        tag.decompose()
    blocks: list[Block] = []
    heading: str | None = None
    lines: list[str] = []
    for name, text in _html_segments(soup):
        if name in _HTML_HEADINGS:
            if lines:
                blocks.append(Block("\n\n".join(lines), heading=heading))
            heading, lines = text, []
        else:
            lines.append(text)
    if lines:
        blocks.append(Block("\n\n".join(lines), heading=heading))
    return blocks


def _html_segments(soup: Any) -> list[tuple[str, str]]:
    """(block tag, its own text) in page order; each piece of text counted once.

    Text belongs to its nearest block ancestor: asking each block for all its
    text would repeat nested blocks (an unclosed `<p>` nests every later one,
    which made the text grow with the square of the page).
    """
    from bs4 import CData, Comment, Declaration, Doctype, ProcessingInstruction

    segments: list[tuple[str, str]] = []
    owner: Any = None
    parts: list[str] = []
    for piece in soup.find_all(string=True):
        if isinstance(piece, Comment | Doctype | Declaration | ProcessingInstruction | CData):
            continue
        block = next((p for p in piece.parents if p.name in _HTML_BLOCKS), None)
        if block is not owner and parts:
            segments.append(_segment(owner, parts))
            parts = []
        owner = block
        parts.append(str(piece))
    if parts:
        segments.append(_segment(owner, parts))
    return [(name, text) for name, text in segments if text]


def _segment(owner: Any, parts: list[str]) -> tuple[str, str]:
    name = owner.name if owner is not None else ""
    return name, " ".join(" ".join(parts).split())


def _markdown(text: str) -> list[Block]:
    blocks: list[Block] = []
    heading: str | None = None
    lines: list[str] = []
    for line in text.splitlines():
        match = _MD_HEADING.match(line.strip())
        if match:
            if "".join(lines).strip():
                blocks.append(Block("\n".join(lines), heading=heading))
            heading, lines = match.group(2).strip(), []
        else:
            lines.append(line)
    if "".join(lines).strip():
        blocks.append(Block("\n".join(lines), heading=heading))
    return blocks
