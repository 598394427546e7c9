"""Pulls the claims of a synthesis reply (prompt synth.v6) out of its JSON while it streams.

The reply is `{"answerable": true, "claims": [{"sentence": "1.2", "claim":
"..."}, ...]}` (synth.v6: the id of the numbered source sentence the claim rests
on, or a list of two) or, in the older shape, `{"source": 1, "quote": "...",
"claim": "..."}`; `ClaimStream.feed` returns each claim object as soon as its
closing brace has streamed past, so a claim is checked and shown while the
model writes the next one, and `claim_parts` reads whichever fields it has.
"""

from __future__ import annotations

import re
from typing import Any

from graph.claim_judge import SentenceId
from graph.structured import parse_json

# a claim's text, source number, quote and sentence ids (graph.claim_gate.ClaimGate.add)
ClaimParts = tuple[str, int | None, str | None, list[SentenceId] | None]
_KEY = re.compile(r'"claims"\s*:\s*\[')
_SENTENCE_ID = re.compile(r"(\d{1,2})\s*\.\s*(\d{1,3})")
_BARE_NUMBER = re.compile(r"[0-9]{1,3}")
_BRACKETED_ID = re.compile(r"\[(\d{1,2})\s*\.\s*(\d{1,3})\]")
# a longer "sentence" value is the sentence's text (a model copying its line): its own
# figures ("3.5 dollars") are no ids, only an id in brackets before it is
ID_CHARS = 16
# a reply shape's placeholder a model copied instead of filling: "<id of the sentence …>"
_PLACEHOLDER = re.compile(r"<[^<>]*>")
MAX_IDS = 2  # a claim rests on one sentence, or two in a row; further ids are not read


class ClaimStream:
    """Incremental reader of the `claims` array of a JSON reply."""

    def __init__(self) -> None:
        self._raw = ""
        self._pos: int | None = None  # where scanning goes on (None: the array not begun)
        self._depth = 0
        self._start = 0  # where the claim object being read begins
        self._string = False
        self._escape = False
        self.closed = False  # the array's closing bracket streamed past
        self.count = 0  # claims returned so far

    @property
    def found(self) -> bool:
        """True once the claims array has begun."""
        return self._pos is not None

    def said(self, pattern: re.Pattern[str]) -> bool:
        """True when the reply so far matches `pattern`."""
        return pattern.search(self._raw) is not None

    def feed(self, piece: str) -> list[dict[str, Any]]:
        """The claim objects that `piece` completes."""
        self._raw += piece
        if self.closed:
            return []
        if self._pos is None:
            match = _KEY.search(self._raw)
            if match is None:
                return []
            self._pos = match.end()
        out: list[dict[str, Any]] = []
        raw, i = self._raw, self._pos
        while i < len(raw):
            ch = raw[i]
            if self._string:
                if self._escape:
                    self._escape = False
                elif ch == "\\":
                    self._escape = True
                elif ch == '"':
                    self._string = False
            elif ch == '"':
                self._string = True
            elif ch == "{":
                if self._depth == 0:
                    self._start = i
                self._depth += 1
            elif ch == "}":
                self._depth -= 1
                if self._depth == 0:
                    claim = parse_json(raw[self._start : i + 1])
                    if claim is not None:
                        out.append(claim)
                        self.count += 1
            elif ch == "]" and self._depth == 0:
                self.closed = True
                i += 1
                break
            i += 1
        self._pos = i
        return out


def claim_parts(claim: dict[str, Any]) -> ClaimParts:
    """A claim object's text, source number, quote and sentence ids, whatever the model
    named them (ids None: the claim gives none; []: it gives some that are no ids)."""
    text = claim.get("claim") or claim.get("text") or claim.get("answer") or ""
    source = claim.get("source", claim.get("citation"))
    if isinstance(source, list):
        source = source[0] if source else None
    try:
        number = int(source) if source is not None else None
    except (TypeError, ValueError):
        number = None
    quote = claim.get("quote")
    given = claim.get("sentence", claim.get("sentences", claim.get("id")))
    if _is_placeholder(given):
        # the rules' placeholder copied ("<id of the sentence …>", synth.v10): an id written
        # inside it counts; without one the claim gives none (judged against the sentences
        # the model was shown), it is no quote
        found = [(int(a), int(b)) for a, b in _SENTENCE_ID.findall(str(given))]
        ids = found[:MAX_IDS] or None
    else:
        ids = None if given in (None, "", []) else sentence_ids(given, number)
    if ids == [] and not quote and isinstance(given, str) and len(given.strip()) > ID_CHARS:
        # the sentence copied instead of its id: judged as a quote (it must be the passage's)
        quote, ids = given, None
    if ids and number is None:
        number = ids[0][0]
    return str(text), number, (str(quote) if quote else None), ids


def _is_placeholder(value: Any) -> bool:
    """True when a claim's sentence field is a placeholder in angle brackets, alone or as a
    one-item list."""
    if isinstance(value, list) and len(value) == 1:
        value = value[0]
    return isinstance(value, str) and bool(_PLACEHOLDER.fullmatch(value.strip()))


def sentence_ids(value: Any, source: int | None = None) -> list[SentenceId]:
    """The sentence ids a claim gives ("2.3", ["2.3", "2.4"], "[2.3]"; a bare sentence
    number 3 counts in the claim's `source`), at most `MAX_IDS`; [] when none reads."""
    items = value if isinstance(value, list) else [value]
    out: list[SentenceId] = []
    for item in items:
        text = str(item)
        pairs = _BRACKETED_ID.findall(text) or (
            _SENTENCE_ID.findall(text) if len(text.strip()) <= ID_CHARS else []
        )
        found = [(int(a), int(b)) for a, b in pairs]
        bare_number = text.strip().strip("[]")
        # ASCII digits only: str.isdigit() also says yes to ² or ①, which int() refuses
        if not found and source is not None and _BARE_NUMBER.fullmatch(bare_number):
            found = [(source, int(bare_number))]
        out.extend(i for i in found if i not in out)
    return out[:MAX_IDS]
