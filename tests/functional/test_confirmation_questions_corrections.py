"""At a flow's confirmation ("Shall I go ahead?"), through the whole offline pipeline, in English, Spanish and French:

- a question about cancelling is a question for the agent's rules, not an instruction: the flow stays at its
  confirmation and the rule answers; a cancel instruction ("cancel that", "olvídalo", "laisse tomber") still stops it;
- a new value for the slot the confirmation shows is a correction of it, whatever words come before it ("forget…",
  "olvide…", "oublie…"): the question is asked again with the new value, and nothing runs without a yes;
- after the customer asked for a person (the handoff tool ran), the flow acts no more: "December 5" and "yes" run
  none of its tools.

The agent is a small hotel desk (tests/hotel_desk_agent.py)."""

from __future__ import annotations

from pathlib import Path

from hotel_desk_agent import AGENT, TOOLS, at_confirmation
from written_agent import passes


def _run(tmp_path: Path, turns: list[dict]) -> None:
    passes(tmp_path, AGENT, TOOLS, turns, "confirmation")


# --- a question about cancelling is answered; the flow stays at its confirmation -------------------------------


def test_a_question_about_the_cancellation_fee_keeps_the_flow_and_is_answered(tmp_path):
    _run(tmp_path, at_confirmation("en") + [
        {"user": "What is the cancellation fee if I have to cancel later?",
         "expect": {"commands": [], "scenario": "change_arrival", "step": "confirm", "tool_calls": [],
                    "response_contains": ["48 hours", "Shall I go ahead?"], "response_not_contains": "stopped"}},
        {"user": "yes", "expect": {"commands": ["AffirmConfirmation"], "tool_calls": ["change_arrival"],
                                   "response_contains": "2027-12-08"}},
    ])


def test_a_spanish_question_about_cancelling_keeps_the_flow_and_is_answered(tmp_path):
    _run(tmp_path, at_confirmation("es") + [
        {"user": "¿Cuánto cuesta cancelar la reserva si no puedo venir?",
         "expect": {"commands": [], "step": "confirm", "tool_calls": [], "response_contains": ["48 horas", "¿Sigo adelante?"]}},
    ])


def test_a_french_question_about_cancelling_keeps_the_flow_and_is_answered(tmp_path):
    _run(tmp_path, at_confirmation("fr") + [
        {"user": "Combien coûte l'annulation si je dois annuler plus tard ?",
         "expect": {"commands": [], "step": "confirm", "tool_calls": [], "response_contains": ["48 heures", "Je continue ?"]}},
    ])


def test_a_models_stop_for_a_question_about_cancelling_is_set_aside(tmp_path):
    stop = {"detected_intent": None, "intent_confidence": 0.9, "commands": [{"name": "CancelFlow", "flow": "change_arrival"}]}
    _run(tmp_path, at_confirmation("en") + [
        {"user": "How much is it to cancel if I can't make it?", "model": {"sensor": stop},
         "expect": {"commands": [], "step": "confirm", "tool_calls": [], "response_contains": "48 hours"}},
    ])


def test_a_question_no_rule_answers_gets_the_out_of_scope_answer_and_the_question_again(tmp_path):
    _run(tmp_path, at_confirmation("en") + [
        {"user": "Is there a swimming pool on the roof?",
         "expect": {"step": "confirm", "tool_calls": [], "response_not_contains": "didn't quite understand",
                    "response_contains": ["I can answer questions about your stay", "Shall I go ahead?"]}},
    ])


def test_a_cancel_instruction_still_stops_the_flow_in_each_language(tmp_path):
    for lang, stop in (("en", "cancel that"), ("en", "stop"), ("es", "olvídalo"), ("fr", "laisse tomber")):
        _run(tmp_path, at_confirmation(lang) + [
            {"user": stop, "expect": {"commands": ["CancelFlow"], "scenario": None, "tool_calls": []}},
        ])


# --- a new value at the confirmation is a correction, and is confirmed again -----------------------------------


def test_forget_the_old_date_and_give_a_new_one_corrects_it_and_asks_again(tmp_path):
    _run(tmp_path, at_confirmation("en") + [
        {"user": "Forget the 8th, make it December 6, 2027",
         "expect": {"commands": ["CorrectSlot"], "step": "confirm", "tool_calls": [],
                    "response_contains": "to 2027-12-06. Shall I go ahead?"}},
        {"user": "yes", "expect": {"tool_calls": ["change_arrival"], "response_contains": "now arrives on 2027-12-06"}},
    ])


def test_yes_but_another_date_corrects_it_and_runs_nothing(tmp_path):
    _run(tmp_path, at_confirmation("en") + [
        {"user": "yes but make it December 5, 2027 instead",
         "expect": {"commands": ["CorrectSlot"], "step": "confirm", "tool_calls": [], "response_contains": "2027-12-05"}},
    ])


def test_a_spanish_correction_at_the_confirmation_is_understood(tmp_path):
    _run(tmp_path, at_confirmation("es") + [
        {"user": "Olvide lo anterior, mejor el 6 de diciembre de 2027",
         "expect": {"commands": ["CorrectSlot"], "step": "confirm", "tool_calls": [],
                    "response_contains": "al 6 de diciembre de 2027. ¿Sigo adelante?"}},
        {"user": "sí", "expect": {"tool_calls": ["change_arrival"]}},
    ])


def test_a_french_correction_at_the_confirmation_is_understood(tmp_path):
    _run(tmp_path, at_confirmation("fr") + [
        {"user": "Oublie le 8, mets plutôt le 6 décembre 2027",
         "expect": {"commands": ["CorrectSlot"], "step": "confirm", "tool_calls": [],
                    "response_contains": "au 6 décembre 2027. Je continue ?"}},
    ])


def test_no_and_a_day_alone_corrects_the_day_in_the_month_shown(tmp_path):
    _run(tmp_path, at_confirmation("en") + [
        {"user": "no, the 5th", "expect": {"commands": ["CorrectSlot", "DenyConfirmation"], "step": "confirm",
                                           "tool_calls": [], "response_contains": "to 2027-12-05. Shall I go ahead?"}},
    ])


def test_a_spanish_yes_but_a_day_alone_corrects_the_day_and_asks_again(tmp_path):
    _run(tmp_path, at_confirmation("es") + [
        {"user": "sí, pero cámbielo al día 5", "expect": {"commands": ["CorrectSlot"], "step": "confirm", "tool_calls": [],
                                                          "response_contains": "al 5 de diciembre de 2027. ¿Sigo adelante?"}},
        {"user": "sí", "expect": {"tool_calls": ["change_arrival"], "response_contains": "5 de diciembre de 2027"}},
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
    _run(tmp_path, at_confirmation("fr") + [
        {"user": "Je voudrais parler à une personne de la réception", "expect": {"commands": ["HumanHandoff"],
                                                                                 "tool_calls": ["transfer_to_staff"]}},
        {"user": "oui", "expect": {"tool_calls": [], "scenario": None}},
    ])
