"""OCR quality and speed per script, on dev-set passages printed as phone photos.

    python -m bench.ocr_quality [--passages 2] [--seed 11]

Passages of the evaluation sets (Traditional Chinese from DRCD, Simplified from
XQuAD zh, English from XQuAD en) are printed in Noto Sans CJK (Debian's
`fonts-noto-cjk`: a benchmark extra, not a project dependency) onto an off-white
page at about the size a phone photo of a printed page gives, then distorted:
clean, rotated a few degrees, low contrast, noise and blur, JPEG-compressed.
Each page is read by `storage.scans.ocr_image` (what ingestion does with an
uploaded image) in this process, so the time is the OCR's, not the sandbox's.
Prints the character error rate per script and distortion and the pages per
second, and writes bench/results/ocr_quality.json. The renderer and the scoring
are shared with bench.ocr_retrieval and bench.voice.
"""

from __future__ import annotations

import argparse
import io
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bench.common import CORPORA, mean, print_table, write_json
from bench.ocr import distance

if TYPE_CHECKING:
    from PIL.Image import Image

CJK_FONT = Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc")
FONT_PACKAGE = "fonts-noto-cjk"
# the face of the collection each script is printed in (Latin comes with every face)
FACES = {"zh-hant": "Noto Sans CJK TC", "zh-hans": "Noto Sans CJK SC", "en": "Noto Sans CJK SC"}
SCRIPTS = {  # script → the evaluation set its passages come from
    "zh-hant": "drcd (zh-hant)",
    "zh-hans": "xquad.zh (zh-hans)",
    "en": "xquad.en (en)",
}
TEXT_PX = 30  # body text height of a phone photo of an A4 page, 1500 px wide
PAGE_WIDTH = 1100
PAPER, INK = 246, 25  # off-white paper, near-black ink


def require_font() -> None:
    """Exit non-zero, naming the Debian package, when the CJK font is missing."""
    if not CJK_FONT.exists():
        print(
            f"{CJK_FONT} is missing: install Debian's {FONT_PACKAGE}"
            f" (apt-get install {FONT_PACKAGE}) to run this benchmark",
            file=sys.stderr,
        )
        raise SystemExit(2)


def font(script: str, size: int = TEXT_PX) -> Any:
    """The Noto Sans CJK face for `script` at `size` px."""
    from PIL import ImageFont

    for index in range(10):
        face = ImageFont.truetype(str(CJK_FONT), size, index=index)
        if face.getname()[0] == FACES[script]:
            return face
    raise SystemExit(f"{CJK_FONT} has no face {FACES[script]!r}")


def wrap(text: str, face: Any, width: int, script: str) -> list[str]:
    """`text` broken into lines no wider than `width` px: at spaces in English,
    between any two characters in Chinese (as Chinese is printed, spaces or not)."""
    english = script == "en"
    words = text.split(" ") if english else list(text)
    lines: list[str] = []
    line = ""
    for word in words:
        candidate = (f"{line} {word}" if english else line + word) if line else word
        if line and face.getlength(candidate) > width:
            lines.append(line)
            line = word.lstrip()
        else:
            line = candidate
    if line:
        lines.append(line)
    return lines


def render(text: str, script: str, size: int = TEXT_PX, width: int = PAGE_WIDTH) -> Image:
    """`text` printed on a page `width` px wide, its height as the lines need."""
    from PIL import Image, ImageDraw

    face = font(script, size)
    margin = 50
    lines = wrap(" ".join(text.split()), face, width - 2 * margin, script)
    step = int(size * 1.6)
    page = Image.new("L", (width, 2 * margin + step * len(lines)), PAPER)
    draw = ImageDraw.Draw(page)
    for n, line in enumerate(lines):
        draw.text((margin, margin + n * step), line, font=face, fill=INK)
    return page


def _rotated(page: Image, rng: random.Random) -> Image:
    from PIL import Image as PILImage

    angle = rng.choice([-1, 1]) * rng.uniform(2.0, 4.0)
    return page.rotate(angle, resample=PILImage.Resampling.BICUBIC, expand=True, fillcolor=PAPER)


def _low_contrast(page: Image, rng: random.Random) -> Image:
    # grey ink on a grey page: a dim room, a faded print (ink 150, paper 215)
    return page.point(lambda v: int(150 + (v - INK) * (215 - 150) / (PAPER - INK)))


def _noise_blur(page: Image, rng: random.Random) -> Image:
    import numpy as np
    from PIL import Image as PILImage
    from PIL import ImageFilter

    blurred = np.asarray(page.filter(ImageFilter.GaussianBlur(1.3)), dtype=np.float32)
    noise = np.random.default_rng(rng.randrange(1 << 30)).normal(0, 14, blurred.shape)
    return PILImage.fromarray(np.clip(blurred + noise, 0, 255).astype(np.uint8))


def _jpeg(page: Image, rng: random.Random) -> Image:
    from PIL import Image as PILImage

    # a phone's photo sent on at low quality (and scaled down, as messengers do)
    small = page.resize((page.width * 3 // 4, page.height * 3 // 4))
    out = io.BytesIO()
    small.save(out, "JPEG", quality=25)
    return PILImage.open(io.BytesIO(out.getvalue()))


def _photo(page: Image, rng: random.Random) -> Image:
    """A plain phone photo: slightly turned, slightly soft, JPEG at quality 60."""
    from PIL import Image as PILImage
    from PIL import ImageFilter

    angle = rng.uniform(-1.5, 1.5)
    turned = page.rotate(angle, resample=PILImage.Resampling.BICUBIC, expand=True, fillcolor=PAPER)
    soft = turned.filter(ImageFilter.GaussianBlur(0.6))
    out = io.BytesIO()
    soft.save(out, "JPEG", quality=60)
    return PILImage.open(io.BytesIO(out.getvalue()))


DISTORTIONS: dict[str, Callable[[Image, random.Random], Image]] = {
    "clean": lambda page, rng: page,
    "rotated 2-4°": _rotated,
    "low contrast": _low_contrast,
    "noise + blur": _noise_blur,
    "JPEG q25, 3/4 size": _jpeg,
}


def photo(text: str, script: str, rng: random.Random, distortion: str = "photo") -> bytes:
    """`text` printed and photographed (`distortion`: a DISTORTIONS name or "photo",
    the plain phone photo), as the bytes of the file a user would send."""
    page = render(text, script)
    shot = _photo(page, rng) if distortion == "photo" else DISTORTIONS[distortion](page, rng)
    out = io.BytesIO()
    if distortion in ("photo", "JPEG q25, 3/4 size"):
        shot.save(out, "JPEG", quality=95)  # already degraded: saved without loss on top
    else:
        shot.save(out, "PNG")
    return out.getvalue()


def comparable(text: str, script: str) -> str:
    """Text as its error rate is counted: widths folded (OCR gives "," for "，"), case
    folded, whitespace dropped in Chinese (line breaks are the printer's) and collapsed
    to one space in English."""
    from textkit.scripts import normalise_width

    folded = normalise_width(text).lower()
    return "".join(folded.split()) if script != "en" else " ".join(folded.split())


def error_rate(got: str, truth: str, script: str, fold: bool = False) -> float:
    """Character error rate of `got` against `truth` (edits / characters of truth);
    with `fold`, both sides in Simplified characters first (search folds the scripts
    alike, so a Traditional character read as its Simplified form costs nothing there)."""
    from textkit.scripts import to_simplified

    a, b = comparable(got, script), comparable(truth, script)
    if fold:
        a, b = to_simplified(a), to_simplified(b)
    return distance(a, b) / max(len(b), 1)


def word_error_rate(got: str, truth: str) -> float:
    """Word error rate (English): edits of words / words of truth, punctuation dropped."""
    import re

    def words(s: str) -> list[str]:
        return re.findall(r"[a-z0-9']+", s.lower())

    a, b = words(got), words(truth)
    row = list(range(len(b) + 1))
    for i, wa in enumerate(a, start=1):
        prev, row[0] = row[0], i
        for j, wb in enumerate(b, start=1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (wa != wb))
    return row[-1] / max(len(b), 1)


def passages_of(script: str, count: int, rng: random.Random) -> list[tuple[str, str]]:
    """`count` (id, text) passages of the script's evaluation set, sampled with `rng`."""
    from bench.common import load_squad

    passages, _ = load_squad(CORPORA[SCRIPTS[script]])
    ids = rng.sample(sorted(passages), count)
    return [(pid, passages[pid]) for pid in ids]


def main() -> None:
    """OCR every script's sampled passages under every distortion; print and write."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--passages", type=int, default=2, help="passages per script")
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    require_font()
    from storage.ocr import engine
    from storage.scans import ocr_image

    rng = random.Random(args.seed)
    started = time.perf_counter()
    engine()
    load_s = time.perf_counter() - started
    pages: list[dict[str, Any]] = []
    for script in SCRIPTS:
        for pid, text in passages_of(script, args.passages, rng):
            for name in DISTORTIONS:
                data = photo(text, script, rng, name)
                t = time.perf_counter()
                read = "\n".join(b.text for b in ocr_image(data).blocks)
                seconds = time.perf_counter() - t
                pages.append(
                    {
                        "script": script,
                        "passage": pid,
                        "distortion": name,
                        "chars": len(comparable(text, script)),
                        "cer": error_rate(read, text, script),
                        "cer_folded": error_rate(read, text, script, fold=True),
                        "seconds": seconds,
                    }
                )
                print(f"{script} {name}: {pages[-1]['cer']:.2%} {seconds:.1f} s", flush=True)
    rows: list[list[Any]] = []
    for script in SCRIPTS:
        mine = [p for p in pages if p["script"] == script]
        for name in DISTORTIONS:
            these = [p for p in mine if p["distortion"] == name]
            rows.append(_row(script, name, these))
        rows.append(_row(script, "all", mine))
    rows.append(_row("all", "all", pages))
    print(
        f"\n## OCR per script and distortion ({args.passages} passages per script,"
        f" engine load {load_s:.1f} s)\n"
    )
    table = print_table(
        [
            "script",
            "distortion",
            "pages",
            "chars",
            "CER",
            "CER, scripts folded",
            "s/page",
            "pages/s",
            "chars/s",
        ],
        rows,
    )
    out = {"passages_per_script": args.passages, "engine_load_s": load_s, "pages": pages}
    print(f"\nwrote {write_json('ocr_quality', {**out, 'table': table})}")


def _row(script: str, name: str, pages: list[dict[str, Any]]) -> list[Any]:
    """A table row: the pages' summed characters' error rate and their speed."""
    chars = sum(p["chars"] for p in pages)
    seconds = sum(p["seconds"] for p in pages)
    # weighted by length: the error rate of all their characters together
    cer = sum(p["cer"] * p["chars"] for p in pages) / max(chars, 1)
    folded = sum(p["cer_folded"] * p["chars"] for p in pages) / max(chars, 1)
    return [
        script,
        name,
        len(pages),
        chars,
        f"{cer:.2%}",
        f"{folded:.2%}",
        f"{mean([p['seconds'] for p in pages]):.1f}",
        f"{len(pages) / seconds:.3f}",
        f"{chars / seconds:.0f}",
    ]


if __name__ == "__main__":
    main()
