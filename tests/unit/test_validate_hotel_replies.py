"""What replies state, against the hard constraints that read it, as a newcomer's hotel agent got it wrong and
`focal validate` passed with exit 0: a rule whose own fallback_text or response_template the rule rejects (read
by the engine's own draft reader and deterministic lane), a reply field whose default already breaks a hard
constraint (every answer blocked), a percentage compared with a fraction, and `customer_confirm` for the
guard built-in `customer_confirmed`. Each broken form is reported with its path and line; a look-alike that is
correct is not."""

from __future__ import annotations

import pytest
from agent_variants import line

from test_validate_hotel_agent import found, run, shown

CAP_FALLBACK = "    fallback_text: Our best member rate is the one I quoted.\n"
UPGRADE_FALLBACK = "    fallback_text: Room changes depend on availability at check-in.\n"
DISCOUNT_DEFAULT = "    sources: [response]\n    default: 0\n"
CAP = "    enforcement_expression: discount_promised <= 15\n"

# --- a rule's own text that the rule rejects ----------------------------------------------------------


def test_a_fallback_offering_more_than_the_cap_is_a_warning_quoting_what_the_engine_reads(tmp_path):
    result, text, _ = run(tmp_path, (CAP_FALLBACK, "    fallback_text: I can offer you 20% off your stay instead.\n"))
    assert result.problems == [] and result.config is not None
    assert found(result.warnings, "rules[2].fallback_text") == [(
        "the engine reads this fallback_text as stating discount_promised = 20, which fails the rule's own check "
        "'discount_promised <= 15': a draft in these words is blocked by this rule, and when the rule blocks an answer "
        "the customer is told this text anyway, unchecked; if the text does state this, change it to what the rule "
        "allows; if it only names the limit, word it as one ('up to', 'no more than')",
        line(text, "fallback_text: I can offer you 20% off"))]


def test_a_response_template_over_the_cap_is_reported_too(tmp_path):
    result, text, _ = run(tmp_path, (CAP_FALLBACK, CAP_FALLBACK + "    response_template: Members get 25% off tonight.\n"))
    [(message, at)] = found(result.warnings, "rules[2].response_template")
    assert message.startswith("the engine reads this response_template as stating discount_promised = 25, which fails")
    assert "the answer composed from this template is blocked again" in message
    assert at == line(text, "response_template: Members get 25% off")


def test_a_boolean_read_from_one_of_its_hints_says_how_the_hint_is_read(tmp_path):
    result, text, _ = run(tmp_path, (UPGRADE_FALLBACK, "    fallback_text: Good news, you've been upgraded to a suite.\n"))
    [(message, at)] = found(result.warnings, "rules[3].fallback_text")
    assert message.startswith("the engine reads this fallback_text as stating upgrade_promised = true, which fails the "
                              "rule's own check 'not upgrade_promised'")
    assert ("note that 'upgrade_promised' is read as true whenever a text contains one of its extraction_hints, "
            "negated or not (here 'upgrade', 'upgraded')") in message
    assert at == line(text, "you've been upgraded")


def test_an_amount_the_reader_cannot_place_is_reported_as_unreadable(tmp_path):
    result, _, _ = run(tmp_path, (CAP_FALLBACK, "    fallback_text: 10% off tonight, or 20% off for members.\n"))
    [(message, _)] = found(result.warnings, "rules[2].fallback_text")
    assert message.startswith("the engine cannot read discount_promised (the answer promises several amounts")
    assert message.endswith("state the amount plainly, or say what happens instead without an amount")


def test_a_rule_that_depends_on_another_value_names_the_situation(tmp_path):
    field = "  - field_name: upgrade_promised\n"
    rule = "  - id: checkin_time\n"
    result, _, _ = run(tmp_path, (
        field, "  - {field_name: fee_dropped, field_type: boolean, extraction_hints: [fee is dropped], sources: [response], "
               "default: false}\n" + field), (rule, (
                   "  - id: no_late_drop_promise\n    condition_text: The reply drops the fee\n"
                   "    action_text: Never drop the fee within a day of check-in.\n    is_hard_constraint: true\n"
                   "    enforcement_expression: not fee_dropped or hours_until_checkin >= 24\n"
                   "    fallback_text: Good news, the fee is dropped.\n") + rule))
    [(message, _)] = found(result.warnings, "rules[4].fallback_text")
    assert "fails the rule's own check 'not fee_dropped or hours_until_checkin >= 24' (when hours_until_checkin is 0)" \
        in message


@pytest.mark.parametrize("fallback", [
    "I can offer you 10% off your stay instead.",  # within the cap
    "I can offer up to 15% off.",                  # the cap itself, named as a limit
    "Discounts above 15% need a manager.",
    "Our best member rate is the one I quoted for {booking_id}.",
])
def test_a_fallback_within_the_rule_is_not_reported(tmp_path, fallback):
    result, _, _ = run(tmp_path, (CAP_FALLBACK, f"    fallback_text: {fallback}\n"))
    assert result.problems == [] and result.warnings == [], shown(result)


def test_a_guards_texts_are_not_read_as_answers(tmp_path):
    # a guard is checked on the call's arguments, never on an answer's text: its fallback states what it likes
    result, _, _ = run(tmp_path, ("    fallback_text: The fee applies within a day of check-in, so nothing has been cancelled yet.\n",
                                  "    fallback_text: Nothing is cancelled yet, but I can offer you 20% off a new stay.\n"))
    assert result.warnings == [], shown(result)


# --- a default that breaks a hard constraint ----------------------------------------------------------


def test_a_reply_field_default_over_the_cap_is_an_error_at_the_default(tmp_path):
    result, text, _ = run(tmp_path, (DISCOUNT_DEFAULT, "    sources: [response]\n    default: 20\n"))
    assert found(result.problems, "profile_field_definitions[10].default") == [(
        "default 20 of 'discount_promised' breaks hard constraint 'discount_cap' ('discount_promised <= 15'): only the "
        "agent's replies set 'discount_promised' (sources: [response]) and an answer that states none is checked with "
        "the default, so the rule blocks every answer it applies to that does not state a discount_promised itself; "
        "write a default the rule allows, e.g. default: 0", line(text, "default: 20"))]
    assert result.config is None
    assert found(result.warnings, "rules[2].fallback_text") == []  # one finding, not a second one on the texts


def test_a_boolean_default_that_breaks_its_rule_suggests_the_other_value(tmp_path):
    result, _, _ = run(tmp_path, ("    sources: [response]\n    default: false\n", "    sources: [response]\n    default: true\n"))
    [(message, _)] = found(result.problems, "profile_field_definitions[11].default")
    assert message.startswith("default true of 'upgrade_promised' breaks hard constraint 'no_upgrade' ('not upgrade_promised')")
    assert message.endswith("e.g. default: false")


@pytest.mark.parametrize(("old", "new"), [
    (DISCOUNT_DEFAULT, "    sources: [response]\n    default: 15\n"),                    # at the cap: allowed
    (DISCOUNT_DEFAULT, "    sources: [response, message]\n    default: 20\n"),          # a message may set it
    (CAP, "    enforcement_expression: discount_promised <= 15 or loyalty_tier == 'gold'\n"),  # not for gold members
])
def test_a_default_that_does_not_break_the_rule_every_time_is_not_reported(tmp_path, old, new):
    replacements = [(old, new)]
    if old == CAP:
        replacements.append((DISCOUNT_DEFAULT, "    sources: [response]\n    default: 20\n"))
    result, _, _ = run(tmp_path, *replacements)
    assert [p for p in result.problems if p.path.endswith(".default")] == [], shown(result)


# --- a percentage compared with a fraction ------------------------------------------------------------


def test_a_percentage_compared_with_a_fraction_is_a_warning_with_the_percent_to_write(tmp_path):
    result, text, _ = run(tmp_path, (CAP, "    enforcement_expression: discount_promised <= 0.15\n"))
    assert result.problems == [] and result.config is not None
    assert found(result.warnings, "rules[2].enforcement_expression") == [(
        "'discount_promised' is a percentage field, held in percent (a reply's or a message's '15%' is read as 15), so "
        "'discount_promised <= 0.15' compares it with 0.15%, not 15%; write 'discount_promised <= 15'",
        line(text, "discount_promised <= 0.15"))]


def test_the_fraction_is_found_on_either_side_and_in_a_validation_of_value(tmp_path):
    result, _, _ = run(tmp_path, (CAP, "    enforcement_expression: 0.5 >= discount_promised and discount_promised >= 0\n"))
    [(message, _)] = found(result.warnings, "rules[2].enforcement_expression")
    assert message.endswith("write '50 >= discount_promised and discount_promised >= 0'")
    result, _, _ = run(tmp_path, (DISCOUNT_DEFAULT, DISCOUNT_DEFAULT + "    validation_rules: [value <= 0.3]\n"))
    [(message, _)] = found(result.warnings, "profile_field_definitions[10].validation_rules[0]")
    assert message.endswith("write 'value <= 30'")


@pytest.mark.parametrize("expression", ["discount_promised <= 15", "discount_promised <= 12.5", "discount_promised >= 0"])
def test_a_percentage_in_percent_is_not_reported(tmp_path, expression):
    result, _, _ = run(tmp_path, (CAP, f"    enforcement_expression: {expression}\n"))
    assert result.problems == [] and result.warnings == [], shown(result)


def test_a_fraction_compared_with_a_number_field_is_not_reported(tmp_path):
    result, _, _ = run(tmp_path, ("    enforcement_expression: not waive_fee or hours_until_checkin >= 24\n",
                                  "    enforcement_expression: not waive_fee or hours_until_checkin >= 0.5\n"))
    assert result.problems == [] and result.warnings == [], shown(result)


# --- a guard built-in misspelt ------------------------------------------------------------------------


def test_customer_confirm_in_a_guard_suggests_the_built_in(tmp_path):
    result, text, _ = run(tmp_path, ("    enforcement_expression: customer_confirmed\n",
                                     "    enforcement_expression: customer_confirm\n"))
    assert found(result.problems, "rules[0].enforcement_expression") == [(
        "guard reads 'customer_confirm', which tools 'create_booking' (inputs: room_type, num_guests) and "
        "'cancel_booking' (inputs: booking_id, waive_fee) do not take and no field declares; did you mean "
        "'customer_confirmed', the built-in that is true once the customer has said yes at a step that asks?",
        line(text, "enforcement_expression: customer_confirm"))]


def test_a_misspelt_argument_in_a_guard_suggests_the_declared_name(tmp_path):
    result, _, _ = run(tmp_path, ("    enforcement_expression: not waive_fee or hours_until_checkin >= 24\n",
                                  "    enforcement_expression: not waive_fees or hours_until_checkin >= 24\n"))
    [(message, _)] = found(result.problems, "rules[1].enforcement_expression")
    assert message.endswith("and no field declares; did you mean 'waive_fee'?")


def test_outside_a_guard_customer_confirmed_is_not_suggested(tmp_path):
    # only a guard reads the built-in: a reply rule naming it is told it is undeclared, with no suggestion of it
    result, _, _ = run(tmp_path, (CAP, "    enforcement_expression: discount_promised <= 15 or customer_confirm\n"))
    [(message, _)] = found(result.problems, "rules[2].enforcement_expression")
    assert message == "name 'customer_confirm' is not a declared variable"
