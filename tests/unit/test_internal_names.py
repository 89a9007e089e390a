"""An answer that writes the agent's own identifiers (snake_case rule, field, tool, scenario and step ids) is
reciting its configuration; the business's own customer-facing words are never counted as a leak."""

from __future__ import annotations

from focal.enforcement.internals import internal_names, leaked_names
from focal.models.agent import AgentConfig

AGENT = AgentConfig.model_validate({
    "id": "gym", "name": "Gym",
    "greeting": "Hi! Ask me about day_pass prices or freezing your membership.",
    "profile_field_definitions": [
        {"field_name": "is_vip", "field_type": "boolean", "sources": ["profile"], "privileged": True},
        {"field_name": "freeze_length", "field_type": "string", "sources": ["message"]},
        {"field_name": "day_pass", "field_type": "money", "sources": ["tool"]},
        {"field_name": "email", "field_type": "string", "sources": ["message"]},
    ],
    "rules": [{"id": "freeze_cap", "condition_text": "freezing", "action_text": "At most three months."}],
    "scenarios": [{"id": "freeze", "name": "Freeze", "entry_examples": ["freeze my membership"],
                   "entry_step_id": "ask_length",
                   "steps": [{"id": "ask_length", "slots": [
                       {"name": "freeze_length", "prompt": "How long should the freeze ({freeze_length}) last?"}]}]}],
})


def test_snake_case_ids_the_customer_never_sees_are_internal():
    assert internal_names(AGENT) == ("ask_length", "freeze_cap", "freeze_length", "is_vip")


def test_a_draft_reciting_them_is_caught_whatever_their_case():
    assert leaked_names(AGENT, "Per FREEZE_CAP and since is_vip is false, I can't.") == ["freeze_cap", "is_vip"]


def test_plain_words_placeholders_and_the_business_own_vocabulary_pass():
    assert leaked_names(AGENT, "A day_pass is $15. Your email is on file; how long should the freeze last?") == []
    assert leaked_names(AGENT, "The freeze cap is three months; my_freeze_cap_note is not an id.") == []


def test_an_id_run_together_or_in_another_case_is_the_same_name():
    assert leaked_names(AGENT, "FreezeCap says no, and IsVip is off.") == ["freeze_cap", "is_vip"]
    assert leaked_names(AGENT, "freezecap") == ["freeze_cap"]


def test_two_hyphenated_words_are_english_three_or_more_are_an_id():
    three = AgentConfig.model_validate({"id": "a", "name": "a", "rules": [
        {"id": "max_freeze_cap", "condition_text": "x", "action_text": "y"},
        {"id": "check_in", "condition_text": "x", "action_text": "y"}]})
    assert leaked_names(three, "Under the Max-Freeze-Cap you may check-in later.") == ["max_freeze_cap"]


def test_a_lowercase_hyphenated_compound_is_english_even_when_it_spells_an_id():
    agent = AgentConfig.model_validate({"id": "a", "name": "a", "rules": [
        {"id": "out_of_hours", "condition_text": "x", "action_text": "y"}]})
    assert leaked_names(agent, "Our out-of-hours line is open all night.") == []
    assert leaked_names(agent, "Per Out-Of-Hours and out_of_hours, we're closed.") == ["out_of_hours"]
