"""How the CLI tells an operator a file was refused for personal data (`ingest`, `upload`)."""

from __future__ import annotations

from textkit.personal_data import HEADING, TITLE, Findings


def bound_for(collection: str, readers: str) -> str:
    """Where a screened file was going and who reads it (`bound for public, readable by
    citizens/guests`)."""
    return f"bound for {collection.strip()}, readable by {readers or 'outside readers'}"


def personal_data_report(source: str, findings: Findings, bound: str) -> str:
    """Why a screened file was refused (`bound`: see bound_for): counts per kind and
    where, masked."""
    lines = [
        f"refused   {source} ({bound}): personal data found ({findings.summary()});"
        " nothing was stored. Use --allow-personal-data to ingest it anyway,"
        " or another --collection"
    ]
    for f in findings.examples:
        if f.part == TITLE:
            where = "title or file name"
        else:
            where = f"page {f.page}, line {f.line}" if f.page else f"line {f.line}"
            where += " (heading)" if f.part == HEADING else ""
        lines.append(f"            {where}: {f.kind} {f.value}")
    if findings.total > len(findings.examples):
        lines.append("            …")
    return "\n".join(lines)
