"""Whether a window holds a question's word: an English word in another form of its stem,
an irregular verb in its past forms."""

from __future__ import annotations

from textkit.overlap import presence, stem, verb_forms
from textkit.tokens import keyword_tokens


def holds(term: str, text: str) -> bool:
    tokens = frozenset(keyword_tokens(text))
    return presence(term, text, tokens, frozenset(stem(t) for t in tokens)) == 1.0


def test_an_irregular_verb_is_held_in_its_past_forms_and_back() -> None:
    assert holds("lose", "A lost passport must be reported to the police first.")
    assert holds("lost", "What if you lose your card?")
    assert holds("pay", "The fee is paid at the counter.")
    assert holds("bring", "Applicants brought the form PS-11.")
    assert verb_forms("took") == ("take", "took", "taken")


def test_a_past_form_that_is_another_word_is_not_read_as_a_verb() -> None:
    # "left" (the side), "found" (to establish), "sold" out, a "given" name stay themselves
    for form in ("left", "found", "sold", "given", "made", "broken", "stole"):
        assert verb_forms(form) == (form,)
    assert not holds("leave", "Turn left at the library.")
    assert not holds("sell", "Tickets are sold out at the counter.")


def test_another_form_is_held_only_as_a_whole_word() -> None:
    # its first five letters would meet other words: "bought" / "boughs", "forgotten" /
    # "forgo"
    assert not holds("buy", "The boughs of the old tree are cut in spring.")
    assert not holds("forget", "You may forgo the refund.")
    assert holds("buy", "Tickets bought online are not refunded.")
    # a past form that is a noun as well is no verb's: "thoughts"
    assert not holds("think", "Send us your thoughts on the new library.")
