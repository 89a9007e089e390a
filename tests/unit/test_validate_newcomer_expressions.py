"""Expressions and rules a newcomer got wrong that `focal validate` used to pass with exit 0 and no warning:
a guard reading a field only replies set, a date compared with money, a boolean compared with a text, a date
that does not exist, a validation naming its slot instead of `value`, a scoped rule without a scope_id.
Each broken form is reported with its path and line; a look-alike that is correct is not."""

from __future__ import annotations

import pytest
from agent_variants import line

from test_validate_newcomer_agent import found, run, shown

# --- j. a guard reading a field only the agent's replies set ---------------------------------------

GUARD = "enforcement_expression: payout_amount <= 2000 and payout_amount <= coverage_limit"


def test_a_guard_reading_a_reply_only_field_is_an_error_that_says_it_is_always_its_default(tmp_path):
    result, text, _ = run(tmp_path, (GUARD, "enforcement_expression: payout_promised <= 2000"))
    assert found(result.problems, "rules[1].enforcement_expression") == [(
        "guard reads 'payout_promised', which only the agent's replies set (sources: [response]): a guard runs before "
        "the tool, on the call's arguments and the session, where 'payout_promised' is always its default, 0, whatever "
        "the call does, so this guard gives the same verdict on every call; guard what the call uses instead "
        "('issue_payout' takes policy_number, payout_amount), or, to check what replies say, make it a rule without "
        "guarded_tool_ids", line(text, "action_text: Only pay out $2,000 or less.") + 3)]
    assert result.config is None


def test_without_a_default_the_reply_only_guard_blocks_every_call(tmp_path):
    result, _, _ = run(tmp_path, (GUARD, "enforcement_expression: payout_promised <= 2000"),
                       ("sources: [response], default: 0}", "sources: [response]}"))
    [(message, _)] = found(result.problems, "rules[1].enforcement_expression")
    assert "'payout_promised' never has a value, so this guard blocks every call of 'issue_payout'" in message


def test_a_reply_rule_reading_the_same_field_is_fine(tmp_path):
    # the base agent's payout_cap (no guarded_tool_ids) reads payout_promised on every reply: that is what it is for
    result, _, _ = run(tmp_path)
    assert result.problems == [] and result.warnings == []


@pytest.mark.parametrize("sources", ["[response, tool]", "[response, message]", "[response, profile]"])
def test_a_guard_reading_a_field_that_another_source_also_sets_is_fine(tmp_path, sources):
    result, _, _ = run(tmp_path, (GUARD, "enforcement_expression: payout_promised <= 2000"),
                       ("sources: [response], default: 0}", f"sources: {sources}, default: 0}}"))
    assert result.problems == [], shown(result)


def test_a_guard_reading_a_reply_field_that_a_tool_fills_is_fine(tmp_path):
    result, _, _ = run(tmp_path, (GUARD, "enforcement_expression: payout_promised <= 2000"),
                       ("output: {reference: claim_reference, payout: payout_amount}",
                        "output: {reference: claim_reference, payout: payout_promised}"))
    assert [p for p in result.problems if p.path == "rules[1].enforcement_expression"] == []


# --- q. a date compared with money ------------------------------------------------------------------


def test_a_date_ordered_against_a_money_field_is_a_warning_naming_both_types(tmp_path):
    result, text, _ = run(tmp_path, ("incident_date >= policy_start_date", "incident_date >= coverage_limit"))
    assert result.problems == [] and result.config is not None  # it fails closed, like number vs quoted text
    assert [(w.path, w.message, w.line) for w in result.warnings] == [(
        "rules[3].enforcement_expression",
        "this expression fails whenever it runs with a value of the declared type, so the guard blocks every call of "
        "'file_claim': 'incident_date' (date) and 'coverage_limit' (money) cannot be ordered: a date is held as a text "
        "such as 2024-05-31, never a number; compare a date with another date field or a quoted date ('2024-05-31')",
        line(text, "incident_date >= coverage_limit"))]


def test_date_arithmetic_with_a_number_is_reported_too(tmp_path):
    result, _, _ = run(tmp_path, ("incident_date >= policy_start_date", "incident_date - 30 >= policy_start_date"))
    [warning] = result.warnings
    assert "'incident_date' (date) and 30 cannot be added or subtracted" in warning.message


@pytest.mark.parametrize("expression", ["incident_date >= policy_start_date", "claimed_amount <= coverage_limit",
                                        "incident_date >= '2024-01-01'"])
def test_comparisons_of_the_same_kind_are_fine(tmp_path, expression):
    result, _, _ = run(tmp_path, ("incident_date >= policy_start_date", expression))
    assert result.problems == [] and result.warnings == [], shown(result)


# --- v. a boolean (or a number) compared with a text ----------------------------------------------


def test_a_boolean_compared_with_a_text_is_an_error_saying_it_never_holds(tmp_path):
    result, text, _ = run(tmp_path, ("            when: policy_found\n", "            when: \"policy_found == 'yes'\"\n"))
    assert found(result.problems, "scenarios[0].steps[0].transitions[0].when") == [(
        "'policy_found' is a boolean field: it holds true or false, never the text 'yes', so \"policy_found == 'yes'\" "
        "never holds; test the field itself: 'policy_found' or 'not policy_found'", line(text, "policy_found == 'yes'"))]


def test_not_equal_to_a_text_always_holds(tmp_path):
    result, _, _ = run(tmp_path, ("            when: not policy_found\n", "            when: \"policy_found != 'no'\"\n"))
    [(message, _)] = found(result.problems, "scenarios[0].steps[0].transitions[1].when")
    assert "never the text 'no', so \"policy_found != 'no'\" always holds" in message


def test_a_money_field_compared_with_a_quoted_number_gets_the_unquoted_form(tmp_path):
    result, _, _ = run(tmp_path, ("            when: policy_found\n", "            when: \"payout_amount == '100'\"\n"))
    [(message, _)] = found(result.problems, "scenarios[0].steps[0].transitions[0].when")
    assert message == ("'payout_amount' is a money field: it holds a number, never the text '100', so "
                       "\"payout_amount == '100'\" never holds; write numbers without quotes: 'payout_amount == 100'")


@pytest.mark.parametrize("when", ["policy_found", "policy_found == True", "payout_amount == 100",
                                  "'HP' in policy_number", "policy_number == 'HP-10001'"])
def test_look_alikes_of_the_right_type_are_fine(tmp_path, when):
    result, _, _ = run(tmp_path, ("            when: policy_found\n", f'            when: "{when}"\n'))
    assert result.problems == [] and result.warnings == [], shown(result)


# --- h. a date that does not exist, or one not written YYYY-MM-DD -----------------------------------


def test_an_impossible_date_literal_is_an_error(tmp_path):
    result, text, _ = run(tmp_path, ("incident_date >= policy_start_date", "incident_date >= \"2024-13-45\""))
    assert found(result.problems, "rules[3].enforcement_expression") == [(
        "'2024-13-45' is not a date (month must be in 1..12): dates are compared as YYYY-MM-DD text, so a comparison "
        "with it holds or fails by its characters, not by a day; write a date that exists, as YYYY-MM-DD",
        line(text, "2024-13-45"))]


@pytest.mark.parametrize(("written", "fix"), [("2024-1-5", "write '2024-01-05'"),
                                              ("05/01/2024", "write the date as YYYY-MM-DD (e.g. '2024-05-31')")])
def test_a_date_field_compared_with_a_text_not_written_yyyy_mm_dd_is_an_error(tmp_path, written, fix):
    result, _, _ = run(tmp_path, ("incident_date >= policy_start_date", f"incident_date >= '{written}'"))
    [(message, _)] = found(result.problems, "rules[3].enforcement_expression")
    assert message == (f"'incident_date' is a date field, held as YYYY-MM-DD text (such as 2024-05-31), so "
                       f"\"incident_date >= '{written}'\" compares '{written}' with it character by character, not as a "
                       f"day; {fix}")


def test_a_real_date_is_fine(tmp_path):
    result, _, _ = run(tmp_path, ("incident_date >= policy_start_date", "incident_date >= '2024-02-29'"))
    assert result.problems == [] and result.warnings == [], shown(result)


# --- s. a validation naming its slot (or another variable) instead of `value` -----------------------


def test_a_slot_validation_naming_its_slot_is_an_error_with_the_value_form(tmp_path):
    result, text, _ = run(tmp_path, ("validation: value > 0", "validation: claimed_amount > 0"))
    assert found(result.problems, "scenarios[0].steps[1].slots[1].validation") == [(
        "a slot's validation reads only 'value', the value being checked: 'claimed_amount' has no value there, so the "
        "expression cannot be evaluated and every value is refused; write 'value > 0'", line(text, "claimed_amount > 0"))]


def test_a_validation_reading_another_variable_says_where_to_compare_instead(tmp_path):
    result, _, _ = run(tmp_path, ("validation: value > 0", "validation: value <= coverage_limit"))
    [(message, _)] = found(result.problems, "scenarios[0].steps[1].slots[1].validation")
    assert message.startswith("a slot's validation reads only 'value', the value being checked: 'coverage_limit' has "
                              "no value there")
    assert message.endswith("; to compare with another variable, use a transition's when or a rule's enforcement_expression")


def test_a_field_validation_rule_has_the_same_namespace(tmp_path):
    result, text, _ = run(tmp_path, ("validation_rules: [value >= 0]", "validation_rules: [vaule >= 0]"))
    assert found(result.problems, "profile_field_definitions[6].validation_rules[0]") == [(
        "a field's validation_rules reads only 'value', the value being checked: 'vaule' has no value there, so the "
        "expression cannot be evaluated and every value is refused; did you mean 'value'?", line(text, "vaule >= 0"))]


@pytest.mark.parametrize("validation", ["value > 0", "value > 0 and value < 100000", "abs(value) < 100000"])
def test_validations_over_value_are_fine(tmp_path, validation):
    result, _, _ = run(tmp_path, ("validation: value > 0", f'validation: "{validation}"'))
    assert [p for p in result.problems if "validation" in p.path] == [], shown(result)


# --- l. a scoped rule without a scope_id -------------------------------------------------------------


def test_a_scenario_rule_without_a_scope_id_says_the_scope_id_is_missing(tmp_path):
    result, text, _ = run(tmp_path, ("    scope_id: claim\n", ""))
    assert [(p.path, p.message, p.line) for p in result.problems] == [(
        "rules[4].scope",
        "a SCENARIO rule needs a scope_id, the id of the scenario it applies to (scenarios: claim), and this one has "
        "none, so it applies nowhere; add scope_id: claim, or remove scope: SCENARIO to make the rule apply "
        "everywhere (GLOBAL)", line(text, "scope: SCENARIO"))]


def test_a_step_rule_without_a_scope_id_names_the_form_of_a_step_id(tmp_path):
    result, _, _ = run(tmp_path, ("    scope: SCENARIO\n    scope_id: claim\n", "    scope: STEP\n"))
    [(message, _)] = found(result.problems, "rules[4].scope")
    assert message.startswith("a STEP rule needs a scope_id, 'scenario_id.step_id' of the step it applies to")
    assert "add scope_id: claim.ask_policy" in message


def test_a_scope_id_the_schema_refused_is_not_also_called_missing(tmp_path):
    result, text, _ = run(tmp_path, ("    scope_id: claim\n", "    scope_id: [claim]\n"))
    assert [(p.path, p.line) for p in result.problems] == [("rules[4].scope_id", line(text, "scope_id: [claim]"))]
