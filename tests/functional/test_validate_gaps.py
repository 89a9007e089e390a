"""Mistakes `focal validate` used to pass as OK: an output mapped past its field, a slot no field
declares, a slot type its field cannot fill, an enum text no value has, a rule both subjective and
with an expression, and the wording of type names, scopes and expressions that do not parse."""

from __future__ import annotations

from pathlib import Path

import pytest
from agent_variants import line, validate_variant

from focal.config.gate import GateResult

TOOLS = """\
def lookup_account(account_number):
    return {"found": True, "plan": "basic"}


def change_plan(account_number, new_plan):
    return {"reference": "P1"}


def add_roaming_pass(account_number, roaming_country):
    return {"reference": "R1"}
"""

AGENT = """\
id: nimbus
name: Nimbus
models: {model: openai/gpt-4o-mini}
profile_field_definitions:
  - {field_name: account_number, field_type: id, pattern: 'AC\\d{6}', sources: [message, tool]}
  - {field_name: account_found, field_type: boolean, sources: [tool]}
  - {field_name: current_plan, field_type: enum, allowed_values: [basic, plus, unlimited], sources: [tool]}
  - {field_name: new_plan, field_type: enum, allowed_values: [basic, plus, unlimited], sources: [message]}
  - {field_name: roaming_country, field_type: string, sources: [message]}
  - {field_name: roaming_reference, field_type: string, sources: [tool]}
  - {field_name: plan_reference, field_type: string, sources: [tool]}
  - {field_name: credit_amount, field_type: money, sources: [response], default: 0}
  - {field_name: competitors, field_type: entity_list, allowed_values: [Verizon, Vodafone], sources: [response]}
  - {field_name: flight_numbers, field_type: string, sources: [message]}
tools:
  - id: lookup_account
    entrypoint: 'tools.py:lookup_account'
    input: {account_number: {type: id}}
    output: {found: account_found, plan: current_plan}
  - id: change_plan
    entrypoint: 'tools.py:change_plan'
    input: {account_number: {type: id}, new_plan: {type: enum}}
    output: {reference: plan_reference}
    side_effect: true
  - id: add_roaming_pass
    entrypoint: 'tools.py:add_roaming_pass'
    input: {account_number: {type: id}, roaming_country: {type: string}}
    output: {reference: roaming_reference}
    side_effect: true
scenarios:
  - id: change_plan
    name: Change plan
    entry_examples: [I want to change my plan]
    entry_step_id: ask_account
    steps:
      - id: ask_account
        slots:
          - {name: account_number, type: id, prompt: 'What is your account number?'}
        action: [lookup_account]
        transitions:
          - target: ask_plan
            when: account_found
      - id: ask_plan
        slots:
          - name: new_plan
            type: enum
            prompt: Which plan would you like?
        transitions: [{target: done}]
      - id: done
        requires_confirmation: true
        confirmation_prompt: Switch {account_number} from {current_plan} to {new_plan}?
        action: [change_plan]
        response_template: Done (reference {plan_reference}).
  - id: roaming
    name: Roaming
    entry_examples: [I need roaming]
    entry_step_id: ask_account
    steps:
      - id: ask_account
        slots:
          - {name: account_number, type: id, prompt: 'What is your account number?'}
        transitions: [{target: ask_country}]
      - id: ask_country
        slots:
          - name: roaming_country
            type: string
            prompt: Which country are you travelling to?
          - {name: flight_numbers, type: entity_list, prompt: 'Which flights?'}
        transitions: [{target: confirm_roaming}]
      - id: confirm_roaming
        requires_confirmation: true
        confirmation_prompt: Add a roaming pass for {roaming_country} to {account_number} ({flight_numbers})?
        action: [add_roaming_pass]
        transitions: [{target: roaming_done}]
      - id: roaming_done
        response_template: Your roaming pass is active (reference {roaming_reference}).
rules:
  - id: credit_cap
    condition_text: The reply promises a bill credit
    action_text: Never more than $100.
    is_hard_constraint: true
    enforcement_expression: credit_amount <= 100
    fallback_text: Our billing team reviews larger credits.
  - id: confirm_first
    condition_text: A plan change is about to be applied
    action_text: Only with the customer's yes.
    is_hard_constraint: true
    guarded_tool_ids: [change_plan]
    enforcement_expression: customer_confirmed
  - id: no_competitors
    condition_text: The customer compares us with another carrier
    action_text: Never name other carriers.
    is_hard_constraint: true
    enforcement_expression: len(competitors) == 0
    fallback_text: I can only speak about our own plans.
  - id: empathy
    condition_text: The customer is upset about an outage
    action_text: Acknowledge the frustration first.
    is_hard_constraint: true
    subjective: true
    fallback_text: I'm sorry about the trouble.
  - id: roaming_rates
    condition_text: How much does roaming cost?
    action_text: Give the price.
    scope: SCENARIO
    scope_id: roaming
    response_template: A roaming pass costs $10 per day.
"""


def run(tmp_path: Path, *replacements: tuple[str, str]) -> tuple[GateResult, str]:
    """Validate AGENT with each (old, new) replaced exactly once; the result and the text written."""
    result, text, _ = validate_variant(tmp_path, AGENT, TOOLS, *replacements)
    return result, text


def found(problems: list, path: str) -> list[tuple[str, int | None]]:
    return [(p.message, p.line) for p in problems if p.path == path]


def test_the_base_agent_is_clean(tmp_path):
    result, _ = run(tmp_path)
    assert result.problems == [] and result.warnings == [], [str(p) for p in result.problems + result.warnings]


# --- 1. a tool output mapped past its field ------------------------------------------------------


def test_an_output_mapped_to_a_near_miss_of_an_unfilled_field_is_an_error_and_so_is_the_placeholder(tmp_path):
    result, text = run(tmp_path, ("output: {reference: roaming_reference}", "output: {reference: roaming_ref}"))
    assert [(p.path, p.message, p.line) for p in result.problems] == [
        ("tools[2].output.reference",
         "output 'reference' is mapped to 'roaming_ref', which is not a declared field; did you mean 'roaming_reference'? "
         "(no tool's output fills that field)", line(text, "output: {reference: roaming_ref}")),
        ("scenarios[1].steps[3].response_template",
         "placeholder '{roaming_reference}' can never be filled: field 'roaming_reference' comes only from tools "
         "(sources: [tool]), no tool's output is mapped to it and it has no default; "
         "tool 'add_roaming_pass' maps its output 'reference' to 'roaming_ref'", line(text, "(reference {roaming_reference})")),
    ]
    assert result.config is None


def test_an_output_to_a_plain_variable_stays_allowed(tmp_path):
    # an undeclared name is a session variable the model sees (and a later tool may take): not a slip
    result, _ = run(tmp_path, ("output: {found: account_found, plan: current_plan}",
                               "output: {found: account_found, plan: current_plan, since: customer_since}"))
    assert result.problems == [] and result.warnings == []


def test_an_undeclared_placeholder_is_still_reported_once(tmp_path):
    result, text = run(tmp_path, ("(reference {plan_reference})", "(reference {plan_ref})"))
    assert found(result.problems, "scenarios[0].steps[2].response_template") == [
        ("placeholder '{plan_ref}' is not a declared variable; did you mean 'plan_reference'?", line(text, "{plan_ref}"))]


# --- 2. a slot no field declares -----------------------------------------------------------------


def test_a_slot_no_field_declares_and_nothing_reads_is_a_warning_naming_what_the_scenario_misses(tmp_path):
    result, text = run(tmp_path, ("          - name: roaming_country\n", "          - name: destination\n"))
    assert result.problems == [] and result.config is not None  # a plain slot is legitimate: at most a warning
    assert [(w.path, w.severity, w.message, w.line) for w in result.warnings] == [
        ("scenarios[1].steps[1].slots[0].name", "warning",
         "slot 'destination' is not a declared field and nothing reads it (no template, expression or tool argument), "
         "so its value only reaches the model; did you mean 'roaming_country', which this scenario reads but none of "
         "its slots collects?", line(text, "- name: destination")),
    ]


def test_a_misspelt_slot_gets_the_field_it_meant(tmp_path):
    result, _ = run(tmp_path, ("          - name: roaming_country\n", "          - name: roaming_contry\n"))
    [warning] = result.warnings
    assert warning.message.endswith("; did you mean 'roaming_country'?")


def test_a_plain_slot_that_a_template_reads_is_fine(tmp_path):
    # the tool's function takes the renamed argument too (focal.config.validate_signatures)
    tools = TOOLS.replace("def add_roaming_pass(account_number, roaming_country):",
                          "def add_roaming_pass(account_number, destination):")
    result, _, _ = validate_variant(tmp_path, AGENT, tools,
                                    ("          - name: roaming_country\n", "          - name: destination\n"),
                                    ("Add a roaming pass for {roaming_country}", "Add a roaming pass for {destination}"),
                                    ("roaming_country: {type: string}", "destination: {type: string}"))
    assert result.problems == [] and result.warnings == [], [str(p) for p in result.problems + result.warnings]


# --- 3. a slot type its field cannot fill --------------------------------------------------------


def test_a_slot_type_that_cannot_hold_its_fields_values_is_an_error_naming_both_types(tmp_path):
    result, text = run(tmp_path, ("          - name: new_plan\n            type: enum\n",
                                  "          - name: new_plan\n            type: money\n"))
    assert found(result.problems, "scenarios[0].steps[1].slots[0].type") == [
        ("slot type 'money' does not fit field 'new_plan' of type 'enum': the slot is read with the field's definition, "
         "and its enum values cannot become money values, so the slot is never filled with a usable value; "
         "use type: enum", line(text, "            type: money"))]


@pytest.mark.parametrize("slot_type", ["string", "id"])
def test_a_text_slot_on_an_enum_field_fits(tmp_path, slot_type):
    result, _ = run(tmp_path, ("          - name: new_plan\n            type: enum\n",
                               f"          - name: new_plan\n            type: {slot_type}\n"))
    assert result.problems == []


# --- 4. an enum text no value has ----------------------------------------------------------------


@pytest.mark.parametrize("expression", [
    "new_plan == 'unlimted' or customer_confirmed",
    "new_plan in ['basic', 'unlimted'] or customer_confirmed",
    "'unlimted' != new_plan or customer_confirmed",
])
def test_an_enum_compared_with_a_text_outside_its_allowed_values_is_an_error(tmp_path, expression):
    result, text = run(tmp_path, ("enforcement_expression: customer_confirmed", f'enforcement_expression: "{expression}"'))
    assert found(result.problems, "rules[1].enforcement_expression") == [
        ("'unlimted' is not an allowed value of enum field 'new_plan' (basic, plus, unlimited), so 'new_plan' never "
         "equals it; did you mean 'unlimited'?", line(text, "unlimted"))]


def test_an_entity_list_looked_up_with_a_text_it_never_holds_is_an_error(tmp_path):
    result, text = run(tmp_path, ("len(competitors) == 0", "\"not 'verizon' in competitors\""))
    assert found(result.problems, "rules[2].enforcement_expression") == [
        ("'verizon' is not an allowed value of entity_list field 'competitors' (Verizon, Vodafone), so 'competitors' "
         "never holds it; did you mean 'Verizon'?", line(text, "'verizon' in competitors"))]


def test_a_text_looked_up_inside_an_enum_value_is_not_an_enum_comparison(tmp_path):
    result, _ = run(tmp_path, ("enforcement_expression: customer_confirmed",
                               "enforcement_expression: \"'unl' in new_plan or customer_confirmed\""))
    assert result.problems == []


# --- 5. subjective and an expression -------------------------------------------------------------


def test_a_subjective_rule_with_an_expression_says_the_expression_is_never_evaluated(tmp_path):
    result, text = run(tmp_path, ("    subjective: true\n", "    subjective: true\n    enforcement_expression: len(competitors) == 0\n"))
    assert found(result.problems, "rules[3].enforcement_expression") == [
        ("this expression is never evaluated: a subjective rule is only judged by the model; remove subjective: true "
         "to check the expression, or remove the expression", line(text, "subjective: true") + 1)]


def test_a_subjective_guard_says_subjective_is_ignored(tmp_path):
    result, text = run(tmp_path, ("    guarded_tool_ids: [change_plan]\n", "    guarded_tool_ids: [change_plan]\n    subjective: true\n"))
    assert found(result.problems, "rules[1].subjective") == [
        ("subjective: true is ignored on a guard: its enforcement_expression alone decides before each call; "
         "remove subjective: true", line(text, "    guarded_tool_ids: [change_plan]") + 1)]


# --- 6. wording -------------------------------------------------------------------------------------


@pytest.mark.parametrize(("written", "meant"), [("float", "number"), ("decimal", "number"), ("int", "integer"),
                                                ("bool", "boolean"), ("text", "string"), ("currency", "money"),
                                                ("percent", "percentage"), ("list", "entity_list")])
def test_a_type_name_from_another_language_gets_the_field_type_meant(tmp_path, written, meant):
    result, text = run(tmp_path, ("{field_name: roaming_reference, field_type: string,",
                                  f"{{field_name: roaming_reference, field_type: {written},"))
    [problem] = found(result.problems, "profile_field_definitions[5].field_type")
    assert problem[0].endswith(f"; did you mean '{meant}'?")
    assert problem[1] == line(text, f"roaming_reference, field_type: {written}")


def test_a_slot_type_synonym_gets_the_type_meant(tmp_path):
    result, _ = run(tmp_path, ("          - name: new_plan\n            type: enum\n",
                               "          - name: new_plan\n            type: str\n"))
    [problem] = found(result.problems, "scenarios[0].steps[1].slots[0].type")
    assert problem[0].endswith("; did you mean 'string'?")


def test_a_scenario_scope_naming_a_step_suggests_the_step_scope(tmp_path):
    result, text = run(tmp_path, ("    scope_id: roaming\n", "    scope_id: roaming.ask_country\n"))
    assert found(result.problems, "rules[4].scope_id") == [
        ("scenario 'roaming.ask_country' does not exist; a step id? use scope: STEP with scope_id 'ask_country' "
         "(scenario 'roaming')", line(text, "scope_id: roaming.ask_country"))]


def test_a_scenario_scope_naming_a_step_of_several_scenarios_keeps_the_scenario(tmp_path):
    result, _ = run(tmp_path, ("    scope_id: roaming\n", "    scope_id: roaming.ask_account\n"))
    assert [m for m, _ in found(result.problems, "rules[4].scope_id")] == [
        "scenario 'roaming.ask_account' does not exist; a step id? use scope: STEP with scope_id 'roaming.ask_account'"]


def test_a_step_scope_naming_a_scenario_suggests_the_scenario_scope(tmp_path):
    result, _ = run(tmp_path, ("    scope: SCENARIO\n", "    scope: STEP\n"))
    assert [m for m, _ in found(result.problems, "rules[4].scope_id")] == [
        "step 'roaming' does not exist; a scenario id? use scope: SCENARIO with scope_id 'roaming'"]


@pytest.mark.parametrize(("where", "old", "new", "message"), [
    ("scenarios[0].steps[0].transitions[0].when", "when: account_found\n", "when: account_found = true\n",
     "invalid expression: syntax error: invalid syntax (in 'account_found = true'); use == to compare: "
     "'account_found == true'"),
    ("rules[0].enforcement_expression", "credit_amount <= 100", "credit_amount <= $100",
     "invalid expression: syntax error: invalid syntax (in 'credit_amount <= $100'); write amounts without the "
     "currency sign: 'credit_amount <= 100'"),
    ("rules[1].enforcement_expression", "enforcement_expression: customer_confirmed",
     "enforcement_expression: \"new_plan = 'basic' && customer_confirmed\"",
     "invalid expression: syntax error: invalid syntax (in \"new_plan = 'basic' && customer_confirmed\"); use == to "
     "compare, write 'and' for &&: \"new_plan == 'basic' and customer_confirmed\""),
])
def test_an_expression_that_does_not_parse_is_quoted_with_what_it_most_likely_meant(tmp_path, where, old, new, message):
    result, text = run(tmp_path, (old, new))
    assert found(result.problems, where) == [(message, line(text, new.strip()))]


# --- 7. an expression that fails on every value of its variable's type ------------------------------


def test_a_number_ordered_against_a_quoted_text_is_a_warning_that_says_what_happens(tmp_path):
    # A finding that rests on the declared type: the rule fails closed (blocks), which is safe, so the
    # agent still loads (as examples/guardrails does on purpose); the message says what the rule then does.
    result, text = run(tmp_path, ("credit_amount <= 100", "credit_amount <= '100'"))
    assert result.problems == [] and result.config is not None
    assert [(w.path, w.severity, w.message, w.line) for w in result.warnings] == [
        ("rules[0].enforcement_expression", "warning",
         "this expression fails whenever it runs with a value of the declared type, so the rule blocks every answer it "
         "applies to (it fails closed): 'credit_amount' and '100' cannot be ordered: one is a number, the other a text "
         "(write numbers without quotes)", line(text, "credit_amount <= '100'")),
    ]


def test_the_warning_names_what_fails_for_a_guard_and_a_transition(tmp_path):
    result, _ = run(tmp_path, ("enforcement_expression: customer_confirmed", "enforcement_expression: len(credit_amount) > 0"),
                    ("when: account_found\n", "when: credit_amount > 'x'\n"))
    assert {w.path: w.message.split(": ")[0] for w in result.warnings} == {
        "rules[1].enforcement_expression": "this expression fails whenever it runs with a value of the declared type, "
                                           "so the guard blocks every call of 'change_plan'",
        "scenarios[0].steps[0].transitions[0].when": "this expression fails whenever it runs with a value of the "
                                                     "declared type, so this transition is never taken",
    }


def test_a_repaired_document_makes_no_claim_about_what_nothing_fills(tmp_path):
    # a broken `output` is removed to run the cross-field checks: the field it fed is not "never filled"
    result, text = run(tmp_path, ("output: {reference: roaming_reference}", "output: [roaming_reference]"))
    assert [(p.path, p.line) for p in result.problems] == [("tools[2].output", line(text, "output: [roaming_reference]"))]
