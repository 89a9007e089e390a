"""An indirect question — a verb that asks to know or to be told, then the word that opens the question it embeds —
asks, in each language, without a question word in front or a question mark (focal.sensing.reply_words,
focal.sensing.acts): a question about cancelling put so is no stop; a stop said before it, or a plain request, is."""

from __future__ import annotations

import pytest

from focal.sensing.acts import asks_about_cancelling
from focal.sensing.reply_words import indirect_question


@pytest.mark.parametrize("text", [
    "quiero saber si puedo cancelar mi reserva", "me gustaría saber cuánto cuesta cancelar", "dígame si puedo cancelar",
    "¿puede decirme si puedo cancelar?", "ich möchte wissen, ob ich abbrechen kann", "ich wollte fragen, wann ich abbrechen kann",
    "je voudrais savoir si je peux annuler", "dites-moi s'il est possible d'annuler", "je me demande si je peux annuler",
    "I'd like to know if I can cancel my booking",
])
def test_a_question_about_cancelling_put_indirectly_is_no_stop(text):
    assert asks_about_cancelling(text)


@pytest.mark.parametrize("text", [
    "quiero cancelar mi reserva", "cancela, quiero saber si puedo volver a reservar", "ich möchte abbrechen",
    "je veux annuler", "annulez, je voudrais savoir si je suis remboursé", "I want to cancel",
    "¿puede cancelarla?", "können Sie abbrechen?",
])
def test_a_request_to_cancel_is_a_stop(text):
    assert not asks_about_cancelling(text)


@pytest.mark.parametrize(("text", "found"), [
    ("quiero saber si puedo cancelar", True), ("ich möchte wissen, ob es geht", True), ("dis-moi quand", True),
    ("quiero saber", False),  # nothing embedded: no question of its own
    ("cancela si no puedo venir", False),  # "si" of a condition, no verb asking to know
    ("ich weiß, dass es geht", False),
])
def test_the_structure_is_a_verb_of_knowing_then_what_opens_the_embedded_question(text, found):
    assert (indirect_question(text) is not None) is found
