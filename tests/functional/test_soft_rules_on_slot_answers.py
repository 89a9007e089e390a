"""A message that only answers the question asked is that answer, not a question of its own: a soft rule whose
examples resemble the bare value ("a vaccination" beside "How much is a vaccination?") does not match it. The
same rule still matches when the answer comes with the question, when nothing was asked, and when the value is
free text (the whole message is then the customer's own words). The vet clinic a newcomer wrote from the docs."""

from __future__ import annotations

from written_agent import passes

TOOLS = "def book_visit(species, visit_type, problem):\n    return {'booked': True}\n"
AGENT = """\
id: vetdesk
name: Happy Paws appointment desk
persona: You are the Happy Paws vet clinic's appointment desk.
profile_field_definitions:
  - {field_name: species, field_type: enum, allowed_values: [dog, cat, small_animal], sources: [message]}
  - {field_name: visit_type, field_type: enum, allowed_values: [checkup, vaccination, dental], sources: [message]}
  - {field_name: problem, field_type: string, sources: [message]}
  - {field_name: booked, field_type: boolean, sources: [tool]}
tools:
  - id: book_visit
    kind: python
    entrypoint: tools.py:book_visit
    input: {species: {type: enum}, visit_type: {type: enum}, problem: {type: string}}
    output: {booked: booked}
    side_effect: true
scenarios:
  - id: book
    name: Book a visit
    entry_examples: ["I want to book a visit", "Can I make an appointment for my pet?", "I need to see the vet"]
    entry_step_id: ask_species
    steps:
      - id: ask_species
        slots: [{name: species, type: enum, prompt: "What kind of animal is it: a dog, a cat or a small animal?"}]
        transitions: [{target: ask_visit}]
      - id: ask_visit
        slots: [{name: visit_type, type: enum, prompt: "What kind of visit do you need: a checkup, a vaccination or dental care?"}]
        transitions: [{target: ask_problem}]
      - id: ask_problem
        slots: [{name: problem, type: string, prompt: "Anything we should know before the visit?"}]
        transitions: [{target: confirm}]
      - id: confirm
        requires_confirmation: true
        confirmation_prompt: "I'll book a {visit_type} for your {species}. Shall I go ahead?"
        action: [book_visit]
        transitions: [{target: done}]
      - id: done
        response_template: "Booked: a {visit_type} for your {species}."
rules:
  - id: confirmed_booking
    condition_text: A visit is about to be booked
    action_text: Book a visit only after the customer's yes.
    is_hard_constraint: true
    guarded_tool_ids: [book_visit]
    enforcement_expression: customer_confirmed
  - id: prices
    condition_text: The customer asks how much a visit or a treatment costs
    examples: ["How much is a vaccination?", "What do you charge for a checkup?", "how expensive is dental cleaning"]
    action_text: Give the price list.
    response_template: "A checkup is $50, a vaccination $35 and dental care $120."
  - id: emergencies
    condition_text: The animal is badly hurt or it is an emergency
    examples: ["my dog was hit by a car", "my cat is bleeding"]
    action_text: Tell them to come in at once.
    response_template: Please come in right away, we take emergencies at once.
"""


def test_bare_answers_match_no_soft_rule(tmp_path):
    passes(tmp_path, AGENT, TOOLS, [
        {"user": "I want to book a visit", "expect": {"step": "ask_species"}},
        {"user": "a cat", "expect": {"step": "ask_visit", "matched_rules": [], "response_not_contains": "emergencies"}},
        {"user": "a vaccination", "expect": {"step": "ask_problem", "matched_rules": [], "response_not_contains": "$35"}},
    ])


def test_an_answer_with_a_question_of_its_own_still_matches_the_rule(tmp_path):
    passes(tmp_path, AGENT, TOOLS, [
        {"user": "I want to book a visit"},
        {"user": "it's a cat, and she is bleeding badly", "expect": {"step": "ask_visit", "matched_rules": ["emergencies"]}},
        {"user": "a vaccination please, how much is it?",
         "expect": {"matched_rules": ["prices"], "response_contains": "$35"}},
    ])


def test_a_free_text_answer_is_the_customers_own_words(tmp_path):
    passes(tmp_path, AGENT, TOOLS, [
        {"user": "I want to book a visit"},
        {"user": "a dog"},
        {"user": "a checkup"},
        {"user": "he was hit by a car yesterday", "expect": {"step": "confirm", "matched_rules": ["emergencies"]}},
    ])


def test_without_a_question_asked_the_value_alone_still_matches(tmp_path):
    passes(tmp_path, AGENT, TOOLS, [{"user": "How much is a vaccination?", "expect": {"matched_rules": ["prices"]}}])
