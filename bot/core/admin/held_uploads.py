"""The message that tells an uploader their file is held: what the personal-data screen
found and where (masked), with publish / cancel buttons."""

from __future__ import annotations

from typing import Any

from bot.core.messages import Button, UploadOutcome
from storage.filenames import display_name
from storage.ingestion import HELD, IngestResult
from textkit.catalog import say
from textkit.personal_data import HEADING, KINDS, TITLE, Findings


def findings_text(findings: Findings, language: str) -> str:
    """What was found and where, masked: counts per kind, then the first few places."""
    counts = ", ".join(
        f"{say(f'personal_data:{kind}', language)} × {findings.counts[kind]}"
        for kind in KINDS
        if findings.counts.get(kind)
    )
    lines = [counts]
    for found in findings.examples:
        if found.part == TITLE:
            where = say("personal_data_title", language)
        else:
            where = (
                say("personal_data_page_line", language, page=found.page, line=found.line)
                if found.page
                else say("personal_data_line", language, line=found.line)
            )
            if found.part == HEADING:
                where = say("personal_data_heading", language, where=where)
        lines.append(f"• {where}: {say(f'personal_data:{found.kind}', language)} {found.value}")
    if findings.total > len(findings.examples):
        lines.append("• …")
    return "\n".join(lines)


def held_outcome(
    upload: Any, result: IngestResult, findings: Findings, language: str
) -> UploadOutcome:
    """The message that tells the uploader a file is held, with publish / cancel buttons."""
    text = say(
        "upload_held",
        language,
        name=display_name(upload.file_name),
        collection=upload.collection,
        findings=findings_text(findings, language),
    )
    buttons = (
        Button("held", f"{upload.id}:publish", say("upload_publish_anyway_button", language)),
        Button("held", f"{upload.id}:cancel", say("upload_cancel_button", language)),
    )
    return UploadOutcome(
        upload_id=upload.id,
        platform=upload.platform,
        user_id=upload.user_id,
        conversation_key=upload.conversation_key,
        file_name=upload.file_name,
        title=upload.title,
        status=HELD,
        chunks=0,
        reason=result.reason,
        text=text,
        buttons=buttons,
    )
