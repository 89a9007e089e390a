"""Quantifiers of the whole (focal.enforcement.whole_quantity): on a noun the field describes (English clause), or on
a noun phrase of a sentence in another language, they promise the whole of an amount — and on anything else, or in a
question, nothing."""

from __future__ import annotations

import pytest

from focal.enforcement.whole_quantity import whole_in_other_language, whole_of_field
from focal.models.agent import ProfileFieldDefinition

FINE = ProfileFieldDefinition(field_name="fine_waived", description="The overdue fine an answer promises to waive.",
                              field_type="money", extraction_hints=["waive", "waived"], sources=["response"], default=0)
CREDIT = ProfileFieldDefinition(field_name="credit", description="The goodwill credit an answer promises.",
                                field_type="money", sources=["response"], default=0)


@pytest.mark.parametrize(("field", "clause"), [
    (FINE, "I've waived all your overdue fines"),
    (FINE, "every fine on your card is waived"),
    (FINE, "waived all of the late charges"),
    (CREDIT, "I'll credit the entire balance"),
    (CREDIT, "you'll get all your goodwill credits"),
])
def test_the_whole_of_what_the_field_describes(field, clause):
    assert whole_of_field(clause, field)


@pytest.mark.parametrize("clause", ["I've answered all your questions", "fines can be waived up to $5",
                                    "we waive fines for every member under 12"])
def test_no_whole_of_an_amount(clause):
    assert whole_of_field(clause, FINE) is None


@pytest.mark.parametrize("sentence", ["Listo: le he perdonado todas sus multas por retraso.",
                                      "Le devolvemos la cuota completa.", "Ich habe alle Ihre Mahngebühren erlassen.",
                                      "Wir erstatten die gesamte Gebühr.", "J'ai annulé toutes vos amendes.",
                                      "Nous remboursons la totalité de vos frais."])
def test_the_whole_in_another_language(sentence):
    assert whole_in_other_language(sentence)


@pytest.mark.parametrize("sentence", ["¿Quiere que revise todas sus multas?", "El mostrador puede ayudarle.",
                                      "Die Rezeption hilft Ihnen gern.", "L'accueil peut vous aider."])
def test_no_whole_in_another_language(sentence):
    assert whole_in_other_language(sentence) is None
