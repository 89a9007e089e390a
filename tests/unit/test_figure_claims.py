"""What a draft says one figure is (focal.enforcement.figure_context.claim): its sentence when the sentence states no
other figure; else its own window of that sentence, cut as the agent's fact units are and led by the sentence's
subject, so that each figure of "Monday to Friday 9am-5pm, and on Saturdays 8am-8pm" is tied to its own day."""

from __future__ import annotations

from focal.enforcement.facts import DeclaredFigure
from focal.enforcement.figure_context import claim


def _figure(text: str, figure: str) -> DeclaredFigure:
    start = text.index(figure)
    return DeclaredFigure(text, start, start + len(figure), (frozenset({1.0}),))


def test_a_figure_alone_in_its_sentence_claims_the_sentence():
    text = "Hello. Express delivery takes 1-2 business days. Anything else?"
    assert claim(_figure(text, "1-2")).text == "Express delivery takes 1-2 business days."


def test_each_figure_of_a_sentence_of_several_claims_its_own_window():
    text = "Standard shipping takes 1-2 business days, while express takes 3-5 business days."
    first, second = claim(_figure(text, "1-2")), claim(_figure(text, "3-5"))
    assert "Standard" in first.text and "3-5" not in first.text
    assert second.text.startswith("business days, while express takes 3-5") and "Standard" not in second.text
    assert first.sentence == second.sentence == text


def test_a_later_window_is_led_by_the_sentence_subject():
    text = "Support hours: weekdays 9am-5pm, Saturdays 8am-8pm."
    assert claim(_figure(text, "8am-8pm")).subject == "Support hours:"


def test_two_numbers_with_one_word_between_are_one_figure():
    # a range in words ("between 8am and 8pm", "de 9 a 17 h") is one figure: its sentence is its claim
    text = "During the week you can reach us between 8am and 8pm Eastern."
    got = claim(_figure(text, "8pm"))
    assert got.text == text and got.sentence == ""
