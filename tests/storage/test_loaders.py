"""Each supported format yields text; each bad file gets a clear reason."""

from __future__ import annotations

import pytest

from storage.loaders import UnreadableFileError, detect_format, load_blocks
from tests.support import files


def test_pdf_keeps_page_numbers() -> None:
    blocks, pages = load_blocks(files.make_pdf(["First page text.", "Second page text."]), "pdf")
    assert pages == 2
    assert [(b.page, "page text" in b.text) for b in blocks] == [(1, True), (2, True)]


def test_docx_keeps_headings() -> None:
    blocks, _ = load_blocks(files.make_docx("Parking", ["Permits cost 1,200 a year."]), "docx")
    assert blocks[0].heading == "Parking"
    assert "1,200" in blocks[0].text


def test_html_drops_scripts_and_keeps_headings() -> None:
    blocks, _ = load_blocks(files.HTML.encode(), "html")
    assert blocks[0].heading == "Recycling collection"
    assert "Tuesday" in blocks[0].text
    assert all("do not index" not in b.text for b in blocks)


def test_markdown_sections() -> None:
    blocks, _ = load_blocks(files.MARKDOWN.encode(), "markdown")
    assert [b.heading for b in blocks] == ["垃圾分類", "大型家具"]


HANT = "護照申請須知：申請人應親自到場辦理，規費新臺幣一千三百元，約需四個工作天。"
HANS = "图书馆借书证办理：携带身份证到服务台，工本费二十元，当日即可领取。"


@pytest.mark.parametrize(
    ("text", "encoding"),
    [
        (HANT, "big5"),
        (HANT, "utf-16"),  # with its byte-order mark
        (HANT, "utf-8-sig"),
        (HANS, "gb18030"),
        (HANS, "utf-16"),
        (HANS, "utf-8"),
        ("Dog licences are renewed every year for 300 dollars.", "utf-16-le"),  # no BOM
    ],
)
def test_text_encodings_are_detected(text: str, encoding: str) -> None:
    blocks, _ = load_blocks(text.encode(encoding), "txt")
    assert blocks[0].text == text  # a BOM is not part of the text


def test_binary_data_named_txt_is_refused() -> None:
    with pytest.raises(UnreadableFileError, match="not text"):
        load_blocks(bytes(range(256)) * 50, "txt")


@pytest.mark.parametrize(
    ("name", "data", "reason"),
    [
        ("x.pdf", b"%PDF-1.4\nthis is not really a pdf", "corrupt"),
        ("x.docx", b"PK\x03\x04 broken zip", "corrupt"),
        ("x.txt", b"   \n  ", "empty"),
        ("x.pdf", files.make_encrypted_pdf(), "encrypted"),
    ],
)
def test_bad_files_raise_clear_errors(name: str, data: bytes, reason: str) -> None:
    with pytest.raises(UnreadableFileError, match=reason):
        load_blocks(data, detect_format(name))


def test_unsupported_type() -> None:
    with pytest.raises(UnreadableFileError, match="unsupported file type"):
        detect_format("photo.heic")


def test_scans_and_photos_are_read_as_images() -> None:
    assert {detect_format(f"scan.{s}") for s in ("png", "JPG", "jpeg", "webp", "tif", "tiff")} == {
        "image"
    }


def test_what_a_loader_leaves_out_is_neither_stored_nor_screened() -> None:
    """DOCX headers, footers and core properties and HTML attributes are not extracted:
    not stored, so not screened (textkit.personal_data states the rule)."""
    import io

    import docx

    from textkit.personal_data import scan

    document = docx.Document()
    document.add_paragraph("Dog licences cost 300 dollars a year.")
    section = document.sections[0]
    section.header.paragraphs[0].text = "Clerk: jane.roe@example.com"
    section.footer.paragraphs[0].text = "Desk 0912-345-678"
    document.core_properties.author = "Jane Roe A123456789"
    out = io.BytesIO()
    document.save(out)
    page = (
        b"<html><head><title>jane.roe@example.com</title></head><body>"
        b'<p><a href="mailto:jane.roe@example.com" title="0912-345-678">Write to the clerk</a>'
        b'<img alt="A123456789" src="x.png"></p><footer>0912-345-678</footer></body></html>'
    )
    for data, fmt in ((out.getvalue(), "docx"), (page, "html")):
        blocks, _ = load_blocks(data, fmt)
        stored = "\n".join(f"{b.heading or ''}\n{b.text}" for b in blocks)
        assert "example.com" not in stored and "345-678" not in stored and "A123" not in stored
        assert scan([(b.text, b.page, b.heading) for b in blocks]) is None
