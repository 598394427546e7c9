"""What one sync of a source did: stored as its last result, shown by `sources list`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

OK, PARTIAL, FAILED = "ok", "partial", "failed"  # sources.last_status


@dataclass
class SyncReport:
    """What one sync did; stored as the source's last result."""

    added: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)  # not found once: kept for now
    failed: list[dict[str, str]] = field(default_factory=list)
    unchanged: int = 0
    requests: int = 0
    seconds: float = 0.0
    error: str | None = None

    @property
    def status(self) -> str:
        """ok, partial (some items failed) or failed (the source could not be read)."""
        return FAILED if self.error else PARTIAL if self.failed else OK

    def as_json(self) -> dict[str, Any]:
        """The report as stored and printed."""
        return {
            "status": self.status,
            "added": self.added,
            "changed": self.changed,
            "removed": self.removed,
            "missing": self.missing,
            "failed": self.failed,
            "unchanged": self.unchanged,
            "requests": self.requests,
            "seconds": round(self.seconds, 3),
            "error": self.error,
        }


def result_text(result: dict[str, Any] | None) -> str:
    """A stored sync result in one line: its counts, and why it failed (`sources list`)."""
    if not result:
        return "not synced yet"
    if result.get("error"):
        return f"FAILED: {result['error']} (documents kept)"
    counts = (
        f"{len(result['added'])} added, {len(result['changed'])} changed,"
        f" {len(result['removed'])} removed, {result['unchanged']} unchanged,"
        f" {len(result['failed'])} failed"
    )
    if result["missing"]:
        counts += f", {len(result['missing'])} missing once (kept)"
    gaps = result.get("gaps")  # open questions its new documents answer now
    if gaps and gaps.get("asked"):
        counts += f"; {gaps['answered']} of {gaps['asked']} open questions now answered"
    return counts
