"""An enum value is said readably wherever a text shows it to the customer — its `value_labels` entry, else its
underscores as spaces — while tools, guards and the session keep the value itself; a customer who answers in
those words gives the value. `focal validate` checks the labels and `focal schema` describes them."""

from __future__ import annotations

from agent_variants import validate_variant
from written_agent import passes

from focal.models.agent import agent_json_schema

TOOLS = "def book_visit(species, visit_type):\n    return {'booked': True}\n"
AGENT = """\
id: vetdesk
name: Happy Paws appointment desk
profile_field_definitions:
  - field_name: species
    field_type: enum
    allowed_values: [dog, cat, small_animal]
    sources: [message]
  - field_name: visit_type
    field_type: enum
    allowed_values: [checkup, vaccine_shot, dental]
    value_labels: {checkup: yearly check-up}
    sources: [message]
  - {field_name: booked, field_type: boolean, sources: [tool]}
tools:
  - id: book_visit
    kind: python
    entrypoint: tools.py:book_visit
    input: {species: {type: enum}, visit_type: {type: enum}}
    output: {booked: booked}
    side_effect: true
scenarios:
  - id: book
    name: Book a visit
    entry_examples: ["I want to book a visit", "Can I make an appointment for my pet?"]
    entry_step_id: ask
    steps:
      - id: ask
        slots:
          - {name: species, type: enum, prompt: "What kind of animal is it: a dog, a cat or a small animal?"}
          - {name: visit_type, type: enum, prompt: "Is it for a check-up, a vaccine shot or dental care?"}
        transitions: [{target: confirm}]
      - id: confirm
        requires_confirmation: true
        confirmation_prompt: "I'll book a {visit_type} for your {species}. Shall I go ahead?"
        action: [book_visit]
        transitions: [{target: done}]
      - id: done
        response_template: "Booked: a {visit_type} for your {species}."
rules:
  - id: booked_after_a_yes
    condition_text: A visit is about to be booked
    action_text: Book a visit only after the customer's yes.
    is_hard_constraint: true
    guarded_tool_ids: [book_visit]
    enforcement_expression: customer_confirmed
"""


def test_a_confirmation_says_the_values_readably_and_the_tool_gets_them_as_stored(tmp_path):
    unlabelled = AGENT.replace("    value_labels: {checkup: yearly check-up}\n", "")
    assert unlabelled != AGENT
    passes(tmp_path, unlabelled, TOOLS, [
        {"user": "I want to book a visit", "expect": {"step": "ask"}},
        {"user": "a small animal", "expect": {"step": "ask"}},
        {"user": "a vaccine shot", "expect": {
            "step": "confirm", "response_contains": "I'll book a vaccine shot for your small animal. Shall I go ahead?",
            "response_not_contains": "_"}},
        {"user": "yes", "expect": {"tool_calls": [{"book_visit": {"species": "small_animal", "visit_type": "vaccine_shot"}}],
                                   "response_contains": "Booked: a vaccine shot for your small animal."}},
    ])


def test_a_label_is_said_and_an_answer_in_its_words_is_the_value(tmp_path):
    passes(tmp_path, AGENT, TOOLS, [
        {"user": "Can I make an appointment for my pet?"},
        {"user": "a cat"},
        {"user": "the yearly check-up please", "expect": {
            "step": "confirm", "response_contains": "I'll book a yearly check-up for your cat."}},
        {"user": "yes", "expect": {"tool_calls": [{"book_visit": {"species": "cat", "visit_type": "checkup"}}]}},
    ])


def test_validate_checks_the_labels(tmp_path):
    gate, _, _ = validate_variant(tmp_path, AGENT, TOOLS, ("value_labels: {checkup: yearly check-up}",
                                                           "value_labels: {chekup: yearly check-up, dental: vaccine shot}"))
    found = {(p.path, p.message) for p in gate.problems}
    assert ("profile_field_definitions[1].value_labels.chekup",
            "'chekup' is not one of allowed_values (checkup, vaccine_shot, dental); did you mean 'checkup'?") in found
    assert ("profile_field_definitions[1].value_labels", "'vaccine_shot' and 'dental' are both said as 'vaccine shot': "
            "the customer could not tell them apart, nor answer with one of them") in found
    gate, _, _ = validate_variant(tmp_path, AGENT, TOOLS, ("{field_name: booked, field_type: boolean,",
                                                           "{field_name: booked, field_type: boolean, value_labels: {x: y},"))
    assert [p.message for p in gate.problems if p.path == "profile_field_definitions[2].value_labels"] == [
        "value_labels are for enum fields; 'booked' is boolean"]


def test_the_schema_describes_value_labels():
    field = agent_json_schema()["$defs"]["ProfileFieldDefinition"]["properties"]["value_labels"]
    assert field["type"] == "object" and "said to the customer" in field["description"]
