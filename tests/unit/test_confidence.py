"""Graded confidence (dialogue/confidence.py): each factor, and the bands they give at the default weights."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from focal.dialogue import confidence as c
from focal.dialogue.understanding import FREE_TEXT_SLOT
from focal.errors import ExpressionError
from focal.models.agent import AgentConfig
from focal.models.context import Command, Context, IntentScore
from focal.models.session import CustomerProfile, HistoryEntry, Session
from focal.models.turn import RouteDecision, RouteOutput, ScoredRule, SensorOutput, TurnRequest, TurnState

PROMPT = "Order {order_id} ({order_item}) came to ${order_total}. Shall I refund it?"
AGENT: dict[str, Any] = {
    "id": "shop",
    "name": "Shop",
    "profile_field_definitions": [
        {"field_name": "order_id", "field_type": "id", "pattern": r"\b[A-Z]\d{4}\b", "sources": ["message", "tool", "profile"]},
        {"field_name": "order_total", "field_type": "money", "sources": ["tool"]},
        {"field_name": "order_item", "sources": ["tool"]},
        {"field_name": "note", "sources": ["message"]},
        {"field_name": "is_premium", "field_type": "boolean", "sources": ["profile"], "default": False},
        {"field_name": "gift", "sources": ["message"], "default": "mug"},
    ],
    "tools": [
        {"id": "lookup_order", "entrypoint": "t.py:f", "input": {"order_id": {"type": "id"}},
         "output": {"total": "order_total", "item": "order_item"}},
        {"id": "issue_refund", "entrypoint": "t.py:f", "input": {"order_id": {"type": "id"}}, "side_effect": True},
        {"id": "cancel_order", "entrypoint": "t.py:f", "input": {"order_id": {"type": "id"}}, "side_effect": True,
         "idempotent": True},
        {"id": "send_gift", "entrypoint": "t.py:f", "input": {"gift": {}}, "side_effect": True, "deterministic": False},
        {"id": "ranker", "entrypoint": "t.py:f", "input": {}, "deterministic": False},
    ],
    "scenarios": [
        {"id": "refund", "name": "Refund", "intent_label": "refund_request", "entry_step_id": "collect", "steps": [
            {"id": "collect", "slots": [{"name": "order_id", "type": "id", "prompt": "Which order?"},
                                        {"name": "note", "type": "string", "prompt": "Anything to add?", "required": False}],
             "action": ["lookup_order"], "transitions": [{"target": "confirm"}]},
            {"id": "confirm", "requires_confirmation": True, "confirmation_prompt": PROMPT, "action": ["issue_refund"],
             "transitions": [{"target": "done"}]},
            {"id": "done"},
        ]},
        {"id": "status", "name": "Status", "intent_label": "order_status", "entry_step_id": "ask",
         "steps": [{"id": "ask"}]},
    ],
    "rules": [
        {"id": "gift_rule", "condition_text": "The customer wants a gift", "action_text": "Send a gift.",
         "attached_tool_ids": ["send_gift"]},
    ],
}
GUARD = {"id": "refund_limit", "condition_text": "a refund", "action_text": "Refunds over $50 need a person.",
         "is_hard_constraint": True, "enforcement_expression": "order_total <= 50 or is_premium",
         "guarded_tool_ids": ["issue_refund"]}
SHOWN = "Order A1001 (Wireless mouse) came to $30.00. Shall I refund it?"


def agent_with(*rules: dict[str, Any]) -> AgentConfig:
    data = copy.deepcopy(AGENT)
    data["rules"] += list(rules)
    return AgentConfig.model_validate(data)


@pytest.fixture
def agent() -> AgentConfig:
    return agent_with()


def confirming(message: str = "yes", note: str | None = "act affirm (lexicon)", source: str = "offline",
               intent_confidence: float = 0.0, slots: dict[str, Any] | None = None, shown: str = SHOWN,
               said: str = "I'd like a refund for order A1001", total: float = 30.0,
               profile: dict[str, Any] | None = None) -> TurnState:
    """The refund's confirmation step, answered by `message` with an affirmation read as `note`."""
    session = Session(
        tenant_id="t", agent_id="shop", session_id="s", customer_id="c", active_scenario_id="refund",
        active_step_id="confirm", flow_state="executing_action", confirmed_step="confirm",
        slots={"order_id": "A1001"} if slots is None else slots,
        variables={"order_total": total, "order_item": "Wireless mouse"},
        history=[HistoryEntry(role="user", text=said), HistoryEntry(role="assistant", text=shown)],
    )
    return TurnState(
        request=TurnRequest(tenant_id="t", agent_id="shop", session_id="s", turn_id="2", message=message),
        session=session,
        profile=CustomerProfile(tenant_id="t", agent_id="shop", customer_id="c", fields=profile or {}),
        sensor=SensorOutput(
            context=Context(message=message, source=source, intent_confidence=intent_confidence, notes=[note] if note else [],
                            commands=[Command(name="AffirmConfirmation", flow="refund")]),
            commands=[Command(name="AffirmConfirmation", flow="refund")]),
        route=RouteOutput(decision=RouteDecision(executed=["AffirmConfirmation"])),
    )


# --- goal understanding ----------------------------------------------------------------------------


def test_goal_a_lexicon_yes_is_sure(agent):
    value, why = c.goal_understanding(confirming(), agent)
    assert value == 1.0 and "lexicon" in why


@pytest.mark.parametrize(("similarity", "expected"), [(0.70, 0.5), (0.80, 0.75), (0.90, 1.0), (0.97, 1.0)])
def test_goal_an_exemplar_yes_counts_by_its_margin_over_the_threshold(agent, similarity, expected):
    state = confirming("that should be fine", note=f"act affirm (similarity {similarity:.2f})")
    assert c.goal_understanding(state, agent)[0] == pytest.approx(expected)


def test_goal_a_model_reading_is_the_models_own_certainty(agent):
    state = confirming("I reckon so", note=None, source="model", intent_confidence=0.35)
    value, why = c.goal_understanding(state, agent)
    assert value == pytest.approx(0.35) and "model" in why


def test_goal_the_least_certain_command_decides(agent):
    state = confirming()
    state.sensor.commands = [Command(name="SetSlot", flow="refund", slot="order_id", value="A1001"),
                      Command(name="SetSlot", flow="refund", slot="note", value="it broke")]
    state.route.decision.executed = ["SetSlot", "SetSlot"]
    value, why = c.goal_understanding(state, agent)
    assert value == FREE_TEXT_SLOT and "note" in why  # a typed order id is sure, free text less so
    state.sensor.commands.append(Command(name="Clarify"))
    state.route.decision.executed.append("Clarify")
    assert c.goal_understanding(state, agent)[0] == 0.0


def test_goal_a_started_flow_is_cut_when_the_runner_up_is_close(agent):
    state = confirming()
    state.sensor.commands = [Command(name="StartFlow", flow="refund", value=0.8)]
    state.route.decision.executed = ["StartFlow"]
    assert state.sensor.context is not None
    state.sensor.context.intent_scores = [IntentScore(scenario_id="refund", label="refund_request", score=0.8),
                                   IntentScore(scenario_id="status", label="order_status", score=0.3)]
    assert c.goal_understanding(state, agent)[0] == pytest.approx(0.8)
    state.sensor.context.intent_scores[1].score = 0.75  # 0.05 behind, under 2 × the ambiguity margin
    close = c.goal_understanding(state, agent)[0]
    assert 0.4 < close < 0.6


def test_goal_without_commands_reads_the_matched_soft_rule(agent):
    state = confirming()
    state.sensor.commands, state.route.decision.executed = [], []
    state.route.matched_rules = [ScoredRule(rule_id="gift_rule", score=0.62, scope="GLOBAL")]
    assert c.goal_understanding(state, agent) == (pytest.approx(0.62), "rule gift_rule (0.62)")


# --- argument provenance (tool_availability) -------------------------------------------------------


def test_arguments_typed_and_surely_confirmed_are_certain(agent):
    value, why = c.tool_availability(confirming(), agent, ["issue_refund"], certainty=1.0)
    assert value == 1.0 and "stated, confirmed" in why


def test_arguments_confirmed_with_doubt_count_by_the_doubt(agent):
    value, _ = c.tool_availability(confirming(), agent, ["issue_refund"], certainty=0.35)
    assert value == pytest.approx(c.STATED + (1 - c.STATED) * 0.35)


def test_arguments_never_shown_are_not_confirmed(agent):
    state = confirming(shown="Is there anything else?")
    assert c.tool_availability(state, agent, ["issue_refund"], certainty=1.0)[0] == pytest.approx(c.STATED)


def test_arguments_not_in_the_customers_words_were_only_read(agent):
    state = confirming(said="refund my mouse order please")  # a model put A1001 in the slot
    value, why = c.tool_availability(state, agent, ["issue_refund"])
    assert value == pytest.approx(c.READ) and "not in the customer's words" in why


def test_arguments_from_the_profile_a_default_or_nowhere(agent):
    from_profile = confirming(slots={}, profile={"order_id": "A1001"})
    assert c.tool_availability(from_profile, agent, ["issue_refund"]) == (pytest.approx(c.PROFILE), "order_id: profile")
    assert c.tool_availability(confirming(), agent, ["send_gift"])[0] == pytest.approx(c.DEFAULT)
    assert c.tool_availability(confirming(slots={}), agent, ["issue_refund"])[0] == 0.0
    assert c.tool_availability(confirming(), agent, ["no_such_tool"])[0] == 0.0


def test_arguments_from_a_tool_of_this_conversation(agent):
    data = copy.deepcopy(AGENT)
    data["tools"].append({"id": "charge", "entrypoint": "t.py:f", "input": {"order_total": {"type": "money"}},
                          "side_effect": True})
    value, why = c.tool_availability(confirming(), AgentConfig.model_validate(data), ["charge"])
    assert value == pytest.approx(c.TOOL) and "tool output" in why


# --- context richness ------------------------------------------------------------------------------


def test_context_rests_on_the_confirmation(agent):
    state = confirming()
    assert c.context_richness(state, agent, ["issue_refund"], certainty=1.0)[0] == 1.0
    assert c.context_richness(state, agent, ["issue_refund"], certainty=0.4)[0] == pytest.approx(0.4)
    unseen = confirming(shown="Is there anything else?")
    assert c.context_richness(unseen, agent, ["issue_refund"], certainty=1.0)[0] == pytest.approx(0.5)


def test_context_counts_where_each_dependency_comes_from(agent):
    state = confirming(slots={}, profile={"order_id": "A1001"})
    value, why = c.context_richness(state, agent, ["issue_refund"])  # order_id from the profile, the rest known
    assert value == pytest.approx((c.ESTABLISHED["profile"] + 2) / 3) and "order_id profile" in why
    assert state.session is not None
    state.session.variables.pop("order_item")
    assert c.context_richness(state, agent, ["issue_refund"])[0] == pytest.approx((c.ESTABLISHED["profile"] + 1) / 3)


# --- tool determinism and guard headroom -----------------------------------------------------------


def test_determinism_by_kind_of_tool(agent):
    state = confirming()
    assert c.tool_determinism(state, agent, ["lookup_order"])[0] == c.SAFE
    assert c.tool_determinism(state, agent, ["cancel_order"])[0] == c.SAFE  # idempotent: safe to repeat
    assert c.tool_determinism(state, agent, ["issue_refund"])[0] == c.ONCE
    assert c.tool_determinism(state, agent, ["ranker"])[0] == c.NONDETERMINISTIC
    assert c.tool_determinism(state, agent, ["send_gift"])[0] == c.NONDETERMINISTIC_EFFECT
    assert c.tool_determinism(state, agent, [])[0] == 1.0


@pytest.mark.parametrize(("expression", "variables", "room"), [
    ("amount <= 50", {"amount": 48}, 0.04),
    ("amount <= 50", {"amount": 5}, 0.9),
    ("amount < 50", {"amount": 50}, 0.0),  # violated: nothing left
    ("50 >= amount", {"amount": 40}, 0.2),
    ("balance >= amount", {"balance": 100, "amount": 75}, 0.25),
    ("order_total <= 50 or is_premium", {"order_total": 45.0, "is_premium": False}, 0.1),
    ("order_total <= 50 or is_premium", {"order_total": 120.0, "is_premium": True}, 1.0),
    ("amount <= 50 and amount <= limit", {"amount": 30, "limit": 40}, 0.25),
    ("10 <= amount <= 50", {"amount": 45}, 0.1),
    ("status != 'cancelled'", {"status": "delivered"}, 1.0),
    ("not is_blocked", {"is_blocked": True}, 0.0),
    ("ship_date <= '2026-12-01'", {"ship_date": "2026-11-30"}, 1.0),  # holds; no distance between texts
    ("certificate_count <= 1", {"certificate_count": 1}, 1.0),  # a count at its allowance is not an amount
    ("booked_hours_ago <= 24", {"booked_hours_ago": 23.5}, 1.0),  # nor is a time window
    ("certificate_count <= 1", {"certificate_count": 2}, 0.0),  # but it must hold
])
def test_guard_headroom(expression, variables, room):
    measures = {"amount", "order_total", "balance", "limit"}
    assert c.guard_headroom(expression, variables, measures) == pytest.approx(room)


def test_guard_headroom_that_cannot_be_read_raises():
    with pytest.raises(ExpressionError):
        c.guard_headroom("amount <= 50", {}, {"amount"})
    with pytest.raises(ExpressionError):
        c.guard_headroom("__import__('os')", {})


def not_exact(total: float) -> TurnState:
    """The confirmation with an amount read from a message but not in the customer's words (no tool returned it)."""
    return confirming(total=total, slots={"order_id": "A1001", "order_total": total})


def test_a_call_close_to_its_guards_limit_is_riskier_when_its_amount_is_not_read_exactly():
    agent = agent_with(GUARD)
    near = c.tool_determinism(not_exact(48.0), agent, ["issue_refund"])
    far = c.tool_determinism(not_exact(5.0), agent, ["issue_refund"])
    assert near[0] == pytest.approx(c.ONCE * 0.04 / c.GUARD_ROOM) and "refund_limit" in near[1]
    assert far[0] == pytest.approx(c.ONCE)
    premium = c.tool_determinism(confirming(total=120.0, profile={"is_premium": True}), agent, ["issue_refund"])
    assert premium[0] == pytest.approx(c.ONCE)  # the limit does not bind a Premium member
    assert c.tool_determinism(confirming(total=30.0), agent, ["lookup_order"])[0] == c.SAFE  # not guarded


def test_an_amount_read_exactly_is_decided_by_the_guard_alone():
    """A tool's total, or an amount in the customer's own words: "up to $50 without approval" holds for $48."""
    agent = agent_with(GUARD)
    value, why = c.tool_determinism(confirming(total=48.0), agent, ["issue_refund"])
    assert value == pytest.approx(c.ONCE) and "read exactly" in why
    typed = confirming(total=48.0, slots={"order_id": "A1001", "order_total": 48.0}, said="A1001, it was 48 dollars")
    assert c.tool_determinism(typed, agent, ["issue_refund"])[0] == pytest.approx(c.ONCE)
    past = c.tool_determinism(confirming(total=51.0), agent, ["issue_refund"])
    assert past[0] == 0.0  # past the limit the guard fails, read exactly or not


def test_the_tightest_guard_decides_and_only_guards_in_scope_count():
    tight = {**GUARD, "id": "tight", "enforcement_expression": "order_total <= 40"}
    loose = {**GUARD, "id": "loose", "enforcement_expression": "order_total <= 1000"}
    value, why = c.tool_determinism(not_exact(30.0), agent_with(loose, tight), ["issue_refund"])
    assert value == pytest.approx(c.ONCE * 0.25 / c.GUARD_ROOM) and "tight" in why and "loose" in why
    elsewhere = {**tight, "scope": "SCENARIO", "scope_id": "status"}
    here = {**tight, "scope": "STEP", "scope_id": "refund.confirm"}
    assert c.tool_determinism(not_exact(30.0), agent_with(elsewhere), ["issue_refund"])[0] == c.ONCE
    assert c.tool_determinism(not_exact(30.0), agent_with(here), ["issue_refund"])[0] < c.ONCE


def test_a_guard_may_read_customer_confirmed():
    agent = agent_with({**GUARD, "id": "say_yes", "enforcement_expression": "customer_confirmed"})
    assert c.tool_determinism(confirming(), agent, ["issue_refund"])[0] == c.ONCE
    state = confirming()
    assert state.session is not None
    state.session.confirmed_step = None  # no yes to this step: the guard will stop the call
    value, why = c.tool_determinism(state, agent, ["issue_refund"])
    assert value == 0.0 and "0.00 of say_yes" in why


def test_an_unreadable_guard_leaves_no_room():
    broken = {**GUARD, "enforcement_expression": "len(order_total) <= 50"}
    value, why = c.tool_determinism(confirming(), agent_with(broken), ["issue_refund"])
    assert value == 0.0 and "unreadable" in why
    assert c.assess(confirming(), agent_with(broken), ["issue_refund"]).score < 0.85


# --- the score at the default weights --------------------------------------------------------------


def test_the_default_weights_are_seed_004s(agent):
    assert agent.approval.weights == {"goal_understanding": 0.3, "tool_availability": 0.3,
                                      "context_richness": 0.2, "tool_determinism": 0.2}


@pytest.mark.parametrize(("state_kwargs", "band"), [
    ({}, "execute"),                                                                 # a clear yes: 0.98
    ({"message": "that should be fine", "note": "act affirm (similarity 0.70)"}, "approval"),  # 0.70
    ({"note": None, "source": "model", "intent_confidence": 0.35}, "approval"),      # 0.62
    ({"note": None, "source": "model", "intent_confidence": 0.15}, "clarify"),       # 0.50
])
def test_bands_at_the_default_weights(agent, state_kwargs, band):
    from focal.dialogue.approvals import band as band_of

    assessment = c.assess(confirming(**state_kwargs), agent, ["issue_refund"])
    assert set(assessment.factors) == set(c.FACTORS) and set(assessment.reasons) == set(c.FACTORS)
    assert all(0.0 <= v <= 1.0 for v in assessment.factors.values())
    assert band_of(agent, assessment.score) == band, assessment


def test_a_clear_yes_close_to_a_guards_limit_asks_for_approval_unless_the_amount_is_read_exactly():
    from focal.dialogue.approvals import band as band_of

    agent = agent_with(GUARD)
    assert band_of(agent, c.assess(not_exact(48.0), agent, ["issue_refund"]).score) == "approval"
    assert band_of(agent, c.assess(not_exact(20.0), agent, ["issue_refund"]).score) == "execute"
    assert band_of(agent, c.assess(confirming(total=48.0), agent, ["issue_refund"]).score) == "execute"


def test_the_score_is_the_weighted_sum(agent):
    a = c.assess(confirming(note="act affirm (similarity 0.80)"), agent, ["issue_refund"])
    w = agent.approval.weights
    assert a.score == pytest.approx(sum(w[k] * a.factors[k] for k in c.FACTORS), abs=1e-3)


def test_plain_reading_without_graded_confidence(agent):
    assert c.plain(confirming(), agent, ["issue_refund"]).score == 1.0
    assert c.plain(confirming(slots={}), agent, ["issue_refund"]).score == 0.0
    assert c.plain(confirming(), agent, ["no_such_tool"]).score == 0.0
