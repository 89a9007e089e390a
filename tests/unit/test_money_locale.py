"""The customer's amount is read in the turn's language: each language's figure style (CLDR), and a figure in
another style than the turn's is unknown, never guessed."""

from __future__ import annotations

import pytest

from focal.sensing.money import message_amount
from focal.sensing.reading_language import reading_in


@pytest.mark.parametrize(("lang", "text", "amount"), [
    ("de", "1.250,00 €", 1250.0), ("de", "Es waren 49,90 €", 49.9), ("de", "1.250 €", 1250.0),
    ("es", "Me cobraron 1.299,00 €", 1299.0), ("es", "49,90 €", 49.9), ("es", "1 250 €", 1250.0),
    ("fr", "1 250 €", 1250.0), ("fr", "1\u202f250,50 €", 1250.5), ("fr", "49,90 euros", 49.9),
    ("en", "$1,250.00", 1250.0), (None, "$1,250.00", 1250.0), (None, "1,250 dollars", 1250.0),
])
def test_an_amount_is_read_in_the_turns_figure_style(lang, text, amount):
    with reading_in(lang):
        assert message_amount(text, [], answering=True) == amount


@pytest.mark.parametrize(("lang", "text"), [
    # a European style in an English turn (or an agent that declared no other language): another reading exists
    ("en", "1.250,00 €"), (None, "1.250,00 €"), ("en", "49,90 €"), ("en", "1 250 €"), (None, "1 250 €"),
    # an English style in a European turn: "1,250" is 1.25 there
    ("de", "$1,250.00"), ("fr", "$1,250.00"), ("es", "1,250 €"),
])
def test_a_figure_in_another_style_than_the_turns_is_unknown(lang, text):
    with reading_in(lang):
        assert message_amount(text, [], answering=True) is None
