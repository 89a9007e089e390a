"""Rule and scenario ids name documents of the rule index: a rule's examples are indexed as 'rule_id#n' and a
scenario's entry examples as 'scenario_id#n'. An id holding '#' could name another rule's key — a rule called
'refund#0' would replace the first entry example of scenario 'refund' (or an example of a rule 'refund') in
the index, and a search would return one for the other. Such an id is refused when the file is checked."""

from __future__ import annotations

from focal.config.loader import parse_agent_text
from focal.config.validate import semantic_problems

AGENT = """\
id: shop
name: Shop
scenarios:
  - id: refund
    name: Refund
    entry_examples: ["I want a refund"]
    entry_step_id: ask
    steps:
      - id: ask
        instructions: Ask for the order.
rules:
  - id: refund
    condition_text: The customer asks about refunds
    action_text: Explain refunds.
    examples: ["how do refunds work?"]
  - id: "{rule_id}"
    condition_text: The customer asks about something else
    action_text: Answer it.
"""


def problems(rule_id: str) -> list[tuple[str, str]]:
    loaded = parse_agent_text(AGENT.replace("{rule_id}", rule_id), "agent.yaml")
    assert loaded.config is not None, loaded.problems
    found = loaded.problems + semantic_problems(loaded.config, loaded.raw)
    return [(p.path, p.message) for p in found if p.severity == "error"]


def test_a_rule_id_that_names_another_document_is_refused_naming_the_field():
    [(path, message)] = problems("refund#0")
    assert path == "rules[1].id" and "'refund#0' contains '#'" in message


def test_an_ordinary_id_passes():
    assert problems("refund_time") == []
