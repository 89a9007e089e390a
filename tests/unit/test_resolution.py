"""Variable resolution (seed 002): session → profile → read-only tools (≤ 3 rounds) → ask the customer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from focal.config.loader import load_agent
from focal.config.validate import semantic_problems
from focal.dialogue import resolution
from focal.models.agent import AgentConfig
from focal.models.context import Context
from focal.models.localized import localized
from focal.models.session import CustomerProfile, Session
from focal.models.turn import RouteDecision, ScoredRule, SensorOutput, ToolCall, TurnRequest, TurnState
from focal.variables import PENDING, known_variables

REPO = Path(__file__).resolve().parents[2]

AGENT = {
    "id": "shop",
    "name": "Shop",
    "profile_field_definitions": [
        {"field_name": "order_id", "display_name": "Order number", "field_type": "id", "pattern": r"\b[A-Z]\d{4}\b",
         "sources": ["message", "tool"], "prompt": "Which order is it? It looks like A1001."},
        {"field_name": "new_address", "display_name": "New delivery address", "sources": ["message"]},
        {"field_name": "loyalty_tier", "sources": ["profile", "tool"]},
        {"field_name": "order_total", "field_type": "money", "sources": ["tool"]},
        {"field_name": "carrier", "sources": ["tool"]},
        {"field_name": "tracking_url", "sources": ["tool"]},
        {"field_name": "delivery_eta", "sources": ["tool"]},
        {"field_name": "eta_detail", "sources": ["tool"]},
        {"field_name": "refund_reference", "sources": ["tool"]},
        {"field_name": "refund_amount", "field_type": "money", "sources": ["response"], "default": 0},
    ],
    "tools": [
        {"id": "lookup_order", "entrypoint": "t.py:f", "input": {"order_id": {"type": "id"}},
         "output": {"total": "order_total", "carrier": "carrier"}},
        {"id": "carrier_info", "entrypoint": "t.py:f", "input": {"carrier": {}}, "output": {"url": "tracking_url"}},
        {"id": "track", "entrypoint": "t.py:f", "input": {"tracking_url": {}}, "output": {"eta": "delivery_eta"}},
        {"id": "eta_detail", "entrypoint": "t.py:f", "input": {"delivery_eta": {}}, "output": {"detail": "eta_detail"}},
        {"id": "tier", "entrypoint": "t.py:f", "input": {}, "output": {"tier": "loyalty_tier"}},
        {"id": "issue_refund", "entrypoint": "t.py:f", "input": {"order_id": {"type": "id"}},
         "output": {"ref": "refund_reference"}, "side_effect": True},
    ],
    "rules": [
        {"id": "order_total_question", "condition_text": "How much did I pay?", "action_text": "Say the total.",
         "required_variables": ["order_total"], "response_template": "Order {order_id} came to ${order_total}."},
        {"id": "refund_cap", "condition_text": "a refund", "action_text": "cap", "is_hard_constraint": True,
         "enforcement_expression": "refund_amount <= 50"},
    ],
}

OUTPUTS: dict[str, dict[str, Any]] = {
    "lookup_order": {"total": 18.5, "carrier": "ups"},
    "carrier_info": {"url": "https://ups.example/1"},
    "track": {"eta": "2026-12-01"},
    "eta_detail": {"detail": "morning"},
    "tier": {"tier": "gold"},
    "issue_refund": {"ref": "RF-1"},
}


@pytest.fixture
def agent() -> AgentConfig:
    return AgentConfig.model_validate(AGENT)


def make_state(variables: dict[str, Any] | None = None, profile: dict[str, Any] | None = None,
               entities: dict[str, Any] | None = None, message: str = "hi") -> TurnState:
    session = Session(tenant_id="t", agent_id="shop", session_id="s", customer_id="c", variables=dict(variables or {}))
    return TurnState(
        request=TurnRequest(tenant_id="t", agent_id="shop", session_id="s", turn_id="1", message=message),
        session=session,
        profile=CustomerProfile(tenant_id="t", agent_id="shop", customer_id="c", fields=dict(profile or {})),
        sensor=SensorOutput(context=Context(message=message, extracted_entities=dict(entities or {}))),
    )


def tool_runner(agent: AgentConfig, state: TurnState):
    """Like the tools stage's call_tool: arguments from known variables, outputs into the session."""

    def run(tool_id: str, trigger: str) -> ToolCall:
        tool = agent.tool(tool_id)
        assert tool is not None and not tool.side_effect, "resolution must never run a side-effecting tool"
        known = known_variables(agent, state.session, state.profile)
        call = ToolCall(tool_id=tool_id, trigger=trigger, arguments={k: known[k] for k in tool.input if k in known})
        assert all(k in call.arguments for k in tool.input), "a tool runs only when its inputs are known"
        for key, var in tool.output.items():
            state.session.variables[var] = call.outputs[var] = OUTPUTS[tool_id][key]  # type: ignore[union-attr]
        state.tools.tool_calls.append(call)
        return call

    return run


def test_a_value_in_the_session_needs_no_tool(agent):
    state = make_state({"order_total": 30.0})
    out = resolution.resolve(agent, state, ["order_total"], tool_runner(agent, state))
    assert state.tools.tool_calls == [] and out.asked is None
    assert out.notes == ["order_total: from session"]


def test_the_profile_comes_before_a_tool(agent):
    state = make_state(profile={"loyalty_tier": "silver"})
    out = resolution.resolve(agent, state, ["loyalty_tier"], tool_runner(agent, state))
    assert state.tools.tool_calls == []
    assert out.notes == ["loyalty_tier: from profile"]


def test_a_tool_provides_a_missing_variable(agent):
    state = make_state({"order_id": "A1004"})
    out = resolution.resolve(agent, state, ["order_total"], tool_runner(agent, state))
    assert [(c.tool_id, c.trigger) for c in state.tools.tool_calls] == [("lookup_order", "resolve order_total")]
    assert state.session.variables["order_total"] == 18.5
    assert "order_total: from tool lookup_order (round 1)" in out.notes


def test_one_tools_output_unlocks_the_next_tools_input(agent):
    state = make_state({"order_id": "A1004"})
    out = resolution.resolve(agent, state, ["delivery_eta"], tool_runner(agent, state))
    assert [c.tool_id for c in state.tools.tool_calls] == ["lookup_order", "carrier_info", "track"]
    assert "delivery_eta: from tool track (round 3)" in out.notes
    assert out.asked is None and out.unresolved == []


def test_at_most_three_rounds(agent):
    state = make_state({"order_id": "A1004"})
    out = resolution.resolve(agent, state, ["eta_detail"], tool_runner(agent, state))
    assert [c.tool_id for c in state.tools.tool_calls] == ["lookup_order", "carrier_info", "track"]  # eta_detail would be round 4
    assert out.unresolved == ["eta_detail"] and out.asked is None  # a tool-only value is not asked for
    assert "eta_detail: unresolved" in out.notes


def test_a_side_effecting_tool_is_never_run_to_find_a_value(agent):
    state = make_state({"order_id": "A1004"})
    out = resolution.resolve(agent, state, ["refund_reference"], tool_runner(agent, state))
    assert state.tools.tool_calls == []
    assert out.unresolved == ["refund_reference"]
    assert resolution.providers(agent, "refund_reference") == []


def test_a_missing_tool_input_is_asked_for(agent):
    state = make_state()
    out = resolution.resolve(agent, state, ["order_total"], tool_runner(agent, state))
    assert state.tools.tool_calls == []
    assert out.asked == "order_id"
    assert out.notes == ["order_total: unresolved (waiting for order_id)", "order_id: asked"]
    assert resolution.ask_prompt(agent, "order_id") == "Which order is it? It looks like A1001."
    assert resolution.ask_prompt(agent, "new_address") == "Could you tell me your new delivery address?"


@pytest.mark.parametrize(("lang", "start"), [("es", "¿De qué transacción se trata?"), ("en", "Which transaction is it?")])
def test_a_value_a_rules_tool_needs_is_asked_with_the_agents_own_translated_question(lang, start):
    """A rule's tool needs a value whose field has no prompt: the question is the step's, in the customer's language
    — never the engine's frame around an English identifier ("¿Podría indicarme: transaction id?")."""
    cards = localized(load_agent(REPO / "examples" / "cards" / "agent.yaml"), lang)
    asked = resolution.ask_prompt(cards, "transaction_id", {})
    assert asked.startswith(start) and "indicarme" not in asked and "Could you tell me" not in asked


def test_a_step_question_that_names_an_unknown_value_is_not_used():
    cards = load_agent(REPO / "examples" / "cards" / "agent.yaml").model_copy(deep=True)
    slot = next(s for sc in cards.scenarios for st in sc.steps for s in st.slots if s.name == "transaction_id")
    slot.prompt = "About {nowhere_known}: which transaction is it?"
    asked = resolution.ask_prompt(cards, "transaction_id", {})
    assert "unknown" not in asked and "nowhere" not in asked
    assert resolution.ask_prompt(cards, "transaction_id", {"nowhere_known": "your card"}) == (
        "About your card: which transaction is it?")


def test_a_variable_the_customer_may_give_is_asked_for_itself(agent):
    state = make_state()
    out = resolution.resolve(agent, state, ["new_address"], tool_runner(agent, state))
    assert out.asked == "new_address" and out.notes == ["new_address: asked"]


def test_a_value_in_the_message_feeds_the_tool(agent):
    state = make_state(entities={"order_id": "A1004"})
    out = resolution.resolve(agent, state, ["order_total"], tool_runner(agent, state))
    assert state.session.variables["order_id"] == "A1004"
    assert [c.arguments for c in state.tools.tool_calls] == [{"order_id": "A1004"}]
    assert "order_total: from tool lookup_order (round 1)" in out.notes


def test_a_tool_that_already_ran_this_turn_is_not_run_again(agent):
    state = make_state({"order_id": "A1004"})
    state.tools.tool_calls.append(ToolCall(tool_id="lookup_order", status="ok"))
    out = resolution.resolve(agent, state, ["order_total"], tool_runner(agent, state))
    assert len(state.tools.tool_calls) == 1 and out.unresolved == ["order_total"]


def test_rule_variables_skip_what_the_answer_itself_says(agent):
    assert resolution.rule_variables(agent, agent.rule("order_total_question")) == ["order_total", "order_id"]
    assert resolution.rule_variables(agent, agent.rule("refund_cap")) == []  # refund_amount comes from the reply


def test_a_rule_asks_then_answers_on_the_next_turn(agent):
    state = make_state()
    state.route.matched_rules = [ScoredRule(rule_id="order_total_question", score=0.9, scope="GLOBAL")]
    state.route.decision = RouteDecision(action="respond")
    resolution.after_actions(state, agent, tool_runner(agent, state))
    assert (state.route.decision.action, state.route.decision.asked_slot) == ("ask_slot", "order_id")
    assert state.session.variables[PENDING] == {"variable": "order_id", "rules": ["order_total_question"]}

    # Next turn: "A1004" matches no rule; the answer is read into the session and the rule answered.
    nxt = make_state(dict(state.session.variables), entities={"order_id": "A1004"}, message="A1004")
    nxt.route.decision = RouteDecision(action="out_of_scope")
    run = tool_runner(agent, nxt)
    resolution.before_actions(nxt, agent, run)
    resolution.after_actions(nxt, agent, run)
    assert nxt.route.decision.action == "respond"
    assert [m.rule_id for m in nxt.route.matched_rules] == ["order_total_question"]
    assert nxt.session.variables["order_total"] == 18.5 and PENDING not in nxt.session.variables
    assert "order_id: from message (asked last turn)" in nxt.route.decision.notes
    assert [c.trigger for c in nxt.tools.tool_calls] == ["resolve order_total"]


def test_an_answer_without_the_value_drops_the_question(agent):
    state = make_state({PENDING: {"variable": "order_id", "rules": ["order_total_question"]}}, message="never mind")
    state.route.decision = RouteDecision(action="out_of_scope")
    resolution.before_actions(state, agent, tool_runner(agent, state))
    assert state.route.decision.action == "out_of_scope" and state.route.matched_rules == []
    assert PENDING not in state.session.variables


def test_inside_a_flow_a_rule_variable_is_not_asked(agent):
    state = make_state()
    state.session.active_scenario_id = "somewhere"
    state.route.matched_rules = [ScoredRule(rule_id="order_total_question", score=0.9, scope="GLOBAL")]
    state.route.decision = RouteDecision(action="respond")
    resolution.after_actions(state, agent, tool_runner(agent, state))
    assert state.route.decision.action == "respond" and PENDING not in state.session.variables


def test_validate_names_an_unknown_required_variable():
    raw = {**AGENT, "rules": [{**AGENT["rules"][0], "required_variables": ["order_total", "ordr_total"]}]}
    problems = semantic_problems(AgentConfig.model_validate(raw))
    assert [(p.path, p.message) for p in problems if "required_variables" in p.path] == [
        ("rules[0].required_variables[1]", "variable 'ordr_total' is not a declared variable; did you mean 'order_total'?")
    ]


def test_a_step_slot_a_tool_provides_moves_the_flow_on():
    raw = {**AGENT, "scenarios": [{
        "id": "track", "name": "Track", "entry_examples": ["track"], "entry_step_id": "ask",
        "steps": [
            {"id": "ask", "slots": [{"name": "carrier", "prompt": "Which carrier?"}], "transitions": [{"target": "say"}]},
            {"id": "say", "response_template": "Track it at {tracking_url}."},
        ],
    }]}
    agent = AgentConfig.model_validate(raw)
    state = make_state({"order_id": "A1004"})
    state.session.active_scenario_id, state.session.active_step_id = "track", "ask"
    state.route.decision = RouteDecision(action="ask_slot", asked_slot="carrier", scenario_id="track", step_id="ask")
    run = tool_runner(agent, state)
    resolution.before_actions(state, agent, run)
    assert state.route.decision.action == "complete" and state.route.decision.step_id == "say"
    resolution.after_actions(state, agent, run)  # the finished step's template needs tracking_url: round 1
    assert [c.trigger for c in state.tools.tool_calls] == ["resolve carrier", "resolve tracking_url"]
    assert "tracking_url: from tool carrier_info (round 1)" in state.route.decision.notes
