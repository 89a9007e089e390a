"""Steps, sources and slot types a newcomer got wrong that `focal validate` used to pass with exit 0 and no
warning: a confirmation without its question, a side-effecting action nobody confirms, a privileged field
that lists `message`, a text slot on a money or boolean field. Each broken form is reported with its path
and line; a look-alike that is correct is not. Last, the command itself: the file, the path and the line."""

from __future__ import annotations

import pytest
from agent_variants import line

from focal.main import main
from test_validate_newcomer_agent import found, run, shown

PAYOUT_PROMPT = "        confirmation_prompt: Your claim {claim_reference} is filed. Shall I pay out ${payout_amount} now?\n"
PAYOUT_STEP = "      - id: confirm_payout\n        requires_confirmation: true\n"

# --- m. a confirmation without its question -----------------------------------------------------------


def test_a_confirmation_without_a_prompt_is_a_warning_naming_the_text_the_customer_would_see(tmp_path):
    result, text, _ = run(tmp_path, (PAYOUT_PROMPT, ""))
    assert result.problems == [] and result.config is not None
    assert [(w.path, w.message, w.line) for w in result.warnings] == [(
        "scenarios[0].steps[3].requires_confirmation",
        "step 'confirm_payout' asks the customer to confirm but has no confirmation_prompt, so the customer is asked "
        "only 'Shall I go ahead?' (a generic question, without the values the action will use) and a model is given no "
        "question to ask; add a confirmation_prompt that says what will be done (it may read variables: "
        "{policy_number}, {payout_amount})", line(text, "- id: confirm_payout") + 1)]


def test_with_a_tool_description_the_warning_quotes_the_question_in_the_tools_words(tmp_path):
    result, _, _ = run(tmp_path, (PAYOUT_PROMPT, ""),
                       ("    entrypoint: 'tools.py:issue_payout'\n",
                        "    entrypoint: 'tools.py:issue_payout'\n    description: Pay out a filed claim.\n"))
    [(message, _)] = found(result.warnings, "scenarios[0].steps[3].requires_confirmation")
    assert ("the customer is asked only 'Do you want me to pay out a filed claim?' (the description of tool "
            "'issue_payout', without the values the action will use)") in message


def test_the_quoted_question_is_the_one_the_customer_is_asked(tmp_path):
    # validate and the composer share dialogue/clarify.py confirmation_question
    from focal.config.flow_warnings import asked_instead

    expected = {"": ("Shall I go ahead?", "a generic question"),
                "Pay out a filed claim.": ("Do you want me to pay out a filed claim?", "the description of tool 'issue_payout'")}
    for description, asked in expected.items():
        described = (("    entrypoint: 'tools.py:issue_payout'\n",
                      f"    entrypoint: 'tools.py:issue_payout'\n    description: {description}\n"),) if description else ()
        result, _, _ = run(tmp_path, (PAYOUT_PROMPT, ""), *described)
        agent = result.config
        assert asked_instead(agent, agent.step("claim", "confirm_payout")) == asked


def test_a_blank_prompt_counts_as_none(tmp_path):
    result, _, _ = run(tmp_path, (PAYOUT_PROMPT, "        confirmation_prompt: '  '\n"))
    assert [w.path for w in result.warnings] == ["scenarios[0].steps[3].requires_confirmation"]


# --- n. a side-effecting action at a step that does not ask ----------------------------------------------


def test_an_unconfirmed_side_effect_behind_a_confirmation_guard_never_runs(tmp_path):
    result, text, _ = run(tmp_path, (PAYOUT_STEP, "      - id: confirm_payout\n"))
    assert result.problems == []
    assert [(w.path, w.message, w.line) for w in result.warnings] == [(
        "scenarios[0].steps[3].action[0]",
        "tool 'issue_payout' has side effects (side_effect: true) and step 'confirm_payout' does not ask the customer "
        "first (requires_confirmation is false), so guard 'confirm_first', which needs customer_confirmed (false at a "
        "step that does not ask), blocks every call from this step: the action never runs; set requires_confirmation: "
        "true and a confirmation_prompt on this step", line(text, "action: [issue_payout]"))]


def test_an_unconfirmed_side_effect_without_such_a_guard_runs_without_a_yes(tmp_path):
    result, _, _ = run(tmp_path, (PAYOUT_STEP, "      - id: confirm_payout\n"),
                       ("guarded_tool_ids: [file_claim, issue_payout]", "guarded_tool_ids: [file_claim]"))
    [(message, _)] = found(result.warnings, "scenarios[0].steps[3].action[0]")
    assert "so it runs as soon as the step completes, without the customer's yes; set requires_confirmation" in message


def test_a_guard_that_only_may_need_the_confirmation_is_named_without_claiming_it_blocks(tmp_path):
    result, _, _ = run(tmp_path, (PAYOUT_STEP, "      - id: confirm_payout\n"),
                       ("enforcement_expression: customer_confirmed", 'enforcement_expression: "customer_confirmed or payout_amount < 10"'))
    [(message, _)] = found(result.warnings, "scenarios[0].steps[3].action[0]")
    assert "without the customer's yes; guard 'confirm_first' reads customer_confirmed, which stays false" in message
    assert "never runs" not in message


def test_a_read_only_tool_at_a_step_that_does_not_ask_is_fine(tmp_path):
    # the base agent's ask_policy step runs lookup_policy (side_effect: false) without asking
    result, _, _ = run(tmp_path)
    assert result.warnings == []


@pytest.mark.parametrize(("old", "new", "where"), [
    (PAYOUT_STEP, PAYOUT_STEP.replace("true", "perhaps"), "scenarios[0].steps[3].requires_confirmation"),
    (PAYOUT_PROMPT, "        confirmation_prompt: [pay out now]\n", "scenarios[0].steps[3].confirmation_prompt"),
])
def test_a_setting_the_schema_refused_is_not_reported_as_missing(tmp_path, old, new, where):
    # the gate removes the refused value to run the other checks: no warning may claim it was never written
    result, text, _ = run(tmp_path, (old, new))
    assert [p.path for p in result.problems] == [where] and result.warnings == [], shown(result)


# --- o. a privileged field that lists message (or response) among its sources ---------------------------

VERIFIED = "{field_name: is_verified, field_type: boolean, sources: [profile], privileged: true"


def test_a_privileged_field_listing_message_is_a_warning_that_the_source_is_ignored(tmp_path):
    result, text, _ = run(tmp_path, (VERIFIED, VERIFIED.replace("[profile]", "[profile, message]")))
    assert result.problems == []
    assert [(w.path, w.message, w.line) for w in result.warnings] == [(
        "profile_field_definitions[0].sources",
        "'message' in the sources of privileged field 'is_verified' is ignored: a privileged field is set only by tools "
        "or the profile store, never from what the customer says, so the sources say something the agent does not do; "
        "remove 'message' from sources (or, if it may really come from there, remove privileged: true)",
        line(text, "field_name: is_verified"))]


def test_response_is_reported_the_same_way(tmp_path):
    result, _, _ = run(tmp_path, (VERIFIED, VERIFIED.replace("[profile]", "[profile, message, response]")))
    assert [w.message.split(" is ignored")[0] for w in result.warnings] == [
        "'message' in the sources of privileged field 'is_verified'",
        "'response' in the sources of privileged field 'is_verified'"]


@pytest.mark.parametrize(("old", "new"), [
    (VERIFIED, "{field_name: is_verified, field_type: boolean, privileged: true"),  # sources left to their default
    (VERIFIED, VERIFIED.replace("[profile]", "[profile, tool]")),
    (VERIFIED, VERIFIED.replace("privileged: true", "privileged: false").replace("[profile]", "[profile, message]")),
])
def test_look_alikes_of_a_privileged_field_are_fine(tmp_path, old, new):
    result, _, _ = run(tmp_path, (old, new))
    assert result.problems == [] and result.warnings == [], shown(result)


# --- r. a slot type its field cannot hold, in both directions ---------------------------------------------

AMOUNT_SLOT = "          - name: claimed_amount\n            type: money\n"
DATE_SLOT = "{name: incident_date, type: date,"


@pytest.mark.parametrize("slot_type", ["enum", "string", "id", "date"])
def test_a_text_slot_on_a_money_field_is_an_error(tmp_path, slot_type):
    result, text, _ = run(tmp_path, (AMOUNT_SLOT, AMOUNT_SLOT.replace("money", slot_type)))
    assert found(result.problems, "scenarios[0].steps[1].slots[1].type") == [(
        f"slot type '{slot_type}' does not fit field 'claimed_amount' of type 'money': a slot converts each value to its "
        f"own type, and {slot_type} keeps a value given as text as it is ('1,750' stays '1,750', not the amount 1750), "
        "so expressions, templates and tool arguments that expect a number get a text; use type: money",
        line(text, f"            type: {slot_type}"))]


def test_a_text_slot_on_a_boolean_field_is_an_error(tmp_path):
    result, _, _ = run(tmp_path, (DATE_SLOT, "{name: policy_found, type: string,"))
    [(message, _)] = found(result.problems, "scenarios[0].steps[1].slots[0].type")
    assert message.startswith("slot type 'string' does not fit field 'policy_found' of type 'boolean'")
    assert "('no' stays the text 'no', which counts as true)" in message and message.endswith("use type: boolean")


def test_a_money_slot_on_a_date_field_is_still_an_error(tmp_path):
    result, _, _ = run(tmp_path, (DATE_SLOT, "{name: incident_date, type: money,"))
    [(message, _)] = found(result.problems, "scenarios[0].steps[1].slots[0].type")
    assert message.startswith("slot type 'money' does not fit field 'incident_date' of type 'date'")


@pytest.mark.parametrize(("old", "new"), [(AMOUNT_SLOT, AMOUNT_SLOT.replace("money", "number")),
                                          (DATE_SLOT, "{name: incident_date, type: string,"),
                                          (DATE_SLOT, "{name: incident_date, type: id,")])
def test_slot_types_that_hold_their_fields_values_are_fine(tmp_path, old, new):
    result, _, _ = run(tmp_path, (old, new))
    assert result.problems == [] and result.warnings == [], shown(result)


# --- the command: the file, then each problem with its path and line --------------------------------------


def test_focal_validate_prints_the_file_the_path_and_the_line_and_fails_on_an_error(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    _, text, path = run(tmp_path, ("validation: value > 0", "validation: claimed_amount > 0"))
    assert main(["validate", str(path)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"{path}: 1 problem(s)"
    assert out[1].startswith("  scenarios[0].steps[1].slots[1].validation: a slot's validation reads only 'value'")
    assert out[1].endswith(f"(line {line(text, 'claimed_amount > 0')})")


def test_focal_validate_exits_0_on_warnings_alone_and_still_prints_them(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    _, text, path = run(tmp_path, (PAYOUT_PROMPT, ""))
    assert main(["validate", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1] == f"{path}: 1 warning(s)"
    assert out[2].startswith("  scenarios[0].steps[3].requires_confirmation: step 'confirm_payout' asks the customer")
    assert out[2].endswith(f"(line {line(text, '- id: confirm_payout') + 1})")


def test_a_required_slot_whose_field_has_a_default_is_never_asked(tmp_path):
    field = "  - {field_name: incident_date, field_type: date, sources: [message]}\n"
    defaulted = "  - {field_name: incident_date, field_type: date, sources: [message], default: '2024-01-01'}\n"
    result, _, _ = run(tmp_path, (field, defaulted))
    [(message, _)] = [(w.message, w.line) for w in result.warnings if w.path.endswith("slots[0].name")
                      and "never asked" in w.message]
    assert "slot 'incident_date' is never asked: its field has default '2024-01-01'" in message
    optional = "          - {name: incident_date, type: date, prompt: 'On what date did it happen?'}\n"
    result, _, _ = run(tmp_path, (field, defaulted), (optional, optional.replace("}\n", ", required: false}\n")))
    assert not [w for w in result.warnings if "never asked" in w.message]
