"""Rules answer questions, flows do requests: the dialogue act of a message, read from its form (never from
its topic words), decides between a rule's answer and a flow's menu.

- A question about how things are in general (a policy, a limit, whether something is possible, how it
  works) is answered by the soft rule that matched it, even when a flow's examples resemble it more.
- A request — an imperative, a wish, a question that asks the agent to act, or one about the customer's
  own case — still starts its flow.
- Inside a flow, a rule whose examples are all questions is not said to a message that asks none (a
  request, a value, a yes): the flow says what applies, from what its tools look up.
"""

from __future__ import annotations

import pytest

from focal.dialogue.rule_answers import STATES_ITS_QUESTION_BY, answers_questions, asked_rules, asks_about_rules
from focal.dialogue.rule_filter import filter_rules
from focal.models.agent import AgentConfig, ProfileFieldDefinition, Rule, Scenario, Scope, Step
from focal.models.context import Command
from focal.models.session import Session
from focal.models.turn import ScoredRule
from focal.sensing.inquiry import asks_for_its_own_sake, asks_to_act, information_request

INFORMATION = [
    "what's your cancellation limit?",
    "What is the maximum number of bags I can check?",
    "Is there a limit on data top-ups?",
    "how does a rebooking work?",
    "Is it possible to renew a loan twice?",
    "Could you tell me what the late fee is?",
    "I'd like to know the daily withdrawal limit.",
    "Hi! How long does a dispute usually take?",
    "Do you price match?",
    "is it possible to add more than 2 GB?",
    "Fee limit?",
    "how much can I get refunded?",
]
REQUESTS = [
    "can you cancel booking B-12?",           # a question that asks the agent to act
    "could you renew the book for me?",
    "Please renew my loan",
    "I want to dispute a charge",
    "I'd like to add a checked bag",
    "cancel my reservation",
    "change the date of booking B-12",
    "What's the fee? Please go ahead and book it.",  # a question, then a request
    "Can I get a replacement card?",          # the polite request form
    "Where is my parcel?",                    # the customer's own case
    "Has my booking been confirmed?",
    "I paid twice, what is the refund limit?",
]


@pytest.mark.parametrize("text", INFORMATION)
def test_a_question_about_how_things_are_is_an_information_request(text):
    assert information_request(text)


@pytest.mark.parametrize("text", REQUESTS)
def test_a_request_or_a_question_about_the_customers_own_case_is_not(text):
    assert not information_request(text)


@pytest.mark.parametrize("text", ["can you cancel booking B-12?", "I need to change my address", "renew it for 2 weeks",
                                  "can I pause my membership?", "I can't train, could we move our booking?"])
def test_requests_ask_to_act(text):
    assert asks_to_act(text)


@pytest.mark.parametrize("text", ["can I pause my membership?", "I hurt my knee and can't train, can I pause my membership?"])
def test_permission_to_act_on_ones_own_thing_asks_nothing_for_its_own_sake(text):
    assert not asks_for_its_own_sake(text)


@pytest.mark.parametrize("text", ["How long can I pause my membership?", "I want to cancel, is there a fee?",
                                  "Can I bring a friend to the gym?"])
def test_a_question_word_or_a_general_permission_still_asks_to_know(text):
    assert asks_for_its_own_sake(text)


@pytest.mark.parametrize("text", ["what's the limit?", "could you tell me the fee?", "I'd like to know the hours."])
def test_questions_do_not_ask_to_act(text):
    assert not asks_to_act(text)


FIELDS = [ProfileFieldDefinition(field_name="booking_ref", field_type="id", pattern=r"\bB-\d{2}\b", sources=["message"]),
          ProfileFieldDefinition(field_name="gigabytes", field_type="number", sources=["message"])]
CANCEL = Scenario(id="cancel", name="Cancel a booking", entry_step_id="ask", steps=[Step(id="ask")])
AGENT = AgentConfig(id="desk", name="Desk", profile_field_definitions=FIELDS, scenarios=[CANCEL], rules=[
    Rule(id="cancel_limit", condition_text="The customer asks what the cancellation limit is",
         examples=["What's the cancellation limit?", "How late can I cancel?"], action_text="Give the limit."),
    Rule(id="late_change", condition_text="The customer asks whether a booking can be changed after paying",
         examples=["Can I change a booking after paying?", "Is it too late to change it once paid?"],
         action_text="Explain.", scope=Scope.SCENARIO, scope_id="cancel", entails_rule_ids=["fees"]),
    Rule(id="fees", condition_text="Fees", examples=["What are the fees?"], action_text="List the fees."),
    Rule(id="lost_ticket", condition_text="The customer lost their ticket",
         examples=["I lost my ticket", "Where do I find my ticket?"], action_text="Explain."),
    Rule(id="cap", condition_text="A booking is cancelled", action_text="Never more than 3.", is_hard_constraint=True,
         enforcement_expression="True"),
])


def scored(rule_id: str, score: float = 0.7, reason: str = "similarity", flow_score: float | None = None) -> ScoredRule:
    rule = AGENT.rule(rule_id)
    assert rule is not None
    return ScoredRule(rule_id=rule_id, score=score, scope=rule.scope.value, reason=reason,
                      flow_id="cancel" if flow_score else None, flow_score=flow_score)


def session(active: str | None = None) -> Session:
    return Session(tenant_id="t", agent_id="desk", session_id="s", customer_id="c", active_scenario_id=active,
                   active_step_id="ask" if active else None)


def test_a_value_that_identifies_one_thing_makes_the_question_the_customers_own_case():
    identifying = [Command(name="SetSlot", flow="cancel", slot="booking_ref", value="B-12")]
    amount = [Command(name="SetSlot", flow="cancel", slot="gigabytes", value=2.0)]
    assert not asks_about_rules(AGENT, "what's the cancellation limit for B-12?", identifying)
    assert asks_about_rules(AGENT, "is it possible to add more than 2 GB?", amount)


def test_a_rule_answers_questions_when_every_example_is_one():
    assert answers_questions(AGENT.rule("late_change"))
    assert not answers_questions(AGENT.rule("lost_ticket"))  # "I lost my ticket" is no question


WAIVER = Rule(id="waiver", condition_text="The customer asks about the late fee", action_text="Explain the fee.",
              examples=["What is the late fee?", "Can you waive my late fee?"])


@pytest.mark.parametrize("message", ["would you drop the fee if I pay today?", "What would you do in my place?"])
def test_in_a_flow_a_request_put_as_a_question_keeps_a_rule_whose_own_questions_ask_that_way(message):
    """The rule was written for that form ("can you waive my late fee?"); a rule whose questions only ask to know
    is still not said to it, and an imperative or a value gets neither."""
    agent = AGENT.model_copy(update={"rules": [*AGENT.rules, WAIVER]})
    matched = [scored("late_change"), ScoredRule(rule_id="waiver", score=0.7, scope="GLOBAL")]
    assert [m.rule_id for m in asked_rules(agent, session("cancel"), message, [], matched, [])] == ["waiver"]
    for asks_nothing in ("waive the fee", "B-12", "yes"):
        assert asked_rules(agent, session("cancel"), asks_nothing, [], matched, []) == []


@pytest.mark.parametrize("message", ["change booking B-12 to Friday", "yes", "B-12", "can you change it for me?"])
def test_in_a_flow_a_message_that_asks_nothing_gets_no_rule_that_answers_questions(message):
    notes: list[str] = []
    matched = [scored("late_change"), scored("lost_ticket"), scored("cap", reason="always included")]
    kept = asked_rules(AGENT, session("cancel"), message, [], matched, notes)
    assert [m.rule_id for m in kept] == ["lost_ticket", "cap"]
    assert any("late_change not said" in n for n in notes)


def test_a_flow_starting_counts_as_inside_it():
    start = [Command(name="StartFlow", flow="cancel", value=0.8)]
    kept = asked_rules(AGENT, session(), "change booking B-12 to Friday", start, [scored("late_change")], [])
    assert kept == []


@pytest.mark.parametrize("message", ["can I change it after paying?", "is it too late to change it?"])
def test_a_question_in_a_flow_still_gets_its_rule(message):
    assert [m.rule_id for m in asked_rules(AGENT, session("cancel"), message, [], [scored("late_change")], [])] == ["late_change"]


def test_outside_a_flow_nothing_changes_and_a_rule_pulled_in_by_another_stays():
    assert asked_rules(AGENT, session(), "B-12", [], [scored("late_change")], []) == [scored("late_change")]
    entailed = scored("fees", reason="entailed by late_change")
    assert asked_rules(AGENT, session("cancel"), "yes", [], [entailed], []) == [entailed]


def test_an_information_request_lets_no_flow_resemblance_set_its_rule_aside():
    beaten = scored("cancel_limit", score=0.45, flow_score=0.62)
    assert filter_rules(AGENT, session(), [beaten], []) == []
    assert [m.rule_id for m in filter_rules(AGENT, session(), [beaten], [], flows_compete=False)] == ["cancel_limit"]


def test_in_a_flow_a_statement_that_voices_a_global_rules_question_keeps_the_rule_only_when_clear_of_every_flow():
    """'I have no idea how late I can still cancel' asks the limit without a question mark: the GLOBAL rule is kept when
    it scores three margins above the best flow, set aside when a flow comes nearer or no flow was compared."""
    message = "I have no idea how late I can still cancel"
    margin = AGENT.retrieval.rule_match_margin
    clear = scored("cancel_limit", score=0.75, flow_score=0.75 - STATES_ITS_QUESTION_BY * margin - 0.01)
    near = scored("cancel_limit", score=0.75, flow_score=0.75 - STATES_ITS_QUESTION_BY * margin + 0.05)
    assert [m.rule_id for m in asked_rules(AGENT, session("cancel"), message, [], [clear], [])] == ["cancel_limit"]
    assert asked_rules(AGENT, session("cancel"), message, [], [near], []) == []
    assert asked_rules(AGENT, session("cancel"), message, [], [scored("cancel_limit", score=0.75)], []) == []


def test_a_scenario_rule_is_never_kept_for_a_statement_its_own_flow_does_not_compete_with():
    """late_change belongs to the cancel flow, which its flow score leaves out: a request that flow serves would look
    clear of every other flow."""
    far_from_others = scored("late_change", score=0.9, flow_score=0.1)
    assert asked_rules(AGENT, session("cancel"), "change booking B-12 to Friday", [], [far_from_others], []) == []
