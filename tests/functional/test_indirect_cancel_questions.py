"""At a flow's confirmation, a question about cancelling asked without a question word or mark — an indirect
question, "I'd like to know if…" in any of four languages — is a question: the flow stays at its confirmation and the
cancellation rule answers. A request to cancel, however it is put, still stops the flow (focal.sensing.acts,
focal.sensing.reply_words). The agent is the small hotel desk of tests/hotel_desk_agent.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from hotel_desk_agent import AGENT, TOOLS, at_confirmation
from written_agent import passes

ANSWER = {"en": "48 hours", "es": "48 horas", "fr": "48 heures", "de": "48 Stunden"}
ASKED_AGAIN = {"en": "Shall I go ahead?", "es": "¿Sigo adelante?", "fr": "Je continue ?", "de": "Soll ich fortfahren?"}


def _run(tmp_path: Path, turns: list[dict]) -> None:
    passes(tmp_path, AGENT, TOOLS, turns, "confirmation")


@pytest.mark.parametrize(("lang", "question"), [
    ("es", "quiero saber si puedo cancelar mi reserva"),
    ("es", "me gustaría saber cuánto cuesta cancelar"),
    ("es", "dígame si puedo cancelar sin pagar"),
    ("de", "ich möchte wissen, ob ich abbrechen kann"),
    ("de", "sagen Sie mir bitte, ob ich kostenlos abbrechen kann"),
    ("de", "ich wollte fragen, ob ich stornieren kann"),
    ("fr", "je voudrais savoir si je peux annuler ma réservation"),
    ("fr", "dites-moi si je peux annuler sans frais"),
    ("en", "I'd like to know if I can cancel my booking"),
])
def test_an_indirect_question_about_cancelling_keeps_the_flow_and_is_answered(tmp_path, lang, question):
    _run(tmp_path, at_confirmation(lang) + [
        {"user": question, "expect": {"commands": [], "scenario": "change_arrival", "step": "confirm", "tool_calls": [],
                                      "response_contains": [ANSWER[lang], ASKED_AGAIN[lang]]}},
    ])


@pytest.mark.parametrize(("lang", "instruction"), [
    ("es", "quiero cancelar"), ("es", "cancélalo, por favor"), ("de", "ich möchte abbrechen"),
    ("fr", "je veux annuler"), ("en", "I want to cancel"),
])
def test_a_request_to_cancel_still_stops_the_flow(tmp_path, lang, instruction):
    _run(tmp_path, at_confirmation(lang) + [
        {"user": instruction, "expect": {"commands": ["CancelFlow"], "scenario": None, "tool_calls": []}},
    ])
