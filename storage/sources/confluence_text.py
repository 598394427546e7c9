"""A Confluence page's storage format (XHTML with ac:/ri: macros) as Markdown text.

Headings, paragraphs, lists (nested), tables, code and quotes are kept; macro
settings (ac:parameter), attachments and images (ri:*, ac:image) and navigation
macros (a table of contents, a list of child pages) carry no text of the page's
own and are left out. CPU work: the sync runs it in a thread.
"""

from __future__ import annotations

import re

from bs4 import BeautifulSoup, CData, Comment, NavigableString, Tag

# macros that draw navigation or metadata, not the page's words
_SKIPPED_MACROS = frozenset(
    {"toc", "children", "pagetree", "recently-updated", "contentbylabel", "attachments", "jira"}
)
_SKIPPED_TAGS = frozenset(
    {"ac:parameter", "ac:image", "ri:attachment", "ri:url", "script", "style", "ac:emoticon"}
)
_BLOCKS = frozenset(
    {"p", "div", "section", "ac:layout", "ac:layout-section", "ac:layout-cell",
     "ac:rich-text-body", "ac:structured-macro", "ac:task-list", "ac:task", "ac:task-body"}
)  # fmt: skip
_SPACES = re.compile(r"[ \t\r\f\v\u00a0]+")
_BLANK_LINES = re.compile(r"\n{3,}")


def storage_text(storage: str) -> str:
    """The page's text as Markdown (empty when it holds none)."""
    soup = BeautifulSoup(f"<root>{storage}</root>", "html.parser")
    root = soup.find("root")
    blocks: list[str] = []
    _blocks(root if isinstance(root, Tag) else soup, blocks, depth=0)
    text = "\n\n".join(b for b in (b.strip("\n") for b in blocks) if b.strip())
    return _BLANK_LINES.sub("\n\n", text).strip()


def _blocks(node: Tag, out: list[str], depth: int) -> None:
    """Append `node`'s block-level parts (headings, paragraphs, lists…) to `out`."""
    inline: list[str] = []

    def flush() -> None:
        line = _SPACES.sub(" ", "".join(inline)).strip()
        if line:
            out.append(line)
        inline.clear()

    for child in node.children:
        if isinstance(child, Comment):
            continue
        if isinstance(child, NavigableString):
            inline.append(str(child))
            continue
        if not isinstance(child, Tag) or _skipped(child):
            continue
        name = child.name.lower()
        if re.fullmatch(r"h[1-6]", name):
            flush()
            out.append("#" * int(name[1]) + " " + _inline(child))
        elif name in ("ul", "ol"):
            flush()
            out.append(_list(child, depth))
        elif name == "table":
            flush()
            out.append(_table(child))
        elif name in ("pre", "ac:plain-text-body"):
            flush()
            out.append("```\n" + child.get_text().strip("\n") + "\n```")
        elif name == "blockquote":
            flush()
            inner: list[str] = []
            _blocks(child, inner, depth)
            out.append("\n".join("> " + line for b in inner for line in b.splitlines()))
        elif name == "br":
            flush()
        elif name in _BLOCKS:
            flush()
            _blocks(child, out, depth)
        else:
            inline.append(_inline(child))
    flush()


def _skipped(tag: Tag) -> bool:
    """Tags that carry no words of the page (settings, images, navigation macros)."""
    name = tag.name.lower()
    if name in _SKIPPED_TAGS:
        return True
    return name == "ac:structured-macro" and tag.get("ac:name", "") in _SKIPPED_MACROS


def _inline(node: Tag) -> str:
    """The words of an inline element (a link's body, bold text…), on one line."""
    parts: list[str] = []
    for child in node.descendants:
        if isinstance(child, Comment):
            continue
        if isinstance(child, NavigableString | CData) and not any(
            isinstance(p, Tag) and _skipped(p) for p in child.parents
        ):
            parts.append(str(child))
    return _SPACES.sub(" ", " ".join("".join(parts).split("\n"))).strip()


def _list(node: Tag, depth: int) -> str:
    """A (nested) list as Markdown items, numbered for <ol>."""
    lines: list[str] = []
    ordered = node.name.lower() == "ol"
    for number, item in enumerate(node.find_all("li", recursive=False), start=1):
        marker = f"{number}." if ordered else "-"
        words: list[str] = []
        nested: list[str] = []
        for child in item.children:
            if isinstance(child, Tag) and child.name.lower() in ("ul", "ol"):
                nested.append(_list(child, depth + 1))
            elif isinstance(child, Tag) and not _skipped(child):
                words.append(_inline(child))
            elif isinstance(child, NavigableString) and not isinstance(child, Comment):
                words.append(str(child))
        text = _SPACES.sub(" ", " ".join("".join(w for w in words).split())).strip()
        lines.append("  " * depth + f"{marker} {text}")
        lines.extend(nested)
    return "\n".join(lines)


def _table(node: Tag) -> str:
    """A table as Markdown rows (its first row as the header)."""
    rows = [
        [_inline(cell).replace("|", "/") for cell in row.find_all(("th", "td"), recursive=False)]
        for row in node.find_all("tr")
    ]
    rows = [r for r in rows if any(r)]
    if not rows:
        return ""
    width = max(len(r) for r in rows)
    lines = ["| " + " | ".join(r + [""] * (width - len(r))) + " |" for r in rows]
    lines.insert(1, "|" + " --- |" * width)
    return "\n".join(lines)
