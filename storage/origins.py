"""Where a document came from (a file, a staff answer, a synced source, the admin
console), and the titles kept for staff answers from hand-off cases.

A closed case's question and staff answer become an FAQ document. Its title is
derived from the case id (`Staff answer #12`), never from the citizen's words,
and titles of that shape are kept for such documents: no uploaded or ingested
file may take one, and (ingestion's rule) a document replaces another of the
same title only when both have the same origin. So a citizen who asks exactly
`passport-renewal` cannot have the official page replaced by their case.

The admin console's answers are kept the same way: one FAQ document per
collection, titled `Answers from the console (<collection>)`, of origin
`console`; no other document may take such a title, and the console's never
replaces one it did not make.
"""

from __future__ import annotations

import re
import unicodedata

FILE, CASE, CONSOLE = "file", "case", "console"  # documents.origin
SOURCE = "source"  # a page or file a synced source keeps (storage.sources)
CASE_TITLE_PREFIX = "Staff answer #"
_CASE_TITLE = re.compile(r"\s*staff\s*answer\s*#", re.IGNORECASE)
_CASE_ID = re.compile(r"Staff answer #([1-9][0-9]{0,17})")
CONSOLE_TITLE_PREFIX = "Answers from the console"
CONSOLE_FILE_NAME = "console-answers.md"
_CONSOLE_TITLE = re.compile(r"\s*answers\s*from\s*the\s*console", re.IGNORECASE)


def console_title(collection: str) -> str:
    """The title of the admin console's FAQ document in `collection`."""
    return f"{CONSOLE_TITLE_PREFIX} ({collection})"


def console_collection(title: str) -> str | None:
    """The collection whose console FAQ document has exactly this title (None: another)."""
    found = re.fullmatch(re.escape(CONSOLE_TITLE_PREFIX) + r" \(([^()]+)\)", title)
    return found.group(1) if found else None


def case_title(case_id: int) -> str:
    """The title of the FAQ document made from case `case_id`."""
    return f"{CASE_TITLE_PREFIX}{case_id}"


def case_file_name(case_id: int) -> str:
    """The file name of the upload adding case `case_id` to the knowledge base."""
    return f"handoff-case-{case_id}.md"


def case_of_title(title: str) -> int | None:
    """The case id a case document's title names (None: not a case title)."""
    found = _CASE_ID.fullmatch(title)
    return int(found.group(1)) if found else None


def title_problem(title: str, origin: str) -> str | None:
    """Why a document of `origin` may not have `title`, or None."""
    if origin == CASE and case_of_title(title) is None:
        return f"a staff answer's title must be {CASE_TITLE_PREFIX}<case>"
    if origin == CONSOLE and not _CONSOLE_TITLE.match(_plain(title)):
        return f"an admin console answer's title must be {CONSOLE_TITLE_PREFIX} (<collection>)"
    if origin != CONSOLE and _CONSOLE_TITLE.match(_plain(title)):
        return (
            f"titles starting with {CONSOLE_TITLE_PREFIX!r} are kept for the answers published"
            " from the admin console: choose another title"
        )
    if origin != CASE and _CASE_TITLE.match(_plain(title)):
        return (
            f"titles starting with {CASE_TITLE_PREFIX!r} are kept for staff answers added"
            " from hand-off cases: choose another title"
        )
    return None


def _plain(title: str) -> str:
    """`title` as it reads: compatibility forms folded (full-width letters and signs) and
    invisible format characters (zero-width spaces) dropped, so a look-alike of a case
    title is kept out as the title itself is."""
    folded = unicodedata.normalize("NFKC", title)
    return "".join(ch for ch in folded if unicodedata.category(ch) != "Cf")


def replace_problem(new_origin: str, old_origin: str) -> str | None:
    """Why a document of `new_origin` may not replace one of `old_origin`, or None."""
    if new_origin == old_origin:
        return None
    made = {
        CASE: "a staff answer from a hand-off case",
        SOURCE: "a synced source (`ragbot sources list`)",
        CONSOLE: "answers published from the admin console",
    }.get(old_origin, "an uploaded file")
    return f"a document with this title was made from {made}: choose another title"
