"""Boolean settings a newcomer's hotel agent got wrong that `focal validate` used to pass with exit 0: a quoted
"off" on is_hard_constraint (read as false: a hard rule silently soft), and a hard constraint switched off
with enabled: false (never checked, no word said). A quoted text is an error naming the field, its line and
what to write; YAML's own unquoted yes/no/on/off are booleans and keep working; a rule switched off is a
warning that says it is never checked."""

from __future__ import annotations

import pytest
from agent_variants import line

from test_validate_hotel_agent import found, run, shown

CAP = "    enforcement_expression: discount_promised <= 15\n"
HARD = "    is_hard_constraint: true\n    enforcement_expression: discount_promised <= 15\n"

# --- a boolean given as a text ------------------------------------------------------------------------


def test_a_quoted_off_on_is_hard_constraint_is_an_error_naming_the_field_its_line_and_what_to_write(tmp_path):
    result, text, _ = run(tmp_path, (HARD, '    is_hard_constraint: "off"\n' + CAP))
    assert found(result.problems, "rules[2].is_hard_constraint") == [(
        "Input should be a valid boolean: 'off' is read as a text, not as false; write is_hard_constraint: false "
        "(or true), without quotes", line(text, 'is_hard_constraint: "off"'))]
    assert result.config is None  # the hard rule no longer turns soft without a word


def test_a_quoted_yes_is_refused_too_with_true_as_the_fix(tmp_path):
    result, text, _ = run(tmp_path, (HARD, "    is_hard_constraint: 'yes'\n" + CAP))
    [(message, at)] = found(result.problems, "rules[2].is_hard_constraint")
    assert message.endswith("'yes' is read as a text, not as true; write is_hard_constraint: true (or false), without quotes")
    assert at == line(text, "is_hard_constraint: 'yes'")


@pytest.mark.parametrize(("old", "new", "path"), [
    ("    output: {reference: cancel_reference}\n    side_effect: true\n",
     "    output: {reference: cancel_reference}\n    side_effect: 'true'\n", "tools[2].side_effect"),
    ("type: boolean, required: false, prompt:", "type: boolean, required: 'no', prompt:", "scenarios[1].steps[0].slots[1].required"),
    ("      - id: confirm_cancel\n        requires_confirmation: true\n",
     "      - id: confirm_cancel\n        requires_confirmation: \"true\"\n", "scenarios[1].steps[1].requires_confirmation"),
    ("sources: [profile], privileged: true,", "sources: [profile], privileged: 'on',", "profile_field_definitions[0].privileged"),
])
def test_every_boolean_of_the_file_refuses_a_text(tmp_path, old, new, path):
    result, text, _ = run(tmp_path, (old, new))
    [(message, at)] = found(result.problems, path)
    key = path.rsplit(".", 1)[-1]
    assert "is read as a text, not as" in message and f"write {key}: " in message and "without quotes" in message
    written = next(row for row in new.splitlines() if key in row)
    assert at == line(text, written.strip())


def test_a_text_in_the_settings_sections_is_refused_as_well(tmp_path):
    result, text, _ = run(tmp_path, ("rules:\n", "enforcement: {llm_judge_enabled: 'false'}\nrules:\n"))
    [(message, at)] = found(result.problems, "enforcement.llm_judge_enabled")
    assert "write llm_judge_enabled: false (or true), without quotes" in message
    assert at == line(text, "llm_judge_enabled")


def test_a_number_for_a_boolean_is_refused_with_true_or_false_as_the_fix(tmp_path):
    result, _, _ = run(tmp_path, (HARD, "    is_hard_constraint: 1\n" + CAP))
    [(message, _)] = found(result.problems, "rules[2].is_hard_constraint")
    assert message == "Input should be a valid boolean; write is_hard_constraint: true or is_hard_constraint: false"


def test_a_text_that_names_no_boolean_says_so(tmp_path):
    result, _, _ = run(tmp_path, (HARD, "    is_hard_constraint: sometimes\n" + CAP))
    [(message, _)] = found(result.problems, "rules[2].is_hard_constraint")
    assert message.endswith("'sometimes' is a text, not a boolean; write is_hard_constraint: true or "
                            "is_hard_constraint: false, without quotes")


@pytest.mark.parametrize(("written", "value"), [("yes", True), ("on", True), ("True", True), ("TRUE", True),
                                                ("no", False), ("off", False), ("false", False), ("No", False)])
def test_yaml_booleans_written_without_quotes_keep_working(tmp_path, written, value):
    # YAML 1.1 (PyYAML) reads these unquoted words as booleans before the schema sees them
    result, _, _ = run(tmp_path, ("sources: [message], default: false}",
                                  f"sources: [message], default: false, persist_to_profile: {written}}}"))
    assert result.problems == [], shown(result)
    field = result.config.field("waive_fee") if result.config else None
    assert field is not None and field.persist_to_profile is value


def test_an_unquoted_yes_on_is_hard_constraint_is_fine(tmp_path):
    result, _, _ = run(tmp_path, (HARD, "    is_hard_constraint: yes\n" + CAP))
    assert result.problems == [] and result.warnings == [], shown(result)
    assert result.config is not None and result.config.rules[2].is_hard_constraint is True


# --- a hard constraint switched off -------------------------------------------------------------------


def test_a_hard_constraint_switched_off_is_a_warning_that_it_is_never_checked(tmp_path):
    result, text, _ = run(tmp_path, (CAP, CAP + "    enabled: no\n"))
    assert result.problems == [] and result.config is not None  # the author may switch off their own rule
    assert found(result.warnings, "rules[2].enabled") == [(
        "hard constraint 'discount_cap' is switched off (enabled: false), so it is never checked: no answer is checked "
        "against 'discount_promised <= 15'. This key is the only switch that turns a hard constraint off "
        "(enforcement.enabled cannot); remove enabled: false to enforce the rule, or remove the rule if it no longer "
        "applies", line(text, "enabled: no"))]


def test_a_guard_switched_off_names_the_calls_that_run_unguarded(tmp_path):
    result, _, _ = run(tmp_path, ("    enforcement_expression: customer_confirmed\n",
                                  "    enforcement_expression: customer_confirmed\n    enabled: false\n"))
    [(message, _)] = found(result.warnings, "rules[0].enabled")
    assert "so it is never checked: calls of 'create_booking', 'cancel_booking' run without this guard" in message


def test_a_soft_rule_switched_off_or_a_hard_one_switched_on_is_not_reported(tmp_path):
    result, _, _ = run(tmp_path, ("    response_template: Check-in is from 3pm.\n",
                                  "    response_template: Check-in is from 3pm.\n    enabled: false\n"))
    assert result.problems == [] and result.warnings == [], shown(result)
    result, _, _ = run(tmp_path, (CAP, CAP + "    enabled: yes\n"))
    assert result.problems == [] and result.warnings == [], shown(result)
