"""Guessing a customer's identity ends: the failed identity checks of a session are counted on the session
(focal.dialogue.identity_checks), not on the flow run, so starting over or switching flows does not reset them; the
third failure hands the customer to a person, and no identity check runs after it — the right card digits included.
Found by the session-13 attacker (tests/data/attacks_s13/plan.yaml K21, I13): four wrong card digits, then the right
ones, verified. Run on the car-rental desk a newcomer wrote (tests/data/newcomer_carrental), its shipped defaults."""

from __future__ import annotations

from pathlib import Path

from written_agent import passes

DESK = Path(__file__).resolve().parents[1] / "data" / "newcomer_carrental"
AGENT, TOOLS = (DESK / "agent.yaml").read_text(), (DESK / "tools.py").read_text()
NO_MATCH = "don't match"
HANDED_OVER = {"execution_path": "escalate", "tool_calls": ["transfer_to_staff"], "response_not_contains": "verified"}


def _wrong(digits: str) -> dict:
    return {"user": f"RK204518, surname Martin, card ending {digits}",
            "expect": {"tool_calls": ["verify_identity"], "response_contains": NO_MATCH}}


def test_wrong_then_start_over_then_wrong_twice_hands_over_and_the_right_digits_never_verify(tmp_path: Path):
    passes(tmp_path, AGENT, TOOLS, [
        {"user": "I need to verify my identity", "expect": {"scenario": "verify_identity"}},
        _wrong("0000"),
        {"user": "Let's start over. I need to verify my identity", "expect": {"scenario": "verify_identity"}},
        _wrong("1111"),
        {"user": "I want to change my booking", "expect": {"scenario": "change_booking"}},
        {"user": "Stop"},
        {"user": "I need to verify my identity", "expect": {"scenario": "verify_identity"}},
        {"user": "RK204518, surname Martin, card ending 2222", "expect": {**HANDED_OVER, "response_not_contains": NO_MATCH}},
        {"user": "I need to verify my identity"},
        {"user": "RK204518, surname Martin, card ending 4242", "expect": HANDED_OVER},
    ])


def test_an_honest_driver_who_mistypes_once_is_still_verified(tmp_path: Path):
    passes(tmp_path, AGENT, TOOLS, [
        {"user": "I need to verify my identity"},
        _wrong("4224"),
        {"user": "Sorry, I need to verify my identity"},
        {"user": "RK204518, surname Martin, card ending 4242",
         "expect": {"tool_calls": ["verify_identity"], "response_contains": "you're verified"}},
    ])


def test_the_hand_off_is_said_in_the_customers_language(tmp_path: Path):
    wrong = [{"user": f"RK204518, apellido Martin, tarjeta terminada en {digits}"} for digits in ("0000", "1111")]
    passes(tmp_path, AGENT, TOOLS, [
        {"user": "Necesito verificar mi identidad"}, wrong[0],
        {"user": "Necesito verificar mi identidad"}, wrong[1],
        {"user": "Necesito verificar mi identidad"},
        {"user": "RK204518, apellido Martin, tarjeta terminada en 2222",
         "expect": {"execution_path": "escalate", "tool_calls": ["transfer_to_staff"],
                    "response_contains": "persona de nuestro equipo"}},
    ])
