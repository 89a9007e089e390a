"""At a flow's confirmation ("Shall I go ahead?"), through the whole offline pipeline, in English, Spanish and French:

- a question about cancelling is a question for the agent's rules, not an instruction: the flow stays at its
  confirmation and the rule answers; a cancel instruction ("cancel that", "olvídalo", "laisse tomber") still stops it;
- a new value for the slot the confirmation shows is a correction of it, whatever words come before it ("forget…",
  "olvide…", "oublie…"): the question is asked again with the new value, and nothing runs without a yes;
- after the customer asked for a person (the handoff tool ran), the flow acts no more: "December 5" and "yes" run
  none of its tools.

The agent is written here (a small hotel desk); dates carry their year, so no turn depends on today's date."""

from __future__ import annotations

from pathlib import Path

from written_agent import passes

AGENT = """
id: desk
name: Hotel desk
out_of_scope_message: I can answer questions about your stay or change the arrival date of a booking.
handoff_tool: transfer_to_staff
languages: [en, es, fr]
profile_field_definitions:
  - {field_name: booking_ref, display_name: Booking reference, field_type: id, pattern: '\\b[Hh][Bb]\\d{5}\\b', sources: [message]}
  - {field_name: arrival_date, display_name: New arrival date, field_type: date, sources: [message]}
  - {field_name: booking_found, field_type: boolean, sources: [tool]}
  - {field_name: current_arrival, field_type: date, sources: [tool]}
  - {field_name: new_arrival, field_type: date, sources: [tool]}
  - {field_name: handoff_ref, field_type: string, sources: [tool]}
tools:
  - id: find_booking
    kind: python
    entrypoint: tools.py:find_booking
    input: {booking_ref: {type: id}}
    output: {found: booking_found, arrival: current_arrival}
    found: found
  - id: change_arrival
    kind: python
    entrypoint: tools.py:change_arrival
    input: {booking_ref: {type: id}, arrival_date: {type: date}}
    output: {arrival: new_arrival}
    side_effect: true
  - id: transfer_to_staff
    kind: python
    entrypoint: tools.py:transfer
    input: {summary: {type: string}}
    arguments: {summary: conversation_summary}
    output: {ref: handoff_ref}
    side_effect: true
scenarios:
  - id: change_arrival
    name: Change the arrival date
    entry_examples: ["I need to change my arrival date", "Please move my booking to another date", "Can I arrive a few days later?"]
    entry_step_id: identify
    steps:
      - id: identify
        slots: [{name: booking_ref, type: id, prompt: "What is your booking reference?"}]
        action: [find_booking]
        transitions: [{target: not_found, when: not booking_found}, {target: ask_date}]
      - id: ask_date
        slots: [{name: arrival_date, type: date, prompt: "Your arrival is {current_arrival}. What new arrival date would you like?"}]
        transitions: [{target: confirm}]
      - id: confirm
        requires_confirmation: true
        confirmation_prompt: "I'll change the arrival of booking {booking_ref} to {arrival_date}. Shall I go ahead?"
        action: [change_arrival]
        transitions: [{target: changed}]
      - id: changed
        response_template: "Done: booking {booking_ref} now arrives on {new_arrival}."
      - id: not_found
        response_template: "I couldn't find booking {booking_ref}."
rules:
  - id: cancellation_policy
    condition_text: What does it cost to cancel a booking? What is the cancellation fee?
    examples: ["What is the cancellation fee?", "How much does it cost to cancel?", "Can I cancel for free?"]
    action_text: Give the cancellation policy.
    response_template: Cancelling is free until 48 hours before arrival; after that the first night is charged.
translations:
  es:
    scenarios:
      change_arrival:
        steps:
          confirm: {confirmation_prompt: "Cambiaré la llegada de la reserva {booking_ref} al {arrival_date}. ¿Sigo adelante?"}
    rules:
      cancellation_policy: {response_template: "Cancelar es gratis hasta 48 horas antes de la llegada; después se cobra la primera noche.",
                            examples: ["¿Cuánto cuesta cancelar?", "¿Cuál es la penalización por cancelación?"]}
  fr:
    scenarios:
      change_arrival:
        steps:
          confirm: {confirmation_prompt: "Je change l'arrivée de la réservation {booking_ref} au {arrival_date}. Je continue ?"}
    rules:
      cancellation_policy: {response_template: "L'annulation est gratuite jusqu'à 48 heures avant l'arrivée ; ensuite la première nuit est facturée.",
                            examples: ["Combien coûte l'annulation ?", "Quels sont les frais d'annulation ?"]}
"""
TOOLS = """
def find_booking(booking_ref):
    return {"found": True, "arrival": "2027-12-03"}


def change_arrival(booking_ref, arrival_date):
    return {"arrival": str(arrival_date)}


def transfer(summary):
    return {"ref": "DESK-1"}
"""

OPENING = {
    "en": ["I need to change my arrival date", "HB10234", "December 8, 2027"],
    "es": ["Necesito cambiar mi fecha de llegada", "HB10234", "el 8 de diciembre de 2027"],
    "fr": ["Je dois changer ma date d'arrivée", "HB10234", "le 8 décembre 2027"],
}


def _at_confirmation(lang: str) -> list[dict]:
    *first, date = OPENING[lang]
    return [{"user": text} for text in first] + [{"user": date, "expect": {"step": "confirm"}}]


def _run(tmp_path: Path, turns: list[dict]) -> None:
    passes(tmp_path, AGENT, TOOLS, turns, "confirmation")


# --- a question about cancelling is answered; the flow stays at its confirmation -------------------------------


def test_a_question_about_the_cancellation_fee_keeps_the_flow_and_is_answered(tmp_path):
    _run(tmp_path, _at_confirmation("en") + [
        {"user": "What is the cancellation fee if I have to cancel later?",
         "expect": {"commands": [], "scenario": "change_arrival", "step": "confirm", "tool_calls": [],
                    "response_contains": ["48 hours", "Shall I go ahead?"], "response_not_contains": "stopped"}},
        {"user": "yes", "expect": {"commands": ["AffirmConfirmation"], "tool_calls": ["change_arrival"],
                                   "response_contains": "2027-12-08"}},
    ])


def test_a_spanish_question_about_cancelling_keeps_the_flow_and_is_answered(tmp_path):
    _run(tmp_path, _at_confirmation("es") + [
        {"user": "¿Cuánto cuesta cancelar la reserva si no puedo venir?",
         "expect": {"commands": [], "step": "confirm", "tool_calls": [], "response_contains": ["48 horas", "¿Sigo adelante?"]}},
    ])


def test_a_french_question_about_cancelling_keeps_the_flow_and_is_answered(tmp_path):
    _run(tmp_path, _at_confirmation("fr") + [
        {"user": "Combien coûte l'annulation si je dois annuler plus tard ?",
         "expect": {"commands": [], "step": "confirm", "tool_calls": [], "response_contains": ["48 heures", "Je continue ?"]}},
    ])


def test_a_cancel_instruction_still_stops_the_flow_in_each_language(tmp_path):
    for lang, stop in (("en", "cancel that"), ("en", "stop"), ("es", "olvídalo"), ("fr", "laisse tomber")):
        _run(tmp_path, _at_confirmation(lang) + [
            {"user": stop, "expect": {"commands": ["CancelFlow"], "scenario": None, "tool_calls": []}},
        ])


# --- a new value at the confirmation is a correction, and is confirmed again -----------------------------------


def test_forget_the_old_date_and_give_a_new_one_corrects_it_and_asks_again(tmp_path):
    _run(tmp_path, _at_confirmation("en") + [
        {"user": "Forget the 8th, make it December 6, 2027",
         "expect": {"commands": ["CorrectSlot"], "step": "confirm", "tool_calls": [],
                    "response_contains": "to 2027-12-06. Shall I go ahead?"}},
        {"user": "yes", "expect": {"tool_calls": ["change_arrival"], "response_contains": "now arrives on 2027-12-06"}},
    ])


def test_yes_but_another_date_corrects_it_and_runs_nothing(tmp_path):
    _run(tmp_path, _at_confirmation("en") + [
        {"user": "yes but make it December 5, 2027 instead",
         "expect": {"commands": ["CorrectSlot"], "step": "confirm", "tool_calls": [], "response_contains": "2027-12-05"}},
    ])


def test_a_spanish_correction_at_the_confirmation_is_understood(tmp_path):
    _run(tmp_path, _at_confirmation("es") + [
        {"user": "Olvide lo anterior, mejor el 6 de diciembre de 2027",
         "expect": {"commands": ["CorrectSlot"], "step": "confirm", "tool_calls": [],
                    "response_contains": "al 2027-12-06. ¿Sigo adelante?"}},
        {"user": "sí", "expect": {"tool_calls": ["change_arrival"]}},
    ])


def test_a_french_correction_at_the_confirmation_is_understood(tmp_path):
    _run(tmp_path, _at_confirmation("fr") + [
        {"user": "Oublie le 8, mets plutôt le 6 décembre 2027",
         "expect": {"commands": ["CorrectSlot"], "step": "confirm", "tool_calls": [],
                    "response_contains": "au 2027-12-06. Je continue ?"}},
    ])


def test_no_and_a_day_alone_corrects_the_day_in_the_month_shown(tmp_path):
    _run(tmp_path, _at_confirmation("en") + [
        {"user": "no, the 5th", "expect": {"commands": ["CorrectSlot", "DenyConfirmation"], "step": "confirm",
                                           "tool_calls": [], "response_contains": "to 2027-12-05. Shall I go ahead?"}},
    ])


def test_a_spanish_yes_but_a_day_alone_corrects_the_day_and_asks_again(tmp_path):
    _run(tmp_path, _at_confirmation("es") + [
        {"user": "sí, pero cámbielo al día 5", "expect": {"commands": ["CorrectSlot"], "step": "confirm", "tool_calls": [],
                                                          "response_contains": "al 2027-12-05. ¿Sigo adelante?"}},
        {"user": "sí", "expect": {"tool_calls": ["change_arrival"], "response_contains": "2027-12-05"}},
    ])


# --- after a hand-off the customer asked for, the flow acts no more ---------------------------------------------


def test_after_a_handoff_the_flow_runs_none_of_its_tools(tmp_path):
    _run(tmp_path, [
        {"user": "I need to change my arrival date"},
        {"user": "HB10234", "expect": {"step": "ask_date"}},
        {"user": "I want to talk to a person", "expect": {"commands": ["HumanHandoff"], "tool_calls": ["transfer_to_staff"],
                                                        "scenario": None}},
        {"user": "December 5, 2027", "expect": {"tool_calls": [], "scenario": None}},
        {"user": "yes", "expect": {"tool_calls": [], "scenario": None}},
        {"user": "I need to change my arrival date", "expect": {"scenario": "change_arrival", "commands": ["StartFlow"]}},
    ])


def test_after_a_handoff_asked_in_french_the_flow_runs_none_of_its_tools(tmp_path):
    _run(tmp_path, _at_confirmation("fr") + [
        {"user": "Je voudrais parler à une personne de la réception", "expect": {"commands": ["HumanHandoff"],
                                                                                 "tool_calls": ["transfer_to_staff"]}},
        {"user": "oui", "expect": {"tool_calls": [], "scenario": None}},
    ])
