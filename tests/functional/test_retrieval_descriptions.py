"""Rules written without examples (a condition and an action, as a business first writes them), measured and matched:
the bench measures an agent with its examples removed, a Spanish case is matched where its turn is (the multilingual
space), and a rule whose best key is its description is compared with a competing flow on the description's scale
(focal.retrieval.description_gap). Real MiniLM and multilingual model, real numpy index."""

from __future__ import annotations

from pathlib import Path

import pytest

from focal.adapters.onnx_embedder import shared_embedder
from focal.adapters.use_embedder import shared_multilingual_embedder
from focal.bench.retrieval import Case, passing, run_cases, without_examples
from focal.bench.retrieval_misses import FLOW_BETTER, miss_cause
from focal.config.loader import load_agent
from focal.main import main
from focal.retrieval.description_gap import MAX_GAP, description_gap, measure_gap

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
AIRLINE = EXAMPLES / "airline" / "agent.yaml"
TUTORIAL = EXAMPLES / "tutorial" / "agent.yaml"
CARDS = EXAMPLES / "cards" / "agent.yaml"


def test_without_examples_removes_every_rules_examples_and_their_translations():
    agent = load_agent(CARDS)
    assert any(r.examples for r in agent.rules) and any(
        t.examples for texts in agent.translations.values() for t in texts.rules.values())
    bare = without_examples(agent)
    assert not any(r.examples for r in bare.rules)
    assert not any(t.examples for texts in bare.translations.values() for t in texts.rules.values())
    assert [r.condition_text for r in bare.rules] == [r.condition_text for r in agent.rules]  # nothing else changes
    assert any(r.examples for r in agent.rules)  # the loaded agent is left as it was


def test_the_cli_measures_an_agent_without_its_examples(capsys):
    assert main(["bench", "retrieval", str(AIRLINE), "--k", "1", "--without-examples"]) == 0
    assert "at the agent's threshold" in capsys.readouterr().out


def test_the_description_gap_is_read_from_the_agents_own_flows():
    """Each flow's name is a description beside its entry examples: on the airline agent a message scores clearly lower
    against a description than against another message of the same request; without flows there is nothing to read."""
    agent, embedder = load_agent(AIRLINE), shared_embedder()
    gap = measure_gap(agent, embedder)
    assert 0.05 < gap <= MAX_GAP
    assert description_gap(agent, embedder) == gap
    assert measure_gap(agent.model_copy(update={"scenarios": []}), embedder) == 0.0


def test_a_rule_without_examples_is_not_cut_by_a_flow_whose_entry_example_only_touches_the_message():
    """'When will I get my money back for the cancelled trip?' asks what the airline's refund_timing rule answers; written
    without examples, that rule matched only through its condition, which scored below the cancel flow's entry example
    by more than the margin, so the rule filter dropped it ('another flow's example fits better')."""
    agent = without_examples(load_agent(AIRLINE))
    case = Case("When will I get my money back for the cancelled trip?", "cancel_reservation", "cancelled",
                ("refund_timing",))
    (result,) = run_cases(agent, [case], shared_embedder())
    assert miss_cause(agent, result.candidates, "refund_timing") != FLOW_BETTER
    assert "refund_timing" in passing(agent, result.candidates)


@pytest.mark.parametrize("message", ["¿Cuánto se paga de multa por cada día de retraso?",
                                     "Wie hoch ist die Gebühr pro Tag, wenn ich ein Buch zu spät zurückgebe?"])
def test_a_case_in_another_language_is_matched_in_the_multilingual_space_as_its_turn(message):
    """The tutorial declares en/es/de/fr: its turn in Spanish or German is matched in the multilingual space, and so is
    the bench's case (it used to be matched in MiniLM's, where such a message lands anywhere)."""
    agent = load_agent(TUTORIAL)
    (result,) = run_cases(agent, [Case(message, None, None, ("fines",))], shared_embedder(),
                          multilingual=shared_multilingual_embedder())
    assert "fines" in passing(agent, result.candidates)
