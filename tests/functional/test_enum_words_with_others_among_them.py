"""An enum value the customer names with other words among the agent's words for it: "A pipe burst in my kitchen"
names the synonym "burst pipe", "Es riecht im Keller nach Gas" names "riecht nach Gas". Found by newcomers: the claims
desk (session 10, tests/data/newcomer_insurance) asked "what happened?" after "A pipe burst in my kitchen", and the
energy desk (session 11, tests/data/newcomer_energy) did not read a gas smell from "Es riecht im Keller nach Gas".
A phrase with a negation is read only as written ("no power" is not "I have power, no gas")."""

from __future__ import annotations

from pathlib import Path

from written_agent import passes

from focal.models.agent import ProfileFieldDefinition
from focal.sensing.extraction import extract

DATA = Path(__file__).resolve().parents[1] / "data"
ENERGY = (DATA / "newcomer_energy" / "agent.yaml").read_text(), (DATA / "newcomer_energy" / "tools.py").read_text()
CLAIMS = (DATA / "newcomer_insurance" / "agent.yaml").read_text(), (DATA / "newcomer_insurance" / "tools.py").read_text()
PROBLEM = ProfileFieldDefinition(
    field_name="problem", field_type="enum", allowed_values=["gas_smell", "power_cut", "water"],
    value_synonyms={"gas_smell": ["smells of gas", "riecht nach Gas"], "power_cut": ["no power", "kein Strom"],
                    "water": ["burst pipe"]})


def test_a_value_said_with_words_among_its_own_is_read():
    assert extract(PROBLEM, "A pipe burst in my kitchen", choosing=True) == "water"
    assert extract(PROBLEM, "Es riecht im Keller nach Gas", choosing=True) == "gas_smell"
    assert extract(PROBLEM, "it smells strongly of gas", choosing=True) == "gas_smell"


def test_a_phrase_with_a_negation_or_across_clauses_is_not_read_loosely():
    assert extract(PROBLEM, "I have power, no gas", choosing=True) is None
    assert extract(PROBLEM, "there is no gas but power is fine", choosing=True) is None
    assert extract(PROBLEM, "the pipe is fine, the tap burst", choosing=True) is None
    assert extract(PROBLEM, "kein Gas, aber Strom", choosing=True) is None


def test_a_refused_value_is_not_read():
    assert extract(PROBLEM, "it's not a pipe burst, the roof leaks", choosing=True) is None


def test_a_claim_for_a_pipe_that_burst_is_filed_as_water(tmp_path: Path):
    agent, tools = CLAIMS
    passes(tmp_path, agent, tools, [
        {"user": "A pipe burst in my kitchen and I need to make a claim", "expect": {"scenario": "verify"}},
        {"user": "It's HH204518"},
        {"user": "12 April 1985", "expect": {"tool_calls": ["verify_customer"], "scenario": "new_claim",
                                             "response_not_contains": "What happened"}},
        {"user": "It happened on 3 November 2026", "expect": {"step": "confirm", "response_contains": "water"}},
    ])


def test_a_german_gas_smell_is_read_in_the_problem_flow(tmp_path: Path):
    agent, tools = ENERGY
    passes(tmp_path, agent, tools, [
        {"user": "Ich möchte eine Störung melden", "expect": {"scenario": "supply_problem"}},
        {"user": "Es riecht im Flur nach Gas",
         "expect": {"execution_path": "escalate", "tool_calls": ["transfer_to_staff"], "response_contains": "0800 111 999"}},
    ])
