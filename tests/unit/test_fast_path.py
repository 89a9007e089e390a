"""When the offline sensor is sure enough to skip the model call, and the reason it gives."""

from __future__ import annotations

from pathlib import Path

import pytest

from focal.config.loader import load_agent
from focal.models.context import Command, Context
from focal.sensing.fast_path import fast_path

AGENT = Path(__file__).resolve().parents[2] / "examples" / "retail" / "agent.yaml"


@pytest.fixture(scope="module")
def agent():
    return load_agent(AGENT)


def ctx(*commands: Command, ambiguous: bool = False) -> Context:
    return Context(message="m", commands=list(commands), is_ambiguous=ambiguous, ambiguity_reason="x" if ambiguous else None)


def test_a_recognised_dialogue_act_is_enough(agent):
    assert fast_path(agent, ctx(Command(name="AffirmConfirmation", flow="refund"))) == (True, "dialogue act AffirmConfirmation")


def test_a_strong_intent_is_enough_and_a_weak_one_is_not(agent):
    sure, why = fast_path(agent, ctx(Command(name="StartFlow", flow="refund", value=0.91)))
    assert sure and "0.91 ≥ 0.75" in why
    sure, why = fast_path(agent, ctx(Command(name="StartFlow", flow="refund", value=0.6)))
    assert not sure and "0.60 < 0.75" in why


def test_a_filled_slot_is_enough(agent):
    sure, why = fast_path(agent, ctx(Command(name="SetSlot", flow="refund", slot="order_id", value="A1001")))
    assert sure and "order_id" in why


def test_nothing_recognised_or_ambiguous_goes_to_the_model(agent):
    assert fast_path(agent, ctx()) == (False, "nothing the offline sensor could place")
    assert not fast_path(agent, ctx(Command(name="ChitChat"), ambiguous=True))[0]


def test_the_threshold_and_the_switch_are_the_agents(agent):
    strict = agent.model_copy(deep=True)
    strict.sensor.fast_path_confidence = 0.95
    assert not fast_path(strict, ctx(Command(name="StartFlow", flow="refund", value=0.91)))[0]
    strict.sensor.fast_path = False
    assert fast_path(strict, ctx(Command(name="AffirmConfirmation"))) == (False, "fast path disabled")


def test_the_master_switch_turns_every_feature_off(agent):
    off = agent.model_copy(deep=True)
    assert off.feature_on("clarification") and off.feature_on("pre_validation")
    off.features.enabled = False
    assert not any(off.feature_on(flag) for flag in
                   ("pre_validation", "graded_confidence", "approval_gates", "clarification"))


def _far(confidence: float = 0.11, **fields) -> Context:
    return Context(message="m", intent_confidence=confidence, **fields)


def test_a_message_far_from_every_scenario_outside_a_flow_needs_no_model(agent):
    from focal.models.session import Session

    fresh = Session(tenant_id="t", agent_id="retail", session_id="s", customer_id="c")
    sure, why = fast_path(agent, _far(), fresh)
    assert sure and why == "no scenario near: best intent scored 0.11 < 0.25"
    assert not fast_path(agent, _far(0.3), fresh)[0]  # above the floor: the model may place it
    assert not fast_path(agent, _far(), None)[0]  # no session given: no claim about the conversation


def test_the_no_intent_floor_never_skips_what_a_model_could_still_place(agent):
    from focal.models.session import Offer, Session

    in_flow = Session(tenant_id="t", agent_id="retail", session_id="s", customer_id="c", active_scenario_id="refund",
                      active_step_id="collect_order")
    offered = Session(tenant_id="t", agent_id="retail", session_id="s", customer_id="c", offer=Offer(kind="start", scenario_id="refund"))
    fresh = Session(tenant_id="t", agent_id="retail", session_id="s", customer_id="c")
    assert not fast_path(agent, _far(), in_flow)[0]  # may answer the step's question
    assert not fast_path(agent, _far(), offered)[0]  # may answer the offer
    assert not fast_path(agent, _far(extracted_entities={"order_id": "A1001"}), fresh)[0]
    from focal.sensing import language

    foreign = _far(notes=[f"{language.NOTE_PREFIX}es"])
    assert not fast_path(agent, foreign, fresh)[0]  # another language: the model may understand it
    from focal.sensing import tone

    assert not fast_path(agent, _far(notes=[tone.NOTE]), fresh)[0]  # insults pull the vector away from the request
