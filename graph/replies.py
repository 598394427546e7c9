"""The graph's replies that carry logic: progress per step, the refusal with its contact.

The words themselves live in textkit/catalog.toml; plain replies are said with
`textkit.catalog.say` where they are given.
"""

from __future__ import annotations

from textkit.catalog import known, say


def progress_message(step: str, language: str) -> str | None:
    """What to show after node `step` finished, or None for steps users need not see."""
    key = f"progress:{step}"
    return say(key, language) if known(key) else None


def contact_for(language: str, contacts: dict[str, str]) -> str:
    """Who to send a `language` asker to: HANDOFF_CONTACT for that language, else the one
    for every language ("" key), else "our service desk" in that language."""
    return contacts.get(language) or contacts.get("") or say("default_contact", language)


def refusal(language: str, contacts: dict[str, str]) -> str:
    """The "not in our documents" reply, sending the user to the contact for `language`.

    `contacts` holds HANDOFF_CONTACT per language ("" key: every language).
    """
    return say("refusal", language, contact=contact_for(language, contacts))
