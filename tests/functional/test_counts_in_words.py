"""A count the customer spells out in English words is read as the count ("delayed five hours"), in a message that
starts the flow and as the bare answer to the count's own prompt; a lone "one" in running text stays a word."""

from __future__ import annotations

from pathlib import Path

from written_agent import passes

AGENT = """
id: delay_desk
name: Delay desk
profile_field_definitions:
  - {field_name: delay_hours, field_type: integer, description: How many hours late the flight arrived,
     sources: [message], extraction_hints: [hours, hour, late, delayed]}
scenarios:
  - id: delay_claim
    name: Delay claim
    entry_examples: [My flight was delayed, I want compensation for a late flight, The flight arrived hours late]
    entry_step_id: ask
    steps:
      - id: ask
        slots: [{name: delay_hours, type: integer, prompt: "How many hours late did the flight arrive?"}]
        transitions: [{target: done}]
      - id: done
        response_template: "Noted: {delay_hours} hours late."
"""


def test_a_count_in_words_in_the_message_that_starts_the_flow(tmp_path: Path):
    passes(tmp_path, AGENT, "", [
        {"user": "My flight was delayed five hours, I want compensation",
         "expect": {"scenario": "delay_claim", "response_contains": "Noted: 5 hours late"}},
    ])


def test_a_count_in_words_answers_its_prompt(tmp_path: Path):
    passes(tmp_path, AGENT, "", [
        {"user": "My flight was delayed", "expect": {"step": "ask", "response_contains": "How many hours"}},
        {"user": "twelve", "expect": {"response_contains": "Noted: 12 hours late"}},
    ])
