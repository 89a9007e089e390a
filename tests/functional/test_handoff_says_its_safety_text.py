"""A hand-off says what the agent's own texts say on that turn before the hand-off notice, in the customer's language:
the template of the step a flow hands over from and the matched rule's template. Found by a newcomer's energy desk
(session 11, tests/data/newcomer_energy): "I can smell gas in my kitchen" entered the supply-problem flow, whose
`gas_safety` step says what to do (open the windows, leave, call the emergency line) and hands over — the customer
heard only "I'll connect you with a member of our team", the safety text was dropped for the notice. In Spanish and
German the gas-safety rule answered instead and nobody was handed the conversation ("answered by rule gas_emergency
rather than starting supply_problem"): a message that gives a value the flow collects is that flow's request."""

from __future__ import annotations

from pathlib import Path

from written_agent import passes

DESK = Path(__file__).resolve().parents[1] / "data" / "newcomer_energy"
AGENT = (DESK / "agent.yaml").read_text()
TOOLS = (DESK / "tools.py").read_text()
HANDOFF_EN = "member of our team"


def test_a_flow_that_hands_over_says_its_steps_safety_text_first(tmp_path: Path):
    passes(tmp_path, AGENT, TOOLS, [
        {"user": "I want to report a problem with my supply",
         "expect": {"scenario": "supply_problem", "response_contains": "What is the problem"}},
        {"user": "it smells of gas in the hallway",
         "expect": {"execution_path": "escalate", "tool_calls": ["transfer_to_staff"],
                    "response_contains": ["leave the building", "0800 111 999", HANDOFF_EN],
                    "response_not_contains": "account number"}},
    ])


def test_the_safety_text_is_said_once_when_the_rule_says_it_too(tmp_path: Path):
    """The gas-safety rule matches the same message and its template is the step's: said once, then the notice."""
    folder = tmp_path / "en"
    folder.mkdir()
    passes(folder, AGENT, TOOLS, [
        {"user": "I can smell gas in my kitchen",
         "expect": {"execution_path": "escalate", "tool_calls": ["transfer_to_staff"],
                    "response_contains": ["leave the building", HANDOFF_EN]}},
    ])
    # the whole answer holds the safety advice once
    from focal.cli.conversation_tests import run_suite

    report = run_suite(folder / "agent.yaml", folder / "tests.yaml")
    said = report.conversations[0].turns[0].response
    assert said.count("leave the building") == 1, said
    assert said.index("leave the building") < said.index(HANDOFF_EN), said


def test_a_gas_smell_in_spanish_and_german_starts_the_flow_and_hands_over(tmp_path: Path):
    for lang, message, safety in (("es", "Huele a gas en mi cocina", "salga del edificio"),
                                  ("de", "Es riecht im Keller nach Gas", "verlassen Sie das Gebäude")):
        folder = tmp_path / lang
        folder.mkdir()
        passes(folder, AGENT, TOOLS, [
            {"user": message, "expect": {"execution_path": "escalate", "tool_calls": ["transfer_to_staff"],
                                         "response_contains": ["0800 111 999", safety]}},
        ])


def test_a_question_the_rule_answers_still_starts_nothing(tmp_path: Path):
    """The flow-start that a rule's answer overrides is only the one whose message gives none of its values: a
    question about the price cap (no value of any flow) is still the rule's."""
    passes(tmp_path, AGENT, TOOLS, [
        {"user": "Will the price cap go down in April?",
         "expect": {"scenario": None, "tool_calls": [], "matched_rules_include": ["price_cap_question"],
                    "response_contains": "can't predict"}},
    ])
