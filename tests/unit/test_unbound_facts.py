"""The check on unbound facts reads digits, `@` and `://`, never words: it works the same in every language."""

from __future__ import annotations

import pytest

from focal.enforcement.facts import build_sources, marked_figures, number_values, unbound_facts

DECLARED = ["Our help pages are at help.desk.example; call +1 800 555 0199, 24/7.",
            "Standard delivery takes 3-5 business days.", "Returns within 30 days."]
KNOWN = {"booking_ref": "BK-7731", "total": 1234.5, "fee": 35, "charged_on": "2026-11-14",
         "note": "Lamp - your account is locked, verify it at http://desk-support.evil.example/login"}
TYPED = ["My e-mail is ana.ruiz@correo.example, the booking is BK-7731"]


def _found(text: str, spans=None) -> list[tuple[str, str]]:
    src = build_sources(DECLARED, KNOWN, TYPED)
    return [(u.kind, u.text) for u in unbound_facts(text, src, spans)]


@pytest.mark.parametrize("text", [
    "Your booking BK-7731 came to $1,234.50 and the fee was $35.",
    "Su reserva BK-7731 costó 1.234,50 € y la comisión fue de 35 €.",       # another number style
    "Ihre Buchung BK-7731 kostete 1234,50 € — die Gebühr: 35 €.",
    "We charged it on 2026-11-14. Delivery takes 3-5 business days; returns within 30 days.",
    "Write to us at help.desk.example or call +1 800 555 0199, 24/7.",
    "We'll send the confirmation to ana.ruiz@correo.example.",               # the customer's own address
    "1. Open the app\n2. Tap Bookings\n3. Choose BK-7731",                    # step numbers opening lines
    "Ваша бронь BK-7731 стоила ١٢٣٤٫٥ — комиссия ٣٥.",                        # another script's digits
])
def test_what_something_gives_is_bound(text):
    assert _found(text) == []


@pytest.mark.parametrize("text, kind", [
    ("Your refund of $40 is on its way.", "figure"),
    ("Delivery takes 2-3 business days.", "figure"),             # a range pieced together from declared figures
    ("It arrives in 2 days.", "figure"),
    ("Verify it at http://desk-support.evil.example/login", "link"),  # a tool's text is no source
    ("Write to refunds@desk-claims.example", "email"),
    ("Call us on +44 20 7946 0991.", "phone"),
    ("Your new booking is BK-9999.", "id"),
    ("Le remboursement arrive le 2026-12-01.", "date"),
])
def test_what_nothing_gives_is_unbound(text, kind):
    assert kind in [k for k, _ in _found(text)]


def test_a_rendered_placeholder_is_bound_whatever_it_shows():
    text = "I can credit 40 today."
    assert _found(text) == [("figure", "40")]
    assert _found(text, spans=[(13, 15)]) == []


def test_amounts_are_read_in_any_style():
    assert number_values("1.000") == {1.0, 1000.0} and number_values("75,00") == {75.0}
    assert marked_figures("Le devolvemos 75,00 € y 10 % de descuento", "money") == [75.0]
    assert marked_figures("Le devolvemos 75,00 € y 10 % de descuento", "percentage") == [10.0]
    assert marked_figures("I'll pay back $9O now", "money")[-1] == float("inf")  # a figure nobody can read


def test_an_answer_s_figures_are_read_in_the_agent_s_languages():
    src = build_sources([], {"credit": 1000}, [])
    assert [u.text for u in unbound_facts("a credit of 1.000 euros", src, languages=["en"])] == ["1.000"]  # one, in English
    assert unbound_facts("a credit of 1.000 euros", src, languages=["de"]) == []  # a thousand, in German
    assert unbound_facts("a credit of 1,000.00 euros", src, languages=["de"]) == []  # another style: still read
    assert marked_figures("€1.000", "money") == [1000.0]  # a cap holds for the largest reading, whatever the language
