"""`focal validate` says where YAML read an unquoted value as something other than the text written — a date,
a yes/no/on/off boolean, an octal 010 — which field, what YAML made of it, and to quote it: as the schema
error's reason where the schema refuses the value, as a warning where it takes it. A boolean setting written
yes/no, a plain number where a number is meant, or a date in quotes says nothing. Conversation-test suites get
the same message for the readings a test never means (a date, 010)."""

from __future__ import annotations

from pathlib import Path

import pytest
from agent_variants import line, validate_variant

from focal.cli.suite_file import SuiteError, read_suite
from focal.config.loader import load_agent

TOOLS = "def book_visit(species, visit_type, owner_id='000'):\n    return {'booked': True}\n"
AGENT = """\
id: vetdesk
name: Happy Paws appointment desk
profile_field_definitions:
  - {field_name: species, field_type: enum, allowed_values: [dog, cat, small_animal], sources: [message]}
  - {field_name: vaccinated, field_type: enum, allowed_values: ["yes", "no"], sources: [message]}
  - {field_name: visit_date, field_type: date, sources: [message], default: "2024-05-01"}
  - {field_name: owner_id, field_type: id, pattern: '\\d{3}', sources: [message], default: "010"}
  - {field_name: visit_type, field_type: string, sources: [message]}
  - {field_name: booked, field_type: boolean, sources: [tool], persist_to_profile: no}
tools:
  - id: book_visit
    kind: python
    entrypoint: tools.py:book_visit
    input:
      species: {type: enum}
      visit_type: {type: string}
      owner_id: {type: id, required: false, default: "000"}
    output: {booked: booked}
    side_effect: true
scenarios:
  - id: book
    name: Book a visit
    entry_examples: ["I want to book a visit"]
    entry_step_id: ask
    steps:
      - id: ask
        slots:
          - {name: species, type: enum, prompt: "What kind of animal is it?"}
          - {name: vaccinated, type: enum, prompt: "Is it vaccinated?", required: false}
          - {name: visit_type, type: string, prompt: "What is the visit for?"}
          - {name: owner_id, type: id, prompt: "What is your client number?", required: false}
        transitions: [{target: confirm}]
      - id: confirm
        requires_confirmation: true
        confirmation_prompt: "Shall I book the visit?"
        action: [book_visit]
        transitions: [{target: done}]
      - id: done
        response_template: "Booked."
rules:
  - id: opening_hours
    condition_text: When is the clinic open?
    examples: ["Are you open on 2024-05-01?"]
    action_text: Give the opening hours.
    response_template: We're open every day from 8am to 6pm.
"""


def _messages(found: list) -> list[tuple[str, str, int | None]]:
    return [(p.path, p.message, p.line) for p in found]


def test_the_agent_as_written_quoted_has_no_reading_to_report(tmp_path):
    gate, _, _ = validate_variant(tmp_path, AGENT, TOOLS)
    assert gate.problems == [], gate.problems
    assert [w for w in gate.warnings if "YAML read" in w.message] == []


def test_an_enum_of_unquoted_yes_and_no_says_they_were_read_as_booleans(tmp_path):
    gate, text, _ = validate_variant(tmp_path, AGENT, TOOLS, ('allowed_values: ["yes", "no"]', "allowed_values: [yes, no]"))
    at = line(text, "allowed_values: [yes, no]")
    assert ("profile_field_definitions[1].allowed_values[0]", "Input should be a valid string: YAML read the unquoted yes "
            "as the boolean true; write it in quotes ('yes') to keep the text as written", at) in _messages(gate.problems)
    assert any(p.path == "profile_field_definitions[1].allowed_values[1]" and "the unquoted no as the boolean false"
               in p.message for p in gate.problems)


def test_an_unquoted_date_in_a_text_is_refused_with_the_reason(tmp_path):
    gate, _, _ = validate_variant(tmp_path, AGENT, TOOLS, ('"Are you open on 2024-05-01?"', "2024-05-01"))
    assert [p.message for p in gate.problems if p.path == "rules[0].examples[0]"] == [
        "Input should be a valid string: YAML read the unquoted 2024-05-01 as a date; write it in quotes ('2024-05-01') "
        "to keep the text as written"]


def test_values_the_schema_takes_but_yaml_changed_are_warned_of(tmp_path):
    gate, text, _ = validate_variant(tmp_path, AGENT, TOOLS, ('default: "2024-05-01"', "default: 2024-05-01"),
                                     ("pattern: '\\d{3}', sources: [message], default: \"010\"",
                                      "pattern: '\\d{3}', sources: [message], default: 010"),
                                     ('owner_id: {type: id, required: false, default: "000"}',
                                      "owner_id: {type: id, required: false, default: yes}"))
    assert gate.problems == []
    warned = _messages(gate.warnings)
    assert ("profile_field_definitions[2].default", "YAML read the unquoted 2024-05-01 as a date; write it in quotes "
            "('2024-05-01') to keep the text as written", line(text, "default: 2024-05-01")) in warned
    assert ("profile_field_definitions[3].default", "YAML read the unquoted 010 as the number 8 (a leading 0 makes it "
            "octal); write it in quotes ('010') to keep the text as written", line(text, "default: 010")) in warned
    assert ("tools[0].input.owner_id.default", "YAML read the unquoted yes as the boolean true; write it in quotes ('yes') "
            "to keep the text as written", line(text, "default: yes")) in warned


def test_booleans_where_a_boolean_is_meant_and_plain_numbers_say_nothing(tmp_path):
    gate, _, _ = validate_variant(tmp_path, AGENT, TOOLS, ("persist_to_profile: no", "persist_to_profile: off"),
                                  ("Is it vaccinated?\", required: false", "Is it vaccinated?\", required: no"),
                                  ("    side_effect: true\n", "    side_effect: yes\n    timeout_s: 10\n"))
    assert gate.problems == [] and [w for w in gate.warnings if "YAML read" in w.message] == []


def test_a_suite_value_yaml_changed_is_a_problem_with_its_line(tmp_path):
    _, _, path = validate_variant(tmp_path, AGENT, TOOLS)
    suite = tmp_path / "tests.yaml"
    suite.write_text("conversations:\n  - name: a visit\n    profile: {owner_id: 010}\n    turns:\n"
                     "      - user: I want to book a visit\n", encoding="utf-8")
    with pytest.raises(SuiteError) as raised:
        read_suite(suite, load_agent(path))
    assert raised.value.problems == [
        f"{suite}:3: YAML read the unquoted 010 as the number 8 (a leading 0 makes it octal); write it in quotes ('010') "
        "to keep the text as written, in conversations[0].profile.owner_id"]


def test_the_shipped_examples_have_no_value_yaml_changed():
    from focal.config.gate import validate_file

    for agent in sorted((Path(__file__).resolve().parents[2] / "examples").glob("*/agent.yaml")):
        assert [w for w in validate_file(agent).warnings if "YAML read" in w.message] == [], agent
