"""Hostile files for the ingestion tests and the attack suite (bench/attacks.py).

Each is (file name, bytes, what the admin must be told: a fragment of the reason).
Bombs are built from compressed zeros, so making them costs little.
"""

from __future__ import annotations

import io
import os
import zipfile
import zlib

from tests.support.files import make_docx, make_encrypted_pdf, make_pdf

GIB = 1024**3


def _deflated_zeros(size: int) -> bytes:
    """A raw deflate stream of `size` zero bytes, compressed piecewise (little memory)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    piece = bytes(16 * 1024 * 1024)
    out = [packer.compress(piece) for _ in range(size // len(piece))]
    out.append(packer.compress(bytes(size % len(piece))))
    out.append(packer.flush())
    return b"".join(out)


def docx_zip_bomb(unpacked: int = 2 * GIB) -> bytes:
    """A DOCX whose document part inflates to `unpacked` bytes (honest zip headers)."""
    honest = zipfile.ZipFile(io.BytesIO(make_docx("Bomb", ["x"])))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as bomb:
        for info in honest.infolist():
            if info.filename != "word/document.xml":
                bomb.writestr(info, honest.read(info))
        # the big part written as a pre-compressed member: no gigabytes in memory here
        raw = _deflated_zeros(unpacked)
        member = zipfile.ZipInfo("word/document.xml")
        member.compress_type = zipfile.ZIP_DEFLATED
        crc = 0
        piece = bytes(16 * 1024 * 1024)
        for _ in range(unpacked // len(piece)):
            crc = zlib.crc32(piece, crc)
        crc = zlib.crc32(bytes(unpacked % len(piece)), crc)
        member.CRC, member.file_size, member.compress_size = crc, unpacked, len(raw)
        bomb.fp.write(member.FileHeader())  # type: ignore[union-attr]
        member.header_offset = bomb.fp.tell() - len(member.FileHeader())  # type: ignore[union-attr]
        bomb.fp.write(raw)  # type: ignore[union-attr]
        bomb.filelist.append(member)
        bomb.NameToInfo[member.filename] = member
        bomb.start_dir = bomb.fp.tell()  # type: ignore[union-attr]
    return out.getvalue()


def docx_lying_bomb(unpacked: int = GIB) -> bytes:
    """A DOCX whose headers claim a small document part that really inflates to `unpacked`."""
    data = bytearray(docx_zip_bomb(unpacked))
    # rewrite the central directory's uncompressed size of word/document.xml to 10 KB
    name = b"word/document.xml"
    at = data.rfind(b"PK\x01\x02", 0, data.rfind(name))
    data[at + 24 : at + 28] = (10_000).to_bytes(4, "little")
    return bytes(data)


def pdf_bomb(unpacked: int = GIB) -> bytes:
    """A one-page PDF whose content stream inflates to `unpacked` bytes."""
    packer = zlib.compressobj(9)
    piece = b" " * (16 * 1024 * 1024)
    parts = [packer.compress(piece) for _ in range(unpacked // len(piece))]
    parts.append(packer.flush())
    stream = b"".join(parts)
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R"
        b" /Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n" % number + body + b"\nendobj\n")
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    for offset in offsets:
        out.write(b"%010d 00000 n \n" % offset)
    out.write(
        b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    )
    return out.getvalue()


def scanned_pdf() -> bytes:
    """A PDF with drawings but no text layer (what a scanner produces, minus the photo)."""
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    for n in range(20):
        pdf.rect(10 + n * 4, 10 + n * 6, 80, 20)
    return bytes(pdf.output())


def nested_html(depth: int = 200_000) -> bytes:
    """HTML nested `depth` elements deep."""
    return b"<html><body>" + b"<div>" * depth + b"deep" + b"</div>" * depth + b"</body></html>"


def hostile_files(big: bool = True) -> list[tuple[str, bytes, str]]:
    """The hostile files: name, bytes, a fragment of the reason the admin must see.

    `big` False makes the bombs smaller (still over every limit) for quick tests.
    """
    size = 2 * GIB if big else 300 * 1024 * 1024
    return [
        ("zip-bomb.docx", docx_zip_bomb(size), "zip bomb"),
        ("lying-zip-bomb.docx", docx_lying_bomb(size // 2), "PARSE_" if big else "corrupt"),
        ("pdf-bomb.pdf", pdf_bomb(size // 2), "PDF"),
        ("nested.html", nested_html(), "nested too deeply"),
        ("one-line.txt", b"a" * (50 * 1024 * 1024 if big else 21 * 1024 * 1024), "MAX_FILE_MB"),
        ("binary.txt", os.urandom(200_000), "not text"),
        ("elf.md", b"\x7fELF\x02\x01\x01" + bytes(4000) + os.urandom(4000), "not text"),
        ("empty.txt", b"", "empty"),
        ("blank.md", b"   \n\n\t \n", "empty"),
        ("encrypted.pdf", make_encrypted_pdf(), "encrypted"),
        ("scanned.pdf", scanned_pdf(), "OCR"),
        ("truncated.pdf", make_pdf(["cut off half way"])[:300], "corrupt"),
        ("not-a-zip.docx", b"this is plain text pretending to be a DOCX " * 20, "corrupt"),
        ("script-only.html", b"<html><script>alert(1)</script></html>", "no text"),
        ("program.exe", b"MZ" + os.urandom(1000), "unsupported"),
        (
            "bad\x1b[31mname.md",
            b"# Title\n\nText with an escape in its name.",
            "control characters",
        ),
        ("invoice\u202efdp.md", b"# Invoice\n\nA right-to-left override in its name.", "control"),
    ]
