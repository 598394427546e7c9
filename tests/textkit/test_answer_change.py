"""Answer changes read by facts, not words: figures, currencies, yes/no, links, form ids."""

from __future__ import annotations

from textkit.answer_change import substantive_change


def test_a_reworded_answer_with_the_same_facts_is_no_change() -> None:
    old = "An adult passport renewal costs 1,300 dollars and takes four working days. [1]"
    new = "Renewing an adult passport takes 4 working days and costs 1300 dollars [2]."
    assert substantive_change(old, new) is None
    assert (
        substantive_change("每張每年收費新臺幣一千二百元。", "每張每年收費新臺幣1,200元。") is None
    )
    assert substantive_change("Deadline is 3 March 2026.", "Deadline: March 3, 2026.") is None


def test_a_new_figure_date_polarity_link_or_refusal_is_a_change() -> None:
    old = "The fee is 1,300 dollars; apply by 3 March at https://city.example/apply."
    assert substantive_change(old, old.replace("1,300", "1,500")) == "number"
    assert substantive_change(old, old.replace("3 March", "4 March")) == "number"
    assert substantive_change(old, old.replace("example/apply", "example/v2")) == "link"
    assert substantive_change("You can apply online.", "You cannot apply online.") == "polarity"
    assert substantive_change("Use form DS-160.", "Use form DS-260.") == "form"
    assert substantive_change(old, "I could not find that.", new_refused=True) == "refusal"
    assert substantive_change("It costs US$100.", "It costs NT$100.") == "amount"


def test_a_figure_only_left_out_of_the_new_answer_is_no_change() -> None:
    old = "The permit costs 1,200 dollars and takes 6 working days. You cannot apply online."
    new = "To get the permit you pay a fee of 1,200 dollars. You cannot apply online."
    assert substantive_change(old, new) is None
