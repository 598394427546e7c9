"""Turn a file into text blocks: PDF (text layer), DOCX, TXT, Markdown, HTML."""

from __future__ import annotations

import io
import re
from pathlib import Path

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
}
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
    """Text blocks of a file and its page count (PDF only)."""
    if not data.strip():
        raise UnreadableFileError("the file is empty")
    if fmt == "pdf":
        blocks, pages = _pdf(data)
    elif fmt == "docx":
        blocks, pages = _docx(data), None
    elif fmt == "html":
        blocks, pages = _html(data), None
    elif fmt == "markdown":
        blocks, pages = _markdown(_decode(data)), None
    else:
        blocks, pages = [Block(_decode(data))], None
    blocks = [b for b in blocks if b.text.strip()]
    if not blocks:
        hint = " (a scanned PDF needs OCR first)" if fmt == "pdf" else ""
        raise UnreadableFileError(f"no text could be extracted{hint}")
    return blocks, pages


def _decode(data: bytes) -> str:
    # UTF-16 only with its byte-order mark: any even-length bytes "decode" as UTF-16.
    encodings = ("utf-16",) if data[:2] in (b"\xff\xfe", b"\xfe\xff") else ()
    for encoding in (*encodings, "utf-8-sig", "big5", "gb18030"):
        try:
            text = data.decode(encoding)
        except UnicodeDecodeError:
            continue
        if "\x00" not in text:
            return text
    raise UnreadableFileError("the text is not in a known encoding (UTF-8, UTF-16, Big5, GB18030)")


def _pdf(data: bytes) -> tuple[list[Block], int]:
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

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
    except (PdfReadError, ValueError, KeyError, TypeError, OSError) as exc:
        raise UnreadableFileError(f"the PDF is corrupt or unreadable ({exc})") from exc
    return blocks, len(blocks)


def _docx(data: bytes) -> list[Block]:
    import zipfile

    import docx

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


def canonical_url(data: bytes) -> str | None:
    """An HTML page's `<link rel="canonical">` (http/https only), or None."""
    from bs4 import BeautifulSoup, SoupStrainer

    # only <link> tags are parsed: the page itself was read by load_blocks
    links = BeautifulSoup(data, "html.parser", parse_only=SoupStrainer("link"))
    link = links.find("link", rel="canonical")
    href = str(link.get("href") or "").strip() if link is not None else ""
    return href if href.startswith(("http://", "https://")) else None


def _html(data: bytes) -> list[Block]:
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(data, "html.parser")
    for tag in soup(["script", "style", "nav", "footer", "head"]):
        tag.decompose()
    blocks: list[Block] = []
    heading: str | None = None
    lines: list[str] = []
    for el in soup.find_all(["h1", "h2", "h3", "h4", "h5", "h6", "p", "li", "td", "pre"]):
        text = el.get_text(" ", strip=True)
        if not text:
            continue
        if el.name and el.name.startswith("h"):
            if lines:
                blocks.append(Block("\n\n".join(lines), heading=heading))
            heading, lines = text, []
        else:
            lines.append(text)
    if lines:
        blocks.append(Block("\n\n".join(lines), heading=heading))
    if not blocks:  # markup without block tags: take all visible text
        blocks.append(Block(soup.get_text("\n", strip=True)))
    return blocks


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
