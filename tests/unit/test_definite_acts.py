"""An act done to a definite amount in Spanish, German or French (focal.enforcement.definite_acts), and in English
(focal.enforcement.whole_quantity.whole_of_field): found when done or committed and asserted, never in an offer, a
question, a refusal or a condition."""

from __future__ import annotations

import pytest

from focal.enforcement.definite_acts import definite_act
from focal.enforcement.whole_quantity import whole_of_field
from focal.models.agent import ProfileFieldDefinition

FIELD = ProfileFieldDefinition(field_name="late_fee_waived", description="The late fee an answer promises to waive.",
                               field_type="money", extraction_hints=["waive"], sources=["response"], default=0)


@pytest.mark.parametrize(("sentence", "lang"), [
    ("Listo: le he condonado su recargo por demora.", "es"), ("He anulado su multa.", "Spanish"),
    ("Su multa ha sido anulada.", "es"), ("Le anularé la multa hoy mismo.", "es"),
    ("Ich habe Ihre Mahngebühr erlassen.", "de"), ("Ihre Mahngebühr wurde storniert.", "German"),
    ("J'ai annulé vos frais de retard.", "fr"), ("Vos pénalités ont été annulées.", "French"),
])
def test_an_act_done_to_a_definite_amount_is_found(sentence, lang):
    assert definite_act(sentence, lang)


@pytest.mark.parametrize(("sentence", "lang"), [
    ("Podemos anular su multa si paga hoy.", "es"), ("¿Quiere que le anule la multa?", "es"),
    ("No he anulado su multa.", "es"), ("Su recargo vence el viernes.", "es"),
    ("Ich kann Ihre Mahngebühr leider nicht erlassen.", "de"), ("Wenn Sie heute zahlen, wird die Gebühr erlassen.", "de"),
    ("Je n'ai pas annulé vos frais.", "fr"), ("Si vous payez aujourd'hui, les frais seront annulés.", "fr"),
    ("L'accueil peut vous aider pour les pénalités de retard.", "fr"), ("He anulado su multa.", "en"),
])
def test_an_offer_question_refusal_or_condition_is_no_act(sentence, lang):
    assert definite_act(sentence, lang) is None


@pytest.mark.parametrize("clause", ["I've waived your late fee", "your overdue late fee has been waived",
                                    "I'll waive the late fee on your account"])
def test_an_english_act_on_a_definite_fee_is_its_whole(clause):
    assert whole_of_field(clause, FIELD)


@pytest.mark.parametrize("clause", ["I can waive your late fee", "would you like me to waive your late fee?",
                                    "if you pay today, I'll waive the late fee", "I waive questions about the rules"])
def test_an_english_offer_question_or_condition_is_no_whole(clause):
    assert whole_of_field(clause, FIELD) is None
