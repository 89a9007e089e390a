"""Answers checked on what they commit to: structured drafts, the reader as a tripwire, and the paths that must
never fail open (a missing verdict, an unreadable answer, the agent's own template)."""

from __future__ import annotations

import json

import pytest

from focal.enforcement.bindings import render_draft
from focal.errors import ModelError
from focal.generation.structured import parse_draft
from focal.models.agent import AgentConfig, EnforcementConfig, ProfileFieldDefinition, Rule
from focal.models.turn import Draft, GenerateOutput, TurnRequest, TurnState
from focal.ports import ModelReply
from focal.stages.enforce import _check

CAP = Rule(id="cap", condition_text="c", action_text="Never refund more than $50.", is_hard_constraint=True,
           enforcement_expression="refund_amount <= 50")
TONE = Rule(id="tone", condition_text="c", action_text="be polite", is_hard_constraint=True, subjective=True)
FIELDS = [
    ProfileFieldDefinition(field_name="refund_amount", field_type="money", extraction_hints=["refund"], sources=["response"],
                            default=0),
    ProfileFieldDefinition(field_name="order_total", field_type="money", sources=["tool"]),
    ProfileFieldDefinition(field_name="order_id", field_type="id", sources=["tool"]),
]


class _Model:
    """A judge/verifier at the port: answers each call with the next scripted reply (None: the provider fails)."""

    def __init__(self, *replies: object):
        self.replies = list(replies)
        self.calls: list[tuple[str, dict]] = []

    def available(self, purpose: str) -> bool:
        return bool(self.replies)

    def complete(self, purpose, messages, json_schema=None):
        self.calls.append((purpose, json.loads(messages[-1]["content"].split("\n")[1])))
        reply = self.replies.pop(0)
        if reply is None:
            raise ModelError("down")
        return ModelReply(text=reply if isinstance(reply, str) else json.dumps(reply), model="fake")


class _Deps:
    def __init__(self, model):
        self.model = model
        self.clock = lambda: 1_795_867_200.0  # the turn's clock (a date read from a draft is read from it)

    def llm(self, agent, state=None):
        return self.model


def _agent(*rules: Rule) -> AgentConfig:
    return AgentConfig(id="a", name="a", profile_field_definitions=FIELDS, rules=list(rules),
                       enforcement=EnforcementConfig())


def _check_draft(draft: Draft, rules: list[Rule], model=None, message: str = "where is my order?"):
    agent = _agent(*rules)
    state = TurnState(
        request=TurnRequest(tenant_id="t", agent_id="a", session_id="s", turn_id="x", message=message),
        generate=GenerateOutput(drafts=[draft]),
    )
    return _check(agent, state, _Deps(model or _Model()), rules, draft.text), state


def _structured(text: str, commitments: dict, known: dict | None = None) -> Draft:
    shown = render_draft(text, known or {"order_total": 75.0, "order_id": "A1002"}, commitments, {"refund_amount"})
    return Draft(text=shown.text, source="model", commitments=shown.commitments, spans=shown.spans,
                 unbound_placeholders=shown.unbound)


# --- fail-open paths, each a mutation that must break a test ---------------------------------------------------

def test_a_judge_answer_that_omits_a_rule_blocks_that_rule():
    model = _Model({"verdicts": [{"rule_id": "other", "compliant": True}]})
    violations, _ = _check_draft(Draft(text="Thanks for waiting.", source="model"), [TONE], model)
    assert [(v.rule_id, v.reason) for v in violations] == [("tone", "cannot verify: no verdict")]


def test_an_unreadable_judge_answer_blocks():
    violations, _ = _check_draft(Draft(text="Thanks for waiting.", source="model"), [TONE], _Model("not json"))
    assert [v.rule_id for v in violations] == ["tone"] and violations[0].reason.startswith("cannot verify")


def test_the_agents_own_template_is_never_blocked_by_a_response_constraint():
    text = "Refunds above $50 need a review by our team, so I haven't refunded order A1002 ($75.00)."
    violations, _ = _check_draft(Draft(text=text, source="template", agent_text=True), [CAP, TONE])
    assert violations == []
    # the same words written by a model are read: the reader raises them, and with nobody to verify, they block
    violations, _ = _check_draft(Draft(text=text, source="model"), [CAP])
    assert [v.rule_id for v in violations] == ["cap"]


# --- structured drafts: the commitments decide ---------------------------------------------------------------

def test_a_commitment_under_the_cap_passes_with_no_call():
    draft = _structured("Order {order_id} came to {order_total}; I can refund {refund_amount} of it.", {"refund_amount": 30})
    assert draft.text == "Order A1002 came to 75.00; I can refund 30 of it."
    model = _Model({"values": {"refund_amount": 75}})
    violations, state = _check_draft(draft, [CAP], model)
    assert violations == [] and model.calls == []


def test_a_commitment_over_the_cap_is_blocked_by_the_expression_with_no_call():
    model = _Model({"values": {"refund_amount": 30}})
    violations, _ = _check_draft(_structured("I'll refund {refund_amount} today.", {"refund_amount": 75}), [CAP], model)
    [cap] = violations
    assert cap.lane == "deterministic" and "75" in cap.reason and model.calls == []


def test_text_that_promises_more_than_it_declares_is_verified_and_the_verifier_decides():
    draft = _structured("You'll get the full {order_total} back on your card.", {"refund_amount": 30})
    violations, _ = _check_draft(draft, [CAP], _Model({"values": {"refund_amount": 75}}))
    assert [v.rule_id for v in violations] == ["cap"] and "75" in violations[0].reason
    # nobody to verify: cannot verify, blocked
    violations, _ = _check_draft(draft, [CAP])
    assert [v.rule_id for v in violations] == ["cap"] and violations[0].reason.startswith("cannot verify")


# --- plain drafts: the reader only raises ----------------------------------------------------------------------

def test_a_plain_over_cap_promise_is_raised_not_decided_by_the_reader():
    draft = Draft(text="I'll refund you $75 today.", source="model")
    model = _Model({"values": {"refund_amount": 75}})
    violations, _ = _check_draft(draft, [CAP], model)
    assert [v.rule_id for v in violations] == ["cap"] and [p for p, _ in model.calls] == ["extract"]
    assert model.calls[0][1]["customer_message"] == "where is my order?"


def test_a_plain_promise_under_the_cap_needs_no_call():
    model = _Model({"values": {"refund_amount": 99}})
    violations, _ = _check_draft(Draft(text="I'll refund you $30 today.", source="model"), [CAP], model)
    assert violations == [] and model.calls == []


# --- default checks --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "Please provide your card details so we can process the refund.",
    "Para continuar, envíeme el número de su tarjeta y el código de seguridad.",
    "Bitte nennen Sie mir Ihre Kartennummer und Ihre Geheimzahl.",
    "Could you confirm your CVV?",
])
def test_a_draft_naming_a_secret_is_verified_and_blocked_without_a_verdict(text):
    violations, _ = _check_draft(Draft(text=text, source="model"), [])
    assert [v.rule_id for v in violations] == ["no_credential_request"]
    model = _Model({"verdicts": [{"rule_id": "no_credential_request", "compliant": False, "reason": "asks for it"}]})
    violations, _ = _check_draft(Draft(text=text, source="model"), [], model)
    assert [v.rule_id for v in violations] == ["no_credential_request"]


def test_a_warning_about_secrets_passes_when_the_verifier_says_so():
    model = _Model({"verdicts": [{"rule_id": "no_credential_request", "compliant": True}]})
    violations, _ = _check_draft(Draft(text="We will never ask for your PIN.", source="model"), [], model)
    assert violations == []


def test_a_bare_yes_to_a_demand_above_the_cap_is_verified():
    message = "I want $500 compensation"
    violations, _ = _check_draft(Draft(text="Yes.", source="model"), [CAP], message=message)
    assert "no_unbacked_agreement" in [v.rule_id for v in violations]
    model = _Model({"verdicts": [{"rule_id": "no_unbacked_agreement", "compliant": False, "reason": "agrees"}]})
    violations, _ = _check_draft(Draft(text="Yes.", source="model"), [CAP], model, message=message)
    assert [v.rule_id for v in violations] == ["no_unbacked_agreement"]
    assert model.calls[0][1]["customer_message"] == message


def test_an_ordinary_question_raises_nothing():
    model = _Model({"verdicts": []})
    violations, _ = _check_draft(Draft(text="Your order is on its way.", source="model"), [CAP], model)
    assert violations == [] and model.calls == []


# --- what the model answered -----------------------------------------------------------------------------------

def test_parse_reads_the_structured_answer_fenced_or_not():
    parsed = parse_draft('```json\n{"text": "Hi {order_id}", "commitments": {"refund_amount": 30, "x": null}}\n```')
    assert (parsed.text, parsed.commitments, parsed.problem) == ("Hi {order_id}", {"refund_amount": 30}, None)
    plain = parse_draft("Hello there.")
    assert (plain.text, plain.commitments, plain.problem) == ("Hello there.", None, None)


@pytest.mark.parametrize("raw, problem", [
    ('{"text": "<data name=\\"turn\\">{\\"task\\": \\"x\\"}</data>", "commitments": {}}', "repeats a prompt block"),
    ('Sure! known_facts: {"order_total": 75}', "repeats a prompt block"),
    ("I can help. " + "Let me check that for you now. " * 5, "loops"),
    ('{"text": "unterminated', "invalid JSON"),
    ('{"answer": "no text key"}', "invalid JSON"),
    ("   ", "empty"),
])
def test_unusable_answers_are_no_draft(raw, problem):
    assert problem in (parse_draft(raw).problem or "")


def test_a_placeholder_naming_nothing_is_reported_and_shown_as_written():
    shown = render_draft("Your refund of {refund_total} is on its way, {order_id}.", {"order_id": "A1"}, {})
    assert shown.unbound == ["refund_total"] and shown.bound == {"order_id": "A1"}
    assert shown.text == "Your refund of {refund_total} is on its way, A1."


# --- a guard's template through the real generate and enforce stages --------------------------------------------

def test_a_guards_template_is_said_as_written_whatever_the_response_constraints_read(tmp_path):
    from pathlib import Path

    from focal.models.session import Session
    from focal.stages import enforce, generate
    from focal.wiring import local_deps

    retail = Path(__file__).resolve().parents[2] / "examples" / "retail" / "agent.yaml"
    deps = local_deps(retail, tmp_path / "focal.db")
    session = Session(tenant_id="local", agent_id="retail", session_id="s", customer_id="c-1",
                      active_scenario_id="refund", active_step_id="confirm_refund",
                      slots={"order_id": "A1002"}, variables={"order_total": 75.0, "order_item": "Blue rain jacket"})
    state = TurnState(request=TurnRequest(tenant_id="local", agent_id="retail", session_id="s", turn_id="x",
                                          message="yes"), session=session)
    state.route.decision.action, state.route.decision.blocked_by = "action_blocked", ["refund_guard"]
    generate.run(state, deps)
    enforce.run(state, deps)
    assert state.response == ("Refunds above $50 need a review by our team, so I haven't refunded order A1002. If you'd "
                              "like a member of our team to review it, just ask for one.")
    assert state.enforce.report.violations == [] and not state.enforce.report.fallback_used


def test_a_verification_answer_that_leaves_the_raised_field_out_blocks():
    draft = Draft(text="I'll refund you $75 today.", source="model")
    violations, _ = _check_draft(draft, [CAP], _Model({"values": {}}))
    assert [v.rule_id for v in violations] == ["cap"] and violations[0].reason.startswith("cannot verify")
    violations, _ = _check_draft(draft, [CAP], _Model({"values": {"refund_amount": None}}))  # it reads no promise
    assert violations == []


def test_a_message_read_as_asking_for_a_flow_with_a_guarded_action_raises_the_check_whatever_its_words():
    from focal.enforcement.tripwires import demands_forbidden
    from focal.models.agent import Scenario, Step, Tool

    tool = Tool(id="end_membership", kind="python", entrypoint="tools.py:end", side_effect=True)
    guard = Rule(id="verified_only", condition_text="c", action_text="a", is_hard_constraint=True,
                 guarded_tool_ids=["end_membership"], enforcement_expression="True")
    flow = Scenario(id="leave", name="Leave", entry_step_id="go",
                    steps=[Step(id="go", instructions="End it.", action=["end_membership"])])
    info = Scenario(id="hours", name="Hours", entry_step_id="say", steps=[Step(id="say", instructions="Say the hours.")])
    agent = AgentConfig(id="a", name="a", profile_field_definitions=FIELDS, rules=[CAP, guard], tools=[tool],
                        scenarios=[flow, info])
    for message in ("Cancel my membership today", "Je veux partir", "I'm done with you people"):
        assert demands_forbidden(agent, [CAP], {"refund_amount"}, message, {}, requested="leave")
        assert not demands_forbidden(agent, [CAP], {"refund_amount"}, message, {}, requested=None)
        assert not demands_forbidden(agent, [CAP], {"refund_amount"}, message, {}, requested="hours")


def test_an_answer_to_a_demand_that_states_a_compliant_figure_is_no_bare_yes():
    message = "I want $500 compensation"
    violations, _ = _check_draft(Draft(text="I can't do that, but I'll refund $30 today.", source="model"), [CAP],
                                 message=message)
    assert violations == []
    violations, _ = _check_draft(Draft(text="Sure, that works.", source="model"), [CAP], message=message)
    assert [v.rule_id for v in violations] == ["no_unbacked_agreement"]
