"""Fixture files the tests generate: one per supported format, and broken ones."""

from __future__ import annotations

import io


def make_pdf(pages: list[str]) -> bytes:
    """A text-layer PDF with one page per string (Latin text: core fonts)."""
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_font("Helvetica", size=12)
    for body in pages:
        pdf.add_page()
        pdf.multi_cell(0, 8, body)
    return bytes(pdf.output())


def make_encrypted_pdf() -> bytes:
    """A password-protected PDF."""
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(make_pdf(["secret text"]))))
    writer.encrypt("pw")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def make_docx(heading: str, paragraphs: list[str]) -> bytes:
    """A DOCX with a heading and paragraphs."""
    import docx

    document = docx.Document()
    document.add_heading(heading, level=1)
    for p in paragraphs:
        document.add_paragraph(p)
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


HTML = (
    "<html><head><title>t</title><script>var x = 'do not index';</script></head><body>"
    "<h1>Recycling collection</h1><p>Glass and paper are collected every Tuesday morning.</p>"
    "</body></html>"
)
MARKDOWN = (
    "# 垃圾分類\n\n廚餘每週一、三、五收運，請於晚上七點前放置。\n\n"
    "## 大型家具\n\n大型家具需事先預約清運。\n"
)
TEXT = "Dog licences are renewed every year at the City Service Centre for 300 dollars.\n"
