"""Generate docs/settings.md from .env.example, the one list of ragbot's settings.

    python scripts/settings_doc.py           # rewrite docs/settings.md
    python scripts/settings_doc.py --check   # exit 1 when docs/settings.md is stale

.env.example is read as: `# --- Title ---` lines start a section; a run of `#`
comment lines followed by `NAME=value` lines (or a commented-out `# NAME=value`
example) is one entry, the comment describing every name under it; a comment
followed by a blank line is a note. Nothing else is parsed, so the file stays a
plain .env anyone can copy.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / ".env.example"
TARGET = ROOT / "docs" / "settings.md"

_SECTION = re.compile(r"^#\s*---\s*(?P<title>.*?)\s*-*\s*$")
_SETTING = re.compile(r"^(?P<commented>#\s*)?(?P<name>[A-Z][A-Z0-9_]*)=(?P<value>.*)$")
_SEE_ALSO = re.compile(r"\s*\((?P<path>docs/[^)]*)\)$")
_DOC_LINK = re.compile(r"docs/(?P<page>[\w-]+\.md)(?P<anchor>#[\w-]+)?")


@dataclass
class Entry:
    """Names sharing one comment; a note when it has no names."""

    comment: list[str] = field(default_factory=list)
    names: list[tuple[str, str, bool]] = field(default_factory=list)  # name, value, commented


@dataclass
class Section:
    """One `# --- Title ---` block of .env.example."""

    title: str
    see_also: str = ""
    entries: list[Entry] = field(default_factory=list)


def parse(text: str) -> tuple[list[str], list[Section]]:
    """The file's opening comment and its sections."""
    intro: list[str] = []
    sections: list[Section] = []
    entry = Entry()

    def flush() -> None:
        nonlocal entry
        if entry.comment or entry.names:
            if sections:
                sections[-1].entries.append(entry)
            else:
                intro.extend(entry.comment)
        entry = Entry()

    for raw in text.splitlines():
        line = raw.rstrip()
        if not line:
            flush()
            continue
        if section := _SECTION.match(line):
            flush()
            title = section["title"]
            see = _SEE_ALSO.search(title)
            sections.append(
                Section(title[: see.start()] if see else title, see["path"] if see else "")
            )
            continue
        if setting := _SETTING.match(line):
            entry.names.append(
                (setting["name"], setting["value"].strip(), bool(setting["commented"]))
            )
            continue
        if not line.startswith("#"):
            raise ValueError(f"not a comment, a section or a setting: {line!r}")
        if entry.names:  # a comment after settings starts the next entry
            flush()
        entry.comment.append(line.lstrip("#").strip())
    flush()
    return intro, sections


def names(text: str) -> list[str]:
    """Every setting .env.example names (set or commented out), in order."""
    _intro, sections = parse(text)
    return [name for s in sections for e in s.entries for name, _v, _c in e.names]


def _prose(lines: list[str]) -> str:
    text = " ".join(lines)
    return _DOC_LINK.sub(lambda m: f"[{m['page']}{m['anchor'] or ''}]({m[0][5:]})", text)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _default(value: str, commented: bool) -> str:
    if commented:
        return f"unset (e.g. `{value}`)"
    return f"`{value}`" if value else "unset"


def _anchor(title: str) -> str:
    return re.sub(r"[^\w\- ]", "", title.lower()).strip().replace(" ", "-")


def render(text: str) -> str:
    """docs/settings.md for this .env.example."""
    intro, sections = parse(text)
    out = [
        "# Settings",
        "",
        "<!-- Generated from .env.example by scripts/settings_doc.py; do not edit by hand. -->",
        "",
        "Every setting ragbot reads, with its default, as `.env.example` lists them. To change",
        "this page, edit `.env.example` and run `python scripts/settings_doc.py`.",
        "",
        _prose(intro),
        "",
    ]
    out += [f"- [{s.title}](#{_anchor(s.title)})" for s in sections]
    for section in sections:
        out += ["", f"## {section.title}", ""]
        if section.see_also:
            out += [f"See {_prose([section.see_also])}.", ""]
        notes = [e for e in section.entries if not e.names]
        rows = [e for e in section.entries if e.names]
        if rows:
            out += ["| setting | default | what it does |", "|---|---|---|"]
            for entry in rows:
                settings = " / ".join(f"`{name}`" for name, _v, _c in entry.names)
                defaults = " / ".join(_default(v, c) for _n, v, c in entry.names)
                out.append(f"| {settings} | {_cell(defaults)} | {_cell(_prose(entry.comment))} |")
        for note in notes:
            out += ["", _prose(note.comment)]
    return "\n".join(out) + "\n"


def main() -> int:
    """Write docs/settings.md, or with --check say whether it is current."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when stale")
    args = parser.parse_args()
    expected = render(SOURCE.read_text(encoding="utf-8"))
    if args.check:
        current = TARGET.read_text(encoding="utf-8") if TARGET.exists() else ""
        if current != expected:
            print("docs/settings.md is stale: run python scripts/settings_doc.py")
            return 1
        return 0
    TARGET.write_text(expected, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
