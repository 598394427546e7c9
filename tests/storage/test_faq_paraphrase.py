"""A colloquial paraphrase that shares no content word with its FAQ entry, among close siblings.

On real Postgres with the local embedder: one helpdesk page whose entries are
all about signing in and accounts, so the topic alone does not pick the entry.
"""

from __future__ import annotations

import pytest

from storage.ingestion import IngestionService
from storage.search import HybridSearcher
from tests.support.faq_entries import Entry, faq_page
from textkit.tokens import keyword_tokens, stopwords

SIGN_IN = [
    Entry(
        "How do I reset my password?",
        "Go to id.example.com and choose Forgot password; a reset link is sent to your"
        " recovery phone.",
        "forgot my login, can't get in",
    ),
    Entry(
        "Why is my account locked?",
        "Accounts lock for 30 minutes after five failed sign-in attempts; call extension 4000"
        " to unlock it at once.",
        "it says too many attempts and won't let me in",
    ),
    Entry(
        "How do I set up multi-factor authentication?",
        "Install the Authenticator app and scan the QR code shown at id.example.com/security.",
        "that second step with a code on the phone",
    ),
    Entry(
        "I got a new phone. How do I move my authenticator?",
        "Open id.example.com/security on a computer and choose Change device, then scan the"
        " new QR code.",
        "swapped mobiles and the approval app is gone",
    ),
    Entry(
        "How do I request access to a shared drive?",
        "Ask the folder's owner to add you, or raise a request in the service portal.",
        "permission denied on team folder",
    ),
    Entry(
        "How do I change my display name after a name change?",
        "HR updates your name in the staff system; it shows in email and chat within a day.",
        "got married, directory still shows maiden surname",
    ),
    Entry(
        "Why is my mailbox full?",
        "Each mailbox holds 50 GB; empty Deleted Items and archive old mail to free space.",
        "can't send, says over quota",
    ),
    Entry(
        "How do I set up an out-of-office reply?",
        "In Outlook choose File, Automatic Replies, and enter a message and the dates.",
        "automatic answer when away on holiday",
    ),
]


def content_words(text: str) -> set[str]:
    return set(keyword_tokens(text)) - stopwords()


@pytest.mark.parametrize("entry", SIGN_IN, ids=[e.asked for e in SIGN_IN])
async def test_a_paraphrase_without_shared_words_finds_its_entry_in_the_top_5(
    entry: Entry, ingestion: IngestionService, searcher: HybridSearcher
) -> None:
    # the premise: not one content word of the entry's question is in the paraphrase
    assert content_words(entry.asked) & content_words(entry.question) == set()
    assert (await ingestion.ingest_bytes("helpdesk.txt", faq_page(SIGN_IN).encode())).chunks
    hits = await searcher.search(entry.asked, top_k=5, per_document=5)
    assert entry.question in [h.question for h in hits]
