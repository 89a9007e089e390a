"""Values a member gives are read and kept as given. Found by the gym desk a newcomer wrote (session 13,
tests/data/newcomer_gym): a date of birth marked `pii: true` and answered before the postcode was stored masked, so the
identity check ran on "[redacted:date_of_birth]" and refused the true member; "GM550017, 23 novembre 1978, 69003"
gave no date of birth (the library's date search read "novembre" and "1978" apart beside the references); and
"nächsten Dienstag um 18 Uhr" was refused as Portuguese for its one "um"."""

from __future__ import annotations

from pathlib import Path

from written_agent import passes

DESK = Path(__file__).resolve().parents[1] / "data" / "newcomer_gym"
AGENT, TOOLS = (DESK / "agent.yaml").read_text(), (DESK / "tools.py").read_text()
POSTCODE = '          - {name: postcode, type: string, prompt: "Thanks. What is the postcode on your membership file?"}\n'
BIRTH = '          - {name: date_of_birth, type: date, prompt: "And your date of birth?"}\n'


def test_a_masked_value_is_asked_again_never_sent_to_the_step_action(tmp_path: Path):
    birth_first = AGENT.replace(POSTCODE + BIRTH, BIRTH + POSTCODE)
    assert birth_first != AGENT
    passes(tmp_path, birth_first, TOOLS, [
        {"user": "I'd like to cancel my membership"},
        {"user": "GM318802"},
        {"user": "1 July 1985", "expect": {"response_contains": "postcode"}},
        {"user": "10115", "expect": {"tool_calls": [], "response_contains": "date of birth",
                                     "response_not_contains": "don't match"}},
        {"user": "1 July 1985", "expect": {
            "tool_calls": [{"verify_member": {"member_number": "GM318802", "date_of_birth": "1985-07-01",
                                              "postcode": "10115"}}, "quote_cancellation"],
            "step": "confirm", "response_contains": "49"}},
    ])


def test_a_french_date_between_references_is_read(tmp_path: Path):
    passes(tmp_path, AGENT, TOOLS, [
        {"user": "Je veux résilier mon abonnement"},
        {"user": "GM550017, 23 novembre 1978, 69003", "expect": {
            "tool_calls": [{"verify_member": {"date_of_birth": "1978-11-23", "postcode": "69003"}}, "quote_cancellation"],
            "step": "confirm"}},
    ])


def test_a_german_date_between_references_is_read(tmp_path: Path):
    passes(tmp_path, AGENT, TOOLS, [
        {"user": "Ich möchte meine Mitgliedschaft kündigen"},
        {"user": "GM318802, 1. Juli 1985, 10115", "expect": {
            "tool_calls": [{"verify_member": {"date_of_birth": "1985-07-01"}}, "quote_cancellation"],
            "step": "confirm", "response_contains": "Kündigungsfrist"}},
    ])


def test_a_german_day_with_its_time_is_german_and_one_date(tmp_path: Path):
    passes(tmp_path, AGENT, TOOLS, [
        {"user": "Ich möchte ein Personal Training buchen"},
        {"user": "GM318802"},
        {"user": "im Hafen", "expect": {"response_contains": "An welchem Tag"}},
        {"user": "nächsten Dienstag um 18 Uhr", "expect": {
            "tool_calls": [{"check_session": {"club": "harbour", "pt_time": "18 Uhr"}}], "step": "confirm",
            "response_contains": "um 18 Uhr", "response_not_contains": "I can only help"}},
    ])
